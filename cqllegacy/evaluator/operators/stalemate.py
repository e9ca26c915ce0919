"""``stalemate`` decided at once where the side to move plainly has a legal move, else by
python-chess (the reference rule is python-chess's alone)."""

from __future__ import annotations

import chess

from cqllegacy.evaluator.operators.base import Board

__all__ = ["is_stalemate"]

_RAYS = chess.BB_RAYS

#: Per square, the squares a pawn there of each colour pushes to without promoting
#: (ranks 2-6 for White, 3-7 for Black; 0 elsewhere).
_PLAIN_PUSHES = (
    tuple(1 << (sq - 8) if 16 <= sq < 56 else 0 for sq in range(64)),
    tuple(1 << (sq + 8) if 8 <= sq < 48 else 0 for sq in range(64)),
)


def is_stalemate(board: Board) -> bool:
    """``board.is_stalemate()``, answered at once (False) where the side to move, if not in
    check, plainly has a legal move: a knight, bishop, rook, queen or unpromoting pawn push of
    a piece on no line through its own king (so no move of it uncovers the king) with a
    square to go to.  Anything else, and every other board class, is python-chess's.

    >>> is_stalemate(chess.Board()), is_stalemate(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))
    (False, True)
    """
    if type(board) is not chess.Board:
        return board.is_stalemate()
    turn = board.turn
    mine = board.occupied_co[turn]
    kings = board.kings & mine
    if not kings or kings & (kings - 1):
        return board.is_stalemate()
    # In check there is no stalemate: the answer False below needs no look at checks.
    free = _RAYS[kings.bit_length() - 1]
    occupied = board.occupied
    pushes = _PLAIN_PUSHES[turn]
    movers = mine & ~board.kings
    while movers:
        low = movers & -movers
        movers ^= low
        square = low.bit_length() - 1
        if free[square]:  # on a line through the king: it may be pinned
            continue
        if board.pawns & low:
            if pushes[square] & ~occupied:
                return False
        elif board.attacks_mask(square) & ~mine:
            return False
    return board.is_stalemate()
