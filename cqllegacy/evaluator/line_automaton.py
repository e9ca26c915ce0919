"""Disjunctions of lines of single steps, followed along a main line while it is read.

A query such as a ``:sequence`` list under ``:shift :flip :flipcolor`` becomes an OR of
hundreds of ``line --> S0 --> S1 --> …`` members whose steps look at one position and
its next move each.  Walking every member from every position repeats the same tests:
members share their steps (``check`` after every queen move), and most positions start
no member at all.  Here the members are merged into a trie of step filters and followed
forwards, one position at a time:

* a position *starts* the members whose first step holds there.  A first step that is
  a ``move from X`` needs the next move to leave a square of X with a piece of X, so the
  moving piece and its square index the first steps worth testing; a bare ``move from
  X`` is decided by that index alone;
* a start in progress is a state: the set of trie nodes it has reached.  At the next
  position each distinct step filter that may follow is tested once, and the state
  reached for that outcome is remembered (a lazily built deterministic automaton); a
  start none of whose steps hold is dropped;
* a start whose member reaches its last step is a hit: the OR holds at that position.

The hits are exactly the positions where the OR of the lines holds on the main line
(the tests compare this with the walked lines and the straightforward rules).

>>> import io
>>> import chess.pgn
>>> from cqllegacy.evaluator.evaluate import compile_query
>>> from cqllegacy.evaluator.testing import pd
>>> from cqllegacy.core.tree import Header, Keyword, Line, LineStep, Move, Or, Query
>>> from cqllegacy.core.tree import Simple, TopList
>>> check = Simple(Keyword.CHECK)
>>> queen_check = Line((LineStep(Move(from_=pd("Qh5"))), LineStep(check)))
>>> two_checks = Line((LineStep(check), LineStep(check)))
>>> query = Query(Header(), (TopList(Or((queen_check, two_checks))),))
>>> stream = compile_query(query).stream({}, 1)
>>> type(stream).__name__
'LineStream'
>>> game = io.StringIO("1. e4 e5 2. Qh5 Nc6 3. Qxf7# *")
>>> chess.pgn.read_game(game, Visitor=lambda: stream).verdict()
Verdict(matched=True, hits=((4,),))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import chess

from cqllegacy.core.tree import Filter, Or
from cqllegacy.evaluator.compiler import Compiler, Context, Fn
from cqllegacy.evaluator.line_rules import step_holds, step_test
from cqllegacy.evaluator.masks import mask_function
from cqllegacy.vocab.pieces import ANYTHING, TypeSet, piece_bit
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = ["LineAutomaton", "Tracker"]

#: A member of the disjunction: its steps, the first at the current position.
LineMember = tuple[Filter, ...]

#: Follows one game: ``visit(p, board, move)`` at each main-line position in order
#: (``move`` the next move, None at the end of the game).
Tracker = Callable[[int, chess.Board, chess.Move | None], None]


# --------------------------------------------------------------------------------------
# The trie of steps
# --------------------------------------------------------------------------------------


class _Node:
    """A prefix of some members: the steps that may follow it (``children``: the test
    of the step and the longer prefix), and whether it is a whole member (``terminal``;
    a terminal node needs no children: its start is a hit already)."""

    __slots__ = ("children", "terminal")

    def __init__(self) -> None:
        self.children: tuple[tuple[Fn, _Node], ...] = ()
        self.terminal = False


class _Builder:
    """A trie node while members are added."""

    def __init__(self) -> None:
        self.children: dict[Filter, _Builder] = {}
        self.terminal = False

    def add(self, steps: LineMember) -> None:
        node = self
        for step in steps:
            node = node.children.setdefault(step, _Builder())
        node.terminal = True

    def freeze(self, c: Compiler) -> dict[Filter, _Node]:
        """The frozen children of this node, by their step filter."""
        out: dict[Filter, _Node] = {}
        for step, builder in self.children.items():
            node = _Node()
            node.terminal = builder.terminal
            if not builder.terminal:
                node.children = tuple((step_test(c, s), n) for s, n in builder.freeze(c).items())
            out[step] = node
        return out


def _slot(square: int, piece_type: int, color: int) -> int:
    """Where the index files a move from ``square`` by a piece of this type and colour."""
    return square << 4 | piece_type << 1 | color


_SLOTS = 64 << 4

_NO_NODES: frozenset[_Node] = frozenset()


class _State:
    """The prefixes one start has matched so far (a set of non-terminal trie nodes),
    with what may follow: per distinct step filter, whether a member ends there and the
    longer prefixes (``steps``); the states reached, by which of the steps held
    (``following``, filled as games need them)."""

    __slots__ = ("following", "steps")

    def __init__(self, nodes: frozenset[_Node]) -> None:
        by_test: dict[Fn, list[_Node]] = {}
        for node in nodes:
            for test, child in node.children:
                by_test.setdefault(test, []).append(child)
        self.steps = tuple(
            (test, any(c.terminal for c in children), tuple(c for c in children if not c.terminal))
            for test, children in by_test.items()
        )
        self.following: dict[int, _State] = {}


#: What the index holds for a moving piece and its square: whether some member is
#: already whole, the nodes started, the first steps still to test.
_Slot = tuple[bool, frozenset[_Node], tuple[tuple[Fn, _Node], ...]]


class LineAutomaton:
    """An OR of lines of single local steps (found by
    :func:`~cqllegacy.evaluator.lowering.line_members`), compiled once; :meth:`tracker`
    follows it along one game."""

    def __init__(
        self,
        c: Compiler,
        members: Sequence[LineMember],
        *,
        demand: Callable[[Filter], tuple[int, TypeSet]],
        by_moving_piece: Callable[[Filter], bool],
    ) -> None:
        """``demand(step)``: the squares a first step's next move must leave and what
        must stand there (``(FULL, ANYTHING)``: none); ``by_moving_piece(step)``: the
        moving piece and its square decide the step alone."""
        root = _Builder()
        for steps in members:
            root.add(steps)
        first_steps = root.freeze(c)
        self._every = tuple((step_test(c, step), node) for step, node in first_steps.items())
        always: list[tuple[Fn, _Node]] = []
        always_steps: list[Filter] = []
        slots: list[list[tuple[Filter, _Node]]] = [[] for _ in range(_SLOTS)]
        moving_types = 0
        for (step, node), entry in zip(first_steps.items(), self._every, strict=True):
            squares, types = demand(step)
            if (squares, types) == (FULL, ANYTHING):
                always.append(entry)
                always_steps.append(step)
                continue
            moving_types |= types
            pieces = [
                (piece_type, color)
                for color in chess.COLORS
                for piece_type in chess.PIECE_TYPES
                if types & piece_bit(color, piece_type)
            ]
            for square in iter_squares(squares):
                for piece_type, color in pieces:
                    slots[_slot(square, piece_type, color)].append((step, node))
        self._always = tuple(always)
        # Many first steps that need no particular move (piece designators under
        # transforms): their OR, indexed by key pieces, is tested before any of them.
        self._any_always = c.truth(Or(tuple(always_steps))) if len(always) > 1 else None
        self._moving = mask_function(moving_types) if moving_types else None
        self._slots: list[_Slot | None] = [
            _compile_slot(c, slot, by_moving_piece) for slot in slots
        ]
        #: The states met so far, shared by every game.
        self._states: dict[frozenset[_Node], _State] = {}

    def _state(self, nodes: frozenset[_Node]) -> _State:
        state = self._states.get(nodes)
        if state is None:
            state = self._states[nodes] = _State(nodes)
        return state

    def _following(self, state: _State, held: int) -> _State:
        """The state after ``state`` when the steps of the bits of ``held`` hold."""
        nodes = frozenset(
            child
            for i, (_, _, children) in enumerate(state.steps)
            if held >> i & 1
            for child in children
        )
        following = state.following[held] = self._state(nodes)
        return following

    def tracker(self, ctx: Context, first: int, found: list[int]) -> Tracker:
        """Follow the automaton along one game: ``ctx`` is a streaming context whose
        ``boards[p]``, ``next[p]`` and the move of ``next[p]`` are those of the position
        being visited; positions before ``first`` start nothing; each hit is appended to
        ``found`` (in the order found, not sorted)."""
        alive: list[tuple[int, _State]] = []
        always, every, slots, moving = self._always, self._every, self._slots, self._moving
        any_always = self._any_always
        white, state_of, following_of = chess.WHITE, self._state, self._following

        def advance(p: int) -> None:
            known: dict[Fn, bool] = {}
            still = []
            for start, state in alive:
                held = _held(ctx, p, state, known)
                if held < 0:
                    found.append(start)
                elif held:
                    following = state.following.get(held) or following_of(state, held)
                    still.append((start, following))
            alive[:] = still

        def visit(p: int, board: chess.Board, move: chess.Move | None) -> None:
            if alive:
                advance(p)
            if p < first:
                return
            started: frozenset[_Node] | set[_Node] = _NO_NODES
            roots = always
            if move is None:
                pass  # the end of the game: no first step that needs a move holds
            elif move.from_square == move.to_square:
                roots = every  # a null move (nothing moves): left to the steps themselves
            else:
                square = move.from_square
                if moving is not None and moving(board) >> square & 1:
                    piece_type = board.piece_type_at(square)
                    slot = (
                        piece_type
                        and slots[_slot(square, piece_type, board.occupied_co[white] >> square & 1)]
                    )
                    if slot:
                        hit, started, tests = slot
                        if tests and not hit:
                            started = set(started)
                            hit = _start(ctx, p, tests, started)
                        if hit:
                            found.append(p)
                            return
            if roots and (roots is every or any_always is None or any_always(ctx, p)):
                # Written out: with a first step such as ``check`` this runs at every
                # position.
                for test, node in roots:
                    if step_holds(test, ctx, p):
                        if node.terminal:
                            found.append(p)
                            return
                        if isinstance(started, frozenset):
                            started = set(started)
                        started.add(node)
            if started:
                alive.append((p, state_of(frozenset(started))))

        return visit


def _compile_slot(
    c: Compiler, entries: list[tuple[Filter, _Node]], by_moving_piece: Callable[[Filter], bool]
) -> _Slot | None:
    if not entries:
        return None
    hit = False
    nodes: list[_Node] = []
    tests: list[tuple[Fn, _Node]] = []
    for step, node in entries:
        if not by_moving_piece(step):
            tests.append((step_test(c, step), node))
        elif node.terminal:
            hit = True
        else:
            nodes.append(node)
    return hit, frozenset(nodes), tuple(tests)


def _start(ctx: Context, p: int, tests: tuple[tuple[Fn, _Node], ...], started: set[_Node]) -> bool:
    """Add the nodes whose first step holds at ``p`` to ``started``; True when one of
    them is a whole member."""
    for test, node in tests:
        if step_holds(test, ctx, p):
            if node.terminal:
                return True
            started.add(node)
    return False


def _held(ctx: Context, p: int, state: _State, known: dict[Fn, bool]) -> int:
    """Which steps of ``state`` hold at ``p``, as bits (each step filter tested once at
    ``p``: ``known``); -1 when a member is whole."""
    held, bit = 0, 1
    for test, whole, _ in state.steps:
        holds = known.get(test)
        if holds is None:
            holds = known[test] = step_holds(test, ctx, p)
        if holds:
            if whole:
                return -1
            held |= bit
        bit <<= 1
    return held
