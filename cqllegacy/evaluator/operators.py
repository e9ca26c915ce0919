"""Physical operators: how the patterns :mod:`~cqllegacy.evaluator.lowering` recognises are
computed, one implementation each, shared by every driver.

An operator is built from what the lowering found (atoms, piece designators, compiled
children), never from the tree, and gives a function of the board (:data:`BoardCheck`,
:data:`BoardCount`; the live stream calls it on python-chess's own board, the game tree on
``ctx.boards[p]``) or of the context (``fn(ctx, p)``) when the board alone does not decide.

* **Atoms** (:class:`Atom`): "between ``lo`` and ``hi`` squares of S hold something of type
  set T".  :func:`all_atoms` checks a conjunction of atoms in one generated function, the
  atoms most likely to fail first.
* **Keyed disjunctions** (:func:`any_member`): members filed under a *key* (an atom naming
  a rare piece kind and its squares); a position looks only at the members whose key
  square holds that piece.  Members that are one atom each are merged into one mask test.
  Members that each require a piece variable on some squares are filed under those
  squares (:func:`variable_keyed`): a position looks only at the members filed under the
  square where the bound piece stands; members that each require the next move to land
  on some squares, under those (:func:`destination_keyed`).  Members that follow pieces
  are tried only where a test that reads no binding holds (:func:`gated`).
* **Generated board checks** are compiled once per shape of their text, their integers
  passed in (:func:`_made`): an orbit's members differ in their squares only.
* **Attack counts** (:func:`attack_count`, :func:`attack_count_in_range`) and **sums of
  them** over single target squares (:func:`attack_sum`); ``L attacks R`` and
  ``L attackedby R`` counted from the smaller side (:func:`attacks`, :func:`attacked_by`).
* **Moves** whose squares are checked before anything else (:func:`next_move`), **lines of
  single steps** walked step by step (:func:`single_step_line`); the trie of many such
  lines followed along a read game is :mod:`~cqllegacy.evaluator.line_automaton`.
* **Legacy relations**: :class:`~cqllegacy.evaluator.relation.RelationOperator`, in a
  module of its own.

Attack counts read attacks as python-chess's ``Board.attacks_mask`` gives them (pins
ignored, own pieces attacked: decision L6).  Two exact shortcuts make them cheap:

* **Leapers.** When L holds knights, kings and pawns only, the attackers of a square are
  read from python-chess's attack tables (a knight on s attacks t exactly when one on t
  attacks s; a white pawn on s attacks t when a black pawn on t attacks s).
* **The king of the side that just moved.** python-chess reads only legal moves, so after
  a move no enemy piece attacks the king of the side that made it.  Counting enemy
  attacks on that king (when it is its side's only king, the one python-chess's
  legality protects) gives 0 without looking at the board.  A start position, and one
  reached by a null move, are counted in full: neither promises anything.

>>> from cqllegacy.evaluator.testing import pd
>>> board = chess.Board("4k3/8/8/8/4N3/8/8/4RK2 w - - 0 1")
>>> double_check = attack_count_in_range(pd("A"), pd("k"), 2, None)
>>> double_check(board), board.push_san("Nd6"), double_check(board)
(False, Move.from_uci('e4d6'), True)
>>> attack_count(pd("a"), pd("K"))(board)  # white just moved: its king is safe
0
>>> illegal = chess.Board("4k3/8/8/8/8/8/4r3/4K3 b - - 0 1")  # no move promises anything
>>> attack_count(pd("r"), pd("K"))(illegal)
1
"""

from __future__ import annotations

import bisect
import collections
import functools
import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar, cast

import attrs
import chess

from cqllegacy.core.tree import PieceSet
from cqllegacy.evaluator.analysis import closed_range
from cqllegacy.evaluator.compiler import BoardCheck, Context, Fn, NumberFn, SetFn, TruthFn
from cqllegacy.evaluator.gametree import NO_PIECE
from cqllegacy.evaluator.line_rules import after_step, step_holds
from cqllegacy.evaluator.masks import Mask, kind_bit, kinds, mask_expression, mask_function
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    BLACK_PIECES,
    EMPTY_BIT,
    WHITE_PIECES,
    TypeSet,
    types_of,
)
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = [
    "ANY_MOVE",
    "EVERYWHERE",
    "KEY_COST_LIMIT",
    "OFF_BOARD",
    "Atom",
    "BoardCount",
    "Holders",
    "Member",
    "all_atoms",
    "all_of",
    "any_member",
    "attack_count",
    "attack_count_in_range",
    "attack_sum",
    "attacked_by",
    "attackers_of",
    "attacking",
    "attacks",
    "count_bound",
    "count_conjunctions",
    "find_among",
    "find_bound",
    "holders_all",
    "holders_any",
    "holders_attacked",
    "holders_attacking",
    "holders_count",
    "holders_guarded",
    "holders_moving",
    "holders_not",
    "holders_of_truth",
    "holders_test",
    "holders_within",
    "next_move",
    "on_board",
    "remembered",
    "remembered_holders",
    "single_step_line",
    "variable_squares",
]

_V = TypeVar("_V")

Board = chess.Board
BoardCount = Callable[[Board], int]


def on_board(check: Callable[[Board], _V]) -> Callable[[Context, int], _V]:
    """A function of the board as a function of the context."""
    return lambda ctx, p: check(ctx.boards[p])


def _always(board: Board) -> bool:
    return True


def _never(board: Board) -> bool:
    return False


# --------------------------------------------------------------------------------------
# Atoms and generated board checks
# --------------------------------------------------------------------------------------

#: How many pieces of a kind a position usually holds (to pick the rarest key).
_USUAL_COUNT = {"pawns": 8, "knights": 2, "bishops": 2, "rooks": 2, "queens": 1, "kings": 1}


@attrs.frozen(slots=True)
class Atom:
    """``lo <= |{s in squares: the content of s is in types}| <= hi`` (hi None: no limit)."""

    types: TypeSet
    squares: int
    lo: int = 1
    hi: int | None = None

    @property
    def presence(self) -> bool:
        """It says no more than "some square of ``squares`` holds a piece of ``types``"."""
        return self.lo == 1 and self.hi is None

    def key_cost(self) -> float | None:
        """How many key squares a position usually lights up (None: cannot be a key)."""
        if self.lo < 1 or self.types & EMPTY_BIT or not self.types & ANY_PIECE:
            return None
        usual = sum(_USUAL_COUNT[name] for name, _ in kinds(self.types))
        return usual * self.squares.bit_count() / 64


def _density(types: TypeSet) -> float:
    """The usual share of the squares whose content is in ``types``."""
    pieces = sum(_USUAL_COUNT[name] for name, _ in kinds(types)) / 64
    return min(1.0, pieces + (0.5 if types & EMPTY_BIT else 0.0))


@attrs.frozen(slots=True)
class _Step:
    """The atoms of one type set, checked on one mask: every square of ``all_of``, some
    square of each of ``any_of``, and counts ``(squares, lo, hi)``."""

    types: TypeSet
    all_of: int
    any_of: tuple[int, ...]
    counts: tuple[tuple[int, int, int | None], ...]
    chance: float

    @classmethod
    def of(cls, types: TypeSet, atoms: Sequence[Atom]) -> _Step:
        all_of, any_of, counts = 0, [], []
        for atom in atoms:
            if atom.presence and atom.squares.bit_count() == 1:
                all_of |= atom.squares
            elif atom.presence:
                any_of.append(atom.squares)
            elif atom.lo > 0 or atom.hi is not None:
                counts.append((atom.squares, atom.lo, atom.hi))
        density = _density(types)
        chance = density ** all_of.bit_count()
        for squares in any_of:
            chance *= 1 - (1 - density) ** squares.bit_count()
        chance *= 0.5 ** len(counts)
        return cls(types, all_of, tuple(any_of), tuple(counts), chance)

    @property
    def empty(self) -> bool:
        return not (self.all_of or self.any_of or self.counts)

    def conditions(self, mask: str) -> list[str]:
        """Python conditions, on ``mask`` the text of this step's mask, that all hold
        when the step does."""
        parts = []
        if self.all_of:
            parts.append(f"{mask} & {self.all_of} == {self.all_of}")
        parts.extend(f"{mask} & {squares}" for squares in self.any_of)
        parts.extend(_atom_condition(mask, Atom(self.types, *count)) for count in self.counts)
        return parts


def _steps(atoms: Sequence[Atom]) -> list[_Step]:
    """The atoms grouped by type set, the group most likely to fail first."""
    groups: dict[TypeSet, list[Atom]] = {}
    for atom in atoms:
        groups.setdefault(atom.types, []).append(atom)
    steps = (_Step.of(types, group) for types, group in groups.items())
    return sorted((step for step in steps if not step.empty), key=lambda s: s.chance)


def _atom_condition(mask: str, atom: Atom) -> str:
    """A Python condition that holds when ``atom`` does, ``mask`` being its mask."""
    if atom.presence:
        return f"{mask} & {atom.squares}"
    if atom.lo <= 0 and atom.hi == 0:
        # "none of S": no count needed.
        return f"not ({mask} & {atom.squares})"
    count = f"({mask} & {atom.squares}).bit_count()"
    return f"{count} >= {atom.lo}" if atom.hi is None else f"{atom.lo} <= {count} <= {atom.hi}"


def _function(
    body: Sequence[str], *, otherwise: bool | str, tables: dict[str, Any] | None = None
) -> BoardCheck:
    """``def check(board)`` with ``body`` (text built here from type sets and integers
    only), returning ``otherwise`` at its end (a constant, or a name the body sets);
    ``tables`` are the names the body refers to.  One call instead of a call per atom."""
    source = "def check(board):\n" + "".join(f"    {line}\n" for line in body)
    source += f"    return {otherwise}\n"
    return _made(source, tables or {})


#: Makers of board checks by the shape of their text (integers left out): the members of
#: an orbit differ in their squares only, and compiling each alone cost a noticeable
#: part of a second for an orbit of hundreds.
_MAKERS: dict[tuple[str, tuple[str, ...]], Callable[..., BoardCheck]] = {}

#: An integer literal of the generated text (never part of a name or of a float).
_LITERAL = re.compile(r"(?<![\w.])\d+(?![\w.])")


def _made(source: str, tables: Mapping[str, Any]) -> BoardCheck:
    """The function ``check`` that ``source`` defines, its integer literals and the names
    of ``tables`` given to a maker compiled once per shape."""
    constants: list[int] = []

    def named(literal: re.Match[str]) -> str:
        constants.append(int(literal.group()))
        return f"_k{len(constants) - 1}"

    shape = _LITERAL.sub(named, source)
    names = tuple(sorted(tables))
    maker = _MAKERS.get((shape, names))
    if maker is None:
        parameters = ", ".join([*(f"_k{i}" for i in range(len(constants))), *names])
        text = f"def make({parameters}):\n"
        text += "".join(f"    {line}\n" for line in shape.splitlines())
        text += "    return check\n"
        scope: dict[str, Any] = {}
        exec(compile(text, "<cqllegacy board check>", "exec"), scope)
        maker = _MAKERS[(shape, names)] = scope["make"]
    check: BoardCheck = maker(*constants, *(tables[name] for name in names))
    return check


def all_atoms(atoms: Sequence[Atom]) -> BoardCheck | None:
    """One function checking all ``atoms`` on a board (None when there are none), the
    atoms most likely to fail first.

    >>> check = all_atoms([Atom(types_of("K"), chess.BB_E1), Atom(types_of("P"), chess.BB_E2)])
    >>> check(chess.Board()), check(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))
    (True, False)
    """
    body = []
    for step in _steps(atoms):
        body.append(f"m = {mask_expression(step.types)}")
        body.extend(f"if not ({part}): return False" for part in step.conditions("m"))
    return _function(body, otherwise=True) if body else None


def _any_conjunction(conjunctions: Sequence[Sequence[Atom]]) -> BoardCheck:
    """Some of the conjunctions of atoms holds; one-atom conjunctions of the same type
    set are checked together on one mask, the others with their shared atoms factored
    out (:func:`_factored_hits`)."""
    single: dict[TypeSet, list[Atom]] = {}
    multi: list[Sequence[Atom]] = []
    for atoms in conjunctions:
        if not atoms:
            return _always
        if len(atoms) == 1:
            single.setdefault(atoms[0].types, []).append(atoms[0])
        else:
            multi.append(atoms)
    head: list[str] = []
    for types, group in single.items():
        head.append(f"m = {mask_expression(types)}")
        present = functools.reduce(operator.or_, (a.squares for a in group if a.presence), 0)
        if present:
            head.append(f"if m & {present}: return True")
        head.extend(f"if {_atom_condition('m', a)}: return True" for a in group if not a.presence)
    return _function(head + _factored_hits(multi, "return True"), otherwise=False)


def count_conjunctions(conjunctions: Sequence[Sequence[Atom]]) -> BoardCount:
    """How many of the conjunctions of atoms hold, each counted as often as it is
    listed (the members of ``count shift {…}`` orbits and of sums of them), their shared
    atoms factored out (:func:`_factored_hits`).

    >>> pawn, king = Atom(types_of("P"), chess.BB_E2), Atom(types_of("K"), chess.BB_E1)
    >>> count_conjunctions([(pawn, king), (king,), (pawn, king), ()])(chess.Board())
    4
    """
    check = _function(["n = 0", *_factored_hits(conjunctions, "n += 1")], otherwise="n")
    return cast(BoardCount, check)


#: Factoring stops nesting here (Python's parser limits how deep blocks may nest).
_MAX_FACTOR_DEPTH = 12


def _factored_hits(conjunctions: Sequence[Sequence[Atom]], hit: str) -> list[str]:
    """Statements that run ``hit`` once for every conjunction of atoms that holds, an
    atom shared by several conjunctions tested once for them all: the members of an orbit
    share most of their atoms (the shifts of ``:piececount Pc? 3 6`` along a file are one
    atom), so a position tests each once instead of once per member."""
    if not conjunctions:
        return []
    masks: dict[TypeSet, str] = {}
    for atoms in conjunctions:
        for atom in atoms:
            masks.setdefault(atom.types, f"m{len(masks)}")
    lines = [f"{name} = {mask_expression(types)}" for types, name in masks.items()]
    unique = [tuple(dict.fromkeys(atoms)) for atoms in conjunctions]
    return lines + _factored(unique, hit, masks, {}, 0)


def _factored(
    conjunctions: Sequence[tuple[Atom, ...]],
    hit: str,
    masks: Mapping[TypeSet, str],
    chances: dict[Atom, float],
    depth: int,
) -> list[str]:
    """Greedy factoring: the atom most conjunctions share (the one likelier to fail
    among equals; ``chances`` remembers the guesses) is tested once, the conjunctions
    holding it continue under it without it, and the rest are factored the same way;
    conjunctions that share nothing are tested alone, their atoms likeliest to fail
    first."""
    lines: list[str] = []
    pending = list(conjunctions)
    while pending:
        shared = collections.Counter(atom for atoms in pending for atom in atoms)
        most = max(shared.values(), default=0)
        if most < 2 or depth >= _MAX_FACTOR_DEPTH:
            lines.extend(_conjunction_hit(atoms, hit, masks) for atoms in pending)
            break
        best = min(
            (atom for atom, n in shared.items() if n == most),
            key=lambda atom: _atom_chance(atom, chances),
        )
        inner = [tuple(a for a in atoms if a != best) for atoms in pending if best in atoms]
        pending = [atoms for atoms in pending if best not in atoms]
        lines.append(f"if {_atom_condition(masks[best.types], best)}:")
        lines.extend(f"    {line}" for line in _factored(inner, hit, masks, chances, depth + 1))
    return lines


def _atom_chance(atom: Atom, chances: dict[Atom, float]) -> float:
    """How likely ``atom`` is to hold on a usual board (a rough guess, for ordering)."""
    chance = chances.get(atom)
    if chance is None:
        chance = chances[atom] = _Step.of(atom.types, [atom]).chance
    return chance


def _conjunction_hit(atoms: Sequence[Atom], hit: str, masks: Mapping[TypeSet, str]) -> str:
    """``hit`` when all ``atoms`` hold, those likeliest to fail first."""
    parts = [part for step in _steps(atoms) for part in step.conditions(masks[step.types])]
    if not parts:
        return hit
    return "if " + " and ".join(f"({part})" for part in parts) + f": {hit}"


def all_of(checks: Sequence[BoardCheck]) -> BoardCheck:
    """All of ``checks`` hold, in their order."""
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    checks_tuple = tuple(checks)

    def conjunction(board: Board) -> bool:
        for check in checks_tuple:  # noqa: SIM110 (all() over a generator is slower here)
            if not check(board):
                return False
        return True

    return conjunction


# --------------------------------------------------------------------------------------
# Keyed disjunctions
# --------------------------------------------------------------------------------------

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
    any_pure = _any_conjunction(pure) if pure else None
    if not checked:
        return any_pure or _never
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
        return _always, lambda ctx, p: True
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
        table: list[BoardCheck] = [_never] * 64
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
    return _function(body, otherwise=False, tables=tables)


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
            starts[sq], ends[sq] = p, _reachable_ends(ctx)[p]
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
                reached |= _LANDINGS_ON_RANK[move.from_square >> 3]
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


#: The squares a castling king lands on, by the rank it starts from (c and g files).
_LANDINGS_ON_RANK = tuple((chess.BB_FILE_C | chess.BB_FILE_G) & chess.BB_RANKS[r] for r in range(8))


# --------------------------------------------------------------------------------------
# Attacks
# --------------------------------------------------------------------------------------

#: The attack tables a leaper of each kind is read from, by board attribute and colour:
#: a piece of that kind on ``s`` attacks ``t`` exactly when ``t``'s entry holds ``s``.
_LEAPER_TABLES: Mapping[tuple[str, chess.Color], list[int]] = {
    ("knights", chess.WHITE): chess.BB_KNIGHT_ATTACKS,
    ("knights", chess.BLACK): chess.BB_KNIGHT_ATTACKS,
    ("kings", chess.WHITE): chess.BB_KING_ATTACKS,
    ("kings", chess.BLACK): chess.BB_KING_ATTACKS,
    ("pawns", chess.WHITE): chess.BB_PAWN_ATTACKS[chess.BLACK],
    ("pawns", chess.BLACK): chess.BB_PAWN_ATTACKS[chess.WHITE],
}

_KINGS = {types_of("K"): chess.WHITE, types_of("k"): chess.BLACK}


#: Per square, the squares a pawn there of each colour pushes to without promoting
#: (ranks 2-6 for White, 3-7 for Black; 0 elsewhere).
_PLAIN_PUSHES = (
    tuple(1 << (sq - 8) if 16 <= sq < 56 else 0 for sq in range(64)),
    tuple(1 << (sq + 8) if 8 <= sq < 48 else 0 for sq in range(64)),
)


def is_stalemate(board: Board) -> bool:
    """``board.is_stalemate()``, answered at once (False) where the side to move, if not in
    check, plainly has a legal move: a knight, bishop, rook, queen or unpromoting pawn push of
    a piece on no line through its own king (so no move of it uncovers the king) with a
    square to go to.  Anything else, and every other board class, is python-chess's.

    >>> is_stalemate(chess.Board()), is_stalemate(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))
    (False, True)
    """
    if type(board) is not chess.Board:
        return board.is_stalemate()
    turn = board.turn
    mine = board.occupied_co[turn]
    kings = board.kings & mine
    if not kings or kings & (kings - 1):
        return board.is_stalemate()
    # In check there is no stalemate: the answer False below needs no look at checks.
    free = _RAYS[kings.bit_length() - 1]
    occupied = board.occupied
    pushes = _PLAIN_PUSHES[turn]
    movers = mine & ~board.kings
    while movers:
        low = movers & -movers
        movers ^= low
        square = low.bit_length() - 1
        if free[square]:  # on a line through the king: it may be pinned
            continue
        if board.pawns & low:
            if pushes[square] & ~occupied:
                return False
        elif board.attacks_mask(square) & ~mine:
            return False
    return board.is_stalemate()


_RAYS = chess.BB_RAYS


def attackers_of(board: Board, square: int, among: int = FULL) -> int:
    """The pieces on ``among`` that attack ``square``: the squares ``a`` of ``among`` with
    ``square`` in ``board.attacks_mask(a)`` (tested equal to that definition).

    >>> format(attackers_of(chess.Board(), chess.F3), "064b").count("1")
    3
    """
    out = 0
    if among & board.occupied_co[chess.WHITE]:
        out = board.attackers_mask(chess.WHITE, square)
    if among & board.occupied_co[chess.BLACK]:
        out |= board.attackers_mask(chess.BLACK, square)
    return out & among


def attacking(board: Board, attackers: int, targets: int) -> int:
    """The squares of ``attackers`` whose piece attacks some square of ``targets``."""
    if not attackers:
        return 0
    if not attackers & (attackers - 1):  # one piece (a piece variable, often)
        return attackers if board.attacks_mask(attackers.bit_length() - 1) & targets else 0
    out = 0
    if targets.bit_count() <= attackers.bit_count():
        for sq in iter_squares(targets):
            out |= attackers_of(board, sq, attackers)
        return out
    for sq in iter_squares(attackers):
        if board.attacks_mask(sq) & targets:
            out |= 1 << sq
    return out


def attacks(left: SetFn, right: SetFn) -> SetFn:
    """``L attacks R``: the pieces of L attacking some square of R, counted from the
    smaller side."""

    def attacks_value(ctx: Context, p: int) -> int:
        targets = right(ctx, p)
        if not targets:
            return 0
        board = ctx.boards[p]
        attackers = left(ctx, p) & board.occupied
        return attacking(board, attackers, targets) if attackers else 0

    return attacks_value


def attacked_by(left: SetFn, right: SetFn) -> SetFn:
    """``L attackedby R``: the squares of L some piece of R attacks, counted from the
    smaller side."""

    def attacked_by_value(ctx: Context, p: int) -> int:
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
        found: int = targets & out
        return found

    return attacked_by_value


def _leaper_reach(types: TypeSet) -> list[int] | None:
    """For each square t, the squares from which a piece of ``types`` attacks t, when
    every kind ``types`` names is a leaper read from one table (knights of both colours,
    say); None otherwise: a table read for one kind would count the pieces of another."""
    tables = [_LEAPER_TABLES.get(kind) for kind in kinds(types)]
    first = tables[0] if tables else None
    if first is None or any(table is not first for table in tables):
        return None
    return first


def _safe_king_color(left: PieceSet, right: PieceSet) -> chess.Color | None:
    """The colour C when ``right`` is C's king and ``left`` holds C's enemies only: then a
    board whose last move was C's counts 0 (see the module's docstring)."""
    color = _KINGS.get(right.types)
    if color is None:
        return None
    enemies = BLACK_PIECES if color == chess.WHITE else WHITE_PIECES
    return color if left.types & ~enemies == 0 else None


def _single_target_counter(left: PieceSet) -> Callable[[Board, int, int], int]:
    """``count(board, target, attackers)``: how many of ``attackers`` attack ``target``."""
    reach = _leaper_reach(left.types)
    if reach is not None:
        table = reach
        return lambda board, target, attackers: (table[target] & attackers).bit_count()
    for side, pieces in ((chess.WHITE, WHITE_PIECES), (chess.BLACK, BLACK_PIECES)):
        if left.types & ANY_PIECE & ~pieces == 0:
            return lambda board, target, attackers: (
                board.attackers_mask(side, target) & attackers
            ).bit_count()
    white, black = chess.WHITE, chess.BLACK

    def count(board: Board, target: int, attackers: int) -> int:
        found = 0
        if attackers & board.occupied_co[white]:
            found = board.attackers_mask(white, target)
        if attackers & board.occupied_co[black]:
            found |= board.attackers_mask(black, target)
        return (found & attackers).bit_count()

    return count


def attack_count(left: PieceSet, right: PieceSet) -> BoardCount:
    """``#(L attacks R)``: how many pieces of L attack some piece of R.

    >>> from cqllegacy.evaluator.testing import pd
    >>> attack_count(pd("N"), pd("p"))(chess.Board("8/8/2p1p3/8/3N4/8/8/K6k w - - 0 1"))
    1
    """
    attackers_mask, attacker_squares = mask_function(left.types), left.squares
    targets_mask, target_squares = mask_function(right.types), right.squares
    single = _single_target_counter(left)

    def count(board: Board) -> int:
        targets = targets_mask(board) & target_squares
        if not targets:
            return 0
        attackers = attackers_mask(board) & attacker_squares & board.occupied
        if not attackers:
            return 0
        if targets & (targets - 1):
            return attacking(board, attackers, targets).bit_count()
        return single(board, targets.bit_length() - 1, attackers)

    king_color = _safe_king_color(left, right)
    if king_color is None:
        return count

    def count_unless_moved_last(board: Board) -> int:
        # Inline, not a call: this runs at every position of every game.
        if board.turn != king_color and board.move_stack:
            last = board.move_stack[-1]
            kings = board.kings & board.occupied_co[king_color]
            # python-chess's legality guards a king only when it is the only one, not
            # promoted; a null move (from == to) guards nothing.
            if (
                last.from_square != last.to_square
                and not kings & (kings - 1)
                and not kings & board.promoted
            ):
                return 0
        return count(board)

    return count_unless_moved_last


def attack_count_in_range(
    left: PieceSet, right: PieceSet, lo: int | None, hi: int | None
) -> BoardCheck:
    """``lo <= #(L attacks R) <= hi`` (either bound None: no limit), in one function."""
    low, high = closed_range(lo, hi)
    count = attack_count(left, right)
    king_color = _safe_king_color(left, right)
    if king_color is None:
        return lambda board: low <= count(board) <= high
    return _king_attacks_in_range(left, right, king_color, low, high, count)


def _king_attacks_in_range(
    left: PieceSet, right: PieceSet, color: chess.Color, low: int, high: int, count: BoardCount
) -> BoardCheck:
    """:func:`attack_count_in_range` on ``color``'s king by its enemies, in one function
    (``count`` for the unusual boards: several kings): the usual question of a double
    check or a knight fork, asked at every position."""
    attackers_mask, attacker_squares = mask_function(left.types), left.squares
    target_squares = right.squares
    zero_in_range = low <= 0 <= high
    reach = _leaper_reach(left.types)
    enemy = not color

    def king_attacks_in_range(board: Board) -> bool:
        kings = board.kings & board.occupied_co[color]
        targets = kings & target_squares
        if not targets:
            return zero_in_range
        if kings & (kings - 1):
            return low <= count(board) <= high
        if board.turn == enemy and board.move_stack and not kings & board.promoted:
            last = board.move_stack[-1]
            if last.from_square != last.to_square:  # not a null move
                return zero_in_range  # see the module's docstring
        target = targets.bit_length() - 1
        near = reach[target] if reach is not None else board.attackers_mask(enemy, target)
        return low <= (near & attackers_mask(board) & attacker_squares).bit_count() <= high

    return king_attacks_in_range


def _attacks_on(board: Board, attackers: int, targets: int) -> int:
    """Σ over the pieces of ``attackers`` of how many squares of ``targets`` each attacks."""
    if not targets:
        return 0
    count = 0
    for sq in iter_squares(attackers & board.occupied):
        count += (board.attacks_mask(sq) & targets).bit_count()
    return count


def attack_sum(left: SetFn, types: TypeSet, squares: int) -> NumberFn:
    """Σ over the squares s of ``squares`` of ``#(L attacks T@s)``: for each attacker in L,
    the number of its attacked squares holding T there (with a piece designator L the
    lowering uses :func:`board_attack_sum`, on the board alone)."""
    pieces = mask_function(types)
    left_fn = left

    def total(ctx: Context, p: int) -> int:
        board = ctx.boards[p]
        return _attacks_on(board, left_fn(ctx, p), pieces(board) & squares)

    return total


def board_attack_sum(left: PieceSet, types: TypeSet, squares: int) -> BoardCount:
    """:func:`attack_sum` for a piece designator L, as a function of the board.

    >>> from cqllegacy.evaluator.testing import pd
    >>> fork = board_attack_sum(pd("N"), types_of("rq"), FULL)
    >>> fork(chess.Board("8/8/2r1q3/8/3N4/8/8/K6k w - - 0 1"))
    2
    """
    attackers_mask, attacker_squares = mask_function(left.types), left.squares
    pieces = mask_function(types)
    return lambda board: _attacks_on(
        board, attackers_mask(board) & attacker_squares, pieces(board) & squares
    )


# --------------------------------------------------------------------------------------
# Moves and lines of single steps
# --------------------------------------------------------------------------------------


def next_move(
    test: Callable[[Context, int, int], bool], from_squares: int, to_squares: int, landings: int
) -> TruthFn:
    """Some continuation ``q`` of ``p`` with ``test(ctx, p, q)``, its move's squares
    checked first: it must leave ``from_squares`` and reach ``to_squares`` (or castle,
    when ``to_squares`` meets ``landings``, the castling king's squares); a null move is
    left to ``test``."""
    castling_possible = bool(to_squares & landings)

    def move_next(ctx: Context, p: int) -> bool:
        for q in ctx.next[p]:
            move = ctx.moves[q]
            if move:
                if not from_squares >> move.from_square & 1:
                    continue
                if not (to_squares >> move.to_square & 1 or castling_possible):
                    continue
            if test(ctx, p, q):
                return True
        return False

    return move_next


def remembered(test: TruthFn) -> TruthFn:
    """``test``, remembered per position of a game (and per scope and binding): the steps
    of many lines are often the same filter at the same position."""
    token = object()

    def remembered_test(ctx: Context, p: int) -> bool:
        known = ctx.memo_for(token)
        if known is None:
            known = ctx.store(token, {})
        value = known.get(p)
        if value is None:
            value = known[p] = bool(test(ctx, p))
        return bool(value)

    return remembered_test


def single_step_line(tests: Sequence[TruthFn]) -> TruthFn:
    """``line --> C1 --> C2 …`` with every step matched exactly once: C1 here, C2 at a
    continuation, … walked along the continuations (``tests[i]`` the truth of Ci)."""
    steps = tuple(tests)
    last = len(steps) - 1

    def walk(ctx: Context, p: int, i: int) -> bool:
        while True:
            if not step_holds(steps[i], ctx, p):
                return False
            if i == last:
                return True
            following = after_step(ctx, p)
            if len(following) != 1:
                return any(walk(ctx, q, i + 1) for q in following)
            p, i = following[0], i + 1

    return lambda ctx, p: walk(ctx, p, 0)


# --------------------------------------------------------------------------------------
# Every binding at once: the squares where a piece variable's piece makes a filter hold
# --------------------------------------------------------------------------------------

#: In a holders mask, the bit saying that the filter holds when the piece bound to the
#: variable is off the board (captured, or a pawn's promoted piece not yet there).
OFF_BOARD = 1 << 64

#: A holders mask saying "whatever the variable's square".
EVERYWHERE = FULL | OFF_BOARD

#: A filter read for every value of one piece variable at once: at a position, the
#: squares s such that the filter holds there when the variable's piece stands on s,
#: and :data:`OFF_BOARD` when it holds with the piece off the board.  A "unit" holders
#: function is that of a set filter whose value is at most the variable's square (``x``,
#: ``x & S``, ``x attacks R``): its value is that square exactly where the bit is set.
Holders = Callable[[Context, int], int]


def holders_of_truth(test: TruthFn) -> Holders:
    """A filter that reads no variable: it holds for every square or for none."""
    return lambda ctx, p: EVERYWHERE if test(ctx, p) else 0


def holders_all(parts: Sequence[Holders]) -> Holders:
    """All of the filters hold (a conjunction)."""
    if len(parts) == 1:
        return parts[0]
    parts_tuple = tuple(parts)

    def all_hold(ctx: Context, p: int) -> int:
        out = EVERYWHERE
        for part in parts_tuple:
            out &= part(ctx, p)
            if not out:
                return 0
        return out

    return all_hold


def holders_any(parts: Sequence[Holders]) -> Holders:
    """Some of the filters holds (a disjunction)."""
    if len(parts) == 1:
        return parts[0]
    parts_tuple = tuple(parts)

    def any_holds(ctx: Context, p: int) -> int:
        out = 0
        for part in parts_tuple:
            out |= part(ctx, p)
            if out == EVERYWHERE:
                break
        return out

    return any_holds


def holders_guarded(board: BoardCheck | None, guard: TruthFn, inner: Holders) -> Holders:
    """``inner`` where ``guard`` (filters that read no variable; ``board``, when given,
    decides it on the board alone) holds, else nothing."""
    if board is not None:
        check = board
        return lambda ctx, p: inner(ctx, p) if check(ctx.boards[p]) else 0
    return lambda ctx, p: inner(ctx, p) if guard(ctx, p) else 0


def variable_squares(ctx: Context, p: int) -> int:
    """The unit holders of the variable itself: its value is its square wherever it
    stands."""
    return FULL


def holders_not(part: Holders) -> Holders:
    """The filter does not hold."""
    return lambda ctx, p: EVERYWHERE & ~part(ctx, p)


def holders_count(unit: Holders, one: bool, zero: bool) -> Holders:
    """The size of a unit set filter's value (1 where ``unit`` says, else 0) is in a
    range that holds 1 (``one``) and 0 (``zero``) or not."""
    if one and zero:
        return lambda ctx, p: EVERYWHERE
    if one:
        return unit
    if zero:
        return holders_not(unit)
    return lambda ctx, p: 0


def holders_within(units: Sequence[Holders], values: Sequence[SetFn]) -> Holders:
    """``x & S…``: the units' value (the variable's square) within every set of
    ``values`` (filters that read no variable)."""
    units_tuple, values_tuple = tuple(units), tuple(values)

    def within(ctx: Context, p: int) -> int:
        out = FULL
        for unit in units_tuple:
            out &= unit(ctx, p)
            if not out:
                return 0
        for value in values_tuple:
            out &= value(ctx, p)
            if not out:
                return 0
        return out

    return within


def holders_attacking(unit: Holders, targets: SetFn, among: SetFn | None = None) -> Holders:
    """``x attacks R`` (and ``R attackedby x``): the squares of the unit whose piece
    attacks some square of R.  ``among``, when given, holds the square of the bound piece
    wherever it is on the board (the pieces of its tag's colour): only its pieces are
    looked at, the other bits being never read."""
    if unit is variable_squares:

        def attackers_holders(ctx: Context, p: int) -> int:
            found = targets(ctx, p)
            if not found:
                return 0
            board = ctx.boards[p]
            pieces = board.occupied if among is None else among(ctx, p)
            return attacking(board, pieces, found)

        return attackers_holders

    def attacking_holders(ctx: Context, p: int) -> int:
        squares = unit(ctx, p) & FULL
        if not squares:
            return 0
        found = targets(ctx, p)
        if not found:
            return 0
        board = ctx.boards[p]
        return attacking(board, squares & board.occupied, found)

    return attacking_holders


def holders_attacked(unit: Holders, attackers: SetFn) -> Holders:
    """``L attacks x`` (and ``x attackedby L``): the squares of the unit that some piece
    of L attacks."""

    def attacked_holders(ctx: Context, p: int) -> int:
        squares = unit(ctx, p) & FULL
        if not squares:
            return 0
        board = ctx.boards[p]
        pieces = attackers(ctx, p) & board.occupied
        attacked = 0
        for sq in iter_squares(pieces):
            attacked |= board.attacks_mask(sq)
        return squares & attacked

    return attacked_holders


def holders_moving(unit: Holders, test: Callable[[Context, int, int], bool]) -> Holders:
    """``move from x …``: the squares of the unit that a continuation in scope leaves by
    a move ``test`` accepts (``test`` checks the move's other demands; a null move leaves
    no square)."""

    def moving_holders(ctx: Context, p: int) -> int:
        squares = unit(ctx, p) & FULL
        if not squares:
            return 0
        out = 0
        for q in ctx.next[p]:
            move = ctx.moves[q]
            if move and squares >> move.from_square & 1 and test(ctx, p, q):
                out |= 1 << move.from_square
        return out

    return moving_holders


def remembered_holders(holders: Holders) -> Holders:
    """``holders``, computed once per position of a game and scope: every binding reads
    the same mask."""
    token = object()

    def remembered_mask(ctx: Context, p: int) -> int:
        key = (token, ctx.all_scope)
        known: dict[int, int] | None = ctx.memo.get(key)
        if known is None:
            known = ctx.memo[key] = {}
        found = known.get(p)
        if found is None:
            found = known[p] = holders(ctx, p)
        return found

    return remembered_mask


def holders_test(name: str, holders: Holders) -> TruthFn:
    """Whether the filter holds for the piece bound to ``name``: the bit of its square
    (:data:`OFF_BOARD` when it is off the board) in the mask ``holders`` gives."""

    def bound_holds(ctx: Context, p: int) -> bool:
        sq = ctx.tracks[name][p]
        return bool(holders(ctx, p) >> (64 if sq == NO_PIECE else sq) & 1)

    return bound_holds


# --------------------------------------------------------------------------------------
# Searching later positions
# --------------------------------------------------------------------------------------


def _main_chain_ends(table: Any) -> list[int]:
    """For every position, the last position of its main continuation chain (positions
    are numbered depth first with the main continuation first, so the chain from ``p``
    is ``p .. end``)."""
    n = len(table)
    ends = list(range(n))
    for q in range(n - 2, -1, -1):
        if table.main_child[q] == q + 1:
            ends[q] = ends[q + 1]
    return ends


def _listed(
    ctx: Context, token: object, necessity: Fn, reached: int = FULL
) -> tuple[list[int], Sequence[int]]:
    """The positions where ``necessity`` holds, listed once per game and scope under
    ``token``, and per position the end of the positions reachable from it in scope.
    ``reached``: squares one of which the next move must land on wherever the necessity
    holds (only the positions whose continuations land there are tried)."""
    key = (token, ctx.all_scope)
    found: tuple[list[int], Sequence[int]] | None = ctx.memo.get(key)
    if found is None:
        if reached == FULL:
            tried: Iterable[int] = range(len(ctx.table))
        else:
            landings = _landings(ctx)
            tried = sorted({q for sq in iter_squares(reached) for q in landings[sq]})
        listed = [q for q in tried if necessity(ctx, q)]
        found = ctx.memo[key] = (listed, _reachable_ends(ctx))
    return found


def _reachable_ends(ctx: Context) -> Sequence[int]:
    """Per position, the end of the positions reachable from it in scope (once per game
    and scope)."""
    key = (_reachable_ends, ctx.all_scope)
    found: Sequence[int] | None = ctx.memo.get(key)
    if found is None:
        table = ctx.table
        found = table.subtree_end if ctx.all_scope else [e + 1 for e in _main_chain_ends(table)]
        ctx.memo[key] = found
    return found


def _landings(ctx: Context) -> list[list[int]]:
    """Per square, the positions (in order) with a continuation in scope that lands
    there: its move's target square, and for a king's move the castling landings on its
    rank (:func:`destination_keyed`)."""
    key = (_landings, ctx.all_scope)
    found: list[list[int]] | None = ctx.memo.get(key)
    if found is None:
        found = [[] for _ in range(64)]
        boards, moves = ctx.boards, ctx.moves
        for q in range(len(ctx.table)):
            squares = 0
            for r in ctx.next[q]:
                move = moves[r]
                if move:
                    squares |= 1 << move.to_square
                    if boards[q].kings >> move.from_square & 1:
                        squares |= _LANDINGS_ON_RANK[move.from_square >> 3]
            for sq in iter_squares(squares):
                found[sq].append(q)
        ctx.memo[key] = found
    return found


def gated(necessity: TruthFn, test: TruthFn) -> TruthFn:
    """``test`` where ``necessity`` (a test that holds wherever it holds and reads no
    binding) holds: the necessity is decided once per position of a game, for every
    binding of the tags."""
    token = object()

    def gated_test(ctx: Context, p: int) -> bool:
        known: dict[int, bool] | None = ctx.memo.get((token, None))
        if known is None:
            known = ctx.memo[(token, None)] = {}
        holds = known.get(p)
        if holds is None:
            holds = known[p] = bool(necessity(ctx, p))
        return holds and bool(test(ctx, p))

    return gated_test


def find_among(
    necessity: TruthFn, test: TruthFn, shared: object = None, reached: int = FULL
) -> TruthFn:
    """``find X`` given a test that holds wherever X holds and reads no binding: the
    positions where it holds are listed once per game and scope, and X is tried at
    those from the current position on, along the continuations in scope.  The finds
    given the same ``shared`` key (one per necessity) share the list."""
    token = object() if shared is None else shared

    def find(ctx: Context, p: int) -> bool:
        listed, ends = _listed(ctx, token, necessity, reached)
        end = ends[p]
        for i in range(bisect.bisect_left(listed, p), len(listed)):
            q = listed[i]
            if q >= end:
                return False
            if test(ctx, q):
                return True
        return False

    return find


def _bound_hits(
    ctx: Context,
    token: object,
    name: str,
    holders: Holders,
    shared: object,
    necessity: TruthFn,
    reached: int,
) -> list[int]:
    """The positions where the filter whose masks ``holders`` gives holds for the piece
    bound to ``name``, among those where ``necessity`` holds (listed under ``shared``):
    found once per game, scope and piece."""
    identity = ctx.bindings[name]
    key = (token, (ctx.all_scope, identity))
    hits: list[int] | None = ctx.memo.get(key)
    if hits is None:
        listed, _ = _listed(ctx, shared, necessity, reached)
        track = ctx.tracks[name]
        hits = []
        for q in listed:
            sq = track[q]
            if holders(ctx, q) >> (64 if sq == NO_PIECE else sq) & 1:
                hits.append(q)
        ctx.memo[key] = hits
    return hits


def find_bound(
    name: str, holders: Holders, necessity: TruthFn, shared: object, reached: int = FULL
) -> TruthFn:
    """``find X`` where X reads the piece variable ``name`` at its own position only (its
    masks for every square: ``holders``) and holds only where ``necessity`` (which reads
    no variable) holds: the positions where X holds for a piece are found once per game
    and piece, and each ``find`` looks up the first of them from the current position."""
    token = object()

    def find(ctx: Context, p: int) -> bool:
        hits = _bound_hits(ctx, token, name, holders, shared, necessity, reached)
        if not hits:
            return False
        i = bisect.bisect_left(hits, p)
        return i < len(hits) and hits[i] < _reachable_ends(ctx)[p]

    return find


def find_moving(
    name: str,
    unit: Holders | int,
    test: Callable[[Context, int, int], bool],
    reach: int = FULL,
) -> TruthFn:
    """``find {move from X …}`` where X is the piece variable ``name``'s square or nothing
    (its unit holders: ``unit``, or the squares where it is the square, when they are the
    same at every position) and ``test`` checks the move's other demands: the
    positions where the bound piece makes such a move are found once per game, scope and
    piece among the piece's own moves (listed once per game and scope for every piece),
    and each ``find`` looks up the first of them from the current position.  The same
    positions as :func:`find_bound` with ``holders_moving(unit, test)``, without a list
    of the positions where a necessity holds.  ``reach``: squares one of which the move
    must land on (a move that reaches none is not tested)."""
    token = object()

    def find(ctx: Context, p: int) -> bool:
        identity = ctx.bindings[name]
        key = (token, (ctx.all_scope, identity))
        hits: list[int] | None = ctx.memo.get(key)
        if hits is None:
            hits = []
            for q, r, origin, reached in _moves_by_piece(ctx).get(identity, ()):
                if not reach & reached or (hits and hits[-1] == q):
                    continue
                squares = unit if isinstance(unit, int) else unit(ctx, q)
                if squares >> origin & 1 and test(ctx, q, r):
                    hits.append(q)
            ctx.memo[key] = hits
        if not hits:
            return False
        i = bisect.bisect_left(hits, p)
        return i < len(hits) and hits[i] < _reachable_ends(ctx)[p]

    return find


def _moves_by_piece(ctx: Context) -> dict[int, list[tuple[int, int, int, int]]]:
    """Per piece identity, the continuations in scope that move it (castling moves the
    king), as (position, continuation, square left, squares it may land on) in the order
    of the positions: once per game and scope.  A move may land on its target square and,
    a king's, on the castling landings of its rank (:func:`destination_keyed`).  A null
    move moves no piece."""
    key = (_moves_by_piece, ctx.all_scope)
    found: dict[int, list[tuple[int, int, int, int]]] | None = ctx.memo.get(key)
    if found is None:
        found = {}
        # The piece each move moves, read from the followed main line where there is
        # one: no row of every square's piece per position.
        boards, moves, movers, following = ctx.boards, ctx.moves, ctx.table.movers(), ctx.next
        for q in range(len(ctx.table)):
            for r in following[q]:
                move = moves[r]
                if move:
                    origin = move.from_square
                    reached = 1 << move.to_square
                    if boards[q].kings >> origin & 1:
                        reached |= _LANDINGS_ON_RANK[origin >> 3]
                    found.setdefault(movers[r], []).append((q, r, origin, reached))
        ctx.memo[key] = found
    return found


def count_bound(
    name: str, holders: Holders, necessity: TruthFn, shared: object, reached: int = FULL
) -> NumberFn:
    """``find all X`` as :func:`find_bound` finds X: how many of the positions where X
    holds for the piece lie from the current position on, along the continuations in
    scope."""
    token = object()

    def count(ctx: Context, p: int) -> int:
        hits = _bound_hits(ctx, token, name, holders, shared, necessity, reached)
        if not hits:
            return 0
        end = _reachable_ends(ctx)[p]
        return bisect.bisect_left(hits, end) - bisect.bisect_left(hits, p)

    return count


def count_among(
    necessity: TruthFn, test: TruthFn, shared: object, reached: int = FULL
) -> NumberFn:
    """``find all X`` (how many positions from the current one on, along the
    continuations in scope, satisfy X) given a test that holds wherever X holds and reads
    no binding: X is tried only where that test holds (:func:`find_among`'s list)."""

    def count(ctx: Context, p: int) -> int:
        listed, ends = _listed(ctx, shared, necessity, reached)
        end = ends[p]
        found = 0
        for i in range(bisect.bisect_left(listed, p), len(listed)):
            q = listed[i]
            if q >= end:
                break
            if test(ctx, q):
                found += 1
        return found

    return count
