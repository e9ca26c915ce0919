"""The scan: every game of every input file through a compiled query.

For each game, in input order: its tags are read from the tag lines alone and handed
to ``prefilter``; only a game that passes is parsed by python-chess and evaluated.  A
game that cannot be read is reported through ``progress.message`` with its number and
the reason, and skipped; nothing else stops the scan.  Memory is one game at a time.
Before reading the tags, the query's ``tag_needles`` (:mod:`~cqllegacy.evaluator.needles`)
reject most games of a query on tags from their tag text alone, where that text is sure
to read without a problem and ``prefilter`` would reject the game.

A game is parsed once at most: a query that offers a stream is evaluated while
python-chess reads the game, other queries on its game tree, and what a matching game
hands to the sinks (:class:`FoundGame`) is its text and the positions found, named by
their report keys, from which the output and the report are written.  A query whose
tags decide everything (``decided_by_tags``: no list looks at the board) replays no
move at all: its positions are named from the movetext alone
(:mod:`~cqllegacy.runner.movetext`), so a game with an illegal move is written out
rather than reported as unreadable; a game whose ``FEN`` tag is invalid is still
reported.

``ordinal`` numbers the games of the whole input from 1 (the number the query's
``gamenumber`` and the report use); ``file_ordinal`` numbers them inside their file.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import attrs
import chess.pgn

from cqllegacy.evaluator.needles import Needles, admits
from cqllegacy.runner.movetext import PositionKey, scan_movetext
from cqllegacy.runner.pgn import (
    NOT_A_GAME,
    DamagedInput,
    GameText,
    PgnSource,
    UnreadableGame,
    open_pgn,
    plainly_clean,
    read_game,
    read_stream,
    read_tags,
    split_games,
    start_position_problem,
)
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.report import position_key

if TYPE_CHECKING:
    # The parallel machinery is imported where a scan is spread: a scan in this process
    # (``--jobs 1``, small inputs) does not load it.
    from cqllegacy.runner.parallel import Engine, RenderingSink, UnitResult

# --------------------------------------------------------------------------------------
# What the scan needs from the evaluator (cqllegacy.evaluator.evaluate)
# --------------------------------------------------------------------------------------


class ListMatchLike(Protocol):
    """Positions are game nodes (of :meth:`CompiledQueryLike.evaluate`) or position keys
    (of the evaluator's stream and tag paths)."""

    @property
    def count(self) -> int: ...
    @property
    def positions(self) -> tuple[Any, ...]: ...
    @property
    def marked(self) -> tuple[Any, ...]: ...


class GameMatchLike(Protocol):
    @property
    def matched(self) -> bool: ...
    @property
    def lists(self) -> Sequence[ListMatchLike]: ...


class CompiledQueryLike(Protocol):
    def prefilter(self, headers: Mapping[str, str], ordinal: int) -> bool: ...

    def evaluate(
        self,
        game: chess.pgn.Game,
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatchLike: ...


# --------------------------------------------------------------------------------------
# Inputs, outcomes, summary
# --------------------------------------------------------------------------------------


@attrs.frozen
class InputFile:
    """A PGN file to scan and the name messages and the report call it by."""

    path: Path
    name: str

    @classmethod
    def of(cls, path: str | Path) -> InputFile:
        return cls(Path(path), str(path))


@attrs.frozen
class ScanOptions:
    """``skip_initial``: do not examine start positions (L1); ``variations``: examine
    positions inside variations for every list (L14)."""

    skip_initial: bool = False
    variations: bool = False


@attrs.frozen
class ListFound:
    """What one top-level list found in a matching game: the number of positions where
    it matched, those positions and the ones it marks, named by
    :func:`~cqllegacy.runner.report.position_key`."""

    count: int
    positions: tuple[PositionKey, ...]
    marked: tuple[PositionKey, ...]


@attrs.frozen
class FoundGame:
    """A matching game: its text, its players and what each top-level list found.

    No game tree: it pickles small, and the output and the report are written from it.

    >>> from cqllegacy.runner.pgn import GameText
    >>> text = GameText(1, 1, ('[Round "3"]\\n',), "1. e4 e5 *\\n")
    >>> found = FoundGame(4, "a.pgn", 1, text, "?", "?", (ListFound(2, (0, 2), (0, 2)),
    ...                                                   ListFound(1, (2,), (2,))))
    >>> found.marked(), found.headers["Round"]
    ((0, 2), '3')
    """

    ordinal: int
    file: str
    file_ordinal: int
    text: GameText
    white: str
    black: str
    lists: tuple[ListFound, ...]

    @property
    def headers(self) -> chess.pgn.Headers:
        """The game's tags, read again from its tag lines."""
        return read_tags(self.text.tag_lines)[0]

    def marked(self) -> tuple[PositionKey, ...]:
        """The positions any list marks, each once, in the order the lists give them."""
        return tuple(dict.fromkeys(key for found in self.lists for key in found.marked))


@attrs.frozen
class SkippedGame:
    """A game that could not be read."""

    ordinal: int
    file: str
    file_ordinal: int
    line: int
    reason: str

    def describe(self) -> str:
        """
        >>> SkippedGame(9, "a.pgn", 9, 120, "illegal san: 'Kf3'").describe()
        "warning: a.pgn:120: game 9 skipped: illegal san: 'Kf3'"
        """
        where = f"{self.file}:{self.line}: game {self.file_ordinal}"
        if self.ordinal != self.file_ordinal:
            where += f" (game {self.ordinal} of the input)"
        return f"warning: {where} skipped: {self.reason}"


@attrs.define
class Summary:
    """Counts of a finished scan."""

    games: int = 0
    matched: int = 0
    skipped: int = 0
    damaged_files: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        """The one-line summary printed at the end of a run.

        >>> Summary(685, 12, 1, 0, 3.25).line()
        'read 685 games: 12 matched, 1 skipped as unreadable, in 3.2 s'
        """
        text = f"read {self.games} games: {self.matched} matched, "
        text += f"{self.skipped} skipped as unreadable"
        if self.damaged_files:
            text += f", {self.damaged_files} input file(s) not read to the end"
        return text + f", in {self.seconds:.1f} s"


@attrs.frozen
class FoundGameKey:
    """Where a game comes from: its ordinal in the input, its file, its ordinal there."""

    ordinal: int
    file: str
    file_ordinal: int


MatchSink = Callable[[FoundGame], None]


# --------------------------------------------------------------------------------------
# The loop
# --------------------------------------------------------------------------------------


@attrs.define
class _Scan:
    compiled: CompiledQueryLike
    options: ScanOptions
    sinks: Sequence[MatchSink]
    progress: Messages
    summary: Summary = attrs.Factory(Summary)
    bytes_before: int = 0
    needles: Needles = attrs.field(init=False)

    @needles.default
    def _needles(self) -> Needles:
        return getattr(self.compiled, "tag_needles", ())

    def file(self, source: PgnSource, name: str) -> None:
        games_in_file = 0
        try:
            for text in split_games(source.lines()):
                games_in_file = text.file_ordinal
                self.game(text, name)
                self.progress.update(
                    self.summary.games,
                    self.summary.matched,
                    self.bytes_before + source.bytes_read(),
                )
        except DamagedInput as exc:
            self.summary.damaged_files += 1
            self.progress.message(
                f"warning: {name}: {exc}; reading stopped after game {games_in_file} of this file"
            )
        self.bytes_before += source.size

    def game(self, text: GameText, name: str) -> None:
        self.summary.games += 1
        ordinal = self.summary.games
        if self.needles and self.rejected_unread(text):
            return
        headers, problems = read_tags(text.tag_lines)
        if problems or text.problems:
            self.skip(text, name, "; ".join((*problems, *text.problems)))
            return
        if not self.compiled.prefilter(headers, ordinal):
            return
        key = FoundGameKey(ordinal, name, text.file_ordinal)
        if self.decided_by_tags(text, headers, key) or self.streamed(text, headers, key):
            return
        try:
            game = read_game(text)
        except UnreadableGame as exc:
            self.skip(text, name, str(exc))
            return
        match = self.compiled.evaluate(
            game,
            key.ordinal,
            skip_initial=self.options.skip_initial,
            variations=self.options.variations,
        )
        self.found(text, headers, key, match, _memoized(position_key))

    def rejected_unread(self, text: GameText) -> bool:
        """Whether the game is rejected before its tags are read: its tag section lacks
        the query's needles (so ``prefilter`` would reject it) and is sure to read without
        a problem (which would be reported)."""
        if text.problems:
            return False
        tags = "".join(text.tag_lines)
        return tags.isascii() and not admits(tags.lower(), self.needles) and plainly_clean(tags)

    def decided_by_tags(
        self, text: GameText, headers: chess.pgn.Headers, key: FoundGameKey
    ) -> bool:
        """Evaluate the game without replaying its moves when the query's tags decide
        everything (every position holds or none does); False when the query does not.

        The positions are named from the movetext; the start position is still checked,
        as python-chess checks it before the first move.
        """
        if not getattr(self.compiled, "decided_by_tags", False):
            return False
        problem = start_position_problem(headers)
        moves = scan_movetext(text.movetext)
        if problem is None and not text.tag_lines and not moves.moves:
            problem = NOT_A_GAME
        if problem is not None:
            self.skip(text, key.file, problem)
            return True
        match = self.compiled.tag_match(  # type: ignore[attr-defined]
            headers,
            key.ordinal,
            moves.game_order(),
            moves.mainline_length,
            skip_initial=self.options.skip_initial,
            variations=self.options.variations,
        )
        self.found(text, headers, key, match, _as_is)
        return True

    def streamed(self, text: GameText, headers: chess.pgn.Headers, key: FoundGameKey) -> bool:
        """Evaluate the game while python-chess reads it, without a game tree, when the
        query offers a stream; False when the game must be read and evaluated as a tree.

        A matching game is not read again: its main-line positions are named by their
        plies.
        """
        start = getattr(self.compiled, "stream", None)
        if start is None:
            return False
        stream = start(
            headers,
            key.ordinal,
            skip_initial=self.options.skip_initial,
            variations=self.options.variations,
        )
        if stream is None or not read_stream(text, stream):
            return False
        verdict = stream.verdict()
        if verdict is None:
            return False
        if verdict.matched:
            match = self.compiled.stream_keys(verdict, stream.main_moves)  # type: ignore[attr-defined]
            self.found(text, headers, key, match, _as_is)
        return True

    def found(
        self,
        text: GameText,
        headers: Mapping[str, str],
        key: FoundGameKey,
        match: GameMatchLike,
        name: Callable[[Any], PositionKey],
    ) -> None:
        """Hand a matching game to the sinks; ``name`` gives the key of a position of
        ``match``."""
        if not match.matched:
            return
        self.summary.matched += 1
        lists = tuple(
            ListFound(
                found.count,
                tuple(name(position) for position in found.positions),
                tuple(name(position) for position in found.marked),
            )
            for found in match.lists
        )
        white, black = headers.get("White", "?"), headers.get("Black", "?")
        game = FoundGame(key.ordinal, key.file, key.file_ordinal, text, white, black, lists)
        for sink in self.sinks:
            sink(game)

    def skip(self, text: GameText, name: str, reason: str) -> None:
        self.summary.skipped += 1
        skipped = SkippedGame(self.summary.games, name, text.file_ordinal, text.line, reason)
        self.progress.message(skipped.describe())


#: Why a game without tags and without moves is skipped (the words of pgn.read_game).
def _as_is(position: PositionKey) -> PositionKey:
    return position


def _memoized(name: Callable[[Any], PositionKey]) -> Callable[[Any], PositionKey]:
    """``name`` computed once per object (a list's marked positions are among its
    matched ones)."""
    known: dict[int, PositionKey] = {}

    def named(position: Any) -> PositionKey:
        identity = id(position)
        if identity not in known:
            known[identity] = name(position)
        return known[identity]

    return named


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
    options: ScanOptions = ScanOptions(),
    sinks: Sequence[MatchSink] = (),
    progress: Messages | None = None,
    engine: Engine | None = None,
) -> Summary:
    """Run ``compiled`` on every game of ``inputs``; each matching game goes to every sink.

    A file that cannot be opened or whose compressed data breaks off is reported and
    the scan goes on with the next one.  With an ``engine`` of several workers (see
    :mod:`cqllegacy.runner.parallel`) the games are scanned there, with the same
    results in the same order; that needs sinks that can render their text elsewhere
    (``renderer`` and ``write``, as the PGN and report writers), else the scan runs here.
    """
    started = time.monotonic()
    state = _Scan(compiled, options, sinks, progress or Messages(sys.stderr))
    try:
        if _spread(engine, inputs, sinks):
            assert engine is not None
            _scan_on(engine, state, inputs)
        else:
            if engine is not None:
                engine.close()
            for item in inputs:
                _scan_file(state, item)
    finally:
        state.progress.close()
    state.summary.seconds = time.monotonic() - started
    return state.summary


def _scan_file(state: _Scan, item: InputFile) -> None:
    with contextlib.ExitStack() as stack:
        try:
            source = stack.enter_context(open_pgn(item.path))
        except OSError as exc:
            state.summary.damaged_files += 1
            reason = exc.strerror or str(exc)
            state.progress.message(f"warning: {item.name}: cannot read: {reason}")
            return
        state.file(source, item.name)


def _spread(engine: Engine | None, inputs: Sequence[InputFile], sinks: Sequence[MatchSink]) -> bool:
    """Whether to scan on the engine's workers."""
    if engine is None or engine.workers < 2 or not all(_renders(s) for s in sinks):
        return False
    from cqllegacy.runner.parallel import worth_spreading

    return getattr(engine, "small_inputs", True) or worth_spreading(inputs)


def _renders(sink: MatchSink) -> bool:
    return callable(getattr(sink, "renderer", None)) and callable(getattr(sink, "write", None))


def _scan_on(engine: Engine, state: _Scan, inputs: Sequence[InputFile]) -> None:
    """The scan on an engine's workers; results are written here, in input order."""
    from cqllegacy.runner.parallel import FOUND, run_units

    summary, progress = state.summary, state.progress
    sinks = cast("Sequence[RenderingSink]", state.sinks)

    def emit(result: UnitResult, bytes_done: int) -> None:
        for kind, payload in result.events:
            if kind == FOUND:
                for sink, text in zip(sinks, payload, strict=True):
                    sink.write(text)
            else:
                progress.message(payload)
        summary.games += result.games
        summary.matched += result.matched
        summary.skipped += result.skipped
        progress.update(summary.games, summary.matched, bytes_done)

    summary.damaged_files += run_units(engine, state.compiled, inputs, state.options, sinks, emit)
