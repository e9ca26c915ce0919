"""Necessities that name no variable: what a filter that follows pieces needs
wherever it holds, relaxed from its piece variables to what the tags say of them
(:func:`relaxed_necessity`, :func:`tag_bounds`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from cqllegacy.core import tree as ct
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
    Line,
    LineGroup,
    Move,
    Or,
    PieceSet,
    PieceVariable,
)
from cqllegacy.evaluator.compiler import Compiler
from cqllegacy.evaluator.lowering.shapes import disjunction_members, reads_bindings
from cqllegacy.evaluator.trees import meaningful
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, BLACK_PIECES, WHITE_PIECES
from cqllegacy.vocab.squares import FULL

__all__ = [
    "MAX_RELAXED_MEMBERS",
    "TAG_BOUNDS",
    "common_bound",
    "compiled_tag_bounds",
    "relaxed_necessity",
    "tag_bounds",
]


#: A disjunction with more members than this gets no relaxed necessity (it would cost
#: more to compile than it saves).
MAX_RELAXED_MEMBERS = 64


#: What a piece variable's value lies within: the square of its piece, when on the board.
_ANY_PIECE_ANYWHERE = PieceSet(ANY_PIECE, FULL)


#: The key of :func:`tag_bounds` among a compiler's extras.
TAG_BOUNDS = "tag bounds"


def tag_bounds(tags: Sequence[ct.TagDeclaration]) -> dict[str, PieceSet]:
    """What the value of each legacy tag lies within: the pieces of the colours its types
    name (the tag takes a piece of one of its types, at the start or after a promotion,
    and a piece never changes colour).

    >>> from cqllegacy.vocab.pieces import types_of
    >>> found = tag_bounds([ct.TagDeclaration("c", types_of("KQRBNP"))])
    >>> found["c"] == PieceSet(WHITE_PIECES, FULL)
    True
    """
    out = {}
    for tag in tags:
        types = (WHITE_PIECES if tag.types & WHITE_PIECES else 0) | (
            BLACK_PIECES if tag.types & BLACK_PIECES else 0
        )
        out[tag.name] = PieceSet(types, FULL)
    return out


def compiled_tag_bounds(c: Compiler) -> Mapping[str, PieceSet]:
    found: Mapping[str, PieceSet] = c.extras.get(TAG_BOUNDS, {})
    return found


def relaxed_necessity(node: Filter, bounds: Mapping[str, PieceSet] | None = None) -> Filter | None:
    """A filter that reads no variable and holds wherever ``node`` holds (None when there
    is nothing to say), found by putting in place of each piece variable what its value
    lies within, where ``node`` is monotone in it: ``x & R[a1-8]`` needs a rook on the
    a-file, ``#(x attacks k) == 1`` some piece attacking the black king, a line its first
    step, an orbit one of its members.  ``bounds`` are what the conjuncts around ``node``
    say of a variable's value at the same position (``x & n`` beside it: a black knight).

    >>> from cqllegacy.evaluator.testing import pd
    >>> x = PieceVariable("x")
    >>> relaxed_necessity(InRange(Count(Attacks(x, pd("k"))), 1, 1)) == Attacks(
    ...     PieceSet(ANY_PIECE, FULL), pd("k"))
    True
    >>> relaxed_necessity(Compound((Intersection((x, pd("[Nn]"))), Attacks(x, pd("K"))))) == And(
    ...     (pd("[Nn]"), Attacks(pd("[Nn]"), pd("K"))))
    True
    """
    bounds = bounds or {}
    if not reads_bindings(node):
        return node
    if isinstance(node, Compound | And | LegacyOnly):
        parts = node.conjuncts()
        inner = dict(bounds)
        for part in parts:  # all hold at once: a variable lies within each bound said
            for name, bound in _bounds_said(part, bounds).items():
                inner[name] = bound
        relaxed = [n for part in parts if (n := relaxed_necessity(part, inner)) is not None]
        if len(relaxed) < 2:
            return relaxed[0] if relaxed else None
        # One flat conjunction: its atoms and board checks are then decided together.
        return And(tuple(part for found in relaxed for part in found.conjuncts()))
    if isinstance(node, InRange) and isinstance(node.value, Count) and (node.lo or 0) >= 1:
        return _relaxed_set(node.value.arg, bounds)
    if isinstance(node, Move) and not node.previous:
        return attrs.evolve(
            node,
            from_=_relaxed_move_part(node.from_, bounds),
            to=_relaxed_move_part(node.to, bounds),
            capture=_relaxed_move_part(node.capture, bounds),
        )
    if isinstance(node, Line):
        first = node.steps[0] if node.steps else None
        if first is None or first.lo < 1 or isinstance(first.filter, LineGroup):
            return None
        return relaxed_necessity(first.filter, bounds)
    members = list(dict.fromkeys(disjunction_members(node)))
    if members != [node]:
        if len(members) > MAX_RELAXED_MEMBERS:
            return None
        each = [relaxed_necessity(member, bounds) for member in members]
        if any(r is None for r in each):
            return None
        found = list(dict.fromkeys(r for r in each if r is not None))
        return found[0] if len(found) == 1 else Or(tuple(found))
    return _relaxed_set(node, bounds)


def _bounds_said(part: Filter, bounds: Mapping[str, PieceSet]) -> dict[str, PieceSet]:
    """What the conjunct ``part`` (``x & S…``) says of a piece variable's value."""
    if not isinstance(part, Intersection):
        return {}
    items = meaningful(part.items)
    bound = _upper_bound(part, bounds)
    if bound is None:
        return {}
    return {item.name: bound for item in items if isinstance(item, PieceVariable)}


def _relaxed_move_part(arg: Filter | None, bounds: Mapping[str, PieceSet]) -> Filter | None:
    """A move's designator with its variables relaxed; None (no demand) when it cannot
    be: fewer demands on the move admit more moves."""
    return None if arg is None else _relaxed_set(arg, bounds)


def _upper_bound(node: Filter, bounds: Mapping[str, PieceSet]) -> PieceSet | None:
    """A piece designator whose value holds the value of the set filter ``node``."""
    if isinstance(node, PieceSet):
        return node
    if isinstance(node, PieceVariable):
        return bounds.get(node.name, _ANY_PIECE_ANYWHERE)
    if isinstance(node, LegacyOnly):
        return _upper_bound(node.filter, bounds)
    if isinstance(node, Intersection):
        found = [b for item in meaningful(node.items) if (b := _upper_bound(item, bounds))]
        return common_bound(found) if found else None
    return None


def common_bound(bounds: Iterable[PieceSet]) -> PieceSet:
    """What every one of ``bounds`` admits: their types and their squares in common
    (anything anywhere for none)."""
    types, squares = ANYTHING, FULL
    for bound in bounds:
        types, squares = types & bound.types, squares & bound.squares
    return PieceSet(types, squares)


def _relaxed_set(node: Filter, bounds: Mapping[str, PieceSet]) -> Filter | None:
    """A set filter that reads no variable and whose value holds the value of ``node``
    (so it is not empty where ``node``'s is not); None when there is none."""
    if not reads_bindings(node):
        return node
    bound = _upper_bound(node, bounds)
    if bound is not None:
        return bound
    if isinstance(node, Attacks | AttackedBy):
        # Both are monotone in either argument: more pieces attack, or are attacked, more.
        left, right = _relaxed_set(node.left, bounds), _relaxed_set(node.right, bounds)
        if left is None or right is None:
            return None
        return type(node)(left, right)
    return None
