"""``cqllegacy run … --why N``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess
import chess.pgn
import pytest

from cqllegacy.cli import main

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "fixtures" / "games.pgn"


def test_why_names_lists_positions_and_the_transformed_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.jsonl"
    args = ["run", str(ROOT / "examples" / "knight-fork.cql"), "-i", str(GAMES),
            "-o", str(tmp_path / "o.pgn"), "--report", str(report)]  # fmt: skip
    assert main([*args, "-q"]) == 0
    first = json.loads(report.read_text(encoding="utf-8").splitlines()[0])
    capsys.readouterr()
    assert main([*args, "--why", str(first["ordinal"])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"game {first['ordinal']}: {first['white']} - {first['black']}")
    ply = first["lists"][0]["plies"][0]
    assert out[1] == f"list 1: matched at 1 position(s), marked {ply}"
    member = out[2].removeprefix(f"  position {ply}: ").split()
    # A knight, a king and a queen of the other colour: the pattern as transformed.
    assert [m[0].lower() for m in member] == ["n", "k", "q"]
    assert member[0][0].isupper() != member[1][0].isupper()


def test_why_for_a_game_that_did_not_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "q.cql"
    script.write_text("(match (position Ka1 Ka2))\n")
    assert main(["run", str(script), "-i", str(GAMES),
                 "-o", str(tmp_path / "o.pgn"), "--why", "3", "-q"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "game 3: " in out and "did not match" in out


GAME = """[White "w"]
[Black "b"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""


def _why(tmp_path: Path, script: str, ordinal: int, capsys: pytest.CaptureFixture[str]) -> str:
    (tmp_path / "g.pgn").write_text(GAME, encoding="utf-8")
    (tmp_path / "q.cql").write_text(script, encoding="utf-8")
    assert main(["run", str(tmp_path / "q.cql"), "-i", str(tmp_path / "g.pgn"),
                 "-o", str(tmp_path / "o.pgn"), "--why", str(ordinal), "-q"]) == 0  # fmt: skip
    return capsys.readouterr().out


def test_why_says_where_a_list_came_closest_and_what_failed_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _why(tmp_path, "(match (position Qh5 nc6 Bc4 nf6 :check))", 1, capsys)
    lines = out.splitlines()
    assert lines[0] == "game 1: w - b (" + str(tmp_path / "g.pgn") + "): did not match"
    # python-chess: after 3... Nf6 (ply 6) the four pieces stand there and no king is in
    # check; no position has all five.
    game = chess.pgn.read_game(io.StringIO(GAME))
    assert game is not None
    boards = [node.board() for node in game.mainline()]
    wanted = {chess.H5: "Q", chess.C6: "n", chess.C4: "B", chess.F6: "n"}
    board = boards[5]
    assert all(str(board.piece_at(sq)) == p for sq, p in wanted.items()) and not board.is_check()
    assert lines[1] == (
        "list 1: matched at no position; closest at position 6 (after 3... Nf6), "
        "where 4 of its 5 parts held"
    )
    assert lines[2:] == ["  failed there: check"]


def test_why_names_the_transformed_list_that_came_closest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The queen on h5 next to the king's pawn: shifted, Qh5 pe5 is Qd1 pa5 … ; the game
    # has a queen on h5 and a pawn on e5 after 2. Qh5, but no knight on f7 there.
    out = _why(tmp_path, "(match (position Qh5 pe5 Nf7 :shift))", 1, capsys)
    lines = out.splitlines()
    assert lines[1].startswith(
        "list 1: matched at no position; closest at position 3 (after 2. Qh5)"
    )
    assert lines[1].endswith("where 2 of its 3 parts held")
    assert lines[2] == "  as the transformed list Qh5 pe5 Nf7"
    assert lines[3] == "  failed there: Nf7"


def test_why_for_a_game_not_in_the_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _why(tmp_path, "(match (position Qh5))", 2, capsys).strip() == (
        "game 2 is not in the input (it holds 1 game)"
    )
