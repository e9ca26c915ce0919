"""``cqllegacy explain``."""

from __future__ import annotations

import re
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
    # 18 distinct legacy lists; the 2 whose file was pushed off the board ask for 4 pawns
    # on no square and are not drawn: 16, the CQL 6 orbit (8 files, 2 colours).
    assert text.count('<figure class="member">') == 16
    assert "2 of the transformed lists can never match: not drawn." in text
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


def test_explain_html_draws_no_board_without_information(tmp_path: Path) -> None:
    page = tmp_path / "mirror.html"
    assert main(["explain", str(ROOT / "examples" / "mirror-mate.cql"), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    # Attack counts on "anywhere" designators: nothing to draw on particular squares.
    assert '<figure class="member">' not in text
    assert "No diagram: the list names no piece on particular squares." in text


def test_explain_html_marks_each_piece_type_and_draws_coordinates(tmp_path: Path) -> None:
    page = tmp_path / "fork.html"
    assert main(["explain", str(ROOT / "examples" / "knight-fork.cql"), "--html", str(page)]) == 0
    first = page.read_text(encoding="utf-8").split('<figure class="member">')[1]
    first = first.split("</figure>")[0]
    # Nd4 stands on d4; the king and the queen are faded marks, both on each of 8 squares.
    assert first.count('href="#white-knight"') == 1
    assert first.count('href="#black-king" transform') == 8
    assert first.count('href="#black-queen" transform') == 8
    assert 'href="#cqlg' in first  # the border's letters and numbers


def test_explain_html_leaves_out_lists_that_can_never_match(tmp_path: Path) -> None:
    # Shifted far enough, the knight's square leaves the board: legacy keeps the list with
    # an empty designator (N[], L5), which no position matches; CQL 6 drops it (M1).
    script = tmp_path / "edge.cql"
    script.write_text("(match (position Nd4 k[b3,b5] :shift))\n")
    page = tmp_path / "edge.html"
    assert main(["explain", str(script), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", text)
    assert captions and not any("[]" in c for c in captions)
    assert "of the transformed lists can never match: not drawn." in text


def test_explain_says_which_positions_each_list_examines_and_marks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "scopes.cql"
    script.write_text(
        "(match (position :check :markall) (position :mate :variations)\n"
        "       (position :stalemate :variationsonly :noannotate))\n"
    )
    assert main(["explain", str(script)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("list")]
    assert [line.split(": ", 1)[1] for line in lines] == [
        "every matching position marked; main line",
        "first matching position marked; main line and variations",
        "no position marked; variations only",
    ]


@pytest.mark.parametrize(
    ("keyword", "drawn"), [("sequence", True), ("and", True), ("gappedsequence", False),
                           ("or", False)]
)  # fmt: skip
def test_explain_html_draws_what_a_nested_list_needs_here(
    tmp_path: Path, keyword: str, drawn: bool
) -> None:
    # The first list of a :sequence, and every list of an :and, hold at the position
    # itself: the queen that moves next stands on a2.  A :gappedsequence's first list
    # may hold later, an :or's lists need not hold: nothing to draw for sure.
    script = tmp_path / "q.cql"
    script.write_text(f"(match (position :{keyword} ((position :movefrom Qa2) (position))))\n")
    page = tmp_path / "q.html"
    assert main(["explain", str(script), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert (text.count('<figure class="member">') == 1) is drawn
    assert ('href="#white-queen" transform="translate(15, 285)"' in text) is drawn


def test_explain_counts_the_transformed_lists_that_can_never_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", str(ROOT / "examples" / "knight-fork.cql")]) == 0
    found = re.search(r"(\d+) distinct transformed lists, (\d+) of which can never match",
                      capsys.readouterr().out)  # fmt: skip
    assert found is not None
    # The ones left are those with the knight on the board: one per square and colour,
    # the CQL 6 orbit of `flipcolor shift` (2 x 64).
    assert int(found[1]) - int(found[2]) == 2 * 64


def test_explain_counts_the_lists_of_the_explicit_union_as_the_translation_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "rook.cql"
    script.write_text("(match (position Rc1 Kg1 :shiftvertical))\n")
    assert main(["translate", str(script)]) == 0
    members = capsys.readouterr().out.count("{")
    assert main(["explain", str(script)]) == 0
    assert f"an explicit union of the {members} lists that can match" in capsys.readouterr().out
