"""Translations as CQL 6.1 text: parseable by chessql, read back by the modern reader into
the same query, refused with the construct and line:column where no exact form exists."""

from __future__ import annotations

import re

import attrs
import pytest
from chessql.core import parser
from cqllegacy.translator import TranslationError, modern_form, to_core, translate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.core.tree import Comment, Compound, Filter, Keyword, Or, Query, Simple
from cqllegacy.errors import ScriptError
from cqllegacy.legacy import read_script
from cqllegacy.modern.grammar import read_query
from tests.translator.test_reference import EXAMPLES, MATCH_EXAMPLES, TOP

TRUE = Simple(Keyword.TRUE)
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


KNIGHT_FORK = """\
(match
  (position ; the fork
    Nd4                           ; the forking knight
    k[b3,b5,c2,c6,e2,e6,f3,f5]    ; the king it checks
    ; and the queen it attacks:
    q[b3,b5,c2,c6,e2,e6,f3,f5]
    :shift
    :flipcolor))
"""


def test_a_comment_on_the_line_of_an_item_ends_the_line_of_its_translation() -> None:
    printed = check_printed(KNIGHT_FORK)
    assert printed is not None
    assert printed.splitlines()[2:] == [
        # On the line of the list's opening: on the line of the brace that opens it.
        "flipcolor shift {  // the fork",
        "  Nd4                         // the forking knight",
        "  k[b3,b5,c2,c6,e2,e6,f3,f5]  // the king it checks",
        # On a line of its own: before what follows it, on a line of its own.
        "  // and the queen it attacks:",
        "  q[b3,b5,c2,c6,e2,e6,f3,f5]",
        "}",
    ]


def test_a_comment_after_a_game_condition_or_a_list_trails_it() -> None:
    printed = check_printed(
        "(match :result 1-0 ; white wins\n (position ; the fork\n Nd4 :check) ; that is all\n)"
    )
    assert printed is not None
    assert printed.splitlines()[1:] == [
        "// cqllegacy: mark first",
        "result 1-0  // white wins",
        # The condition now stands before the list's opening: this comment cannot trail it.
        "// the fork",
        "Nd4",
        "check  // that is all",
    ]


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


def test_a_comment_after_the_match_list_on_the_last_lists_line_trails_it() -> None:
    printed = check_printed("(match\n (position Ka1 :flip)) ; either corner\n; the end\n")
    assert printed is not None
    assert printed.splitlines()[2:] == ["flip {Ka1}  // either corner", "// the end"]


def test_a_comment_alone_in_a_negated_list_is_no_refusal() -> None:
    # It was refused: `:not` of the list's one constituent, the comment, is no filter.
    printed = check_printed("(match (position ; nothing here\n :not))")
    assert printed is not None
    assert printed.splitlines()[2:] == ["// nothing here", "false"]


def _without_comments(query: Query) -> Query:
    """``query`` with every comment left out and what that makes ``true`` simplified: a
    list of comments alone is ``{// … true}`` (which the translator keeps, so that its
    comments are written), and a comment beside a lone filter keeps its braces."""

    def drop(node: Filter) -> Filter:
        if isinstance(node, Compound):
            items = tuple(i for i in node.items if not isinstance(i, Comment) and i != TRUE)
            return TRUE if not items else items[0] if len(items) == 1 else Compound(items)
        if isinstance(node, Or) and TRUE in node.items:
            return TRUE
        return node

    lists = tuple(attrs.evolve(t, body=t.body.transform(drop)) for t in query.lists)
    return attrs.evolve(query, lists=lists, leading_comments=())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TOP, st.data())
def test_comments_anywhere_leave_the_translation_the_same(text: str, data: st.DataObject) -> None:
    # A comment, on the line of what it follows or on a line of its own, at any place
    # between two tokens of a script.
    places = [m.end() for m in re.finditer(r" |\)", text)]
    chosen = sorted(data.draw(st.sets(st.sampled_from(places), max_size=6)) if places else [])
    commented = text
    for n, place in enumerate(reversed(chosen)):
        own_line = data.draw(st.booleans())
        note = f"\n; note {n}\n" if own_line else f" ; note {n}\n"
        commented = commented[:place] + note + commented[place:]
    plain, noted = check_printed(text), check_printed(commented)
    assert (plain is None) == (noted is None), commented
    if plain is not None and noted is not None:
        assert _without_comments(read_query(noted)) == _without_comments(read_query(plain)), noted
