"""What the evaluator's stages read off a core tree alone, shared by the analysis, the
reference rules, the lowering and the plan: a range with its open ends closed, a list's
items without comments, the piece variables a filter reads, an orbit's members."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from cqllegacy.core.transforms import orbit
from cqllegacy.core.tree import Comment, Filter, PieceLoop, PieceVariable, Transform

__all__ = ["NO_BOUND", "closed_range", "free_variables", "meaningful", "orbit_members"]

#: Beyond any count or number a game can give: an open end of a range.
NO_BOUND = 1 << 62


def closed_range(lo: int | None, hi: int | None) -> tuple[int, int]:
    """``(lo, hi)`` with a missing end replaced by one no value reaches.

    >>> closed_range(None, 3) == (-NO_BOUND, 3)
    True
    """
    return (-NO_BOUND if lo is None else lo, NO_BOUND if hi is None else hi)


@functools.lru_cache(maxsize=256)
def orbit_members(node: Transform) -> tuple[Filter, ...]:
    """The members of the orbit of ``node`` (semantics: S-orbits): the one expansion the
    reference rule, the lowering and the plan's witness all read, computed once per
    transform (the cache holds its keys: equal trees, never recycled ids).

    >>> from cqllegacy.core.tree import TransformKind
    >>> from cqllegacy.evaluator.testing import pd
    >>> len(orbit_members(Transform(TransformKind.FLIP, pd("Ka1"))))
    4
    """
    return orbit(node.kind, node.arg)


def meaningful(items: Sequence[Filter]) -> list[Filter]:
    """``items`` without comments: a comment kept at its place (T3) changes nothing."""
    return [item for item in items if not isinstance(item, Comment)]


@functools.lru_cache(maxsize=4096)
def piece_variables_read(node: Filter) -> frozenset[str]:
    """The piece variables ``node`` reads, bound inside it or not (remembered: the array
    forms ask it of every subtree of orbits with hundreds of members).

    >>> from cqllegacy.evaluator.testing import pd
    >>> sorted(piece_variables_read(PieceLoop("x", pd("R"), PieceVariable("y"))))
    ['y']
    """
    if isinstance(node, PieceVariable):
        return frozenset((node.name,))
    found: frozenset[str] = frozenset()
    for child in node.children():
        found |= piece_variables_read(child)
    return found


def free_variables(node: Filter, bound: frozenset[str] = frozenset()) -> set[str]:
    """The piece variables ``node`` reads that no ``piece x in …`` inside it binds."""
    if isinstance(node, PieceVariable):
        return set() if node.name in bound else {node.name}
    if isinstance(node, PieceLoop):
        return free_variables(node.domain, bound) | free_variables(node.body, bound | {node.name})
    out: set[str] = set()
    for child in node.children():
        out |= free_variables(child, bound)
    return out
