"""Array forms: a node's value at every stored position of some games at once.

The reference rules (:mod:`~cqllegacy.evaluator.position_rules`, ``line_rules``) say what
a node means at one position of one game, on a python-chess board.  An index stores the
positions of a file's main lines as columns of bitboards (see
:mod:`cqllegacy.indexing.records`); here each node class has, in :data:`ARRAY_FORMS`, the
same meaning computed over such columns with numpy, for every position at once:

* a set filter gives one ``uint64`` per position (the squares, 0 where it fails);
* a logical filter one ``bool`` per position;
* a numeric filter a :class:`Numbers` (the values, and where there is one).

A node class whose meaning needs more than the position, its move and the moves next to
it (a piece followed through the game, a search along the game, a binding) is declared
*row only* in :data:`ARRAY_FORMS` with its reason; a query holding one is evaluated by its
row form, position by position, where the array part leaves a candidate
(:func:`list_arrays`).  Every answer is exact: tests compare each form with the
reference rule at every position of real and generated games.

>>> from cqllegacy.evaluator.testing import pd
>>> board, boards = chess.Board(), [chess.Board()]
>>> for san in ("e4", "e5", "Nf3", "Nc6"):
...     _ = board.push_san(san)
...     boards.append(board.copy())
>>> knights = compile_array(pd("N[c3,c6,f3]"))(Positions.of_boards(boards))
>>> knights.tolist() == [0, 0, 0, chess.BB_F3, chess.BB_F3]
True
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import attrs
import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import (
    Abs,
    Ancestor,
    And,
    Arith,
    ArithOp,
    AtPosition,
    AttackedBy,
    Attacks,
    Between,
    Castling,
    Comment,
    Compare,
    CompareOp,
    Complement,
    Compound,
    Count,
    DirectionSet,
    Distance,
    Echo,
    Elo,
    Filter,
    Find,
    InRange,
    InSet,
    Intersection,
    Keyword,
    LegacyOnly,
    Line,
    LineGroup,
    Move,
    Negate,
    Not,
    Number,
    NumericKeyword,
    NumericValue,
    Or,
    PawnFeature,
    PawnStructure,
    PieceLoop,
    PieceSet,
    PieceVariable,
    Player,
    PositionIntersection,
    PositionVariable,
    Power,
    Ray,
    RayCount,
    Reads,
    Relation,
    Result,
    SideToMove,
    Simple,
    SquareColor,
    SquareLoop,
    SquareVariable,
    TagContains,
    Transform,
    Union,
    XRay,
)
from cqllegacy.evaluator.compiler import REFERENCE_RULES, Compiler, Context, Kind
from cqllegacy.evaluator.gametree import GameInfo
from cqllegacy.evaluator.line_rules import StepAutomaton
from cqllegacy.evaluator.position_rules import sorted_vectors
from cqllegacy.evaluator.trees import closed_range, meaningful, orbit_members
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    EMPTY_BIT,
    NOTHING,
    POWER_VALUES,
    TypeSet,
    piece_bit,
)
from cqllegacy.vocab.rays import BASIC_VECTORS, is_diagonal
from cqllegacy.vocab.squares import FULL, LIGHT_SQUARES

__all__ = [
    "ARRAY_FORMS",
    "ArrayFn",
    "ListArrays",
    "Numbers",
    "Positions",
    "RowOnly",
    "compile_array",
    "list_arrays",
]

# numpy's operators are typed loosely (most give Any): one element type per alias would
# be a claim mypy cannot check.  A set is uint64, a truth bool (see the module).
Bools: TypeAlias = NDArray[Any]
Squares: TypeAlias = NDArray[Any]


@attrs.frozen(eq=False)
class Numbers:
    """A numeric filter's values at each position, and where it has one (a numeric filter
    without a value fails, as ``None`` does in the reference rules)."""

    values: NDArray[Any]
    valid: Bools


Value: TypeAlias = Bools | Squares | Numbers
#: Where a filter matches, at every position.
Truth: TypeAlias = Callable[["Positions"], Bools]
ArrayFn: TypeAlias = Callable[["Positions"], Value]

_ONE = np.uint64(1)
_FULL = np.uint64(FULL)
#: The flags the index stores per position (``cqllegacy.indexing.records`` writes them).
_WHITE_TO_MOVE, _CHECK, _MATE, _STALEMATE = 1, 2, 4, 8
#: The board attributes of the piece types, in python-chess's order (PAWN … KING).
_TYPE_NAMES = ("pawns", "knights", "bishops", "rooks", "queens", "kings")


class RowOnly(Exception):
    """A node has no array form: it is evaluated by its row form (the message says why)."""


class Positions:
    """The main-line positions of some whole games, one array entry per position, ordered
    by game and ply: the columns an index stores (see :mod:`cqllegacy.indexing.records`;
    ``game``, ``ply``, the placement, ``castling``, ``flags``, ``ep`` and the move played
    from each position), and what the array forms derive from them, each once.

    It is a :class:`~cqllegacy.vocab.bitarrays.Placement`: the kernels of
    :mod:`cqllegacy.vocab.bitarrays` take it as it is.  Its helpers look along a game
    (:meth:`at_ply`: the value some plies later, never another game's) and gather per
    game (:meth:`count_per_game` …).  ``infos`` gives each game's tags by game number,
    for the filters that read the tags alone (a game without one has empty tags)."""

    def __init__(
        self,
        columns: Mapping[str, Any],
        infos: Mapping[int, GameInfo] | None = None,
        fullmoves: Mapping[int, int] | None = None,
    ) -> None:
        self.columns = columns
        self.infos = infos or {}
        #: Each game's move number at its start (1 unless a FEN says otherwise).
        self.fullmoves = fullmoves or {}
        self.size = len(columns["game"])
        self._contents: dict[TypeSet, Squares] = {}
        #: For a view (:meth:`take`): the positions it is part of, and which rows.
        self._whole: tuple[Positions, NDArray[np.intp]] | None = None

    @classmethod
    def of_columns(cls, columns: Mapping[str, Any]) -> Positions:
        """The positions of ``columns``, checked to be whole games ordered by game and
        ply (``ValueError`` otherwise)."""
        game = np.asarray(columns["game"], dtype=np.int64)
        ply = np.asarray(columns["ply"], dtype=np.int64)
        follows = (game[1:] == game[:-1]) & (ply[1:] == ply[:-1] + 1)
        new_game = (game[1:] > game[:-1]) & (ply[1:] == 0)
        if len(game) and (ply[0] != 0 or not (follows | new_game).all()):
            raise ValueError("positions are not whole games ordered by game and ply")
        return cls(columns)

    @classmethod
    def of_boards(cls, boards: Sequence[chess.Board], game: int = 1) -> Positions:
        """The positions of one main line, given as the board of each position (the
        move played from one is the next board's last move), with python-chess's own
        answers as their flags: for tests and notebooks; a run reads an index's.

        >>> board = chess.Board()
        >>> boards = [board.copy()]
        >>> for san in ("e4", "e5", "Qh5"):
        ...     _ = board.push_san(san)
        ...     boards.append(board.copy())
        >>> positions = Positions.of_boards(boards)
        >>> positions.ply.tolist(), positions.move_to.tolist()
        ([0, 1, 2, 3], [28, 36, 39, -1])
        """
        rows = []
        for i, board in enumerate(boards):
            move = boards[i + 1].peek() if i + 1 < len(boards) else None
            final = move is None or not move
            flags = (
                _WHITE_TO_MOVE * board.turn
                | _CHECK * board.is_check()
                | _MATE * (final and board.is_checkmate())
                | _STALEMATE * (final and board.is_stalemate())
            )
            rows.append(
                (
                    board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                    board.kings, board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                    board.castling_rights, flags,
                    -1 if board.ep_square is None else board.ep_square,
                    move.from_square if move else -1, move.to_square if move else -1,
                    (move.promotion or -1) if move else -1,
                )
            )  # fmt: skip
        names = (*_TYPE_NAMES, "white", "black", "castling", "flags", "ep", "move_from",
                 "move_to", "move_promotion")  # fmt: skip
        table = np.array(rows, dtype=object).reshape(-1, len(names))
        columns: dict[str, Any] = {
            name: table[:, i].astype(np.uint64 if i < 9 else np.int64)
            for i, name in enumerate(names)
        }
        columns["game"] = np.full(len(boards), game, dtype=np.int64)
        columns["ply"] = np.arange(len(boards), dtype=np.int64)
        return cls(columns, fullmoves={game: boards[0].fullmove_number} if boards else None)

    def __len__(self) -> int:
        return self.size

    def take(self, rows: NDArray[np.intp]) -> Positions:
        """The positions at ``rows`` (ascending) alone: a view for the filters that read
        one position and its move, where earlier parts of a conjunction left candidates.
        What depends on a game's other positions (its ends, the move number) is the
        whole's; looking along a game from a view is refused."""
        if len(rows) == self.size:
            return self
        whole, at = (self, rows) if self._whole is None else (
            self._whole[0], self._whole[1][rows]
        )  # fmt: skip
        view = Positions({name: values[rows] for name, values in self.columns.items()},
                         self.infos, self.fullmoves)  # fmt: skip
        view._whole = (whole, at)
        return view

    def _of_whole(self, name: str) -> NDArray[Any] | None:
        if self._whole is None:
            return None
        whole, rows = self._whole
        found: NDArray[Any] = getattr(whole, name)[rows]
        return found

    def column(self, name: str) -> NDArray[Any]:
        """A stored column, as stored."""
        found: NDArray[Any] = self.columns[name]
        return found

    # ---- the placement (a bitarrays.Placement) ------------------------------------------

    def _sets(self, name: str) -> Squares:
        return np.asarray(self.columns[name], dtype=np.uint64)

    pawns = property(lambda self: self._sets("pawns"))
    knights = property(lambda self: self._sets("knights"))
    bishops = property(lambda self: self._sets("bishops"))
    rooks = property(lambda self: self._sets("rooks"))
    queens = property(lambda self: self._sets("queens"))
    kings = property(lambda self: self._sets("kings"))
    white = property(lambda self: self._sets("white"))
    black = property(lambda self: self._sets("black"))

    @functools.cached_property
    def occupied(self) -> Squares:
        return self.white | self.black

    def of_type(self, piece_type: chess.PieceType) -> Squares:
        """The squares of the pieces of one type, either colour."""
        return self._sets(_TYPE_NAMES[piece_type - 1])

    def pieces(self, piece_type: chess.PieceType, color: chess.Color) -> Squares:
        """The squares of the pieces of one type and colour."""
        return self.content(piece_bit(color, piece_type))

    def content(self, types: TypeSet) -> Squares:
        """The squares whose content is in ``types`` (as ``masks.mask_expression``), made
        once per type set (the members of an orbit share a few)."""
        found = self._contents.get(types)
        if found is None:
            found = self._contents[types] = self._content(types)
        return found

    def _content(self, types: TypeSet) -> Squares:
        if types & ANYTHING == ANYTHING:
            return np.full(self.size, _FULL)
        if types & ANYTHING == ANY_PIECE:
            return self.occupied
        out = np.zeros(self.size, dtype=np.uint64)
        for piece_type in chess.PIECE_TYPES:
            white, black = types >> (piece_type - 1) & 1, types >> (piece_type + 5) & 1
            if white or black:
                own = self.occupied if white and black else self.white if white else self.black
                out |= self.of_type(piece_type) & own
        if types & EMPTY_BIT:
            out |= ~self.occupied
        return out

    # ---- the state --------------------------------------------------------------------

    @functools.cached_property
    def flags(self) -> NDArray[np.int64]:
        return np.asarray(self.columns["flags"], dtype=np.int64)

    @functools.cached_property
    def white_to_move(self) -> Bools:
        return (self.flags & _WHITE_TO_MOVE) != 0

    def flag(self, bit: int) -> Bools:
        return (self.flags & bit) != 0

    # ---- along a game and per game ----------------------------------------------------

    @functools.cached_property
    def game(self) -> NDArray[np.int64]:
        return np.asarray(self.columns["game"], dtype=np.int64)

    @functools.cached_property
    def ply(self) -> NDArray[np.int64]:
        return np.asarray(self.columns["ply"], dtype=np.int64)

    @functools.cached_property
    def first(self) -> Bools:
        """Whether each position is the first of its game's main line."""
        found = self._of_whole("first")
        if found is not None:
            return found
        out = np.ones(self.size, dtype=np.bool_)
        out[1:] = self.game[1:] != self.game[:-1]
        return out

    @functools.cached_property
    def last(self) -> Bools:
        """Whether each position is the last of its game's main line."""
        found = self._of_whole("last")
        if found is not None:
            return found
        out = np.ones(self.size, dtype=np.bool_)
        out[:-1] = self.game[1:] != self.game[:-1]
        return out

    @functools.cached_property
    def starts(self) -> NDArray[np.intp]:
        """The entry of each game's first position."""
        return np.flatnonzero(self.first).astype(np.intp)

    @functools.cached_property
    def games(self) -> NDArray[np.int64]:
        """Each game's number, in order."""
        return self.game[self.starts]

    def at_ply(self, values: NDArray[Any], offset: int, fill: object = 0) -> NDArray[Any]:
        """Per position, ``values`` at the position ``offset`` plies later in the same
        game (earlier when negative); ``fill`` (0, False) where the game has none."""
        if self._whole is not None:
            raise RowOnly("a view of some positions has no neighbouring plies")
        n = self.size
        target = np.arange(n) + offset
        inside = (target >= 0) & (target < n)
        target = np.clip(target, 0, max(n - 1, 0))
        if not n:
            return values.copy()
        # Plies follow each other within a game: the same game is the position wanted.
        same = inside & (self.game[target] == self.game)
        return np.where(same, values[target], values.dtype.type(fill))

    def next_ply(self, values: NDArray[Any]) -> NDArray[Any]:
        """``values`` at the next position of the same game (0 / False at its end)."""
        return self.at_ply(values, 1)

    def previous_ply(self, values: NDArray[Any]) -> NDArray[Any]:
        """``values`` at the previous position of the same game (0 / False at ply 0)."""
        return self.at_ply(values, -1)

    def count_per_game(self, mask: Bools) -> NDArray[np.int64]:
        """Per game of :attr:`games`, at how many positions ``mask`` holds."""
        return self.sum_per_game(np.asarray(mask, dtype=np.int64))

    def any_per_game(self, mask: Bools) -> Bools:
        """Per game of :attr:`games`, whether ``mask`` holds at some position."""
        return self.count_per_game(mask) > 0

    def sum_per_game(self, values: NDArray[Any]) -> NDArray[np.int64]:
        """Per game of :attr:`games`, the sum of ``values`` over its positions."""
        if not len(self.starts):
            return np.zeros(0, dtype=np.int64)
        return np.add.reduceat(np.asarray(values, dtype=np.int64), self.starts)

    def game_plies(self, mask: Bools) -> list[tuple[int, int]]:
        """The ``(game, ply)`` of each position where ``mask`` holds, in order."""
        where = np.flatnonzero(mask)
        return list(zip(self.game[where].tolist(), self.ply[where].tolist(), strict=True))

    @functools.cached_property
    def movenumber(self) -> NDArray[np.int64]:
        """The number of the move that produced each position (decision L8): the board's
        move number, less one with White to move.  The move number grows after each
        Black move (a null move too), from the start's own (a FEN may name any)."""
        found = self._of_whole("movenumber")
        if found is not None:
            return found
        black_moved = np.asarray(~self.white_to_move & ~self.last, dtype=np.int64)
        before = np.cumsum(black_moved) - black_moved
        start = np.array([self.fullmoves.get(int(g), 1) for g in self.games], dtype=np.int64)
        counts = np.diff(np.append(self.starts, self.size))
        fullmove = np.repeat(start - before[self.starts], counts) + before
        return fullmove - self.white_to_move.astype(np.int64)

    # ---- the move played from each position ------------------------------------------

    @functools.cached_property
    def move_from(self) -> NDArray[np.int64]:
        return np.asarray(self.columns["move_from"], dtype=np.int64)

    @functools.cached_property
    def move_to(self) -> NDArray[np.int64]:
        return np.asarray(self.columns["move_to"], dtype=np.int64)

    @functools.cached_property
    def promotion(self) -> NDArray[np.int64]:
        return np.asarray(self.columns["move_promotion"], dtype=np.int64)

    @functools.cached_property
    def moved(self) -> Bools:
        """A move is played from the position (not the last one) and it is no null move."""
        return ~self.last & (self.move_from >= 0) & (self.move_from != self.move_to)

    @functools.cached_property
    def from_bit(self) -> Squares:
        return ba.square_bits(self.move_from)

    @functools.cached_property
    def to_bit(self) -> Squares:
        return ba.square_bits(self.move_to)

    @functools.cached_property
    def own(self) -> Squares:
        return np.where(self.white_to_move, self.white, self.black)

    @functools.cached_property
    def castles(self) -> Bools:
        """``chess.Board.is_castling``: a king moving two files or onto its own rook."""
        king = (self.of_type(chess.KING) & self.from_bit) != 0
        files = np.abs((self.move_from & 7) - (self.move_to & 7))
        onto_rook = (self.of_type(chess.ROOK) & self.own & self.to_bit) != 0
        return self.moved & king & ((files > 1) | onto_rook)

    @functools.cached_property
    def kingside(self) -> Bools:
        return self.castles & ((self.move_to & 7) > (self.move_from & 7))

    @functools.cached_property
    def en_passant(self) -> Bools:
        """``chess.Board.is_en_passant``: a pawn moving diagonally onto the en passant
        square, which is empty."""
        ep = np.asarray(self.columns["ep"], dtype=np.int64)
        pawn = (self.of_type(chess.PAWN) & self.from_bit) != 0
        diagonal = np.isin(np.abs(self.move_to - self.move_from), (7, 9))
        empty = (self.occupied & self.to_bit) == 0
        return self.moved & (ep == self.move_to) & pawn & diagonal & empty

    @functools.cached_property
    def destination(self) -> Squares:
        """Where the moving piece lands (for castling, the king's square)."""
        landing = (self.move_from & ~7) + np.where(self.kingside, 6, 2)
        return np.where(self.castles, ba.square_bits(landing), self.to_bit)

    @functools.cached_property
    def captured(self) -> Squares:
        """The square of the piece the move captures (0: none, castling included)."""
        beside = (self.move_to & 7) + (self.move_from & ~7)
        plain = np.where((self.occupied & self.to_bit) != 0, self.to_bit, np.uint64(0))
        out = np.where(self.en_passant, ba.square_bits(beside), plain)
        return np.where(self.moved & ~self.castles, out, np.uint64(0))


# --------------------------------------------------------------------------------------
# Values of each kind, and how one kind is read as another
# --------------------------------------------------------------------------------------


def truth(value: Value) -> Bools:
    """Where a value makes its filter match (``compiler.truth``)."""
    if isinstance(value, Numbers):
        return value.valid
    if value.dtype == np.bool_:
        return value
    return value != 0


def _failed(value: Value, size: int) -> Value:
    """A value of the same kind that fails everywhere (``compiler.FAIL``)."""
    if isinstance(value, Numbers):
        return Numbers(np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.bool_))
    return np.zeros(size, dtype=value.dtype)


def _where(mask: Bools, value: Value, size: int) -> Value:
    """``value`` where ``mask`` holds, the failing value elsewhere."""
    if isinstance(value, Numbers):
        return Numbers(value.values, value.valid & mask)
    return np.where(mask, value, np.zeros(size, dtype=value.dtype))


def _squares(value: Value) -> Squares:
    if isinstance(value, Numbers) or value.dtype != np.uint64:
        raise RowOnly("a set was expected")
    return value


def _numbers(value: Value) -> Numbers:
    """A number, or a set standing for its size (``compiler.number_value``)."""
    if isinstance(value, Numbers):
        return value
    if value.dtype == np.uint64:
        return Numbers(ba.popcount(value).astype(np.int64), np.ones(len(value), np.bool_))
    raise RowOnly("a number was expected")


# --------------------------------------------------------------------------------------
# The array forms, one per node class
# --------------------------------------------------------------------------------------

#: A node class's array form: given a way to compile its operands, the function of the
#: positions that gives its value.
ArrayForm: TypeAlias = Callable[["ArrayCompiler", Any], ArrayFn]

#: The array form of each node class, or its reason to be row only.
ARRAY_FORMS: Dispatcher[ArrayForm] = Dispatcher("array forms")
_form = ARRAY_FORMS.register

#: Where a filter matches among some rows (ascending indices into the positions).
Candidates: TypeAlias = Callable[["Positions", NDArray[np.intp]], Bools]

#: The classes that narrow candidates part by part (the others are evaluated at the
#: candidates alone, or everywhere: :meth:`ArrayCompiler.truth_at`).
CANDIDATE_FORMS: Dispatcher[Callable[[ArrayCompiler, Any], Candidates]] = Dispatcher(
    "candidate forms"
)
_candidate_form = CANDIDATE_FORMS.register


class ArrayCompiler:
    """Compiles nodes into array functions (equal nodes once), raising :class:`RowOnly`
    for a node whose class, or one of whose operands, has no array form."""

    def __init__(self) -> None:
        self._compiled: dict[Filter, ArrayFn] = {}
        self._candidates: dict[Filter, Candidates] = {}
        self._local: dict[Filter, bool] = {}

    def compile(self, node: Filter) -> ArrayFn:
        found = self._compiled.get(node)
        if found is None:
            form = ARRAY_FORMS.get(type(node))
            if form is None:
                reason = ARRAY_FORMS.absent_classes().get(type(node), "no array form")
                raise RowOnly(f"{type(node).__name__}: {reason}")
            found = self._compiled[node] = form(self, node)
        return found

    def truth(self, node: Filter) -> Callable[[Positions], Bools]:
        fn = self.compile(node)
        return lambda positions: truth(fn(positions))

    def truth_at(self, node: Filter) -> Candidates:
        """Where ``node`` matches among some rows of the positions (the candidates an
        earlier part left): a filter of one position and its move is evaluated at those
        rows alone, a conjunction, disjunction or line narrows them part by part, any
        other filter is evaluated everywhere and read at the rows."""
        found = self._candidates.get(node)
        if found is None:
            form = CANDIDATE_FORMS.get(type(node))
            if form is not None:
                found = form(self, node)
            else:
                fn = self.truth(node)
                if self.local(node):
                    found = lambda positions, rows: fn(positions.take(rows))  # noqa: E731
                else:
                    found = lambda positions, rows: fn(positions)[rows]  # noqa: E731
            self._candidates[node] = found
        return found

    def local(self, node: Filter) -> bool:
        """Whether ``node`` reads one position and its next move (and the tags) only."""
        found = self._local.get(node)
        if found is None:
            found = self._local[node] = node.reads() <= Reads.NEXT_MOVE
        return found


def compile_array(node: Filter) -> ArrayFn:
    """The array function of ``node`` (raises :class:`RowOnly` when it has none)."""
    return ArrayCompiler().compile(node)


def _constant_set(squares: int) -> ArrayFn:
    value = np.uint64(squares)
    return lambda positions: np.full(positions.size, value)


@_form(PieceSet)
def _piece_set(c: ArrayCompiler, node: PieceSet) -> ArrayFn:
    types, squares = node.types, node.squares
    if types in (ANYTHING, NOTHING) or squares == 0:
        return _constant_set(squares if types != NOTHING else 0)
    mask = np.uint64(squares)
    return lambda positions: positions.content(types) & mask


@_form(Union)
def _union(c: ArrayCompiler, node: Union) -> ArrayFn:
    fns = [c.compile(item) for item in meaningful(node.items)]

    def union(positions: Positions) -> Squares:
        out = np.zeros(positions.size, dtype=np.uint64)
        for fn in fns:
            out = out | _squares(fn(positions))
        return out

    return union


@_form(Intersection)
def _intersection(c: ArrayCompiler, node: Intersection) -> ArrayFn:
    fns = [c.compile(item) for item in meaningful(node.items)]

    def intersection(positions: Positions) -> Squares:
        out = np.full(positions.size, _FULL)
        for fn in fns:
            out = out & _squares(fn(positions))
        return out

    return intersection


@_form(Complement)
def _complement(c: ArrayCompiler, node: Complement) -> ArrayFn:
    fn = c.compile(node.arg)
    return lambda positions: ~_squares(fn(positions))


@_form(SquareColor)
def _square_color(c: ArrayCompiler, node: SquareColor) -> ArrayFn:
    fn = c.compile(node.arg)
    mask = np.uint64(FULL & ~LIGHT_SQUARES if node.dark else LIGHT_SQUARES)
    return lambda positions: _squares(fn(positions)) & mask


@_form(InSet)
def _in_set(c: ArrayCompiler, node: InSet) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)
    return lambda positions: (_squares(left(positions)) & ~_squares(right(positions))) == 0


@_form(DirectionSet)
def _direction_set(c: ArrayCompiler, node: DirectionSet) -> ArrayFn:
    fn = c.compile(node.arg)
    lo, hi = min(node.lo, node.hi), max(node.lo, node.hi)
    offsets = sorted(
        {(k * dx, k * dy) for dx, dy in node.direction.vectors for k in range(lo, hi + 1)}
    )

    def moved(positions: Positions) -> Squares:
        source = _squares(fn(positions))
        out = np.zeros(positions.size, dtype=np.uint64)
        for dx, dy in offsets:
            out |= ba.shift(source, dx, dy)
        return out

    return moved


# ---- attacks -------------------------------------------------------------------------


@_form(Attacks)
def _attacks(c: ArrayCompiler, node: Attacks) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)

    def attacks(positions: Positions) -> Squares:
        among = _squares(left(positions))
        return ba.either_attackers(positions, _squares(right(positions))) & among

    return attacks


@_form(AttackedBy)
def _attacked_by(c: ArrayCompiler, node: AttackedBy) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)

    def attacked_by(positions: Positions) -> Squares:
        attackers = _squares(right(positions))
        attacked = ba.attacked_by_set(positions, chess.WHITE, attackers) | ba.attacked_by_set(
            positions, chess.BLACK, attackers
        )
        return _squares(left(positions)) & attacked

    return attacked_by


# ---- lines of squares ------------------------------------------------------------------

_ORTHOGONAL = tuple(v for v in BASIC_VECTORS if not is_diagonal(v))
_DIAGONAL = tuple(v for v in BASIC_VECTORS if is_diagonal(v))


def _ray_ends(
    positions: Positions, sets: Sequence[Squares], vectors: Iterable[tuple[int, int]]
) -> Squares:
    """``rays.ray_ends`` at every position: along each vector, from each square of the
    first set, the squares of the next set in sight (empty squares between), and so on."""
    occupied = positions.occupied
    ends = np.zeros(positions.size, dtype=np.uint64)
    for files, ranks in vectors:
        frontier = sets[0]
        for targets in sets[1:]:
            frontier = ba.slide(frontier, occupied, files, ranks) & targets
        ends |= frontier
    return ends


def _ray_sets(c: ArrayCompiler, args: tuple[Filter, ...], word: str) -> list[ArrayFn]:
    if len(args) < 2:
        raise RowOnly(f"{word} needs at least two arguments")
    return [c.compile(arg) for arg in args]


@_form(Ray)
def _ray(c: ArrayCompiler, node: Ray) -> ArrayFn:
    fns = _ray_sets(c, node.args, "ray")
    vectors = sorted_vectors(node.direction.vectors)
    return lambda positions: _ray_ends(
        positions, [_squares(fn(positions)) for fn in fns], vectors
    )


@_form(XRay)
def _xray(c: ArrayCompiler, node: XRay) -> ArrayFn:
    fns = _ray_sets(c, node.args, "xray")

    def xray(positions: Positions) -> Squares:
        # As the row form: orthogonal rays from rooks and queens, diagonal ones from
        # bishops and queens, of the first set.
        first, *rest = [_squares(fn(positions)) for fn in fns]
        queens = positions.of_type(chess.QUEEN)
        straight = first & (positions.of_type(chess.ROOK) | queens)
        slanted = first & (positions.of_type(chess.BISHOP) | queens)
        return _ray_ends(positions, [straight, *rest], _ORTHOGONAL) | _ray_ends(
            positions, [slanted, *rest], _DIAGONAL
        )

    return xray


@_form(Between)
def _between(c: ArrayCompiler, node: Between) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)

    def between(positions: Positions) -> Squares:
        # A square lies strictly between x and y on a line when x is behind it and y
        # ahead of it in one direction.
        lefts, rights = _squares(left(positions)), _squares(right(positions))
        empty = np.zeros(positions.size, dtype=np.uint64)
        out = np.zeros(positions.size, dtype=np.uint64)
        for files, ranks in BASIC_VECTORS:
            behind = ba.slide(lefts, empty, files, ranks)
            ahead = ba.slide(rights, empty, -files, -ranks)
            out |= behind & ahead
        return out

    return between


def _fill(bits: Squares, ranks: int) -> Squares:
    """Every square on the file of a square of ``bits``, beyond it towards ``ranks``."""
    return ba.slide(bits, np.zeros(len(bits), dtype=np.uint64), 0, ranks)


def _beside(bits: Squares) -> Squares:
    return ba.shift(bits, 1, 0) | ba.shift(bits, -1, 0)


def _pawn_feature(feature: PawnFeature, own: Squares, enemy: Squares, up: int) -> Squares:
    """As ``position_rules._pawns_with``: the pawns of ``own`` (moving ``up``) that have
    ``feature``."""
    if feature is PawnFeature.PASSED:
        # An enemy pawn ahead on its file or a neighbouring one casts a shadow behind it.
        shadow = _fill(enemy | _beside(enemy), -up)
        return own & ~shadow
    if feature is PawnFeature.DOUBLED:
        return own & (_fill(own, 1) | _fill(own, -1))
    neighbours = _beside(own)
    files = neighbours | _fill(neighbours, 1) | _fill(neighbours, -1)
    return own & files if feature is PawnFeature.CONNECTED else own & ~files


@_form(PawnStructure)
def _pawn_structure(c: ArrayCompiler, node: PawnStructure) -> ArrayFn:
    feature = node.feature

    def pawns(positions: Positions) -> Squares:
        white = positions.pieces(chess.PAWN, chess.WHITE)
        black = positions.pieces(chess.PAWN, chess.BLACK)
        return _pawn_feature(feature, white, black, 1) | _pawn_feature(feature, black, white, -1)

    return pawns


# ---- numbers -------------------------------------------------------------------------


@_form(Number)
def _number(c: ArrayCompiler, node: Number) -> ArrayFn:
    value = node.value
    return lambda positions: Numbers(
        np.full(positions.size, value, dtype=np.int64), np.ones(positions.size, np.bool_)
    )


@_form(Count)
def _count(c: ArrayCompiler, node: Count) -> ArrayFn:
    fn = c.compile(node.arg)
    return lambda positions: _numbers(_squares(fn(positions)))


_POWER_TERMS = tuple((piece_type, value) for piece_type, value in POWER_VALUES.items() if value)


@_form(Power)
def _power(c: ArrayCompiler, node: Power) -> ArrayFn:
    fn = c.compile(node.arg)

    def power(positions: Positions) -> Numbers:
        squares = _squares(fn(positions))
        total = np.zeros(positions.size, dtype=np.int64)
        for piece_type, value in _POWER_TERMS:
            held: Squares = positions.of_type(piece_type) & squares
            total += value * ba.popcount(held).astype(np.int64)
        return Numbers(total, np.ones(positions.size, np.bool_))

    return power


_ARITH = {ArithOp.ADD: operator.add, ArithOp.SUB: operator.sub}


@_form(Arith)
def _arith(c: ArrayCompiler, node: Arith) -> ArrayFn:
    op, left, right = _ARITH[node.op], c.compile(node.left), c.compile(node.right)

    def arith(positions: Positions) -> Numbers:
        a, b = _numbers(left(positions)), _numbers(right(positions))
        return Numbers(op(a.values, b.values), a.valid & b.valid)

    return arith


@_form(Negate)
def _negate(c: ArrayCompiler, node: Negate) -> ArrayFn:
    fn = c.compile(node.arg)

    def negate(positions: Positions) -> Numbers:
        value = _numbers(fn(positions))
        return Numbers(-value.values, value.valid)

    return negate


@_form(Abs)
def _abs(c: ArrayCompiler, node: Abs) -> ArrayFn:
    fn = c.compile(node.arg)

    def absolute(positions: Positions) -> Numbers:
        value = _numbers(fn(positions))
        return Numbers(np.abs(value.values), value.valid)

    return absolute


@_form(NumericValue)
def _numeric_value(c: ArrayCompiler, node: NumericValue) -> ArrayFn:
    if node.keyword is NumericKeyword.PLY:
        return lambda positions: Numbers(positions.ply, np.ones(positions.size, np.bool_))
    if node.keyword is NumericKeyword.YEAR:
        return _by_game(node)
    return lambda positions: Numbers(positions.movenumber, np.ones(positions.size, np.bool_))


@_form(SideToMove)
def _side_to_move(c: ArrayCompiler, node: SideToMove) -> ArrayFn:
    return lambda positions: Numbers(
        np.where(positions.white_to_move, 1, -1).astype(np.int64), np.ones(positions.size, np.bool_)
    )


@_form(InRange)
def _in_range(c: ArrayCompiler, node: InRange) -> ArrayFn:
    fn = c.compile(node.value)
    lo, hi = closed_range(node.lo, node.hi)

    def in_range(positions: Positions) -> Bools:
        value = _numbers(fn(positions))
        return value.valid & (value.values >= lo) & (value.values <= hi)

    return in_range


_COMPARE = {
    CompareOp.LT: operator.lt,
    CompareOp.LE: operator.le,
    CompareOp.EQ: operator.eq,
    CompareOp.GE: operator.ge,
    CompareOp.GT: operator.gt,
    CompareOp.NE: operator.ne,
}


def _chain_link(node: Filter) -> Filter | None:
    """As ``position_rules._chain_link``: ``2 < P <= 5`` is ``2 < P`` and ``P <= 5``."""
    if isinstance(node, InRange):
        return node.value
    if isinstance(node, Compare):
        return node.left
    return None


def _is_set(value: Bools | Squares) -> bool:
    return bool(value.dtype == np.uint64)


@_form(Compare)
def _compare(c: ArrayCompiler, node: Compare) -> ArrayFn:
    op = _COMPARE[node.op]
    link = _chain_link(node.right)
    rest = c.truth(node.right) if link is not None else None
    left = c.compile(node.left)
    right = c.compile(node.right if link is None else link)
    sets_compared = node.op in (CompareOp.EQ, CompareOp.NE)

    def compare(positions: Positions) -> Bools:
        a, b = left(positions), right(positions)
        if isinstance(a, Numbers) or isinstance(b, Numbers) or not (_is_set(a) and _is_set(b)):
            x, y = _numbers(a), _numbers(b)
            out: Bools = x.valid & y.valid & op(x.values, y.values)
        elif sets_compared:
            out = op(a, b)
        else:
            # Two sets ordered by their sizes.
            x, y = _numbers(a), _numbers(b)
            out = op(x.values, y.values)
        return out if rest is None else out & rest(positions)

    return compare


# ---- logic ---------------------------------------------------------------------------


@_candidate_form(Compound)
def _compound_at(c: ArrayCompiler, node: Compound) -> Candidates:
    # Where a compound matches: where every item does (its value is the last item's).
    return _all_at([c.truth_at(item) for item in _cheap_first(c, meaningful(node.items))])


@_form(Compound)
def _compound(c: ArrayCompiler, node: Compound) -> ArrayFn:
    items = meaningful(node.items)
    if not items:
        return lambda positions: np.ones(positions.size, np.bool_)
    if node.value_kind() is Kind.LOGICAL:
        return _everywhere(c.truth_at(node))
    *head, tail = items
    guards = [c.truth(item) for item in head]
    last = c.compile(tail)

    def compound(positions: Positions) -> Value:
        holds = np.ones(positions.size, np.bool_)
        for guard in guards:
            holds &= guard(positions)
        return _where(holds, last(positions), positions.size)

    return compound


def _cheap_first(c: ArrayCompiler, items: Sequence[Filter]) -> list[Filter]:
    """Conjuncts or disjuncts ordered so that those of one position come first, smaller
    before larger (they are all pure: the order changes no answer)."""
    return sorted(items, key=lambda item: (not c.local(item), sum(1 for _ in item.walk())))


def _all_at(parts: Sequence[Candidates]) -> Candidates:
    """Where every part holds among ``rows``: each part asked only where the ones before
    it held."""

    def all_at(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        left = rows
        for part in parts:
            if not len(left):
                break
            left = left[part(positions, left)]
        return np.isin(rows, left, assume_unique=True)

    return all_at


def _any_at(parts: Sequence[Candidates]) -> Candidates:
    """Where some part holds among ``rows``: each part asked only where none before it
    held."""

    def any_at(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        out = np.zeros(len(rows), np.bool_)
        for part in parts:
            open_ = np.flatnonzero(~out)
            if not len(open_):
                break
            out[open_] = part(positions, rows[open_])
        return out

    return any_at


def _everywhere(at: Candidates) -> Callable[[Positions], Bools]:
    return lambda positions: at(positions, np.arange(positions.size, dtype=np.intp))


@_form(And)
def _and(c: ArrayCompiler, node: And) -> ArrayFn:
    return _everywhere(c.truth_at(node))


@_candidate_form(And)
def _and_at(c: ArrayCompiler, node: And) -> Candidates:
    return _all_at([c.truth_at(item) for item in _cheap_first(c, meaningful(node.items))])


@_form(Or)
def _or(c: ArrayCompiler, node: Or) -> ArrayFn:
    return _everywhere(c.truth_at(node))


@_candidate_form(Or)
def _or_at(c: ArrayCompiler, node: Or) -> Candidates:
    return _any_at([c.truth_at(item) for item in _cheap_first(c, meaningful(node.items))])


@_form(Not)
def _not(c: ArrayCompiler, node: Not) -> ArrayFn:
    fn = c.truth(node.arg)
    return lambda positions: ~fn(positions)


_SIMPLE: dict[Keyword, Callable[[Positions], Bools]] = {
    Keyword.TRUE: lambda positions: np.ones(positions.size, np.bool_),
    Keyword.FALSE: lambda positions: np.zeros(positions.size, np.bool_),
    Keyword.WTM: lambda positions: positions.white_to_move,
    Keyword.BTM: lambda positions: ~positions.white_to_move,
    # The flags are python-chess's own answers, stored by the index.
    Keyword.CHECK: lambda positions: positions.flag(_CHECK),
    Keyword.MATE: lambda positions: positions.flag(_MATE),
    Keyword.STALEMATE: lambda positions: positions.flag(_STALEMATE),
    Keyword.INITIAL: lambda positions: positions.ply == 0,
    Keyword.TERMINAL: lambda positions: positions.last,
    # Only main lines are stored.
    Keyword.MAINLINE: lambda positions: np.ones(positions.size, np.bool_),
    Keyword.VARIATION: lambda positions: np.zeros(positions.size, np.bool_),
}


@_form(Simple)
def _simple(c: ArrayCompiler, node: Simple) -> ArrayFn:
    return _SIMPLE[node.keyword]


@_form(Comment)
def _comment(c: ArrayCompiler, node: Comment) -> ArrayFn:
    return lambda positions: np.ones(positions.size, np.bool_)


@_form(LegacyOnly)
def _legacy_only(c: ArrayCompiler, node: LegacyOnly) -> ArrayFn:
    return c.compile(node.filter)


def _by_game(node: Filter) -> ArrayFn:
    """A filter that reads the tags alone: its reference value once per game, spread over
    the game's positions."""
    compiled = Compiler(REFERENCE_RULES).compile(node)
    fn, kind = compiled.fn, compiled.kind

    def by_game(positions: Positions) -> Value:
        games, starts = np.unique(positions.game, return_index=True)
        counts = np.diff(np.append(starts, positions.size))
        values = [fn(Context(None, positions.infos.get(int(g), GameInfo())), -1) for g in games]
        if kind is Kind.NUMBER:
            valid = np.repeat(np.array([v is not None for v in values], np.bool_), counts)
            numbers = np.repeat(np.array([v or 0 for v in values], np.int64), counts)
            return Numbers(numbers, valid)
        if kind is Kind.SET:
            return np.repeat(np.array(values, dtype=np.uint64), counts)
        return np.repeat(np.array([bool(v) for v in values], np.bool_), counts)

    return by_game


for _tags_only in (Result, Player, TagContains, Elo):
    ARRAY_FORMS.add(_tags_only, lambda c, node: _by_game(node))


# ---- orbits --------------------------------------------------------------------------


@_form(Transform)
def _transform(c: ArrayCompiler, node: Transform) -> ArrayFn:
    members = [c.compile(member) for member in orbit_members(node)]
    if node.count:

        def count(positions: Positions) -> Numbers:
            total = np.zeros(positions.size, dtype=np.int64)
            for member in members:
                total += truth(member(positions))
            return Numbers(total, np.ones(positions.size, np.bool_))

        return count

    if node.value_kind() is Kind.LOGICAL:
        return _everywhere(c.truth_at(node))

    def orbit(positions: Positions) -> Value:
        # Combined member by member: one value of each kind held at a time.
        out = members[0](positions)
        if isinstance(out, Numbers):
            return _maximum(out, [_numbers(member(positions)) for member in members[1:]])
        if out.dtype == np.uint64:
            for member in members[1:]:
                out = out | _squares(member(positions))
            return out
        out = truth(out)
        for member in members[1:]:
            out = out | truth(member(positions))
        return out

    return orbit


def _maximum(first: Numbers, rest: Iterable[Numbers]) -> Numbers:
    """The largest value at each position among those that have one."""
    values, valid = first.values.copy(), first.valid.copy()
    for other in rest:
        larger = other.valid & (~valid | (other.values > values))
        values = np.where(larger, other.values, values)
        valid |= other.valid
    return Numbers(values, valid)


@_candidate_form(Transform)
def _transform_at(c: ArrayCompiler, node: Transform) -> Candidates:
    if node.count:
        fn = c.truth(node)
        return lambda positions, rows: fn(positions)[rows]
    # Where some member matches (a set: is not empty; a number: has a value): each
    # member asked where none before it did.
    return _any_at([c.truth_at(member) for member in orbit_members(node)])


# ---- the move ------------------------------------------------------------------------


@_form(Move)
def _move(c: ArrayCompiler, node: Move) -> ArrayFn:
    def optional(arg: Filter | None) -> ArrayFn | None:
        return None if arg is None else c.compile(arg)

    from_, to, capture = optional(node.from_), optional(node.to), optional(node.capture)
    bare = (from_, to, capture, node.promote, node.enpassant, node.castle) == (
        None, None, None, None, False, None,
    )  # fmt: skip
    promote, enpassant, castle = node.promote, node.enpassant, node.castle

    def next_move(positions: Positions) -> Bools:
        if bare:
            # A null move is a move too, for a bare ``move``.
            return ~positions.last
        out = positions.moved.copy()
        if enpassant:
            out &= positions.en_passant
        if castle is not None:
            side = positions.kingside if castle is Castling.KINGSIDE else ~positions.kingside
            out &= positions.castles & side
        if promote is not None:
            out &= _promotes_to(positions, promote)
        if from_ is not None:
            out &= (_squares(from_(positions)) & positions.from_bit) != 0
        if to is not None:
            out &= (_squares(to(positions)) & positions.destination) != 0
        if capture is not None:
            out &= (_squares(capture(positions)) & positions.captured) != 0
        return out

    if node.previous:
        return lambda positions: positions.previous_ply(next_move(positions))
    return next_move


def _promotes_to(positions: Positions, types: TypeSet) -> Bools:
    """Whether the move promotes to a piece of ``types`` (of the mover's colour)."""
    out = np.zeros(positions.size, np.bool_)
    for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        for color, shift in ((chess.WHITE, 0), (chess.BLACK, 6)):
            if types >> (piece_type - 1 + shift) & 1:
                mover = positions.white_to_move if color else ~positions.white_to_move
                out |= mover & (positions.promotion == piece_type)
    return out


# ---- along the game ------------------------------------------------------------------


@_form(Find)
def _find(c: ArrayCompiler, node: Find) -> ArrayFn:
    test = c.truth(node.arg)

    def find(positions: Positions) -> Value:
        # The positions from here to the game's end where the argument holds: a count
        # from the end of each game.
        holds = test(positions).astype(np.int64)
        after = _from_the_end(positions, holds)
        if node.all:
            return Numbers(after, np.ones(positions.size, np.bool_))
        return after > 0

    return find


def _from_the_end(positions: Positions, values: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per position, the sum of ``values`` from it to the end of its game."""
    total = np.cumsum(values[::-1])[::-1]
    # What follows the game: the total of the first position of the next game.
    ends = np.flatnonzero(positions.last)
    after_end = ends + 1
    inside = after_end < positions.size
    per_game_rest = np.zeros(len(ends), dtype=np.int64)
    per_game_rest[inside] = total[after_end[inside]]
    following = np.repeat(per_game_rest, np.diff(np.append(-1, ends)))
    return total - following


@_form(Line)
def _line(c: ArrayCompiler, node: Line) -> ArrayFn:
    if node.steps and _single_steps(node):
        return _everywhere(c.truth_at(node))
    automaton = StepAutomaton.of(node.steps, c.truth)
    return lambda positions: _accepting(automaton, positions)


@_candidate_form(Line)
def _line_at(c: ArrayCompiler, node: Line) -> Candidates:
    if not (node.steps and _single_steps(node)):
        automaton = StepAutomaton.of(node.steps, c.truth)
        return lambda positions, rows: _accepting(automaton, positions)[rows]
    steps = [c.truth_at(step.filter) for step in node.steps]

    def single_steps(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        # The k-th constituent k plies on, in the same game, asked only where the
        # constituents before it held.
        left = rows
        for k, step in enumerate(steps):
            target = left + k
            inside = target < positions.size
            inside[inside] = positions.game[target[inside]] == positions.game[left[inside]]
            left = left[inside]
            if not len(left):
                break
            left = left[step(positions, left + k)]
        return np.isin(rows, left, assume_unique=True)

    return single_steps


def _single_steps(node: Line) -> bool:
    """Whether each constituent of the line is matched exactly once (no group)."""
    return all(
        (step.lo, step.hi) == (1, 1) and not isinstance(step.filter, LineGroup)
        for step in node.steps
    )


def _accepting(automaton: StepAutomaton[Truth], positions: Positions) -> Bools:
    """Where the line matches: the automaton followed backwards from each game's end
    (past its last position, where no constituent holds) to its start, every game at
    once, one distance from the end at a time."""
    n, states = positions.size, len(automaton.reads)
    # Rows 0..n-1 are the positions; row n + g is the place past the end of game g.
    games = len(positions.starts)
    ends = np.flatnonzero(positions.last)
    past_end = n + np.arange(games)
    next_row = np.arange(1, n + 1)
    next_row[ends] = past_end
    distance = np.empty(n + games, dtype=np.int64)
    distance[:n] = np.repeat(ends, np.diff(np.append(-1, ends))) - np.arange(n) + 1
    distance[n:] = 0
    reads = [
        [(np.append(test(positions), np.zeros(games, np.bool_)), t) for test, t in found]
        for found in automaton.reads
    ]
    accepted = [np.zeros(n + games, np.bool_) for _ in range(states)]
    accepted[automaton.accept][:] = True
    order = np.argsort(distance, kind="stable")
    bounds = np.searchsorted(distance[order], np.arange(distance.max(initial=0) + 2))
    for d in range(len(bounds) - 1):
        rows = order[bounds[d] : bounds[d + 1]]
        if d:
            later = next_row[rows]
            for s in range(states):
                for holds, t in reads[s]:
                    accepted[s][rows] |= holds[rows] & accepted[t][later]
        # The skips at the same place, until nothing changes (there are few states).
        changed = True
        while changed:
            changed = False
            for s in range(states):
                for t in automaton.skips[s]:
                    grown = accepted[s][rows] | accepted[t][rows]
                    if (grown != accepted[s][rows]).any():
                        accepted[s][rows] = grown
                        changed = True
    return accepted[0][:n]


# ---- row only --------------------------------------------------------------------------

ARRAY_FORMS.absent(
    PieceVariable, PieceLoop, Relation,
    reason="it follows pieces through the game (their identities), which the index does not store",
)  # fmt: skip
ARRAY_FORMS.absent(
    SquareVariable, SquareLoop, Echo, PositionVariable, AtPosition, PositionIntersection,
    Ancestor, Distance,
    reason="it binds a variable (a square or a position) that each position tries in turn",
)  # fmt: skip
ARRAY_FORMS.absent(
    LineGroup,
    reason="a group of constituents is followed only by its line's automaton (Line's form)",
)
ARRAY_FORMS.absent(
    RayCount,
    reason="legacy ray counting places inner designators square by square (decision L20)",
)


# --------------------------------------------------------------------------------------
# What the array forms give a top-level list
# --------------------------------------------------------------------------------------


@attrs.frozen
class ListArrays:
    """What the arrays say of one top-level list's body: ``exact`` its truth at every
    position (None when some part of it is row only), ``necessary`` a test that holds
    wherever the body may (the conjunction of the body's conjuncts that have array forms;
    None when none has), and ``row_only`` the reason of the first part without one."""

    exact: Callable[[Positions], Bools] | None
    necessary: Callable[[Positions], Bools] | None
    row_only: str | None
    #: The fewest matching positions that satisfy the list, and whether a count does.
    least: int = 1
    satisfied: Callable[[int], bool] = attrs.field(default=lambda count: count >= 1, eq=False)
    #: The body holds at the start position only (``analysis.requires_initial``).
    start_only: bool = False


def list_arrays(body: Filter, *, bindings: bool = False) -> ListArrays:
    """The array forms of a list's body (see :class:`ListArrays`); with ``bindings`` (the
    query binds piece tags, tried one binding after another) the necessary part alone."""
    compiler = ArrayCompiler()
    try:
        if bindings:
            raise RowOnly("the query binds piece tags: each binding is tried by rows")
        return ListArrays(compiler.truth(body), None, None)
    except RowOnly as whole:
        reason = str(whole)
    parts = []
    for conjunct in body.conjuncts():
        try:
            parts.append(compiler.truth(conjunct))
        except RowOnly:
            continue
    if not parts:
        return ListArrays(None, None, reason)

    def necessary(positions: Positions) -> Bools:
        out = np.ones(positions.size, np.bool_)
        for part in parts:
            out &= part(positions)
        return out

    return ListArrays(None, necessary, reason)


