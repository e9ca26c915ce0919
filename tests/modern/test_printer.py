"""The CQL 6.1 printer: documented shapes, precedence as chessql sees it, refusals."""

from __future__ import annotations

import pytest

from cqllegacy.core import tree as ct
from cqllegacy.modern import NotExpressible, print_query
from cqllegacy.modern.grammar import read_query
from cqllegacy.modern.printer import PRINTED
from cqllegacy.vocab.pieces import ANYTHING, types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import FULL, Direction, parse_squares
from tests.support.modern import N, assert_cql, chessql_shape, compound, one, pd

T = ct.TransformKind
CHECK, MATE = ct.Simple(ct.Keyword.CHECK), ct.Simple(ct.Keyword.MATE)


def body_text(body: ct.Filter, **top: object) -> str:
    """The printed body of a one-list query (header line dropped), checked by chessql."""
    text = print_query(one(body, **top))
    assert_cql(text)
    header, rest = text.split("\n", 1)
    assert header == "cql()"
    return rest.rstrip("\n")


# --------------------------------------------------------------------------------------
# Documented examples (semantics: S-mapping, S-examples)
# --------------------------------------------------------------------------------------


def test_section_12_example_comes_out_in_the_documented_shape() -> None:
    body = ct.Transform(
        T.FLIPCOLOR, ct.Transform(T.FLIP, ct.Transform(T.SHIFT, compound(pd("Nd4"), pd("kf3"))))
    )
    query = ct.Query(ct.Header(inputs=("in.pgn",)), (ct.TopList(body),))
    text = print_query(query)
    assert text == "cql(input in.pgn)\nflipcolor flip shift {Nd4 kf3}\n"
    assert chessql_shape(text) == [
        ("FlipColor", (("Flip", (("Shift", (("BraceLeft", (("PieceDesignator", ()),) * 2),)),)),)),
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # S-examples E52: quadrupled pawns
        (
            ct.Transform(
                T.FLIPCOLOR,
                ct.Transform(
                    T.SHIFTHORIZONTAL, compound(ct.InRange(ct.Count(pd("P[b2-7]")), 4, 4))
                ),
            ),
            "flipcolor shifthorizontal {#Pb2-7 == 4}",
        ),
        # S-examples E46, E41, E43, E44, E42
        (ct.InRange(ct.Power(pd("A")), 15, None), "power A >= 15"),
        (ct.Compare(ct.CompareOp.GT, ct.Attacks(pd("A"), pd("k")), N(1)), "A attacks k > 1"),
        (ct.Between(pd("a1"), pd("c3")), "between (a1 c3)"),
        (ct.XRay((pd("R"), pd("a"), pd("k"))), "xray (R a k)"),
        (ct.AttackedBy(pd("."), pd("k")), ". attackedby k"),
        # S-examples E51, E30, E31, E1, E3, E4, E10
        (
            ct.Line(
                (ct.LineStep(ct.Simple(ct.Keyword.CHECK)), ct.LineStep(ct.Simple(ct.Keyword.MATE)))
            ),
            "line --> check --> mate",
        ),
        (ct.Transform(T.FLIPCOLOR, pd("Pa2")), "flipcolor Pa2"),
        (ct.Transform(T.REVERSECOLOR, pd("Ke1")), "reversecolor Ke1"),
        (ct.DirectionSet(Direction.UP, pd("d4"), 1, 1), "up 1 d4"),
        (ct.DirectionSet(Direction.UP, pd("d4"), 1, 3), "up 1 3 d4"),
        (ct.DirectionSet(Direction.UP, pd("d4")), "up d4"),
        (ct.DirectionSet(Direction.RIGHT, pd("d4"), -1, 1), "right -1 1 d4"),
        (ct.DirectionSet(Direction.UP, pd("d4"), -2, -2), "up -2 d4"),
        # S-examples E26 (left side), an E27-style ray with a direction
        (
            ct.Transform(
                T.FLIP,
                ct.DirectionSet(
                    Direction.NORTHEAST, ct.DirectionSet(Direction.UP, pd("Q"), 1, 1), 1, 1
                ),
            ),
            "flip northeast 1 up 1 Q",
        ),
        (
            ct.Ray((pd("R"), pd("R"), pd("q"), pd("k")), Direction.ORTHOGONAL),
            "ray orthogonal (R R q k)",
        ),
        # S-examples E48, E33
        (
            ct.Transform(
                T.FLIPCOLOR,
                compound(
                    ct.Player("Ivanchuk", ct.Color.WHITE),
                    ct.InRange(ct.Elo(ct.Color.BLACK), 2000, None),
                    ct.Result(GameResult.WHITE_WINS),
                ),
            ),
            'flipcolor {player white "Ivanchuk" elo black >= 2000 result 1-0}',
        ),
    ],
)
def test_documented_examples_print_as_documented(body: ct.Filter, expected: str) -> None:
    assert body_text(body) == expected


# --------------------------------------------------------------------------------------
# Piece designators and ranges
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("types", "squares", "expected"),
    [
        ("K", "", "K"),
        ("", "d4", "d4"),
        ("", "", "."),
        ("KQRBNP", "", "A"),
        ("KQRBNPkqrbnp", "a1", "[Aa]a1"),
        ("Rr", "a1", "[Rr]a1"),
    ],
)
def test_piece_designators(types: str, squares: str, expected: str) -> None:
    node = ct.PieceSet(
        types_of(types) if types else ANYTHING, parse_squares(squares) if squares else FULL
    )
    assert body_text(node) == expected


def test_empty_square_set_is_parenthesised_because_chessql_misreads_a_bare_pair() -> None:
    assert body_text(ct.Not(compound(pd("K"), pd("[]")))) == "not {K ([])}"


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [(1, 3, "1 <= #K <= 3"), (2, 2, "#K == 2"), (2, None, "#K >= 2"), (None, 5, "#K <= 5")],
)
def test_ranges(lo: int | None, hi: int | None, expected: str) -> None:
    assert body_text(ct.InRange(ct.Count(pd("K")), lo, hi)) == expected


def test_a_range_without_bounds_is_refused() -> None:
    with pytest.raises(NotExpressible, match="no bound"):
        print_query(one(ct.InRange(ct.Count(pd("K")), None, None)))


# --------------------------------------------------------------------------------------
# Precedence, checked against chessql's own parse tree
# --------------------------------------------------------------------------------------


def test_count_in_arithmetic_is_parenthesised_as_section_3_1_asks() -> None:
    body = ct.InRange(ct.Arith(ct.ArithOp.ADD, ct.Count(pd("K")), N(1)), 2, 2)
    text = print_query(one(body))
    assert text.endswith("(#K) + 1 == 2\n")
    assert chessql_shape(text) == [
        (
            "Eq",
            (
                ("Plus", (("CountFilter", (("PieceDesignator", ()),)), ("Integer", ()))),
                ("Integer", ()),
            ),
        )
    ]


def test_attacks_binds_tighter_than_union() -> None:
    text = print_query(one(ct.Union((ct.Attacks(pd("A"), pd("k")), pd("n")))))
    assert text.endswith("A attacks k | n\n")
    assert chessql_shape(text)[0][0] == "Union"
    text = print_query(one(ct.Attacks(pd("A"), ct.Union((pd("k"), pd("n"))))))
    assert text.endswith("A attacks (k | n)\n")
    assert chessql_shape(text)[0][0] == "Attacks"


def test_find_under_a_comparison_keeps_its_own_parentheses() -> None:
    body = ct.InRange(ct.Find(compound(ct.Simple(ct.Keyword.CHECK)), all=True), 1, 3)
    text = print_query(one(body))
    assert text.endswith("1 <= (find all {check}) <= 3\n")
    (shape,) = chessql_shape(text)
    assert shape[0] == "LE"
    inner = shape[1][1]
    assert inner[0] == "LE" and inner[1][0][0] == "Find"


def test_nested_unions_and_complements_keep_their_grouping() -> None:
    nested = ct.Union((ct.Union((pd("K"), pd("Q"))), pd("R")))
    assert body_text(nested) == "(K | Q) | R"
    assert body_text(ct.Complement(ct.Complement(pd("K")))) == "~(~K)"


def test_transform_arguments_are_braces_or_single_filters() -> None:
    assert body_text(ct.Transform(T.FLIP, ct.Or((pd("Ka1"), pd("kh8"))))) == "flip (Ka1 or kh8)"
    assert body_text(ct.Transform(T.SHIFT, pd("Ka1"), count=True)) == "shift count Ka1"


def test_negative_numbers_in_arithmetic_and_negation() -> None:
    assert body_text(ct.InRange(ct.Arith(ct.ArithOp.SUB, N(1), N(-3)), 4, 4)) == "1 - (-3) == 4"
    assert body_text(ct.InRange(ct.Negate(N(3)), -3, -3)) == "-(3) == -3"
    assert body_text(ct.InRange(ct.Negate(ct.Count(pd("K"))), -1, -1)) == "-(#K) == -1"


def test_comparisons_that_would_read_as_ranges_get_parentheses() -> None:
    assert body_text(ct.Compare(ct.CompareOp.EQ, pd("K"), N(5))) == "K == (5)"
    inner = ct.InRange(ct.Count(pd("K")), None, 5)
    assert body_text(ct.Compare(ct.CompareOp.LE, N(1), inner)) == "1 <= (#K <= 5)"
    assert (
        body_text(ct.Compare(ct.CompareOp.LT, N(2), ct.InRange(pd("P"), None, 5))) == "2 < P <= 5"
    )


def test_constituents_that_would_extend_the_previous_one_are_parenthesised() -> None:
    items = compound(
        ct.Simple(ct.Keyword.CHECK),
        ct.InRange(ct.NumericValue(ct.NumericKeyword.MOVENUMBER), -3, 5),
    )
    assert body_text(ct.Not(items)) == "not {check (-3 <= movenumber <= 5)}"
    line = ct.Line((ct.LineStep(ct.Simple(ct.Keyword.CHECK)),))
    assert body_text(ct.Not(compound(line, compound(pd("K"))))) == "not {(line --> check) {K}}"


# --------------------------------------------------------------------------------------
# Moves, players, strings
# --------------------------------------------------------------------------------------


def test_promotion_colour_is_said_by_the_promoting_pawn() -> None:
    assert body_text(ct.Move(promote=types_of("Qq"))) == "move promote Q"
    assert body_text(ct.Move(promote=types_of("Q"))) == "move from P promote Q"
    assert body_text(ct.Move(promote=types_of("rn"))) == "move from p promote [RN]"
    assert (
        body_text(ct.Move(from_=pd("d7"), promote=types_of("N"))) == "move from (d7 & P) promote N"
    )


def test_promotion_sets_differing_by_colour_are_refused_or_approximated() -> None:
    move = ct.Move(promote=types_of("Qr"), origin=ct.Origin(":promote", Span(3, 9)))
    with pytest.raises(NotExpressible, match=r":promote at 3:9"):
        print_query(one(move))
    text = print_query(one(move), approximate=True)
    assert "// approximate: :promote at 3:9" in text
    assert text.endswith("move promote [QR]\n")
    assert_cql(text)


def test_move_parameters() -> None:
    move = ct.Move(from_=pd("K"), to=pd("_"), capture=pd("q"), enpassant=True, previous=True)
    assert body_text(move) == "move previous from K to _ capture q enpassant"


def test_players_and_tags() -> None:
    assert body_text(ct.Player("Kasparov")) == 'player "Kasparov"'
    assert body_text(ct.Player("x+y", ct.Color.BLACK)) == '"x+y" in player black'
    assert body_text(ct.TagContains(ct.TagName.SITE, "Zee")) == 'site "Zee"'
    assert body_text(ct.Player("kasparov", ignore_case=True)) == '"kasparov" in lowercase player'


def test_case_insensitive_player_with_non_ascii_text_is_refused() -> None:
    player = ct.Player("Ljubojević", ignore_case=True, origin=ct.Origin(":player", Span(2, 3)))
    with pytest.raises(NotExpressible, match=":player at 2:3"):
        print_query(one(player))
    text = print_query(one(player), approximate=True)
    assert "// approximate: :player at 2:3" in text
    assert_cql(text)


def test_strings_with_quotes_cannot_be_written() -> None:
    with pytest.raises(NotExpressible):
        print_query(one(ct.Player('O"Kelly')))


# --------------------------------------------------------------------------------------
# Comments, header, query forms
# --------------------------------------------------------------------------------------


def test_comments_keep_their_place_and_never_become_triple_slashes() -> None:
    body = compound(ct.Comment(" knight"), pd("Nd4"), ct.Comment("/odd"))
    query = ct.Query(ct.Header(), (ct.TopList(body),), leading_comments=(" made by hand",))
    text = print_query(query)
    assert text == "// made by hand\ncql()\n// knight\nNd4\n// /odd\n"
    assert "///" not in text
    assert_cql(text)


def trailing(text: str) -> ct.Comment:
    return ct.Comment(text, trailing=True)


def test_a_trailing_comment_ends_the_line_of_the_filter_before_it() -> None:
    body = ct.Transform(
        T.SHIFT,
        compound(pd("Nd4"), trailing(" the knight"), ct.Comment(" own line"), pd("kf3")),
    )
    assert body_text(body) == "shift {\n  Nd4  // the knight\n  // own line\n  kf3\n}"


def test_trailing_comments_of_consecutive_filters_are_aligned() -> None:
    body = ct.Transform(
        T.SHIFT,
        compound(
            pd("Nd4"),
            trailing(" the forking knight"),
            pd("k[b3,b5,c2,c6,e2,e6,f3,f5]"),
            trailing(" the king it checks"),
            CHECK,
        ),
    )
    assert body_text(body).splitlines() == [
        "shift {",
        "  Nd4                         // the forking knight",
        "  k[b3,b5,c2,c6,e2,e6,f3,f5]  // the king it checks",
        "  check",
        "}",
    ]


def test_a_trailing_comment_opening_a_compound_stands_on_the_brace_line() -> None:
    body = ct.Transform(T.FLIPCOLOR, compound(trailing(" the fork"), pd("Nd4"), pd("kf3")))
    assert body_text(body) == "flipcolor {  // the fork\n  Nd4\n  kf3\n}"


def test_a_trailing_comment_after_a_multi_line_filter_ends_its_last_line() -> None:
    inner = ct.Transform(T.FLIP, compound(ct.Comment(" own"), pd("Ka1")))
    text = body_text(compound(pd("Nd4"), inner, trailing(" flipped"), CHECK))
    assert text.splitlines() == ["Nd4", "flip {", "  // own", "  Ka1", "}  // flipped", "check"]


def test_a_trailing_comment_opening_the_body_stands_on_the_header_line() -> None:
    text = print_query(one(compound(trailing(" the fork"), pd("Nd4"), pd("kf3"))))
    assert text == "cql()  // the fork\nNd4\nkf3\n"
    assert_cql(text)


def test_a_trailing_comment_after_a_comment_or_a_pragma_stands_alone() -> None:
    # `//` runs to the end of the line: a second comment there would join the first.
    text = body_text(compound(CHECK, trailing(" a"), trailing(" b")))
    assert text == "check  // a\n// b"
    text = body_text(compound(trailing(" opening"), CHECK), mark=ct.Mark.FIRST)
    assert text == "// cqllegacy: mark first\n// opening\ncheck"


def test_a_trailing_comment_never_swallows_the_code_after_it() -> None:
    # A line is a parenthesised group where it follows a trailing comment's line.
    group = ct.Line((ct.LineStep(compound(CHECK, trailing(" ) (")), 0, None), ct.LineStep(MATE)))
    text = print_query(one(group))
    assert_cql(text)
    assert read_query(text) == one(group)


def test_strings_holding_slashes_are_not_comments() -> None:
    text = body_text(compound(ct.Player("a//b"), trailing(" c"), CHECK))
    assert text == 'player "a//b"  // c\ncheck'


def test_comment_only_compound_gets_a_filter_for_cql() -> None:
    assert body_text(compound(ct.Comment(" c"))) == "{\n  // c\n  true\n}"


def test_a_comment_outside_a_compound_is_refused() -> None:
    with pytest.raises(NotExpressible, match="comment"):
        print_query(one(ct.Not(ct.Comment("x"))))


def test_pragma_like_comments_are_refused() -> None:
    with pytest.raises(NotExpressible, match="pragma"):
        print_query(one(compound(ct.Comment(" cqllegacy: lists"), pd("K"))))


def test_header_parameters_and_file_name_quoting() -> None:
    header = ct.Header(inputs=("my games.pgn",), output="out.pgn", gamenumber=(3, 9))
    query = ct.Query(header, (ct.TopList(pd("K"), matchcount=(2, 5), scope=ct.Scope.ALL),))
    text = print_query(query)
    assert text == (
        'cql(input "my games.pgn" output out.pgn gamenumber 3 9 matchcount 2 5 variations)\nK\n'
    )
    assert_cql(text)


@pytest.mark.parametrize(
    ("header", "construct"),
    [
        (ct.Header(inputs=("a.pgn", "b.pgn")), ":pgn"),
        (ct.Header(output="out.txt"), ":output"),
        (ct.Header(gamenumber=(5, None)), ":gamenumber"),
    ],
)
def test_header_settings_cql_cannot_say(header: ct.Header, construct: str) -> None:
    query = ct.Query(header, (ct.TopList(pd("K")),))
    with pytest.raises(NotExpressible, match=construct):
        print_query(query)
    text = print_query(query, approximate=True)
    assert text.startswith(f"// approximate: {construct}")
    assert_cql(text)


def test_mark_first_is_a_pragma_after_the_header() -> None:
    assert body_text(pd("K"), mark=ct.Mark.FIRST) == "// cqllegacy: mark first\nK"


def test_several_lists_use_initial_and_find() -> None:
    lists = (
        ct.TopList(compound(pd("Nd4"), pd("kf3")), mark=ct.Mark.FIRST),
        ct.TopList(ct.Simple(ct.Keyword.CHECK), matchcount=(2, 4)),
        ct.TopList(ct.Simple(ct.Keyword.MATE), matchcount=(1, None), mark=ct.Mark.NONE),
        ct.TopList(ct.Simple(ct.Keyword.STALEMATE), matchcount=(0, 0)),
    )
    text = print_query(ct.Query(ct.Header(), lists))
    assert text == (
        "cql()\n"
        "// cqllegacy: lists\n"
        "initial\n"
        "find {\n  // cqllegacy: mark first\n  Nd4\n  kf3\n}\n"
        "(2 <= (find all {check}) <= 4)\n"
        "(find all {\n  // cqllegacy: mark none\n  mate\n}) >= 1\n"
        "not (find {stalemate})\n"
    )
    shape = chessql_shape(text)
    assert [node[0] for node in shape] == ["Initial", "Find", "LE", "GE", "Not"]


def test_a_single_list_with_an_unbounded_match_count_uses_the_lists_form() -> None:
    assert body_text(pd("K"), matchcount=(3, None)) == (
        "// cqllegacy: lists\ninitial\n(find all {K}) >= 3"
    )


def test_lists_with_different_scopes_are_refused() -> None:
    lists = (ct.TopList(pd("K"), scope=ct.Scope.ALL), ct.TopList(pd("k")))
    with pytest.raises(NotExpressible, match="variations"):
        print_query(ct.Query(ct.Header(), lists))


# --------------------------------------------------------------------------------------
# Legacy-only nodes (T1)
# --------------------------------------------------------------------------------------

ORIGIN = ct.Origin(":relation", Span(4, 7))


@pytest.mark.parametrize(
    "node",
    [
        ct.Relation(origin=ORIGIN),
        ct.InRange(ct.RayCount((pd("R"), pd("k")), (Direction.UP,), origin=ORIGIN), 2, 2),
        ct.LegacyOnly(pd("K"), origin=ORIGIN),
    ],
)
def test_legacy_only_nodes_are_refused_with_their_place(node: ct.Filter) -> None:
    with pytest.raises(NotExpressible) as info:
        print_query(one(node))
    assert ":relation at 4:7" in str(info.value)
    assert (info.value.line, info.value.column) == (4, 7)
    text = print_query(one(node), approximate=True)
    assert "// approximate: :relation at 4:7" in text
    assert_cql(text)


def test_legacy_tags_become_piece_loops_at_the_start_position() -> None:
    # Two tags: the rook-or-queen tag may be a pawn that promotes later, the second tag
    # takes another piece than the first.
    first = ct.TagDeclaration("t", types_of("RQ"), origin=ct.Origin(":forany", Span(1, 8)))
    second = ct.TagDeclaration("u", types_of("k"))
    lists = (ct.TopList(ct.PieceVariable("t")), ct.TopList(ct.PieceVariable("u"), (2, 5)))
    query = ct.Query(ct.Header(), lists, tags=(first, second))
    text = print_query(query)
    assert text == (
        "cql()\n"
        "// cqllegacy: lists\n"
        "initial\n"
        "piece t in [QRP] {\n"
        "  find {t & [QR]}\n"
        "  piece u in (k & ~t) {find {u & k} find {t} (2 <= (find all {u}) <= 5)}\n"
        "}\n"
    )
    assert read_query(text) == query
    assert_cql(text)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("piece t in [RPrp] {find {t & a1}}", "opens with find"),
        ("piece t in [Rr] {find {t & [Rr]} find {t & a1}}", "wrong pieces"),
    ],
)
def test_the_reader_takes_only_the_tag_loops_the_printer_writes(body: str, message: str) -> None:
    from cqllegacy.modern.errors import ModernSyntaxError

    with pytest.raises(ModernSyntaxError, match=message):
        read_query(f"cql()\n// cqllegacy: lists\ninitial\n{body}\n")


def test_unbound_piece_variables_and_bad_names_are_refused() -> None:
    with pytest.raises(NotExpressible, match="piece variable x"):
        print_query(one(ct.PieceVariable("x")))
    with pytest.raises(NotExpressible, match="variable name"):
        print_query(one(ct.PieceLoop("a1", pd("A"), ct.PieceVariable("a1"))))


def test_every_core_filter_class_has_a_printer() -> None:
    missing = {cls.__name__ for cls in ct.node_classes()} - {c.__name__ for c in PRINTED}
    assert not missing


def test_very_deep_trees_print_without_exhausting_the_stack() -> None:
    node: ct.Filter = ct.Simple(ct.Keyword.CHECK)
    for _ in range(3000):
        node = ct.Not(node)
    text = print_query(one(node))
    assert text.count("not") == 3000
    assert_cql(text)
