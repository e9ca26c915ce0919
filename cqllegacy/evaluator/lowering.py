"""The lowering step: the one place where the evaluator recognises the patterns it runs
faster than their reference rules, each recognised once, each turned into a physical
operator of :mod:`~cqllegacy.evaluator.operators`.

:data:`LOWERING` has one entry per node class that has a faster form; the
:class:`~cqllegacy.evaluator.compiler.Compiler` asks it first and falls back to the
reference rule when the entry gives None (the node is not of a recognised pattern).  A
node class without an entry is compiled by its reference rule, always: those classes,
:data:`REFERENCE_RULE`, are every core node class (``core.tree.node_classes``) without a
lowering, and :data:`LOWERING` declares them absent (a :class:`~cqllegacy.core.dispatch.
Dispatcher`, so a lookup of any other class fails loudly).

Patterns recognised:

=================================  ==============================================================
pattern                            operator
=================================  ==============================================================
piece designators, ``#X`` in a     atoms (:class:`~cqllegacy.evaluator.operators.Atom`), a
range, ``not X``, conjunctions     conjunction of atoms checked in one generated function
disjunctions: orbits of            a keyed index (``operators.any_member``): members filed
``Transform``, ``or``, ``|``       under a rare piece and its square
``#(L attacks R)`` of piece        attack counts (leaper tables, the safe king) and their sums
designators, sums of them over     over single target squares, on the board alone
single squares, in a range
``L attacks R``, ``attackedby``    counted from the smaller side
``move`` with square designators   squares checked before anything else
``line`` of single steps           walked; an OR of such lines (:func:`line_members`) becomes a
                                   trie followed along a read game
                                   (:mod:`~cqllegacy.evaluator.line_automaton`)
legacy ``:relation``               placements read once per position, compared as bitboards;
                                   the answer remembered per position, for every binding;
                                   along a main line, positions failing on a square no move
                                   has changed since are skipped
``find X`` where X follows pieces  the positions where a binding-free necessity of X holds
                                   (:func:`binding_free_necessity`, else
                                   :func:`relaxed_necessity`) listed once for every binding
                                   (a move's from where moves land); X is tried there only;
                                   ``find all X`` counted there
orbits whose members place a       members filed by the square the bound piece must stand on
piece variable (``$r[g2] :shift``) (:func:`variable_key`); a position looks at those only
orbits whose members move to a     members filed by the squares the next move must reach
square (``:moveto .d4 :shift``)    (:func:`move_destination`)
disjunctions that follow pieces    tried only where a necessity that names no variable holds
                                   (:func:`relaxed_necessity`: a tag's colours, what ``x &
                                   S`` beside it says), decided once per position
filters that read one piece        read for every square of the piece at once
variable at its own position       (:func:`variable_holders`): per position, the squares
(``x & S``, ``#(x attacks R)``,    where the piece makes the filter hold, once for every
``move from x``, their ``and``,    binding; a binding reads the bit of its piece's square;
``or``, ``not``, orbits)           ``find``/``find all`` of one: per piece, the positions
                                   where it holds, found once
a list that follows pieces         per game, the positions where some binding may match (the
                                   masks above, else a relaxed necessity) listed once, each
                                   binding tried there only (:func:`list_sieve`)
=================================  ==============================================================

:func:`lower_query` lowers a whole analysed query into its plan
(:class:`~cqllegacy.evaluator.plan.QueryPlan`): the compiled lists and the driver, the tries
of lines (:func:`line_trie`) or the gates and horizon of a snapshot stream (:func:`gate`,
:func:`horizon`) included.

A lowered node whose truth the board alone decides carries it as ``Compiled.board``: the
live stream calls that function on python-chess's own board, the game tree on
``ctx.boards[p]``; the same operator either way.

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

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import (
    And,
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Between,
    Compound,
    Count,
    DirectionSet,
    Filter,
    Find,
    InRange,
    Intersection,
    Keyword,
    LegacyOnly,
    Line,
    LineGroup,
    Move,
    Not,
    Or,
    PieceLoop,
    PieceSet,
    PieceVariable,
    Query,
    Ray,
    Reads,
    Relation,
    RelationScope,
    RelationSideToMove,
    Simple,
    Transform,
    Union,
    XRay,
)
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.analysis import (
    Driver,
    QueryAnalysis,
    closed_range,
    free_variables,
    meaningful,
    orbit_members,
)
from cqllegacy.evaluator.compiler import (
    FAIL,
    BoardCheck,
    Compiled,
    Compiler,
    Context,
    Kind,
    Lowering,
    SetFn,
    TruthFn,
    as_logical,
    as_number,
    truth,
)
from cqllegacy.evaluator.drivers import CompiledList, ListSieve
from cqllegacy.evaluator.line_automaton import LineAutomaton
from cqllegacy.evaluator.line_rules import CASTLING_LANDINGS, MoveTest, step_test
from cqllegacy.evaluator.masks import designator_squares
from cqllegacy.evaluator.plan import Gates, QueryPlan
from cqllegacy.evaluator.relation import RelationParameters, relation
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, BLACK_PIECES, WHITE_PIECES, TypeSet
from cqllegacy.vocab.squares import FULL, Dihedral, iter_squares

__all__ = [
    "LOWERING",
    "REFERENCE_RULE",
    "LineMember",
    "LocalSteps",
    "bare_move_from",
    "common_bound",
    "counted_members",
    "disjunction_members",
    "exact_atoms",
    "gate",
    "horizon",
    "line_members",
    "line_trie",
    "list_sieve",
    "lower_query",
    "move_demand",
    "necessary_atoms",
    "only_variable",
    "single_steps",
    "step_here",
    "variable_holders",
]

# --------------------------------------------------------------------------------------
# Recognising atoms
# --------------------------------------------------------------------------------------


def _count_atom(value: Filter, lo: int | None, hi: int | None) -> op.Atom | None:
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
        atom = _count_atom(node.value, node.lo, node.hi)
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


def _reads_bindings(node: Filter) -> bool:
    """Whether ``node`` names a variable (piece, square or position) anywhere, even one it
    binds itself (kept simple: such a node is never taken as binding-free)."""
    return any(isinstance(n, ct.VARIABLES) for n in node.walk())


def binding_free_necessity(node: Filter) -> Filter | None:
    """A filter that reads no variable and holds wherever ``node`` holds (None when there
    is nothing to say), so that it can be decided once for every binding.

    A move's designators that read variables are dropped: fewer demands on the move admit
    more moves.

    >>> from cqllegacy.core.tree import PieceVariable
    >>> binding_free_necessity(Move(from_=PieceVariable("x"), promote=2))
    Move(from_=None, to=None, capture=None, promote=2, enpassant=False, previous=False, castle=None)
    """
    if not _reads_bindings(node):
        return node
    conjunction = node.conjuncts()
    if conjunction != (node,):
        parts = [n for part in conjunction if (n := binding_free_necessity(part))]
        return None if not parts else parts[0] if len(parts) == 1 else And(tuple(parts))
    if isinstance(node, Move) and not node.previous:

        def bound_free(arg: Filter | None) -> Filter | None:
            return None if arg is None or _reads_bindings(arg) else arg

        return attrs.evolve(
            node,
            from_=bound_free(node.from_),
            to=bound_free(node.to),
            capture=bound_free(node.capture),
        )
    return None


# --------------------------------------------------------------------------------------
# Recognising disjunctions, moves, attack counts
# --------------------------------------------------------------------------------------


def disjunction_members(node: Filter) -> Iterator[Filter]:
    """The filters one of which must match for ``node`` to match (``node`` itself when
    it is no disjunction): its disjuncts, orbits expanded."""
    for part in node.disjuncts():
        if isinstance(part, Transform) and not part.count:
            for member in orbit_members(part):
                yield from disjunction_members(member)
        else:
            yield part


def _set_members(node: Filter) -> Iterator[Filter]:
    """The set filters whose union is the value of the set filter ``node``."""
    if isinstance(node, Union):
        for item in meaningful(node.items):
            yield from _set_members(item)
    elif isinstance(node, Transform) and not node.count:
        for member in orbit_members(node):
            yield from _set_members(member)
    elif isinstance(node, LegacyOnly):
        yield from _set_members(node.filter)
    else:
        yield node


def move_demand(node: Filter) -> tuple[int, TypeSet]:
    """The squares the next move must leave wherever ``node`` holds, and what must stand
    there (``(FULL, ANYTHING)``: no demand).  A null move leaves nowhere: whoever uses a
    demand lets it through.

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import LineStep
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


def _plain_pieces(node: Filter) -> bool:
    """A piece designator that names some but not all contents of a square."""
    return isinstance(node, PieceSet) and node.types not in (0, ANYTHING)


def _plain_pair(node: Filter) -> tuple[PieceSet, PieceSet] | None:
    """The two piece designators of ``#(L attacks R)`` when both are plain ones."""
    if not (isinstance(node, Count) and isinstance(node.arg, Attacks)):
        return None
    left, right = node.arg.left, node.arg.right
    if isinstance(left, PieceSet) and isinstance(right, PieceSet):
        return (left, right) if _plain_pieces(left) and _plain_pieces(right) else None
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


def _board_count(node: Filter) -> op.BoardCount | None:
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
    if not isinstance(left, PieceSet) or not _plain_pieces(left) or squares.bit_count() < 2:
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


# --------------------------------------------------------------------------------------
# Lowerings: leaves
# --------------------------------------------------------------------------------------


def _piece_set(c: Compiler, node: PieceSet) -> Compiled | None:
    if not _plain_pieces(node) or node.squares == 0:
        return None
    # The reference rule's value, with the board check of its atom.
    check = op.all_atoms((op.Atom(node.types, node.squares),))
    return attrs.evolve(c.reference(node), board=check)


def _count(c: Compiler, node: Count) -> Compiled | None:
    arg = node.arg
    if isinstance(arg, PieceSet) and _plain_pieces(arg):
        value = designator_squares(arg.types, arg.squares)
        return as_number(lambda ctx, p: value(ctx.boards[p]).bit_count())
    count = _board_count(node)
    return None if count is None else as_number(op.on_board(count))


def _board_condition(node: InRange) -> BoardCheck | None:
    atom = _count_atom(node.value, node.lo, node.hi)
    if atom is not None:
        return op.all_atoms((atom,)) or (lambda board: True)
    pair = _plain_pair(node.value)
    if pair is not None:
        return op.attack_count_in_range(*pair, node.lo, node.hi)
    count = _board_count(node.value)
    if count is None:
        return None
    low, high = closed_range(node.lo, node.hi)
    return lambda board: low <= count(board) <= high


def _in_range(c: Compiler, node: InRange) -> Compiled | None:
    check = _board_condition(node)
    return None if check is None else Compiled(Kind.LOGICAL, op.on_board(check), board=check)


def _not(c: Compiler, node: Not) -> Compiled | None:
    if not isinstance(node.arg, PieceSet):
        return None
    check = op.all_atoms((op.Atom(node.arg.types, node.arg.squares, 0, 0),))
    return None if check is None else Compiled(Kind.LOGICAL, op.on_board(check), board=check)


def _attacks(c: Compiler, node: Attacks) -> Compiled:
    value = op.attacks(c.set_fn(node.left), c.set_fn(node.right))
    pair = _plain_attack(node.left, node.right)
    # Between piece designators, whether some piece of L attacks R is on the board alone.
    board = None if pair is None else op.attack_count_in_range(*pair, 1, None)
    return Compiled(Kind.SET, value, board=board)


def _attacked_by(c: Compiler, node: AttackedBy) -> Compiled:
    value = op.attacked_by(c.set_fn(node.left), c.set_fn(node.right))
    # ``L attackedby R`` is not empty exactly where some piece of R attacks L.
    pair = _plain_attack(node.right, node.left)
    board = None if pair is None else op.attack_count_in_range(*pair, 1, None)
    return Compiled(Kind.SET, value, board=board)


def _plain_attack(left: Filter, right: Filter) -> tuple[PieceSet, PieceSet] | None:
    if isinstance(left, PieceSet) and isinstance(right, PieceSet):
        return (left, right) if _plain_pieces(left) and _plain_pieces(right) else None
    return None


#: The keywords the board alone decides.
_BOARD_KEYWORDS: Mapping[Keyword, BoardCheck] = {
    Keyword.WTM: lambda board: board.turn,
    Keyword.BTM: lambda board: not board.turn,
    Keyword.CHECK: lambda board: board.is_check(),
    Keyword.MATE: lambda board: board.is_checkmate(),
    Keyword.STALEMATE: op.is_stalemate,
}


def _simple(c: Compiler, node: Simple) -> Compiled | None:
    check = _BOARD_KEYWORDS.get(node.keyword)
    return None if check is None else attrs.evolve(c.reference(node), board=check)


def _arith(c: Compiler, node: Arith) -> Compiled | None:
    if node.op is not ArithOp.ADD:
        return None
    count = _board_count(node)
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


# --------------------------------------------------------------------------------------
# Lowerings: conjunctions and disjunctions
# --------------------------------------------------------------------------------------


def _conjunction(c: Compiler, items: Sequence[Filter]) -> tuple[BoardCheck | None, TruthFn]:
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


def _compound(c: Compiler, node: Compound) -> Compiled | None:
    items = meaningful(node.items)
    if not items:
        return None
    *head, tail = items
    last = c.compile(tail)
    if not head:
        return last
    guard_board, guard = _conjunction(c, head)
    board, test = _conjunction(c, items)
    last_fn, fail = last.fn, FAIL[last.kind]
    if guard_board is not None and last.kind is Kind.LOGICAL and board is not None:
        return Compiled(Kind.LOGICAL, test, board=board)

    def compound(ctx: Context, p: int) -> Any:
        return last_fn(ctx, p) if guard(ctx, p) else fail

    return Compiled(last.kind, compound, test, board)


def _and(c: Compiler, node: And) -> Compiled:
    board, test = _conjunction(c, meaningful(node.items))
    return Compiled(Kind.LOGICAL, test, board=board)


def _member(c: Compiler, member: Filter) -> op.Member:
    exact = exact_atoms(member)
    if exact is not None:
        return op.Member(exact)
    compiled = c.compile(member)
    atoms = necessary_atoms(member)
    if compiled.board is not None:
        return op.Member(atoms, board=compiled.board)
    squares, _ = move_demand(member)
    moved_from = op.ANY_MOVE if squares == FULL else squares
    return op.Member(atoms, test=truth(compiled), moved_from=moved_from)


def _any(c: Compiler, node: Filter) -> tuple[BoardCheck | None, TruthFn]:
    """Some member of the disjunction ``node`` matches: a keyed index of its members
    (tried only where a binding-free necessity holds, when they follow pieces)."""
    board, test = _any_member(c, node)
    if board is not None or not _reads_bindings(node):
        return board, test
    name = only_variable(node)
    if name is not None:
        holders = variable_holders(c, node, name)
        if holders is not None:
            return None, op.holders_test(name, holders)
    necessity = relaxed_necessity(node, _tag_bounds(c))
    if necessity is None or _is_true(necessity):
        return board, test
    return None, op.gated(c.truth(necessity), test)


def _always_true(ctx: Context, p: int) -> bool:
    return True


def _is_true(node: Filter) -> bool:
    return isinstance(node, Simple) and node.keyword is Keyword.TRUE


def _any_member(c: Compiler, node: Filter) -> tuple[BoardCheck | None, TruthFn]:
    members = list(dict.fromkeys(disjunction_members(node)))
    shared = _shared_board_conjuncts(c, members)
    if not shared or all(c.compile(member).board is not None for member in members):
        # Members the board decides are filed by key atoms on one board check already.
        return _keyed_any(c, members)
    # Some member holds: the conjuncts all share, decided on the board, then some rest.
    guard, _ = _conjunction(c, shared)
    assert guard is not None
    board, test = _keyed_any(c, [_without(member, shared) for member in members])
    if board is not None:
        both = op.all_of([guard, board])
        return both, op.on_board(both)
    return None, op.gated(op.on_board(guard), test)


def _shared_board_conjuncts(c: Compiler, members: Sequence[Filter]) -> list[Filter]:
    """The conjuncts every one of two or more ``members`` has that the board decides
    cheaply (``wtm``, ``btm``, ``check``, piece atoms: the orbit of ``shift {wtm check
    move to _d4 …}`` asks them of every member), tested once for all before any member.
    Costlier ones (mate, attack counts …) stay in the members, where a key may spare
    them."""
    if len(members) < 2:
        return []
    rest = [set(meaningful(member.conjuncts())) for member in members[1:]]
    unspared = _none_spared(members)
    return [
        part
        for part in dict.fromkeys(meaningful(members[0].conjuncts()))
        if all(part in parts for parts in rest)
        and (_cheap_on_board(c, part) or (unspared and _costly_on_board(part)))
    ]


def _cheap_on_board(c: Compiler, node: Filter) -> bool:
    """The side to move, check, or piece atoms."""
    if isinstance(node, Simple):
        return node.keyword in _CHEAP_KEYWORDS
    return exact_atoms(node) not in (None, ())


def _costly_on_board(node: Filter) -> bool:
    """Mate or stalemate: decided on the board, by generating moves."""
    return isinstance(node, Simple) and node.keyword in _COSTLY_KEYWORDS


def _none_spared(members: Sequence[Filter]) -> bool:
    """Whether every member asks its board checks at every position: none has an atom
    tested before them, a square its piece variable must stand on or its next move must
    reach (which would spare them where it fails).  A costly check all share is then
    asked once for all instead of once a member (the two members of ``:stalemate …
    :flipcolor`` asked python-chess for the legal moves twice a position)."""
    return all(
        not necessary_atoms(member)
        and variable_key(member) is None
        and move_destination(member) == FULL
        for member in members
    )


#: The keywords :func:`_shared_board_conjuncts` tests before the members (python-chess
#: finds check with one attack lookup; mate and stalemate generate moves).
_CHEAP_KEYWORDS = frozenset({Keyword.WTM, Keyword.BTM, Keyword.CHECK})
#: The keywords it tests before the members only when no member could spare them.
_COSTLY_KEYWORDS = frozenset({Keyword.MATE, Keyword.STALEMATE})


def _without(member: Filter, shared: Sequence[Filter]) -> Filter:
    """``member`` as far as its truth goes, without the conjuncts ``shared``."""
    parts = [part for part in meaningful(member.conjuncts()) if part not in shared]
    if not parts:
        return Simple(Keyword.TRUE)
    return parts[0] if len(parts) == 1 else Compound(tuple(parts))


def _keyed_any(c: Compiler, members: Sequence[Filter]) -> tuple[BoardCheck | None, TruthFn]:
    """Some of ``members`` holds: filed by a piece variable's square, by where the next
    move lands, or by key atoms."""
    members = list(dict.fromkeys(members))
    by_variable = _variable_keyed_any(c, list(members))
    if by_variable is not None:
        return None, by_variable
    by_destination = _destination_keyed_any(c, list(members))
    if by_destination is not None:
        return None, by_destination
    return op.any_member([_member(c, member) for member in members])


def variable_key(member: Filter) -> tuple[str, int] | None:
    """``(x, S)`` when ``member`` matches only where the piece variable ``x`` stands on a
    square of S: one of its conjuncts is ``x & …`` with piece designators whose squares
    meet in S (the first such conjunct; None when there is none).

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.vocab.squares import format_squares
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
    >>> format_squares(move_destination(Compound((pd("Kg1"), Move(to=pd("_[d4,e4]"))))))
    'd-e4'
    """
    squares = FULL
    for part in member.conjuncts():
        if isinstance(part, Move) and not part.previous and isinstance(part.to, PieceSet):
            squares &= part.to.squares
    return squares


#: A disjunction is filed by its members' move destinations when at least this many
#: members name one, and each names few squares on average.
MIN_DESTINATION_KEYED = 4


def _destination_keyed_any(c: Compiler, members: Sequence[Filter]) -> TruthFn | None:
    """Some of ``members`` matches, the members filed under the squares their next move
    must reach (:func:`move_destination`); None when too few members name such squares.
    An orbit of a list that asks for a move to one square (``:moveto .d4 … :shift``) has
    dozens of members, and a position needs only the one its move reaches."""
    keys = [move_destination(member) for member in members]
    keyed = [squares for squares in keys if squares != FULL]
    if len(keyed) < MIN_DESTINATION_KEYED or sum(s.bit_count() for s in keyed) > 8 * len(keyed):
        return None
    unkeyed: list[op.Member] = []
    by_square: dict[int, list[op.Member]] = {}
    for member, squares in zip(members, keys, strict=True):
        lowered = _member(c, member)
        if squares == FULL:
            unkeyed.append(lowered)
            continue
        for sq in iter_squares(squares):
            by_square.setdefault(sq, []).append(lowered)
    return op.destination_keyed(
        op.any_member(unkeyed)[1] if unkeyed else None,
        {sq: op.any_member(group)[1] for sq, group in by_square.items()},
    )


def _variable_keyed_any(c: Compiler, members: Sequence[Filter]) -> TruthFn | None:
    """Some of ``members`` matches, the members filed under the squares their most
    common piece variable must stand on (:func:`variable_key`); None when fewer than two
    members name such squares for one variable.  An orbit of a list that places a piece
    variable (rookrectangle's ``$piece[g2]`` under ``:shift :flip``) has hundreds of
    members, and a position needs only those placing the piece where it stands."""
    keys = [variable_key(member) for member in members]
    names = [key[0] for key in keys if key is not None and key[1] != FULL]
    if len(names) < 2:
        return None
    name = max(dict.fromkeys(names), key=names.count)
    unkeyed: list[op.Member] = []
    by_square: dict[int, list[op.Member]] = {}
    fading: dict[int, list[tuple[Find, ...]]] = {}
    for member, key in zip(members, keys, strict=True):
        lowered = _member(c, member)
        if key is None or key[0] != name or key[1] == FULL:
            unkeyed.append(lowered)
            continue
        finds = fading_conjuncts(member)
        for sq in iter_squares(key[1]):
            by_square.setdefault(sq, []).append(lowered)
            fading.setdefault(sq, []).append(finds)
    alive = None
    if all(all(group) for group in fading.values()):
        alive = {sq: _some_all_hold(c, group) for sq, group in fading.items()}
    return op.variable_keyed(
        name,
        op.any_member(unkeyed)[1] if unkeyed else None,
        {sq: op.any_member(group)[1] for sq, group in by_square.items()},
        alive,
    )


def fading_conjuncts(member: Filter) -> tuple[Find, ...]:
    """The conjuncts of ``member`` that, once false at a position, are false at every
    position reachable from it: its ``find`` conjuncts (what a ``find`` finds from a
    later position, it finds from this one).

    >>> from cqllegacy.evaluator.testing import pd
    >>> found = Find(pd("Q"))
    >>> fading_conjuncts(Compound((pd("K"), found, Find(pd("R"), all=True)))) == (found,)
    True
    """
    return tuple(part for part in member.conjuncts() if isinstance(part, Find) and not part.all)


def _some_all_hold(c: Compiler, groups: Sequence[tuple[Filter, ...]]) -> TruthFn:
    """Some group of ``groups`` has all its filters holding."""
    tests = tuple(
        tuple(c.truth(f) for f in dict.fromkeys(group)) for group in dict.fromkeys(groups)
    )

    def some_all_hold(ctx: Context, p: int) -> bool:
        for group in tests:
            for test in group:
                if not test(ctx, p):
                    break
            else:
                return True
        return False

    return some_all_hold


def _union_value(c: Compiler, node: Filter) -> SetFn:
    """The union of the members' values; members whose necessary atoms fail add nothing."""
    members = dict.fromkeys(_set_members(node))
    entries = tuple((op.all_atoms(necessary_atoms(m)), c.set_fn(m)) for m in members)

    def union(ctx: Context, p: int) -> int:
        board = ctx.boards[p]
        out = 0
        for check, fn in entries:
            if check is None or check(board):
                out |= fn(ctx, p)
        return out

    return union


def _lazy_orbit_value(c: Compiler, node: Transform) -> SetFn:
    """The union of the members' values, compiled when first asked for: an orbit in a
    condition is only tested, and compiling the value of a thousand members costs a
    noticeable part of a second.  Only for orbits: their members are images of one set
    filter, so compiling them later cannot fail."""
    union: SetFn | None = None

    def first_use(ctx: Context, p: int) -> int:
        nonlocal union
        if union is None:
            union = _union_value(c, node)
        value: int = union(ctx, p)
        return value

    return first_use


def _or(c: Compiler, node: Or) -> Compiled:
    board, test = _any(c, node)
    return Compiled(Kind.LOGICAL, test, board=board)


def _union(c: Compiler, node: Union) -> Compiled:
    # The value is compiled now: an item that is not a set is refused before any game.
    board, test = _any(c, node)
    return Compiled(Kind.SET, _union_value(c, node), test, board)


def _transform(c: Compiler, node: Transform) -> Compiled | None:
    if node.count:
        count = _board_count(node)
        return None if count is None else as_number(op.on_board(count))
    kind = c.compile(node.arg).kind
    board, test = _any(c, node)
    if kind is Kind.NUMBER:
        return Compiled(kind, c.reference(node).fn, test, board)
    if kind is Kind.LOGICAL:
        return Compiled(kind, test, board=board)
    return Compiled(Kind.SET, _lazy_orbit_value(c, node), test, board)


# --------------------------------------------------------------------------------------
# Lowerings: moves and lines
# --------------------------------------------------------------------------------------


def _squares_of(arg: Filter | None) -> int:
    """The squares the value of ``arg`` lies within, as far as the tree says."""
    return arg.squares if isinstance(arg, PieceSet) else FULL


def _move(c: Compiler, node: Move) -> Compiled | None:
    from_squares, to_squares = _squares_of(node.from_), _squares_of(node.to)
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


def _line(c: Compiler, node: Line) -> Compiled | None:
    steps = single_steps(node)
    if steps is None:
        return None
    tests = [step_test(c, step) if i == 0 else _remembered(c, step) for i, step in enumerate(steps)]
    return as_logical(op.single_step_line(tests))


#: Members of a disjunction of lines: its steps, the first at the current position.
LineMember = tuple[Filter, ...]

#: Disjunctions of lines with more members than this are left to the game tree.
MAX_LINE_MEMBERS = 1 << 14


def line_members(node: Filter, local: Callable[[Filter], bool]) -> list[LineMember] | None:
    """``node`` as an OR of lines of single steps, every step a filter ``local`` accepts
    (one that reads the current position, its next move and the tags only); None when it
    is not one.  A local filter is a line of one step; ``{A line --> S0 --> …}`` with A
    local is ``line --> {A S0} --> …``.

    >>> from cqllegacy.core.tree import LineStep
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


# --------------------------------------------------------------------------------------
# Gates: what a snapshot stream tests while the game is read
# --------------------------------------------------------------------------------------


def gate(node: Filter, local: Callable[[Filter], bool]) -> Filter | None:
    """A filter on the current position alone (``local``) that matches wherever ``node``
    matches (None when there is none worth having)."""
    if local(node):
        return node
    if isinstance(node, Line):
        here = step_here(node)
        return None if here is None else gate(here, local)
    if isinstance(node, LegacyOnly):
        return gate(node.filter, local)
    if isinstance(node, Compound | And):
        found = [g for item in meaningful(node.items) if (g := gate(item, local)) is not None]
        return Compound(tuple(found)) if found else None
    members = list(disjunction_members(node))
    if members == [node]:
        return None
    gates = [gate(member, local) for member in members]
    if any(g is None for g in gates):
        return None
    return Or(tuple(dict.fromkeys(g for g in gates if g is not None)))


def horizon(node: Filter) -> int | None:
    """How many positions after the current one ``node`` may look at (None: unbounded,
    or earlier positions too)."""
    if node.reads_itself() is Reads.GAME and not isinstance(node, Line):
        # Earlier positions, pieces followed through the game, or unbounded search.
        return None
    below = [horizon(child) for child in node.children()]
    if any(h is None for h in below):
        return None
    deepest = max((h for h in below if h is not None), default=0)
    if isinstance(node, Line):
        if any(step.hi is None for step in node.steps):
            return None
        return sum(step.hi or 0 for step in node.steps) - 1 + deepest
    return deepest


# --------------------------------------------------------------------------------------
# The query: compiled lists, and the driver they run on
# --------------------------------------------------------------------------------------


def lower_query(c: Compiler, analysis: QueryAnalysis) -> QueryPlan:
    """The plan of an analysed query: its lists compiled by ``c`` and the driver that
    runs them.  The analysis names the driver the nodes' reach allows; where that is
    the game tree, the lowering runs a query whose lists are ORs of lines of local steps
    on tries of lines (``Driver.LINES``), any other on copies of the main line's boards
    (``Driver.SNAPSHOT``: behind gates, when every list has one and no piece is
    followed).  A compiler without lowerings plans the reference evaluation: every game
    on the game tree."""
    query = analysis.query
    tags = frozenset(tag.name for tag in query.tags)
    lists = tuple(
        CompiledList(
            found,
            functools.partial(c.compile, found.source.body),
            tuple(c.truth(conjunct) for conjunct in found.tag_conjuncts),
            functools.partial(list_sieve, c, found.source.body, tags) if tags else None,
        )
        for found in analysis.lists
    )
    if not c.lowers:
        reference = attrs.evolve(analysis, driver=Driver.TREE, tag_needles=())
        return QueryPlan(reference, lists, Driver.TREE, c)
    if analysis.driver is not Driver.TREE:
        return QueryPlan(analysis, lists, analysis.driver, c)
    tries = None if query.tags else _line_tries(c, query)
    if tries is not None:
        return QueryPlan(analysis, lists, Driver.LINES, c, tries=tries)
    # Following pieces needs every board: no gates then.
    gates = None if analysis.identities else _gates(c, query)
    return QueryPlan(analysis, lists, Driver.SNAPSHOT, c, gates=gates)


def list_sieve(c: Compiler, body: Filter, tags: frozenset[str]) -> ListSieve | None:
    """How the game tree tries a list's ``body`` for every binding of the ``tags`` at
    once: read for every square of the one tag it reads (:func:`variable_holders`), else
    only where a necessity that reads no variable holds (:func:`relaxed_necessity`);
    None when it reads no tag or neither is found (binding by binding, everywhere)."""
    if not c.lowers or not _reads_bindings(body):
        return None
    name = only_variable(body)
    if name in tags:
        holders = variable_holders(c, body, name)
        if holders is not None:
            return ListSieve(name, holders, None)
    necessity = relaxed_necessity(body, _tag_bounds(c))
    if necessity is None or _is_true(necessity):
        return None
    return ListSieve(None, None, c.truth(necessity))


class LocalSteps:
    """Whether a node reads only the current position, its next move and the tags,
    asked once per node: the recognition of lines asks about the same nodes many times
    (an orbit's members share their steps), and a node's reach is a walk of its subtree.
    The answers are filed under the node's identity with the node held beside them, so
    an identity is never that of a node collected since and made again."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Filter, bool]] = {}

    def __call__(self, node: Filter) -> bool:
        found = self._known.get(id(node))
        if found is not None and found[0] is node:
            return found[1]
        local = node.reads() <= Reads.NEXT_MOVE
        self._known[id(node)] = (node, local)
        return local


def _line_tries(c: Compiler, query: Query) -> tuple[LineAutomaton, ...] | None:
    """Per list, its body as a trie of lines of local steps followed while the game is
    read; None when some body is no OR of such lines."""
    local = LocalSteps()
    automata = []
    for top in query.lists:
        automaton = line_trie(c, top.body, local)
        if automaton is None:
            return None
        automata.append(automaton)
    return tuple(automata)


def _local(node: Filter) -> bool:
    return node.reads() <= Reads.NEXT_MOVE


def _gates(c: Compiler, query: Query) -> Gates | None:
    """Per list, a test on the position being read that its body needs, and how far
    ahead the bodies look; None when some list has no such bound."""
    tests = []
    farthest = 0
    for top in query.lists:
        ahead = horizon(top.body)
        found = None if ahead is None else gate(top.body, _local)
        if found is None or ahead is None:
            return None
        tests.append(c.truth(found))
        farthest = max(farthest, ahead)
    return Gates(tuple(tests), farthest)


def _relation(c: Compiler, node: Relation) -> Compiled:
    """Every legacy relation: the reference rule's comparison on placements read once per
    position (see :class:`~cqllegacy.evaluator.relation.RelationOperator`)."""
    # The identity first: the original counts compare P2 as it stands.
    turned = [d for d in Dihedral if node.flip and d is not Dihedral.IDENTITY]
    dihedrals = (Dihedral.IDENTITY, *turned)
    side = node.side_to_move
    params = RelationParameters(
        allowable=node.allowable,
        missing=node.missing,
        new=node.new,
        original_different=node.original_different,
        original_same=node.original_same,
        same_side=None if side is RelationSideToMove.IGNORE else side is RelationSideToMove.SAME,
        main_chain=node.scope is not RelationScope.VARIATIONS,
        off_chain=node.scope is not RelationScope.MAINLINE,
        dihedrals=tuple(d.map_set for d in dihedrals),
        shift=node.shift,
    )
    return Compiled(Kind.LOGICAL, relation(params))


def _find(c: Compiler, node: Find) -> Compiled | None:
    """``find X`` where X follows pieces: the positions where a binding-free necessity of
    X holds are found once for every binding, and X is tried there only; ``find all X``
    counted there only."""
    if not free_variables(node.arg):
        return None
    # The coarser necessity that names no variable's squares is shared by more finds (an
    # orbit of finds lists a few dozen necessities per game instead of thousands).
    necessity = binding_free_necessity(node.arg)
    if necessity is None or necessity == _BARE_MOVE:
        necessity = relaxed_necessity(node.arg, _tag_bounds(c))
    if necessity is None:
        return None
    # Finds with one necessity (the orbit of a list of finds has many) list it once.
    shared = c.extras.setdefault(("find necessity", necessity), object())
    reached = move_destination(necessity)
    c.compile(node.arg)  # refused, when it is, as its reference rule refuses it
    name = only_variable(node.arg)
    moving = None if name is None or node.all else _piece_move(c, node.arg, name)
    if moving is not None:
        # The bound piece's own moves: a few per game, listed once for every piece.
        return as_logical(moving)
    holders = None if name is None else variable_holders(c, node.arg, name)
    if name is not None and holders is not None:
        # X reads one piece at its own position: where it holds is found once per piece.
        truth_of_necessity = c.truth(necessity)
        if node.all:
            return as_number(op.count_bound(name, holders, truth_of_necessity, shared, reached))
        return as_logical(op.find_bound(name, holders, truth_of_necessity, shared, reached))
    if node.all:
        return as_number(op.count_among(c.truth(necessity), c.truth(node.arg), shared, reached))
    found = op.find_among(c.truth(necessity), c.truth(node.arg), shared, reached)
    return Compiled(Kind.LOGICAL, found)


_BARE_MOVE = Move()


def _piece_move(c: Compiler, node: Filter, name: str) -> TruthFn | None:
    """``find {move from X …}`` as :func:`operators.find_moving` finds it, when X is the
    variable's square or nothing and the rest of the move reads no variable (None
    otherwise)."""
    parts = meaningful(node.conjuncts())
    if len(parts) != 1 or not isinstance(move := parts[0], Move) or move.previous:
        return None
    split = _moving_variable(c, move, name)
    if split is None:
        return None
    unit, rest = split
    assert move.from_ is not None  # (_moving_variable asks for it)
    fixed = _fixed_squares(move.from_, name)
    return op.find_moving(name, fixed or unit, rest.matches, _squares_of(move.to))


def _fixed_squares(node: Filter, name: str) -> int | None:
    """The squares where ``x & S…`` (S: designators of any content) is the square of the
    piece variable ``x`` itself: the same at every position.  None for another form."""
    if isinstance(node, PieceVariable) and node.name == name:
        return FULL
    if not isinstance(node, Intersection):
        return None
    squares = FULL
    for item in meaningful(node.items):
        if isinstance(item, PieceSet) and item.types == ANYTHING:
            squares &= item.squares
        elif not (isinstance(item, PieceVariable) and item.name == name):
            return None
    return squares

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


def _tag_bounds(c: Compiler) -> Mapping[str, PieceSet]:
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
    if not _reads_bindings(node):
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
    if not _reads_bindings(node):
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


# --------------------------------------------------------------------------------------
# Every binding at once: filters read for every square of a piece variable
# --------------------------------------------------------------------------------------

#: A disjunction with more members than this is not read for every binding at once (an
#: orbit of hundreds that places the variable is filed by its square instead).
MAX_HOLDERS_MEMBERS = 64


def only_variable(node: Filter) -> str | None:
    """The piece variable ``node`` reads, when it reads exactly one and no variable of
    another kind (None otherwise).

    >>> from cqllegacy.evaluator.testing import pd
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
    if not _reads_bindings(node):
        return op.holders_of_truth(c.truth(node))
    if isinstance(node, LegacyOnly):
        return _holders(c, node.filter, name)
    if isinstance(node, Compound | And):
        items = meaningful(node.items)
        inner = _all_found(
            [_holders(c, item, name) for item in items if _reads_bindings(item)], op.holders_all
        )
        free = [item for item in items if not _reads_bindings(item)]
        if inner is None or not free:
            return inner
        # The items that read no variable first, once for every square: a failing
        # ``btm`` spares the rest.
        board, guard = _conjunction(c, free)
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
    if isinstance(node, Attacks) and not _reads_bindings(node.left):
        unit = _unit_holders(c, node.right, name)
        return None if unit is None else op.holders_attacked(unit, c.set_fn(node.left))
    if isinstance(node, AttackedBy) and not _reads_bindings(node.left):
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
            if not _reads_bindings(item):
                values.append(c.set_fn(item))
            elif (unit := _unit_holders(c, item, name)) is not None:
                units.append(unit)
            else:
                return None
        return op.holders_within(units, values) if units else None
    if isinstance(node, Attacks | AttackedBy) and not _reads_bindings(node.right):
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
    bound = _tag_bounds(c).get(node.name)
    if bound is None or bound.types & ANY_PIECE == ANY_PIECE:
        return None
    return c.set_fn(bound)


def _move_holders(c: Compiler, node: Move, name: str) -> op.Holders | None:
    """``move from X …`` with X the variable's square or nothing, the rest reading no
    variable: the squares of X that a continuation leaves by a move the rest accepts."""
    split = _moving_variable(c, node, name)
    if split is None:
        return None
    unit, rest = split
    return op.holders_moving(unit, rest.matches)


def _moving_variable(c: Compiler, node: Move, name: str) -> tuple[op.Holders, MoveTest] | None:
    """``move from X …`` split into the unit holders of X (the variable's square or
    nothing) and the test of the rest of the move, which reads no variable (None when
    the move is not of that shape)."""
    if node.from_ is None or any(
        _reads_bindings(part) for part in (node.to, node.capture) if part is not None
    ):
        return None
    unit = _unit_holders(c, node.from_, name)
    if unit is None:
        return None
    return unit, MoveTest.of(c, attrs.evolve(node, from_=None))


# --------------------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------------------

#: The lowering of each node class that has one; every other core node class is declared
#: absent (it runs by its reference rule), so that a lookup of a class nobody thought
#: about fails loudly.
LOWERING: Dispatcher[Lowering] = Dispatcher("lowerings")
for _cls, _lowering in (
    (PieceSet, _piece_set),
    (Count, _count),
    (InRange, _in_range),
    (Not, _not),
    (Attacks, _attacks),
    (AttackedBy, _attacked_by),
    (Arith, _arith),
    (Compound, _compound),
    (And, _and),
    (Or, _or),
    (Union, _union),
    (Transform, _transform),
    (Move, _move),
    (Line, _line),
    (Relation, _relation),
    (Find, _find),
    (Simple, _simple),
):
    # Filed by exact class, each lowering is handed nodes of its own class only.
    LOWERING.register(_cls)(_lowering)

#: The node classes always compiled by their reference rule: every core class without a
#: lowering (no pattern of theirs runs faster, or none is written yet), derived.
REFERENCE_RULE: frozenset[type[Filter]] = frozenset(
    cls for cls in ct.node_classes() if cls not in LOWERING
)
LOWERING.absent(*REFERENCE_RULE, reason="it runs by its reference rule")
