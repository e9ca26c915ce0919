"""An index's main-line positions as numpy arrays, a chunk of whole games at a time.

:func:`read_chunks` reads the stored positions (see :mod:`~cqllegacy.indexing.records`)
of an index's clean games in chunks of at most ``max_positions`` positions, so that a
pass over a large file holds one chunk at a time.  A chunk never splits a game: a
question about the next ply, or about a whole game, is answered inside one chunk.

A :class:`PositionChunk` is a :class:`~cqllegacy.vocab.bitarrays.Placement`: the
kernels of :mod:`cqllegacy.vocab.bitarrays` take it as it is.  Its helpers look along
a game (:meth:`PositionChunk.at_ply`: the value a number of plies later, never another
game's), gather per game (:meth:`PositionChunk.any_per_game` …) and give the positions
a mask selects as ``(game, ply)`` pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

import attrs
import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.errors import IndexFailed
from cqllegacy.indexing.records import (
    BOARD_FIELDS,
    MOVE_FIELDS,
    STATE_FIELDS,
    WHITE_TO_MOVE,
)
from cqllegacy.indexing.store import Index
from cqllegacy.vocab.bitarrays import Bitboards

__all__ = ["MAX_POSITIONS", "PositionChunk", "read_chunks"]

#: Positions per chunk by default: about 40 MB of arrays (a position's columns and the
#: coloured piece sets derived from them take some 200 bytes).
MAX_POSITIONS = 200_000

_Value = TypeVar("_Value", bound=np.generic)
_COLOURS = (("white", chess.WHITE), ("black", chess.BLACK))
_TYPES = ("pawns", "knights", "bishops", "rooks", "queens", "kings")


def _coloured_name(color: chess.Color, piece_type: chess.PieceType) -> str:
    return f"{'white' if color else 'black'}_{_TYPES[piece_type - 1]}"


@attrs.frozen(eq=False)
class PositionChunk:
    """The main-line positions of some whole games, one array entry per position,
    ordered by game and ply.  The stored columns (placement, rights, flags, the move
    played from the position) and what is derived from them once: the twelve coloured
    piece sets, the occupancy, the side to move and where each game starts."""

    game: NDArray[np.int64]
    ply: NDArray[np.int64]
    pawns: Bitboards
    knights: Bitboards
    bishops: Bitboards
    rooks: Bitboards
    queens: Bitboards
    kings: Bitboards
    white: Bitboards
    black: Bitboards
    #: python-chess's castling rights: the squares of the rooks that may castle.
    castling: Bitboards
    #: WHITE_TO_MOVE, CHECK, MATE, STALEMATE (:mod:`~cqllegacy.indexing.records`).
    flags: NDArray[np.int8]
    #: The en passant square, -1 for none (python-chess's ``ep_square``).
    ep: NDArray[np.int8]
    #: The move played from the position: from and to squares (-1: none, at the last
    #: position or before a null move), the piece moved and the piece taken
    #: (:func:`~cqllegacy.vocab.pieces.piece_bit`, 0 none), the promotion (-1 none).
    move_from: NDArray[np.int16]
    move_to: NDArray[np.int16]
    move_piece: NDArray[np.int16]
    move_promotion: NDArray[np.int16]
    move_capture: NDArray[np.int16]
    white_pawns: Bitboards
    white_knights: Bitboards
    white_bishops: Bitboards
    white_rooks: Bitboards
    white_queens: Bitboards
    white_kings: Bitboards
    black_pawns: Bitboards
    black_knights: Bitboards
    black_bishops: Bitboards
    black_rooks: Bitboards
    black_queens: Bitboards
    black_kings: Bitboards
    occupied: Bitboards
    white_to_move: NDArray[np.bool_]
    #: Each game's number (ascending) and the entry of its first position.
    games: NDArray[np.int64]
    starts: NDArray[np.intp]

    @classmethod
    def of_columns(cls, columns: Mapping[str, NDArray[Any]]) -> PositionChunk:
        """A chunk of the stored columns ``columns`` (``game``, ``ply``, BOARD_FIELDS,
        STATE_FIELDS, MOVE_FIELDS), ordered by game and ply, each game whole from ply 0
        (``ValueError`` otherwise)."""
        game = np.asarray(columns["game"], dtype=np.int64)
        ply = np.asarray(columns["ply"], dtype=np.int64)
        starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]]).astype(np.intp)
        follows = (game[1:] == game[:-1]) & (ply[1:] == ply[:-1] + 1)
        new_game = (game[1:] > game[:-1]) & (ply[1:] == 0)
        if len(game) and (ply[0] != 0 or not (follows | new_game).all()):
            raise ValueError("positions are not whole games ordered by game and ply")
        fields: dict[str, Any] = {"game": game, "ply": ply}
        fields.update({name: np.asarray(columns[name], np.uint64) for name in BOARD_FIELDS})
        fields.update({name: np.asarray(columns[name], np.int16) for name in MOVE_FIELDS})
        flags = np.asarray(columns["flags"], dtype=np.int8)
        fields.update(flags=flags, ep=np.asarray(columns["ep"], dtype=np.int8))
        for side, color in _COLOURS:
            for piece_type, kind in enumerate(_TYPES, start=1):
                fields[_coloured_name(color, piece_type)] = fields[kind] & fields[side]
        fields.update(
            occupied=fields["white"] | fields["black"],
            white_to_move=(flags & WHITE_TO_MOVE) != 0,
            games=game[starts] if len(game) else game,
            starts=starts if len(game) else np.zeros(0, dtype=np.intp),
        )
        return cls(**fields)

    def __len__(self) -> int:
        return len(self.game)

    def pieces(self, piece_type: chess.PieceType, color: chess.Color) -> Bitboards:
        """The squares of ``color``'s pieces of ``piece_type`` (derived once)."""
        found: Bitboards = getattr(self, _coloured_name(color, piece_type))
        return found

    # ----------------------------------------------------------------------------------
    # Along a game
    # ----------------------------------------------------------------------------------

    def at_ply(self, values: NDArray[_Value], offset: int, fill: object = 0) -> NDArray[_Value]:
        """Per position, ``values`` at the position ``offset`` plies later in the same
        game (earlier when negative); ``fill`` (0, False) where the game has none."""
        n = len(self.game)
        if not n:
            return values.copy()
        target = np.arange(n) + offset
        inside = (target >= 0) & (target < n)
        target = np.clip(target, 0, n - 1)
        # Plies follow each other within a game: the same game is the position wanted.
        same = inside & (self.game[target] == self.game)
        found: NDArray[_Value] = np.where(same, values[target], values.dtype.type(fill))
        return found

    def next_ply(self, values: NDArray[_Value]) -> NDArray[_Value]:
        """``values`` at the next position of the same game (0 / False at its end)."""
        return self.at_ply(values, 1)

    def previous_ply(self, values: NDArray[_Value]) -> NDArray[_Value]:
        """``values`` at the previous position of the same game (0 / False at ply 0)."""
        return self.at_ply(values, -1)

    # ----------------------------------------------------------------------------------
    # Per game
    # ----------------------------------------------------------------------------------

    def any_per_game(self, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Per game of :attr:`games`, whether ``mask`` holds at some position."""
        return self.count_per_game(mask) > 0

    def count_per_game(self, mask: NDArray[np.bool_]) -> NDArray[np.int64]:
        """Per game of :attr:`games`, at how many positions ``mask`` holds."""
        return self.sum_per_game(np.asarray(mask, dtype=np.int64))

    def sum_per_game(self, values: NDArray[Any]) -> NDArray[np.int64]:
        """Per game of :attr:`games`, the sum of ``values`` over its positions."""
        if not len(self.starts):
            return np.zeros(0, dtype=np.int64)
        found: NDArray[np.int64] = np.add.reduceat(np.asarray(values, dtype=np.int64), self.starts)
        return found

    def game_plies(self, mask: NDArray[np.bool_]) -> list[tuple[int, int]]:
        """The ``(game, ply)`` of each position where ``mask`` holds, in order."""
        where = np.flatnonzero(mask)
        return list(zip(self.game[where].tolist(), self.ply[where].tolist(), strict=True))


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------

_COLUMNS = ("game", "ply", *BOARD_FIELDS, *STATE_FIELDS, *MOVE_FIELDS)


def read_chunks(
    index: Index, numbers: Sequence[int] | None = None, max_positions: int = MAX_POSITIONS
) -> Iterator[PositionChunk]:
    """The main-line positions of the clean games among ``numbers`` (ascending; None:
    every game), in chunks of whole games of at most ``max_positions`` positions (a
    longer game alone).  :class:`~cqllegacy.errors.IndexFailed` when the index fails
    while it is read, or holds other positions than its games say."""
    if max_positions < 1:
        raise ValueError("max_positions must be at least 1")
    with index.failing():
        found = index.connection.execute(
            "SELECT game, plies FROM games WHERE clean ORDER BY game"
        ).fetchnumpy()
    clean = np.asarray(found["game"], dtype=np.int64)
    counts = np.asarray(found["plies"], dtype=np.int64) + 1
    wanted = np.ones(len(clean), dtype=bool)
    if numbers is not None:
        wanted = np.isin(clean, np.asarray(numbers, dtype=np.int64))
    games, counts = clean[wanted], counts[wanted]
    for first, last in _cuts(counts, max_positions):
        part = games[first:last]
        # The games of the range that were left out must be named out.
        whole_range = np.count_nonzero((clean >= part[0]) & (clean <= part[-1])) == len(part)
        columns = _read(index, part, whole_range)
        if len(columns["game"]) != int(counts[first:last].sum()):
            raise IndexFailed(
                f"index {index.path} is damaged (games {int(part[0])}-{int(part[-1])} hold "
                f"{len(columns['game'])} positions, not {int(counts[first:last].sum())})"
            )
        yield PositionChunk.of_columns(columns)


def _cuts(counts: NDArray[np.int64], max_positions: int) -> Iterator[tuple[int, int]]:
    """Ranges of games (first, end) of at most ``max_positions`` positions each, or one
    game that alone has more."""
    total = np.concatenate(([0], np.cumsum(counts)))
    first = 0
    while first < len(counts):
        end = int(np.searchsorted(total, total[first] + max_positions, side="right")) - 1
        end = max(end, first + 1)
        yield first, end
        first = end


def _read(index: Index, games: NDArray[np.int64], whole_range: bool) -> dict[str, Any]:
    sql = f"SELECT {', '.join(_COLUMNS)} FROM positions WHERE game BETWEEN ? AND ?"
    parameters: list[object] = [int(games[0]), int(games[-1])]
    if not whole_range:
        sql += " AND game IN (SELECT unnest(?))"
        parameters.append(games.tolist())
    with index.failing():
        columns = dict(index.connection.execute(sql, parameters).fetchnumpy())
    game, ply = columns["game"], columns["ply"]
    # Sorted here, only where DuckDB did not keep the stored order (as Index.main_lines).
    if len(game) > 1 and not (
        (game[1:] >= game[:-1]).all()
        and ((game[1:] != game[:-1]) | (ply[1:].astype(np.int64) == ply[:-1] + 1)).all()
    ):
        order = np.lexsort((ply, game))
        columns = {name: values[order] for name, values in columns.items()}
    return columns
