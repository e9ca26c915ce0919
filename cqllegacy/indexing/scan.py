"""A scan that uses the inputs' indexes (:func:`scan`), with the output of a scan.

For each input file with a fresh index (:func:`~cqllegacy.indexing.store.open_index`),
the index is a source of the candidate games (those that may match, and every game that
does not read cleanly: :class:`IndexCandidates`), and the runner's scan drives it
(:func:`cqllegacy.runner.scanner.scan`, :mod:`cqllegacy.runner.candidates`): only the
candidates are evaluated, with their ordinals as in a scan, from the index's stored
positions where the query allows it (:mod:`cqllegacy.runner.stored`), else from their
text.  This module decides which files are answered from their index and opens them; it
reads no game itself.

A file without a usable index is scanned; a stale, foreign or damaged one is said so
once, in one line.  A query whose necessary conditions the index cannot check
(:func:`~cqllegacy.evaluator.necessary.necessity` is None) has every game as a candidate
when it is evaluated from stored positions (that beats replaying the text), and is
scanned as a whole otherwise: the index would only add its cost.  So is a query its tags
decide (``decided_by_tags``): the scan reads such a query's games without replaying a
move, most of them only as far as their tag lines.  A query that examines
variations is narrowed by its tags and game numbers only (the positions of variations
are not indexed).

An index costs a run about :data:`INDEX_COST` of CPU before it saves anything (DuckDB
and numpy loaded, the index opened, checked and asked), so a file is scanned where the
index cannot repay that (:func:`index_pays`): a small plain file of a query the index
would narrow by its tags and game numbers alone, or not at all, whose games fed from
stored positions (those the tags may admit, counted from the file's tag lines) and whose
bytes left unsplit save less than that cost.  What a query's positions leave out is
unknown until asked, so such a query uses the index unless the whole scan of a plain file
would cost less (:data:`SCAN_MOST` a byte).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from cqllegacy.core.tree import Query
from cqllegacy.evaluator.necessary import Necessity, necessity
from cqllegacy.evaluator.needles import Needles
from cqllegacy.indexing.store import Index, StaleIndex, default_index_path, open_index
from cqllegacy.records import Record
from cqllegacy.runner import scanner
from cqllegacy.runner.compiled import CompiledQueryLike
from cqllegacy.runner.pgn import (
    Compression,
    GameText,
    detect_compression,
)
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.results import InputFile, MatchSink, ScanOptions, Summary
from cqllegacy.runner.stored import StoredUnit, feeds

if TYPE_CHECKING:
    from cqllegacy.runner.parallel import Engine

__all__ = [
    "ARRAYS_COST", "INDEX_COST", "SCAN_MOST", "STORED_SAVES", "STORED_SAVES_MOST", "UNSPLIT_SAVES",
    "IndexCandidates", "IndexChoice", "index_pays", "positions_pay", "scan",
]  # fmt: skip

# The cost rule (:func:`index_pays`), in CPU seconds of this project's machines; only
# their ratios decide.  Measured in one process on the first 1,000 to 10,275 games of
# the benchmark corpus (docs/performance.md): loading DuckDB's module and numpy
# and opening, checking and asking an index cost 0.15-0.25 s; evaluating a game from its
# stored positions about 0.45 ms less than replaying its text; the scan splits a game
# and tests its tag section (about 30 us a game of 930 bytes) where the index tests its
# stored tags (about 7 us).
#: What the index costs a run before it saves anything.
INDEX_COST = 0.2
#: What a clean game evaluated from its stored positions saves beside its replay.
STORED_SAVES = 0.00045
#: What a byte of the file that the index spares a run from splitting saves.
UNSPLIT_SAVES = 25e-9
# Stored positions are read as numpy arrays; importing numpy costs 0.11-0.15 s of CPU
# (measured, docs/performance.md), more than replaying a few dozen games.
#: What loading numpy costs a run that reads stored positions.
ARRAYS_COST = 0.12
#: The most a scan spends on a byte of a plain file: the slowest measured script's scan
#: (relation-shift-missing, about 4.1 us a byte of the 15,000 playouts), with room.
SCAN_MOST = 5e-6
#: The most a game evaluated from its stored positions saves beside its text: a game of
#: the slowest published script's scan (rookrectangle, about 3.4 ms a game).
STORED_SAVES_MOST = 0.0034


def positions_pay(candidates: int) -> bool:
    """Whether evaluating ``candidates`` games from their stored positions can repay
    loading numpy (:data:`ARRAYS_COST`): numpy is loaded already, or so many games could
    save that much (at most :data:`STORED_SAVES_MOST` a game).  Otherwise their texts are
    read, as a scan reads them (the same answers, byte for byte)."""
    return "numpy" in sys.modules or candidates * STORED_SAVES_MOST >= ARRAYS_COST


@contextlib.contextmanager
def importing_meanwhile(module: str, wanted: bool = True) -> Iterator[None]:
    """Import ``module`` on another thread while the block runs, when ``wanted`` and not
    imported yet.

    DuckDB lets go of the interpreter while it answers a question, so numpy's import
    (about 0.1 s) takes no wall time beside the candidates' question.  The thread is
    joined before the block ends: none is left when workers are forked.  A failed import
    is left to the next import of ``module``, which reports it."""
    if not wanted or module in sys.modules:
        yield
        return
    thread = threading.Thread(
        target=_import_quietly, args=(module,), name=f"import {module}", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        thread.join()


def _import_quietly(module: str) -> None:
    with contextlib.suppress(Exception):
        importlib.import_module(module)


@attrs.frozen(repr=False)
class IndexChoice(Record):
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
    stored = use and feeds(compiled, options)
    # A query the index cannot narrow is still served by it when every clean game can be
    # evaluated from its stored positions (stored.feeds): that beats replaying its text.
    every_game = need is None and stored
    if need is None and not every_game:
        if choice.use and choice.path is not None:
            progress.message(f"note: {_why_not(compiled)}; scanning")
        return scanner.scan(
            compiled, inputs, options=options, sinks=sinks, progress=progress, engine=engine
        )
    paying = [index_pays(need, stored, compiled.tag_needles, item.path) for item in inputs]
    unpaid = [item.name for item, pays in zip(inputs, paying, strict=True) if not pays]
    if choice.path is not None and unpaid:
        progress.message(
            "note: the index cannot repay its cost on so small a file for this query; "
            f"scanning {', '.join(unpaid)}"
        )
    with contextlib.ExitStack() as stack:
        indexes = [
            stack.enter_context(_opened(choice, item, inputs, progress)) if pays else None
            for item, pays in zip(inputs, paying, strict=True)
        ]
        if not any(indexes):
            return scanner.scan(
                compiled, inputs, options=options, sinks=sinks, progress=progress, engine=engine
            )
        # The indexes are sources of candidate games that the scan drives, here or on the
        # engine's workers.
        chosen = [
            None if index is None else IndexCandidates(index, need, compiled.prefilter, stored)
            for index in indexes
        ]
        summary = scanner.scan(
            compiled, inputs, options=options, sinks=sinks, progress=progress,
            engine=engine, candidates=chosen,
        )  # fmt: skip
        summary.indexed = sum(index is not None for index in indexes)
        return summary


def index_pays(need: Necessity | None, stored: bool, needles: Needles, path: Path) -> bool:
    """Whether the index of the file at ``path`` can repay what it costs a run
    (:data:`INDEX_COST`) for a query that needs ``need`` (None: nothing the index can
    check) and whose clean games are evaluated from stored positions where ``stored``.

    A query the positions narrow: what they leave out is unknown until asked, but the
    scan of a plain file costs at most :data:`SCAN_MOST` a byte; yes unless the whole
    scan would cost less than the index.  Otherwise it saves :data:`UNSPLIT_SAVES` a
    byte of the file (the scan splits every game) and, where ``stored``,
    :data:`STORED_SAVES` a game it evaluates: at most the games whose tag lines hold a
    text of every clause of the tag ``needles`` (the scan rejects the others before
    reading their moves), their game numbers within ``need.gamenumber``.  A file too
    large to fall short, or a compressed one (its size says little), is not read to
    count: yes.
    """
    size = _size(path)
    if need is not None and need.lists:
        return size * SCAN_MOST >= INDEX_COST or not _plain(path)
    unsplit = size * UNSPLIT_SAVES
    if unsplit >= INDEX_COST:
        return True
    if not stored:
        return False
    games = _games_admitted(path, needles)
    if games is None:
        return True
    if need is not None and need.gamenumber is not None:
        first, last = need.gamenumber
        if last is not None:
            games = min(games, max(last - first + 1, 0))
    return games * STORED_SAVES + unsplit >= INDEX_COST


#: A tag line; the last of a tag section (the next line is not a tag line).
_TAG_LINE = re.compile(rb"(?m)^[ \t]*\[[^\n]*")
_LAST_TAG_LINE = re.compile(rb"(?m)^[ \t]*\[[^\n]*\n(?![ \t]*\[)")


def _games_admitted(path: Path, needles: Needles) -> int | None:
    """At most how many games of the plain PGN file at ``path`` have tag lines holding
    a text of every clause of ``needles`` (every game when there is none), counted in
    its bytes; None when it cannot be read so, or seems to hold no game (a compressed or
    wide file).  Counted from the lines that begin with ``[``: a game whose tags lie
    elsewhere is not counted, which can only make the run choose the scan."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if detect_compression(data[:6]) is not Compression.PLAIN:
        return None
    games = len(_LAST_TAG_LINE.findall(data))
    if not games:
        return None
    if not needles:
        return games
    lines = b"\n".join(_TAG_LINE.findall(data)).lower()
    hits = (sum(lines.count(text.encode("ascii")) for text in clause) for clause in needles)
    return min(games, *hits)


def _why_not(compiled: CompiledQueryLike) -> str:
    """Why a run given an index does not use it."""
    if compiled.decided_by_tags:
        return "the tags alone decide this query, which the scan reads faster"
    return "the index cannot narrow this query"


@attrs.frozen(repr=False)
class IndexCandidates(Record):
    """The candidate games of an indexed file, a source the scan drives
    (:class:`cqllegacy.runner.candidates.Candidates`)."""

    index: Index
    #: None: every game is a candidate (a query evaluated from stored positions).
    need: Necessity | None
    #: The run's tag test (see :meth:`~cqllegacy.indexing.store.Index.candidates`).
    accepts: Callable[[Mapping[str, str], int], bool] | None = None
    #: Whether the workers evaluate clean games from their stored positions
    #: (:func:`~cqllegacy.runner.stored.feeds`) rather than their texts.
    stored: bool = False

    @property
    def games(self) -> int:
        return self.index.games

    @property
    def every_game(self) -> bool:
        return self.need is None

    def numbers(self, games_before: int) -> list[int]:
        if self.need is None:
            return list(range(1, self.index.games + 1))
        # Games read from their stored positions need numpy; a file too small for that
        # to pay is replayed instead (positions_pay), and loads nothing more.
        with importing_meanwhile("numpy", self.stored and positions_pay(self.index.games)):
            return self.index.candidates(self.need, games_before, self.accepts)

    def texts(self, numbers: Sequence[int]) -> Iterator[GameText]:
        return self.index.texts(numbers)

    def positions_pay(self, candidates: int) -> bool:
        return positions_pay(candidates)

    def unit(self, numbers: Sequence[int]) -> tuple[GameText, ...] | StoredUnit:
        if self.stored:
            return stored_unit(self.index, numbers)
        return tuple(self.index.texts(numbers))

    def game_facts(
        self, numbers: Sequence[int], tags: bool = True
    ) -> list[tuple[int, bool, str | None]]:
        return self.index.game_facts(numbers, tags)

    def main_line_sizes(self, numbers: Sequence[int]) -> list[int]:
        return self.index.main_line_sizes(numbers)

    def main_lines(
        self, numbers: Sequence[int], names: Sequence[str] | None = None
    ) -> dict[str, Any]:
        return self.index.main_lines(numbers, names)


def stored_unit(index: Index, numbers: Sequence[int]) -> StoredUnit:
    """The :class:`~cqllegacy.runner.stored.StoredUnit` of the games ``numbers``
    (ascending) of ``index``."""
    facts = tuple(index.game_facts(numbers))
    clean = [game for game, ok, _ in facts if ok]
    arrays = index.main_lines(clean) if clean else None
    return StoredUnit(facts, arrays, index.kept_texts(numbers))


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


def _plain(path: Path) -> bool:
    """Whether the file at ``path`` reads as plain PGN (not compressed: its size then
    says how much there is to scan)."""
    try:
        with open(path, "rb") as handle:
            return detect_compression(handle.read(6)) is Compression.PLAIN
    except OSError:
        return True


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
