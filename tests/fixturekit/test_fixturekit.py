"""``cqllegacy fixtures make|check`` on temporary folders, and the expected.json format."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.cli import main
from cqllegacy.errors import UsageError
from cqllegacy.fixturekit import (
    GameResult,
    ListResult,
    PgnRecord,
    Results,
    compare_modern,
    compare_results,
    expected_json,
    parse_expected,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_GAMES = ROOT / "fixtures" / "games.pgn"

MATES = ";; checkmates\n(match (position :mate))\n"
CHECKS = "(match (position :check :markall))\n"
# The whole board shifted (no :pattern) has no exact CQL 6.1 form.
RELATION = "(match (position :relation (:shift :missingpiececount A 1)))\n"


def first_games(count: int) -> str:
    """The first ``count`` games of the fixture file, as PGN text."""
    out = []
    with open(FIXTURE_GAMES, encoding="utf-8") as handle:
        for _ in range(count):
            game = chess.pgn.read_game(handle)
            assert game is not None
            out.append(str(game))
    return "\n\n".join(out) + "\n"


def mated_games(pgn: str) -> list[int]:
    """Ordinals of games with a checkmate on the main line, by python-chess alone."""
    found, handle = [], io.StringIO(pgn)
    ordinal = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        ordinal += 1
        if any(node.board().is_checkmate() for node in [game, *game.mainline()]):
            found.append(ordinal)
    return found


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "games.pgn").write_text(first_games(12), encoding="utf-8")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "mates.cql").write_text(MATES, encoding="utf-8")
    (scripts / "checks.cql").write_text(CHECKS, encoding="utf-8")
    return tmp_path


def make(workspace: Path, *names: str) -> int:
    scripts = [str(workspace / "scripts" / name) for name in names]
    return main(
        [
            "fixtures",
            "make",
            *scripts,
            "--pgn",
            str(workspace / "games.pgn"),
            "--out",
            str(workspace / "out"),
        ]
    )


def expected(folder: Path) -> dict:
    return json.loads((folder / "expected.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------
# make
# --------------------------------------------------------------------------------------


def test_make_writes_a_triple_per_script(workspace: Path) -> None:
    assert make(workspace, "mates.cql", "checks.cql") == 0
    out = workspace / "out"
    assert sorted(p.name for p in out.iterdir()) == ["checks", "mates"]
    mates = out / "mates"
    assert sorted(p.name for p in mates.iterdir()) == ["expected.json", "legacy.cql", "modern.cql"]
    assert (mates / "legacy.cql").read_text(encoding="utf-8") == MATES
    from chessql.core import parser

    parser.parse((mates / "modern.cql").read_text(encoding="utf-8"))


def test_expected_json_records_games_and_pgn(workspace: Path) -> None:
    make(workspace, "mates.cql")
    data = expected(workspace / "out" / "mates")
    pgn_text = (workspace / "games.pgn").read_text(encoding="utf-8")
    assert data["matching_games"] == mated_games(pgn_text)
    assert data["pgn"]["path"] == "../../games.pgn"
    assert data["pgn"]["games"] == 12
    import hashlib

    assert (
        data["pgn"]["sha256"] == hashlib.sha256((workspace / "games.pgn").read_bytes()).hexdigest()
    )
    # One list; by default it marks its first match only (L3): a mate ends the line.
    for game in data["games"]:
        [only] = game["lists"]
        assert only["marked"] == only["matched"][:1]


def test_make_records_a_refusal(workspace: Path) -> None:
    (workspace / "scripts" / "later.cql").write_text(RELATION, encoding="utf-8")
    assert make(workspace, "later.cql", "mates.cql") == 1
    later = workspace / "out" / "later"
    assert sorted(p.name for p in later.iterdir()) == ["expected.json", "legacy.cql", "refused.txt"]
    refusal = (later / "refused.txt").read_text(encoding="utf-8")
    assert refusal.startswith("legacy.cql:1:18: error:") and ":relation" in refusal
    assert expected(later)["translation"] == "refused.txt"


def test_make_with_a_bad_script_writes_nothing(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / "scripts" / "typo.cql").write_text("(match (position :mat))\n", encoding="utf-8")
    assert make(workspace, "mates.cql", "typo.cql") == 2
    assert "typo.cql:1:18" in capsys.readouterr().err
    assert not (workspace / "out").exists()


def test_make_refuses_two_scripts_with_one_name(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = workspace / "scripts" / "again"
    other.mkdir()
    (other / "mates.cql").write_text(MATES, encoding="utf-8")
    assert make(workspace, "mates.cql", "again/mates.cql") == 2
    assert "would both be written" in capsys.readouterr().err
    assert not (workspace / "out").exists()


def test_make_needs_an_existing_pgn(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "games.pgn").unlink()
    assert make(workspace, "mates.cql") == 2
    assert "does not exist" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------


def check(path: Path) -> int:
    return main(["fixtures", "check", str(path)])


def test_check_agrees_right_after_make(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make(workspace, "mates.cql", "checks.cql")
    capsys.readouterr()
    assert check(workspace / "out") == 0
    assert "2 of 2 triples agree" in capsys.readouterr().out
    assert check(workspace / "out" / "mates") == 0  # one triple on its own


def test_check_still_agrees_after_moving_everything(workspace: Path) -> None:
    make(workspace, "mates.cql")
    moved = workspace.parent / (workspace.name + "-moved")
    shutil.copytree(workspace, moved)
    assert check(moved / "out") == 0


def test_check_reports_a_changed_expectation(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(workspace, "mates.cql")
    path = workspace / "out" / "mates" / "expected.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    dropped = data["matching_games"].pop(0)
    data["games"].pop(0)
    path.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert check(workspace / "out") == 1
    output = capsys.readouterr().out
    assert "DIFFERENT" in output
    assert f"legacy.cql: games selected in addition: {dropped}" in output
    assert f"modern.cql: games selected in addition: {dropped}" in output


def test_check_reports_an_edited_modern_script(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(workspace, "mates.cql")
    modern = workspace / "out" / "mates" / "modern.cql"
    modern.write_text(modern.read_text(encoding="utf-8").replace("mate", "stalemate"), "utf-8")
    capsys.readouterr()
    assert check(workspace / "out") == 1
    output = capsys.readouterr().out
    assert "modern.cql: games no longer selected" in output
    assert "legacy.cql:" not in output


def test_check_reports_a_modern_script_that_no_longer_reads(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(workspace, "mates.cql")
    (workspace / "out" / "mates" / "modern.cql").write_text("cql( mate\n", encoding="utf-8")
    capsys.readouterr()
    assert check(workspace / "out") == 1
    assert "modern.cql: cannot be read any more" in capsys.readouterr().out


def test_check_says_when_the_pgn_changed(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(workspace, "mates.cql")
    with open(workspace / "games.pgn", "a", encoding="utf-8") as pgn:
        pgn.write('\n[Event "extra"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')
    capsys.readouterr()
    assert check(workspace / "out") == 1
    output = capsys.readouterr().out
    assert "the PGN file changed" in output
    assert "games selected in addition: 13" in output


def test_check_without_the_pgn_exits_2(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make(workspace, "mates.cql")
    (workspace / "games.pgn").unlink()
    assert check(workspace / "out") == 2
    assert "does not exist" in capsys.readouterr().err


def test_check_of_a_folder_without_triples_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check(tmp_path) == 2
    assert "no fixture triple" in capsys.readouterr().err


def test_check_of_a_damaged_expected_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "expected.json").write_text('{"format": "something else"}', encoding="utf-8")
    (tmp_path / "legacy.cql").write_text(MATES, encoding="utf-8")
    assert check(tmp_path) == 2
    assert "not a valid fixture file" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# The expected.json format and comparisons
# --------------------------------------------------------------------------------------

keys = st.one_of(
    st.integers(min_value=0, max_value=400),
    # The report's spelling: a step off the main line, then main continuations.
    st.builds(
        lambda ply, index, more: f"{ply}.{index}" + (f"/{ply + more}" if more else ""),
        st.integers(1, 400),
        st.integers(1, 3),
        st.integers(0, 40),
    ),
)
list_results = st.builds(
    ListResult,
    st.lists(keys, max_size=6).map(tuple),
    st.lists(keys, max_size=3).map(tuple),
)
results = st.lists(
    st.tuples(st.integers(1, 10_000), st.lists(list_results, min_size=1, max_size=3)),
    max_size=5,
    unique_by=lambda pair: pair[0],
).map(lambda games: Results(tuple(GameResult(o, tuple(ls)) for o, ls in sorted(games))))


@settings(max_examples=60, deadline=None)
@given(results)
def test_expected_json_round_trips(found: Results) -> None:
    record = PgnRecord("../games.pgn", "0" * 64, 7)
    parsed = parse_expected(expected_json(found, record, "modern.cql"))
    assert (parsed.results, parsed.pgn, parsed.translation) == (found, record, "modern.cql")


def test_parse_expected_rejects_inconsistent_games() -> None:
    text = expected_json(Results(), PgnRecord("g.pgn", "x", 1), "modern.cql")
    broken = text.replace('"matching_games": []', '"matching_games": [3]')
    with pytest.raises(UsageError, match="does not agree"):
        parse_expected(broken)


def game(ordinal: int, *lists: tuple[tuple, tuple]) -> GameResult:
    return GameResult(ordinal, tuple(ListResult(m, k) for m, k in lists))


def test_compare_results_names_each_difference() -> None:
    want = Results((game(1, ((0, 4), (0,))), game(3, ((2,), (2,)))))
    got = Results((game(1, ((0, 5), (0, 5))), game(4, ((2,), (2,)))))
    assert compare_results(want, got, "legacy.cql") == [
        "legacy.cql: games no longer selected: 3",
        "legacy.cql: games selected in addition: 4",
        "legacy.cql: game 1, list 1: matched positions differ: expected [0, 4], got [0, 5]",
        "legacy.cql: game 1, list 1: marked positions differ: expected [0], got [0, 5]",
    ]


def test_compare_modern_holds_the_translation_to_marks_and_lists() -> None:
    # Run by cqllegacy, the pragmas keep the legacy marking and the lists apart.
    legacy = Results((game(2, ((3, 5), (3,))),))
    assert compare_modern(legacy, legacy) == []
    modern_marks_all = Results((game(2, ((3, 5), (3, 5))),))
    assert compare_modern(legacy, modern_marks_all) == [
        "modern.cql: game 2, list 1: marked positions differ: expected [3], got [3, 5]"
    ]
    two_lists = Results((game(2, ((3,), (3,)), ((7,), (7,))),))
    one_list_at_start = Results((game(2, ((0,), (0,))),))
    assert compare_modern(two_lists, one_list_at_start) == [
        "modern.cql: game 2: 1 top-level lists instead of 2"
    ]
    assert compare_modern(two_lists, Results()) == ["modern.cql: games no longer selected: 2"]


def test_a_position_has_one_spelling_in_fixtures_and_reports() -> None:
    import io

    import chess.pgn

    from cqllegacy import fixturekit
    from cqllegacy.runner import report

    game = chess.pgn.read_game(io.StringIO("1. e4 e5 (1... c5 2. Nf3 (2. c3) 2... d6) 2. Nf3 *"))
    assert game is not None
    nodes = [game, game.end(), game.next().variation(1)]
    nodes += [nodes[2].next(), nodes[2].variation(1), nodes[2].end()]
    for node in nodes:
        assert fixturekit.position_key(node) == report.position_key(node)
    assert [report.position_key(n) for n in nodes[2:]] == ["2.1", "2.1/3", "2.1/3.1", "2.1/4"]


def test_keys_of_the_former_fixture_spelling_are_read_in_the_report_spelling() -> None:
    from cqllegacy.fixturekit import read_position_key

    assert read_position_key("2@2.1") == "2.1"
    assert read_position_key("3@2.1") == "2.1/3"
    assert read_position_key("3@2.1,3.1") == "2.1/3.1"
    assert read_position_key("7@5.1") == "5.1/7"
    assert read_position_key("5.1/7") == "5.1/7"
    assert read_position_key(12) == 12
