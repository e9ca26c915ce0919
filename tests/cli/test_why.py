"""``cqllegacy run … --why N``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cqllegacy.api import SAMPLE_GAMES
from cqllegacy.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_why_names_lists_positions_and_the_transformed_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.jsonl"
    args = ["run", str(ROOT / "examples" / "knight-fork.cql"), "-i", str(SAMPLE_GAMES),
            "-o", str(tmp_path / "o.pgn"), "--report", str(report)]  # fmt: skip
    assert main([*args, "-q"]) == 0
    first = json.loads(report.read_text(encoding="utf-8").splitlines()[1])
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
    assert main(["run", str(script), "-i", str(ROOT / "fixtures" / "games.pgn"),
                 "-o", str(tmp_path / "o.pgn"), "--why", "3", "-q"]) == 0  # fmt: skip
    assert "game 3 did not match" in capsys.readouterr().out
