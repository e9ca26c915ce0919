"""Keyed disjunctions: a member is filed under a *key* (an atom naming a rare piece kind
and its squares), and a position looks only at the members whose key square holds that
piece (:func:`any_member`).  Members that are one atom each are merged into one mask test.

Members that each require a piece variable on some squares are filed under those squares
(:func:`variable_keyed`); members that each require the next move to land on some
squares, under those (:func:`destination_keyed`).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import chess

from cqllegacy.evaluator.compiler import BoardCheck, Context, TruthFn
from cqllegacy.evaluator.gametree import NO_PIECE
from cqllegacy.evaluator.masks import Mask, kind_bit, kinds, mask_expression, mask_function
from cqllegacy.evaluator.operators.atoms import (
    Atom,
    all_atoms,
    all_of,
    any_conjunction,
    board_function,
)
from cqllegacy.evaluator.operators.base import (
    LANDINGS_ON_RANK,
    Board,
    holds_always,
    holds_never,
    on_board,
    reachable_ends,
)
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = [
    "ANY_MOVE",
    "KEY_COST_LIMIT",
    "Member",
    "any_member",
    "destination_keyed",
    "variable_keyed",
]


#: A member is filed under its key only when a position lights up its key this rarely.
KEY_COST_LIMIT = 0.25

#: "Whatever the next move": a bit beyond the board, set in every ``moved`` value
#: (:func:`_moved_from`), so a member with this ``moved_from`` always passes, even at
#: the end of a line.
ANY_MOVE = FULL | 1 << 64


class Member(NamedTuple):
    """A member of a disjunction as the lowering found it: atoms that hold wherever it
    matches (the whole member when ``board`` and ``test`` are None), the rest decided by
    the board alone (``board``) or by the context (``test``), and the squares its next
    move must start from (``moved_from``; :data:`ANY_MOVE`: no demand)."""

    atoms: tuple[Atom, ...]
    board: BoardCheck | None = None
    test: TruthFn | None = None
    moved_from: int = ANY_MOVE


def _best_key(atoms: Sequence[Atom]) -> Atom | None:
    """The atom that lights up the fewest squares of a usual position, when it is rare
    enough to file members under."""
    costs = [(cost, i) for i, atom in enumerate(atoms) if (cost := atom.key_cost()) is not None]
    if not costs or min(costs)[0] > KEY_COST_LIMIT:
        return None
    return atoms[min(costs)[1]]


def _board_group(members: Sequence[Member]) -> BoardCheck:
    """Some member holds, every member decided on the board."""
    pure = [m.atoms for m in members if m.board is None]
    # A member's board check decides it: its atoms, necessary, served to file it.
    checked = [m.board for m in members if m.board is not None]
    any_pure = any_conjunction(pure) if pure else None
    if not checked:
        return any_pure or holds_never
    if any_pure is not None:
        checked.insert(0, any_pure)
    if len(checked) == 1:
        return checked[0]
    entries = tuple(checked)

    def group(board: Board) -> bool:
        for check in entries:  # noqa: SIM110 (a loop: this runs at every position)
            if check(board):
                return True
        return False

    return group


class _Entry(NamedTuple):
    """A member as the context index stores it."""

    moved_from: int
    check: BoardCheck | None
    test: TruthFn


def _context_group(members: Sequence[Member]) -> tuple[BoardCheck | None, tuple[_Entry, ...]]:
    """The members decided on the board (one check), and the others as entries."""
    on_board = [m for m in members if m.test is None and m.moved_from == ANY_MOVE]
    entries = []
    for m in members:
        if m.test is None and m.moved_from == ANY_MOVE:
            continue
        checks = [c for c in (all_atoms(m.atoms), m.board) if c is not None]
        test = m.test if m.test is not None else (lambda ctx, p: True)
        entries.append(_Entry(m.moved_from, all_of(checks) if checks else None, test))
    return (_board_group(on_board) if on_board else None), tuple(entries)


def _filed(
    members: Sequence[Member],
) -> tuple[list[Member], dict[tuple[str, chess.Color], dict[int, list[Member]]]]:
    """Members filed under their key atoms: those to look at always, and per piece kind
    those to look at when a piece of that kind stands on the key square (the key atom
    left out where it says no more than that presence)."""
    always: list[Member] = []
    keyed: dict[tuple[str, chess.Color], dict[int, list[Member]]] = {}
    for member in dict.fromkeys(members):
        key = _best_key(member.atoms)
        if key is None:
            always.append(member)
            continue
        rest = list(member.atoms)
        if key.presence:
            rest.remove(key)
        stored = member._replace(atoms=tuple(rest))
        for kind in kinds(key.types):
            by_square = keyed.setdefault(kind, {})
            for sq in iter_squares(key.squares):
                by_square.setdefault(sq, []).append(stored)
    return always, keyed


def any_member(members: Sequence[Member]) -> tuple[BoardCheck | None, TruthFn]:
    """Some of ``members`` holds: a function of the board when the board decides every
    member (else None), and a function of the context.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> fork = [Member((Atom(types_of("N"), 1 << d), Atom(types_of("k"), 1 << k)))
    ...         for d, k in ((chess.D4, chess.F3), (chess.A3, chess.C2))]
    >>> board_check, _ = any_member(fork)
    >>> board_check(chess.Board("8/8/8/8/8/N7/2k5/4K3 w - - 0 1")), board_check(chess.Board())
    (True, False)
    """
    if any(m == Member(()) for m in members):
        # A member that always matches (``true``): no board needed, not even for tags.
        return holds_always, lambda ctx, p: True
    always, keyed = _filed(members)
    if all(m.test is None and m.moved_from == ANY_MOVE for m in members):
        check = _board_index(always, keyed)
        return check, on_board(check)
    return None, _context_index(always, keyed)


def _board_index(
    always: list[Member], keyed: dict[tuple[str, chess.Color], dict[int, list[Member]]]
) -> BoardCheck:
    if not keyed:
        return _board_group(always)
    tables: dict[str, Any] = {}
    body: list[str] = []
    if always:
        tables["ALWAYS"] = _board_group(always)
        body.append("if ALWAYS(board): return True")
    for i, ((name, color), by_square) in enumerate(keyed.items()):
        table: list[BoardCheck] = [holds_never] * 64
        for sq, group in by_square.items():
            table[sq] = _board_group(group)
        tables[f"T{i}"] = tuple(table)
        squares = functools.reduce(operator.or_, (1 << sq for sq in by_square), 0)
        body += [
            f"m = {mask_expression(kind_bit(name, color))} & {squares}",
            "while m:",
            "    low = m & -m",
            f"    if T{i}[low.bit_length() - 1](board): return True",
            "    m ^= low",
        ]
    return board_function(body, otherwise=False, tables=tables)


class _KeyedTable(NamedTuple):
    """The members filed under one piece kind: ``table[sq]`` for a piece on ``sq``."""

    pieces: Mask
    squares: int
    table: tuple[tuple[BoardCheck | None, tuple[_Entry, ...]], ...]


def _moved_from(ctx: Context, p: int) -> int:
    """The squares the moves continuing from ``p`` start from, and the ``ANY_MOVE``
    bit (all squares after a null move, which a move filter judges by itself)."""
    out = 1 << 64
    for q in ctx.next[p]:
        move = ctx.moves[q]
        if not move:
            return ANY_MOVE
        out |= 1 << move.from_square
    return out


def _first_holding(
    group: tuple[BoardCheck | None, tuple[_Entry, ...]],
    ctx: Context,
    p: int,
    board: Board | None,
    moved: int,
) -> bool:
    """Some member of ``group`` holds (``board`` is None only for a group that never
    reads it: members on the tags alone)."""
    check, entries = group
    if check is not None and board is not None and check(board):
        return True
    for moved_from, atoms, test in entries:
        if moved_from & moved and (atoms is None or board is None or atoms(board)) and test(ctx, p):
            return True
    return False


def _context_index(
    always: list[Member], keyed: dict[tuple[str, chess.Color], dict[int, list[Member]]]
) -> TruthFn:
    always_group = _context_group(always)
    tables = []
    for (name, color), by_square in keyed.items():
        empty: tuple[BoardCheck | None, tuple[_Entry, ...]] = (None, ())
        table = [empty] * 64
        for sq, group in by_square.items():
            table[sq] = _context_group(group)
        squares = sum(1 << sq for sq in by_square)
        tables.append(_KeyedTable(mask_function(kind_bit(name, color)), squares, tuple(table)))
    keyed_tables = tuple(tables)
    has_always = always_group[0] is not None or bool(always_group[1])
    members = [*always, *(m for by_sq in keyed.values() for g in by_sq.values() for m in g)]
    # A disjunction of tests on the tags alone is evaluated without a board (before a
    # game is read, and by a query that the tags decide).
    needs_board = bool(keyed) or any(m.atoms or m.board is not None for m in members)
    needs_moves = any(m.moved_from != ANY_MOVE for m in members)

    def any_holds(ctx: Context, p: int) -> bool:
        moved = _moved_from(ctx, p) if needs_moves else ANY_MOVE
        board = ctx.boards[p] if needs_board else None
        if has_always and _first_holding(always_group, ctx, p, board, moved):
            return True
        if board is None:  # no keyed members
            return False
        for pieces, squares, table in keyed_tables:
            bb = pieces(board) & squares
            while bb:
                low = bb & -bb
                if _first_holding(table[low.bit_length() - 1], ctx, p, board, moved):
                    return True
                bb ^= low
        return False

    return any_holds


def variable_keyed(
    name: str,
    unkeyed: TruthFn | None,
    by_square: Mapping[int, TruthFn],
    alive: Mapping[int, TruthFn] | None = None,
) -> TruthFn:
    """Some member of a disjunction holds, its members filed by the square of the piece
    variable ``name`` that each requires: ``by_square[s]`` tells whether some member
    filed under ``s`` holds, ``unkeyed`` whether some member filed nowhere does.  A
    position looks only at the members filed under the square where the bound piece
    stands (none when it has left the board).

    ``alive[s]``, when given, is a test that holds wherever some member filed under
    ``s`` holds and that, once false at a position, is false at every position reachable
    from it (a ``find`` conjunct of each member: what it finds from a later position it
    finds from this one).  Where the members under ``s`` fail and ``alive[s]`` fails too,
    they are not tried again for the bound piece on ``s`` at the positions reachable from
    there (per binding and scope): a piece standing on one square for many moves, or
    coming back to it, asks once."""
    table = tuple(by_square.get(sq) for sq in range(64))
    if alive is None:

        def any_holds(ctx: Context, p: int) -> bool:
            if unkeyed is not None and unkeyed(ctx, p):
                return True
            sq = ctx.where[p][ctx.bindings[name]]
            if sq == NO_PIECE:
                return False
            some = table[sq]
            return some is not None and bool(some(ctx, p))

        return any_holds
    return _fading_keyed(name, unkeyed, table, tuple(alive.get(sq) for sq in range(64)))


def _fading_keyed(
    name: str,
    unkeyed: TruthFn | None,
    table: tuple[TruthFn | None, ...],
    alive: tuple[TruthFn | None, ...],
) -> TruthFn:
    """:func:`variable_keyed` remembering, per binding, scope and square, the positions
    (one position and those reachable from it) where the members filed under the square
    are dead: ``starts[s] <= p < ends[s]``."""
    token = object()
    # The dead intervals of the binding and scope asked last (``ctx.key`` is a new tuple
    # whenever they change; holding it keeps its identity from being reused).
    last: list[Any] = [None, None]

    def any_holds(ctx: Context, p: int) -> bool:
        if unkeyed is not None and unkeyed(ctx, p):
            return True
        sq = ctx.tracks[name][p]
        if sq == NO_PIECE:
            return False
        some = table[sq]
        if some is None:
            return False
        if last[0] is not ctx.key:
            dead = ctx.memo.get((token, ctx.key))
            if dead is None:
                dead = ctx.memo[(token, ctx.key)] = ([_NEVER] * 64, [0] * 64)
            last[0], last[1] = ctx.key, dead
        starts, ends = last[1]
        if starts[sq] <= p < ends[sq]:
            return False
        if some(ctx, p):
            return True
        still = alive[sq]
        if still is not None and not still(ctx, p):
            starts[sq], ends[sq] = p, reachable_ends(ctx)[p]
        return False

    return any_holds


#: A position number no game reaches.
_NEVER = 1 << 62


def destination_keyed(unkeyed: TruthFn | None, by_square: Mapping[int, TruthFn]) -> TruthFn:
    """Some member of a disjunction holds, its members filed by the squares their next
    move must reach: ``by_square[s]`` tells whether some member filed under ``s`` holds,
    ``unkeyed`` whether some member filed nowhere does.  A position looks only at the
    members filed under where its continuations land: the move's target square and,
    for a king's move, the castling landings on its rank (a castling move lands the king
    there, whatever square its encoding names).  A null move reaches nothing."""
    table = tuple(by_square.get(sq) for sq in range(64))

    def any_holds(ctx: Context, p: int) -> bool:
        if unkeyed is not None and unkeyed(ctx, p):
            return True
        looked = 0
        for q in ctx.next[p]:
            move = ctx.moves[q]
            if not move:
                continue
            reached = 1 << move.to_square
            if ctx.boards[p].kings >> move.from_square & 1:
                reached |= LANDINGS_ON_RANK[move.from_square >> 3]
            reached &= ~looked
            looked |= reached
            while reached:
                low = reached & -reached
                some = table[low.bit_length() - 1]
                if some is not None and some(ctx, p):
                    return True
                reached ^= low
        return False

    return any_holds
