"""A scan that uses the inputs' indexes (:func:`scan`), with the output of a scan.

For each input file with a fresh index (:func:`~cqllegacy.indexing.store.open_index`), the
index is asked for the candidate games (those that may match, and every game that does
not read cleanly); only they are evaluated, with their ordinals as in a scan: from the
index's stored positions where the query allows it (:mod:`~cqllegacy.indexing.replay`),
else from their text, read by their byte ranges (or, when they are many, from the file
split as a scan splits it) by the same :class:`~cqllegacy.runner.game_scan.GameScan` a scan
uses.  The games left out cannot match and read cleanly, so the scan would neither
write nor report them: the output, the report and the messages are the scan's, and the
summary counts every game.  With an engine of several workers (``--jobs``, ``--engine
dask``) the candidates are sent to them in batches (:class:`IndexCandidates`,
:mod:`cqllegacy.runner.parallel`), unindexed files split as a scan splits them, and the
results are written here in input order.

A file without a usable index is scanned; a stale, foreign or damaged one is said so
once, in one line.  A query whose necessary conditions the index cannot check
(:func:`~cqllegacy.evaluator.necessary.necessity` is None) has every game as a candidate
when it is evaluated from stored positions (that beats replaying the text), and is
scanned as a whole otherwise: the index would only add its cost.  So is a query its tags
decide (``decided_by_tags``): the scan reads such a query's games without replaying a
move, most of them only as far as their tag lines.  A query that examines
variations is narrowed by its tags and game numbers only (the positions of variations
are not indexed).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from cqllegacy.core.tree import Query
from cqllegacy.errors import IncompleteInput, IndexFailed
from cqllegacy.evaluator.necessary import Necessity, necessity
from cqllegacy.indexing import replay
from cqllegacy.indexing.store import Index, StaleIndex, default_index_path, open_index
from cqllegacy.runner import scanner
from cqllegacy.runner.compiled import CompiledQueryLike
from cqllegacy.runner.game_scan import GameScan
from cqllegacy.runner.pgn import DamagedInput, GameText, open_pgn, split_games
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.results import InputFile, MatchSink, ScanOptions, StopScan, Summary

if TYPE_CHECKING:
    from cqllegacy.runner.parallel import Engine

__all__ = ["FROM_THE_FILE", "IndexCandidates", "IndexChoice", "scan"]

#: Beyond this share of a file's games as candidates, they are read from the file.
FROM_THE_FILE = 0.5


@attrs.frozen
class IndexChoice:
    """Which indexes a run uses: ``use`` False scans; ``path`` names the index (a file,
    for one input, or a folder holding ``NAME.cqlidx`` per input) instead of the one
    beside each input."""

    use: bool = True
    path: Path | None = None

    def location(self, item: InputFile, inputs: int) -> Path:
        if self.path is None:
            return default_index_path(item.path)
        if self.path.is_dir() or inputs > 1:
            return self.path / default_index_path(item.path).name
        return self.path


def scan(
    compiled: CompiledQueryLike,
    query: Query,
    inputs: Sequence[InputFile],
    *,
    choice: IndexChoice = IndexChoice(),
    options: ScanOptions = ScanOptions(),  # noqa: B008 (frozen)
    sinks: Sequence[MatchSink] = (),
    progress: Messages | None = None,
    engine: Engine | None = None,
) -> Summary:
    """Run ``compiled`` (the compiled ``query``) on ``inputs`` as
    :func:`cqllegacy.runner.scan` does, using their indexes where they are fresh."""
    progress = progress or Messages(sys.stderr)
    # A query its tags decide is scanned: the scan replays no move of it and reads only
    # the tag lines of a game its tag needles reject, so the index (loading DuckDB,
    # proving itself fresh, its stored tags read and tested one by one) can only add.
    use = choice.use and not compiled.decided_by_tags
    need = necessity(query, variations=options.variations) if use else None
    # A query the index cannot narrow is still served by it when every clean game can be
    # evaluated from its stored positions (replay.feeds): that beats replaying its text.
    every_game = need is None and use and replay.feeds(compiled, options)
    spread = engine is not None and scanner.spreads(engine, sinks, inputs)
    if need is None and not every_game:
        if choice.use and choice.path is not None:
            progress.message(f"note: {_why_not(compiled)}; scanning")
        return scanner.scan(
            compiled, inputs, options=options, sinks=sinks, progress=progress, engine=engine
        )
    with contextlib.ExitStack() as stack:
        indexes = [stack.enter_context(_opened(choice, item, inputs, progress)) for item in inputs]
        if not any(indexes):
            return scanner.scan(
                compiled, inputs, options=options, sinks=sinks, progress=progress, engine=engine
            )
        if spread:
            # The candidates are the units of work of the engine's workers.
            stored = replay.feeds(compiled, options)
            chosen = [
                None
                if index is None
                else IndexCandidates(index, need, compiled.prefilter, stored=stored)
                for index in indexes
            ]
            return scanner.scan(
                compiled, inputs, options=options, sinks=sinks, progress=progress,
                engine=engine, candidates=chosen,
            )  # fmt: skip
        if engine is not None:
            engine.close()
        return _scan_indexed(compiled, need, inputs, indexes, options, sinks, progress)


def _why_not(compiled: CompiledQueryLike) -> str:
    """Why a run given an index does not use it."""
    if compiled.decided_by_tags:
        return "the tags alone decide this query, which the scan reads faster"
    return "the index cannot narrow this query"


@attrs.frozen
class IndexCandidates:
    """The candidate games of an indexed file, as a parallel scan takes them
    (:class:`cqllegacy.runner.parallel.Candidates`)."""

    index: Index
    #: None: every game is a candidate (a query evaluated from stored positions).
    need: Necessity | None
    #: The run's tag test (see :meth:`~cqllegacy.indexing.store.Index.candidates`).
    accepts: Callable[[Mapping[str, str], int], bool] | None = None
    #: Whether the workers evaluate clean games from their stored positions
    #: (:func:`~cqllegacy.indexing.replay.feeds`) rather than their texts.
    stored: bool = False

    @property
    def games(self) -> int:
        return self.index.games

    def numbers(self, games_before: int) -> list[int]:
        if self.need is None:
            return list(range(1, self.index.games + 1))
        return self.index.candidates(self.need, games_before, self.accepts)

    def texts(self, numbers: Sequence[int]) -> Iterator[GameText]:
        return self.index.texts(numbers)

    def unit(self, numbers: Sequence[int]) -> tuple[GameText, ...] | replay.StoredUnit:
        if self.stored:
            return replay.stored_unit(self.index, numbers)
        return tuple(self.index.texts(numbers))


@contextlib.contextmanager
def _opened(
    choice: IndexChoice, item: InputFile, inputs: Sequence[InputFile], progress: Messages
) -> Iterator[Index | None]:
    """The fresh index of ``item``, or None (said once when one is there but unusable)."""
    where = choice.location(item, len(inputs))
    index = None
    if where.exists() or choice.path is not None:
        try:
            index = open_index(where, item.path)
        except StaleIndex as exc:
            progress.message(f"note: {exc}; scanning {item.name}")
        except OSError as exc:
            progress.message(f"note: index {where} cannot be read ({exc.strerror}); scanning")
    try:
        yield index
    finally:
        if index is not None:
            index.close()


def _scan_indexed(
    compiled: CompiledQueryLike,
    need: Necessity | None,
    inputs: Sequence[InputFile],
    indexes: Sequence[Index | None],
    options: ScanOptions,
    sinks: Sequence[MatchSink],
    progress: Messages,
) -> Summary:
    started = time.monotonic()
    state = GameScan(compiled, options, sinks, progress)
    state.last_game = scanner.last_game(compiled)
    try:
        for item, index in zip(inputs, indexes, strict=True):
            if index is None:
                scanner.scan_file(state, item)
            else:
                _candidates_of(state, item, index, need)
    except StopScan as stop:
        # As the scan says it: a sink has all it wants, or the last game is passed.
        scanner.stopped(state, stop)
    finally:
        progress.close()
    state.summary.seconds = time.monotonic() - started
    return state.summary


def _candidates_of(
    state: GameScan, item: InputFile, index: Index, need: Necessity | None
) -> None:
    """Evaluate the candidate games of one indexed file (every game when ``need`` is
    None), each with its scan ordinal.

    Where the query allows it (:func:`~cqllegacy.indexing.replay.feeds`), the clean
    candidates are evaluated from their stored positions, the others from their text.
    Otherwise few candidates are read by their byte ranges (:meth:`Index.texts`; the
    rest of the file is never touched); many (more than :data:`FROM_THE_FILE` of the
    games) from the file itself, split as the scan splits it, the others left unread: a
    split costs little beside a replay.
    """
    base = state.summary.games
    try:
        _answer_from(state, item, index, need)
    except IndexFailed as exc:
        # What the index answered before it failed is right (DuckDB checks each block it
        # reads): the games after the last one handled are scanned, as a scan would.
        handled = state.summary.games - base
        rest = f"the rest of {item.name}" if handled else item.name
        state.progress.message(f"note: {exc}; scanning {rest}")
        scanner.scan_file(state, item, after=handled)


def _answer_from(state: GameScan, item: InputFile, index: Index, need: Necessity | None) -> None:
    base = state.summary.games
    size = _size(item.path)
    if need is None:
        # Up to the last game the query admits (the scan stops after it, as below).
        last = index.games if state.last_game is None else max(state.last_game - base, 0)
        numbers = list(range(1, min(index.games, last) + 1))
    else:
        numbers = index.candidates(need, base, state.compiled.prefilter)
    if replay.feeds(state.compiled, state.options):
        replay.evaluate_stored(state, item.name, index, base, numbers)
        texts: Iterable[GameText] = ()
    elif len(numbers) > FROM_THE_FILE * index.games:
        texts = _from_the_file(item.path, numbers)
    else:
        texts = index.texts(numbers)
    for text in texts:
        state.summary.games = base + text.file_ordinal - 1
        state.game(text, item.name)
        state.progress.update(state.summary.games, state.summary.matched, state.bytes_before)
    state.summary.games = base + index.games
    state.bytes_before += size
    state.progress.update(state.summary.games, state.summary.matched, state.bytes_before)
    if state.last_game is not None and state.summary.games >= state.last_game:
        raise scanner.past_the_last_game(state)


def _from_the_file(path: Path, numbers: Sequence[int]) -> Iterator[GameText]:
    """The games ``numbers`` (ascending) of the file, split from it as the scan does.
    The index is fresh (built from these very bytes), so the split gives the games the
    index numbers."""
    wanted = set(numbers)
    try:
        with open_pgn(path) as pgn:
            for text in split_games(pgn.lines()):
                if text.file_ordinal in wanted:
                    yield text
    except (OSError, DamagedInput) as exc:
        # Only a file changed or lost since its index was checked gets here.
        raise IncompleteInput(f"{path} changed while it was read ({exc}); run again") from exc


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
