"""Evaluating a query while python-chess reads a game, without building a game tree.

A :class:`GameStream` is a ``chess.pgn.BaseVisitor``: python-chess's reader hands it
every position of the main line on the reader's own board.  It never builds game
nodes; a game that matches is written from its own text (see
:mod:`cqllegacy.runner.output`), so it is never read twice.

Three kinds:

* :class:`LiveStream` evaluates each position on the reader's board as it goes by, at
  ``visit_move`` (the board is at the position, the move is its continuation) and, for
  the last position, at ``end_game``.  Nothing is copied.  It serves queries that look at
  the current position, its next move and the tags only.
* :class:`LineStream` follows lines of steps that each look at one position and its
  next move (:mod:`~cqllegacy.evaluator.line_automaton`) on the reader's board, position by
  position, a hit being found when a line is complete.  Nothing is copied.
* :class:`SnapshotStream` keeps a copy of each main-line board (of those a gate says may
  be needed) and the moves, and the query is evaluated at the end on a
  :class:`~cqllegacy.evaluator.gametree.PositionTable` of the main line (for ``line``,
  ``find``, ``move previous``, relations, piece identities): cheaper than python-chess's
  game tree.

All of them only know the main line.  A query that also examines variations runs on a stream
too; when the game turns out to have a variation the stream gives up (``verdict()`` is
None) and the caller evaluates the game the usual way.

>>> import io
>>> from cqllegacy.evaluator.compiler import Context
>>> from cqllegacy.evaluator.gametree import GameInfo
>>> check = (ListTest(chess.Board.is_check, lambda ctx, p: False),)
>>> stream = LiveStream(check, Context.streaming(GameInfo()), judge=lambda hits: bool(hits[0]))
>>> chess.pgn.read_game(io.StringIO("1. e4 f5 2. Qh5+ g6 *"), Visitor=lambda: stream)
<LiveStream ...>
>>> stream.readable, stream.verdict()
(True, Verdict(matched=True, hits=((3,),)))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import chess
import chess.pgn

from cqllegacy.evaluator.compiler import BoardCheck, Context, TruthFn
from cqllegacy.evaluator.line_automaton import LineAutomaton
from cqllegacy.records import Record
from cqllegacy.vocab import san

__all__ = [
    "UNREAD",
    "Candidates",
    "GameStream",
    "Hits",
    "LineStream",
    "ListTest",
    "LiveStream",
    "SnapshotStream",
    "Verdict",
    "main_line_only",
    "snapshot",
]

#: The positions (main-line indices, 0 = start) where each top-level list matched.
Hits = tuple[tuple[int, ...], ...]

#: Per list, the only positions where it may match (None: any position).
Candidates = Hits | None


@attrs.frozen(repr=False)
class Verdict(Record):
    """Whether the game matched, and where each list matched (for the binding that
    matched; meaningless when ``matched`` is False)."""

    matched: bool
    hits: Hits


class GameStream(chess.pgn.BaseVisitor["GameStream"]):
    """What every stream tracks: problems, the variation depth, the main-line board.

    ``errors`` collects what python-chess reports (such a game is unreadable);
    ``main_moves`` counts the main line's moves; ``skipping`` is true inside a
    variation and after the stream gave up.
    """

    def __init__(self, *, leave_on_variation: bool = False) -> None:
        self.errors: list[Exception] = []
        self.depth = 0
        self.board: chess.Board | None = None
        self.main_moves = 0
        self.left = False
        self.skipping = False
        self._leave_on_variation = leave_on_variation

    # ---- python-chess's visitor interface ---------------------------------------------

    #: python-chess's reading of each move, found without generating every legal move.
    parse_san = staticmethod(san.parse_san)

    def visit_board(self, board: chess.Board) -> None:
        # The first board is the start position; the main line is played on that object.
        if self.board is None:
            self.board = board

    def begin_variation(self) -> None:
        self.depth += 1
        if self._leave_on_variation:
            self.left = True
        self.skipping = True

    def end_variation(self) -> None:
        self.depth -= 1
        self.skipping = self.left or self.depth != 0

    def handle_error(self, error: Exception) -> None:
        self.errors.append(error)

    def result(self) -> GameStream:
        return self

    # ---- what the caller reads ---------------------------------------------------------

    @property
    def readable(self) -> bool:
        """python-chess read the game without a problem and found a start position."""
        return not self.errors and self.board is not None

    def verdict(self) -> Verdict | None:
        """The outcome, or None when the game needs the usual evaluation."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ...>"


#: python-chess's visitor calls that hand a visitor something of a game other than its
#: main line's boards and moves (and the nesting of its variations, and errors).
_OTHER_CALLS = (
    "begin_game", "begin_headers", "visit_header", "end_headers", "begin_parse_san",
    "visit_comment", "visit_nag", "visit_result",
)  # fmt: skip


def main_line_only(kind: type[chess.pgn.BaseVisitor[Any]]) -> bool:
    """Whether a visitor of ``kind`` reads nothing of a game but what ``visit_board``,
    ``visit_move`` and ``end_game`` give it on the main line (python-chess's reader
    calls them in that order: the start board, then each position's move before it is
    pushed on that same board object): it takes none of the reader's other calls, and
    reads the moves with the SAN reader the index recorded them with.  Such a visitor
    can be fed from an index's stored boards and moves instead of the game's text
    (:mod:`cqllegacy.runner.stored`); that is derived here from the class itself, so a
    stream kind that comes to read comments, say, stops being fed so by itself.

    >>> main_line_only(LiveStream), main_line_only(chess.pgn.GameBuilder)
    (True, False)
    """
    base = chess.pgn.BaseVisitor
    return getattr(kind, "parse_san", None) is san.parse_san and all(
        getattr(kind, name) is getattr(base, name) for name in _OTHER_CALLS
    )


class _MainLineSuccessors:
    """``successors[p] == (p + 1,)``: the continuation of every main-line position, for
    gates that run before the game's end is known (nothing stored, nothing shared)."""

    __slots__ = ()

    def __getitem__(self, p: int) -> tuple[int, ...]:
        return (p + 1,)


_SUCCESSORS = _MainLineSuccessors()

#: A live stream keeps only the move after the current position, at index 1 of its
#: ``moves`` (keeping every move costs the garbage collector more than the moves cost):
#: every position's continuation is "position 1" as far as ``moves`` goes.
_NEXT_MOVE = 1


class _SameForAll:
    """A read-only sequence with the same item at every index."""

    __slots__ = ("item",)

    def __init__(self, item: tuple[int, ...]) -> None:
        self.item = item

    def __getitem__(self, index: int) -> tuple[int, ...]:
        return self.item


_CONTINUED = _SameForAll((_NEXT_MOVE,))
_ENDED = _SameForAll(())


@attrs.frozen(repr=False)
class ListTest(Record):
    """How a live stream tests one list: ``board(board)`` when the board alone decides,
    else ``test(ctx, p)``."""

    board: BoardCheck | None
    test: TruthFn


class _ContextStream(GameStream):
    """A stream that evaluates through a :meth:`Context.streaming` context while the game
    is read: per list, the positions found; ``judge`` says from them whether the game
    matched.  ``visit_move`` is an attribute that each kind sets to a closure."""

    # A closure stored on the instance instead of python-chess's method (it runs for every
    # move); mypy sees an attribute replacing a method.
    visit_move: Callable[[chess.Board, chess.Move], None]  # type: ignore[assignment]

    def __init__(
        self,
        ctx: Context,
        lists: int,
        *,
        judge: Callable[[Hits], bool],
        leave_on_variation: bool = False,
    ) -> None:
        super().__init__(leave_on_variation=leave_on_variation)
        self._ctx = ctx
        self._judge = judge
        self._found: tuple[list[int], ...] = tuple([] for _ in range(lists))
        ctx.next = ctx.children = _CONTINUED
        ctx.moves = [None, None]

    def _last_position(self) -> bool:
        """At the end of a game read without a problem, the context gets its last
        position (no continuation) and True; False when the game is not to be judged."""
        if self.left or self.board is None or self.errors:
            return False
        self._ctx.boards.append(self.board)
        self._ctx.next = self._ctx.children = _ENDED
        return True


class LiveStream(_ContextStream):
    """Evaluates one test per list at every main-line position, on the reader's board,
    through a :meth:`Context.streaming` context; ``judge`` says from the hits whether the
    game matched (see :class:`ListTest`).

    At position ``p`` the context has ``boards[p]`` and the continuation's move as
    ``moves[q]`` for ``q`` in ``next[p]``, and nothing else of other positions: the
    tests are of filters that read no more (``Driver.LIVE`` of
    :mod:`~cqllegacy.evaluator.analysis`).
    """

    def __init__(
        self,
        tests: tuple[ListTest, ...],
        ctx: Context,
        *,
        judge: Callable[[Hits], bool],
        skip_initial: bool = False,
        leave_on_variation: bool = False,
    ) -> None:
        super().__init__(ctx, len(tests), judge=judge, leave_on_variation=leave_on_variation)
        self._tests = tests
        self._first = 1 if skip_initial else 0
        # An instance attribute: python-chess calls it for every move, without the cost
        # of a bound method and of attribute look-ups.
        self.visit_move = self._visitor()

    def _visitor(self) -> Callable[[chess.Board, chess.Move], None]:
        ctx, first, stream = self._ctx, self._first, self
        add_board, moves = ctx.boards.append, ctx.moves
        pairs = tuple(
            (list_test.board, list_test.test, found.append)
            for list_test, found in zip(self._tests, self._found, strict=True)
        )
        if len(pairs) == 1 and pairs[0][0] is not None:
            check, found = pairs[0][0], pairs[0][2]

            # The board alone decides: no context to keep up to date.
            def visit_one(board: chess.Board, move: chess.Move) -> None:
                if stream.skipping:
                    return
                p = stream.main_moves
                if p >= first and check(board):
                    found(p)
                stream.main_moves = p + 1

            return visit_one

        def visit_each(board: chess.Board, move: chess.Move) -> None:
            if stream.skipping:
                return
            p = stream.main_moves
            add_board(board)
            moves[_NEXT_MOVE] = move
            if p >= first:
                for on_board, test, found in pairs:
                    if on_board(board) if on_board is not None else test(ctx, p):
                        found(p)
            stream.main_moves = p + 1

        return visit_each

    def end_game(self) -> None:
        board = self.board
        if not self._last_position() or board is None:
            return
        p, ctx = self.main_moves, self._ctx
        if p >= self._first:
            for list_test, found in zip(self._tests, self._found, strict=True):
                check = list_test.board
                if check(board) if check is not None else list_test.test(ctx, p):
                    found.append(p)

    def verdict(self) -> Verdict | None:
        if self.left:
            return None
        hits = tuple(tuple(found) for found in self._found)
        return Verdict(self._judge(hits), hits)


class LineStream(_ContextStream):
    """Follows one :class:`~cqllegacy.evaluator.line_automaton.LineAutomaton` per list along
    the main line, on the reader's board, through a :meth:`Context.streaming` context;
    ``judge`` says from the hits whether the game matched.

    At position ``p`` the context has ``boards[p]`` and the continuation's move as
    ``moves[q]`` for ``q`` in ``next[p]``: the steps read no more.
    """

    def __init__(
        self,
        automata: tuple[LineAutomaton, ...],
        ctx: Context,
        *,
        judge: Callable[[Hits], bool],
        skip_initial: bool = False,
        leave_on_variation: bool = False,
    ) -> None:
        super().__init__(ctx, len(automata), judge=judge, leave_on_variation=leave_on_variation)
        first = 1 if skip_initial else 0
        self._trackers = tuple(
            automaton.tracker(ctx, first, found)
            for automaton, found in zip(automata, self._found, strict=True)
        )
        # An instance attribute: python-chess calls it for every move, without the cost
        # of a bound method and of attribute look-ups.
        self.visit_move = self._visitor()

    def _visitor(self) -> Callable[[chess.Board, chess.Move], None]:
        stream, moves, trackers = self, self._ctx.moves, self._trackers
        add_board = self._ctx.boards.append
        if len(trackers) == 1:
            (track,) = trackers

            def visit_one(board: chess.Board, move: chess.Move) -> None:
                if stream.skipping:
                    return
                p = stream.main_moves
                add_board(board)
                moves[_NEXT_MOVE] = move
                track(p, board, move)
                stream.main_moves = p + 1

            return visit_one

        def visit_each(board: chess.Board, move: chess.Move) -> None:
            if stream.skipping:
                return
            p = stream.main_moves
            add_board(board)
            moves[_NEXT_MOVE] = move
            for track in trackers:
                track(p, board, move)
            stream.main_moves = p + 1

        return visit_each

    def end_game(self) -> None:
        board = self.board
        if not self._last_position() or board is None:
            return
        for track in self._trackers:
            track(self.main_moves, board, None)

    def verdict(self) -> Verdict | None:
        if self.left:
            return None
        # A longer line may be completed after a shorter one that started later.
        hits = tuple(tuple(sorted(found)) for found in self._found)
        return Verdict(self._judge(hits), hits)


class _UnreadBoard(chess.Board):
    """The board of a position no gate let through: the gates and the horizon promise
    that nothing reads it, and reading it anyway fails loudly instead of giving an
    answer."""

    def __getattribute__(self, name: str) -> object:
        if name.startswith("__"):
            return object.__getattribute__(self, name)
        raise LookupError("the evaluator read a board its gates left out")


#: Stands in the list of boards for each one no gate needed (see :class:`SnapshotStream`).
UNREAD: chess.Board = object.__new__(_UnreadBoard)

#: Copies of the main line's boards (:data:`UNREAD` where no gate needed one).
_Boards = list[chess.Board]


def snapshot(board: chess.Board) -> chess.Board:
    """``board.copy(stack=False)``, made without python-chess's constructor (which clears
    a board before the copy overwrites it: about five times the time).  Only for a plain
    :class:`chess.Board`; its fields are set in the order python-chess's constructor
    sets them, so the copy keeps the compact attribute layout every board has (reading
    attributes of a board whose dictionary was filled otherwise is slower).  A test
    compares every field with python-chess's copy; other board classes are copied by
    python-chess.

    >>> board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    >>> copy = snapshot(board)
    >>> board.push_san("e4") and (copy.fen(), copy.move_stack, board.fen() != copy.fen())
    ('4k3/8/8/8/8/8/4P3/4K3 w - - 0 1', [], True)
    """
    if type(board) is not chess.Board:
        return board.copy(stack=False)
    copy = _new_board(chess.Board)
    copy.occupied_co = board.occupied_co.copy()
    copy.pawns = board.pawns
    copy.knights = board.knights
    copy.bishops = board.bishops
    copy.rooks = board.rooks
    copy.queens = board.queens
    copy.kings = board.kings
    copy.promoted = board.promoted
    copy.occupied = board.occupied
    copy.chess960 = board.chess960
    copy.ep_square = board.ep_square
    copy.move_stack = []
    copy._stack = []
    copy.turn = board.turn
    copy.castling_rights = board.castling_rights
    copy.halfmove_clock = board.halfmove_clock
    copy.fullmove_number = board.fullmove_number
    return copy


_new_board = object.__new__


class SnapshotStream(GameStream):
    """Copies the main-line boards; ``evaluate(boards, moves, candidates)`` gives the
    verdict.

    With ``gates`` (one per list: a test on the current position that holds wherever
    the list's body matches, and a ``horizon``: how many positions after one the body
    looks at), a board is copied only when some gate held at most ``horizon``
    positions before it; the others are :data:`UNREAD`, and the body is evaluated only at the
    positions where its gate held (``candidates``, per list).  Without gates every
    board is copied and ``candidates`` is None.
    """

    def __init__(
        self,
        evaluate: Callable[[_Boards, list[chess.Move], Candidates], Verdict],
        *,
        gates: tuple[tuple[TruthFn, ...], Context, int] | None = None,
        leave_on_variation: bool = False,
    ) -> None:
        super().__init__(leave_on_variation=leave_on_variation)
        self._evaluate = evaluate
        self.boards: _Boards = []
        self.moves: list[chess.Move] = []
        self._gates = gates
        self._candidates: tuple[list[int], ...] = tuple([] for _ in gates[0]) if gates else ()
        self._needed_until = -1
        if gates is not None:
            gates[1].next = gates[1].children = _SUCCESSORS

    def _gate(self, board: chess.Board, p: int) -> bool:
        """Evaluate the gates at ``p``; whether board ``p`` is needed."""
        assert self._gates is not None
        tests, ctx, horizon = self._gates
        ctx.boards.append(board)
        for test, candidates in zip(tests, self._candidates, strict=True):
            if test(ctx, p):
                candidates.append(p)
                self._needed_until = max(self._needed_until, p + horizon)
        return p <= self._needed_until

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.skipping:
            return
        p = self.main_moves
        if self._gates is None:
            self.boards.append(snapshot(board))
        else:
            ctx = self._gates[1]
            ctx.moves.append(move)
            self.boards.append(snapshot(board) if self._gate(board, p) else UNREAD)
        self.moves.append(move)
        self.main_moves = p + 1

    def end_game(self) -> None:
        # The reader is done with its board: the last position needs no copy.
        if self.board is None or self.left or self.errors:
            return
        if self._gates is not None:
            ctx = self._gates[1]
            ctx.next = ctx.children = _ENDED
            self._gate(self.board, self.main_moves)
        self.boards.append(self.board)

    def verdict(self) -> Verdict | None:
        if self.left:
            return None
        candidates = tuple(tuple(c) for c in self._candidates) if self._gates else None
        return self._evaluate(self.boards, self.moves, candidates)
