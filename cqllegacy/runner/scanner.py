"""The scan: every game of every input file through a compiled query (:func:`scan`).

The files are read in the order given, each through one
:class:`~cqllegacy.runner.game_scan.GameScan` (which says what happens to each game), so
game ordinals run on from one file to the next.  A file that cannot be opened, or whose
compressed data breaks off, is reported and the scan goes on with the next one.  With
an engine of several workers (:mod:`~cqllegacy.runner.parallel`) the games are scanned
there, with the same results in the same order.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from cqllegacy.errors import IndexFailed
from cqllegacy.runner import candidates as sources
from cqllegacy.runner.candidates import Candidates
from cqllegacy.runner.compiled import CompiledQueryLike
from cqllegacy.runner.game_scan import GameScan
from cqllegacy.runner.pgn import GameText, open_pgn
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.results import (
    InputFile,
    MatchSink,
    RenderingSink,
    ScanOptions,
    StopScan,
    Summary,
)

if TYPE_CHECKING:
    # The parallel machinery is imported where a scan is spread: a scan in this process
    # (``--jobs 1``, small inputs) does not load it.
    from cqllegacy.runner.parallel import Engine, UnitResult


def total_size(inputs: Iterable[InputFile]) -> int | None:
    """The inputs' total size in bytes, None when some size is unknown."""
    try:
        return sum(item.path.stat().st_size for item in inputs)
    except OSError:
        return None


def scan(
    compiled: CompiledQueryLike,
    inputs: Sequence[InputFile],
    *,
    options: ScanOptions = ScanOptions(),  # noqa: B008 (frozen: sharing the default is safe)
    sinks: Sequence[MatchSink] = (),
    progress: Messages | None = None,
    engine: Engine | None = None,
    candidates: Sequence[Candidates | None] | None = None,
) -> Summary:
    """Run ``compiled`` on every game of ``inputs``; each matching game goes to every sink.

    A file that cannot be opened or whose compressed data breaks off is reported and
    the scan goes on with the next one.  With an ``engine`` of several workers (see
    :mod:`cqllegacy.runner.parallel`) the games are scanned there, with the same
    results in the same order; that needs sinks that can render their text elsewhere
    (``renderer`` and ``write``, as the PGN and report writers), else the scan runs here.
    ``candidates`` are those of the inputs with a fresh index (:mod:`cqllegacy.runner.
    candidates`; None for the others): only they are evaluated, here or there.
    """
    started = time.monotonic()
    state = GameScan(compiled, options, sinks, progress or Messages(sys.stderr))
    state.last_game = last_game(compiled)
    try:
        if (
            engine is not None
            and _all_render(sinks)
            and _spread(engine, inputs)
            and not answered_in_columns(engine, compiled, candidates)
        ):
            _scan_on(engine, state, sinks, inputs, candidates)
        else:
            if engine is not None:
                engine.close()
            indexed = [None] * len(inputs) if candidates is None else candidates
            for item, chosen in zip(inputs, indexed, strict=True):
                if chosen is None:
                    scan_file(state, item)
                else:
                    scan_indexed_file(state, item, chosen)
    except StopScan as stop:
        # A sink has all it wants (the engine's workers were stopped on the way here).
        stopped(state, stop)
    finally:
        state.progress.close()
    state.summary.seconds = time.monotonic() - started
    return state.summary


def last_game(compiled: CompiledQueryLike) -> int | None:
    """The last game the query's ``gamenumber`` admits (``prefilter`` rejects every later
    one, so the scan stops there), None without an upper bound."""
    header = getattr(getattr(compiled, "query", None), "header", None)
    bounds = getattr(header, "gamenumber", None)
    return bounds[1] if isinstance(bounds, tuple) else None


def stopped(state: GameScan, stop: StopScan) -> None:
    """Record in the summary where and why the scan stopped early."""
    state.summary.stopped = stop.reason
    state.summary.games = stop.games
    if stop.matched is not None:
        state.summary.matched = stop.matched


def past_the_last_game(state: GameScan) -> StopScan:
    return StopScan(f"stopped after game {state.last_game}", games=state.last_game or 0)


def scan_file(state: GameScan, item: InputFile, after: int = 0) -> None:
    """Scan the games of ``item`` after its first ``after`` into ``state``."""
    with contextlib.ExitStack() as stack:
        try:
            source = stack.enter_context(open_pgn(item.path))
        except OSError as exc:
            state.summary.damaged_files += 1
            reason = exc.strerror or str(exc)
            state.progress.message(f"warning: {item.name}: cannot read: {reason}")
            return
        state.file(source, item.name, after)


def spreads(engine: Engine, sinks: Sequence[MatchSink], inputs: Sequence[InputFile]) -> bool:
    """Whether a scan of ``inputs`` into ``sinks`` runs on the engine's workers: they can
    render the sinks' texts, and they are worth their cost for these inputs."""
    return _all_render(sinks) and _spread(engine, inputs)


def _spread(engine: Engine, inputs: Sequence[InputFile]) -> bool:
    """Whether the engine's workers are worth their cost for these inputs."""
    if engine.workers < 2:
        return False
    from cqllegacy.runner.parallel import worth_spreading

    return getattr(engine, "small_inputs", True) or worth_spreading(inputs)


def answered_in_columns(
    engine: Engine, compiled: CompiledQueryLike, candidates: Sequence[Candidates | None] | None
) -> bool:
    """Whether every input's index answers the query in columns (each list's array form
    is exact, alone or under each binding of its tag), where local workers chosen by
    default (no ``--jobs``) would only add their cost: each unit asks the index again
    and sends its positions to a worker, which answers it in a few milliseconds."""
    if not getattr(engine, "by_default", False) or not candidates:
        return False
    if any(chosen is None or not getattr(chosen, "stored", False) for chosen in candidates):
        return False
    lists = compiled.arrays
    return lists is not None and all(
        arrays.exact is not None or arrays.bound is not None for arrays in lists
    )


def _all_render(sinks: Sequence[MatchSink]) -> TypeGuard[Sequence[RenderingSink]]:
    """Whether every sink can have its text made by a worker and write it here."""
    return all(_renders(sink) for sink in sinks)


def _renders(sink: MatchSink) -> bool:
    return callable(getattr(sink, "renderer", None)) and callable(getattr(sink, "write", None))


def _scan_on(
    engine: Engine,
    state: GameScan,
    sinks: Sequence[RenderingSink],
    inputs: Sequence[InputFile],
    candidates: Sequence[Candidates | None] | None,
) -> None:
    """The scan on an engine's workers; results are written here, in input order."""
    from cqllegacy.runner.parallel import run_units

    summary, progress = state.summary, state.progress

    def emit(result: UnitResult, bytes_done: int) -> None:
        result.replay(sinks, progress)
        summary.games += result.games
        summary.matched += result.matched
        summary.skipped += result.skipped
        summary.damaged_files += result.damaged
        progress.update(summary.games, summary.matched, bytes_done)
        if state.last_game is not None and summary.games >= state.last_game:
            raise past_the_last_game(state)

    # Not ``summary.damaged_files += run_units(...)``: emit counts damaged units meanwhile.
    damaged = run_units(engine, state.compiled, inputs, state.options, sinks, emit, candidates)
    summary.damaged_files += damaged


def scan_indexed_file(state: GameScan, item: InputFile, chosen: Candidates) -> None:
    """Evaluate the candidate games of one indexed file into ``state``, each with its
    scan ordinal; the rest of the file is scanned when the index fails on the way."""
    base = state.summary.games
    try:
        _answer_from(state, item, chosen)
    except IndexFailed as exc:
        # What the index answered before it failed is right (DuckDB checks each block it
        # reads): the games after the last one handled are scanned, as a scan would.
        handled = state.summary.games - base
        rest = f"the rest of {item.name}" if handled else item.name
        state.progress.message(f"note: {exc}; scanning {rest}")
        scan_file(state, item, after=handled)


def _answer_from(state: GameScan, item: InputFile, chosen: Candidates) -> None:
    from cqllegacy.runner import stored

    base = state.summary.games
    size = _size(item.path)
    games = chosen.games
    if chosen.every_game:
        # Up to the last game the query admits (the scan stops after it, as below).
        last = games if state.last_game is None else max(state.last_game - base, 0)
        numbers: Sequence[int] = list(range(1, min(games, last) + 1))
    else:
        numbers = chosen.numbers(base)
    if stored.feeds(state.compiled, state.options) and chosen.positions_pay(len(numbers)):
        stored.evaluate_stored(state, item.name, chosen, base, numbers)
        texts: Iterable[GameText] = ()
    elif len(numbers) > sources.FROM_THE_FILE * games:
        texts = sources.from_the_file(item.path, numbers)
    else:
        texts = chosen.texts(numbers)
    for text in texts:
        state.summary.games = base + text.file_ordinal - 1
        state.game(text, item.name)
        state.progress.update(state.summary.games, state.summary.matched, state.bytes_before)
    state.summary.games = base + games
    state.bytes_before += size
    state.progress.update(state.summary.games, state.summary.matched, state.bytes_before)
    if state.last_game is not None and state.summary.games >= state.last_game:
        raise past_the_last_game(state)


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
