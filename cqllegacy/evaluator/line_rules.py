"""Evaluator rules for the filters that look along the game: ``move`` (the next or the
previous move), ``line`` and ``find`` (architecture note: next move, next position), and
the filters that compare positions: ``echo``, position variables, ``:``, positional
intersection and ``ancestor`` (semantics: S-echo).

>>> from cqllegacy.evaluator.evaluate import evaluate_filter
>>> from cqllegacy.evaluator.testing import position
>>> from cqllegacy.core.tree import Keyword, Simple
>>> evaluate_filter(Find(Simple(Keyword.CHECK)), position(moves="e4 f5 Qh5+"))
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import attrs
import chess

from cqllegacy.core.tree import (
    Ancestor,
    AtPosition,
    Castling,
    Distance,
    Echo,
    Filter,
    Find,
    Line,
    LineGroup,
    LineStep,
    Move,
    PositionIntersection,
    PositionVariable,
)
from cqllegacy.evaluator.compiler import (
    FAIL,
    REFERENCE_RULES,
    Compiled,
    Compiler,
    Context,
    Fn,
    Kind,
    QueryError,
    SetFn,
    TruthFn,
    as_logical,
    as_number,
    as_set,
    truth,
)
from cqllegacy.evaluator.gametree import piece_moves
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import TypeSet, piece_bit
from cqllegacy.vocab.squares import FULL, rank_of, square

__all__ = [
    "CASTLING_LANDINGS",
    "END",
    "MoveTest",
    "StepAutomaton",
    "after_step",
    "step_holds",
    "step_test",
]

_T = TypeVar("_T")

#: Files a reference rule of this module under its node class.
_rule = REFERENCE_RULES.register


# --------------------------------------------------------------------------------------
# A line step: what every engine that follows a line reads (the reference automaton
# below, the lowering's walker, operators.single_step_line, and the tries of lines,
# line_automaton.LineAutomaton)
# --------------------------------------------------------------------------------------

#: The position "past the last one" a line reaches after a step at a position without
#: continuation: no step holds there, so only constituents that may be left out follow.
END = -1
_PAST_THE_END = (END,)


def step_test(c: Compiler, step: Filter) -> TruthFn:
    """Does a position advance a line by the constituent ``step``: the truth of its
    filter there.  A group of constituents is no step (only its line's automaton
    follows it)."""
    if isinstance(step, LineGroup):
        raise QueryError("a group of line constituents can only stand in a line")
    return c.truth(step)


def step_holds(test: Fn, ctx: Context, p: int) -> bool:
    """Whether the step whose test is ``test`` (made by :func:`step_test`) holds at
    ``p`` (never past the end, :data:`END`)."""
    return p != END and bool(test(ctx, p))


def after_step(ctx: Context, p: int) -> Sequence[int]:
    """What a step that holds at ``p`` consumes: ``p`` itself; the line goes on at each
    continuation of ``p`` in the list's scope, or past the end (``(END,)``) when there
    is none."""
    return ctx.next[p] or _PAST_THE_END


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


def _castles(board: chess.Board, move: chess.Move, side: Castling) -> bool:
    """Does ``move`` castle to ``side`` (either colour, either encoding of the move)?"""
    if side is Castling.KINGSIDE:
        return board.is_kingside_castling(move)
    return board.is_queenside_castling(move)


@attrs.frozen(repr=False, slots=True)
class MoveTest(Record):
    """The compiled parameters of one ``move`` filter."""

    from_: SetFn | None
    to: SetFn | None
    capture: SetFn | None
    promote: TypeSet | None
    enpassant: bool
    castle: Castling | None = None

    @classmethod
    def of(cls, c: Compiler, node: Move) -> MoveTest:
        def optional(arg: Filter | None) -> SetFn | None:
            return None if arg is None else c.set_fn(arg)

        return cls(
            optional(node.from_),
            optional(node.to),
            optional(node.capture),
            node.promote,
            node.enpassant,
            node.castle,
        )

    def matches(self, ctx: Context, before: int, after: int) -> bool:
        board, move = ctx.boards[before], ctx.moves[after]
        if not move:
            # A null move moves nothing: only a bare ``move`` describes it.
            return self == _BARE_MOVE
        if self.enpassant and not board.is_en_passant(move):
            return False
        if self.castle is not None and not _castles(board, move, self.castle):
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


@attrs.frozen(repr=False, slots=True)
class _Reach(Record):
    """Memo of one line/find search: states known to succeed and known to fail."""

    live: set[Any] = attrs.field(factory=set)
    dead: set[Any] = attrs.field(factory=set)


def _reach(ctx: Context, token: int) -> _Reach:
    reach: _Reach | None = ctx.memo_for(token)
    if reach is None:
        reach = _Reach()
        ctx.store(token, reach)
    return reach


@attrs.define(repr=False, slots=True)
class StepAutomaton(Record, Generic[_T]):
    """A line's constituents as a nondeterministic automaton over positions.

    From state ``s`` at position p: each ``(test, t)`` of ``reads[s]`` whose test holds
    at p leads to state t at every continuation of p (at -1 past the end of the line,
    where no test holds); each state of ``skips[s]`` is reached at p itself.  The line
    matches when state ``accept`` is reached.  ``test`` makes a constituent's test (the
    reference rule's, or its array form: both follow this one automaton).
    """

    test: Callable[[Filter], _T]
    reads: list[list[tuple[_T, int]]] = attrs.field(factory=list)
    skips: list[list[int]] = attrs.field(factory=list)
    accept: int = 0

    @classmethod
    def of(cls, steps: tuple[LineStep, ...], test: Callable[[Filter], _T]) -> StepAutomaton[_T]:
        """The automaton of a line's ``steps``."""
        if not steps:
            raise QueryError("line needs at least one constituent")
        automaton = cls(test)
        automaton.accept = automaton.sequence(steps, automaton.state())
        return automaton

    def state(self) -> int:
        self.reads.append([])
        self.skips.append([])
        return len(self.reads) - 1

    def sequence(self, steps: tuple[LineStep, ...], start: int) -> int:
        for step in steps:
            start = self.repeated(step, start)
        return start

    def repeated(self, step: LineStep, start: int) -> int:
        """``step.filter`` ``lo`` times, then up to ``hi - lo`` more (any number: a loop)."""
        if step.lo < 0 or (step.hi is not None and step.hi < step.lo):
            raise QueryError(f"line repetition {step.lo}..{step.hi} is empty or negative")
        for _ in range(step.lo):
            start = self.element(step.filter, start)
        if step.hi is None:
            # Fresh states around the loop: `A* B*` must not come back to A after B.
            loop, out = self.state(), self.state()
            self.skips[start].append(loop)
            self.skips[self.element(step.filter, loop)].append(loop)
            self.skips[loop].append(out)
            return out
        out = self.state()
        self.skips[start].append(out)
        for _ in range(step.hi - step.lo):
            start = self.element(step.filter, start)
            self.skips[start].append(out)
        return out

    def element(self, node: Filter, start: int) -> int:
        if isinstance(node, LineGroup):
            if not node.steps:
                raise QueryError("a group of line constituents needs at least one")
            return self.sequence(node.steps, start)
        end = self.state()
        self.reads[start].append((self.test(node), end))
        return end


@_rule(Line)
def _line(c: Compiler, node: Line) -> Compiled:
    automaton = StepAutomaton.of(node.steps, lambda step: step_test(c, step))
    reads, skips, accept = automaton.reads, automaton.skips, automaton.accept
    token = next(_tokens)

    def successors(ctx: Context, state: tuple[int, int]) -> Iterator[tuple[int, int]]:
        s, p = state
        for t in skips[s]:
            yield (t, p)
        for test, t in reads[s]:
            if step_holds(test, ctx, p):
                for q in after_step(ctx, p):
                    yield (t, q)

    def line(ctx: Context, p: int) -> bool:
        reach = _reach(ctx, token)
        return _search((0, p), lambda s: s[0] == accept, lambda s: successors(ctx, s), reach)

    return as_logical(line)


@_rule(LineGroup)
def _line_group(c: Compiler, node: LineGroup) -> Compiled:
    # A group spans several positions: only the line holding it can follow them.
    raise QueryError("a group of line constituents can only stand in a line")


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


# --------------------------------------------------------------------------------------
# Comparing positions (semantics: S-echo)
# --------------------------------------------------------------------------------------


def position_key(name: str) -> str:
    """The key of position variable ``name`` among the context's bindings (piece variables
    use their bare names; CQL gives both kinds one namespace, the reader keeps them apart)."""
    return ":" + name


def _positions_in_scope(ctx: Context) -> range:
    """Every position of the game in the list's scope: the main line, or the whole tree."""
    return range(len(ctx.boards) if ctx.next is ctx.children else ctx.mainline_end)


@_rule(PositionVariable)
def _position_variable(c: Compiler, node: PositionVariable) -> Compiled:
    # A position's value is its number in the game tree (depth first, main continuation
    # first; decision M7), which is also what position comparisons compare.
    key = position_key(node.name)
    return Compiled(Kind.POSITION, lambda ctx, p: ctx.bindings.get(key))


def _position_fn(c: Compiler, node: Filter) -> Fn:
    if not isinstance(node, PositionVariable | AtPosition):
        raise QueryError(f"a {type(node).__name__} filter is not a position")
    return c.compile(node).fn


@_rule(Echo)
def _echo(c: Compiler, node: Echo) -> Compiled:
    body = c.compile(node.body)
    value, test, numeric = body.fn, truth(body), body.kind is Kind.NUMBER
    source, target, in_all = position_key(node.source), position_key(node.target), node.in_all

    def echo(ctx: Context, p: int) -> int | bool | None:
        saved = ctx.bindings.get(source), ctx.bindings.get(target)
        best: int | None = None
        ctx.bind(source, p)
        try:
            for q in _positions_in_scope(ctx):
                if q == p and not in_all:
                    continue
                ctx.bind(target, q)
                if not numeric:
                    if test(ctx, q):
                        return True
                    continue
                found = value(ctx, q)
                if found is not None and (best is None or found > best):
                    best = found
        finally:
            ctx.bind(source, saved[0])
            ctx.bind(target, saved[1])
        return best if numeric else False

    return Compiled(Kind.NUMBER if numeric else Kind.LOGICAL, echo)


@_rule(AtPosition)
def _at_position(c: Compiler, node: AtPosition) -> Compiled:
    where, arg = _position_fn(c, node.position), c.compile(node.arg)
    value, fail = arg.fn, FAIL[arg.kind]

    def at_position(ctx: Context, p: int) -> Any:
        q = where(ctx, p)
        return fail if q is None else value(ctx, q)

    return Compiled(arg.kind, at_position)


@_rule(PositionIntersection)
def _position_intersection(c: Compiler, node: PositionIntersection) -> Compiled:
    left, right = _position_fn(c, node.left), _position_fn(c, node.right)

    def same_squares(ctx: Context, p: int) -> int:
        a, b = left(ctx, p), right(ctx, p)
        if a is None or b is None:
            return 0
        # Empty in both counts as the same content.
        out = ~(ctx.boards[a].occupied | ctx.boards[b].occupied) & FULL
        for mine, theirs in zip(ctx.piece_boards(a), ctx.piece_boards(b), strict=True):
            out |= mine & theirs
        return out

    return as_set(same_squares)


@_rule(Ancestor)
def _ancestor(c: Compiler, node: Ancestor) -> Compiled:
    left, right = _position_fn(c, node.left), _position_fn(c, node.right)

    def ancestor(ctx: Context, p: int) -> bool:
        a: int | None = left(ctx, p)
        b: int | None = right(ctx, p)
        if a is None or b is None:
            return False
        # Positions are numbered depth first: a parent's number is below its child's.
        while b > a:
            b = ctx.parent[b]
        return b == a

    return as_logical(ancestor)


@_rule(Distance)
def _distance(c: Compiler, node: Distance) -> Compiled:
    left, right = _position_fn(c, node.left), _position_fn(c, node.right)

    def distance(ctx: Context, p: int) -> int | None:
        a, b = left(ctx, p), right(ctx, p)
        if a is None or b is None:
            return None
        # Up from the later of the two (numbered depth first, it is no ancestor of the
        # other) until they meet at their latest common ancestor, one move per step.
        moves = 0
        while a != b:
            if a > b:
                a = ctx.parent[a]
            else:
                b = ctx.parent[b]
            moves += 1
        return moves

    return as_number(distance)
