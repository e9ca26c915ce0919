"""Atoms: the conjunctions of piece atoms a filter is exactly, or needs
(:func:`exact_atoms`, :func:`necessary_atoms`), and the lowerings of piece designators,
``not``, keywords the board decides, and conjunctions (one generated check of their
atoms, the rest after it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.core.tree import (
    And,
    AttackedBy,
    Attacks,
    Between,
    Compound,
    Count,
    DirectionSet,
    Filter,
    InRange,
    Intersection,
    Keyword,
    Line,
    Move,
    Not,
    PieceLoop,
    PieceSet,
    Ray,
    Simple,
    XRay,
)
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.compiler import (
    FAIL,
    BoardCheck,
    Compiled,
    Compiler,
    Context,
    Kind,
    TruthFn,
    truth,
)
from cqllegacy.evaluator.lowering.shapes import reads_bindings, step_here
from cqllegacy.evaluator.trees import meaningful
from cqllegacy.vocab.pieces import ANYTHING

__all__ = [
    "binding_free_necessity",
    "compiled_conjunction",
    "count_atom",
    "exact_atoms",
    "lower_and",
    "lower_compound",
    "lower_not",
    "lower_piece_set",
    "lower_simple",
    "necessary_atoms",
    "plain_pieces",
]


def count_atom(value: Filter, lo: int | None, hi: int | None) -> op.Atom | None:
    """``lo <= value <= hi`` as an atom, when ``value`` counts a piece designator."""
    if isinstance(value, Count) and isinstance(value.arg, PieceSet):
        return op.Atom(value.arg.types, value.arg.squares, max(lo or 0, 0), hi)
    return None


def exact_atoms(node: Filter) -> tuple[op.Atom, ...] | None:
    """Atoms whose conjunction is exactly the truth of ``node``; None when there are none.

    >>> from cqllegacy.evaluator.testing import pd
    >>> exact_atoms(Compound((pd("Ka1"), Not(pd("q")))))  # doctest: +NORMALIZE_WHITESPACE
    (Atom(types=32, squares=1, lo=1, hi=None),
     Atom(types=1024, squares=18446744073709551615, lo=0, hi=0))
    """
    if isinstance(node, PieceSet):
        return (op.Atom(node.types, node.squares),)
    parts = node.conjuncts()
    if parts != (node,):
        out: list[op.Atom] = []
        for item in parts:
            atoms = exact_atoms(item)
            if atoms is None:
                return None
            out.extend(atoms)
        return tuple(out)
    if isinstance(node, InRange):
        atom = count_atom(node.value, node.lo, node.hi)
        return None if atom is None else (atom,)
    if isinstance(node, Not) and isinstance(node.arg, PieceSet):
        return (op.Atom(node.arg.types, node.arg.squares, 0, 0),)
    if isinstance(node, Simple) and node.keyword is Keyword.TRUE:
        return ()
    return None


_BOTH_ARGS = (Attacks, AttackedBy, Between)


_ALL_ARGS = (Ray, XRay)


def necessary_atoms(node: Filter) -> tuple[op.Atom, ...]:
    """Atoms that hold wherever ``node`` matches (at the same position).

    >>> from cqllegacy.evaluator.testing import pd
    >>> necessary_atoms(Attacks(pd("N"), pd("k")))  # doctest: +NORMALIZE_WHITESPACE
    (Atom(types=2, squares=18446744073709551615, lo=1, hi=None),
     Atom(types=2048, squares=18446744073709551615, lo=1, hi=None))
    """
    exact = exact_atoms(node)
    if exact is not None:
        return exact
    conjunction = node.conjuncts()
    if conjunction != (node,):
        return tuple(atom for item in conjunction for atom in necessary_atoms(item))
    if isinstance(node, Intersection):
        return tuple(atom for item in meaningful(node.items) for atom in necessary_atoms(item))
    if isinstance(node, _BOTH_ARGS):
        return necessary_atoms(node.left) + necessary_atoms(node.right)
    if isinstance(node, _ALL_ARGS):
        return tuple(atom for arg in node.args for atom in necessary_atoms(arg))
    if isinstance(node, DirectionSet):
        return necessary_atoms(node.arg)
    if isinstance(node, PieceLoop | ct.SquareLoop) and not node.all:
        # ``piece all`` also matches when its domain holds no piece, ``square all`` when
        # its domain is empty; without ``all`` some square of the domain is needed.
        return necessary_atoms(node.domain)
    if isinstance(node, InRange) and isinstance(node.value, Count) and (node.lo or 0) >= 1:
        return necessary_atoms(node.value.arg)
    if isinstance(node, Move) and not node.previous:
        parts = (node.from_, node.to, node.capture)
        return tuple(atom for part in parts if part is not None for atom in necessary_atoms(part))
    if isinstance(node, Line) and (here := step_here(node)) is not None:
        return necessary_atoms(here)
    return ()


def binding_free_necessity(node: Filter) -> Filter | None:
    """A filter that reads no variable and holds wherever ``node`` holds (None when there
    is nothing to say), so that it can be decided once for every binding.

    A move's designators that read variables are dropped: fewer demands on the move admit
    more moves.

    >>> from cqllegacy.core.tree import PieceVariable
    >>> binding_free_necessity(Move(from_=PieceVariable("x"), promote=2))
    Move(from_=None, to=None, capture=None, promote=2, enpassant=False, previous=False, castle=None)
    """
    if not reads_bindings(node):
        return node
    conjunction = node.conjuncts()
    if conjunction != (node,):
        parts = [n for part in conjunction if (n := binding_free_necessity(part))]
        return None if not parts else parts[0] if len(parts) == 1 else And(tuple(parts))
    if isinstance(node, Move) and not node.previous:

        def bound_free(arg: Filter | None) -> Filter | None:
            return None if arg is None or reads_bindings(arg) else arg

        return attrs.evolve(
            node,
            from_=bound_free(node.from_),
            to=bound_free(node.to),
            capture=bound_free(node.capture),
        )
    return None


def plain_pieces(node: Filter) -> bool:
    """A piece designator that names some but not all contents of a square."""
    return isinstance(node, PieceSet) and node.types not in (0, ANYTHING)


def lower_piece_set(c: Compiler, node: PieceSet) -> Compiled | None:
    if not plain_pieces(node) or node.squares == 0:
        return None
    # The reference rule's value, with the board check of its atom.
    check = op.all_atoms((op.Atom(node.types, node.squares),))
    return attrs.evolve(c.reference(node), board=check)


def lower_not(c: Compiler, node: Not) -> Compiled | None:
    if not isinstance(node.arg, PieceSet):
        return None
    check = op.all_atoms((op.Atom(node.arg.types, node.arg.squares, 0, 0),))
    return None if check is None else Compiled(Kind.LOGICAL, op.on_board(check), board=check)


#: The keywords the board alone decides.
_BOARD_KEYWORDS: Mapping[Keyword, BoardCheck] = {
    Keyword.WTM: lambda board: board.turn,
    Keyword.BTM: lambda board: not board.turn,
    Keyword.CHECK: lambda board: board.is_check(),
    Keyword.MATE: lambda board: board.is_checkmate(),
    Keyword.STALEMATE: op.is_stalemate,
}


def lower_simple(c: Compiler, node: Simple) -> Compiled | None:
    check = _BOARD_KEYWORDS.get(node.keyword)
    return None if check is None else attrs.evolve(c.reference(node), board=check)


def compiled_conjunction(c: Compiler, items: Sequence[Filter]) -> tuple[BoardCheck | None, TruthFn]:
    """All ``items`` match: their atoms first (with the atoms the other items need, when
    there is more than one test), then the tests the board decides, then the others in
    their order.  A function of the board when the board decides every item."""
    atoms: list[op.Atom] = []
    needed: list[op.Atom] = []
    boards: list[BoardCheck] = []
    tests: list[TruthFn] = []
    for item in items:
        exact = exact_atoms(item)
        if exact is not None:
            atoms.extend(exact)
            continue
        needed.extend(necessary_atoms(item))
        compiled = c.compile(item)
        if compiled.board is not None:
            boards.append(compiled.board)
        else:
            tests.append(truth(compiled))
    if atoms or len(boards) + len(tests) > 1:
        # A failing piece test is far cheaper than anything else.
        atoms.extend(needed)
    first = op.all_atoms(atoms)
    checks = ([first] if first is not None else []) + boards
    if not tests:
        board = op.all_of(checks)
        # Items that ask nothing of the board (``true``) must not ask for one: the tags
        # driver decides a list that reads nothing without a board.
        return board, op.on_board(board) if checks else _always_true
    fns = [op.on_board(op.all_of(checks))] if checks else []
    fns.extend(tests)
    if len(fns) == 1:
        return None, fns[0]
    fns_tuple = tuple(fns)

    def conjunction(ctx: Context, p: int) -> bool:
        for fn in fns_tuple:  # noqa: SIM110 (all() over a generator is slower here)
            if not fn(ctx, p):
                return False
        return True

    return None, conjunction


def lower_compound(c: Compiler, node: Compound) -> Compiled | None:
    items = meaningful(node.items)
    if not items:
        return None
    *head, tail = items
    last = c.compile(tail)
    if not head:
        return last
    guard_board, guard = compiled_conjunction(c, head)
    board, test = compiled_conjunction(c, items)
    last_fn, fail = last.fn, FAIL[last.kind]
    if guard_board is not None and last.kind is Kind.LOGICAL and board is not None:
        return Compiled(Kind.LOGICAL, test, board=board)

    def compound(ctx: Context, p: int) -> Any:
        return last_fn(ctx, p) if guard(ctx, p) else fail

    return Compiled(last.kind, compound, test, board)


def lower_and(c: Compiler, node: And) -> Compiled:
    board, test = compiled_conjunction(c, meaningful(node.items))
    return Compiled(Kind.LOGICAL, test, board=board)


def _always_true(ctx: Context, p: int) -> bool:
    return True
