"""Positions as numpy columns, and the kinds of value an array form gives.

A set is one ``uint64`` per position, a truth one ``bool``, a number a :class:`Numbers`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

import attrs
import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.core.tree import Filter
from cqllegacy.evaluator.gametree import GameInfo
from cqllegacy.evaluator.trees import piece_variables_read
from cqllegacy.records import Record
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.flags import CHECK, MATE, STALEMATE, WHITE_TO_MOVE
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    EMPTY_BIT,
    TypeSet,
    piece_bit,
)
from cqllegacy.vocab.squares import FULL

# numpy's operators are typed loosely (most give Any): one element type per alias would
# be a claim mypy cannot check.  A set is uint64, a truth bool (see the module).
Bools: TypeAlias = NDArray[Any]
Squares: TypeAlias = NDArray[Any]


class _Gathered(Mapping[str, Any]):
    """The columns of a view: each gathered at its rows when first read (a view is made
    for every conjunct asked at a few rows, and reads few of the columns)."""

    def __init__(self, columns: Mapping[str, Any], rows: NDArray[np.intp]) -> None:
        self._columns, self._rows = columns, rows
        self._gathered: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        found = self._gathered.get(name)
        if found is None:
            found = self._gathered[name] = self._columns[name][self._rows]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)


@attrs.frozen(repr=False, eq=False)
class Numbers(Record):
    """A numeric filter's values at each position, and where it has one (a numeric filter
    without a value fails, as ``None`` does in the reference rules)."""

    values: NDArray[Any]
    valid: Bools


Value: TypeAlias = Bools | Squares | Numbers
#: Where a filter matches, at every position.
Truth: TypeAlias = Callable[["Positions"], Bools]
ArrayFn: TypeAlias = Callable[["Positions"], Value]

_FULL = np.uint64(FULL)
#: The flags the index stores per position (``cqllegacy.indexing.records`` writes them).
_WHITE_TO_MOVE, _CHECK, _MATE, _STALEMATE = WHITE_TO_MOVE, CHECK, MATE, STALEMATE
#: The board attributes of the piece types, in python-chess's order (PAWN … KING).
_TYPE_NAMES = ("pawns", "knights", "bishops", "rooks", "queens", "kings")


#: How many truths a chunk of positions remembers (each one ``bool`` a position).
_REMEMBERED = 1024


def binds(key: object) -> bool:
    """Whether ``key`` (a node, or a tuple of words and nodes) reads a piece variable:
    its value depends on a binding."""
    if isinstance(key, Filter):
        return bool(piece_variables_read(key))
    if isinstance(key, tuple):
        return any(binds(part) for part in key if not isinstance(part, str))
    return True


def bound_column(name: str) -> str:
    """The column holding the squares of the piece bound to the variable ``name``."""
    return f"piece variable {name}"


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
        self._remembered: dict[object, Bools] = {}
        #: For positions bound to a piece (:meth:`bound`): the same, unbound.
        self._unbound: Positions | None = None

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
        view = Positions(_Gathered(self.columns, rows), self.infos, self.fullmoves)
        view._whole = (whole, at)
        return view

    def bound(self, name: str, squares: Squares) -> Positions:
        """These positions with the piece variable ``name`` standing for ``squares``
        (its piece's square at each position): what a binding of a tag sees.  The
        remembered truths are the binding's own."""
        columns = {**self.columns, bound_column(name): squares}
        out = Positions(columns, self.infos, self.fullmoves)
        out._contents = self._contents
        out._unbound = self if self._unbound is None else self._unbound
        return out

    def games_at(self, indices: NDArray[np.intp]) -> Positions:
        """The whole games at ``indices`` of :attr:`games` alone (positions of their own)."""
        if len(indices) == len(self.starts):
            return self
        ends = np.append(self.starts[1:], self.size)
        rows = np.concatenate(
            [np.arange(self.starts[i], ends[i]) for i in indices] or [np.zeros(0, np.intp)]
        )
        columns = {name: values[rows] for name, values in self.columns.items()}
        return Positions(columns, self.infos, self.fullmoves)

    def remembered(self, key: object, fn: Callable[[Positions], Bools]) -> Bools:
        """``fn(self)``, computed once per key while these positions live (a bounded
        number of keys: the rest are computed each time)."""
        if self._unbound is not None and not binds(key):
            # The same for every binding: remembered by the positions bound.
            return self._unbound.remembered(key, lambda _: fn(self))
        found = self._remembered.get(key)
        if found is None:
            found = fn(self)
            if len(self._remembered) < _REMEMBERED:
                self._remembered[key] = found
        return found

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
    def game_index(self) -> NDArray[np.intp]:
        """Per position, its game's place among the games these positions hold (0 for
        the first)."""
        out = np.zeros(self.size, dtype=np.intp)
        np.cumsum(self.game[1:] != self.game[:-1], out=out[1:])
        return out

    @functools.cached_property
    def rows(self) -> NDArray[np.intp]:
        """Per position, its own entry (0, 1, 2 …)."""
        return np.arange(self.size, dtype=np.intp)

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
        found = self._of_whole("castles")  # a view's: the whole's, computed once
        if found is not None:
            return found
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
        found = self._of_whole("en_passant")  # a view's: the whole's, computed once
        if found is not None:
            return found
        ep = np.asarray(self.columns["ep"], dtype=np.int64)
        pawn = (self.of_type(chess.PAWN) & self.from_bit) != 0
        diagonal = np.isin(np.abs(self.move_to - self.move_from), (7, 9))
        empty = (self.occupied & self.to_bit) == 0
        return self.moved & (ep == self.move_to) & pawn & diagonal & empty

    @functools.cached_property
    def destination(self) -> Squares:
        """Where the moving piece lands (for castling, the king's square)."""
        found = self._of_whole("destination")  # a view's: the whole's, computed once
        if found is not None:
            return found
        landing = (self.move_from & ~7) + np.where(self.kingside, 6, 2)
        return np.where(self.castles, ba.square_bits(landing), self.to_bit)

    @functools.cached_property
    def captured(self) -> Squares:
        """The square of the piece the move captures (0: none, castling included)."""
        found = self._of_whole("captured")  # a view's: the whole's, computed once
        if found is not None:
            return found
        beside = (self.move_to & 7) + (self.move_from & ~7)
        plain = np.where((self.occupied & self.to_bit) != 0, self.to_bit, np.uint64(0))
        out = np.where(self.en_passant, ba.square_bits(beside), plain)
        return np.where(self.moved & ~self.castles, out, np.uint64(0))
