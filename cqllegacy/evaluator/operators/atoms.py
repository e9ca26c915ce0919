"""Atoms and the board checks generated for them.

An :class:`Atom` says "between ``lo`` and ``hi`` squares of S hold something of type set
T".  :func:`all_atoms` checks a conjunction of atoms in one generated function, the atoms
most likely to fail first.  A disjunction or a count of conjunctions (the members of an
orbit) tests an atom its members share once for them all (:func:`_factored_hits`).
Generated checks are compiled once per shape of their text, their integers passed in
(:func:`_made`): an orbit's members differ in their squares only.
"""

from __future__ import annotations

import collections
import functools
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import attrs

from cqllegacy.evaluator.compiler import BoardCheck
from cqllegacy.evaluator.masks import kinds, mask_expression
from cqllegacy.evaluator.operators.base import (
    Board,
    BoardCount,
    holds_always,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    EMPTY_BIT,
    TypeSet,
)

__all__ = [
    "Atom",
    "all_atoms",
    "all_of",
    "any_conjunction",
    "board_function",
    "count_conjunctions",
]


#: How many pieces of a kind a position usually holds (to pick the rarest key).
_USUAL_COUNT = {"pawns": 8, "knights": 2, "bishops": 2, "rooks": 2, "queens": 1, "kings": 1}


@attrs.frozen(repr=False, slots=True)
class Atom(Record):
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


@attrs.frozen(repr=False, slots=True)
class _Step(Record):
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


def board_function(
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

    >>> import chess
    >>> from cqllegacy.vocab.pieces import types_of
    >>> check = all_atoms([Atom(types_of("K"), chess.BB_E1), Atom(types_of("P"), chess.BB_E2)])
    >>> check(chess.Board()), check(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))
    (True, False)
    """
    body = []
    for step in _steps(atoms):
        body.append(f"m = {mask_expression(step.types)}")
        body.extend(f"if not ({part}): return False" for part in step.conditions("m"))
    return board_function(body, otherwise=True) if body else None


def any_conjunction(conjunctions: Sequence[Sequence[Atom]]) -> BoardCheck:
    """Some of the conjunctions of atoms holds; one-atom conjunctions of the same type
    set are checked together on one mask, the others with their shared atoms factored
    out (:func:`_factored_hits`)."""
    single: dict[TypeSet, list[Atom]] = {}
    multi: list[Sequence[Atom]] = []
    for atoms in conjunctions:
        if not atoms:
            return holds_always
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
    return board_function(head + _factored_hits(multi, "return True"), otherwise=False)


def count_conjunctions(conjunctions: Sequence[Sequence[Atom]]) -> BoardCount:
    """How many of the conjunctions of atoms hold, each counted as often as it is
    listed (the members of ``count shift {…}`` orbits and of sums of them), their shared
    atoms factored out (:func:`_factored_hits`).

    >>> import chess
    >>> from cqllegacy.vocab.pieces import types_of
    >>> pawn, king = Atom(types_of("P"), chess.BB_E2), Atom(types_of("K"), chess.BB_E1)
    >>> count_conjunctions([(pawn, king), (king,), (pawn, king), ()])(chess.Board())
    4
    """
    check = board_function(["n = 0", *_factored_hits(conjunctions, "n += 1")], otherwise="n")
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
        return holds_always
    if len(checks) == 1:
        return checks[0]
    checks_tuple = tuple(checks)

    def conjunction(board: Board) -> bool:
        for check in checks_tuple:  # noqa: SIM110 (all() over a generator is slower here)
            if not check(board):
                return False
        return True

    return conjunction
