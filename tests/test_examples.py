"""Every example script finds something on the games it runs on by default (its own
``:pgn``, else the bundled games), and the demonstration games of ``examples/games/``
show what they are named for, judged by python-chess alone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import pytest

from cqllegacy.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.cql"))
GAMES = ROOT / "examples" / "games"


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda path: path.stem)
def test_every_example_matches_on_its_default_games(
    script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # as a user would, from anywhere: :pgn is the script's
    assert main(["run", str(script), "-q", "--jobs", "1"]) == 0
    written = (tmp_path / f"{script.stem}-out.pgn").read_text()
    assert len(re.findall(r"\{ Original game: \d+", written)) >= 1
    assert "{ MATCH }" in written


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda path: path.stem)
def test_an_example_with_its_own_games_names_them(script: Path) -> None:
    own = GAMES / f"{script.stem}.pgn"
    if own.exists():
        assert f":pgn games/{own.name}" in script.read_text()


def games(name: str) -> Iterator[chess.pgn.Game]:
    with open(GAMES / f"{name}.pgn", encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, game.errors
            yield game


def boards(game: chess.pgn.Game) -> Iterator[tuple[chess.Board, chess.Move | None]]:
    """Each main-line position with the move played from it (None at the end)."""
    board = game.board()
    for move in game.mainline_moves():
        yield board.copy(), move
        board.push(move)
    yield board, None


def test_demonstration_games_are_legal_and_not_empty() -> None:
    for path in GAMES.glob("*.pgn"):
        found = list(games(path.stem))
        assert found and all(list(game.mainline_moves()) for game in found), path


def test_allumwandlung_promotes_to_all_four_pieces() -> None:
    for game in games("allumwandlung"):
        promoted = {move.promotion for move in game.mainline_moves()}
        assert promoted >= {chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT}


def test_mirror_mates_are_ideal() -> None:
    for game in games("mirror-mate"):
        board = game.end().board()
        assert board.is_checkmate() and len(board.checkers()) == 1
        king = board.king(board.turn)
        assert king is not None
        ring = chess.SquareSet(chess.BB_KING_ATTACKS[king])
        assert len(ring) == 8 and all(board.piece_at(square) is None for square in ring)
        assert all(len(board.attackers(not board.turn, square)) == 1 for square in ring)


def test_quadrupled_pawns_stand_on_one_file() -> None:
    for game in games("quadrupled-pawns"):
        assert any(
            len(board.pieces(chess.PAWN, color) & chess.BB_FILES[file]) == 4
            for board, _ in boards(game)
            for color in chess.COLORS
            for file in range(8)
        )


def test_the_queen_staircase_checks_at_every_step() -> None:
    for game in games("queen-staircase"):
        queen_moves = [
            (board, move)
            for board, move in boards(game)
            if move is not None and board.piece_type_at(move.from_square) == chess.QUEEN
        ]
        assert len(queen_moves) >= 5
        for board, move in queen_moves:
            assert board.gives_check(move)
        path = [move.from_square for _, move in queen_moves]
        assert path[:5] == [chess.A2, chess.B2, chess.B3, chess.C3, chess.C4]


def test_smothered_mates_are_smothered() -> None:
    for game in games("smothered-mate"):
        board = game.end().board()
        assert board.is_checkmate()
        (checker,) = board.checkers()
        assert board.piece_type_at(checker) == chess.KNIGHT
        king = board.king(board.turn)
        assert king is not None
        ring = chess.SquareSet(chess.BB_KING_ATTACKS[king])
        assert all(board.color_at(square) == board.turn for square in ring)


def test_the_scidb_double_checks_are_double_and_not_mate() -> None:
    found = 0
    for game in games("scidb-double-check"):
        for board, _ in boards(game):
            if len(board.checkers()) >= 2 and not board.is_checkmate():
                found += 1
    assert found >= 1
