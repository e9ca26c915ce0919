"""The array form of the legacy ``:relation`` (semantics: S-relation, decision L18), and of
the ``echo`` the translator writes for an untransformed one.

A position P1 holds when some later position P2 of its game's main line stands in the
relation to it.  Every pair of a game is compared, all games at once, a distance at a
time: first each position with the next one, then with the one two plies on, and so on,
a position dropping out once a P2 is found or its game has no position that far on.

A position also stops waiting once no later position of its game holds enough pieces of
the kinds counted as missing: each P1 piece of those kinds that P2 does not cover is
missing, and no transform makes pieces.

A relation whose P2 may be shifted or turned tries, per pair, each turn of P2 and then
the shifts the reference rule tries: with more counted P1 pieces than the missing bound,
only the shifts that put a P2 piece on one of bound + 1 of them (the pins); else all 225.
A relation into variations stays row only: the index does not store them.

>>> import chess
>>> from cqllegacy.evaluator.arrays.compiler import compile_array
>>> board, boards = chess.Board(), [chess.Board()]
>>> for san in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3"):
...     _ = board.push_san(san)
...     boards.append(board.copy())
>>> again = compile_array(Relation())(Positions.of_boards(boards))
>>> again.tolist()  # the start and the position after Nf3 come again
[True, True, False, False, False, False]
"""

from __future__ import annotations

from collections.abc import Callable

import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.core.relation_echo import relation_of
from cqllegacy.core.tree import Echo, Relation, RelationScope, RelationSideToMove
from cqllegacy.evaluator.arrays.compiler import ArrayCompiler, _form
from cqllegacy.evaluator.arrays.positions import ArrayFn, Bools, Positions, RowOnly, Squares
from cqllegacy.evaluator.operators.placements import PIN_ORDER
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.pieces import ANY_PIECE, TypeSet
from cqllegacy.vocab.rays import KEEP_FILES
from cqllegacy.vocab.squares import Dihedral

__all__: list[str] = []

Bounds = tuple[int, int | None] | None
#: Some rows of the positions: their entries, or a slice.
Rows = NDArray[np.intp] | slice


@_form(Relation)
def _relation(c: ArrayCompiler, node: Relation) -> ArrayFn:
    if node.scope is not RelationScope.MAINLINE:
        raise RowOnly("a relation into variations, which the index does not store")
    pair = _TurnedPairs(node) if node.shift or node.flip else _Pairs(node)

    def related(positions: Positions) -> Bools:
        return pair.somewhere_later(positions)

    return related


@_form(Echo)
def _echo(c: ArrayCompiler, node: Echo) -> ArrayFn:
    # The echo the translator writes for a relation is that relation (core.relation_echo).
    # A run from stored positions examines the main line alone: the echo's targets are
    # its positions, none of them in a variation.
    relation = relation_of(node)
    if relation is None:
        raise RowOnly("it binds a position variable that each position of the game tries in turn")
    if relation.scope is RelationScope.VARIATIONS:
        return lambda positions: np.zeros(positions.size, np.bool_)
    return _relation(c, relation.replace(scope=RelationScope.MAINLINE))


class _Pairs:
    """The test of one relation between pairs of positions (P1, P2) given by their rows."""

    def __init__(self, node: Relation) -> None:
        self.node = node
        self.allowable = np.uint64(node.allowable)
        self.missing_types: TypeSet = node.missing[0] & ANY_PIECE
        self.new_types: TypeSet = node.new[0] & ANY_PIECE

    def somewhere_later(self, positions: Positions) -> Bools:
        """Per position, whether a later position of its game relates to it."""
        facts = _Facts(positions, self.node)
        holds = np.zeros(positions.size, np.bool_)
        stop = _last_candidate(positions, facts, self.node.missing[2])
        distance = 1
        waiting = np.flatnonzero(positions.rows + distance <= stop)
        size = positions.size
        while len(waiting):
            if self.by_slices and 2 * len(waiting) >= size - distance:
                # Most rows still wait: comparing the two whole slices costs less than
                # gathering the rows.
                related = self.related(facts, slice(0, -distance), slice(distance, size))[waiting]
            else:
                related = self.related(facts, waiting, waiting + distance)
            holds[waiting[related]] = True
            distance += 1
            waiting = waiting[~related]
            waiting = waiting[waiting + distance <= stop[waiting]]
        return holds

    #: Whether :meth:`related` may compare whole slices (it costs little per pair).
    by_slices = True

    def related(self, facts: _Facts, one: Rows, two: Rows) -> Bools:
        """Whether P2 (rows ``two``) relates to P1 (rows ``one``, as many), as the
        reference rule's ``_RelationTest.related`` says with no transform: the side to
        move, no allowable square with two different pieces, the missing and new pieces
        counted, and the ``original…`` counts."""
        ok = self.untransformed(facts, one, two)
        ok &= _fits(self.node, facts, facts.unturned, one, two)
        return ok

    def untransformed(self, facts: _Facts, one: Rows, two: Rows) -> Bools:
        """What the reference rule asks of a pair before any transform: the side to move
        and the ``original…`` counts (P2 as it stands, L18)."""
        node = self.node
        ok = self._sides(facts.white_to_move[one], facts.white_to_move[two])
        if node.original_different is None and node.original_same is None:
            return ok
        occupied1, occupied2 = facts.occupied[one], facts.occupied[two]
        differ = _differing(facts.planes, one, facts.planes, two)
        both = occupied1 & occupied2
        if node.original_different is not None:
            different = (occupied1 ^ occupied2) | (both & differ)
            ok &= _within(ba.popcount(different & self.allowable), node.original_different)
        if node.original_same is not None:
            ok &= _within(ba.popcount(both & ~differ & self.allowable), node.original_same)
        return ok

    def _sides(self, first: Bools, second: Bools) -> Bools:
        rule = self.node.side_to_move
        if rule is RelationSideToMove.IGNORE:
            return np.ones(len(first), np.bool_)
        return (first == second) if rule is RelationSideToMove.SAME else (first != second)


class _TurnedPairs(_Pairs):
    """The test of a relation whose P2 may be turned (``flip``: each of the eight
    symmetries) and then shifted (``shift``), as the reference rule tries them."""

    by_slices = False

    #: Above this many pins, all 225 shifts are tried instead (each pin may bring a
    #: shift per P2 piece of its kind).
    MAX_PINS = 8

    def __init__(self, node: Relation) -> None:
        super().__init__(node)
        self.dihedrals = tuple(Dihedral) if node.flip else (Dihedral.IDENTITY,)
        bound = node.missing[2]
        self.pins = None if not node.shift or bound is None else bound + 1
        if self.pins is not None and self.pins > self.MAX_PINS:
            self.pins = None
        self.pin_kinds = tuple(k for k in PIN_ORDER if self.missing_types >> k & 1)

    def related(self, facts: _Facts, one: Rows, two: Rows) -> Bools:
        """Whether some turn of P2, then some shift (with ``shift``), fits P1, after the
        untransformed tests and the count of pieces P2 needs (:attr:`_Facts.need`)."""
        assert not isinstance(one, slice) and not isinstance(two, slice)
        ok = self.untransformed(facts, one, two) & (facts.enough[two] >= facts.need[one])
        found = np.zeros(len(one), np.bool_)
        rest = np.flatnonzero(ok)
        for dihedral in self.dihedrals:
            if not len(rest):
                break
            turned = facts.turned(dihedral)
            p1, p2 = one[rest], two[rest]
            if self.node.shift:
                fits = self.shifted(facts, turned, p1, p2)
            else:
                fits = _fits(self.node, facts, turned, p1, p2)
            found[rest[fits]] = True
            rest = rest[~fits]
        return found

    def shifted(self, facts: _Facts, turned: _Placed, one: _Index, two: _Index) -> Bools:
        """Whether some shift of the turned P2 (rows ``two``) fits P1 (rows ``one``)."""
        found = np.zeros(len(one), np.bool_)
        pinned = np.zeros(len(one), np.bool_)
        if self.pins is not None:
            pinned = facts.counted[one] >= self.pins
            rows = np.flatnonzero(pinned)
            for block in range(0, len(rows), _PIN_BLOCK):
                part = rows[block : block + _PIN_BLOCK]
                found[part] = self.pinned(facts, turned, one[part], two[part])
        rows = np.flatnonzero(~pinned)
        for dy in range(-7, 8):
            for dx in range(-7, 8):
                if not len(rows):
                    return found
                fits = _fits(self.node, facts, turned, one[rows], two[rows], dx, dy)
                found[rows[fits]] = True
                rows = rows[~fits]
        return found

    def pinned(self, facts: _Facts, turned: _Placed, one: _Index, two: _Index) -> Bools:
        """Where P1 holds more counted pieces than the missing bound: of any bound + 1 of
        them (the pins) one is not missing, so only the shifts that put a P2 piece of its
        kind on a pin can fit.  The pins are taken in :data:`PIN_ORDER`, rare kinds
        first, each kind's squares in order; every pair's shifts are tried at once."""
        assert self.pins is not None
        shifts: list[tuple[_Index, NDArray[np.int64], NDArray[np.int64]]] = []
        left = np.full(len(one), self.pins, np.int64)
        for kind in self.pin_kinds:
            rows = np.flatnonzero(left > 0)
            targets = facts.kind(kind)[one[rows]] & self.allowable
            while len(rows):
                some = targets != 0
                rows, targets = rows[some], targets[some]
                if not len(rows):
                    break
                pin = _lowest(targets)
                shifts += _onto(_square_of(pin), rows, turned.kind(kind)[two[rows]])
                left[rows] -= 1
                more = left[rows] > 0
                rows, targets = rows[more], (targets ^ pin)[more]
        found = np.zeros(len(one), np.bool_)
        if shifts:
            rows, dx, dy = (np.concatenate(parts) for parts in zip(*shifts, strict=True))
            fits = _fits(self.node, facts, turned, one[rows], two[rows], dx, dy)
            found[rows[fits]] = True
        return found


def _lowest(squares: Squares) -> Squares:
    """The lowest square of each set, as a set."""
    return squares & (~squares + np.uint64(1))


def _square_of(single: Squares) -> NDArray[np.int64]:
    """The square of each set of one square."""
    return ba.popcount(single - np.uint64(1)).astype(np.int64)


def _onto(
    target: NDArray[np.int64], rows: _Index, sources: Squares
) -> list[tuple[_Index, NDArray[np.int64], NDArray[np.int64]]]:
    """The shifts that move one of ``sources`` onto ``target``, with their rows."""
    shifts = []
    while len(rows):
        some = sources != 0
        rows, sources, target = rows[some], sources[some], target[some]
        if not len(rows):
            break
        low = _lowest(sources)
        source = _square_of(low)
        shifts.append((rows, (target & 7) - (source & 7), (target >> 3) - (source >> 3)))
        sources ^= low
    return shifts


#: How many pinned pairs are tried at once (each may bring a few dozen shifts, each
#: shift some ten sets of 8 bytes: a few tens of MB at most).
_PIN_BLOCK = 16384

_Index = NDArray[np.intp]


def _fits(
    node: Relation,
    facts: _Facts,
    placed: _Placed,
    one: Rows,
    two: Rows,
    dx: int | NDArray[np.int64] = 0,
    dy: int | NDArray[np.int64] = 0,
) -> Bools:
    """The reference rule's ``compatible``: P2 (rows ``two`` of ``placed``, moved
    ``dx`` files and ``dy`` ranks) holds no other piece than P1 on an allowable square,
    and the missing and new pieces are as many as the relation says."""
    allowable = np.uint64(node.allowable)
    move = _Move(dx, dy)
    occupied1, occupied2 = facts.occupied[one], move(placed.occupied[two])
    differ = _differing(facts.planes, one, placed.planes, two, move)
    ok = (occupied1 & occupied2 & differ & allowable) == 0
    missing = occupied1 & ~occupied2 & allowable & facts.missing[one]
    ok &= _within(ba.popcount(missing), node.missing[1:])
    new = occupied2 & ~occupied1 & allowable & move(placed.new[two])
    ok &= _within(ba.popcount(new), node.new[1:])
    return ok


class _Move:
    """A shift of square sets by ``dx`` files and ``dy`` ranks, one for all or one per
    set; squares moved off the board vanish."""

    def __init__(self, dx: int | NDArray[np.int64], dy: int | NDArray[np.int64]) -> None:
        self.still = np.isscalar(dx) and dx == 0 and dy == 0
        step = np.asarray(dx + 8 * dy, np.int64)
        self.keep = _KEEP_FILES[np.asarray(dx, np.int64) + 7]
        self.up = np.maximum(step, 0).astype(np.uint64)
        self.down = np.maximum(-step, 0).astype(np.uint64)

    def __call__(self, squares: Squares) -> Squares:
        if self.still:
            return squares
        kept = squares & self.keep
        # One of the two steps is 0: a set moves up or down, not both.
        return (kept << self.up) >> self.down


#: Per files moved (-7..7, from index 0), the files whose squares stay on the board.
_KEEP_FILES = np.array([KEEP_FILES[dx] for dx in range(-7, 8)], np.uint64)


class _Placed:
    """P2's pieces as they stand, or turned: what :func:`_fits` reads of them."""

    def __init__(self, facts: _Facts, turn: Callable[[Squares], Squares]) -> None:
        self._facts, self._turn = facts, turn
        self.occupied = turn(facts.occupied)
        self.planes = tuple(turn(plane) for plane in facts.planes)
        self.new = turn(facts.new)
        self._kinds: dict[int, Squares] = {}

    def kind(self, kind: int) -> Squares:
        """The squares of one kind of piece (0–11, as in a type set)."""
        found = self._kinds.get(kind)
        if found is None:
            found = self._kinds[kind] = self._turn(self._facts.kind(kind))
        return found


class _Facts:
    """What the pairs of some positions read, per position, made once."""

    def __init__(self, positions: Positions, node: Relation) -> None:
        self.positions = positions
        self.white_to_move = positions.white_to_move
        self.occupied = positions.occupied
        self.planes = _kind_planes(positions)
        self.missing = positions.content(node.missing[0] & ANY_PIECE)
        self.new = positions.content(node.new[0] & ANY_PIECE)
        # Each counted P1 piece is covered by a P2 piece of its kind or is missing
        # (or differs, which fails): P2 needs ``need`` pieces of those kinds at least.
        self.counted = ba.popcount(self.missing & np.uint64(node.allowable)).astype(np.int64)
        self.enough = ba.popcount(self.missing).astype(np.int64)
        bound = node.missing[2]
        self.need = np.maximum(self.counted - (bound if bound is not None else 64), 0)
        self.unturned = _Placed(self, lambda squares: squares)
        self._turned: dict[Dihedral, _Placed] = {Dihedral.IDENTITY: self.unturned}

    def kind(self, kind: int) -> Squares:
        return self.positions.pieces(kind % 6 + 1, kind < 6)

    def turned(self, dihedral: Dihedral) -> _Placed:
        """P2's pieces turned by ``dihedral``, made once."""
        found = self._turned.get(dihedral)
        if found is None:
            found = self._turned[dihedral] = _Placed(
                self, lambda squares: ba.dihedral(dihedral, squares)
            )
        return found


def _differing(
    planes1: tuple[Squares, ...],
    one: Rows,
    planes2: tuple[Squares, ...],
    two: Rows,
    move: Callable[[Squares], Squares] = lambda squares: squares,
) -> Squares:
    """The squares whose pieces differ between two placements (empty squares too), the
    second moved by ``move``."""
    differ = planes1[0][one] ^ move(planes2[0][two])
    for plane1, plane2 in zip(planes1[1:], planes2[1:], strict=True):
        differ |= plane1[one] ^ move(plane2[two])
    return differ


def _last_candidate(positions: Positions, facts: _Facts, bound: int | None) -> _Index:
    """Per position, the last row of its game that may relate to it: a later position
    needs :attr:`_Facts.need` pieces of the kinds counted as missing."""
    last = _last_row(positions)
    if bound is None or not positions.size:
        return last
    # The most such pieces from each row to its game's end, as a key that rises along
    # the rows: the game's index, less that most.
    most = np.maximum.accumulate((facts.enough - 128 * positions.game_index)[::-1])[::-1]
    most += 128 * positions.game_index
    key = 128 * positions.game_index - most
    wanted = 128 * positions.game_index - facts.need
    return np.minimum(np.searchsorted(key, wanted, side="right") - 1, last)


def _kind_planes(positions: Positions) -> tuple[Squares, ...]:
    """Four bit planes that number each square's piece (1–12, 0 for empty): two squares
    hold the same piece exactly when the planes agree on them."""
    planes = [np.zeros(positions.size, np.uint64) for _ in range(4)]
    for colour in (chess.WHITE, chess.BLACK):
        for piece_type in chess.PIECE_TYPES:
            number = piece_type + (0 if colour == chess.WHITE else 6)
            squares = positions.pieces(piece_type, colour)
            for bit, plane in enumerate(planes):
                if number >> bit & 1:
                    plane |= squares
    return tuple(planes)


def _last_row(positions: Positions) -> NDArray[np.intp]:
    """Per position, the row of its game's last position."""
    ends = np.flatnonzero(positions.last)
    return ends[positions.game_index]


def _within(counts: NDArray[np.uint8], bounds: Bounds) -> Bools:
    """``lo <= count <= hi`` (hi None: no limit; no bounds: always)."""
    if bounds is None:
        return np.ones(len(counts), np.bool_)
    lo, hi = bounds
    found = counts >= lo
    if hi is not None:
        found &= counts <= hi
    return found
