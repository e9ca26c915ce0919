"""What the dialect tests share: the main-line positions of some games (each board with
the move played from it), the plies a python-chess predicate names, the plies a script
marks, and an indexed copy of the games whose runs must give the scan's bytes."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import chess
import chess.pgn

from cqllegacy.api import Query, index
from tests.indexing.test_equivalence import in_process

ROOT = Path(__file__).resolve().parents[2]
#: Real games: the fixtures' and the examples'.
GAMES = [ROOT / "fixtures" / "games.pgn", *sorted((ROOT / "examples" / "games").glob("*.pgn"))]

#: A main-line position and the move played from it (None at the end of the game).
Position = tuple[chess.Board, chess.Move | None]
Plies = list[Position]
#: What a one-position predicate reads.
Predicate = Callable[[chess.Board, chess.Move | None], bool]


@functools.cache
def main_lines(paths: tuple[Path, ...], *, stack: bool = False) -> list[tuple[int, Plies]]:
    """Per game (numbered from 1 over all the files), each main-line board and the move
    played from it; with ``stack`` each board keeps its moves (for repetitions)."""
    games = []
    ordinal = 0
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                ordinal += 1
                board = game.board()
                plies: Plies = []
                for move in game.mainline_moves():
                    plies.append((board.copy(stack=stack), move))
                    board.push(move)
                plies.append((board.copy(stack=stack), None))
                games.append((ordinal, plies))
    return games


def expected(
    plies_of: Callable[[Plies], set[int]], paths: Sequence[Path] = GAMES, *, stack: bool = False
) -> dict[int, set[int]]:
    """Per game with any, the plies ``plies_of`` names."""
    found: dict[int, set[int]] = {}
    for ordinal, plies in main_lines(tuple(paths), stack=stack):
        if hits := plies_of(plies):
            found[ordinal] = hits
    return found


def each(test: Predicate) -> Callable[[Plies], set[int]]:
    """The plies of a game where a one-position predicate holds."""
    return lambda plies: {ply for ply, (board, move) in enumerate(plies) if test(board, move)}


def plies_where(test: Predicate, paths: Sequence[Path] = GAMES) -> dict[int, set[int]]:
    """Per game with any, the plies where a one-position predicate holds."""
    return expected(each(test), paths)


def marked(text: str, paths: Iterable[Path] = GAMES) -> dict[int, set[int]]:
    """Per matching game, the plies the script marks."""
    found: dict[int, set[int]] = {}
    for match in Query.from_text(text).search(list(paths)):
        found[match.ordinal] = {key for key in match.marked if isinstance(key, int)}
    return found


def indexed_copy(folder: Path, paths: Iterable[Path]) -> Path:
    """The games of ``paths`` in one file of ``folder``, indexed."""
    pgn = folder / "games.pgn"
    pgn.write_text("".join(path.read_text(encoding="utf-8") + "\n" for path in paths), "utf-8")
    index(pgn)
    return pgn


def assert_index_gives_scan(text: str, pgn: Path, *, finds: bool = True) -> None:
    """A run of ``text`` on the indexed ``pgn`` writes what the scan writes; with
    ``finds`` the scan must find something (else the comparison proves little)."""
    query = Query.from_text(text)
    scanned = in_process(query, pgn, False)
    assert scanned[0] or not finds, "a query that matches nothing proves little"
    assert in_process(query, pgn, True) == scanned
