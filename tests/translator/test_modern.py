"""Translations as CQL 6.1 text: parseable by chessql, read back by the modern reader into
the same query, refused with the construct and line:column where no exact form exists."""

from __future__ import annotations

import pytest
from chessql.core import parser
from cqllegacy.translator import TranslationError, modern_form, to_core, translate
from hypothesis import HealthCheck, given, settings

from cqllegacy.errors import ScriptError
from cqllegacy.legacy import read_script
from cqllegacy.modern.grammar import read_query
from tests.translator.test_reference import EXAMPLES, MATCH_EXAMPLES, TOP

ALL_EXAMPLES = [f"(match {x})" for x in EXAMPLES] + MATCH_EXAMPLES
REFUSED: set[str] = set()


def check_printed(text: str) -> str | None:
    """The translation (checked with chessql and the modern reader), or None if refused."""
    try:
        printed = translate(text)
    except (TranslationError, ScriptError) as refusal:
        assert refusal.line > 0 and refusal.column > 0
        return None
    parser.parse(printed)
    assert read_query(printed) == modern_form(to_core(read_script(text)))
    return printed


@pytest.mark.parametrize("text", ALL_EXAMPLES)
def test_examples_print_parse_and_read_back(text: str) -> None:
    assert (check_printed(text) is None) == (text in REFUSED)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TOP)
def test_generated_translations_parse_and_read_back(text: str) -> None:
    check_printed(text)


def body_lines(printed: str) -> list[str]:
    """The text after the header and pragma lines, stripped."""
    lines = [line.strip() for line in printed.splitlines()]
    return [line for line in lines[1:] if line and not line.startswith("// cqllegacy:")]


def test_the_knight_fork_reads_like_hand_written_cql() -> None:
    # semantics: S-mapping.
    printed = translate("(match :pgn in.pgn (position Nd4 kf3 :shift :flip :flipcolor :markall))")
    assert printed.splitlines()[0] == "cql(input in.pgn)"
    assert body_lines(printed) == ["flipcolor flip shift {Nd4 kf3}"]


def test_quadrupled_pawns() -> None:
    printed = translate(
        "(match (position :piececount P[b2-7] 4 :shifthorizontal :flipcolor :markall))"
    )
    assert body_lines(printed) == ["flipcolor shifthorizontal {#Pb2-7 == 4}"]


def test_comments_are_carried_over() -> None:
    printed = translate("; pins\n(match (position :ray (Q n k) ; a pin\n :flipcolor :markall))")
    assert "// pins" in printed and "// a pin" in printed
    assert printed.count("// a pin") == 1


@pytest.mark.parametrize(
    ("text", "construct", "place"),
    [
        # A shifted whole-board comparison (no :pattern): P1's content is unknown.
        (
            "(match (position :check :relation (:shift :missingpiececount A 1)))",
            ":relation",
            "1:25",
        ),
    ],
)
def test_refusals_name_the_construct_and_place(text: str, construct: str, place: str) -> None:
    with pytest.raises(ScriptError) as caught:
        translate(text, path="old.cql")
    message = caught.value.render()
    assert construct in message and place in message
    assert message.startswith("old.cql:")


def test_approximate_marks_the_place() -> None:
    printed = translate("(match\n :player Müller (position))", approximate=True)
    assert "// approximate:" in printed
    parser.parse(printed)


def test_tag_names_cql_would_misread_are_renamed() -> None:
    # `a` is CQL's set of black pieces and `find` a keyword.
    printed = translate("(match :forany a [Rr] :forany find N (position $a[a1] :ray ($a $find)))")
    assert "piece tag_a in [RPrp]" in printed and "piece tag_find in ([NP] & ~tag_a)" in printed
    parser.parse(printed)
