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


# --------------------------------------------------------------------------------------
# A script too large to read in reasonable time (item 15)
# --------------------------------------------------------------------------------------

_SQUARES = [f"{f}{r}" for f in "abcdefgh" for r in "2345678"]
#: 1.25 million designators: 5 MB, valid in either language.
_DESIGNATORS = " ".join(f"P{_SQUARES[i % len(_SQUARES)]}" for i in range(1_250_000))


_LEGACY = f"(match (position {_DESIGNATORS}))\n"
_MODERN = f"cql() {_DESIGNATORS}\n"


@pytest.mark.parametrize(
    ("command", "text"),
    [
        *[
            pytest.param(c, _LEGACY, id=f"{c}-legacy")
            for c in ("run", "check", "translate", "explain")
        ],
        # (translate takes legacy scripts only)
        *[pytest.param(c, _MODERN, id=f"{c}-CQL 6") for c in ("run", "check", "explain")],
    ],
)
def test_a_script_over_the_word_limit_is_refused_at_the_first_word_past_it(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    command: str, text: str,
) -> None:  # fmt: skip
    import cqllegacy.legacy.grammar as legacy_grammar
    import cqllegacy.modern.grammar as modern_grammar

    def never(*args: object) -> None:
        raise AssertionError("the script was read")

    # The bound on work: neither reader parses a script over the limit.
    monkeypatch.setattr(legacy_grammar, "_Source", never)
    monkeypatch.setattr(modern_grammar, "Parser", never)
    Path("huge.cql").write_text(text)
    words = ["-i", "games.pgn", "-o", "out.pgn"] if command == "run" else []
    assert main([command, "huge.cql", *words]) == 2
    err = capsys.readouterr().err
    no_traceback(err)
    assert err.startswith("huge.cql:1:") and "more than 50,000 words in the script" in err
    assert "CQLLEGACY_MAX_SCRIPT_WORDS" in err


def test_comments_do_not_count_as_words_and_the_limit_can_be_changed(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CQLLEGACY_MAX_SCRIPT_WORDS", "4")
    comment = "; " + "many words in a comment " * 1000 + "\n"
    Path("small.cql").write_text(f"{comment}(match (position Nd4 ; more words\n kc6))\n")
    assert main(["check", "small.cql", "-q"]) == 0
    Path("over.cql").write_text("(match (position Nd4 kc6 qe6))\n")
    assert main(["check", "over.cql"]) == 2
    err = capsys.readouterr().err
    assert "over.cql:1:26: error: more than 4 words in the script, the limit" in err


# --------------------------------------------------------------------------------------
# explain of a script translate refuses (item 6)
# --------------------------------------------------------------------------------------


def test_explain_says_when_translate_refuses_the_script(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("old.cql").write_text(
        "(match (position :check :relation (:shift :missingpiececount A 1)))\n"
    )
    assert main(["explain", "old.cql"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("list 1 (line 1:8)")
    assert captured.err.startswith("old.cql:1:25: error: :relation has no exact CQL 6.1 form")
    assert "translate refuses this script; run runs it" in captured.err
    assert main(["explain", "kf.cql"]) == 0
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------------------
# The script given with -i, and -i - (item 7)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "-i", "kf.cql", "games.pgn", "-o", "out.pgn", "-q"],
        ["run", "-i", "games.pgn", "kf.cql", "-o", "out.pgn", "-q"],
        ["run", "-input", "kf.cql", "games.pgn", "-output", "out.pgn", "-q"],
    ],
    ids=["script-first", "script-last", "cql-style"],
)
def test_a_script_among_the_inputs_of_i_is_the_script(
    here: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv) == 0, capsys.readouterr().err
    assert Path("out.pgn").read_text().count("{ Original game:") == 11


def test_i_dash_reads_the_games_from_standard_input(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    games = Path("games.pgn").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(games)))
    assert main(["run", "kf.cql", "-i", "-", "-o", "out.pgn", "--report", "r.jsonl"]) == 0
    err = capsys.readouterr().err
    assert "read 135 games: 11 matched" in err, err
    assert Path("out.pgn").read_text().count("{ Original game:") == 11
    assert '"file": "<stdin>"' in Path("r.jsonl").read_text()
    assert main(["run", "kf.cql", "-i", "-", "-i", "-"]) == 2
    assert "standard input" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# Summaries and notes (item 8)
# --------------------------------------------------------------------------------------


def _run_err(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", *argv]) == 0
    return capsys.readouterr().err


def test_the_summary_says_how_many_games_of_a_range_were_examined(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "read 5 games, examined 1 (game 5): " in _run_err(capsys, "-g", "5")
    assert "read 9 games, examined 3 (games 7-9): 2 matched" in _run_err(capsys, "-g", "7", "9")


def test_a_range_past_the_end_says_so(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _run_err(capsys, "-g", "500", "600")
    assert "note: the input holds 135 games: none is numbered 500 or more" in err


def test_why_outside_the_command_lines_range_names_it(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", "--why", "5", "-g", "10", "20"])
        == 0
    )
    out = capsys.readouterr().out
    assert "it is outside --gamenumber 10 20" in out and "script's" not in out


def test_why_past_the_end_does_not_read_the_input_again(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cqllegacy.api as api

    def never(*args: object) -> None:
        raise AssertionError("the input was read again")

    monkeypatch.setattr(api, "find_game", never)
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", "--why", "9999"]) == 0
    assert "game 9999 is not in the input (it holds 135 games)" in capsys.readouterr().out


def test_an_empty_input_says_it_holds_no_game(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("empty.pgn").write_bytes(b"")
    assert main(["run", "kf.cql", "-i", "empty.pgn", "-o", "out.pgn"]) == 0
    assert "note: the input holds no game" in capsys.readouterr().err


def test_the_summary_says_when_the_index_was_used(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cqllegacy.indexing import scan as indexed_scan

    monkeypatch.setattr(indexed_scan, "INDEX_COST", 0.0)  # a small file: the index pays
    assert main(["index", "games.pgn", "-q"]) == 0
    assert "; used the index; wrote out.pgn" in _run_err(capsys)
    assert "used the index" not in _run_err(capsys, "--no-index")


def test_an_interrupt_names_the_files_it_left_alone_and_those_it_did_not_write(
    here: Path,
) -> None:
    from cqllegacy.runner.output import Replacement

    Path("old.pgn").write_text("previous\n")
    with (
        pytest.raises(KeyboardInterrupt) as stop,
        Replacement() as replacement,
        replacement.open("old.pgn"),
        replacement.open("new.jsonl"),
    ):
        raise KeyboardInterrupt
    assert stop.value.__notes__ == ["old.pgn left as it was", "new.jsonl not written"]
    assert not Path("new.jsonl").exists()


# --------------------------------------------------------------------------------------
# Beyond the list
# --------------------------------------------------------------------------------------


def test_translate_o_with_a_trailing_slash_writes_into_that_folder(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "-o new/" wrote a file named "new".
    assert main(["translate", "kf.cql", "-o", "new/"]) == 0
    assert Path("new").is_dir() and "flipcolor shift" in Path("new/kf.cql").read_text()


def test_a_folder_given_as_the_script_says_how_to_name_its_scripts(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("scripts").mkdir()
    assert main(["check", "scripts"]) == 2
    err = capsys.readouterr().err
    assert "it is a folder (name the scripts in it, e.g. scripts/*.cql" in err
