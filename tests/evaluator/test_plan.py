"""The pipeline analysis → lowering → plan → driver: the analysis names a driver from
``READS`` alone, the lowering settles it (lines, snapshot) in a typed plan, and the pieces
the plan is made of keep their promises."""

from __future__ import annotations

import gc

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.analysis import Driver, analyse
from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.evaluator.lowering import LocalSteps
from cqllegacy.evaluator.masks import designator_squares
from cqllegacy.evaluator.stream import UNREAD
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import EMPTY_BIT, piece_types_in

CHECK, MATE = ct.Simple(ct.Keyword.CHECK), ct.Simple(ct.Keyword.MATE)
LINE = ct.Line((ct.LineStep(CHECK), ct.LineStep(MATE)))
FIND = ct.Find(pd("Q"))


def _query(*bodies: ct.Filter) -> ct.Query:
    return ct.Query(ct.Header(), tuple(ct.TopList(body) for body in bodies))


@pytest.mark.parametrize(
    ("bodies", "analysed", "planned"),
    [
        ((ct.Player("Tal"),), Driver.TAGS, Driver.TAGS),
        ((pd("Q"),), Driver.LIVE, Driver.LIVE),
        ((LINE,), Driver.TREE, Driver.LINES),
        ((ct.Or((LINE, CHECK)),), Driver.TREE, Driver.LINES),
        ((FIND,), Driver.TREE, Driver.SNAPSHOT),
        ((LINE, FIND), Driver.TREE, Driver.SNAPSHOT),
    ],
)
def test_the_analysis_reads_the_reach_and_the_plan_settles_the_driver(
    bodies: tuple[ct.Filter, ...], analysed: Driver, planned: Driver
) -> None:
    query = _query(*bodies)
    assert analyse(query).driver is analysed
    compiled = compile_query(query)
    assert compiled.driver is planned is compiled.plan.driver
    assert compile_query(query, optimize=False).driver is Driver.TREE


def test_the_plan_carries_what_its_driver_needs() -> None:
    lines = compile_query(_query(LINE)).plan
    assert len(lines.tries) == 1 and lines.gates is None
    gated = compile_query(_query(ct.Line((ct.LineStep(pd("Q")), ct.LineStep(FIND))))).plan
    assert gated.driver is Driver.SNAPSHOT and gated.tries == ()
    # A find looks arbitrarily far ahead: no horizon, so no gates.
    assert compile_query(_query(FIND)).plan.gates is None
    # A line with a repeated step is no trie, but looks a bounded way ahead of its first.
    gate_query = _query(ct.Line((ct.LineStep(pd("Q")), ct.LineStep(CHECK, 1, 2))))
    plan = compile_query(gate_query).plan
    assert plan.driver is Driver.SNAPSHOT and plan.gates is not None
    assert len(plan.gates.tests) == 1 and plan.gates.horizon == 2


def test_a_board_no_gate_let_through_cannot_be_read() -> None:
    assert isinstance(UNREAD, chess.Board)
    with pytest.raises(LookupError):
        UNREAD.pieces_mask(chess.PAWN, chess.WHITE)


def test_local_steps_never_answer_for_a_node_made_again_at_a_recycled_address() -> None:
    """The answers are kept with their nodes: a node collected and another allocated at
    its address would get the old node's answer from a memo keyed by identity alone."""
    local = LocalSteps()
    inner = ct.Find(pd("K"))
    first = ct.Not(pd("K"))
    assert local(first)
    del first
    gc.collect()
    # Nodes of the same class: one of them takes the first's memory if it was freed.
    later = [ct.Not(inner) for _ in range(200)]
    assert not any(local(node) for node in later)


def _by_python_chess(board: chess.Board, types: int, squares: int) -> int:
    found = 0
    for color, piece_type in piece_types_in(types):
        found |= board.pieces_mask(piece_type, color)
    if types & EMPTY_BIT:
        found |= ~board.occupied & chess.BB_ALL
    return found & squares


BOARDS = [
    chess.Board(),
    chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"),
    chess.Board("8/8/8/8/8/N7/2k5/4K3 w - - 0 1"),
]


@given(st.integers(0, (1 << 13) - 1), st.integers(0, chess.BB_ALL))
def test_a_designators_squares_are_python_chess_pieces_on_its_squares(
    types: int, squares: int
) -> None:
    value = designator_squares(types, squares)
    for board in BOARDS:
        assert value(board) == _by_python_chess(board, types, squares)


def test_disjunctions_of_the_same_members_share_one_index() -> None:
    """Orbits with the same members (one's pattern an image of the other's under the
    orbit's own transforms) compile one index; orbits of other members their own, and
    every answer is the reference rules'."""
    from cqllegacy.evaluator.compiler import Compiler
    from cqllegacy.evaluator.evaluate import REFERENCE_RULES, evaluate_filter
    from cqllegacy.evaluator.lowering import LOWERING
    from cqllegacy.evaluator.testing import position

    flip, shift = ct.TransformKind.FLIP, ct.TransformKind.SHIFT
    pattern = ct.Compound((pd("Ke6"), pd("be7")))
    moved = ct.Compound((pd("Kd3"), pd("bd2")))  # turned upside down, one file to the left
    both = [ct.Transform(flip, ct.Transform(shift, x)) for x in (pattern, moved)]
    flipped = ct.Transform(flip, pattern)
    compiler = Compiler(REFERENCE_RULES, LOWERING)
    # (The compound's value is a set: the orbit's truth is its ``test``.)
    first, second, other = (compiler.compile(node).test for node in (*both, flipped))
    assert first is not None
    assert first is second
    assert other is not first
    shifted_far = position("8/8/8/8/8/1b6/1K6/7k w - - 0 1")  # Kb2 bb3: shifted, not turned
    answers = {node: evaluate_filter(node, shifted_far) for node in (*both, flipped)}
    assert {node: bool(value) for node, value in answers.items()} == {
        **{node: True for node in both},
        flipped: False,
    }
    for node in (*both, flipped):
        assert evaluate_filter(node, shifted_far, optimize=False) == answers[node]
