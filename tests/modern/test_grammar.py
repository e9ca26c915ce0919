"""The modern reader: documented CQL 6 texts into hand-written trees, and its errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as ct
from cqllegacy.modern import ModernSyntaxError, read_query
from cqllegacy.vocab.pieces import types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction
from tests.support.modern import N, compound, pd

T = ct.TransformKind
K = ct.Keyword
CHECK, MATE = ct.Simple(K.CHECK), ct.Simple(K.MATE)


def body(text: str) -> ct.Filter:
    """The body of a one-list script ``cql() text``."""
    query = read_query(f"cql()\n{text}\n")
    (top,) = query.lists
    return top.body


def direction(word: str, arg: str, lo: int = 1, hi: int = 7) -> ct.DirectionSet:
    return ct.DirectionSet(Direction.from_word(word), pd(arg), lo, hi)


# --------------------------------------------------------------------------------------
# semantics: S-examples (and S-modern-syntax, S-modern-sets, S-attacks, S-mapping): documented
# texts, trees written by hand
# --------------------------------------------------------------------------------------

DOCUMENTED = [
    ("up 1 d4", direction("up", "d4", 1, 1)),
    ("up 1 3 d4", direction("up", "d4", 1, 3)),
    ("up d4", direction("up", "d4")),
    ("down 1 d4", direction("down", "d4", 1, 1)),
    ("left 1 [d4,e5]", direction("left", "[d4,e5]", 1, 1)),
    ("right a1-8", direction("right", "a1-8")),
    ("right 6 7 a-h2", direction("right", "a-h2", 6, 7)),
    ("up -2 d4", direction("up", "d4", -2, -2)),
    ("right -1 1 d4", direction("right", "d4", -1, 1)),
    ("shift Ka1", ct.Transform(T.SHIFT, pd("Ka1"))),
    ("shiftvertical {Ka1 ka7}", ct.Transform(T.SHIFTVERTICAL, compound(pd("Ka1"), pd("ka7")))),
    ("shift {K Ra1}", ct.Transform(T.SHIFT, compound(pd("K"), pd("Ra1")))),
    (
        "{Rh1 P[h2-7]} | {Rh2 P[h3-8]} | {Rh7 Ph8}",
        ct.Union(
            (
                compound(pd("Rh1"), pd("Ph2-7")),
                compound(pd("Rh2"), pd("Ph3-8")),
                compound(pd("Rh7"), pd("Ph8")),
            )
        ),
    ),
    ("flip {Ka1 kh8}", ct.Transform(T.FLIP, compound(pd("Ka1"), pd("kh8")))),
    ("flipvertical a1", ct.Transform(T.FLIPVERTICAL, pd("a1"))),
    ("fliphorizontal {Ka1 kh8}", ct.Transform(T.FLIPHORIZONTAL, compound(pd("Ka1"), pd("kh8")))),
    (
        "flip northeast 1 up 1 Q",
        ct.Transform(
            T.FLIP,
            ct.DirectionSet(Direction.NORTHEAST, direction("up", "Q", 1, 1), 1, 1),
        ),
    ),
    (
        "(northeast 1 right 1 Q) | (northeast 1 up 1 Q)",
        ct.Union(
            (
                ct.DirectionSet(Direction.NORTHEAST, direction("right", "Q", 1, 1), 1, 1),
                ct.DirectionSet(Direction.NORTHEAST, direction("up", "Q", 1, 1), 1, 1),
            )
        ),
    ),
    (
        "4==flip count [Rr]a1",
        ct.Compare(ct.CompareOp.EQ, N(4), ct.Transform(T.FLIP, pd("[Rr]a1"), count=True)),
    ),
    (
        "flipvertical count find {Qa1 qh8}",
        ct.Transform(T.FLIPVERTICAL, ct.Find(compound(pd("Qa1"), pd("qh8"))), count=True),
    ),
    ("Pa2 | pa7", ct.Union((pd("Pa2"), pd("pa7")))),
    ("reversecolor Ke1", ct.Transform(T.REVERSECOLOR, pd("Ke1"))),
    (
        "reversecolor 2==A attacks k",
        ct.Transform(
            T.REVERSECOLOR, ct.Compare(ct.CompareOp.EQ, N(2), ct.Attacks(pd("A"), pd("k")))
        ),
    ),
    (
        'reversecolor {player white "Kasparov" result 1-0}',
        ct.Transform(
            T.REVERSECOLOR,
            compound(ct.Player("Kasparov", ct.Color.WHITE), ct.Result(GameResult.WHITE_WINS)),
        ),
    ),
    ("reversecolor [Kk]h1-8", ct.Transform(T.REVERSECOLOR, pd("[Kk]h1-8"))),
    (
        "flipcolor {[Rnq]a3 wtm stalemate}",
        ct.Transform(
            T.FLIPCOLOR, compound(pd("[Rnq]a3"), ct.Simple(K.WTM), ct.Simple(K.STALEMATE))
        ),
    ),
    ("flipcolor A attacks q", ct.Transform(T.FLIPCOLOR, ct.Attacks(pd("A"), pd("q")))),
    ("flipcolor power A", ct.Transform(T.FLIPCOLOR, ct.Power(pd("A")))),
    ("#P attackedby K", ct.Count(ct.AttackedBy(pd("P"), pd("K")))),
    ("Q>1", ct.Compare(ct.CompareOp.GT, pd("Q"), N(1))),
    ("#Q>1", ct.Compare(ct.CompareOp.GT, ct.Count(pd("Q")), N(1))),
    ("2<P<=5", ct.Compare(ct.CompareOp.LT, N(2), ct.InRange(pd("P"), None, 5))),
    ("A attacks k > 1", ct.Compare(ct.CompareOp.GT, ct.Attacks(pd("A"), pd("k")), N(1))),
    (
        "#(A attacks k) > 1",
        ct.Compare(ct.CompareOp.GT, ct.Count(ct.Attacks(pd("A"), pd("k"))), N(1)),
    ),
    (". attackedby k", ct.AttackedBy(pd("."), pd("k"))),
    ("between(a1 c3)", ct.Between(pd("a1"), pd("c3"))),
    ("xray (R a k)", ct.XRay((pd("R"), pd("a"), pd("k")))),
    (
        "ray orthogonal (R R q k)",
        ct.Ray((pd("R"), pd("R"), pd("q"), pd("k")), Direction.ORTHOGONAL),
    ),
    ("power A >= 15", ct.InRange(ct.Power(pd("A")), 15, None)),
    ("elo", ct.Elo()),
    ("~.", ct.Complement(pd("."))),
    ("A attacks k | n", ct.Union((ct.Attacks(pd("A"), pd("k")), pd("n")))),
    (
        "flipcolor {btm mate _ attackedby k == 8}",
        ct.Transform(
            T.FLIPCOLOR,
            compound(ct.Simple(K.BTM), MATE, ct.InRange(ct.AttackedBy(pd("_"), pd("k")), 8, 8)),
        ),
    ),
    (
        "terminal mate flipcolor {A == K a == 3 b == 1 n == 1}",
        compound(
            ct.Simple(K.TERMINAL),
            MATE,
            ct.Transform(
                T.FLIPCOLOR,
                compound(
                    ct.Compare(ct.CompareOp.EQ, pd("A"), pd("K")),
                    ct.InRange(pd("a"), 3, 3),
                    ct.InRange(pd("b"), 1, 1),
                    ct.InRange(pd("n"), 1, 1),
                ),
            ),
        ),
    ),
    ("line --> check --> mate", ct.Line((ct.LineStep(CHECK), ct.LineStep(MATE)))),
    (
        "flipcolor shifthorizontal {#(P[b2-7]) == 4}",
        ct.Transform(
            T.FLIPCOLOR,
            ct.Transform(T.SHIFTHORIZONTAL, compound(ct.InRange(ct.Count(pd("Pb2-7")), 4, 4))),
        ),
    ),
]


@pytest.mark.parametrize(("text", "expected"), DOCUMENTED, ids=[t for t, _ in DOCUMENTED])
def test_documented_texts_read_into_the_expected_trees(text: str, expected: ct.Filter) -> None:
    assert body(text) == expected


def test_section_12_script() -> None:
    query = read_query("cql(input in.pgn)\nflipcolor flip shift {Nd4 kf3}\n")
    inner = compound(pd("Nd4"), pd("kf3"))
    expected = ct.Transform(T.FLIPCOLOR, ct.Transform(T.FLIP, ct.Transform(T.SHIFT, inner)))
    assert query == ct.Query(ct.Header(inputs=("in.pgn",)), (ct.TopList(expected),))


def test_section_14_48_script_with_header() -> None:
    text = 'cql(input i.pgn) flipcolor {player white "Ivanchuk" elo black >= 2000 result 1-0}'
    player = ct.Player("Ivanchuk", ct.Color.WHITE)
    elo = ct.InRange(ct.Elo(ct.Color.BLACK), 2000, None)
    inner = compound(player, elo, ct.Result(GameResult.WHITE_WINS))
    assert read_query(text) == ct.Query(
        ct.Header(inputs=("i.pgn",)), (ct.TopList(ct.Transform(T.FLIPCOLOR, inner)),)
    )


@pytest.mark.parametrize(
    "text",
    ["rotate45 ray up (R k)", "move legal from K", "lca(s t)", "currentposition"],
)
def test_documented_cql_outside_the_subset_gets_a_clear_error(text: str) -> None:
    with pytest.raises(ModernSyntaxError) as info:
        read_query(f"cql() {text}")
    assert info.value.line == 1


# --------------------------------------------------------------------------------------
# The rest of the subset
# --------------------------------------------------------------------------------------


def test_comparisons_with_a_literal_on_the_right_are_ranges_others_compares() -> None:
    assert body("#K == 2") == ct.InRange(ct.Count(pd("K")), 2, 2)
    assert body("1 <= #K <= 3") == ct.InRange(ct.Count(pd("K")), 1, 3)
    assert body("-3 <= power A - power a <= 5") == ct.InRange(
        ct.Arith(ct.ArithOp.SUB, ct.Power(pd("A")), ct.Power(pd("a"))), -3, 5
    )
    assert body("#K == (2)") == ct.Compare(ct.CompareOp.EQ, ct.Count(pd("K")), N(2))
    assert body("2 == #K") == ct.Compare(ct.CompareOp.EQ, N(2), ct.Count(pd("K")))
    assert body("#K != 2") == ct.Compare(ct.CompareOp.NE, ct.Count(pd("K")), N(2))
    assert body("1 <= (#K <= 3)") == ct.Compare(
        ct.CompareOp.LE, N(1), ct.InRange(ct.Count(pd("K")), None, 3)
    )


def test_count_reaches_over_plus_as_in_cql_6_1() -> None:
    # `#` sits below `+` in CQL 6.1, so `#K + 1` counts the set `K + 1` (a type error in CQL).
    assert body("(#K) + 1 == 2") == ct.InRange(
        ct.Arith(ct.ArithOp.ADD, ct.Count(pd("K")), N(1)), 2, 2
    )
    with pytest.raises(ModernSyntaxError, match="`#` needs a set of squares") as info:
        body("#K + 1")
    assert (info.value.line, info.value.column) == (2, 1)


def test_logic_precedence() -> None:
    assert body("not check and mate or stalemate") == ct.Or(
        (ct.And((ct.Not(CHECK), MATE)), ct.Simple(K.STALEMATE))
    )
    assert body("not #K == 1") == ct.Not(ct.InRange(ct.Count(pd("K")), 1, 1))


def test_line_quantifiers() -> None:
    text = (
        "line --> check+ --> mate* --> check? --> {mate}{2,3} --> check{2,} --> mate{,4} --> K{3}"
    )
    steps = body(text).steps
    assert [(s.lo, s.hi) for s in steps] == [
        (1, None), (0, None), (0, 1), (2, 3), (2, None), (0, 4), (3, 3)
    ]  # fmt: skip
    assert steps[3].filter == compound(MATE)


def test_moves() -> None:
    assert body("move from K to _") == ct.Move(from_=pd("K"), to=pd("_"))
    assert body("move previous capture q enpassant") == ct.Move(
        capture=pd("q"), enpassant=True, previous=True
    )
    # CQL 6.1 promote has no colour; the pawn's colour is said by `from`.
    assert body("move promote [RBN]") == ct.Move(promote=types_of("RBNrbn"))
    assert body("move from P promote Q") == ct.Move(promote=types_of("Q"))
    assert body("move from (Pa-d7 & p) promote N") == ct.Move(
        from_=pd("Pa-d7"), promote=types_of("n")
    )


def test_players_events_and_sites() -> None:
    assert body('player "Kasparov"') == ct.Player("Kasparov")
    assert body('player black "Carlsen"') == ct.Player("Carlsen", ct.Color.BLACK)
    assert body('"x+y" in player white') == ct.Player("x+y", ct.Color.WHITE)
    assert body('"kasp" in lowercase player') == ct.Player("kasp", ignore_case=True)
    assert body('event "Ch"') == ct.TagContains(ct.TagName.EVENT, "Ch")
    assert body('"Zee" in site') == ct.TagContains(ct.TagName.SITE, "Zee")


def test_piece_loops_bind_variables() -> None:
    assert body("piece x in A {x attacks k}") == ct.PieceLoop(
        "x", pd("A"), compound(ct.Attacks(ct.PieceVariable("x"), pd("k")))
    )


def test_comments_become_nodes_only_where_a_filter_could_start() -> None:
    text = (
        "// before\ncql(input x.pgn // in the header\n)\n"
        "// first\nKa1 /* block */ or // inside an expression\n kh8\n"
        "{\n  // inner\n  check\n}\n// last\n"
    )
    query = read_query(text)
    assert query.leading_comments == (" before",)
    assert query.lists[0].body == compound(
        ct.Comment(" first"),
        ct.Or((pd("Ka1"), pd("kh8"))),
        compound(ct.Comment(" inner"), CHECK),
        ct.Comment(" last"),
    )


def test_a_comment_after_code_on_its_line_trails_that_code() -> None:
    text = (
        "cql()  // the fork\n"
        "flip {  // both sides\n  Nd4 /* knight */  // the knight\n  /* x */ // own line\n"
        "  kf3 // the king\n}\n"
        "// last\n"
    )
    assert read_query(text).lists[0].body == compound(
        ct.Comment(" the fork", trailing=True),
        ct.Transform(
            ct.TransformKind.FLIP,
            compound(
                ct.Comment(" both sides", trailing=True),
                pd("Nd4"),
                ct.Comment(" the knight", trailing=True),
                ct.Comment(" own line"),
                pd("kf3"),
                ct.Comment(" the king", trailing=True),
            ),
        ),
        ct.Comment(" last"),
    )


def test_header_parameters() -> None:
    query = read_query(
        'cql(input "my games.pgn" output o.pgn gamenumber 2 9 matchcount 3 variations) K'
    )
    assert query.header == ct.Header(inputs=("my games.pgn",), output="o.pgn", gamenumber=(2, 9))
    (top,) = query.lists
    assert (top.matchcount, top.scope, top.mark) == ((3, 3), ct.Scope.ALL, ct.Mark.ALL)


def test_header_result_is_a_body_filter() -> None:
    assert body_of("cql(result 1/2-1/2) K") == compound(ct.Result(GameResult.DRAW), pd("K"))


def body_of(text: str) -> ct.Filter:
    return read_query(text).lists[0].body


def test_pragmas() -> None:
    query = read_query("cql()\n// cqllegacy: mark none\nK\n")
    assert query.lists[0].mark is ct.Mark.NONE
    query = read_query(
        "cql(variations)\n// cqllegacy: lists\ninitial\nfind {K}\n"
        "not find {\n// cqllegacy: mark first\nk\n}\n2 <= (find all check) <= 5\n"
    )
    assert query.lists == (
        ct.TopList(pd("K"), scope=ct.Scope.ALL),
        ct.TopList(pd("k"), (0, 0), ct.Mark.FIRST, ct.Scope.ALL),
        ct.TopList(CHECK, (2, 5), scope=ct.Scope.ALL),
    )


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


def error(text: str) -> ModernSyntaxError:
    with pytest.raises(ModernSyntaxError) as info:
        read_query(text, path="q.cql")
    return info.value


def test_unknown_word_names_the_place_and_the_closest_keyword() -> None:
    err = error("cql(input a.pgn)\n  flipcolour {Ka1}\n")
    assert (err.line, err.column, err.text) == (2, 3, "flipcolour")
    assert err.hint == "did you mean 'flipcolor'?"
    assert "a filter" in err.expected
    assert err.render() == (
        "q.cql:2:3: error: unknown word 'flipcolour'\n"
        f"    expected {err.expected}\n"
        "    hint: did you mean 'flipcolor'?\n"
        "      flipcolour {Ka1}\n"
        "      ^"
    )


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("cql() between (a1", "unexpected end of script", 1, 18),
        ("Ka1", "unexpected 'Ka1'", 1, 1),
        ("cql() K )", "unexpected ')'", 1, 9),
        ("cql() line <-- check", "unexpected '<--'", 1, 12),
        ("cql()\n{}", "a { } needs at least one filter", 2, 1),
        ("cql()", "the body needs at least one filter", 1, 6),
        ("cql() move promote K", "promote needs Q, R, B or N", 1, 7),
        ('cql() "a" == K', "a string can only stand before", 1, 7),
        ("cql() ray up right (A k)", "no single direction", 1, 7),
        ("cql(sort matchcount 1 2) K", "'sort' is CQL 6 but not in the subset", 1, 5),
        ("cql(input a input b) K", "two input parameters", 1, 13),
        ("cql() K\n// cqllegacy: mark first\n", "can only open the body", 2, 1),
        ("cql()\n// cqllegacy: sparkle\nK", "unknown pragma", 2, 1),
        ("cql() piece x in A {x} x", "piece variable 'x' is unbound", 1, 24),
        ('cql() "Kas" in lowercase player', "must be lowercase ASCII", 1, 7),
        ("cql() move from K from Q", "two from parameters", 1, 19),
    ],
)
def test_errors_are_located(text: str, message: str, line: int, column: int) -> None:
    err = error(text)
    assert message in err.message
    assert (err.line, err.column) == (line, column)
    assert err.file == "q.cql"


def test_deep_nesting_is_refused_before_parsing() -> None:
    err = error("cql() " + "(" * 500 + "K" + ")" * 500)
    assert "nest deeper" in err.message


def test_long_prefix_chains_read_up_to_the_depth_limit() -> None:
    node = body("not " * 150 + "check")
    for _ in range(150):
        assert isinstance(node, ct.Not)
        node = node.arg
    assert node == CHECK
    assert "more than 200 deep" in error("cql() " + "not " * 400 + "check").message


VALID = [
    "cql(input in.pgn)\nflipcolor flip shift {Nd4 kf3}\n",
    'cql() flipcolor {player white "Ivanchuk" elo black >= 2000 result 1-0}',
    "cql(variations)\n// cqllegacy: lists\ninitial\nfind {K}\n(find all {check}) >= 2\n",
    "cql() line --> check+ --> {mate}{2,3} --> (A attacks k)? --> mate\n",
    "cql() move previous from (K & P) to a-h8 capture [Aa] promote [QR] enpassant\n",
    "cql() piece x in A {x attacks k} 1 <= #(up 1 3 d4 | ~_) <= 3 /* c */ // d\n",
    'cql() "x+y" in lowercase player black or not ray diagonal (A k) and between (a1 c3)\n',
]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(VALID),
    st.lists(
        st.tuples(
            st.integers(0, 200),
            st.integers(0, 6),
            st.sampled_from(
                ["", "(", ")", "{", "}", "[", "]", '"', "-->", "#", "-", "not", "x", "//",
                 "/*", "\n", "piece y in", "cqllegacy:", "== 3", "move", "{2,",
                 "//cqllegacy: lists\n"]
            ),
        ),
        min_size=1,
        max_size=4,
    ),
)  # fmt: skip
def test_mutated_scripts_raise_only_modern_syntax_errors(
    text: str, edits: list[tuple[int, int, str]]
) -> None:
    for at, cut, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + cut :]
    try:
        query = read_query(text)
    except ModernSyntaxError as err:
        assert err.line >= 1 and err.column >= 1
        assert err.render()
    else:
        assert isinstance(query, ct.Query)


# --------------------------------------------------------------------------------------
# Piece variables, echo and positions (semantics: S-piece-variables, S-echo)
# --------------------------------------------------------------------------------------

SRC, TGT = ct.PositionVariable("s"), ct.PositionVariable("t")


def test_documented_one_liners_read_into_the_expected_trees() -> None:
    promoting = ct.PieceVariable("Promoting")
    assert body("piece Promoting in Pa-h2 find Promoting&a-h8") == ct.PieceLoop(
        "Promoting", pd("Pa-h2"), ct.Find(ct.Intersection((promoting, pd("a-h8"))))
    )
    assert body("echo (s t) s&t == .") == ct.Echo(
        "s", "t", ct.Compare(ct.CompareOp.EQ, ct.PositionIntersection(SRC, TGT), pd("."))
    )
    assert body("echo (s t) sidetomove == s:sidetomove") == ct.Echo(
        "s", "t", ct.Compare(ct.CompareOp.EQ, ct.SideToMove(), ct.AtPosition(SRC, ct.SideToMove()))
    )
    # S-examples E45: every white piece is attacked by a black one.
    assert body("A in {. attackedby a}") == ct.InSet(
        pd("A"), compound(ct.AttackedBy(pd("."), pd("a")))
    )


def test_echo_forms() -> None:
    assert body("echo quiet (s t) in all {s < t ancestor(s t) mainline variation}") == ct.Echo(
        "s",
        "t",
        compound(
            ct.Compare(ct.CompareOp.LT, SRC, TGT),
            ct.Ancestor(SRC, TGT),
            ct.Simple(K.MAINLINE),
            ct.Simple(K.VARIATION),
        ),
        in_all=True,
        quiet=True,
    )
    # `:` binds tighter than everything and is right-associative; `S & T` heads a chain.
    assert body("echo (s t) t:s:Q") == ct.Echo(
        "s", "t", ct.AtPosition(TGT, ct.AtPosition(SRC, pd("Q")))
    )
    assert body("echo (s t) s&t&a1") == ct.Echo(
        "s", "t", ct.Intersection((ct.PositionIntersection(SRC, TGT), pd("a1")))
    )
    assert body("piece all x in A x attacks k") == ct.PieceLoop(
        "x", pd("A"), ct.Attacks(ct.PieceVariable("x"), pd("k")), all=True
    )


def test_the_queen_staircase_reads_as_a_repeated_group() -> None:
    def queen(word: str) -> ct.Move:
        return ct.Move(from_=pd("Q"), to=ct.DirectionSet(Direction.from_word(word), pd("Q"), 1, 1))

    text = (
        "line --> (move from Q to up 1 Q --> move from Q to right 1 Q)+ --> move from Q to up 1 Q ?"
    )
    pair = ct.LineGroup((ct.LineStep(queen("up")), ct.LineStep(queen("right"))))
    assert body(text) == ct.Line((ct.LineStep(pair, 1, None), ct.LineStep(queen("up"), 0, 1)))
    # A group without a repetition is its constituents in place; `(A)+` is a filter.
    assert body("line --> (check --> mate) --> (check)+") == ct.Line(
        (ct.LineStep(CHECK), ct.LineStep(MATE), ct.LineStep(CHECK, 1, None))
    )


def test_direction_arguments_reach_over_attacks() -> None:
    # The direction page's reading (decision M10): the set [d-f2,f1,d1] at the start.
    assert body("right 1 A attackedby Q") == ct.DirectionSet(
        Direction.RIGHT, ct.AttackedBy(pd("A"), pd("Q")), 1, 1
    )
    assert body("(right 1 A) attackedby Q") == ct.AttackedBy(
        ct.DirectionSet(Direction.RIGHT, pd("A"), 1, 1), pd("Q")
    )
    assert body("up 1 K & A") == ct.Intersection(
        (ct.DirectionSet(Direction.UP, pd("K"), 1, 1), pd("A"))
    )


@pytest.mark.parametrize(
    ("text", "column", "message", "hint"),
    [
        ("ecco (s t) check", 1, "unknown word 'ecco'", "did you mean 'echo'?"),
        ("sidetomov == 1", 1, "unknown word 'sidetomov'", "did you mean 'sidetomove'?"),
        ("echo (s t) in al check", 15, "unknown word 'al'", "did you mean 'all'?"),
        ("echo (s s) check", 1, "two different names", ""),
        ("echo (s t) check s:Q", 18, "position 's' is unbound here", ""),
        ("piece x in A echo (x t) check", 14, "'x' is already bound", ""),
        ("line --> (check --> (mate --> check)+)+", 10, "one level deep", ""),
        ("A in 3", 1, "`in` needs a set of squares, and a number gives no set", ""),
        ("ancestor(a1 b2)", 1, "`ancestor` needs a position here", ""),
        ("echo (s t) s & a1", 12, "is a position", ""),
        ("echo (s t) s == 3", 12, "is a position", ""),
        ("echo (s t) s != t", 12, "write `not S == T`", ""),
        (
            "piece p in P find p & a-h8",
            1,
            "'p' cannot name a variable: it is a piece designator",
            "",
        ),
        ("echo (s move) check", 1, "'move' cannot name a variable: it is a CQL word", ""),
        ("piece all x in A", 17, "unexpected end of script", ""),
    ],
)
def test_mistakes_with_the_new_constructs_are_located(
    text: str, column: int, message: str, hint: str
) -> None:
    with pytest.raises(ModernSyntaxError) as info:
        read_query(f"cql()\n{text}\n")
    error = info.value
    assert (error.line, error.column) == (2, column), str(error)
    assert message in str(error)
    assert hint in error.render()
