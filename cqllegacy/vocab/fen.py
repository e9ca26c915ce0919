"""What identifies a position as a FEN describes it, clocks aside (Scidb's ``:fen``).

>>> import chess
>>> position_key(chess.Board())
('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR', True, 'KQkq', None)
"""

from __future__ import annotations

import chess

__all__ = ["PositionKey", "position_key"]

#: The placement, the side to move (True: White), the castling rights (letters K, Q, k,
#: q, or ``-``) and the en passant square when a capture there is legal (else None).
PositionKey = tuple[str, bool, str, int | None]

_RIGHTS = (("K", chess.H1), ("Q", chess.A1), ("k", chess.H8), ("q", chess.A8))


def position_key(board: chess.Board) -> PositionKey:
    """The :data:`PositionKey` of ``board``: its rights as python-chess cleans them, its
    en passant square only where python-chess's repetition rule counts it."""
    rights = board.clean_castling_rights()
    letters = "".join(letter for letter, square in _RIGHTS if rights & chess.BB_SQUARES[square])
    ep = board.ep_square if board.has_legal_en_passant() else None
    return board.board_fen(), board.turn, letters or "-", ep
