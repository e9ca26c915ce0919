"""``cqllegacy check``: validate, print canonically, report every bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cqllegacy.cli import main

FORK = "(match (position :attackcount N [kq] 2 :flipcolor)) ; fork\n"


def write(folder: Path, name: str, content: str | bytes) -> str:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def test_one_valid_script_prints_canonically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["check", write(tmp_path, "fork.cql", FORK)])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert out == "(match\n  (position\n    :attackcount N [kq] 2\n    :flipcolor))\n; fork\n"


def test_quiet_only_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "-q", write(tmp_path, "fork.cql", FORK)])
    assert status == 0
    assert capsys.readouterr() == ("", "")


def test_several_scripts_all_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.cql", "(match (position Ra3))")
    bad = write(tmp_path, "bad.cql", "(match\n (position Xa3))")
    worse = write(tmp_path, "worse.cql", "(match (position :Mate))")
    also_good = write(tmp_path, "also.cql", "(match (position :mate))")
    status = main(["check", good, bad, worse, also_good])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == (
        f";; {good}\n(match\n  (position\n    Ra3))\n"
        f"\n;; {also_good}\n(match\n  (position\n    :mate))\n"
    )
    assert f"{bad}:2:12: error: bad piece letter 'X'" in err
    assert f"{worse}:1:18: error: keywords are lowercase: did you mean :mate?" in err
    assert "    (match (position :Mate))\n                     ^" in err


def test_directory_and_missing_file_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "good.cql", "(match (position Ra3))")
    status = main(["check", "-q", str(tmp_path), str(tmp_path / "nope.cql"), good])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert f"error: cannot read script {tmp_path}: it is a folder" in err
    assert "nope.cql: No such file" in err
    assert "Traceback" not in err


def test_latin1_and_byte_order_mark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latin = write(tmp_path, "latin.cql", "; Réti\n(match (position Ra3))".encode("latin-1"))
    bom = write(tmp_path, "bom.cql", "\ufeff; Réti\n(match (position Ra3))".encode())
    assert main(["check", latin]) == 0
    assert capsys.readouterr().out.startswith("; Réti\n(match")
    assert main(["check", bom]) == 0
    assert capsys.readouterr().out.startswith("; Réti\n(match")


def test_canonical_output_checks_again_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "(match :result 1/2 (position N[c2,d2] ; knight\n :shift :flip))"
    main(["check", write(tmp_path, "a.cql", source)])
    first = capsys.readouterr().out
    main(["check", write(tmp_path, "b.cql", first)])
    assert capsys.readouterr().out == first


def test_modern_script_is_checked_and_printed_canonically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modern = write(tmp_path, "modern.cql", "// CQL 6\ncql(input games.pgn)   flipcolor {mate  btm}")
    assert main(["check", modern]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("// CQL 6\ncql(input games.pgn)")
    assert "flipcolor {" in printed
    # The canonical text is itself valid and a fixed point.
    again = write(tmp_path, "again.cql", printed)
    assert main(["check", again]) == 0
    assert capsys.readouterr().out == printed


def test_modern_syntax_error_points_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modern = write(tmp_path, "bad.cql", "cql(input games.pgn)\nflipcolor {mate btmm}")
    assert main(["check", modern]) == 2
    assert f"{modern}:2:17:" in capsys.readouterr().err


def test_empty_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = write(tmp_path, "empty.cql", "")
    assert main(["check", empty]) == 2
    assert f"{empty}:1:1: error: empty script" in capsys.readouterr().err


# `check` accepts exactly what `run` runs: the reader checks every operand's kind, and
# `check` also compiles the query as `run` does.
KIND_ERRORS = [
    # `flip` takes everything up to `or` as its argument, so `#` would count a comparison.
    ("cql() #flip up 2 right 1 Q == 4\n", 1, 7, "`#` needs a set of squares"),
    ("cql() echo (s t) s\n", 1, 18, "is a position"),
    ("cql()\nA attacks (K == 1)\n", 2, 1, "`attacks` needs a set of squares"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), KIND_ERRORS)
def test_check_and_run_refuse_the_same_scripts_at_the_same_place(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    line: int,
    column: int,
    message: str,
) -> None:
    script = write(tmp_path, "q.cql", text)
    games = write(tmp_path, "g.pgn", "1. e4 e5 *\n")
    assert main(["check", script]) == 2
    checked = capsys.readouterr().err
    assert main(["run", script, "-i", games, "-o", str(tmp_path / "out.pgn"), "-q"]) == 2
    ran = capsys.readouterr().err
    assert f"{script}:{line}:{column}: error: " in checked and message in checked
    assert checked.splitlines()[0] == ran.splitlines()[0]
    assert not (tmp_path / "out.pgn").exists()


def test_the_counted_form_is_checked_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The squares a knight's move from the white queen: eight for a queen in the middle.
    script = write(tmp_path, "q.cql", "cql() #(flip up 2 right 1 Q) == 8\n")
    games = write(tmp_path, "g.pgn", '[FEN "4k3/8/8/3Q4/8/8/8/4K3 w - - 0 1"]\n\n1. Kd1 *\n')
    assert main(["check", script]) == 0
    assert "#(flip up 2 right 1 Q) == 8" in capsys.readouterr().out
    assert main(["run", script, "-i", games, "-o", str(tmp_path / "out.pgn"), "-q"]) == 0
    assert (tmp_path / "out.pgn").read_text().count("{ MATCH }") == 2


# A script with four places where a mistake can stand: (right, wrong) at each.
SLOTS = [(":mate", ":Mate"), ("Rh8", "Ri9"), (":flipcolor", ":flipcolr"), ("Kg1", "Kz1")]
TEMPLATE = "(match\n  (position {0} {1} {2})\n  (position :piececount P 4 :and ((position {3}))))\n"


def _places(tmp_path: Path, capsys: pytest.CaptureFixture[str], wrong: set[int]) -> list[str]:
    words = [pair[i in wrong] for i, pair in enumerate(SLOTS)]
    path = write(tmp_path, "s.cql", TEMPLATE.format(*words))
    assert main(["check", path, "-q"]) == 2
    err = capsys.readouterr().err
    return [line.split(": error:")[0] for line in err.splitlines() if ": error:" in line]


def test_check_reports_each_independent_mistake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each mistake alone is the first (and only) one reported; all together, each is
    # reported at the same place, in the order of the text.
    alone = [_places(tmp_path, capsys, {i}) for i in range(len(SLOTS))]
    assert all(len(places) == 1 for places in alone)
    together = _places(tmp_path, capsys, set(range(len(SLOTS))))
    assert together == [places[0] for places in alone]


def test_check_stops_after_a_parenthesis_mistake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A missing ')' leaves no lists to read on in: one error, not a cascade.
    path = write(tmp_path, "s.cql", "(match (position Qd1 Kg1)\n")
    assert main(["check", path]) == 2
    assert capsys.readouterr().err.count(": error:") == 1


def test_check_help_says_both_languages_and_check_reads_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "either language (legacy CQL 3.x and CQL 6)" in capsys.readouterr().out
    legacy = write(tmp_path, "a.cql", "(match (position Qd1))\n")
    modern = write(tmp_path, "b.cql", "cql() Qd1\n")
    assert main(["check", legacy, modern, "-q"]) == 0


# A count glued to a transform word is no number followed by a transform: CQL needs a
# boundary before a keyword (`3shift` would otherwise read as `3` and `shift {…}`).  The
# legacy language has no such form: a glued `:3shift` is an unknown keyword.
GLUED_TRANSFORMS = [
    ("q.cql", "cql()\n{K 3shift {Ra1}}\n", 2, 4, "unexpected '3shift'"),
    ("q.cql", "cql()\n2flipcolor {K}\n", 2, 1, "unexpected '2flipcolor'"),
    ("q.cql", "cql()\nK\n10rotate90 {Ra1}\n", 3, 1, "unexpected '10rotate90'"),
    ("q.cql", "(match (position :3shift Ka1))\n", 1, 18, "unknown keyword :3shift"),
    ("q.cql", "(match (position :shift3 Ka1))\n", 1, 18, "unknown keyword :shift3"),
]


@pytest.mark.parametrize(("name", "text", "line", "column", "message"), GLUED_TRANSFORMS)
def test_a_count_glued_to_a_transform_keyword_is_refused_at_its_place(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    line: int,
    column: int,
    message: str,
) -> None:
    script = write(tmp_path, name, text)
    assert main(["check", script]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{script}:{line}:{column}: error: {message}"
    # The excerpt shows the line, and the caret stands under the column.
    caret = next(i for i, text_line in enumerate(err) if text_line.strip() == "^")
    assert err[caret - 1].strip() == text.splitlines()[line - 1].strip()
    assert err[caret].index("^") - err[caret - 1].index(err[caret - 1].strip()[0]) == column - 1
