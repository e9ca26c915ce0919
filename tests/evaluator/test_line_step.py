"""A line step, defined once (cqllegacy.evaluator.line_rules: ``step_test``, ``step_holds``,
``after_step``) and read by every engine that follows a line: the reference automaton,
the lowering's walker and the tries of lines."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.compiler import REFERENCE_RULES, Compiler, QueryError
from cqllegacy.evaluator.evaluate import compile_query, context_at, evaluate_filter
from cqllegacy.evaluator.line_rules import END, after_step, step_holds, step_test
from cqllegacy.evaluator.lowering import LOWERING

GAME = chess.pgn.read_game(
    io.StringIO("1. e4 e5 (1... c5 2. Nf3) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0")
)
assert GAME is not None
CHECK, MATE = ct.Simple(ct.Keyword.CHECK), ct.Simple(ct.Keyword.MATE)


def test_a_step_consumes_its_position_and_goes_on_at_each_continuation() -> None:
    ctx, start = context_at(GAME, scope=ct.Scope.ALL, identities=False)
    after_e4 = ctx.next[start][0]
    # Two continuations after 1. e4 (the main line and the variation).
    assert list(after_step(ctx, after_e4)) == list(ctx.next[after_e4])
    assert len(ctx.next[after_e4]) == 2
    last = ctx.table.index_of(GAME.end())
    assert tuple(after_step(ctx, last)) == (END,)


def test_no_step_holds_past_the_end() -> None:
    ctx, start = context_at(GAME, scope=ct.Scope.MAINLINE, identities=False)
    always = step_test(Compiler(REFERENCE_RULES, LOWERING), ct.Simple(ct.Keyword.TRUE))
    assert step_holds(always, ctx, start) and not step_holds(always, ctx, END)


def test_a_group_of_constituents_is_no_step() -> None:
    group = ct.LineGroup((ct.LineStep(CHECK),))
    with pytest.raises(QueryError, match="can only stand in a line"):
        step_test(Compiler(REFERENCE_RULES, LOWERING), group)


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ((ct.LineStep(ct.Simple(ct.Keyword.TRUE)), ct.LineStep(MATE)), True),
        # The mate is the last position: nothing follows it, not even an optional step
        # that would need a position (it is left out), but a required one fails.
        ((ct.LineStep(MATE), ct.LineStep(ct.Simple(ct.Keyword.TRUE), 0, 1)), True),
        ((ct.LineStep(MATE), ct.LineStep(ct.Simple(ct.Keyword.TRUE))), False),
    ],
)
def test_every_engine_ends_a_line_at_the_last_position_alike(
    steps: tuple[ct.LineStep, ...], expected: bool
) -> None:
    line = ct.Line(steps)
    before_mate = GAME.end().parent
    assert before_mate is not None
    at = GAME.end() if steps[0].filter == MATE else before_mate
    for optimize in (False, True):
        assert bool(evaluate_filter(line, at, optimize=optimize)) is expected
    # The whole query, as its plan runs it, agrees.
    query = ct.Query(ct.Header(), (ct.TopList(line, mark=ct.Mark.ALL),))
    for optimize in (False, True):
        match = compile_query(query, optimize=optimize).evaluate(GAME, 1)
        found = match.lists[0].positions if match.lists else ()
        assert (at in found) is expected
