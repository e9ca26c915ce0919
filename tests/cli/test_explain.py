"""``cqllegacy explain``."""

from __future__ import annotations

from pathlib import Path

import pytest

from cqllegacy.cli import main
from tests.present.report_check import read_report

ROOT = Path(__file__).resolve().parents[2]


def test_explain_prints_meaning_transforms_and_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(ROOT / "examples" / "quadrupled-pawns.cql")]) == 0
    out = capsys.readouterr().out
    assert "means: exactly 4 of: a white pawn on one of b2-7" in out
    assert ":shifthorizontal :flipcolor -- 30 transforms in the legacy set, 18 distinct" in out
    assert "compact form flipcolor shifthorizontal" in out


def test_explain_names_the_designator_that_keeps_the_union_explicit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "rook.cql"
    script.write_text("(match (position Rc1 Kg1 :shift))\n")
    assert main(["explain", str(script)]) == 0
    out = capsys.readouterr().out
    assert "explicit union" in out
    assert "Rc1 is on rank 1: legacy up-shifts keep it and smear it up the file" in out


def test_explain_html_draws_each_distinct_transformed_list(tmp_path: Path) -> None:
    script = tmp_path / "pawns.cql"
    script.write_text("(match (position :piececount P[b2-7] 4 :shifthorizontal :flipcolor))\n")
    page = tmp_path / "pawns.html"
    assert main(["explain", str(script), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    reader = read_report(text)
    assert reader.problems == [] and reader.stack == []
    assert text.count('<figure class="member">') == 18
    assert "http" not in text and all(ref.startswith("#") for ref in reader.references)


def test_explain_a_cql6_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "modern.cql"
    script.write_text("cql() flipcolor shift {Nd4 k[b3,b5]}\n")
    assert main(["explain", str(script)]) == 0
    assert "a CQL 6 script" in capsys.readouterr().out


def test_explain_refuses_to_write_over_the_script(tmp_path: Path) -> None:
    script = tmp_path / "q.cql"
    script.write_text("(match (position Qd1))\n")
    assert main(["explain", str(script), "--html", str(script)]) == 2
    assert script.read_text() == "(match (position Qd1))\n"
