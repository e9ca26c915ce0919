"""Moves whose squares are checked before anything else (:func:`next_move`) and lines
of single steps walked step by step (:func:`single_step_line`); the trie of many such
lines followed along a read game is :mod:`~cqllegacy.evaluator.line_automaton`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cqllegacy.evaluator.compiler import Context, TruthFn
from cqllegacy.evaluator.line_rules import after_step, step_holds

__all__ = [
    "next_move",
    "remembered",
    "single_step_line",
]


def next_move(
    test: Callable[[Context, int, int], bool], from_squares: int, to_squares: int, landings: int
) -> TruthFn:
    """Some continuation ``q`` of ``p`` with ``test(ctx, p, q)``, its move's squares
    checked first: it must leave ``from_squares`` and reach ``to_squares`` (or castle,
    when ``to_squares`` meets ``landings``, the castling king's squares); a null move is
    left to ``test``."""
    castling_possible = bool(to_squares & landings)

    def move_next(ctx: Context, p: int) -> bool:
        for q in ctx.next[p]:
            move = ctx.moves[q]
            if move:
                if not from_squares >> move.from_square & 1:
                    continue
                if not (to_squares >> move.to_square & 1 or castling_possible):
                    continue
            if test(ctx, p, q):
                return True
        return False

    return move_next


def remembered(test: TruthFn) -> TruthFn:
    """``test``, remembered per position of a game (and per scope and binding): the steps
    of many lines are often the same filter at the same position."""
    token = object()

    def remembered_test(ctx: Context, p: int) -> bool:
        known = ctx.memo_for(token)
        if known is None:
            known = ctx.store(token, {})
        value = known.get(p)
        if value is None:
            value = known[p] = bool(test(ctx, p))
        return bool(value)

    return remembered_test


def single_step_line(tests: Sequence[TruthFn]) -> TruthFn:
    """``line --> C1 --> C2 …`` with every step matched exactly once: C1 here, C2 at a
    continuation, … walked along the continuations (``tests[i]`` the truth of Ci)."""
    steps = tuple(tests)
    last = len(steps) - 1

    def walk(ctx: Context, p: int, i: int) -> bool:
        while True:
            if not step_holds(steps[i], ctx, p):
                return False
            if i == last:
                return True
            following = after_step(ctx, p)
            if len(following) != 1:
                return any(walk(ctx, q, i + 1) for q in following)
            p, i = following[0], i + 1

    return lambda ctx, p: walk(ctx, p, 0)
