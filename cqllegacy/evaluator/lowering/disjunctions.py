"""Disjunctions and orbits: ``or``, ``|`` and ``Transform`` members filed in a keyed
index (under a rare piece's square, the square a piece variable must stand on, or the
squares the next move must reach), tried behind their shared board tests, and those
that follow pieces only where a necessity naming no variable holds."""

from __future__ import annotations

from collections.abc import Sequence

from cqllegacy.core.tree import Compound, Filter, Find, Keyword, Or, Simple, Transform, Union
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.compiler import (
    BoardCheck,
    Compiled,
    Compiler,
    Context,
    Kind,
    SetFn,
    TruthFn,
    as_number,
    truth,
)
from cqllegacy.evaluator.lowering.atoms import compiled_conjunction, exact_atoms, necessary_atoms
from cqllegacy.evaluator.lowering.counts import board_count
from cqllegacy.evaluator.lowering.holders import variable_holders
from cqllegacy.evaluator.lowering.necessity import compiled_tag_bounds, relaxed_necessity
from cqllegacy.evaluator.lowering.shapes import (
    disjunction_members,
    fading_conjuncts,
    is_true,
    move_demand,
    move_destination,
    only_variable,
    reads_bindings,
    set_members,
    variable_key,
)
from cqllegacy.evaluator.trees import meaningful
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = ["MIN_DESTINATION_KEYED", "lower_or", "lower_transform", "lower_union"]


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
    if board is not None or not reads_bindings(node):
        return board, test
    name = only_variable(node)
    if name is not None:
        holders = variable_holders(c, node, name)
        if holders is not None:
            return None, op.holders_test(name, holders)
    necessity = relaxed_necessity(node, compiled_tag_bounds(c))
    if necessity is None or is_true(necessity):
        return board, test
    return None, op.gated(c.truth(necessity), test)


def _any_member(c: Compiler, node: Filter) -> tuple[BoardCheck | None, TruthFn]:
    members = list(dict.fromkeys(disjunction_members(node)))
    # Disjunctions of the same members say the same, whatever their order: the index is
    # built once for them.  The inner orbit of each member of an outer one is such (the
    # CQL 6.1 text of a shifted relation, ``flip shift {… echo … flip shift {Ke6 be7}}``:
    # 240 inner orbits of the same 240 members took 7 s to compile, one each).
    key = ("any member", frozenset(members))
    known: tuple[BoardCheck | None, TruthFn] | None = c.extras.get(key)
    if known is None:
        known = c.extras[key] = _indexed_any(c, members)
    return known


def _indexed_any(c: Compiler, members: list[Filter]) -> tuple[BoardCheck | None, TruthFn]:
    shared = _shared_board_conjuncts(c, members)
    if not shared or all(c.compile(member).board is not None for member in members):
        # Members the board decides are filed by key atoms on one board check already.
        return _keyed_any(c, members)
    # Some member holds: the conjuncts all share, decided on the board, then some rest.
    guard, _ = compiled_conjunction(c, shared)
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
    members = dict.fromkeys(set_members(node))
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


def lower_or(c: Compiler, node: Or) -> Compiled:
    board, test = _any(c, node)
    return Compiled(Kind.LOGICAL, test, board=board)


def lower_union(c: Compiler, node: Union) -> Compiled:
    # The value is compiled now: an item that is not a set is refused before any game.
    board, test = _any(c, node)
    return Compiled(Kind.SET, _union_value(c, node), test, board)


def lower_transform(c: Compiler, node: Transform) -> Compiled | None:
    if node.count:
        count = board_count(node)
        return None if count is None else as_number(op.on_board(count))
    kind = c.compile(node.arg).kind
    board, test = _any(c, node)
    if kind is Kind.NUMBER:
        return Compiled(kind, c.reference(node).fn, test, board)
    if kind is Kind.LOGICAL:
        return Compiled(kind, test, board=board)
    return Compiled(Kind.SET, _lazy_orbit_value(c, node), test, board)
