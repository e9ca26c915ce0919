"""``cqllegacy fixtures make|check`` as a user runs them (issue 32, items 2 and 4): the
report on real lines, modern.cql reading the games the triple was made on, and
``check --pgn`` for games that moved."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cqllegacy.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def triples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Triples of two examples made on the corpus games; quadrupled-pawns names its own
    games with :pgn, which are not the ones the triple is made on."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "fixtures" / "games.pgn", "games.pgn")
    scripts = [
        str(ROOT / "examples" / f"{name}.cql") for name in ("quadrupled-pawns", "knight-fork")
    ]
    assert main(["fixtures", "make", *scripts, "--pgn", "games.pgn", "--out", "fx"]) == 0
    return tmp_path / "fx"


def test_modern_cql_reads_the_games_the_triple_was_made_on(
    triples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("quadrupled-pawns", "knight-fork"):
        folder = triples / name
        modern = (folder / "modern.cql").read_text()
        assert "cql(input ../../games.pgn)" in modern, modern
        expected = json.loads((folder / "expected.json").read_text())["matching_games"]
        # As CQL 6 or CQLi run it: the header's input, relative to the script's folder.
        assert (
            main(["run", str(folder / "modern.cql"), "-o", "out.pgn", "--report", "r.jsonl", "-q"])
            == 0
        )
        found = [json.loads(line)["ordinal"] for line in Path("r.jsonl").read_text().splitlines()]
        assert found == expected, name


def test_a_difference_is_reported_on_lines_of_its_own(
    triples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = triples / "knight-fork" / "expected.json"
    data = json.loads(expected.read_text())
    data["matching_games"] = data["matching_games"][1:]
    data["games"] = data["games"][1:]
    expected.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["fixtures", "check", str(triples)]) == 1
    out = capsys.readouterr().out
    assert "\\n" not in out, out
    lines = out.splitlines()
    different = lines.index(f"DIFFERENT: {triples / 'knight-fork'}")
    assert lines[different + 1].startswith("  legacy.cql: ")


def test_check_runs_on_games_that_moved_with_pgn(
    triples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("games.pgn").rename("moved.pgn")
    assert main(["fixtures", "check", str(triples)]) == 2
    assert "if it moved, name it with --pgn" in capsys.readouterr().err
    assert main(["fixtures", "check", str(triples), "--pgn", "moved.pgn"]) == 0
    assert "2 of 2 triples agree" in capsys.readouterr().out
    with Path("moved.pgn").open("a") as games:
        games.write("\n")
    assert main(["fixtures", "check", str(triples), "--pgn", "moved.pgn"]) == 1
    assert "the PGN file changed" in capsys.readouterr().out
