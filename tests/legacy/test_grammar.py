"""The legacy reader on the reference's examples, designators, keywords and comments."""

from __future__ import annotations

import re

import chess
import pytest

from cqllegacy.legacy import LegacySyntaxError, dialects, read_script
from cqllegacy.legacy import tree as t
from cqllegacy.legacy.keywords import (
    DIALECT_MATCH_KEYWORDS,
    DIALECT_POSITION_KEYWORDS,
    EXTENSION_NAMES,
    KEYWORDS,
    MATCH_KEYWORDS,
    POSITION_KEYWORDS,
    RELATION_KEYWORDS,
    SHAPE_PARAMETERS,
    ListKind,
    Parameter,
    Shape,
)
from cqllegacy.vocab.pieces import ANYTHING, EMPTY_BIT, types_of
from cqllegacy.vocab.squares import FULL
from tests.support.legacy_examples import all_example_scripts

EXAMPLES = all_example_scripts()


def only_list(text: str) -> t.PositionList:
    """The single position list of ``(match <text>)``."""
    (position_list,) = read_script(f"(match {text})").match.position_lists()
    return position_list


def items_of(position_text: str) -> tuple[t.PositionItem, ...]:
    return only_list(position_text).items


def squares(*names: str) -> int:
    out = 0
    for name in names:
        out |= chess.BB_SQUARES[chess.parse_square(name)]
    return out


def line_of(files: str, ranks: str) -> int:
    return squares(*(f + r for f in files for r in ranks))


ALL_TWELVE = types_of("KQRBNPkqrbnp")
WHITE = types_of("KQRBNP")


# --------------------------------------------------------------------------------------
# Every example of the reference parses
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_reference_example_parses(text: str) -> None:
    script = read_script(text, "example.cql")
    assert script.path == "example.cql"
    assert script.match.position_lists()


def test_match_list_example_has_every_keyword() -> None:
    items = read_script(EXAMPLES["match-list keywords (§2.1)"]).match.items
    assert items[:6] == (
        t.MatchPath(t.MatchPathKeyword.PGN, "heijden.pgn"),
        t.MatchPath(t.MatchPathKeyword.OUTPUT, "out.pgn"),
        t.Player("costeff"),
        t.MatchResult(t.GameResult.WHITE_WINS),
        t.MatchRange(t.MatchRangeKeyword.GAMENUMBER, t.Range(10, 1000)),
        t.MatchRange(t.MatchRangeKeyword.YEAR, t.Range(1934, 2000)),
    )
    assert items[6] == t.PositionList()


def test_mirror_mate_structure() -> None:
    (outer,) = read_script(EXAMPLES["ideal mirror mate (§5.5)"]).match.position_lists()
    flip, both = outer.items
    assert flip == t.Transform(t.TransformKeyword.FLIPCOLOR)
    assert isinstance(both, t.ListOfLists) and both.keyword is t.ListKeyword.AND
    first, second = both.lists
    empty_e4 = t.Designator(EMPTY_BIT, squares("e4"))
    assert first.items == (
        t.AttackCount(t.Designator(types_of("k")), t.Designator(EMPTY_BIT), t.Range(8)),
        t.AttackCount(t.Designator(WHITE), t.Designator(types_of("k")), t.Range(1)),
        t.Flag(t.FlagKeyword.MATE),
        t.Flag(t.FlagKeyword.BTM),
    )
    assert second.items == (
        t.Flag(t.FlagKeyword.NOT),
        t.AttackCount(t.Designator(types_of("k")), empty_e4, t.Range(1)),
        t.AttackCount(t.Designator(WHITE), empty_e4, t.Range(2, 100)),
        t.Transform(t.TransformKeyword.SHIFT),
    )


def test_tagged_pieces_and_glued_parentheses() -> None:
    script = read_script(
        "(match :forany pawn P (position :initial :tagmatch pawn P?2 "
        ":gappedsequence((position :movefrom $pawn :promote U)) :flipcolor))"
    )
    assert script.match.items[0] == t.ForAny("pawn", t.Designator(types_of("P")))
    items = script.match.position_lists()[0].items
    assert items[1] == t.TagMatch("pawn", t.Designator(types_of("P"), line_of("abcdefgh", "2")))
    (inner,) = items[2].lists
    assert inner.items == (
        t.MoveTest(t.MoveKeyword.MOVEFROM, t.Designator(0, FULL, tag="pawn")),
        t.MoveTest(t.MoveKeyword.PROMOTE, t.Designator(ALL_TWELVE)),
    )


# --------------------------------------------------------------------------------------
# Designators (semantics: S-square-designators): every example there, written out independently
# --------------------------------------------------------------------------------------

DESIGNATORS = [
    ("Ra3", types_of("R"), squares("a3")),
    ("[RQ][a1-8]", types_of("RQ"), line_of("a", "12345678")),
    ("q[h1-8]", types_of("q"), line_of("h", "12345678")),
    (".d4", EMPTY_BIT, squares("d4")),
    ("id3", types_of("bn"), squares("d3")),
    ("U[a1,h1,a8,h8]", ALL_TWELVE, squares("a1", "h1", "a8", "h8")),
    ("[Qr][d1,h3]", types_of("Qr"), squares("d1", "h3")),
    ("P[b2-7]", types_of("P"), line_of("b", "234567")),
    ("[Ar][a-h1-2,a8,h8]", WHITE | types_of("r"), line_of("abcdefgh", "12") | squares("a8", "h8")),
    ("[RBNQP][a1,h1,a8,h8]", types_of("RBNQP"), squares("a1", "h1", "a8", "h8")),
    ("Ia1", types_of("BN"), squares("a1")),
    ("??1", ALL_TWELVE | EMPTY_BIT, line_of("abcdefgh", "1")),
    ("U?8", ALL_TWELVE, line_of("abcdefgh", "8")),
    (".[c?,g?]", EMPTY_BIT, line_of("cg", "12345678")),
    ("P?2", types_of("P"), line_of("abcdefgh", "2")),
    # S-piece-types, S-square-designators: forms beyond the table
    ("M", types_of("QR"), FULL),
    ("m", types_of("qr"), FULL),
    ("a", types_of("kqrbnp"), FULL),
    ("ab2", types_of("kqrbnp"), squares("b2")),
    ("bb3", types_of("b"), squares("b3")),
    ("?b2", ANYTHING, squares("b2")),
    ("[Ak.]", WHITE | types_of("k") | EMPTY_BIT, FULL),
    ("[aQBNPK.]a3", types_of("kqrbnpQBNPK") | EMPTY_BIT, squares("a3")),
    ("B[]", types_of("B"), 0),
    ("Aa-h1-4", WHITE, line_of("abcdefgh", "1234")),
    ("Q?1-7", types_of("Q"), line_of("abcdefgh", "1234567")),
    ("R[b1-8]", types_of("R"), line_of("b", "12345678")),
    ("Rh-f2", types_of("R"), squares("f2", "g2", "h2")),
    ("R[a8-6]", types_of("R"), squares("a6", "a7", "a8")),
    ("N[e-c5-4]", types_of("N"), line_of("cde", "45")),
    ("k[?4-8]", types_of("k"), line_of("abcdefgh", "45678")),
    ("Qa?", types_of("Q"), line_of("a", "12345678")),
    ("[Kk]e?", types_of("Kk"), line_of("e", "12345678")),
    ("K??", types_of("K"), FULL),
    ("[R]", types_of("R"), FULL),
]


@pytest.mark.parametrize(("text", "types", "square_set"), DESIGNATORS)
def test_designator_denotes_documented_sets(text: str, types: int, square_set: int) -> None:
    (designator,) = items_of(f"(position {text})")
    assert (designator.types, designator.squares, designator.tag) == (types, square_set, None)


@pytest.mark.parametrize(
    ("text", "tag", "square_set"),
    [
        ("$rook[a1]", "rook", squares("a1")),
        ("$rook", "rook", FULL),
        ("$rook[g6,d2]", "rook", squares("g6", "d2")),
        ("$rook[a-b1]", "rook", squares("a1", "b1")),
    ],
)
def test_tag_designators(text: str, tag: str, square_set: int) -> None:
    (designator,) = items_of(f":forany rook U (position {text})")
    assert designator == t.Designator(0, square_set, tag=tag)


def test_designator_spans_point_at_each_atom() -> None:
    first, second = items_of("(position\n  Ra3   \tkh8)")
    assert (first.span, second.span) == (t.Span(2, 3), t.Span(2, 10))


# --------------------------------------------------------------------------------------
# Ranges and results
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", t.Range(3, 3)),
        ("1 3", t.Range(1, 3)),
        ("-5 10", t.Range(-5, 10)),
        ("-1000 -2", t.Range(-1000, -2)),
        ("1 unlimited", t.Range(1, None)),
        ("0", t.Range(0)),
        ("4 4", t.Range(4)),
    ],
)
def test_ranges(text: str, expected: t.Range) -> None:
    (count,) = items_of(f"(position :powerdifference U {text})")
    assert count.range == expected


def test_range_takes_a_second_integer_across_a_comment() -> None:
    count, note = items_of("(position :piececount R 1 ; at least one\n 4)")
    assert count.range == t.Range(1, 4)
    assert note == t.Comment(" at least one")


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("1-0", t.GameResult.WHITE_WINS),
        ("0-1", t.GameResult.BLACK_WINS),
        ("1/2-1/2", t.GameResult.DRAW),
        ("1/2", t.GameResult.DRAW),
    ],
)
def test_results_in_both_lists(text: str, result: t.GameResult) -> None:
    script = read_script(f"(match :result {text} (position :result {text}))")
    assert script.match.items[0] == t.MatchResult(result)
    assert script.match.position_lists()[0].items == (t.ResultTest(result),)


def test_optional_ray_range() -> None:
    bare, counted = items_of("(position :ray (k Q) :rayattack (Q n k) 2 4)")
    assert bare.range is None and bare.designators == (
        t.Designator(types_of("k")),
        t.Designator(types_of("Q")),
    )
    assert counted.range == t.Range(2, 4)


# --------------------------------------------------------------------------------------
# Keywords: the tables against a hand-written list (semantics: S-keywords)
# --------------------------------------------------------------------------------------

SPEC_MATCH = "pgn output result year gamenumber player forany"
SPEC_POSITION = """
    and or not mate stalemate check nocheck wtm btm initial variations variationsonly
    markall noannotate enpassant noenpassant movefrom moveto promote movenumber
    flip flipdihedral flipcolor flipdiagonal flipoffdiagonal fliphorizontal flipvertical
    shift shifthorizontal shiftvertical shiftmaindiagonal shiftoffdiagonal shiftdiagonal
    piececount attackcount power powerdifference ray rayattack raydiagonal rayorthogonal
    rayhorizontal rayvertical sequence gappedsequence result elo whiteelo blackelo relation
    matchcount pretransformmatchcount accumulate sumrange tagmatch
"""
SPEC_RELATION = """
    pattern missingpiececount newpiececount originaldifferentcount originalsamecount shift
    flip samesidetomove changesidetomove ignoresidetomove variations variationsonly
"""


def test_keyword_tables_match_the_reference() -> None:
    assert set(MATCH_KEYWORDS) == set(SPEC_MATCH.split())
    assert set(POSITION_KEYWORDS) == set(SPEC_POSITION.split())
    assert set(RELATION_KEYWORDS) == set(SPEC_RELATION.split())
    # S-keywords: 7 + 55 + 12 standard keywords.
    assert (len(MATCH_KEYWORDS), len(POSITION_KEYWORDS), len(RELATION_KEYWORDS)) == (7, 55, 12)


# A parameter text per shape, and the list of keywords around which it is tried.
SAMPLE_PARAMETERS = {
    Shape.NONE: "",
    Shape.PD: "Ra3",
    Shape.PD_RANGE: "[Rr][a1-8] 1 3",
    Shape.PD_PD_RANGE: "A k 2",
    Shape.RANGE: "2 5",
    Shape.RESULT: "1/2",
    Shape.RAY: "(Qa? n k[?4-8]) 1 2",
    Shape.LISTS: "((position Ra3) (position :check))",
    Shape.RELATION: "(:pattern)",
    Shape.NAME: "counter_1",
    Shape.NAME_RANGE: "counter_1 3 8",
    Shape.NAME_PD: "tagged U",
    Shape.FILE: "games/old.pgn",
    Shape.WORD: "costeff",
}


def test_every_shape_names_its_parameters() -> None:
    assert set(SHAPE_PARAMETERS) == set(Shape)
    assert set().union(*SHAPE_PARAMETERS.values()) == set(Parameter)
    assert all(SHAPE_PARAMETERS[shape] for shape in Shape if shape is not Shape.NONE)


def wrap(kind: ListKind, item: str) -> str:
    if kind is ListKind.MATCH:
        return f"(match {item} (position))"
    if kind is ListKind.POSITION:
        return f"(match :forany tagged U (position {item}))"
    return f"(match (position :relation ({item})))"


def keyword_cases() -> list[tuple[ListKind, str]]:
    return [(kind, name) for kind, table in KEYWORDS.items() for name in table]


@pytest.mark.parametrize(("kind", "name"), keyword_cases())
def test_every_keyword_parses(kind: ListKind, name: str) -> None:
    spec = KEYWORDS[kind][name]
    parameters = SAMPLE_PARAMETERS[spec.shape]
    if kind is ListKind.POSITION and name == "tagmatch":
        parameters = "tagged P"
    if kind is ListKind.POSITION and name == "relation":
        text = f"(match (position :{name} {parameters}))"
    else:
        text = wrap(kind, f":{name} {parameters}")
    match = read_script(text).match
    node = _keyword_node(match, kind)
    assert node.span.column == text.index(f":{name}") + 1
    keyword = getattr(node, "keyword", None)
    assert keyword is None or keyword.value == name


def _keyword_node(match: t.MatchList, kind: ListKind) -> object:
    if kind is ListKind.MATCH:
        return match.items[0]
    position_list = match.position_lists()[0]
    if kind is ListKind.POSITION:
        return position_list.items[0]
    return position_list.items[0].items[0]


RUNNING_DIALECT = (
    set(dialects.POSITION_MACROS)
    | set(dialects.LIST_MACROS)
    | set(dialects.RANGE_MACROS)
    | set(DIALECT_MATCH_KEYWORDS)
    | dialects.OWN_LANGUAGE
    | set(DIALECT_POSITION_KEYWORDS)
)


@pytest.mark.parametrize(
    "name", sorted(EXTENSION_NAMES - set(POSITION_KEYWORDS) - RUNNING_DIALECT)
)
def test_extension_keywords_are_refused_in_a_position_list(name: str) -> None:
    # X5: the keyword and why, at its place; never "unknown keyword".
    reason = dialects.refusal(name)
    assert reason is not None, f":{name} has no reason to be refused"
    with pytest.raises(LegacySyntaxError) as caught:
        read_script(f"(match (position Ra3\n  :{name} 1))")
    assert caught.value.message == reason
    assert f"`:{name}`" in reason
    assert (caught.value.line, caught.value.column) == (2, 3)


@pytest.mark.parametrize("name", ["eco*", "hascomments", "whitetitle", "comment*", "whitecountry"])
def test_extension_keywords_are_refused_in_the_match_list(name: str) -> None:
    with pytest.raises(LegacySyntaxError, match=f"Scidb extension `:{re.escape(name)}`") as caught:
        read_script(f"(match :{name} x (position))")
    assert caught.value.column == 8


@pytest.mark.parametrize(
    "name", ["passedpawnrace", "perpendicular", "unstoppablepawns", "collateral"]
)
def test_the_keyword_table_knows_the_pawn_words_of_the_help(name: str) -> None:
    assert name in EXTENSION_NAMES


# --------------------------------------------------------------------------------------
# Comments: where each one lands
# --------------------------------------------------------------------------------------


def test_comments_before_and_after_the_match_list() -> None:
    script = read_script(";; CQL 1.0\n; second\n(match (position)) ; done\n;; end")
    assert script.leading == (t.Comment(" CQL 1.0"), t.Comment(" second"))
    assert script.trailing == (t.Comment(" done"), t.Comment(" end"))
    assert script.leading[1].span == t.Span(2, 1)


def test_comment_between_parenthesis_and_head_goes_first() -> None:
    script = read_script("( ; the list\n match ( ;inner\n position Ra3))")
    assert script.match.items[0] == t.Comment(" the list")
    assert script.match.position_lists()[0].items == (
        t.Comment("inner"),
        t.Designator(types_of("R"), squares("a3")),
    )


def test_comments_keep_their_place_among_items() -> None:
    items = items_of("(position Ra3 ; rook\n :markall ; find each occurrence\n :shift)")
    assert items == (
        t.Designator(types_of("R"), squares("a3")),
        t.Comment(" rook"),
        t.Flag(t.FlagKeyword.MARKALL),
        t.Comment(" find each occurrence"),
        t.Transform(t.TransformKeyword.SHIFT),
    )


def test_comment_inside_parameters_follows_the_keyword() -> None:
    items = items_of("(position :attackcount ; who\n A ; attacks\n k 2 :mate)")
    assert [type(item) for item in items] == [t.AttackCount, t.Comment, t.Comment, t.Flag]
    assert [item.text for item in items[1:3]] == [" who", " attacks"]


def test_comments_in_a_ray_move_after_the_keyword() -> None:
    items = items_of("(position :ray ( ; from\n Q k ; to\n) 2 :check)")
    assert [type(item) for item in items] == [t.Ray, t.Comment, t.Comment, t.Flag]


def test_comments_in_a_relation_stay_inside() -> None:
    (relation,) = items_of("(position :relation ( ; compare\n :pattern ; squares\n :shift))")
    assert relation.items == (
        t.Comment(" compare"),
        t.RelationFlag(t.RelationFlagKeyword.PATTERN),
        t.Comment(" squares"),
        t.RelationFlag(t.RelationFlagKeyword.SHIFT),
    )


def test_comments_between_nested_lists_follow_the_list_keyword() -> None:
    items = items_of("(position :and ((position Ra3) ; first\n (position Rb3)) :mate)")
    assert [type(item) for item in items] == [t.ListOfLists, t.Comment, t.Flag]
    assert len(items[0].lists) == 2


def test_comment_text_drops_semicolons_and_trailing_blanks() -> None:
    script = read_script(";;; header \t\r\n(match (position));\x85;x")
    assert script.leading == (t.Comment(" header"),)
    assert script.trailing == (t.Comment(""), t.Comment("x"))


def test_line_numbers_follow_every_line_break() -> None:
    (designator,) = items_of("(position\r\n\r\n\tRa3)")
    assert designator.span == t.Span(3, 2)


def test_byte_order_mark_is_ignored() -> None:
    script = read_script("\ufeff(match (position Ra3))")
    assert script.match.span == t.Span(1, 1)


def test_spans_are_not_part_of_equality() -> None:
    assert read_script("(match (position Ra3))") == read_script(
        "(match\n\n   (position\n R[a3]\n))"
    )


def test_a_dialect_match_keyword_in_a_position_list_belongs_in_the_match_list() -> None:
    with pytest.raises(LegacySyntaxError, match="belongs in the match list") as caught:
        read_script("(match (position\n  :whiteplayer tal))")
    assert (caught.value.line, caught.value.column) == (2, 3)
