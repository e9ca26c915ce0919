"""Game results as both languages and PGN's Result tag write them.

>>> GameResult("1-0").color_swapped()
<GameResult.BLACK_WINS: '0-1'>
"""

from __future__ import annotations

import enum

__all__ = ["GameResult"]


class GameResult(enum.Enum):
    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"

    def color_swapped(self) -> GameResult:
        return _RESULT_SWAP[self]


_RESULT_SWAP = {
    GameResult.WHITE_WINS: GameResult.BLACK_WINS,
    GameResult.BLACK_WINS: GameResult.WHITE_WINS,
    GameResult.DRAW: GameResult.DRAW,
}
