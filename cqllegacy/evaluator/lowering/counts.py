"""Counts: ``#X`` in a range as atoms, attack counts of piece designators and sums
of them over single squares on the board alone, ``L attacks R`` and ``L attackedby R``
counted from the smaller side, and counted orbits (:func:`counted_members`: how the
translator writes ``:accumulate``)."""

from __future__ import annotations

from cqllegacy.core.tree import (
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Count,
    Filter,
    InRange,
    PieceSet,
    Transform,
)
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.compiler import BoardCheck, Compiled, Compiler, Context, Kind, as_number
from cqllegacy.evaluator.lowering.atoms import count_atom, exact_atoms, plain_pieces
from cqllegacy.evaluator.masks import designator_squares
from cqllegacy.evaluator.trees import closed_range, orbit_members
from cqllegacy.vocab.pieces import TypeSet

__all__ = [
    "board_count",
    "counted_members",
    "lower_arith",
    "lower_attacked_by",
    "lower_attacks",
    "lower_count",
    "lower_in_range",
]


def _plain_pair(node: Filter) -> tuple[PieceSet, PieceSet] | None:
    """The two piece designators of ``#(L attacks R)`` when both are plain ones."""
    if not (isinstance(node, Count) and isinstance(node.arg, Attacks)):
        return None
    left, right = node.arg.left, node.arg.right
    if isinstance(left, PieceSet) and isinstance(right, PieceSet):
        return (left, right) if plain_pieces(left) and plain_pieces(right) else None
    return None


def _single_square_attack(term: Filter) -> tuple[Filter, TypeSet, int] | None:
    """``#(L attacks T@s)`` with one square s, as (L, T, s); None for other terms."""
    if not (isinstance(term, Count) and isinstance(term.arg, Attacks)):
        return None
    target = term.arg.right
    if isinstance(target, PieceSet) and target.squares.bit_count() == 1:
        return term.arg.left, target.types, target.squares
    return None


def _attack_sum_groups(node: Filter) -> tuple[dict[tuple[Filter, TypeSet], int], list[Filter]]:
    """The terms of a sum as ``#(L attacks T@s)`` over distinct squares s, grouped by
    (L, T) into their squares, and the other terms (a square repeated is counted as
    written)."""
    groups: dict[tuple[Filter, TypeSet], int] = {}
    others: list[Filter] = []
    for term in node.sum_terms():
        parts = _single_square_attack(term)
        if parts is None:
            others.append(term)
            continue
        left, types, square = parts
        if groups.get((left, types), 0) & square:
            others.append(term)
        else:
            groups[(left, types)] = groups.get((left, types), 0) | square
    return groups, others


def board_count(node: Filter) -> op.BoardCount | None:
    """``#(L attacks R)`` of plain piece designators, or a sum of ``#(L attacks T@s)``
    over at least two distinct single squares s for one plain L and one T (how the
    translator writes ``:attackcount`` on several targets), or a count of an orbit's
    members, or a sum of such counts, whose members are conjunctions of atoms (how the
    translator writes ``:accumulate``), as a function of the board."""
    pair = _plain_pair(node)
    if pair is not None:
        return op.attack_count(*pair)
    counted = counted_members(node)
    if counted is not None and any(counted):
        # (Members that are all the empty conjunction ask nothing of the board: their
        # count stays with the reference rules, which a list decided by its tags needs.)
        return op.count_conjunctions(counted)
    if not (isinstance(node, Arith) and node.op is ArithOp.ADD):
        return None
    groups, others = _attack_sum_groups(node)
    if others or len(groups) != 1:
        return None
    ((left, types), squares), *_ = groups.items()
    if not isinstance(left, PieceSet) or not plain_pieces(left) or squares.bit_count() < 2:
        return None
    return op.board_attack_sum(left, types, squares)


def counted_members(node: Filter) -> list[tuple[op.Atom, ...]] | None:
    """The members ``node`` counts, each as the atoms whose conjunction is exactly its
    truth, as often as it is counted: ``node`` is ``count T {…}`` (an orbit's members
    that hold) or a sum of such counts; None for anything else, or when some member is
    not a conjunction of atoms.

    >>> from cqllegacy.core.tree import TransformKind
    >>> from cqllegacy.evaluator.testing import pd
    >>> count = Transform(TransformKind.FLIPCOLOR, pd("Ka1"), count=True)
    >>> [atoms[0].squares for atoms in counted_members(Arith(ArithOp.ADD, count, count))]
    [1, 72057594037927936, 1, 72057594037927936]
    """
    if isinstance(node, Arith) and node.op is not ArithOp.ADD:
        return None
    out: list[tuple[op.Atom, ...]] = []
    for term in node.sum_terms():
        if not (isinstance(term, Transform) and term.count):
            return None
        for member in orbit_members(term):
            atoms = exact_atoms(member)
            if atoms is None:
                return None
            out.append(atoms)
    return out


def lower_count(c: Compiler, node: Count) -> Compiled | None:
    arg = node.arg
    if isinstance(arg, PieceSet) and plain_pieces(arg):
        value = designator_squares(arg.types, arg.squares)
        return as_number(lambda ctx, p: value(ctx.boards[p]).bit_count())
    count = board_count(node)
    return None if count is None else as_number(op.on_board(count))


def _board_condition(node: InRange) -> BoardCheck | None:
    atom = count_atom(node.value, node.lo, node.hi)
    if atom is not None:
        return op.all_atoms((atom,)) or (lambda board: True)
    pair = _plain_pair(node.value)
    if pair is not None:
        return op.attack_count_in_range(*pair, node.lo, node.hi)
    count = board_count(node.value)
    if count is None:
        return None
    low, high = closed_range(node.lo, node.hi)
    return lambda board: low <= count(board) <= high


def lower_in_range(c: Compiler, node: InRange) -> Compiled | None:
    check = _board_condition(node)
    return None if check is None else Compiled(Kind.LOGICAL, op.on_board(check), board=check)


def lower_attacks(c: Compiler, node: Attacks) -> Compiled:
    value = op.attacks(c.set_fn(node.left), c.set_fn(node.right))
    pair = _plain_attack(node.left, node.right)
    # Between piece designators, whether some piece of L attacks R is on the board alone.
    board = None if pair is None else op.attack_count_in_range(*pair, 1, None)
    return Compiled(Kind.SET, value, board=board)


def lower_attacked_by(c: Compiler, node: AttackedBy) -> Compiled:
    value = op.attacked_by(c.set_fn(node.left), c.set_fn(node.right))
    # ``L attackedby R`` is not empty exactly where some piece of R attacks L.
    pair = _plain_attack(node.right, node.left)
    board = None if pair is None else op.attack_count_in_range(*pair, 1, None)
    return Compiled(Kind.SET, value, board=board)


def _plain_attack(left: Filter, right: Filter) -> tuple[PieceSet, PieceSet] | None:
    if isinstance(left, PieceSet) and isinstance(right, PieceSet):
        return (left, right) if plain_pieces(left) and plain_pieces(right) else None
    return None


def lower_arith(c: Compiler, node: Arith) -> Compiled | None:
    if node.op is not ArithOp.ADD:
        return None
    count = board_count(node)
    if count is not None:
        return as_number(op.on_board(count))
    groups, others = _attack_sum_groups(node)
    if not any(squares.bit_count() > 1 for squares in groups.values()):
        return None
    fns = [op.attack_sum(c.set_fn(left), types, sq) for (left, types), sq in groups.items()]
    fns.extend(c.number_fn(term) for term in others)
    fns_tuple = tuple(fns)

    def add(ctx: Context, p: int) -> int | None:
        total = 0
        for fn in fns_tuple:
            value = fn(ctx, p)
            if value is None:
                return None
            total += value
        return total

    return as_number(add)
