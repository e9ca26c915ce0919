"""Faster evaluator rules for common node patterns.

Each rule here gives exactly the value of the straightforward rule it replaces
(:mod:`~cqllegacy.evaluator.position_rules`, :mod:`~cqllegacy.evaluator.line_rules`); the tests
run both on real games.  What makes them faster:

* conjunctions of piece designators and counts of them are atoms checked in one
  generated function (:mod:`~cqllegacy.evaluator.atoms`), and the atoms every filter needs
  are checked before anything costlier;
* disjunctions (a transform's orbit, ``or``, ``|`` read as a condition) are flattened
  and their members indexed by key pieces, so that a position looks at a few of up to a
  thousand members;
* ``#(L attacks R)`` and ``L attackedby R`` count from the smaller side (the attackers
  of a square, or the squares a piece attacks);
* ``move`` checks the squares its designators allow before anything else; lines of
  single steps are walked, their steps remembered per position;
* sums ``#(L attacks T@s1) + #(L attacks T@s2) + …`` over distinct single squares are
  counted attacker by attacker.

>>> from cqllegacy.evaluator.evaluate import evaluate_filter
>>> from cqllegacy.evaluator.testing import pd, position
>>> from cqllegacy.vocab.squares import format_squares
>>> from cqllegacy.core.tree import Transform, TransformKind
>>> check = Transform(TransformKind.SHIFT, Compound((pd("Nd4"), pd("kf3"))))
>>> board = position("8/8/8/8/8/N7/2k5/4K3 w - - 0 1")
>>> [format_squares(evaluate_filter(check, board, optimize=o)) for o in (True, False)]
['c2', 'c2']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import chess

from cqllegacy.core.transforms import orbit
from cqllegacy.core.tree import (
    And,
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Compound,
    Count,
    Filter,
    InRange,
    LegacyOnly,
    Line,
    Move,
    Or,
    PieceSet,
    Transform,
    Union,
)
from cqllegacy.evaluator import line_rules, position_rules
from cqllegacy.evaluator.analysis import closed_range, meaningful
from cqllegacy.evaluator.atoms import (
    KEY_COST_LIMIT,
    Atom,
    BoardCheck,
    any_conjunction,
    best_key,
    board_check,
    count_atom,
    disjunction_members,
    exact_atoms,
    necessary_atoms,
    pure_disjunction,
)
from cqllegacy.evaluator.board_tests import (
    attackers_of,
    attacking,
    board_condition,
    board_count,
    plain_pieces,
    single_square_attack,
    sum_terms,
)
from cqllegacy.evaluator.compiler import (
    FAIL,
    Compiled,
    Compiler,
    Context,
    Fn,
    Kind,
    Rule,
    as_logical,
    as_number,
    as_set,
    registrar,
)
from cqllegacy.evaluator.masks import kind_bit, kinds, mask_function
from cqllegacy.vocab.pieces import ANYTHING, TypeSet
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = ["RULES"]

RULES: dict[type[Filter], Rule] = {}
_rule = registrar(RULES)

Board = chess.Board
Mask = Callable[[Board], int]


def _atoms_test(atoms: Sequence[Atom]) -> Fn:
    """One closure for a conjunction of atoms."""
    check = board_check(atoms)
    if check is None:
        return lambda ctx, p: True
    return lambda ctx, p: check(ctx.boards[p])


# --------------------------------------------------------------------------------------
# Set and numeric leaves
# --------------------------------------------------------------------------------------


@_rule(PieceSet)
def _piece_set(c: Compiler, node: PieceSet) -> Compiled:
    squares, types = node.squares, node.types
    if types == ANYTHING or squares == 0 or not types:
        constant = squares if types else 0
        return as_set(lambda ctx, p: constant)
    mask = mask_function(types)
    test = _atoms_test((Atom(types, squares),))
    if squares == FULL:
        return Compiled(Kind.SET, lambda ctx, p: mask(ctx.boards[p]), test)
    return Compiled(Kind.SET, lambda ctx, p: mask(ctx.boards[p]) & squares, test)


def _on_board(fn: Callable[[Board], Any]) -> Fn:
    return lambda ctx, p: fn(ctx.boards[p])


@_rule(Count)
def _count(c: Compiler, node: Count) -> Compiled:
    arg = node.arg
    if plain_pieces(arg):
        assert isinstance(arg, PieceSet)
        mask, squares = mask_function(arg.types), arg.squares
        return as_number(lambda ctx, p: (mask(ctx.boards[p]) & squares).bit_count())
    count = board_count(node)
    if count is not None:
        return as_number(_on_board(count))
    fn = c.set_fn(arg)
    return as_number(lambda ctx, p: fn(ctx, p).bit_count())


@_rule(InRange)
def _in_range(c: Compiler, node: InRange) -> Compiled:
    atom = count_atom(node.value, node.lo, node.hi)
    if atom is not None:
        return as_logical(_atoms_test((atom,)))
    check = board_condition(node)
    if check is not None:
        return as_logical(_on_board(check))
    fn = c.number_fn(node.value)
    lo, hi = closed_range(node.lo, node.hi)

    def in_range(ctx: Context, p: int) -> bool:
        value = fn(ctx, p)
        return value is not None and lo <= value <= hi

    return as_logical(in_range)


@_rule(Attacks)
def _attacks(c: Compiler, node: Attacks) -> Compiled:
    left, right = c.set_fn(node.left), c.set_fn(node.right)

    def attacks(ctx: Context, p: int) -> int:
        targets = right(ctx, p)
        if not targets:
            return 0
        board = ctx.boards[p]
        attackers = left(ctx, p) & board.occupied
        return attacking(board, attackers, targets) if attackers else 0

    return as_set(attacks)


@_rule(AttackedBy)
def _attacked_by(c: Compiler, node: AttackedBy) -> Compiled:
    left, right = c.set_fn(node.left), c.set_fn(node.right)

    def attacked_by(ctx: Context, p: int) -> int:
        targets = left(ctx, p)
        if not targets:
            return 0
        board = ctx.boards[p]
        pieces = right(ctx, p) & board.occupied
        if not pieces:
            return 0
        out = 0
        if targets.bit_count() < pieces.bit_count():
            for sq in iter_squares(targets):
                if attackers_of(board, sq, pieces):
                    out |= 1 << sq
            return out
        for sq in iter_squares(pieces):
            out |= board.attacks_mask(sq)
        return targets & out

    return as_set(attacked_by)


# --------------------------------------------------------------------------------------
# Conjunctions
# --------------------------------------------------------------------------------------


def _conjunction_test(c: Compiler, items: list[Filter]) -> Fn:
    """All ``items`` match: their atoms first, then the rest in their order."""
    atoms: list[Atom] = []
    rest: list[Fn] = []
    for item in items:
        exact = exact_atoms(item)
        if exact is None:
            atoms.extend(necessary_atoms(item))
            rest.append(c.truth(item))
        else:
            atoms.extend(exact)
    tests = ([_atoms_test(atoms)] if atoms else []) + rest
    if not tests:
        return lambda ctx, p: True
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda ctx, p: bool(first(ctx, p)) and bool(second(ctx, p))
    tests_tuple = tuple(tests)

    def conjunction(ctx: Context, p: int) -> bool:
        # A loop, not all(generator): this runs at every position.
        for test in tests_tuple:  # noqa: SIM110 (all() over a generator is slower here)
            if not test(ctx, p):
                return False
        return True

    return conjunction


@_rule(Compound)
def _compound(c: Compiler, node: Compound) -> Compiled:
    items = meaningful(node.items)
    if not items:
        return as_logical(lambda ctx, p: True)
    *head, tail = items
    last = c.compile(tail)
    if not head:
        return last
    guard = _conjunction_test(c, head)
    test = _conjunction_test(c, items)
    last_fn, fail = last.fn, FAIL[last.kind]

    def compound(ctx: Context, p: int) -> Any:
        return last_fn(ctx, p) if guard(ctx, p) else fail

    return Compiled(last.kind, compound, test)


@_rule(And)
def _and(c: Compiler, node: And) -> Compiled:
    return as_logical(_conjunction_test(c, meaningful(node.items)))


# --------------------------------------------------------------------------------------
# Disjunctions: orbits, or, union
# --------------------------------------------------------------------------------------


#: "Whatever the next move": a bit beyond the board, set in every ``moved`` value
#: (:func:`_moved_from`), so an entry with this ``moved_from`` always passes, even at
#: the end of a line.
_ANY_MOVE = FULL | 1 << 64


class _Entry(NamedTuple):
    """A member as the index stores it: the squares its next move must start from
    (``moved_from``; ``_ANY_MOVE``: no demand), atoms still to check on the board
    (``check``), then its test (None when the atoms are the whole member)."""

    moved_from: int
    check: BoardCheck | None
    test: Fn | None


class _Pending(NamedTuple):
    """A member on its way into the index: the atoms left to check and its test."""

    moved_from: int
    atoms: list[Atom]
    test: Fn | None


def _member_atoms(c: Compiler, member: Filter) -> tuple[tuple[Atom, ...], Fn | None]:
    exact = exact_atoms(member)
    if exact is not None:
        return exact, None
    return necessary_atoms(member), c.truth(member)


def next_move_from(node: Filter) -> int:
    """Squares the next move starts from wherever ``node`` matches (FULL: no constraint).

    A null move starts nowhere: the caller lets it through.

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import LineStep
    >>> from cqllegacy.vocab.squares import format_squares
    >>> step = Compound((Move(from_=pd("Qa2")),))
    >>> format_squares(next_move_from(Line((LineStep(step, 1, 1), LineStep(step, 1, 1)))))
    'a2'
    """
    if isinstance(node, Move) and not node.previous:
        return _squares_of(node.from_)
    if isinstance(node, Compound | And):
        out = FULL
        for item in meaningful(node.items):
            out &= next_move_from(item)
        return out
    if isinstance(node, Line) and node.steps and node.steps[0].lo >= 1:
        return next_move_from(node.steps[0].filter)
    if isinstance(node, LegacyOnly):
        return next_move_from(node.filter)
    return FULL


def _entries(pending: list[_Pending]) -> tuple[_Entry, ...]:
    """Entries for pending members; members that are one atom of the same type set
    become one entry, checked on one mask."""
    single: dict[TypeSet, list[Atom]] = {}
    out: list[_Entry] = []
    for moved_from, atoms, test in pending:
        if test is None and len(atoms) == 1:
            single.setdefault(atoms[0].types, []).append(atoms[0])
        elif test is None and not atoms:
            return (_Entry(_ANY_MOVE, None, None),)  # a member that always matches
        else:
            out.append(_Entry(moved_from, board_check(atoms), test))
    merged = [
        _Entry(_ANY_MOVE, any_conjunction([(a,) for a in group]), None) for group in single.values()
    ]
    return tuple(merged + out)


class _KeyedTable(NamedTuple):
    """The members filed under one piece kind: ``table[sq]`` for a piece on ``sq``."""

    pieces: Mask
    squares: int
    table: tuple[tuple[_Entry, ...], ...]


def _index(
    c: Compiler, members: list[Filter]
) -> tuple[tuple[_Entry, ...], tuple[_KeyedTable, ...]]:
    """Members filed under their key atoms: those to look at always, and per piece kind
    those to look at when a piece of that kind stands on the key square."""
    always: list[_Pending] = []
    keyed: dict[tuple[str, chess.Color], dict[int, list[_Pending]]] = {}
    for member in members:
        atoms, test = _member_atoms(c, member)
        demand = FULL if test is None else next_move_from(member)
        moved_from = _ANY_MOVE if demand == FULL else demand
        key = best_key(atoms)
        if key is None or (key.key_cost() or 0) > KEY_COST_LIMIT:
            always.append(_Pending(moved_from, list(atoms), test))
            continue
        rest = list(atoms)
        if key.presence:
            # A piece of the key's kind on a key square is what the key atom says.
            rest.remove(key)
        for kind in kinds(key.types):
            by_square = keyed.setdefault(kind, {})
            for sq in iter_squares(key.squares):
                by_square.setdefault(sq, []).append(_Pending(moved_from, rest, test))
    tables = []
    for (name, color), by_square in keyed.items():
        table: list[tuple[_Entry, ...]] = [()] * 64
        for sq, pending in by_square.items():
            table[sq] = _entries(pending)
        squares = sum(1 << sq for sq in by_square)
        tables.append(_KeyedTable(mask_function(kind_bit(name, color)), squares, tuple(table)))
    return _entries(always), tuple(tables)


def _first_holding(
    entries: tuple[_Entry, ...], ctx: Context, p: int, board: Board, moved: int
) -> bool:
    for moved_from, check, test in entries:
        if (
            moved_from & moved
            and (check is None or check(board))
            and (test is None or test(ctx, p))
        ):
            return True
    return False


def _moved_from(ctx: Context, p: int) -> int:
    """The squares the moves continuing from ``p`` start from, and the ``_ANY_MOVE``
    bit (all squares after a null move, which a move filter judges by itself)."""
    out = 1 << 64
    for q in ctx.next[p]:
        move = ctx.moves[q]
        if not move:
            return _ANY_MOVE
        out |= 1 << move.from_square
    return out


def _any_test(c: Compiler, node: Filter) -> Fn:
    """Some member of the disjunction ``node`` matches."""
    pure = pure_disjunction(node)
    if pure is not None:
        return lambda ctx, p: pure(ctx.boards[p])
    members = list(dict.fromkeys(disjunction_members(node)))
    always, keyed = _index(c, members)
    needs_board = bool(keyed) or any(entry.check for entry in always)
    entries = [*always, *(entry for table in keyed for slot in table.table for entry in slot)]
    needs_moves = any(entry.moved_from != _ANY_MOVE for entry in entries)

    def any_member(ctx: Context, p: int) -> bool:
        board = ctx.boards[p] if needs_board else None
        moved = _moved_from(ctx, p) if needs_moves else _ANY_MOVE
        if always and _first_holding(always, ctx, p, board, moved):
            return True
        for pieces, squares, table in keyed:
            bb = pieces(board) & squares
            while bb:
                low = bb & -bb
                if _first_holding(table[low.bit_length() - 1], ctx, p, board, moved):
                    return True
                bb ^= low
        return False

    return any_member


def _setdisjunction_members(node: Filter) -> Iterator[Filter]:
    """The set filters whose union is the value of the set filter ``node``."""
    if isinstance(node, Union):
        for item in meaningful(node.items):
            yield from _setdisjunction_members(item)
    elif isinstance(node, Transform) and not node.count:
        for member in orbit(node.kind, node.arg):
            yield from _setdisjunction_members(member)
    elif isinstance(node, LegacyOnly):
        yield from _setdisjunction_members(node.filter)
    else:
        yield node


def _lazy_orbit_value(c: Compiler, node: Transform) -> Fn:
    """The union of the members' values, compiled when first asked for: an orbit in a
    condition is only tested (:func:`_any_test`), and compiling the value of a thousand
    members costs a noticeable part of a second.  Only for orbits: their members are
    images of one set filter, so compiling them later cannot fail."""
    union: Fn | None = None

    def first_use(ctx: Context, p: int) -> int:
        nonlocal union
        if union is None:
            union = _compiled_union_value(c, node)
        return union(ctx, p)

    return first_use


def _compiled_union_value(c: Compiler, node: Filter) -> Fn:
    """The union of the members' values; members whose necessary atoms fail add nothing."""
    members = list(dict.fromkeys(_setdisjunction_members(node)))
    entries = tuple((board_check(necessary_atoms(m)), c.set_fn(m)) for m in members)

    def union(ctx: Context, p: int) -> int:
        board = None
        out = 0
        for check, fn in entries:
            if check is not None:
                if board is None:
                    board = ctx.boards[p]
                if not check(board):
                    continue
            out |= fn(ctx, p)
        return out

    return union


@_rule(Or)
def _or(c: Compiler, node: Or) -> Compiled:
    return as_logical(_any_test(c, node))


@_rule(Union)
def _union(c: Compiler, node: Union) -> Compiled:
    # Compiled now: an item that is not a set must be refused before any game is read.
    return Compiled(Kind.SET, _compiled_union_value(c, node), _any_test(c, node))


@_rule(Transform)
def _transform(c: Compiler, node: Transform) -> Compiled:
    kind = c.compile(node.arg).kind
    if node.count or kind is Kind.NUMBER:
        straightforward = position_rules.RULES[Transform](c, node)
        if node.count:
            return straightforward
        return Compiled(kind, straightforward.fn, _any_test(c, node))
    test = _any_test(c, node)
    if kind is Kind.LOGICAL:
        return as_logical(test)
    return Compiled(Kind.SET, _lazy_orbit_value(c, node), test)


# --------------------------------------------------------------------------------------
# Moves and lines of single steps
# --------------------------------------------------------------------------------------

#: Where a king lands when castling: a ``to`` designator must hold one of them, or the
#: destination itself, for a castling move to match it.
_CASTLING_DESTINATIONS = chess.BB_C1 | chess.BB_G1 | chess.BB_C8 | chess.BB_G8


def _squares_of(arg: Filter | None) -> int:
    """The squares the value of ``arg`` lies within, as far as the tree says."""
    return arg.squares if isinstance(arg, PieceSet) else FULL


@_rule(Move)
def _move(c: Compiler, node: Move) -> Compiled:
    """The next move, with the squares the designators allow checked first."""
    straightforward = line_rules.RULES[Move](c, node)
    from_squares, to_squares = _squares_of(node.from_), _squares_of(node.to)
    if node.previous or (from_squares == FULL and to_squares == FULL):
        return straightforward
    test = line_rules.MoveTest.of(c, node)
    castling_possible = bool(to_squares & _CASTLING_DESTINATIONS)

    def move_next(ctx: Context, p: int) -> bool:
        for q in ctx.next[p]:
            move = ctx.moves[q]
            if move:
                if not from_squares >> move.from_square & 1:
                    continue
                if not (to_squares >> move.to_square & 1 or castling_possible):
                    continue
            if test.matches(ctx, p, q):
                return True
        return False

    return as_logical(move_next)


def _remembered(c: Compiler, node: Filter) -> Fn:
    """The truth of ``node``, remembered per position of a game (and per scope and
    binding): the steps of many lines are often the same filter at the same position."""
    key = ("remembered", node)
    cached = c.extras.get(key)
    if cached is not None:
        return cached
    test = c.truth(node)
    token = object()

    def remembered(ctx: Context, p: int) -> bool:
        known = ctx.memo_for(token)
        if known is None:
            known = ctx.store(token, {})
        value = known.get(p)
        if value is None:
            value = known[p] = bool(test(ctx, p))
        return value

    c.extras[key] = remembered
    return remembered


@_rule(Line)
def _line(c: Compiler, node: Line) -> Compiled:
    """``line --> C1 --> C2 …`` with every step matched exactly once: C1 here, C2 at a
    continuation, … (the general rule searches states; this one walks)."""
    if not node.steps or any((step.lo, step.hi) != (1, 1) for step in node.steps):
        return line_rules.RULES[Line](c, node)
    tests = tuple(
        c.truth(step.filter) if i == 0 else _remembered(c, step.filter)
        for i, step in enumerate(node.steps)
    )
    last = len(tests) - 1

    def walk(ctx: Context, p: int, i: int) -> bool:
        while True:
            if not tests[i](ctx, p):
                return False
            if i == last:
                return True
            following = ctx.next[p]
            if len(following) != 1:
                return any(walk(ctx, q, i + 1) for q in following)
            p, i = following[0], i + 1

    return as_logical(lambda ctx, p: walk(ctx, p, 0))


# --------------------------------------------------------------------------------------
# Sums of attack counts
# --------------------------------------------------------------------------------------


def _attack_sum(left: Fn, types: TypeSet, squares: int) -> Fn:
    """Σ over the squares s of ``squares`` of #(L attacks T@s): for each attacker in L,
    the number of its attacked squares holding T there."""
    pieces = mask_function(types)

    def total(ctx: Context, p: int) -> int:
        board = ctx.boards[p]
        targets = pieces(board) & squares
        if not targets:
            return 0
        count = 0
        for sq in iter_squares(left(ctx, p) & board.occupied):
            count += (board.attacks_mask(sq) & targets).bit_count()
        return count

    return total


@_rule(Arith)
def _arith(c: Compiler, node: Arith) -> Compiled:
    if node.op is not ArithOp.ADD:
        return position_rules.RULES[Arith](c, node)
    count = board_count(node)
    if count is not None:
        return as_number(_on_board(count))
    terms = sum_terms(node)
    groups: dict[tuple[Filter, TypeSet], int] = {}
    others: list[Filter] = []
    for term in terms:
        parts = single_square_attack(term)
        if parts is None:
            others.append(term)
            continue
        left, types, square = parts
        if groups.get((left, types), 0) & square:
            others.append(term)  # the same square twice: counted as written
        else:
            groups[(left, types)] = groups.get((left, types), 0) | square
    if not any(sq.bit_count() > 1 for sq in groups.values()):
        return position_rules.RULES[Arith](c, node)
    fns = [_attack_sum(c.set_fn(left), types, sq) for (left, types), sq in groups.items()]
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
