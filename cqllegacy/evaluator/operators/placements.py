"""The parts the relation operator (:mod:`~cqllegacy.evaluator.operators.relation`)
reads its placements with: a position's pieces as four bit planes of kinds, P2's pins and
the grids centred on them that a shift must match, and the squares a main line's moves
change (where a scan may skip to)."""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import chess

from cqllegacy.vocab.pieces import TypeSet

__all__ = [
    "ALL_SHIFTS",
    "BLACK_SPREAD",
    "ORIGINS",
    "PIN_ORDER",
    "WHITE_SPREAD",
    "Bounds",
    "Centred",
    "LineChanges",
    "LineSides",
    "Pinning",
    "Placement",
    "RelationMemo",
    "Row",
    "Unturned",
    "differing",
    "first_below",
    "grid_spread",
    "kind_boards",
    "kind_planes",
    "kinds_union",
    "later_in",
    "piece_kinds",
    "rarest",
    "shift_of",
    "skip",
]

Board = chess.Board

#: Every shift a board allows, files and ranks -7..7.
ALL_SHIFTS = tuple((dx, dy) for dy in range(-7, 8) for dx in range(-7, 8))


class Placement(NamedTuple):
    """What a relation compares of one placement (P1's or a turned P2's), read once.

    ``planes`` hold each piece's kind index (0..11, as in a type set) in binary, one
    bitboard per bit: two squares occupied in both placements hold the same piece exactly
    when every plane agrees there, four exclusive-ors instead of twelve intersections.
    """

    occupied: int  # occupied squares (the allowable ones, for P1)
    planes: tuple[int, int, int, int]
    counted: int  # squares of the kinds counted as missing (P1) or new (P2)
    kinds: tuple[int, ...]  # the 12 piece bitboards
    rarest: tuple[int, ...]  # P2: the kinds, those it holds fewest of first


#: The kinds in the order pins are taken from P1: kings, queens, rooks, bishops, knights,
#: pawns (those a side usually has fewest of first), White's before Black's.
PIN_ORDER = (5, 11, 4, 10, 3, 9, 2, 8, 1, 7, 0, 6)


_TYPE_BOARDS = tuple(
    operator.attrgetter(name)
    for name in ("pawns", "knights", "bishops", "rooks", "queens", "kings")
)
_COLOURS = operator.attrgetter("occupied_co")


def kind_boards(boards: Sequence[Board], kind: int) -> list[int]:
    """The pieces of ``kind`` (indexed like the bits of a type set) on each board.

    >>> kind_boards([chess.Board()], 5) == [chess.BB_E1], kind_boards([chess.Board()], 10)
    (True, [576460752303423488])
    """
    colours = map(operator.itemgetter(kind < 6), map(_COLOURS, boards))
    return list(map(operator.and_, map(_TYPE_BOARDS[kind % 6], boards), colours))


def piece_kinds(board: Board) -> tuple[int, ...]:
    """The 12 piece bitboards of ``board``, indexed like the bits of a type set (as
    :meth:`Context.piece_boards` reads them, without a call per kind)."""
    black, white = board.occupied_co
    pawns, knights, bishops = board.pawns, board.knights, board.bishops
    rooks, queens, kings = board.rooks, board.queens, board.kings
    return (
        pawns & white,
        knights & white,
        bishops & white,
        rooks & white,
        queens & white,
        kings & white,
        pawns & black,
        knights & black,
        bishops & black,
        rooks & black,
        queens & black,
        kings & black,
    )


class Pinning(NamedTuple):
    """What the pinned shifts of a relation read of a game, per position: by kind (made
    when first asked for) the pieces of that kind, the pieces of the kinds counted as
    new :func:`grid_spread`, and by kind (made when first asked for) :func:`_centres` of the
    pieces of that kind."""

    pieces: list[list[int] | None]
    spreads: list[int]
    centres: list[Centred | None]


class Centred(NamedTuple):
    """The pieces of one kind per position of a game: :func:`_centres` of them, and when
    no position holds two of them, the spread new pieces (:attr:`Pinning.spreads`)
    centred on the one (-1 where there is none) and its square."""

    centres: list[tuple[tuple[int, int], ...]]
    grids: list[int] | None
    sources: list[int]

    @classmethod
    def of(cls, placed: list[int], spreads: list[int]) -> Centred:
        centres = [_SINGLE[pieces] if pieces in _SINGLE else _centres(pieces) for pieces in placed]
        if max(map(int.bit_count, placed), default=0) > 1:
            return cls(centres, None, [])
        grids = [
            spread << found[0][0] if found else -1
            for spread, found in zip(spreads, centres, strict=True)
        ]
        return cls(centres, grids, [found[0][1] if found else -1 for found in centres])


class Unturned(NamedTuple):
    """What :meth:`RelationOperator.fits` reads of an unturned P2."""

    occupied: int
    planes: tuple[int, int, int, int]
    counted: int


def kind_planes(kinds: Sequence[int]) -> tuple[int, int, int, int]:
    _, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11 = kinds
    return (
        k1 | k3 | k5 | k7 | k9 | k11,
        k2 | k3 | k6 | k7 | k10 | k11,
        k4 | k5 | k6 | k7,
        k8 | k9 | k10 | k11,
    )


def rarest(kinds: Sequence[int]) -> tuple[int, ...]:
    return tuple(k for _, k in sorted((bb.bit_count(), k) for k, bb in enumerate(kinds)))


def kinds_union(kinds: Sequence[int], types: TypeSet) -> int:
    out = 0
    for i, bb in enumerate(kinds):
        if types >> i & 1:
            out |= bb
    return out


def differing(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """Squares whose kinds differ (meaningful where both placements are occupied)."""
    return (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])


def later_in(table: Any, p: int, main_chain: bool, off_chain: bool) -> list[int]:
    chain = []
    q = table.main_child[p]
    while q >= 0:
        chain.append(q)
        q = table.main_child[q]
    if not off_chain:
        return chain
    later = range(p + 1, table.subtree_end[p])
    if main_chain:
        return list(later)
    on_chain = set(chain)
    return [q for q in later if q not in on_chain]


def grid_spread(white: int, black: int) -> int:
    """The squares ``white`` and ``black`` on grids 16 files wide, rank ``r`` in bits
    ``16 r .. 16 r + 7`` (so that a placement moved by up to seven files in either
    direction keeps its ranks apart), the black grid 256 bits above the white one (so
    that one intersection compares both colours, however far the grids are moved).

    >>> grid_spread(1 << 8, 0) == 1 << 16, grid_spread(1 << 63, 0) == 1 << 119
    (True, True)
    >>> grid_spread(0, 1 << 9) == 1 << (256 + 17)
    True
    """
    grid = bytearray(48)
    grid[0:16:2] = white.to_bytes(8, "little")
    grid[32:48:2] = black.to_bytes(8, "little")
    return int.from_bytes(grid, "little")


#: :func:`grid_spread` of one white piece, of one black piece, on each square.
WHITE_SPREAD = tuple(grid_spread(1 << square, 0) for square in range(64))
BLACK_SPREAD = tuple(grid_spread(0, 1 << square) for square in range(64))


def _origin(square: int) -> int:
    """How far to move a :func:`grid_spread` grid so that ``square`` lands on the grid's
    centre (file 7, rank 7 of the 15 x 15 squares a shift can reach): two placements
    each centred on one of their squares line up as the shift that takes the one square
    onto the other."""
    return (7 - (square >> 3)) * 16 + (7 - (square & 7))


def shift_of(target: int, source: int) -> tuple[int, int]:
    """The shift that moves square ``source`` onto ``target``."""
    return (target & 7) - (source & 7), (target >> 3) - (source >> 3)


#: :func:`_origin` of each square.
ORIGINS = tuple(_origin(square) for square in range(64))

#: :func:`_centres` of the bitboards of no square or one.
_SINGLE = {0: (), **{1 << square: ((_origin(square), square),) for square in range(64)}}


def _centres(pieces: int) -> tuple[tuple[int, int], ...]:
    """For each square of ``pieces``: :func:`_origin` and the square.

    >>> _centres(0), _centres(1 << 63), _centres(3)
    ((), ((0, 63),), ((119, 0), (118, 1)))
    """
    single = _SINGLE.get(pieces)
    if single is not None:
        return single
    found = []
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        square = low.bit_length() - 1
        found.append((_origin(square), square))
    return tuple(found)


#: A placement for a relation without shift or flip: side to move, occupied squares,
#: white squares, three bit planes of the piece type, the squares counted as missing and
#: as new (all but the side and the white squares on the allowable squares only).
Row = tuple[bool, int, int, int, int, int, int, int]


def _square_changes(rows: Sequence[Row], end: int) -> list[list[int]]:
    """For each square, the positions ``1 .. end - 1`` of a line whose content there
    (occupied, colour, piece type) differs from the position before.

    >>> e2, e4 = 1 << 12, 1 << 28
    >>> rows = [(True, e2, e2, e2, 0, 0, 0, 0), (False, e4, e4, e4, 0, 0, 0, 0)] * 2
    >>> found = _square_changes(rows, 4)
    >>> found[12], found[28], found[0]
    ([1, 2, 3], [1, 2, 3], [])
    """
    found: list[list[int]] = [[] for _ in range(64)]
    _, o, w, x, y, z, _, _ = rows[0]
    for q in range(1, end):
        _, o2, w2, x2, y2, z2, _, _ = rows[q]
        changed = (o ^ o2) | (w ^ w2) | (x ^ x2) | (y ^ y2) | (z ^ z2)
        while changed:
            low = changed & -changed
            found[low.bit_length() - 1].append(q)
            changed ^= low
        o, w, x, y, z = o2, w2, x2, y2, z2
    return found


def skip(moments: list[list[int]], blocked: int, q: int, end: int) -> int:
    """How far a scan at ``q`` may skip: each square of ``blocked`` fails every position
    until its content next changes, so the latest of those changes is a safe next
    position (``end`` when one of them never changes again).

    >>> skip([[3, 9]] + [[5]] * 63, 0b11, 4, 20)
    9
    """
    target = q + 1
    while blocked:
        low = blocked & -blocked
        found = moments[low.bit_length() - 1]
        at = bisect.bisect_right(found, q)
        if at == len(found):
            return end
        target = max(target, found[at])
        blocked ^= low
    return target


class LineChanges(NamedTuple):
    """When the squares of a line change: per square the positions where its content
    differs from the position before (``moments``), and the changed squares as bits in
    the order of their last change (``settled``, at positions ``last``)."""

    moments: list[list[int]]
    settled: list[int]
    last: list[int]

    @classmethod
    def of(cls, rows: Sequence[Row], end: int) -> LineChanges:
        moments = _square_changes(rows, end)
        ordered = sorted((found[-1], sq) for sq, found in enumerate(moments) if found)
        return cls(moments, [1 << sq for _, sq in ordered], [at for at, _ in ordered])

    def horizon(self, blocked_at_end: int, p: int, end: int) -> int:
        """The first position after ``p`` from which a square of ``blocked_at_end`` (the
        squares that fail against the line's last position) keeps its last content, and
        so fails for good; ``end`` when there is none.

        Such a square changed after ``p`` (its content at ``p`` differs from the last
        one), so it is found among the squares settled after ``p``.
        """
        if not blocked_at_end:
            return end
        settled, last = self.settled, self.last
        for i in range(bisect.bisect_right(last, p), len(last)):
            if settled[i] & blocked_at_end:
                return last[i]
        return end


class RelationMemo(NamedTuple):
    """What a relation remembers of one game: P1 placements by position, turned P2
    placements by (position, dihedral index), the answers by position."""

    firsts: dict[int, Placement]
    turns: dict[tuple[int, int], Placement]
    answers: dict[int, bool]


class LineSides(NamedTuple):
    """The main-line positions by side to move (``None``: all of them), and where the
    pieces counted as missing first fall below each number (:func:`first_below`)."""

    by_side: dict[bool | None, list[int]]
    first_below: list[int] | None


def first_below(having: Sequence[int]) -> list[int] | None:
    """For each number ``n`` up to the first count, the first index whose count is below
    ``n`` (``len(having)`` when none is), if the counts never grow; else None.

    >>> first_below([3, 3, 1, 0]), first_below([1, 2])
    ([4, 3, 2, 2], None)
    """
    if any(a < b for a, b in itertools.pairwise(having)):
        return None
    top = having[0] if having else 0
    found = [len(having)] * (top + 1)
    for i, count in enumerate(having):
        while top > count:
            found[top] = i
            top -= 1
    return found


class Bounds(NamedTuple):
    lo: int
    hi: int | None

    def admit(self, value: int) -> bool:
        return self.lo <= value and (self.hi is None or value <= self.hi)
