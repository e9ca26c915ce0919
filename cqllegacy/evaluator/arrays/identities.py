"""Piece identities over stored positions: which piece of the start stands where.

A legacy tag (``:forany``) binds one piece of the start position and follows it through
the game, promotions, castling and en passant included (semantics: S-tags).  The index
stores placements, not identities; here they are rebuilt from the moves, for every game
of a chunk at once, one ply after another.  Each piece is named by its start square.

>>> import chess
>>> from cqllegacy.evaluator.arrays.positions import Positions
>>> board, boards = chess.Board(), [chess.Board()]
>>> for san in ("Nf3", "d5", "Ng5"):
...     _ = board.push_san(san)
...     boards.append(board.copy())
>>> located = locations(Positions.of_boards(boards))
>>> [chess.square_name(s) for s in located[:, chess.G1]]
['g1', 'f3', 'f3', 'g5']
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.evaluator.arrays.positions import Bools, Positions, RowOnly, Squares
from cqllegacy.vocab import bitarrays as ba

__all__ = ["bound_squares", "identities", "locations", "tag_candidates"]

_SQUARES = np.arange(64, dtype=np.int64)


def identities(positions: Positions) -> NDArray[np.int8]:
    """Per position and square, the start square of the piece standing there (-1 on
    an empty square).  Raises :class:`RowOnly` where the moves do not lead to the stored
    placements (then the rows, which follow the game itself, judge)."""
    n = positions.size
    ids = np.full((n, 64), -1, dtype=np.int8)
    starts = positions.starts
    if not n:
        return ids
    occupied = _unpacked(positions.occupied[starts])
    ids[starts] = np.where(occupied, _SQUARES.astype(np.int8), -1)
    lengths = np.diff(np.append(starts, n))
    for ply in range(1, int(lengths.max())):
        rows = starts[lengths > ply] + ply - 1
        ids[rows + 1] = _after_move(positions, ids[rows], rows)
    if (_packed(ids >= 0) != np.asarray(positions.occupied, dtype=np.uint64)).any():
        raise RowOnly("the stored moves do not lead to the stored placements")
    return ids


def _packed(squares: NDArray[np.bool_]) -> Squares:
    """Per row of 64 truths (one per square), the set of the squares where it holds.

    >>> int(_packed(np.array([[True] + [False] * 62 + [True]]))[0]) == (1 | 1 << 63)
    True
    """
    bytes_ = np.packbits(squares, axis=1, bitorder="little")
    return np.ascontiguousarray(bytes_).view("<u8").ravel().astype(np.uint64)


def _after_move(positions: Positions, before: NDArray[np.int8], rows: NDArray[Any]) -> Any:
    """The identities after the move played from ``rows``, whose identities are
    ``before`` (a null move changes nothing)."""
    after = before.copy()
    index = np.arange(len(rows))
    moved = positions.moved[rows]
    source = positions.move_from[rows]
    mover = before[index, source]
    captured = _square_of(positions.captured[rows])
    takes = moved & (captured >= 0)
    after[index[takes], captured[takes]] = -1
    after[index[moved], source[moved]] = -1
    landing = _square_of(positions.destination[rows])
    after[index[moved], landing[moved]] = mover[moved]
    castles = positions.castles[rows]
    if castles.any():
        _move_rooks(positions, before, after, rows, castles)
    return after


def _move_rooks(
    positions: Positions,
    before: NDArray[np.int8],
    after: NDArray[np.int8],
    rows: NDArray[Any],
    castles: Bools,
) -> None:
    """The rook's part of each castling at ``rows`` (the king's is done): from its
    corner, or from the square the king moved onto (Chess960), to the f or d file."""
    at = np.flatnonzero(castles)
    row = rows[at]
    home = positions.move_from[row] & ~7
    kingside = positions.kingside[row]
    target = positions.move_to[row]
    onto_rook = (
        positions.of_type(chess.ROOK)[row] & positions.own[row] & ba.square_bits(target)
    ) != 0
    corner = home + np.where(kingside, 7, 0)
    rook_from = np.where(onto_rook, target, corner)
    rook = before[at, rook_from]
    king_landing = _square_of(positions.destination[row])
    # The rook's square is empty now unless the king landed on it (Chess960).
    empty = rook_from != king_landing
    after[at[empty], rook_from[empty]] = -1
    after[at, home + np.where(kingside, 5, 3)] = rook


def _square_of(bits: Squares) -> NDArray[np.int64]:
    """The square of each one-square set, -1 for an empty one."""
    out = np.full(len(bits), -1, dtype=np.int64)
    some = bits != 0
    out[some] = np.log2(bits[some].astype(np.float64)).astype(np.int64)
    return out


def _unpacked(sets: Squares) -> NDArray[np.bool_]:
    """Per set, per square: whether the square is in it.

    >>> _unpacked(np.array([1 | 1 << 63], dtype=np.uint64))[0].nonzero()[0].tolist()
    [0, 63]
    """
    bytes_ = np.ascontiguousarray(np.asarray(sets, dtype="<u8")).view(np.uint8)
    out: NDArray[np.bool_] = np.unpackbits(
        bytes_.reshape(-1, 8), axis=1, bitorder="little"
    ).astype(np.bool_)
    return out


def locations(positions: Positions) -> NDArray[np.int8]:
    """Per position and start square, where that piece stands (-1: taken, or no piece
    started there)."""
    ids = identities(positions)
    out = np.full((positions.size, 64), -1, dtype=np.int8)
    row, square = np.nonzero(ids >= 0)
    out[row, ids[row, square]] = square.astype(np.int8)
    return out


def bound_squares(located: NDArray[np.int8], start: int) -> Squares:
    """Per position, the square of the piece that started on ``start`` (0 when gone)."""
    where = located[:, start].astype(np.int64)
    return np.where(where >= 0, ba.square_bits(np.maximum(where, 0)), np.uint64(0))


def tag_candidates(positions: Positions, located: NDArray[np.int8], types: int) -> Bools:
    """Per game and start square, whether the piece that started there may be bound to a
    tag of piece types ``types``: it stands on a square of those types at some position
    of the game (a pawn that becomes a rook is a rook's candidate)."""
    if not len(positions.starts):
        return np.zeros((0, 64), dtype=np.bool_)
    content = _unpacked(positions.content(types))
    # Per position and start square: whether that piece stands on a square of ``types``.
    there = np.take_along_axis(content, np.maximum(located, 0).astype(np.intp), axis=1)
    there &= located >= 0
    found: Bools = np.logical_or.reduceat(there, positions.starts, axis=0)
    return found
