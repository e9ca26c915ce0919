"""The array form of the legacy ``:relation`` (semantics: S-relation, decision L18), and of
the ``echo`` the translator writes for an untransformed one.

A position P1 holds when some later position P2 of its game's main line stands in the
relation to it.  Every pair of a game is compared, all games at once, a distance at a
time: first each position with the next one, then with the one two plies on, and so on,
a position dropping out once a P2 is found or its game has no position that far on.

A relation whose P2 may be shifted or turned stays row only: it would compare each pair
under up to 1,800 placements (the row form pins most of them down piece by piece).  So
does one into variations, which the index does not store.

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

import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.core.relation_echo import relation_of
from cqllegacy.core.tree import Echo, Relation, RelationScope, RelationSideToMove
from cqllegacy.evaluator.arrays.compiler import ArrayCompiler, _form
from cqllegacy.evaluator.arrays.positions import ArrayFn, Bools, Positions, RowOnly, Squares
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.pieces import ANY_PIECE, TypeSet

__all__: list[str] = []

Bounds = tuple[int, int | None] | None
#: Some rows of the positions: their entries, or a slice.
Rows = NDArray[np.intp] | slice


@_form(Relation)
def _relation(c: ArrayCompiler, node: Relation) -> ArrayFn:
    if node.shift or node.flip:
        raise RowOnly("a relation whose later position may be shifted or turned")
    if node.scope is not RelationScope.MAINLINE:
        raise RowOnly("a relation into variations, which the index does not store")
    pair = _Pairs(node)

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
        facts = _Facts(positions, self.missing_types, self.new_types)
        holds = np.zeros(positions.size, np.bool_)
        last = _last_row(positions)
        distance = 1
        waiting = np.flatnonzero(positions.rows + distance <= last)
        size = positions.size
        while len(waiting):
            if 2 * len(waiting) >= size - distance:
                # Most rows still wait: comparing the two whole slices costs less than
                # gathering the rows.
                related = self.related(facts, slice(0, -distance), slice(distance, size))[waiting]
            else:
                related = self.related(facts, waiting, waiting + distance)
            holds[waiting[related]] = True
            distance += 1
            waiting = waiting[~related]
            waiting = waiting[waiting + distance <= last[waiting]]
        return holds

    def related(self, facts: _Facts, one: Rows, two: Rows) -> Bools:
        """Whether P2 (rows ``two``) relates to P1 (rows ``one``, as many), as the
        reference rule's ``_RelationTest.related`` says with no transform: the side to
        move, no allowable square with two different pieces, the missing and new pieces
        counted, and the ``original…`` counts."""
        node = self.node
        ok = self._sides(facts.white_to_move[one], facts.white_to_move[two])
        occupied1, occupied2 = facts.occupied[one], facts.occupied[two]
        differ = np.zeros(len(occupied1), np.uint64)
        for plane in facts.planes:
            differ |= plane[one] ^ plane[two]
        both = occupied1 & occupied2
        same = both & ~differ
        ok &= (both & differ & self.allowable) == 0
        missing = occupied1 & ~occupied2 & self.allowable & facts.missing[one]
        ok &= _within(ba.popcount(missing), node.missing[1:])
        new = occupied2 & ~occupied1 & self.allowable & facts.new[two]
        ok &= _within(ba.popcount(new), node.new[1:])
        if node.original_different is not None:
            different = (occupied1 ^ occupied2) | (both & differ)
            ok &= _within(ba.popcount(different & self.allowable), node.original_different)
        if node.original_same is not None:
            ok &= _within(ba.popcount(same & self.allowable), node.original_same)
        return ok

    def _sides(self, first: Bools, second: Bools) -> Bools:
        rule = self.node.side_to_move
        if rule is RelationSideToMove.IGNORE:
            return np.ones(len(first), np.bool_)
        return (first == second) if rule is RelationSideToMove.SAME else (first != second)


class _Facts:
    """What the pairs of some positions read, per position, made once."""

    def __init__(self, positions: Positions, missing: TypeSet, new: TypeSet) -> None:
        self.white_to_move = positions.white_to_move
        self.occupied = positions.occupied
        self.planes = _kind_planes(positions)
        self.missing = positions.content(missing)
        self.new = positions.content(new)


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
