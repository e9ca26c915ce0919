"""``cqllegacy translate``: outputs, refusals, exit statuses, never over an input."""

from __future__ import annotations

from pathlib import Path

import pytest
from chessql.core import parser

from cqllegacy.cli import main

FORK = "; knight fork\n(match (position Nd4 kf3 :shift :flip :flipcolor :markall))\n"
# CQL 6.1 does not document how lowercase treats letters beyond ASCII (L10).
MIXED = "(match\n :player Müller (position))\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_translation_goes_to_standard_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write(tmp_path, "fork.cql", FORK)
    assert main(["translate", str(script)]) == 0
    out = capsys.readouterr().out
    assert "flipcolor flip shift {Nd4 kf3}" in out and "// knight fork" in out
    parser.parse(out)


def test_output_file_and_folder(tmp_path: Path) -> None:
    fork = write(tmp_path, "fork.cql", FORK)
    mate = write(tmp_path, "mate.cql", "(match (position :mate :btm))")
    target = tmp_path / "new.cql"
    assert main(["translate", str(fork), "-o", str(target)]) == 0
    assert "flipcolor flip shift" in target.read_text(encoding="utf-8")
    folder = tmp_path / "out"
    assert main(["translate", str(fork), str(mate), "-o", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["fork.cql", "mate.cql"]
    assert "btm" in (folder / "mate.cql").read_text(encoding="utf-8")


def test_refusal_exits_1_with_the_construct_and_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write(tmp_path, "mixed.cql", MIXED)
    target = tmp_path / "mixed6.cql"
    assert main(["translate", str(script), "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert f"{script}:2:2:" in err and ":player" in err
    assert not target.exists()


def test_approximate_writes_the_nearest_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "src").mkdir()
    script = write(tmp_path / "src", "mixed.cql", MIXED)
    # Approximated is not translated: 1, as migrate --approximate says for the same script.
    assert main(["translate", "--approximate", str(script)]) == 1
    out, err = capsys.readouterr()
    assert "// approximate:" in out
    assert f"{script}: approximated, no exact CQL 6.1 form (output line " in err
    assert main(["migrate", str(script.parent), str(tmp_path / "out"), "--approximate"]) == 1


def test_approximate_exits_0_when_nothing_was_approximated(tmp_path: Path) -> None:
    script = write(tmp_path, "exact.cql", "(match (position Qd1 :flipcolor))")
    assert main(["translate", "--approximate", str(script), "-o", str(tmp_path / "t.cql")]) == 0


def test_a_list_approximated_by_true_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write(
        tmp_path, "old.cql", "(match (position :relation (:shift :missingpiececount A 1)))"
    )
    assert main(["translate", "--approximate", str(script)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "true"
    assert f"{script}: list 1 (line 1:8) is approximated by true: it holds at every position" in err


def test_syntax_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = write(tmp_path, "bad.cql", "(match (position Ri9))")
    assert main(["translate", str(script)]) == 2
    assert f"{script}:1:" in capsys.readouterr().err


def test_every_script_is_tried_and_the_worst_status_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad.cql", "(match (position Ri9))")
    mixed = write(tmp_path, "mixed.cql", MIXED)
    fork = write(tmp_path, "fork.cql", FORK)
    assert main(["translate", str(mixed), str(fork), str(bad)]) == 2
    captured = capsys.readouterr()
    assert f"// {fork}" in captured.out and "flipcolor flip shift" in captured.out
    assert "mixed.cql:2:2" in captured.err and "bad.cql" in captured.err


def test_never_writes_over_an_input(tmp_path: Path) -> None:
    script = write(tmp_path, "fork.cql", FORK)
    assert main(["translate", str(script), "-o", str(script)]) == 2
    assert script.read_text(encoding="utf-8") == FORK
    # Several scripts into their own folder would overwrite them too.
    other = write(tmp_path, "mate.cql", "(match (position :mate))")
    assert main(["translate", str(script), str(other), "-o", str(tmp_path)]) == 2
    assert script.read_text(encoding="utf-8") == FORK
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fork.cql", "mate.cql"]


def test_a_modern_script_or_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modern = write(tmp_path, "new.cql", "cql() mate")
    assert main(["translate", str(modern)]) == 2
    assert main(["translate", str(tmp_path / "missing.cql")]) == 2
    err = capsys.readouterr().err
    assert "already a CQL 6 script" in err and "missing.cql" in err


def test_no_temporary_files_are_left(tmp_path: Path) -> None:
    script = write(tmp_path, "fork.cql", FORK)
    folder = tmp_path / "out"
    assert main(["translate", str(script), "-o", str(folder / "fork6.cql")]) == 0
    assert [p.name for p in folder.iterdir()] == ["fork6.cql"]
