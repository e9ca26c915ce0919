"""print → read round trips: hand-built queries over every node class, and generated ones."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.modern import print_query, read_query
from cqllegacy.modern.encoding import settle_comments
from cqllegacy.vocab.pieces import types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction
from tests.support.modern import N, assert_cql, compound, one, pd
from tests.support.strategies import filters, queries

T = ct.TransformKind
CHECK, MATE = ct.Simple(ct.Keyword.CHECK), ct.Simple(ct.Keyword.MATE)
SRC, TGT = ct.PositionVariable("s"), ct.PositionVariable("t")
S2, T2 = ct.PositionVariable("src"), ct.PositionVariable("tgt")


def round_trip(query: ct.Query) -> str:
    """The text of ``query``: chessql reads it, and the modern reader reads it back to the
    query (each trailing comment that must stand on a line of its own made one), which
    prints as the same text, comment layout included."""
    text = print_query(query)
    assert_cql(text)
    read = read_query(text)
    assert read == settle_comments(query), text
    assert print_query(read) == text
    return text


@pytest.mark.parametrize("flag", [{"previous": True}, {"enpassant": True}])
def test_a_move_ending_with_a_flag_before_and_or_reads_in_chessql(flag: dict[str, bool]) -> None:
    # chessql fails on "(move previous and K)" (found by the generated echo bodies).
    move = ct.Move(**flag)  # type: ignore[arg-type]
    for nested in (ct.And((move, pd("K"))), ct.Or((move, pd("K"), move))):
        text = round_trip(one(ct.Echo("s", "t", nested)))
        assert "(move " in text
        round_trip(one(compound(ct.Not(nested), pd("k"))))


# One query per core node class (and per printed form of it).
HAND_BUILT = {
    "piece sets": compound(pd("Ka1"), pd("[Aa]"), pd("d4"), pd("."), pd("[]"), pd("_f1-8")),
    "union/intersection/complement": ct.Union(
        (ct.Intersection((pd("A"), ct.Complement(pd("a-h2")))), pd("[Qq]"))
    ),
    "attacks": ct.AttackedBy(ct.Attacks(pd("A"), pd("k")), pd("q")),
    "directions": ct.Union(
        (
            ct.DirectionSet(Direction.UP, pd("d4")),
            ct.DirectionSet(Direction.DIAGONAL, pd("Q"), 2, 2),
            ct.DirectionSet(Direction.RIGHT, pd("d4"), -1, 1),
        )
    ),
    "rays": compound(
        ct.Ray((pd("R"), pd("q"), pd("k"))),
        ct.Ray((pd("B"), pd("k")), Direction.DIAGONAL),
        ct.XRay((pd("R"), pd("a"), pd("k"))),
        ct.Between(pd("a1"), ct.Union((pd("c3"), pd("h8")))),
    ),
    "moves": compound(
        ct.Move(from_=pd("K"), to=pd("_")),
        ct.Move(capture=pd("Q"), previous=True, enpassant=True),
        ct.Move(from_=pd("Pa-d7"), promote=types_of("RBN")),
        ct.Move(promote=types_of("Qq")),
    ),
    "piece loop": ct.PieceLoop("x", pd("A"), compound(ct.Attacks(ct.PieceVariable("x"), pd("k")))),
    "numbers": compound(
        ct.InRange(ct.Count(pd("K")), 1, 2),
        ct.InRange(ct.Power(pd("A")), 15, None),
        ct.InRange(ct.Arith(ct.ArithOp.SUB, ct.Power(pd("A")), ct.Power(pd("a"))), None, -3),
        ct.InRange(ct.Negate(ct.NumericValue(ct.NumericKeyword.MOVENUMBER)), -5, -5),
        ct.InRange(ct.Elo(ct.Color.BLACK), 2000, 2800),
        ct.InRange(ct.NumericValue(ct.NumericKeyword.YEAR), 1990, None),
        ct.Compare(ct.CompareOp.GT, ct.NumericValue(ct.NumericKeyword.PLY), N(10)),
        ct.Compare(ct.CompareOp.EQ, pd("A"), pd("K")),
        ct.Compare(ct.CompareOp.LE, N(1), ct.InRange(ct.Count(pd("Q")), None, 3)),
        ct.InRange(ct.Arith(ct.ArithOp.ADD, ct.Count(pd("R")), N(-2)), 0, 0),
    ),
    "logic": ct.Or((ct.And((ct.Not(CHECK), MATE)), ct.Simple(ct.Keyword.STALEMATE))),
    "game": compound(
        ct.Result(GameResult.DRAW),
        ct.Player("Kasparov", ct.Color.WHITE),
        ct.Player("x+y"),
        ct.Player("kasp", ignore_case=True),
        ct.TagContains(ct.TagName.EVENT, "Ch"),
        ct.TagContains(ct.TagName.SITE, "[a]"),
        ct.Simple(ct.Keyword.INITIAL),
    ),
    "line": ct.Line(
        (
            ct.LineStep(CHECK, 1, None),
            ct.LineStep(compound(MATE), 2, 3),
            ct.LineStep(ct.Attacks(pd("A"), pd("k")), 0, 1),
            ct.LineStep(ct.Simple(ct.Keyword.TRUE), 0, None),
            ct.LineStep(MATE),
        )
    ),
    "find": compound(
        ct.Find(compound(CHECK)),
        ct.InRange(ct.Find(MATE, all=True), 2, None),
    ),
    "transforms": ct.Transform(
        T.FLIPCOLOR,
        ct.Transform(T.FLIP, ct.Transform(T.SHIFT, compound(pd("Nd4"), pd("kf3")))),
    ),
    "transform count": ct.InRange(ct.Transform(T.FLIP, pd("[Rr]a1"), count=True), 4, 4),
    "comments": compound(ct.Comment(" first"), pd("K"), compound(ct.Comment(" in"), CHECK)),
    "piece all": ct.PieceLoop(
        "x", pd("A"), ct.Find(ct.InSet(ct.PieceVariable("x"), pd("a-h8"))), all=True
    ),
    "in": compound(ct.InSet(pd("A"), ct.AttackedBy(pd("."), pd("a"))), ct.InSet(pd("K"), pd("g1"))),
    "side to move, variation": compound(
        ct.InRange(ct.SideToMove(), 1, 1), ct.Simple(ct.Keyword.VARIATION)
    ),
    "echo": ct.Echo(
        "s",
        "t",
        compound(
            ct.Compare(ct.CompareOp.LT, SRC, TGT),
            ct.Ancestor(SRC, TGT),
            ct.Compare(ct.CompareOp.EQ, ct.SideToMove(), ct.AtPosition(SRC, ct.SideToMove())),
            ct.InRange(ct.Count(ct.PositionIntersection(SRC, TGT)), 64, 64),
            ct.AtPosition(SRC, ct.Move(from_=pd("K"))),
            ct.Intersection((ct.PositionIntersection(SRC, TGT), pd("a1"))),
        ),
    ),
    "echo in all, quiet, numeric": ct.InRange(
        ct.Echo("src", "tgt", ct.Count(ct.PositionIntersection(S2, T2)), in_all=True, quiet=True),
        60,
        None,
    ),
    "line groups": ct.Line(
        (
            ct.LineStep(
                ct.LineGroup(
                    (ct.LineStep(ct.Move(from_=pd("Q"), to=pd("_"))), ct.LineStep(MATE, 0, 1))
                ),
                1,
                None,
            ),
            ct.LineStep(ct.LineGroup((ct.LineStep(CHECK, 1, None),)), 0, 2),
            # chessql reads `((0)*)` as a product: the last repetition of a group is `{0,}`.
            ct.LineStep(ct.LineGroup((ct.LineStep(N(0), 0, None),)), 0, None),
            ct.LineStep(MATE),
        )
    ),
    "directions with attacks": ct.Union(
        (
            ct.DirectionSet(Direction.RIGHT, ct.AttackedBy(pd("A"), pd("Q")), 1, 1),
            ct.AttackedBy(ct.DirectionSet(Direction.UP, pd("K"), 1, 1), pd("q")),
        )
    ),
}


def test_trailing_comments_read_back_trailing() -> None:
    def trailing(text: str) -> ct.Comment:
        return ct.Comment(text, trailing=True)

    inner = ct.Transform(T.FLIP, compound(trailing(" opening"), pd("Ka1"), trailing(" king")))
    body = compound(
        trailing(" body"),
        CHECK,
        trailing(" check"),
        inner,
        trailing(" flipped"),
        ct.Comment(" own line"),
        MATE,
    )
    query = one(body)
    assert settle_comments(query) == query  # every one has a line of code before it
    text = round_trip(query)
    assert "check  // check" in text and "}  // flipped" in text


@pytest.mark.parametrize("body", HAND_BUILT.values(), ids=HAND_BUILT.keys())
def test_hand_built_bodies(body: ct.Filter) -> None:
    round_trip(one(body))


@pytest.mark.parametrize("mark", list(ct.Mark))
@pytest.mark.parametrize("matchcount", [None, (2, 5), (3, 3), (0, 0), (1, None), (0, 4)])
def test_single_lists_with_every_mark_and_match_count(
    mark: ct.Mark, matchcount: tuple[int, int | None] | None
) -> None:
    round_trip(one(compound(pd("Ka1"), CHECK), mark=mark, matchcount=matchcount))


def test_several_lists_with_header_and_leading_comments() -> None:
    header = ct.Header(inputs=("my games.pgn",), output="out.pgn", gamenumber=(1, 100))
    lists = tuple(
        ct.TopList(body, matchcount, mark, ct.Scope.ALL)
        for body, matchcount, mark in [
            (compound(pd("Nd4"), pd("kf3")), None, ct.Mark.FIRST),
            (compound(pd("Q")), (2, 4), ct.Mark.ALL),
            (compound(ct.Not(ct.Simple(ct.Keyword.MAINLINE)), MATE), (1, None), ct.Mark.NONE),
            (ct.Simple(ct.Keyword.STALEMATE), (0, 0), ct.Mark.ALL),
        ]
    )
    round_trip(ct.Query(header, lists, leading_comments=(" made by hand", "")))


def test_header_result_is_kept_as_a_body_filter_across_a_round_trip() -> None:
    query = read_query('cql(result 1-0) flipcolor {player white "Tal"}')
    assert read_query(print_query(query)) == query


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_generated_queries_round_trip(query: ct.Query) -> None:
    round_trip(query)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(filters(depth=3))
def test_generated_deeper_filters_round_trip(body: ct.Filter) -> None:
    round_trip(one(body))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(filters(depth=2, names=("s", "t")))
def test_generated_echo_bodies_round_trip(body: ct.Filter) -> None:
    round_trip(one(ct.Echo("s", "t", body)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_what_the_reader_accepts_the_evaluator_runs(query: ct.Query) -> None:
    # `check` and `run` agree: a query read back from its text compiles.
    compile_query(read_query(print_query(query)))
