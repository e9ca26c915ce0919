"""Evaluator rules for the filters that look along the game: ``move`` (the next or the
previous move), ``line`` and ``find`` (architecture note: next move, next position).

>>> from cqllegacy.evaluator.evaluate import evaluate_filter
>>> from cqllegacy.evaluator.testing import position
>>> from cqllegacy.core.tree import Keyword, Simple
>>> evaluate_filter(Find(Simple(Keyword.CHECK)), position(moves="e4 f5 Qh5+"))
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import attrs
import chess

from cqllegacy.core.tree import Filter, Find, Line, Move
from cqllegacy.evaluator.compiler import (
    Compiled,
    Compiler,
    Context,
    Fn,
    Rule,
    as_logical,
    as_number,
    registrar,
)
from cqllegacy.evaluator.gametree import piece_moves
from cqllegacy.vocab.pieces import TypeSet, piece_bit
from cqllegacy.vocab.squares import rank_of, square

__all__ = ["CASTLING_LANDINGS", "RULES", "MoveTest"]

_TABLE: dict[type[Filter], Rule] = {}
_rule = registrar(_TABLE)
#: The reference rules of this module by node class, filled below (a read-only view).
RULES: Mapping[type[Filter], Rule] = MappingProxyType(_TABLE)


# --------------------------------------------------------------------------------------
# The move filter
# --------------------------------------------------------------------------------------


#: Where a king lands when castling (:func:`_destination`): a ``to`` designator must hold
#: one of them for a castling move to match it, whatever squares the move's encoding names.
CASTLING_LANDINGS = chess.BB_C1 | chess.BB_G1 | chess.BB_C8 | chess.BB_G8


def _destination(board: chess.Board, move: chess.Move) -> int:
    """Where the moving piece lands; for castling (either encoding) the king's square."""
    if board.is_castling(move):
        file = 6 if board.is_kingside_castling(move) else 2
        return square(file, rank_of(move.from_square))
    return move.to_square


@attrs.frozen(slots=True)
class MoveTest:
    """The compiled parameters of one ``move`` filter."""

    from_: Fn | None
    to: Fn | None
    capture: Fn | None
    promote: TypeSet | None
    enpassant: bool

    @classmethod
    def of(cls, c: Compiler, node: Move) -> MoveTest:
        def optional(arg: Filter | None) -> Fn | None:
            return None if arg is None else c.set_fn(arg)

        return cls(
            optional(node.from_),
            optional(node.to),
            optional(node.capture),
            node.promote,
            node.enpassant,
        )

    def matches(self, ctx: Context, before: int, after: int) -> bool:
        board, move = ctx.boards[before], ctx.moves[after]
        if not move:
            # A null move moves nothing: only a bare ``move`` describes it.
            return self == _BARE_MOVE
        if self.enpassant and not board.is_en_passant(move):
            return False
        if self.promote is not None and (
            move.promotion is None or not self.promote & piece_bit(board.turn, move.promotion)
        ):
            return False
        if self.from_ is not None and not self.from_(ctx, before) >> move.from_square & 1:
            return False
        if self.to is not None and not self.to(ctx, before) >> _destination(board, move) & 1:
            return False
        if self.capture is not None:
            captured = piece_moves(board, move)[1]
            if captured is None or not self.capture(ctx, before) >> captured & 1:
                return False
        return True


_BARE_MOVE = MoveTest(None, None, None, None, False)


@_rule(Move)
def _move(c: Compiler, node: Move) -> Compiled:
    test = MoveTest.of(c, node)
    if node.previous:
        return as_logical(lambda ctx, p: p > 0 and test.matches(ctx, ctx.parent[p], p))
    return as_logical(lambda ctx, p: any(test.matches(ctx, p, q) for q in ctx.next[p]))


# --------------------------------------------------------------------------------------
# Filters over several positions
# --------------------------------------------------------------------------------------

_tokens = itertools.count()


@attrs.frozen(slots=True)
class _Reach:
    """Memo of one line/find search: states known to succeed and known to fail."""

    live: set[Any] = attrs.field(factory=set)
    dead: set[Any] = attrs.field(factory=set)


def _reach(ctx: Context, token: int) -> _Reach:
    reach: _Reach | None = ctx.memo_for(token)
    if reach is None:
        reach = _Reach()
        ctx.store(token, reach)
    return reach


@_rule(Line)
def _line(c: Compiler, node: Line) -> Compiled:
    steps = tuple((c.truth(step.filter), step.lo, step.hi) for step in node.steps)
    last = len(steps)
    token = next(_tokens)

    def successors(ctx: Context, state: tuple[int, int, int]) -> Iterator[tuple[int, int, int]]:
        k, done, p = state
        test, lo, hi = steps[k]
        if done >= lo:
            yield (k + 1, 0, p)
        if p >= 0 and (hi is None or done < hi) and test(ctx, p):
            # Beyond ``lo`` an unbounded step's count no longer matters.
            count = done + 1 if hi is not None else min(done + 1, lo)
            for q in ctx.next[p] or (-1,):
                yield (k, count, q)

    def line(ctx: Context, p: int) -> bool:
        reach = _reach(ctx, token)
        start = (0, 0, p)
        return _search(start, lambda s: s[0] == last, lambda s: successors(ctx, s), reach)

    return as_logical(line)


def _search(
    start: Any,
    is_goal: Callable[[Any], bool],
    successors: Callable[[Any], Iterator[Any]],
    reach: _Reach,
) -> bool:
    """Depth-first search for a goal state, remembering which states reach one and which not.

    On success every state on the path found is known to succeed, so asking again from a
    later position of that path costs nothing.
    """
    if start in reach.live:
        return True
    came_from: dict[Any, Any] = {}
    stack: list[tuple[Any, Any]] = [(start, None)]
    while stack:
        state, previous = stack.pop()
        if state in came_from or state in reach.dead:
            continue
        came_from[state] = previous
        if state in reach.live or is_goal(state):
            while state is not None:
                reach.live.add(state)
                state = came_from[state]
            return True
        stack.extend((following, state) for following in successors(state))
    reach.dead.update(came_from)
    return False


@_rule(Find)
def _find(c: Compiler, node: Find) -> Compiled:
    test = c.truth(node.arg)
    token = next(_tokens)
    if node.all:
        return as_number(lambda ctx, p: _count_below(ctx, p, test, token))

    def find(ctx: Context, p: int) -> bool:
        reach = _reach(ctx, token)
        return _search(p, lambda q: test(ctx, q), lambda q: iter(ctx.next[q]), reach)

    return as_logical(find)


def _count_below(ctx: Context, p: int, test: Fn, token: int) -> int:
    """How many positions from ``p`` on (along continuations in scope) satisfy ``test``."""
    counts: dict[int, int] | None = ctx.memo_for(token)
    if counts is None:
        counts = ctx.store(token, {})
    stack = [p]
    while stack:
        q = stack[-1]
        if q in counts:
            stack.pop()
            continue
        pending = [k for k in ctx.next[q] if k not in counts]
        if pending:
            stack.extend(pending)
            continue
        counts[q] = int(bool(test(ctx, q))) + sum(counts[k] for k in ctx.next[q])
        stack.pop()
    return counts[p]
