"""The replay floor: what any python-chess tool pays to read and replay a PGN file.

``python benchmarks/floor.py FILE.pgn`` reads every game of a plain PGN file with
python-chess's own reader and a visitor that keeps nothing (no game tree, no copies of
boards): every tag is read and every move, variations included, is parsed and played on
the reader's board.  It prints the number of games read.
"""

from __future__ import annotations

import sys

import chess.pgn


class _Lean(chess.pgn.BaseVisitor[bool]):
    """Keeps nothing; ``True`` tells a game apart from the end of the file."""

    def result(self) -> bool:
        return True


def count_games(path: str) -> int:
    """Read and replay every game of ``path``; return how many there were."""
    games = 0
    with open(path, encoding="utf-8-sig") as handle:
        while chess.pgn.read_game(handle, Visitor=_Lean):
            games += 1
    return games


if __name__ == "__main__":
    print(count_games(sys.argv[1]))
