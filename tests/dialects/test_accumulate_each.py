"""Scidb's ``:accumulate*``: one accumulator per colour under ``:flipcolor``, and
``:sumrange`` holds when either colour's count is in range.  Each case is checked against
the standard pair the help documents (two lists, two accumulators, one per colour) on the
same games and plies, and so is its CQL 6.1 translation.  Meaning: docs/semantics.md,
S-accumulators.  Last, ``:accumulate*`` and ``:pawncount`` on an indexed file write what
the scan writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from cqllegacy.translator import TranslationError, translate

from cqllegacy.api import index
from cqllegacy.cli import main
from cqllegacy.legacy import read_script
from cqllegacy.legacy import tree as lt
from tests.dialects.helpers import marked
from tests.support.modern import assert_cql

ROOT = Path(__file__).resolve().parents[2]

# A white passed pawn on d2, shifted over the board (the help's own example).
WHITE_PASSER = "Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0"
BLACK_PASSER = "pd7 :piececount [pP][d2-6] 0 :piececount P[c2-6,e2-6] 0"


def star(items: str, r: str) -> str:
    return f"(match (position :markall {items} :shift :flipcolor :accumulate* c :sumrange c {r}))"


def pair(white: str, black: str, r: str) -> str:
    lists = (
        f"(position {white} :shift :accumulate w :sumrange w {r})"
        f" (position {black} :shift :accumulate b :sumrange b {r})"
    )
    return f"(match (position :markall :or ({lists})))"


CASES = [
    (WHITE_PASSER, BLACK_PASSER, "2 8"),
    (WHITE_PASSER, BLACK_PASSER, "1"),
    (WHITE_PASSER, BLACK_PASSER, "2"),
]
# (A range that holds 0 has no such pair: the list matches only where some member
# matches, while a count of 0 says that none of its colour does.)


@pytest.mark.parametrize(("white", "black", "r"), CASES)
def test_it_is_the_documented_pair_of_accumulators(white: str, black: str, r: str) -> None:
    text = star(white, r)
    want = marked(pair(white, black, r))
    assert marked(text) == want
    assert want, f"{r}: the games hold no example; the test would prove nothing"


@pytest.mark.parametrize(("white", "black", "r"), CASES)
def test_its_cql_6_translation_marks_the_same_positions(white: str, black: str, r: str) -> None:
    text = star(white, r)
    modern = translate(text)
    assert_cql(modern)
    assert marked(modern) == marked(text)


def test_it_differs_from_one_accumulator_for_both_colours() -> None:
    # One count for both colours: two passers of different colours make 2.
    plain = star(WHITE_PASSER, "2 8").replace(":accumulate*", ":accumulate")
    assert marked(plain) != marked(star(WHITE_PASSER, "2 8"))


def test_a_nested_list_counts_for_the_colour_of_its_member() -> None:
    # :flipcolor on the outer list, :accumulate* in the nested one: a member of the
    # outer list that swaps the colours makes its nested counts Black's.
    nested = (
        "(match (position :markall :flipcolor :sumrange c 1"
        f" :and ((position {WHITE_PASSER} :shift :accumulate* c))))"
    )
    want = marked(pair(WHITE_PASSER, BLACK_PASSER, "1"))
    assert marked(nested) == want
    assert marked(translate(nested)) == want


def test_without_a_colour_flip_it_counts_as_accumulate() -> None:
    text = f"(match (position :markall {WHITE_PASSER} :shift :accumulate* c :sumrange c 2 8))"
    plain = text.replace(":accumulate*", ":accumulate")
    assert marked(text) == marked(plain)
    assert marked(text)


def test_it_reads_as_its_own_item_and_is_named_by_check() -> None:
    script = read_script("(match (position Pd2 :flipcolor :accumulate* c :sumrange c 1))")
    items = script.match.position_lists()[0].items
    assert lt.AccumulateEach("c") in items
    assert lt.Accumulate("c") not in items
    assert [form for form, _ in script.dialect_forms] == ["`:accumulate*`"]


def test_one_name_counted_both_ways_is_refused() -> None:
    text = (
        "(match (position :sumrange c 1 :and ((position Pd2 :flipcolor :accumulate* c)"
        " (position pd7 :accumulate c))))"
    )
    with pytest.raises(TranslationError, match=r"count one accumulator in two ways") as info:
        translate(text)
    assert "1:" in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        star(WHITE_PASSER, "2 8"),
        "(match (position :markall :pawncount P passed-!inside >=1 :flipcolor))",
        "(match (position :pawncount [Pp] isolated-!blocked 3 5 :shift))",
    ],
)
def test_a_run_on_an_indexed_file_writes_what_the_scan_writes(text: str, tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_bytes((ROOT / "fixtures" / "games.pgn").read_bytes())
    index(pgn)
    script = tmp_path / "q.cql"
    script.write_text(text, encoding="utf-8")
    outputs = []
    for name, flags in (("scan", ["--no-index"]), ("index", [])):
        out = tmp_path / f"{name}.pgn"
        argv = ["run", str(script), "-i", str(pgn), "-o", str(out), "-q", "-j", "1", *flags]
        assert main(argv) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert b"{ MATCH" in outputs[0]
