"""Moves and lines: ``move`` with its squares checked before anything else, ``line``
of single steps walked, and an OR of such lines as a trie followed along a read game
(:func:`line_members`, :func:`line_trie`)."""

from __future__ import annotations

from collections.abc import Callable

from cqllegacy.core.tree import And, Compound, Filter, Line, Move, PieceSet
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.compiler import Compiled, Compiler, TruthFn, as_logical
from cqllegacy.evaluator.line_automaton import LineAutomaton
from cqllegacy.evaluator.line_rules import CASTLING_LANDINGS, MoveTest, step_test
from cqllegacy.evaluator.lowering.shapes import (
    LineMember,
    bare_move_from,
    disjunction_members,
    move_demand,
    single_steps,
)
from cqllegacy.evaluator.trees import meaningful
from cqllegacy.vocab.squares import FULL

__all__ = [
    "MAX_LINE_MEMBERS",
    "line_members",
    "line_trie",
    "lower_line",
    "lower_move",
    "squares_of",
]


def squares_of(arg: Filter | None) -> int:
    """The squares the value of ``arg`` lies within, as far as the tree says."""
    return arg.squares if isinstance(arg, PieceSet) else FULL


def lower_move(c: Compiler, node: Move) -> Compiled | None:
    from_squares, to_squares = squares_of(node.from_), squares_of(node.to)
    if node.previous or (from_squares == FULL and to_squares == FULL):
        return None
    test = MoveTest.of(c, node)
    return as_logical(op.next_move(test.matches, from_squares, to_squares, CASTLING_LANDINGS))


def _remembered(c: Compiler, node: Filter) -> TruthFn:
    """The truth of ``node``, remembered per position: one memo per filter for every
    line of the query that has it as a step."""
    key = ("remembered", node)
    known: TruthFn | None = c.extras.get(key)
    if known is None:
        known = c.extras[key] = op.remembered(step_test(c, node))
    return known


def lower_line(c: Compiler, node: Line) -> Compiled | None:
    steps = single_steps(node)
    if steps is None:
        return None
    tests = [step_test(c, step) if i == 0 else _remembered(c, step) for i, step in enumerate(steps)]
    return as_logical(op.single_step_line(tests))


#: Disjunctions of lines with more members than this are left to the game tree.
MAX_LINE_MEMBERS = 1 << 14


def line_members(node: Filter, local: Callable[[Filter], bool]) -> list[LineMember] | None:
    """``node`` as an OR of lines of single steps, every step a filter ``local`` accepts
    (one that reads the current position, its next move and the tags only); None when it
    is not one.  A local filter is a line of one step; ``{A line --> S0 --> …}`` with A
    local is ``line --> {A S0} --> …``.

    >>> from cqllegacy.core.tree import Keyword, LineStep, Or, Simple
    >>> check, mate = Simple(Keyword.CHECK), Simple(Keyword.MATE)
    >>> local = lambda node: not isinstance(node, Line | Or)
    >>> found = line_members(Or((check, Line((LineStep(check), LineStep(mate))))), local)
    >>> [[step.keyword.value for step in steps] for steps in found]
    [['check'], ['check', 'mate']]
    >>> line_members(Line((LineStep(check, 0, 1),)), local) is None
    True
    """
    found = _line_members(node, local)
    if found is None or len(found) > MAX_LINE_MEMBERS:
        return None
    return list(dict.fromkeys(found))


def _line_members(node: Filter, local: Callable[[Filter], bool]) -> list[LineMember] | None:
    if local(node):
        return [(node,)]
    members = list(disjunction_members(node))
    if members != [node]:
        out: list[LineMember] = []
        for member in members:
            found = _line_members(member, local)
            if found is None:
                return None
            out.extend(found)
            if len(out) > MAX_LINE_MEMBERS:
                return None
        return out
    if isinstance(node, Line):
        steps = single_steps(node)
        return [steps] if steps is not None and all(local(s) for s in steps) else None
    if isinstance(node, Compound | And):
        items = meaningful(node.items)
        others = [item for item in items if not local(item)]
        if len(others) != 1:
            return None
        found = _line_members(others[0], local)
        if found is None:
            return None
        # The local filters join the first step of every line.
        here = [item for item in items if local(item)]
        if not here:
            return found
        return [(And((*here, steps[0])), *steps[1:]) for steps in found]
    return None


def line_trie(c: Compiler, node: Filter, local: Callable[[Filter], bool]) -> LineAutomaton | None:
    """``node`` as a trie of lines of single ``local`` steps (:func:`line_members`), to
    be followed along a game while it is read; None when it is no OR of such lines."""
    members = line_members(node, local)
    if members is None:
        return None
    return LineAutomaton(c, members, demand=move_demand, by_moving_piece=_bare)


def _bare(node: Filter) -> bool:
    return bare_move_from(node) is not None
