"""Command lines written as CQL and CQLi users write them: options before the script,
long options with one hyphen, a part of the database (``--gamenumber``, ``--limit``).

The part-of-a-database runs are compared with the whole run on the bundled games,
restricted by the test itself to the games asked for (the ``{ Original game: N }``
comment of each written game), with one process and with two.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cqllegacy.api import SAMPLE_GAMES
from cqllegacy.cli import main

ROOT = Path(__file__).resolve().parents[2]
FORK = ROOT / "examples" / "knight-fork.cql"
ORIGINAL = re.compile(r"\{ Original game: (\d+)[ }]")


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copy(FORK, tmp_path / "fork.cql")
    return tmp_path


def games_of(path: Path) -> list[tuple[int, str]]:
    """The games of an output file with their original numbers, each as written."""
    text = path.read_text()
    starts = [m.start() for m in re.finditer(r"^\[Event ", text, re.MULTILINE)]
    pieces = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    numbers = [int(ORIGINAL.search(piece).group(1)) for piece in pieces]  # type: ignore[union-attr]
    return list(zip(numbers, pieces, strict=True))


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, str]]:
    out = tmp_path_factory.mktemp("whole") / "all.pgn"
    assert main(["run", str(FORK), "-i", str(SAMPLE_GAMES), "-o", str(out), "-q", "-j", "1"]) == 0
    games = games_of(out)
    assert len(games) > 6  # enough to cut
    return games


def test_options_before_the_script_as_cql_takes_them(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SAMPLE_GAMES, "a.pgn.bz2")
    shutil.copy(SAMPLE_GAMES, "b.pgn.bz2")
    status = main(["run", "-i", "a.pgn.bz2", "-i", "b.pgn.bz2", "-o", "out.pgn", "-q", "fork.cql"])
    assert status == 0
    first = games_of(workdir / "out.pgn")
    assert main(["run", "fork.cql", "-i", "a.pgn.bz2", "b.pgn.bz2", "-o", "two.pgn", "-q"]) == 0
    assert (workdir / "two.pgn").read_text() == (workdir / "out.pgn").read_text()
    assert len(first) == 26  # 13 forks in each of the two copies
    assert "(a.pgn.bz2, game" in first[0][1] and "(b.pgn.bz2, game" in first[-1][1]


@pytest.mark.parametrize(
    "words",
    [
        ["-input", "g.pgn.bz2", "-output", "o.pgn", "fork.cql"],
        ["fork.cql", "-input", "g.pgn.bz2", "-output", "o.pgn"],
        ["-Input", "g.pgn.bz2", "fork.cql", "-OUTPUT=o.pgn"],
        ["-i", "g.pgn.bz2", "fork.cql", "--output", "o.pgn"],
    ],
)
def test_single_hyphen_long_options(workdir: Path, words: list[str]) -> None:
    shutil.copy(SAMPLE_GAMES, "g.pgn.bz2")
    assert main(["run", *words, "-quiet"]) == 0
    assert len(games_of(workdir / "o.pgn")) == 13


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["fork.cql", "-inptu", "g.pgn"], "unrecognized option -inptu: did you mean --input?"),
        (["fork.cql", "-ouptut", "o.pgn"], "did you mean --output?"),
        (["fork.cql", "-matchcount", "2", "5"], "CQL's -matchcount has no cqllegacy option"),
        (["fork.cql", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["-i", "g.pgn"], "the following arguments are required: SCRIPT"),
        (["-i", "a.pgn", "b.pgn"], "the following arguments are required: SCRIPT"),
        (["--gamenumber", "fork.cql"], "--gamenumber takes one or two game numbers"),
        (["--gamenumber", "9", "3", "fork.cql"], "expected 1 <= A <= B"),
    ],
)
def test_bad_command_lines_under_the_sub_command_usage(
    workdir: Path, capsys: pytest.CaptureFixture[str], words: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["run", *words])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("usage: cqllegacy run ")
    assert "cqllegacy run: error:" in err


def test_a_script_name_without_a_command_says_what_to_type(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fork.cql"]) == 2
    err = capsys.readouterr().err
    assert "'fork.cql' is not a command" in err
    assert "cqllegacy run fork.cql" in err
    assert not list(workdir.glob("*.pgn"))


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("spelling", [["--gamenumber", "40", "300"], ["-gamenumber", "40", "300"]])
def test_gamenumber_is_the_whole_run_restricted_to_those_games(
    workdir: Path, whole_run: list[tuple[int, str]], jobs: str, spelling: list[str]
) -> None:
    words = ["run", *spelling, "fork.cql", "-i", str(SAMPLE_GAMES), "-o", "part.pgn", "-q"]
    assert main([*words, "--jobs", jobs]) == 0
    expected = [game for game in whole_run if 40 <= game[0] <= 300]
    assert games_of(workdir / "part.pgn") == expected
    assert 0 < len(expected) < len(whole_run)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_one_game_number(workdir: Path, whole_run: list[tuple[int, str]], jobs: str) -> None:
    number = whole_run[2][0]
    words = ["run", "-g", str(number), "fork.cql", "-i", str(SAMPLE_GAMES), "-o", "one.pgn"]
    assert main([*words, "-q", "--jobs", jobs]) == 0
    assert games_of(workdir / "one.pgn") == [whole_run[2]]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_limit_is_the_first_matching_games_of_the_whole_run(
    workdir: Path,
    whole_run: list[tuple[int, str]],
    capsys: pytest.CaptureFixture[str],
    jobs: str,
) -> None:
    words = ["run", "fork.cql", "-i", str(SAMPLE_GAMES), "-o", "few.pgn", "--limit", "5"]
    assert main([*words, "--jobs", jobs]) == 0
    assert games_of(workdir / "few.pgn") == whole_run[:5]
    err = capsys.readouterr().err
    # The games read are those up to the fifth match.
    assert f"read {whole_run[4][0]} games: 5 matched" in err
    assert "stopped at the limit of 5 matching game(s)" in err


def test_gamenumber_stops_reading_after_the_last_game(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "-g", "1", "20", "fork.cql", "-i", str(SAMPLE_GAMES), "-o", "o.pgn"]) == 0
    assert "read 20 games, examined 20 (games 1-20):" in capsys.readouterr().err


def test_gamenumber_within_the_scripts_own_range(workdir: Path) -> None:
    Path("few.cql").write_text(FORK.read_text().replace("(match", "(match :gamenumber 1 100", 1))
    words = ["run", "few.cql", "-i", str(SAMPLE_GAMES), "-q", "-j", "1"]
    assert main([*words, "-o", "own.pgn"]) == 0
    assert main([*words, "-o", "both.pgn", "-g", "50", "600"]) == 0
    own = games_of(workdir / "own.pgn")
    assert games_of(workdir / "both.pgn") == [game for game in own if game[0] >= 50]
    assert all(number <= 100 for number, _ in own)


def test_a_cql_command_line_without_a_command_says_what_to_type(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-input", "g.pgn", "fork.cql"]) == 2
    assert "cqllegacy run -input g.pgn fork.cql" in capsys.readouterr().err


def test_cql_spellings_of_the_same_options(workdir: Path) -> None:
    """CQLi's -threads is --jobs, -help is --help."""
    words = ["run", "fork.cql", "-i", str(SAMPLE_GAMES), "-g", "1", "60", "-q"]
    assert main([*words, "-o", "a.pgn", "-threads", "2"]) == 0
    assert main([*words, "-o", "b.pgn", "--jobs", "2"]) == 0
    assert (workdir / "a.pgn").read_text() == (workdir / "b.pgn").read_text()
    with pytest.raises(SystemExit) as caught:
        main(["run", "-help"])
    assert caught.value.code == 0


def test_other_commands_take_single_hyphen_options_too(workdir: Path) -> None:
    assert main(["translate", "fork.cql", "-output", "new.cql"]) == 0
    assert (workdir / "new.cql").read_text().startswith("// Knight fork")
