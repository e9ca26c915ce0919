"""Filters that read one piece variable at its own position, read for every square
of the piece at once (:func:`variable_holders`): per position, the squares where the
piece makes the filter hold, so every binding reads one bit."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from cqllegacy.core.tree import (
    And,
    AttackedBy,
    Attacks,
    Compound,
    Count,
    Filter,
    InRange,
    Intersection,
    LegacyOnly,
    Move,
    Not,
    PieceVariable,
)
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.compiler import Compiler, SetFn
from cqllegacy.evaluator.line_rules import MoveTest
from cqllegacy.evaluator.lowering.atoms import compiled_conjunction
from cqllegacy.evaluator.lowering.necessity import compiled_tag_bounds
from cqllegacy.evaluator.lowering.shapes import disjunction_members, only_variable, reads_bindings
from cqllegacy.evaluator.trees import closed_range, meaningful
from cqllegacy.vocab.pieces import ANY_PIECE

__all__ = ["MAX_HOLDERS_MEMBERS", "moving_variable", "variable_holders"]


#: A disjunction with more members than this is not read for every binding at once (an
#: orbit of hundreds that places the variable is filed by its square instead).
MAX_HOLDERS_MEMBERS = 64


def variable_holders(c: Compiler, node: Filter, name: str) -> op.Holders | None:
    """At a position, the squares where the piece bound to ``name`` makes ``node`` hold
    (:data:`~cqllegacy.evaluator.operators.OFF_BOARD`: when it is off the board), computed
    once per position for every binding; None when ``node`` is not of the shapes read so
    (a conjunction, disjunction or orbit of filters reading no variable, ``x & S``, ``x
    attacks R``, ``R attacks x``, ``attackedby`` alike, ``#(x attacks R)`` in a range,
    ``not``, ``move from x`` with other parts reading no variable), or reads another
    variable.  Each of these reads the variable at the current position only: its value
    there is the piece's square, or nothing.  One function per node and variable, so
    every use of a node shares its masks."""
    key = ("holders", node, name)
    if key not in c.extras:
        found = None if only_variable(node) != name else _holders(c, node, name)
        c.extras[key] = None if found is None else op.remembered_holders(found)
    known: op.Holders | None = c.extras[key]
    return known


def _holders(c: Compiler, node: Filter, name: str) -> op.Holders | None:
    if not reads_bindings(node):
        return op.holders_of_truth(c.truth(node))
    if isinstance(node, LegacyOnly):
        return _holders(c, node.filter, name)
    if isinstance(node, Compound | And):
        items = meaningful(node.items)
        inner = _all_found(
            [_holders(c, item, name) for item in items if reads_bindings(item)], op.holders_all
        )
        free = [item for item in items if not reads_bindings(item)]
        if inner is None or not free:
            return inner
        # The items that read no variable first, once for every square: a failing
        # ``btm`` spares the rest.
        board, guard = compiled_conjunction(c, free)
        return op.holders_guarded(board, guard, inner)
    if isinstance(node, Not):
        inner = _holders(c, node.arg, name)
        return None if inner is None else op.holders_not(inner)
    if isinstance(node, InRange) and isinstance(node.value, Count):
        # A set at most the variable's square has size 1 or 0.
        unit = _unit_holders(c, node.value.arg, name)
        if unit is None:
            return None
        lo, hi = closed_range(node.lo, node.hi)
        return op.holders_count(unit, lo <= 1 <= hi, lo <= 0 <= hi)
    if isinstance(node, Move) and not node.previous:
        return _move_holders(c, node, name)
    if isinstance(node, Attacks) and not reads_bindings(node.left):
        unit = _unit_holders(c, node.right, name)
        return None if unit is None else op.holders_attacked(unit, c.set_fn(node.left))
    if isinstance(node, AttackedBy) and not reads_bindings(node.left):
        unit = _unit_holders(c, node.right, name)
        return None if unit is None else op.holders_attacking(unit, c.set_fn(node.left))
    unit = _unit_holders(c, node, name)
    if unit is not None:
        return unit
    members = list(dict.fromkeys(disjunction_members(node)))
    if members == [node] or len(members) > MAX_HOLDERS_MEMBERS:
        return None
    return _all_found([_holders(c, member, name) for member in members], op.holders_any)


def _all_found(
    parts: Sequence[op.Holders | None], combine: Callable[[Sequence[op.Holders]], op.Holders]
) -> op.Holders | None:
    found = [part for part in parts if part is not None]
    return combine(found) if found and len(found) == len(parts) else None


def _unit_holders(c: Compiler, node: Filter, name: str) -> op.Holders | None:
    """Holders of a set filter whose value is the variable's square or nothing (``x``,
    ``x & S``, ``x attacks R``, ``x attackedby R``, R reading no variable)."""
    if isinstance(node, PieceVariable):
        return op.variable_squares if node.name == name else None
    if isinstance(node, LegacyOnly):
        return _unit_holders(c, node.filter, name)
    if isinstance(node, Intersection):
        units, values = [], []
        for item in meaningful(node.items):
            if not reads_bindings(item):
                values.append(c.set_fn(item))
            elif (unit := _unit_holders(c, item, name)) is not None:
                units.append(unit)
            else:
                return None
        return op.holders_within(units, values) if units else None
    if isinstance(node, Attacks | AttackedBy) and not reads_bindings(node.right):
        unit = _unit_holders(c, node.left, name)
        if unit is None:
            return None
        other = c.set_fn(node.right)
        if isinstance(node, Attacks):
            return op.holders_attacking(unit, other, _bound_pieces(c, node.left))
        return op.holders_attacked(unit, other)
    return None


def _bound_pieces(c: Compiler, node: Filter) -> SetFn | None:
    """When ``node`` is a piece variable whose tag takes pieces of one colour, the
    squares of that colour's pieces (where the bound piece stands, whenever it is on
    the board: :func:`tag_bounds`); None otherwise."""
    if not isinstance(node, PieceVariable):
        return None
    bound = compiled_tag_bounds(c).get(node.name)
    if bound is None or bound.types & ANY_PIECE == ANY_PIECE:
        return None
    return c.set_fn(bound)


def _move_holders(c: Compiler, node: Move, name: str) -> op.Holders | None:
    """``move from X …`` with X the variable's square or nothing, the rest reading no
    variable: the squares of X that a continuation leaves by a move the rest accepts."""
    split = moving_variable(c, node, name)
    if split is None:
        return None
    unit, rest = split
    return op.holders_moving(unit, rest.matches)


def moving_variable(c: Compiler, node: Move, name: str) -> tuple[op.Holders, MoveTest] | None:
    """``move from X …`` split into the unit holders of X (the variable's square or
    nothing) and the test of the rest of the move, which reads no variable (None when
    the move is not of that shape)."""
    if node.from_ is None or any(
        reads_bindings(part) for part in (node.to, node.capture) if part is not None
    ):
        return None
    unit = _unit_holders(c, node.from_, name)
    if unit is None:
        return None
    return unit, MoveTest.of(c, attrs.evolve(node, from_=None))
