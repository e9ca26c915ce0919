"""The flags an index stores with each position (one small integer, bit by bit).

The index's builder writes them from python-chess's answers; the row path and the array
forms read them back.

>>> (WHITE_TO_MOVE | CHECK) & MATE
0
"""

from __future__ import annotations

__all__ = ["CHECK", "MATE", "STALEMATE", "WHITE_TO_MOVE"]

#: White is to move.
WHITE_TO_MOVE = 1
#: The side to move is in check.
CHECK = 2
#: The side to move is mated (stored for the last position of a main line only).
MATE = 4
#: The side to move is stalemated (likewise).
STALEMATE = 8
