"""The shapes of tree the lowering's patterns read, recognised without compiling
anything: the members of a disjunction, a line's steps, what a move demands of its
squares, the square a member requires a piece variable on, the one variable a filter
reads."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from cqllegacy.core import tree as ct
from cqllegacy.core.tree import (
    Filter,
    Find,
    Intersection,
    Keyword,
    LegacyOnly,
    Line,
    LineGroup,
    Move,
    PieceSet,
    PieceVariable,
    Simple,
    Transform,
    Union,
)
from cqllegacy.evaluator.trees import meaningful, orbit_members
from cqllegacy.vocab.pieces import ANYTHING, TypeSet
from cqllegacy.vocab.squares import FULL

__all__ = [
    "LineMember",
    "bare_move_from",
    "disjunction_members",
    "fading_conjuncts",
    "is_true",
    "move_demand",
    "move_destination",
    "only_variable",
    "reads_bindings",
    "set_members",
    "single_steps",
    "step_here",
    "variable_key",
]


def reads_bindings(node: Filter) -> bool:
    """Whether ``node`` names a variable (piece, square or position) anywhere, even one it
    binds itself (kept simple: such a node is never taken as binding-free)."""
    return any(isinstance(n, ct.VARIABLES) for n in node.walk())


def disjunction_members(node: Filter) -> Iterator[Filter]:
    """The filters one of which must match for ``node`` to match (``node`` itself when
    it is no disjunction): its disjuncts, orbits expanded."""
    for part in node.disjuncts():
        if isinstance(part, Transform) and not part.count:
            for member in orbit_members(part):
                yield from _member_disjuncts(member)
        else:
            yield part


@functools.lru_cache(maxsize=4096)
def _member_disjuncts(member: Filter) -> tuple[Filter, ...]:
    # The members of nested orbits come again (each member of an outer orbit may hold an
    # inner one of the same members): each is opened once.
    return tuple(disjunction_members(member))


def set_members(node: Filter) -> Iterator[Filter]:
    """The set filters whose union is the value of the set filter ``node``."""
    if isinstance(node, Union):
        for item in meaningful(node.items):
            yield from set_members(item)
    elif isinstance(node, Transform) and not node.count:
        for member in orbit_members(node):
            yield from set_members(member)
    elif isinstance(node, LegacyOnly):
        yield from set_members(node.filter)
    else:
        yield node


def move_demand(node: Filter) -> tuple[int, TypeSet]:
    """The squares the next move must leave wherever ``node`` holds, and what must stand
    there (``(FULL, ANYTHING)``: no demand).  A null move leaves nowhere: whoever uses a
    demand lets it through.

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import Compound, Line, LineStep, Move
    >>> from cqllegacy.vocab.squares import format_squares
    >>> step = Compound((Move(from_=pd("Qa2")),))
    >>> squares, types = move_demand(Line((LineStep(step, 1, 1), LineStep(step, 1, 1))))
    >>> format_squares(squares), types == pd("Q").types
    ('a2', True)
    """
    if isinstance(node, Move) and not node.previous:
        if isinstance(node.from_, PieceSet):
            return node.from_.squares, node.from_.types
        return FULL, ANYTHING
    parts = node.conjuncts()
    if parts != (node,):
        squares, types = FULL, ANYTHING
        for item in parts:
            more_squares, more_types = move_demand(item)
            squares, types = squares & more_squares, types & more_types
        return squares, types
    if isinstance(node, Line) and (here := step_here(node)) is not None:
        return move_demand(here)
    if isinstance(node, LegacyOnly):
        return move_demand(node.filter)
    return FULL, ANYTHING


def bare_move_from(node: Filter) -> PieceSet | None:
    """X when ``node`` is exactly ``move from X`` for a piece designator X (nothing else
    about the move), so that the moving piece and its square decide it."""
    parts = node.conjuncts()
    if len(parts) == 1:
        node = parts[0]
    if isinstance(node, Move) and isinstance(node.from_, PieceSet):
        return node.from_ if node == Move(from_=node.from_) else None
    return None


def is_true(node: Filter) -> bool:
    return isinstance(node, Simple) and node.keyword is Keyword.TRUE


def variable_key(member: Filter) -> tuple[str, int] | None:
    """``(x, S)`` when ``member`` matches only where the piece variable ``x`` stands on a
    square of S: one of its conjuncts is ``x & …`` with piece designators whose squares
    meet in S (the first such conjunct; None when there is none).

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.vocab.squares import format_squares
    >>> from cqllegacy.core.tree import Compound, Intersection, PieceVariable
    >>> name, squares = variable_key(Compound((Intersection((PieceVariable("r"), pd("[a1,b2]"))),
    ...                                        pd("Kg1"))))
    >>> name, format_squares(squares)
    ('r', '[a1,b2]')
    """
    for part in member.conjuncts():
        if not isinstance(part, Intersection):
            continue
        items = meaningful(part.items)
        names = [item.name for item in items if isinstance(item, PieceVariable)]
        squares = [item.squares for item in items if isinstance(item, PieceSet)]
        if names and squares:
            meet = FULL
            for more in squares:
                meet &= more
            return names[0], meet
    return None


def move_destination(member: Filter) -> int:
    """The squares the next move must reach wherever ``member`` matches: those of the
    ``to`` designators of its ``move`` conjuncts (FULL when none says).

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.vocab.squares import format_squares
    >>> from cqllegacy.core.tree import Compound, Move
    >>> format_squares(move_destination(Compound((pd("Kg1"), Move(to=pd("_[d4,e4]"))))))
    'd-e4'
    """
    squares = FULL
    for part in member.conjuncts():
        if isinstance(part, Move) and not part.previous and isinstance(part.to, PieceSet):
            squares &= part.to.squares
    return squares


def fading_conjuncts(member: Filter) -> tuple[Find, ...]:
    """The conjuncts of ``member`` that, once false at a position, are false at every
    position reachable from it: its ``find`` conjuncts (what a ``find`` finds from a
    later position, it finds from this one).

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import Compound, Find
    >>> found = Find(pd("Q"))
    >>> fading_conjuncts(Compound((pd("K"), found, Find(pd("R"), all=True)))) == (found,)
    True
    """
    return tuple(part for part in member.conjuncts() if isinstance(part, Find) and not part.all)


def step_here(node: Line) -> Filter | None:
    """The constituent ``node`` matches at the current position: its first, when that
    is matched at least once (None: the line may match without it here).  What the
    recognitions that look at the current position read of a line."""
    return node.steps[0].filter if node.steps and node.steps[0].lo >= 1 else None


def single_steps(node: Line) -> LineMember | None:
    """The constituents of ``node`` in order, when each is matched exactly once and none
    is a group (the lines the walker and the tries of lines run); None otherwise."""
    if node.steps and all(
        (step.lo, step.hi) == (1, 1) and not isinstance(step.filter, LineGroup)
        for step in node.steps
    ):
        return tuple(step.filter for step in node.steps)
    return None


#: Members of a disjunction of lines: its steps, the first at the current position.
LineMember = tuple[Filter, ...]


def only_variable(node: Filter) -> str | None:
    """The piece variable ``node`` reads, when it reads exactly one and no variable of
    another kind (None otherwise).

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import Attacks, PieceVariable
    >>> only_variable(Attacks(PieceVariable("x"), pd("k"))), only_variable(pd("k"))
    ('x', None)
    """
    names = set()
    for part in node.walk():
        if isinstance(part, ct.VARIABLES):
            if not isinstance(part, PieceVariable):
                return None
            names.add(part.name)
    return names.pop() if len(names) == 1 else None
