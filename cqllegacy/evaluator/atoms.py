"""Atoms: what a position must hold, as bitboard tests, and functions of the board
generated from them.

An *atom* says "between ``lo`` and ``hi`` squares of S hold something of type set T".
A piece designator is the atom "at least one square of S holds T"; ``#X == n`` for a
piece designator X and ``not X`` are atoms too.  So a typical legacy position list is a
conjunction of atoms, and ``:shift :flip :flipcolor`` makes a disjunction (an orbit) of
up to a thousand such conjunctions.

* :func:`exact_atoms` finds the atoms that are exactly a filter, :func:`necessary_atoms`
  atoms that hold wherever a filter matches (``N attacks k`` needs a white knight and a
  black king).
* :func:`board_check` makes one Python function checking a conjunction of atoms on a
  board: generated source, one call, the atoms most likely to fail first.
* :func:`pure_disjunction` makes one function for a disjunction of conjunctions of
  atoms: members are filed under a *key* (a necessary atom naming a rare piece kind and
  its squares), and at a position only the members whose key square holds that piece
  are looked at; members that are one atom each are merged into one mask test.

>>> from cqllegacy.evaluator.testing import pd
>>> from cqllegacy.core.tree import Transform, TransformKind
>>> fork = Transform(TransformKind.SHIFT, Compound((pd("Nd4"), pd("kf3"))))
>>> check = pure_disjunction(fork)
>>> check(chess.Board("8/8/8/8/8/N7/2k5/4K3 w - - 0 1")), check(chess.Board())
(True, False)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import chess

from cqllegacy.core.transforms import orbit
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
    LegacyOnly,
    Line,
    Move,
    Not,
    Or,
    PieceLoop,
    PieceSet,
    Ray,
    Simple,
    Transform,
    Union,
    XRay,
)
from cqllegacy.evaluator.analysis import meaningful
from cqllegacy.evaluator.masks import kind_bit, kinds, mask_expression, mask_function
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    EMPTY_BIT,
    TypeSet,
)
from cqllegacy.vocab.squares import iter_squares

__all__ = [
    "KEY_COST_LIMIT",
    "Atom",
    "BoardCheck",
    "any_conjunction",
    "best_key",
    "board_check",
    "count_atom",
    "disjunction_members",
    "exact_atoms",
    "necessary_atoms",
    "pure_disjunction",
]

Board = chess.Board
Mask = Callable[[Board], int]
BoardCheck = Callable[[Board], bool]


# --------------------------------------------------------------------------------------
# Piece masks
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# Atoms
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

    def holds(self, board: Board) -> bool:
        n = mask_function(self.types)(board) & self.squares
        if self.hi is None and self.lo <= 1:
            return self.lo <= 0 or n != 0
        count = n.bit_count()
        return self.lo <= count and (self.hi is None or count <= self.hi)

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


def count_atom(value: Filter, lo: int | None, hi: int | None) -> Atom | None:
    """``lo <= value <= hi`` as an atom, when ``value`` counts a piece designator."""
    if isinstance(value, Count) and isinstance(value.arg, PieceSet):
        return Atom(value.arg.types, value.arg.squares, max(lo or 0, 0), hi)
    return None


def exact_atoms(node: Filter) -> tuple[Atom, ...] | None:
    """Atoms whose conjunction is exactly the truth of ``node``; None when there are none.

    >>> from cqllegacy.evaluator.testing import pd
    >>> exact_atoms(Compound((pd("Ka1"), Not(pd("q")))))  # doctest: +NORMALIZE_WHITESPACE
    (Atom(types=32, squares=1, lo=1, hi=None),
     Atom(types=1024, squares=18446744073709551615, lo=0, hi=0))
    """
    if isinstance(node, PieceSet):
        return (Atom(node.types, node.squares),)
    if isinstance(node, Compound | And):
        out: list[Atom] = []
        for item in meaningful(node.items):
            atoms = exact_atoms(item)
            if atoms is None:
                return None
            out.extend(atoms)
        return tuple(out)
    if isinstance(node, LegacyOnly):
        return exact_atoms(node.filter)
    if isinstance(node, InRange):
        atom = count_atom(node.value, node.lo, node.hi)
        return None if atom is None else (atom,)
    if isinstance(node, Not) and isinstance(node.arg, PieceSet):
        return (Atom(node.arg.types, node.arg.squares, 0, 0),)
    if isinstance(node, Simple) and node.keyword is Keyword.TRUE:
        return ()
    return None


_BOTH_ARGS = (Attacks, AttackedBy, Between)
_ALL_ARGS = (Ray, XRay)


def necessary_atoms(node: Filter) -> tuple[Atom, ...]:
    """Atoms that hold wherever ``node`` matches (at the same position).

    >>> from cqllegacy.evaluator.testing import pd
    >>> necessary_atoms(Attacks(pd("N"), pd("k")))  # doctest: +NORMALIZE_WHITESPACE
    (Atom(types=2, squares=18446744073709551615, lo=1, hi=None),
     Atom(types=2048, squares=18446744073709551615, lo=1, hi=None))
    """
    exact = exact_atoms(node)
    if exact is not None:
        return exact
    if isinstance(node, Compound | And | Intersection):
        return tuple(atom for item in meaningful(node.items) for atom in necessary_atoms(item))
    if isinstance(node, LegacyOnly):
        return necessary_atoms(node.filter)
    if isinstance(node, _BOTH_ARGS):
        return necessary_atoms(node.left) + necessary_atoms(node.right)
    if isinstance(node, _ALL_ARGS):
        return tuple(atom for arg in node.args for atom in necessary_atoms(arg))
    if isinstance(node, DirectionSet):
        return necessary_atoms(node.arg)
    if isinstance(node, PieceLoop):
        return necessary_atoms(node.domain)
    if isinstance(node, InRange) and isinstance(node.value, Count) and (node.lo or 0) >= 1:
        return necessary_atoms(node.value.arg)
    if isinstance(node, Move) and not node.previous:
        parts = (node.from_, node.to, node.capture)
        return tuple(atom for part in parts if part is not None for atom in necessary_atoms(part))
    if isinstance(node, Line) and node.steps and node.steps[0].lo >= 1:
        return necessary_atoms(node.steps[0].filter)
    return ()


def _density(types: TypeSet) -> float:
    """The usual share of the squares whose content is in ``types``."""
    pieces = sum(_USUAL_COUNT[name] for name, _ in kinds(types)) / 64
    return min(1.0, pieces + (0.5 if types & EMPTY_BIT else 0.0))


@functools.cache
def _generated(source: str) -> BoardCheck:
    """The function ``check(board)`` defined by ``source`` (text built here from type
    sets and integers only): one call instead of a call per atom."""
    namespace: dict[str, Any] = {}
    exec(compile(source, "<cqllegacy board check>", "exec"), namespace)
    return namespace["check"]


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
    def of(cls, types: TypeSet, atoms: list[Atom]) -> _Step:
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

    def source_lines(self) -> list[str]:
        """Statements returning False when the step fails."""
        lines = [f"m = {mask_expression(self.types)}"]
        if self.all_of:
            lines.append(f"if m & {self.all_of} != {self.all_of}: return False")
        lines.extend(f"if not m & {squares}: return False" for squares in self.any_of)
        for squares, lo, hi in self.counts:
            lines.append(f"n = (m & {squares}).bit_count()")
            lines.append(f"if n < {lo}: return False")
            if hi is not None:
                lines.append(f"if n > {hi}: return False")
        return lines


def board_check(atoms: Sequence[Atom]) -> BoardCheck | None:
    """One function checking all ``atoms`` on a board (None when there are none), the
    atoms most likely to fail first.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> check = board_check([Atom(types_of("K"), chess.BB_E1), Atom(types_of("P"), chess.BB_E2)])
    >>> check(chess.Board()), check(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))
    (True, False)
    """
    groups: dict[TypeSet, list[Atom]] = {}
    for atom in atoms:
        groups.setdefault(atom.types, []).append(atom)
    steps = sorted(
        (_Step.of(types, group) for types, group in groups.items()), key=lambda s: s.chance
    )
    body = [line for step in steps if not step.empty for line in step.source_lines()]
    return _function(body, otherwise=True) if body else None


# --------------------------------------------------------------------------------------
# Disjunctions
# --------------------------------------------------------------------------------------


#: A member is filed under its key only when a position lights up its key this rarely.
KEY_COST_LIMIT = 0.25


def disjunction_members(node: Filter) -> Iterator[Filter]:
    """The filters one of which must match for ``node`` to match (``node`` itself when
    it is no disjunction)."""
    if isinstance(node, Or | Union):
        for item in meaningful(node.items):
            yield from disjunction_members(item)
    elif isinstance(node, Transform) and not node.count:
        for member in orbit(node.kind, node.arg):
            yield from disjunction_members(member)
    elif isinstance(node, LegacyOnly):
        yield from disjunction_members(node.filter)
    elif isinstance(node, Compound) and len(meaningful(node.items)) == 1:
        yield from disjunction_members(meaningful(node.items)[0])
    else:
        yield node


def best_key(atoms: Sequence[Atom]) -> Atom | None:
    """The atom that lights up the fewest squares of a usual position (None: no atom
    names pieces to look for)."""
    costs = [(cost, i) for i, atom in enumerate(atoms) if (cost := atom.key_cost()) is not None]
    return atoms[min(costs)[1]] if costs else None


def _atom_condition(mask: str, atom: Atom) -> str:
    """A Python condition that holds when ``atom`` does, ``mask`` being its mask."""
    if atom.presence:
        return f"{mask} & {atom.squares}"
    count = f"({mask} & {atom.squares}).bit_count()"
    return f"{count} >= {atom.lo}" if atom.hi is None else f"{atom.lo} <= {count} <= {atom.hi}"


def _condition(atoms: Sequence[Atom]) -> str:
    """A Python condition on ``board`` that holds when all ``atoms`` do."""
    parts = []
    for step in sorted(_steps(atoms), key=lambda s: s.chance):
        mask = mask_expression(step.types)
        if step.all_of:
            parts.append(f"{mask} & {step.all_of} == {step.all_of}")
        parts.extend(f"{mask} & {squares}" for squares in step.any_of)
        parts.extend(_atom_condition(mask, Atom(step.types, *count)) for count in step.counts)
    return " and ".join(f"({part})" for part in parts) or "True"


def _steps(atoms: Sequence[Atom]) -> list[_Step]:
    groups: dict[TypeSet, list[Atom]] = {}
    for atom in atoms:
        groups.setdefault(atom.types, []).append(atom)
    return [step for t, g in groups.items() if not (step := _Step.of(t, g)).empty]


def any_conjunction(conjunctions: Sequence[Sequence[Atom]]) -> BoardCheck:
    """Some of the conjunctions of atoms holds; one-atom conjunctions of the same type
    set are checked together on one mask.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> pawns = [(Atom(types_of("P"), chess.BB_RANK_3),), (Atom(types_of("P"), chess.BB_E2),)]
    >>> any_conjunction(pawns)(chess.Board()), any_conjunction(pawns[:1])(chess.Board())
    (True, False)
    """
    single: dict[TypeSet, list[Atom]] = {}
    lines: list[str] = []
    for atoms in conjunctions:
        if not atoms:
            return _always
        if len(atoms) == 1:
            single.setdefault(atoms[0].types, []).append(atoms[0])
        else:
            lines.append(f"if {_condition(atoms)}: return True")
    head: list[str] = []
    for types, group in single.items():
        head.append(f"m = {mask_expression(types)}")
        present = functools.reduce(operator.or_, (a.squares for a in group if a.presence), 0)
        if present:
            head.append(f"if m & {present}: return True")
        head.extend(f"if {_atom_condition('m', a)}: return True" for a in group if not a.presence)
    return _function(head + lines, otherwise=False)


def _never(board: Board) -> bool:
    return False


def _always(board: Board) -> bool:
    return True


def _function(
    body: Sequence[str], *, otherwise: bool, tables: dict[str, Any] | None = None
) -> BoardCheck:
    """``def check(board)`` with ``body``, returning ``otherwise`` at its end; ``tables``
    are the names the body refers to."""
    source = "def check(board):\n" + "".join(f"    {line}\n" for line in body)
    source += f"    return {otherwise}\n"
    if tables is None:
        return _generated(source)
    scope = dict(tables)
    exec(compile(source, "<cqllegacy board check>", "exec"), scope)
    return scope["check"]


def pure_disjunction(node: Filter) -> BoardCheck | None:
    """One board function for a disjunction (orbit, ``or``, ``|``) whose members are all
    conjunctions of atoms; None for other filters.

    Each member is filed under its key atom (:func:`best_key`) when that is rare
    enough, for each square of the key; the function looks at the members filed under
    the squares where a piece of the key's kind stands, and at the others always.

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import Transform, TransformKind
    >>> check = pure_disjunction(Transform(TransformKind.SHIFT, Compound((pd("Nd4"), pd("kf3")))))
    >>> check(chess.Board("8/8/8/8/8/N7/2k5/4K3 w - - 0 1")), check(chess.Board())
    (True, False)
    """
    members = list(dict.fromkeys(disjunction_members(node)))
    if len(members) < 2:
        return None
    conjunctions = [exact_atoms(member) for member in members]
    always: list[Sequence[Atom]] = []
    keyed: dict[tuple[str, chess.Color], dict[int, list[Sequence[Atom]]]] = {}
    for atoms in conjunctions:
        if atoms is None:
            return None
        key = best_key(atoms)
        if key is None or not key.presence or (key.key_cost() or 0) > KEY_COST_LIMIT:
            always.append(atoms)
            continue
        # A piece of the key's kind on a key square is what the key atom says.
        rest = list(atoms)
        rest.remove(key)
        for kind in kinds(key.types):
            for sq in iter_squares(key.squares):
                keyed.setdefault(kind, {}).setdefault(sq, []).append(rest)
    tables: dict[str, Any] = {}
    body: list[str] = []
    if always:
        tables["ALWAYS"] = any_conjunction(always)
        body.append("if ALWAYS(board): return True")
    for i, ((name, color), by_square) in enumerate(keyed.items()):
        table = [_never] * 64
        for sq, rests in by_square.items():
            table[sq] = any_conjunction(rests)
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
