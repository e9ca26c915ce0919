"""Relaxed bodies: a filter that holds wherever a row-only body may hold.

A body that follows a piece through the game (``piece x in A …``, the translation of
``:forany``) has no array form: each binding is tried by rows.  But the squares of a
bound piece are always among the squares of the pieces it may be (a white pawn may
become any white piece, a rook stays a rook), and most of a body reads its operands
*monotonically*: a larger set, a larger count, a truer operand can only make it match
in more places.  :func:`relax` rewrites a body into such a larger filter that has an
array form: each piece variable becomes its *hull*, and each part that has no array form
is dropped where dropping it can only widen the match.  The index evaluates the relaxed
body over whole columns and sends only the games where it holds to the rows, which stay
the judges (exact: the relaxed filter is a necessary condition, never an answer).

Where a number is widened it only grows, so of a comparison only the lower bound is
kept (``#(x attacks k) == 1`` becomes ``#(A attacks k) >= 1``).  A part under ``not``,
or any form not listed in :data:`MONOTONE`, is dropped whole.

>>> from cqllegacy.evaluator.testing import pd
>>> checks = InRange(Count(Attacks(PieceVariable("x"), pd("k"))), 1, 1)
>>> relaxed = relax(PieceLoop("x", pd("A"), checks), ArrayCompiler())
>>> relaxed == Compound((InRange(Count(Attacks(pd("A"), pd("k"))), 1, None), pd("A")))
True
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Final, Literal

import attrs

from cqllegacy.core.declarations import Kind
from cqllegacy.core.tree import (
    And,
    AttackedBy,
    Attacks,
    Compare,
    CompareOp,
    Compound,
    Count,
    DirectionSet,
    Filter,
    Find,
    InRange,
    Intersection,
    Move,
    Or,
    PieceLoop,
    PieceSet,
    PieceVariable,
    SquareColor,
    Transform,
    Union,
)
from cqllegacy.evaluator.arrays.compiler import ArrayCompiler
from cqllegacy.evaluator.arrays.positions import RowOnly
from cqllegacy.evaluator.trees import meaningful, orbit_members, piece_variables_read
from cqllegacy.vocab import pieces

__all__ = ["MONOTONE", "hull", "relax"]


class _Top(enum.Enum):
    """No constraint: true as a test, every square as a set, no bound as a number."""

    TOP = "TOP"


#: What a part becomes when nothing is known of it.
TOP: Final = _Top.TOP

Relaxed = Filter | Literal[_Top.TOP]
#: The hull of each bound piece variable, by name.
Hulls = Mapping[str, Filter]


def hull(domain: Filter) -> Filter:
    """The squares a piece bound from ``domain`` may stand on at any position of the
    game: the pieces of its types, a pawn of a colour whose knights, bishops, rooks or
    queens it names (it may be one not promoted yet), and every piece of a colour whose
    pawns it names (a pawn promotes); every piece when the domain is not a plain piece
    designator.

    >>> from cqllegacy.evaluator.testing import pd
    >>> hull(pd("[Kk]c1")).types == pieces.types_of("Kk")
    True
    >>> hull(pd("R")).types == pieces.types_of("RP")
    True
    >>> hull(pd("[Rp]")).types == pieces.types_of("RP") | pieces.BLACK_PIECES
    True
    """
    if not isinstance(domain, PieceSet):
        return PieceSet(pieces.ANY_PIECE)
    types = domain.types & pieces.ANY_PIECE
    for colour_pieces, shift in (
        (pieces.WHITE_PIECES, pieces.WHITE_SHIFT),
        (pieces.BLACK_PIECES, pieces.BLACK_SHIFT),
    ):
        pawn, promoted = 1 << shift, _PROMOTED << shift  # bit 0 of a colour: its pawn
        if types & pawn:
            types |= colour_pieces
        elif types & promoted:
            types |= pawn
    return PieceSet(types)


#: The types a pawn may become, as bits of the white pieces (knight to queen).
_PROMOTED = 0b011110


def relax(node: Filter, compiler: ArrayCompiler, hulls: Hulls | None = None) -> Relaxed:
    """A filter with an array form that matches wherever ``node`` may (with the piece
    variables of ``hulls`` standing for their hulls), or :data:`TOP` when nothing narrower
    is known.  Its value is of ``node``'s kind and larger: a superset, a true test, a
    number at least as large that exists wherever ``node``'s does."""
    if not piece_variables_read(node):
        kept = _as_is(node, compiler)
        if kept is not TOP:
            return kept
    rule = MONOTONE.get(type(node))
    if rule is None:
        return TOP
    # A variable no loop above binds has no hull: its rule finds none in ``hulls``.
    return rule(node, compiler, hulls or {})


def _as_is(node: Filter, compiler: ArrayCompiler) -> Relaxed:
    """``node`` itself where it has an array form, else nothing known."""
    try:
        compiler.compile(node)
    except RowOnly:
        return TOP
    return node


# --------------------------------------------------------------------------------------
# The monotone forms, one rule per class
# --------------------------------------------------------------------------------------

Rule = Callable[[Filter, ArrayCompiler, Hulls], Relaxed]


def _piece_variable(node: PieceVariable, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    return hulls.get(node.name, TOP)


def _piece_loop(node: PieceLoop, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    if node.all:
        return TOP  # every piece of the domain, or none: no one binding to widen
    domain = relax(node.domain, c, hulls)
    if domain is TOP:
        return TOP
    body = relax(node.body, c, {**hulls, node.name: hull(node.domain)})
    # The loop's value is the domain's pieces whose binding matches: within the domain,
    # and only where some binding may match.
    return domain if body is TOP else Compound((body, domain))


def _all_of(node: Compound | And, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    items = meaningful(node.items)
    if not items:
        return node
    relaxed = [relax(item, c, hulls) for item in items]
    last = relaxed[-1]
    if node.value_kind() is not Kind.LOGICAL and last is TOP:
        return TOP  # the value is the last item's, which is unknown
    kept = tuple(item for item in relaxed if item is not TOP)
    if not kept:
        return TOP
    return attrs.evolve(node, items=kept)


def _any_of(node: Or | Union, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    relaxed = [relax(item, c, hulls) for item in node.items]
    known = tuple(item for item in relaxed if item is not TOP)
    if len(known) < len(relaxed):
        return TOP
    return attrs.evolve(node, items=known)


def _intersection(node: Intersection, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    kept = tuple(item for item in (relax(i, c, hulls) for i in node.items) if item is not TOP)
    return attrs.evolve(node, items=kept) if kept else TOP


def _fields(*names: str) -> Rule:
    """A node monotone in each of the set or test fields ``names``, an unknown one
    standing for every square (or for no constraint, when the field may be None)."""

    def rule(node: Filter, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
        changes: dict[str, Filter | None] = {}
        for name in names:
            child = getattr(node, name)
            if child is None:
                continue
            relaxed = relax(child, c, hulls)
            if relaxed is TOP:
                if not _optional(node, name):
                    relaxed = PieceSet(pieces.ANYTHING)
                else:
                    changes[name] = None
                    continue
            changes[name] = relaxed
        return attrs.evolve(node, **changes)  # type: ignore[misc]

    return rule


def _optional(node: Filter, name: str) -> bool:
    return isinstance(node, Move)


def _counted(node: Count | Find, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    arg = relax(node.arg, c, hulls)
    return TOP if arg is TOP else attrs.evolve(node, arg=arg)


def _in_range(node: InRange, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    value = relax(node.value, c, hulls)
    if value is TOP or (node.lo is None and value != node.value):
        return TOP
    # The value only grew: its upper bound says nothing any more.
    return InRange(value, node.lo, None)


#: A comparison that holds of a larger left value (or of a larger right one) when it
#: held of the smaller, as which comparison.
_GROWING_LEFT = {
    CompareOp.GE: CompareOp.GE,
    CompareOp.GT: CompareOp.GT,
    CompareOp.EQ: CompareOp.GE,
}
_GROWING_RIGHT = {
    CompareOp.LE: CompareOp.LE,
    CompareOp.LT: CompareOp.LT,
    CompareOp.EQ: CompareOp.LE,
}


def _compare(node: Compare, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    if isinstance(node.right, (Compare, InRange)):
        return TOP  # a chain: each link would need its own widening
    left, right = relax(node.left, c, hulls), relax(node.right, c, hulls)
    if left is TOP or right is TOP:
        return TOP
    if right == node.right and node.op in _GROWING_LEFT:
        return Compare(_GROWING_LEFT[node.op], left, right)
    if left == node.left and node.op in _GROWING_RIGHT:
        return Compare(_GROWING_RIGHT[node.op], left, right)
    return TOP


def _transform(node: Transform, c: ArrayCompiler, hulls: Hulls) -> Relaxed:
    if node.count or node.value_kind() is Kind.NUMBER:
        return TOP
    # A hull is not moved by the transform (a variable's piece is the same piece in
    # every member), so the members are relaxed one by one, after the transform.
    members = [relax(member, c, hulls) for member in orbit_members(node)]
    if any(member is TOP for member in members) or not members:
        return TOP
    kept = tuple(member for member in members if isinstance(member, Filter))
    if node.value_kind() is Kind.SET:
        return Union(kept)
    return Or(kept)


#: How each class whose value only grows with its operands' is widened.
MONOTONE: Mapping[type, Rule] = {
    PieceVariable: _piece_variable,  # type: ignore[dict-item]
    PieceLoop: _piece_loop,  # type: ignore[dict-item]
    Compound: _all_of,  # type: ignore[dict-item]
    And: _all_of,  # type: ignore[dict-item]
    Or: _any_of,  # type: ignore[dict-item]
    Union: _any_of,  # type: ignore[dict-item]
    Intersection: _intersection,  # type: ignore[dict-item]
    Attacks: _fields("left", "right"),
    AttackedBy: _fields("left", "right"),
    DirectionSet: _fields("arg"),
    SquareColor: _fields("arg"),
    Move: _fields("from_", "to", "capture"),
    Count: _counted,  # type: ignore[dict-item]
    Find: _counted,  # type: ignore[dict-item]
    InRange: _in_range,  # type: ignore[dict-item]
    Compare: _compare,  # type: ignore[dict-item]
    Transform: _transform,  # type: ignore[dict-item]
}
