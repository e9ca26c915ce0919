"""What a user meets on the command line with the mistakes people make (issue 32):
each is a clear message and a documented status, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cqllegacy.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GAMES = ROOT / "fixtures" / "games.pgn"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "knight-fork.cql", tmp_path / "kf.cql")
    shutil.copy(GAMES, tmp_path / "games.pgn")
    return tmp_path


def no_traceback(err: str) -> None:
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err


@pytest.mark.parametrize("number", ["\u00b2", "\u00b9", "\u2460", "5\u00b2"])
def test_a_game_number_int_cannot_read_is_a_usage_error(
    here: Path, capsys: pytest.CaptureFixture[str], number: str
) -> None:
    # str.isdigit accepts superscripts and circled digits; int() refuses them.
    with pytest.raises(SystemExit) as stop:
        main(["run", "kf.cql", "-i", "games.pgn", "--gamenumber", number])
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    no_traceback(err)
    assert "--gamenumber" in err


def test_a_limit_in_the_environment_int_cannot_read_is_ignored(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CQLLEGACY_MAX_LINE_BYTES", "\u00b2")
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", "-q"]) == 0
    no_traceback(capsys.readouterr().err)
