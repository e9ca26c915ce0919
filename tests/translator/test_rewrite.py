"""Legacy constructs → core trees, written by hand from docs/semantics.md (S-mapping and the
decisions; expected designators are spelled in CQL 6 syntax via ``pd``)."""

from __future__ import annotations

import pytest
from cqllegacy.translator import TranslationError, to_core

from cqllegacy.core.tree import (
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Color,
    Comment,
    Compound,
    Count,
    Elo,
    Filter,
    Find,
    Header,
    InRange,
    Intersection,
    Keyword,
    Line,
    LineStep,
    Mark,
    Move,
    Negate,
    Not,
    NumericKeyword,
    NumericValue,
    Or,
    PieceVariable,
    Player,
    Power,
    Query,
    Ray,
    RayCount,
    Relation,
    RelationScope,
    RelationSideToMove,
    Result,
    Scope,
    Simple,
    TagDeclaration,
    TopList,
    Transform,
    TransformKind,
)
from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.evaluator.testing import game_from_pgn, pd
from cqllegacy.legacy import read_script
from cqllegacy.vocab.pieces import types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction

TRUE, FALSE = Simple(Keyword.TRUE), Simple(Keyword.FALSE)
WTM, BTM, CHECK, MAINLINE = (
    Simple(k) for k in (Keyword.WTM, Keyword.BTM, Keyword.CHECK, Keyword.MAINLINE)
)


def query(text: str) -> Query:
    return to_core(read_script(text))


def body(position_items: str) -> tuple[Filter, ...]:
    """The constituents of the body of ``(match (position …))``."""
    (top,) = query(f"(match (position {position_items}))").lists
    return constituents(top.body)


def constituents(f: Filter) -> tuple[Filter, ...]:
    """A body's constituents: a compound's items, or the one filter."""
    return f.items if isinstance(f, Compound) else (f,)


# --- designators and simple keywords -------------------------------------------------------


@pytest.mark.parametrize(
    ("legacy", "modern"),
    [
        ("Ra3", "Ra3"),
        (".d4", "_d4"),
        ("?b2", "b2"),
        ("U[a1,h1,a8,h8]", "[Aa][a1,h1,a8,h8]"),
        ("M", "[QR]"),
        ("m?1", "[qr]a-h1"),
        ("I", "[BN]"),
        ("i[c?,g?]", "[bn][c1-8,g1-8]"),
        ("[Ar][a-h1-2,a8,h8]", "[Ar][a-h1-2,a8,h8]"),
        ("?", "."),
    ],
)
def test_designators(legacy: str, modern: str) -> None:
    assert body(legacy) == (pd(modern),)


def test_an_empty_designator_never_matches() -> None:
    assert body("R[] Ka1") == (FALSE,)


@pytest.mark.parametrize(
    ("legacy", "expected"),
    [
        (":mate", Simple(Keyword.MATE)),
        (":stalemate", Simple(Keyword.STALEMATE)),
        (":check", CHECK),
        (":nocheck", Not(CHECK)),
        (":wtm", WTM),
        (":btm", BTM),
        (":initial", Simple(Keyword.INITIAL)),
        (":movenumber 35", InRange(NumericValue(NumericKeyword.MOVENUMBER), 35, 35)),
        (":result 1/2", Result(GameResult.DRAW)),
        (":whiteelo 0 2300", InRange(Elo(Color.WHITE), 0, 2300)),
        (":blackelo 2600 3000", InRange(Elo(Color.BLACK), 2600, 3000)),
        # L9: some present rating in the range (modern `elo` alone is the larger one).
        (
            ":elo 2500 unlimited",
            Or((InRange(Elo(Color.WHITE), 2500, None), InRange(Elo(Color.BLACK), 2500, None))),
        ),
    ],
)
def test_simple_keywords(legacy: str, expected: Filter) -> None:
    assert body(legacy) == (expected,)


def test_not_negates_the_whole_list() -> None:
    assert body("Ra3 :wtm :not") == (Not(Compound((pd("Ra3"), WTM))),)
    assert body("Ra3 :not") == (Not(pd("Ra3")),)


# --- counts -------------------------------------------------------------------------------


def test_piececount_examples() -> None:
    assert body(":piececount R 2") == (InRange(Count(pd("R")), 2, 2),)
    assert body("Nd4 :piececount [Rr][a1-8] 1 3 :piececount [Qq][a-h8] 4") == (
        pd("Nd4"),
        InRange(Count(pd("[Rr]a1-8")), 1, 3),
        InRange(Count(pd("[Qq]a-h8")), 4, 4),
    )
    # An empty designator counts 0 (L5).
    assert body(":piececount R[] 0") == (TRUE,)
    assert body(":piececount R[] 1") == (FALSE,)


def test_power_and_power_difference() -> None:
    assert body(":power a 6") == (InRange(Power(pd("a")), 6, 6),)
    assert body(":powerdifference U 4") == (
        InRange(Arith(ArithOp.SUB, Power(pd("A")), Power(pd("a"))), 4, 4),
    )
    assert body(":powerdifference [Rr] -5 10") == (
        InRange(Arith(ArithOp.SUB, Power(pd("R")), Power(pd("r"))), -5, 10),
    )
    assert body(":powerdifference r -10 -2") == (InRange(Negate(Power(pd("r"))), -10, -2),)


def test_attackcount_with_a_single_target_or_attacker_is_a_plain_count() -> None:
    # L6 counts (attacker, target) pairs; with one possible target square, that is the
    # number of attackers (semantics: S-mapping, double check).
    assert body(":attackcount A k 2") == (InRange(Count(Attacks(pd("A"), pd("k"))), 2, 2),)
    assert body(":attackcount A .h3 1") == (InRange(Count(Attacks(pd("A"), pd("_h3"))), 1, 1),)
    # One attacker (the king): the number of target squares it attacks.  An empty
    # square attacks nothing, so `.` drops out of an attacker designator.
    assert body(":attackcount k . 8") == (InRange(Count(AttackedBy(pd("_"), pd("k"))), 8, 8),)


def test_attackcount_in_general_sums_over_single_square_parts() -> None:
    terms = [Count(AttackedBy(pd("a-h1"), pd(f"[RB]{f}8"))) for f in "abc"]
    expected = Arith(ArithOp.ADD, Arith(ArithOp.ADD, terms[0], terms[1]), terms[2])
    assert body(":attackcount [RB][a-c8] ??1 5 9") == (InRange(expected, 5, 9),)


# --- rays (L20) -----------------------------------------------------------------------------


def test_ray_existence_is_the_modern_ray() -> None:
    assert body(":ray (k Q)") == (Ray((pd("k"), pd("Q"))),)
    assert body(":rayorthogonal ([qr] .d4 K)") == (
        Ray((pd("[qr]"), pd("_d4"), pd("K")), Direction.ORTHOGONAL),
    )
    assert body(":ray (Q n k) 0") == (Not(Ray((pd("Q"), pd("n"), pd("k")))),)
    assert body(":rayattack (A a k)") == (
        Or(
            (
                Ray((pd("[RQ]"), pd("a"), pd("k")), Direction.ORTHOGONAL),
                Ray((pd("[BQ]"), pd("a"), pd("k")), Direction.DIAGONAL),
            )
        ),
    )


def test_ray_counts_sum_over_directions_when_no_designator_admits_an_empty_square() -> None:
    (part,) = body(":rayhorizontal (R R) 2")
    left = Count(Ray((pd("R"), pd("R")), Direction.LEFT))
    right = Count(Ray((pd("R"), pd("R")), Direction.RIGHT))
    assert part == InRange(Arith(ArithOp.ADD, right, left), 2, 2)


def test_ray_counts_through_empty_squares_count_from_the_single_end() -> None:
    # One black king: every ray ends on it, so the rays from it, reversed, are the count.
    (part,) = body(":rayvertical (Q .d4 k) 2 3")
    assert part == InRange(Count(Ray((pd("k"), pd("_d4"), pd("Q")), Direction.VERTICAL)), 2, 3)


def test_ray_counts_with_no_single_end_sum_over_start_squares() -> None:
    (part,) = body(":rayhorizontal (R[a1,b1] . R) 1 2")
    assert isinstance(part, InRange)
    left, right = (pd("Ra1"), pd("_"), pd("R")), (pd("Rb1"), pd("_"), pd("R"))
    assert part.value == Arith(
        ArithOp.ADD,
        Count(Ray(left, Direction.HORIZONTAL)),
        Count(Ray(right, Direction.HORIZONTAL)),
    )


RAY_SPECS = [
    (":ray", "Q . k"),
    (":ray", "[Qq] . ."),
    (":ray", ". . R"),
    (":raydiagonal", "B ? k"),
    (":rayorthogonal", "[RQ] [.A] [.a]"),
    (":rayhorizontal", "[R.] . [r.]"),
    (":rayvertical", "? ?"),
    (":rayattack", "A . a k"),
    (":rayattack", "[A.] [a.]"),
]


@pytest.mark.parametrize(("keyword", "designators"), RAY_SPECS)
def test_ray_count_renderings_count_what_the_legacy_count_counts(
    keyword: str, designators: str
) -> None:
    # The legacy count (L20, cqllegacy.vocab.rays.ray_count through the RayCount node)
    # against the rendering, on the positions of a few games.
    from cqllegacy.evaluator.evaluate import evaluate_filter
    from cqllegacy.evaluator.testing import position

    (part,) = body(f"{keyword} ({designators}) 0 64")
    assert isinstance(part, InRange)
    legacy = _legacy_ray_count(keyword, designators)
    fens = [
        "4k3/8/8/8/8/8/R6R/4K3 w - - 0 1",
        "r3k2r/1b4bq/8/3Q4/8/2B5/R6R/4K3 b - - 0 1",
        "8/8/2q5/8/k3Q2R/8/8/R3K2B w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "7k/8/8/8/3B4/8/1Q6/K6R w - - 0 1",
        "4k3/8/4r3/8/8/8/8/4R2K w - - 0 1",
    ]
    for fen in fens:
        board = position(fen)
        assert evaluate_filter(part.value, board) == evaluate_filter(legacy, board), fen


def _legacy_ray_count(keyword: str, designators: str) -> RayCount:
    from cqllegacy.translator.parts import piece_filter

    from cqllegacy.legacy import read_script

    (item,) = read_script(f"(match (position {keyword} ({designators})))").match.position_lists()[
        0
    ].items
    args = tuple(piece_filter(d) for d in item.designators)
    assert all(a is not None for a in args)
    directions = {
        ":ray": Direction.ANYDIRECTION,
        ":rayattack": Direction.ANYDIRECTION,
        ":raydiagonal": Direction.DIAGONAL,
        ":rayorthogonal": Direction.ORTHOGONAL,
        ":rayhorizontal": Direction.HORIZONTAL,
        ":rayvertical": Direction.VERTICAL,
    }[keyword]
    basics = tuple(
        d for d in Direction if len(d.vectors) == 1 and d.vectors <= directions.vectors
    )
    return RayCount(args, basics, keyword == ":rayattack")  # type: ignore[arg-type]


# --- the next move (L7) ---------------------------------------------------------------------


def test_move_keywords_describe_one_move() -> None:
    assert body(":movefrom Ra3") == (Move(from_=pd("Ra3")),)
    assert body(":moveto .a3") == (Move(to=pd("_a3")),)
    assert body(":promote [RBN]") == (Move(promote=types_of("RBN")),)
    # fxe8=R capturing a queen.
    assert body(":promote Re8 :movefrom Pf7 :moveto q") == (
        Move(from_=pd("Pf7"), to=pd("qe8"), promote=types_of("R")),
    )
    assert body(":moveto .e6 :enpassant") == (Move(to=pd("_e6"), enpassant=True),)
    # Castling (castle.cql).
    assert body(":movefrom [Kk]e? :moveto .[c?,g?]") == (
        Move(from_=pd("[Kk]e1-8"), to=pd("_[c1-8,g1-8]")),
    )


def test_noenpassant_needs_a_next_move() -> None:
    assert body(":noenpassant") == (Move(), Not(Move(enpassant=True)))
    assert body(":enpassant :noenpassant") == (FALSE,)


# --- sequences -----------------------------------------------------------------------------


def test_sequence_is_a_line() -> None:
    assert body("Re8 :sequence ((position Qf3 .g2) (position .f3 Qg2))") == (
        pd("Re8"),
        Line(
            (
                LineStep(Compound((pd("Qf3"), pd("_g2")))),
                LineStep(Compound((pd("_f3"), pd("Qg2")))),
            )
        ),
    )


def test_gapped_sequence_l21() -> None:
    gap = LineStep(TRUE, 0, None)
    a = Compound((Move(from_=pd("Ra3")),))
    b = Compound((Move(from_=pd("Rb4")),))
    assert body(":gappedsequence ((position :movefrom Ra3) (position :movefrom Rb4))") == (
        Line((gap, LineStep(a), gap, LineStep(b))),
    )
    # A leading empty list: the knight reaches d4 strictly later.
    assert body(":gappedsequence ((position) (position Nd4))") == (
        Line((gap, LineStep(TRUE), gap, LineStep(Compound((pd("Nd4"),))))),
    )
    assert body(":gappedsequence ((position Nd4))") == (Find(Compound((pd("Nd4"),))),)


def test_and_or() -> None:
    assert body(":or ((position Ra1) (position Rh1))") == (
        Or((Compound((pd("Ra1"),)), Compound((pd("Rh1"),)))),
    )
    assert body(":and ((position Ra1) (position Rh1))") == (
        Compound((pd("Ra1"),)),
        Compound((pd("Rh1"),)),
    )


# --- transforms (T2) -----------------------------------------------------------------------


def test_knight_attacks_king_is_the_idiomatic_modern_form() -> None:
    # (position Nd4 kf3 :shift :flip :flipcolor) = flipcolor flip shift {Nd4 kf3}
    # (semantics: S-mapping).
    expected = Transform(
        TransformKind.FLIPCOLOR,
        Transform(
            TransformKind.FLIP, Transform(TransformKind.SHIFT, Compound((pd("Nd4"), pd("kf3"))))
        ),
    )
    assert body("Nd4 kf3 :shift :flip :flipcolor") == (expected,)


def test_quadrupled_pawns() -> None:
    # semantics: S-examples E52.
    expected = Transform(
        TransformKind.FLIPCOLOR,
        Transform(TransformKind.SHIFTHORIZONTAL, Compound((InRange(Count(pd("P[b2-7]")), 4, 4),))),
    )
    assert body(":piececount P[b2-7] 4 :shifthorizontal :flipcolor") == (expected,)


def test_trailing_edges_force_the_explicit_union() -> None:
    # S-unit-shifts: the pawn on the a-file smears to the right, which no modern shift does.
    (part,) = body("Pa4 Nd4 :shifthorizontal")
    assert part == Or(
        tuple(
            Compound((pd(f"P{pawns}"), pd(f"N{knight}4")))
            for pawns, knight in [
                ("a4", "d"),
                ("a-b4", "e"),
                ("a-c4", "f"),
                ("a-d4", "g"),
                ("a-e4", "h"),
            ]
        )
    )


def test_a_colour_symmetric_list_needs_no_transform() -> None:
    assert body("[Kk]h1-8 :flipcolor") == (pd("[Kk]h1-8"),)
    assert body("K :shift") == (pd("K"),)


def test_diagonal_flip_has_no_modern_transform() -> None:
    assert body("Ra8 kc3 :flipdiagonal") == (
        Or((Compound((pd("Ra8"), pd("kc3"))), Compound((pd("Rh1"), pd("kc3"))))),
    )


def test_not_negates_the_transformed_disjunction() -> None:
    assert body("Ke4 :not :flipcolor") == (
        Not(Transform(TransformKind.FLIPCOLOR, Compound((pd("Ke4"),)))),
    )


# --- comments (T3) ---------------------------------------------------------------------------


def test_comments_stay_in_place_also_inside_a_modern_transform() -> None:
    q = query(
        "; a study\n(match ; kings\n (position Ka1 ; white king\n kh8 :flip ; corners\n)"
        " (position :check ; the end\n)) ; bye"
    )
    assert q.leading_comments == (" a study",)
    first, second = (top.body for top in q.lists)
    # A comment on the line of an item trails it; one on a line of its own does not.
    white_king, corners = Comment(" white king", True), Comment(" corners", True)
    kings = Compound((pd("Ka1"), white_king, pd("kh8"), corners))
    assert first == Compound((Comment(" kings"), Transform(TransformKind.FLIP, kings)))
    assert second == Compound((CHECK, Comment(" the end", True), Comment(" bye")))
    # A comment never starts with '/' (that would read as a CQL 6.2 '///').  This one
    # stands on the line of the list's opening, so it trails the opening.
    (top,) = query("(match (position ;/x\n Ka1))").lists
    assert top.body == Compound((Comment(" /x", True), pd("Ka1")))


def test_comments_leave_an_explicit_union_once_before_it() -> None:
    # :flipdiagonal has no modern transform: the union is explicit, its comments above it.
    (top,) = query("(match (position Ka1 ; white king\n kb2 :flipdiagonal))").lists
    assert isinstance(top.body, Compound)
    assert top.body.items[0] == Comment(" white king")
    assert top.body.find(Comment) is top.body.items[0]


def test_comments_among_the_lists_of_an_and_stand_next_to_them() -> None:
    (top,) = query(
        "(match (position :and (\n ; the king\n (position Ka1) ; in the corner\n"
        " ; the queen\n (position Qb2))))"
    ).lists
    assert top.body == Compound(
        (
            Comment(" the king"),
            Compound((pd("Ka1"),)),
            Comment(" in the corner", True),
            Comment(" the queen"),
            Compound((pd("Qb2"),)),
        )
    )


# --- the match list -----------------------------------------------------------------------------


def test_match_list_example() -> None:
    q = query(
        "(match :pgn heijden.pgn :output out.pgn :player costeff :result 1-0"
        " :gamenumber 10 1000 :year 1934 2000 (position))"
    )
    assert q.header == Header(("heijden.pgn",), "out.pgn", (10, 1000))
    year = InRange(NumericValue(NumericKeyword.YEAR), 1934, 2000)
    # L10: either player, any case; one test per colour (CQL 6.1 documents those).
    costeff = Or(
        (
            Player("costeff", Color.WHITE, ignore_case=True),
            Player("costeff", Color.BLACK, ignore_case=True),
        )
    )
    assert q.lists == (
        TopList(
            Compound((costeff, Result(GameResult.WHITE_WINS), year)),
            mark=Mark.FIRST,
        ),
    )


def test_player_case_only_matters_with_letters() -> None:
    (top,) = query("(match :player 2024 (position))").lists
    assert top.body == Player("2024")
    # Case-insensitive text is kept in lower case (the printer's canonical form).
    (top,) = query("(match :player Costeff (position))").lists
    assert top.body == Or(
        (
            Player("costeff", Color.WHITE, ignore_case=True),
            Player("costeff", Color.BLACK, ignore_case=True),
        )
    )
    assert str(top.body.items[0].origin) == ":player at 1:8"  # type: ignore[attr-defined]


def test_game_conditions_avoid_a_list_that_may_match_nowhere() -> None:
    q = query("(match :result 1-0 (position :check :matchcount 0) (position :mate))")
    assert q.lists[0] == TopList(CHECK, (0, 0), Mark.FIRST)
    assert q.lists[1].body == Compound((Result(GameResult.WHITE_WINS), Simple(Keyword.MATE)))
    alone = query("(match :result 1-0 (position :check :matchcount 0))")
    assert alone.lists[1] == TopList(Result(GameResult.WHITE_WINS), mark=Mark.NONE)


def test_several_lists_marks_and_match_counts() -> None:
    q = query(
        "(match (position :promote [Qq] :markall) (position :promote [Rr] :noannotate)"
        " (position :moveto [Qq] :matchcount 4 100))"
    )
    assert [t.mark for t in q.lists] == [Mark.ALL, Mark.NONE, Mark.FIRST]
    assert [t.matchcount for t in q.lists] == [None, None, (4, 100)]


def test_scopes() -> None:
    q = query("(match (position :check) (position Ra1 :variations) (position Rh1 :variationsonly))")
    assert [t.scope for t in q.lists] == [Scope.ALL] * 3
    assert [t.body for t in q.lists] == [
        Compound((MAINLINE, CHECK)),
        pd("Ra1"),
        Compound((Not(MAINLINE), pd("Rh1"))),
    ]
    # A main-line list that looks at the next move keeps the main-line scope: under
    # Scope.ALL its move filter would also see the first moves of variations.
    q = query("(match (position :movefrom Ra1) (position Ra1 :variations))")
    assert q.lists[0] == TopList(Move(from_=pd("Ra1")), mark=Mark.FIRST)


def test_pretransformmatchcount() -> None:
    # Twelve captures on one and the same square.
    (top,) = query("(match (position :moveto [Aa]d4 :pretransformmatchcount 12 1000 :shift))").lists
    find = Find(Compound((Move(to=pd("[Aa]d4")),)), all=True)
    assert top == TopList(
        Compound(
            (Simple(Keyword.INITIAL), Transform(TransformKind.SHIFT, InRange(find, 12, 1000)))
        ),
        mark=Mark.FIRST,
    )
    # Without transforms it is a plain match count.
    (plain,) = query("(match (position :check :pretransformmatchcount 2 5))").lists
    assert plain.matchcount == (2, 5)


def test_tags() -> None:
    q = query("(match :forany rook [rR] (position $rook[a1]) (position $rook :tagmatch rook r))")
    assert q.tags == (TagDeclaration("rook", types_of("Rr")),)
    assert str(q.tags[0].origin) == ":forany at 1:8"
    assert q.lists[0].body == Intersection((PieceVariable("rook"), pd("a1")))
    assert q.lists[1].body == Compound(
        (PieceVariable("rook"), Intersection((PieceVariable("rook"), pd("r"))))
    )


def test_relation() -> None:
    q = query(
        "(match (position Ke6 be7 :shift :markall"
        " :relation (:pattern :shift :flip :originalsamecount 0 :samesidetomove :variations)))"
    )
    (top,) = q.lists
    part = top.body
    assert isinstance(part, Or)
    first = part.items[0]
    assert first == Compound(
        (
            pd("Ke6"),
            pd("be7"),
            Relation(
                allowable=pd("[e6,e7]").squares,
                original_same=(0, 0),
                shift=True,
                flip=True,
                side_to_move=RelationSideToMove.SAME,
                scope=RelationScope.ALL,
            ),
        )
    )
    # Each transformed member compares its own squares (L18).
    allowables = {m.items[2].allowable for m in part.items}  # type: ignore[attr-defined]
    assert pd("[e5,e6]").squares in allowables


# --- refusals ----------------------------------------------------------------------------------


def test_nested_transforms_that_multiply_too_much_are_refused() -> None:
    text = (
        "(match\n (position :shift :flip :flipcolor\n"
        "  :and ((position Ra1 Kb3 :shift :flip :flipcolor))))"
    )
    with pytest.raises(TranslationError) as caught:
        query(text)
    assert caught.value.line == 3
    assert "nested transforms multiply" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("(match (position :and ((position Ra1 :markall))))", ":markall has a meaning only"),
        ("(match (position :variations :variationsonly))", "contradict"),
        ("(match (position :relation (:missingpiececount Ra1 1)))", "square designator"),
        ("(match (position :not Ra1 :accumulate w :sumrange w 1))", ":accumulate inside :not"),
    ],
)
def test_refusals_name_the_construct(text: str, words: str) -> None:
    with pytest.raises(TranslationError, match=words):
        query(text)


def test_noenpassant_with_several_continuations() -> None:
    # After 2...f5 the main move 3.exf6 is en passant, the variation 3.d4 is not: some
    # continuation is a white pawn move that is not en passant.
    game = game_from_pgn("1. e4 d5 2. e5 f5 3. exf6 (3. d4) *")
    q = query("(match (position :noenpassant :movefrom P[d-e2-5] :variations :markall))")
    (top,) = compile_query(q).evaluate(game, 1).lists
    assert sorted(node.ply() for node in top.positions) == [0, 2, 4]
    only_ep = query("(match (position :noenpassant :movefrom Pe5 :variations))")
    assert not compile_query(only_ep).evaluate(game, 1).matched


@pytest.mark.parametrize(
    "text",
    [
        "(match (position :shift :and ((position Ra1 :accumulate w :sumrange w 1))))",
        "(match (position :sumrange w 1 :and ((position Ra1))) (position Kb1 :accumulate w))",
        "(match (position :and ((position Ra1 :sumrange w 1) (position Kb1 :accumulate w))))",
        "(match (position :sequence ((position Ra1 :accumulate w) (position))))",
    ],
)
def test_accumulators_whose_value_depends_on_evaluation_order_are_refused(text: str) -> None:
    with pytest.raises(TranslationError, match=r"accumulate|sumrange"):
        query(text)


def test_an_impossible_move_keyword_makes_the_move_impossible() -> None:
    assert body(":movefrom R[] :promote Q") == (FALSE,)
    assert body(":promote Q :movefrom R[]") == (FALSE,)
    # A promotion to pieces of both colours that differ: one move per colour.
    assert body(":promote [Qr]") == (
        Or((Move(promote=types_of("Q")), Move(promote=types_of("r")))),
    )


def test_two_rooks_that_see_each_other_make_two_rays_l20() -> None:
    game = game_from_pgn('[FEN "4k3/8/8/8/8/8/8/R6R w - - 0 1"]\n\n*')
    for count, matched in [("2", True), ("1", False), ("1 2", True)]:
        q = query(f"(match (position :ray (R R) {count}))")
        assert compile_query(q).evaluate(game, 1).matched is matched, count


def test_a_comment_after_a_list_on_its_last_line_stays_with_it() -> None:
    q = query(
        "(match\n (position :promote [Qq]) ; queen\n ; rook next\n"
        " (position :promote [Rr]) ; rook\n)"
    )
    first, second = (constituents(t.body) for t in q.lists)
    # On the list's last line: it trails the list's translation.
    assert first[-1] == Comment(" queen", trailing=True)
    assert second[0] == Comment(" rook next") and second[-1] == Comment(" rook", trailing=True)
