"""Games through a compiled query, one at a time: :class:`GameScan`, the state of a scan.

:func:`~cqllegacy.runner.scanner.scan` runs one over whole files; each worker of a
parallel scan (:mod:`~cqllegacy.runner.parallel`) runs one over its unit of games.

For each game, in input order: its tags are read from the tag lines alone and handed
to ``prefilter``; only a game that passes is parsed by python-chess and evaluated.  A
game that cannot be read is reported through ``progress.message`` with its number and
the reason, and skipped; nothing else stops the scan.  Memory is one game at a time.
Before reading the tags, the query's ``tag_needles`` (:mod:`~cqllegacy.evaluator.needles`)
reject most games of a query on tags from their tag text alone, where that text is sure
to read without a problem and ``prefilter`` would reject the game.

A game is parsed once at most: a query that offers a stream is evaluated while
python-chess reads the game, other queries on its game tree, and what a matching game
hands to the sinks (:class:`~cqllegacy.runner.results.FoundGame`) is its text and the
positions found, named by their report keys, from which the output and the report are
written.  A query whose tags decide everything (``decided_by_tags``: no list looks at
the board) replays no move at all: its positions are named from the movetext alone
(:mod:`~cqllegacy.runner.movetext`), so a game with an illegal move is written out
rather than reported as unreadable; a game whose ``FEN`` tag is invalid is still
reported.

``ordinal`` numbers the games of the whole input from 1 (the number the query's
``gamenumber`` and the report use); ``file_ordinal`` numbers them inside their file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import attrs
import chess.pgn

from cqllegacy.evaluator.needles import Needles, admits
from cqllegacy.records import Record
from cqllegacy.runner.compiled import CompiledQueryLike, GameMatchLike
from cqllegacy.runner.movetext import PositionKey, scan_movetext
from cqllegacy.runner.pgn import (
    NOT_A_GAME,
    DamagedInput,
    GameText,
    PgnSource,
    UnreadableGame,
    plainly_clean,
    read_game,
    read_stream,
    read_tags,
    split_games,
    start_position_problem,
)
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.report import position_key
from cqllegacy.runner.results import (
    FoundGame,
    FoundGameKey,
    ListFound,
    MatchSink,
    ScanOptions,
    SkippedGame,
    StopScan,
    Summary,
)

if TYPE_CHECKING:
    from cqllegacy.evaluator.stream import Verdict

#: Whatever a match names its positions by.
Position = TypeVar("Position")


@attrs.define(repr=False)
class GameScan(Record):
    """Games through ``compiled``: each matching one goes to every sink, each unreadable
    one is reported through ``progress``, and ``summary`` counts them.

    ``summary.games`` is the number of games read before the next one (a worker's scan
    starts with the games of the input before its unit); ``bytes_before`` is the size of
    the files read before the current one, for the progress bar.
    """

    compiled: CompiledQueryLike
    options: ScanOptions
    sinks: Sequence[MatchSink]
    progress: Messages
    summary: Summary = attrs.Factory(Summary)
    bytes_before: int = 0
    #: The scan stops before a game after this one (the query's ``gamenumber`` admits
    #: none); None reads every game.
    last_game: int | None = None
    needles: Needles = attrs.field(init=False)

    @needles.default
    def _needles(self) -> Needles:
        return self.compiled.tag_needles

    def file(self, source: PgnSource, name: str, after: int = 0) -> None:
        """Every game of an open PGN file after its first ``after`` (those are counted
        already); a file whose data breaks off is reported and counted, and its games
        read before the break stay scanned."""
        games_in_file = 0
        try:
            for text in split_games(source.lines()):
                games_in_file = text.file_ordinal
                if games_in_file <= after:
                    continue
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
        """One game of the file called ``name``."""
        if self.last_game is not None and self.summary.games >= self.last_game:
            raise StopScan(f"stopped after game {self.last_game}", games=self.summary.games)
        self.summary.games += 1
        ordinal = self.summary.games
        if self.needles and self.rejected_unread(text):
            return
        headers, problems = read_tags(text.tag_lines)
        if problems or text.problems:
            self._skip(text, name, "; ".join((*problems, *text.problems)))
            return
        if not self.compiled.prefilter(headers, ordinal):
            return
        key = FoundGameKey(ordinal, name, text.file_ordinal)
        if self._evaluated_by_tags(text, headers, key) or self._streamed(text, headers, key):
            return
        try:
            game = read_game(text)
        except UnreadableGame as exc:
            self._skip(text, name, str(exc))
            return
        match = self.compiled.evaluate(
            game,
            key.ordinal,
            skip_initial=self.options.skip_initial,
            variations=self.options.variations,
        )
        self._found(text, headers, key, match, _memoized(position_key))

    def rejected_unread(self, text: GameText) -> bool:
        """Whether the game is rejected before its tags are read: its tag section lacks
        the query's needles (so ``prefilter`` would reject it) and is sure to read without
        a problem (which would be reported)."""
        if text.problems:
            return False
        tags = "".join(text.tag_lines)
        return tags.isascii() and not admits(tags.lower(), self.needles) and plainly_clean(tags)

    def _evaluated_by_tags(
        self, text: GameText, headers: chess.pgn.Headers, key: FoundGameKey
    ) -> bool:
        """Evaluate the game without replaying its moves when the query's tags decide
        everything (every position holds or none does); False when the query does not.

        The positions are named from the movetext; the start position is still checked,
        as python-chess checks it before the first move.
        """
        if not self.compiled.decided_by_tags:
            return False
        problem = start_position_problem(headers)
        moves = scan_movetext(text.movetext)
        if problem is None and not text.tag_lines and not moves.moves:
            problem = NOT_A_GAME
        if problem is not None:
            self._skip(text, key.file, problem)
            return True
        match = self.compiled.tag_match(
            headers,
            key.ordinal,
            moves.game_order(),
            moves.mainline_length,
            skip_initial=self.options.skip_initial,
            variations=self.options.variations,
        )
        self._found(text, headers, key, match, _as_is)
        return True

    def _streamed(self, text: GameText, headers: chess.pgn.Headers, key: FoundGameKey) -> bool:
        """Evaluate the game while python-chess reads it, without a game tree, when the
        query offers a stream; False when the game must be read and evaluated as a tree.

        A matching game is not read again: its main-line positions are named by their
        plies.
        """
        stream = self.compiled.stream(
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
        self.streamed(text, headers, key, verdict, stream.main_moves)
        return True

    def streamed(
        self,
        text: GameText,
        headers: Mapping[str, str],
        key: FoundGameKey,
        verdict: Verdict,
        main_moves: int,
    ) -> None:
        """Hand a game to the sinks as a stream judged it (fed by python-chess's reader
        here, or by an index's stored positions), its main line ``main_moves`` long."""
        if verdict.matched:
            match = self.compiled.stream_keys(verdict, main_moves)
            self._found(text, headers, key, match, _as_is)

    def _found(
        self,
        text: GameText,
        headers: Mapping[str, str],
        key: FoundGameKey,
        match: GameMatchLike[Position],
        name: Callable[[Position], PositionKey],
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

    def _skip(self, text: GameText, name: str, reason: str) -> None:
        self.summary.skipped += 1
        skipped = SkippedGame(self.summary.games, name, text.file_ordinal, text.line, reason)
        self.progress.message(skipped.describe())


def _as_is(position: PositionKey) -> PositionKey:
    return position


def _memoized(name: Callable[[Position], PositionKey]) -> Callable[[Position], PositionKey]:
    """``name`` computed once per object (a list's marked positions are among its
    matched ones)."""
    known: dict[int, PositionKey] = {}

    def named(position: Position) -> PositionKey:
        identity = id(position)
        if identity not in known:
            known[identity] = name(position)
        return known[identity]

    return named
