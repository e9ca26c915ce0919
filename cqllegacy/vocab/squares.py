"""Square sets and square maps: the one table every stage shares.

A square set is a plain ``int`` bitboard in python-chess numbering (``a1`` = bit 0,
``h1`` = bit 7, ``h8`` = bit 63).  Square maps are named after **CQL**, not after
python-chess, whose names run the other way round (its ``flip_vertical`` mirrors
ranks, which CQL calls the *horizontal* flip).

>>> format_squares(parse_squares("a-h1-2,f6"))
'[a-h1-2,f6]'
>>> format_squares(Dihedral.REFLECT_A1H8.map_set(parse_squares("a-h1-2,f6,h7")))
'[a-b1-8,f6,g8]'
>>> sorted(square_name(s) for s in iter_squares(Dihedral.orbit_of_set(parse_squares("c2"))))
['b3', 'b6', 'c2', 'c7', 'f2', 'f7', 'g3', 'g6']
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import chess

SquareSet = int

EMPTY: SquareSet = 0
FULL: SquareSet = chess.BB_ALL
#: The light squares (a1 is dark; b1 and a2 are light), CQL 6.1 ``light``.
LIGHT_SQUARES: SquareSet = chess.BB_LIGHT_SQUARES
FILES = "".join(chess.FILE_NAMES)
RANKS = "".join(chess.RANK_NAMES)
BB_FILES: tuple[SquareSet, ...] = tuple(chess.BB_FILES)
BB_RANKS: tuple[SquareSet, ...] = tuple(chess.BB_RANKS)
EDGE_FILE_A, EDGE_FILE_H = chess.BB_FILE_A, chess.BB_FILE_H
EDGE_RANK_1, EDGE_RANK_8 = chess.BB_RANK_1, chess.BB_RANK_8

# python-chess's own functions under the names the stages read (the same code: its
# ``scan_forward`` is the loop this module had, its ``popcount`` is ``int.bit_count``).
#: Square index of a file and a rank, both 0..7.
square = chess.square
file_of = chess.square_file
rank_of = chess.square_rank
#: The name of a square: ``square_name(chess.E4) == "e4"``.
square_name = chess.square_name
#: The squares of a square set in increasing order.
iter_squares = chess.scan_forward
popcount = chess.popcount


def rectangle(file_lo: int, file_hi: int, rank_lo: int, rank_hi: int) -> SquareSet:
    """All squares with file in ``file_lo..file_hi`` and rank in ``rank_lo..rank_hi``."""
    files = 0
    for f in range(file_lo, file_hi + 1):
        files |= BB_FILES[f]
    ranks = 0
    for r in range(rank_lo, rank_hi + 1):
        ranks |= BB_RANKS[r]
    return files & ranks


# --------------------------------------------------------------------------------------
# Dihedral maps and directions
# --------------------------------------------------------------------------------------


def _rot90(bb: SquareSet) -> SquareSet:
    # Counter-clockwise quarter turn (f, r) -> (7 - r, f): a1 -> h1.
    return chess.flip_diagonal(chess.flip_vertical(bb))


def _rot270(bb: SquareSet) -> SquareSet:
    # Clockwise quarter turn (f, r) -> (r, 7 - f): a1 -> a8.
    return chess.flip_vertical(chess.flip_diagonal(bb))


def _rot180(bb: SquareSet) -> SquareSet:
    return chess.flip_vertical(chess.flip_horizontal(bb))


class Dihedral(enum.Enum):
    """The eight symmetries of the board, named as CQL names them.

    Each member carries its square-set map and the map of a direction vector
    ``(dx, dy)`` (files right, ranks up).

    >>> square_name(Dihedral.ROT90.map_square(chess.A1))
    'h1'
    >>> square_name(Dihedral.REFLECT_H.map_square(chess.F6))
    'f3'
    >>> square_name(Dihedral.REFLECT_V.map_square(chess.F6))
    'c6'
    """

    IDENTITY = ("identity", lambda bb: bb, lambda dx, dy: (dx, dy))
    ROT90 = ("rot90", _rot90, lambda dx, dy: (-dy, dx))
    ROT180 = ("rot180", _rot180, lambda dx, dy: (-dx, -dy))
    ROT270 = ("rot270", _rot270, lambda dx, dy: (dy, -dx))
    # Mirror in the horizontal bisector (a1 <-> a8); python-chess calls this flip_vertical.
    REFLECT_H = ("reflect_h", chess.flip_vertical, lambda dx, dy: (dx, -dy))
    # Mirror in the vertical bisector (a1 <-> h1); python-chess calls this flip_horizontal.
    REFLECT_V = ("reflect_v", chess.flip_horizontal, lambda dx, dy: (-dx, dy))
    REFLECT_A1H8 = ("reflect_a1h8", chess.flip_diagonal, lambda dx, dy: (dy, dx))
    REFLECT_H1A8 = ("reflect_h1a8", chess.flip_anti_diagonal, lambda dx, dy: (-dy, -dx))

    def __init__(
        self,
        label: str,
        set_map: Callable[[int], int],
        vector_map: Callable[[int, int], tuple[int, int]],
    ) -> None:
        self.label = label
        self._set_map = set_map
        self._vector_map = vector_map

    def map_set(self, bb: SquareSet) -> SquareSet:
        return self._set_map(bb)

    def map_square(self, sq: int) -> int:
        return self._set_map(1 << sq).bit_length() - 1

    def map_vector(self, dx: int, dy: int) -> tuple[int, int]:
        return self._vector_map(dx, dy)

    def swaps_ranks_and_files(self) -> bool:
        """True for the maps that turn ranks into files (diagonal flips, quarter turns)."""
        return self in _RANK_FILE_SWAPPERS

    def compose(self, inner: Dihedral) -> Dihedral:
        """The map ``self ∘ inner`` (``inner`` applied first)."""
        return _COMPOSE[(self, inner)]

    @staticmethod
    def orbit_of_set(bb: SquareSet) -> SquareSet:
        """Union of the images of ``bb`` under all eight maps."""
        out = 0
        for d in Dihedral:
            out |= d.map_set(bb)
        return out


_RANK_FILE_SWAPPERS = frozenset(
    {Dihedral.ROT90, Dihedral.ROT270, Dihedral.REFLECT_A1H8, Dihedral.REFLECT_H1A8}
)


def _build_composition() -> dict[tuple[Dihedral, Dihedral], Dihedral]:
    # b1 lies on no symmetry axis, so its image alone identifies a dihedral map.
    by_image = {d.map_square(chess.B1): d for d in Dihedral}
    return {
        (outer, inner): by_image[outer.map_square(inner.map_square(chess.B1))]
        for outer in Dihedral
        for inner in Dihedral
    }


_COMPOSE = _build_composition()


def color_swap_set(bb: SquareSet) -> SquareSet:
    """The square part of the colour swap: the horizontal-bisector mirror (a2 <-> a7)."""
    return chess.flip_vertical(bb)


class Direction(enum.Enum):
    """CQL direction words; compound ones stand for a set of basic vectors."""

    UP = ("up", ((0, 1),))
    DOWN = ("down", ((0, -1),))
    RIGHT = ("right", ((1, 0),))
    LEFT = ("left", ((-1, 0),))
    NORTHEAST = ("northeast", ((1, 1),))
    NORTHWEST = ("northwest", ((-1, 1),))
    SOUTHEAST = ("southeast", ((1, -1),))
    SOUTHWEST = ("southwest", ((-1, -1),))
    VERTICAL = ("vertical", ((0, 1), (0, -1)))
    HORIZONTAL = ("horizontal", ((1, 0), (-1, 0)))
    ORTHOGONAL = ("orthogonal", ((0, 1), (0, -1), (1, 0), (-1, 0)))
    DIAGONAL = ("diagonal", ((1, 1), (-1, 1), (1, -1), (-1, -1)))
    ANYDIRECTION = (
        "anydirection",
        ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)),
    )

    def __init__(self, word: str, vectors: tuple[tuple[int, int], ...]) -> None:
        self.word = word
        self.vectors = frozenset(vectors)

    @staticmethod
    def from_vectors(vectors: frozenset[tuple[int, int]]) -> Direction:
        return _DIRECTION_BY_VECTORS[vectors]

    def mapped(self, vector_map: Callable[[int, int], tuple[int, int]]) -> Direction:
        """This direction after a map of the plane (a dihedral map or the colour swap)."""
        return Direction.from_vectors(frozenset(vector_map(dx, dy) for dx, dy in self.vectors))

    @staticmethod
    def from_word(word: str) -> Direction:
        return _DIRECTION_BY_WORD[word]


_DIRECTION_BY_VECTORS = {d.vectors: d for d in Direction}
_DIRECTION_BY_WORD = {d.word: d for d in Direction}


def step(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    """Move every square of ``bb`` by ``(dx, dy)``; squares that leave the board drop out.

    >>> format_squares(step(parse_squares("[a1,g2,h8]"), 1, 1))
    '[b2,h3]'
    """
    # Whole files first: those the move pushes off the board are cleared before the
    # bits move (a file shift must not wrap into the next rank), then whole ranks.
    if dx > 0:
        bb = (bb & _KEEP_FOR_RIGHT[min(dx, 8)]) << dx
    elif dx < 0:
        bb = (bb & _KEEP_FOR_LEFT[min(-dx, 8)]) >> -dx
    if dy > 0:
        bb = (bb << (8 * dy)) & FULL
    elif dy < 0:
        bb >>= 8 * -dy
    return bb


def step_by_square(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    """:func:`step` one square at a time: its definition (the tests compare the two)."""
    out = 0
    for sq in iter_squares(bb):
        f, r = file_of(sq) + dx, rank_of(sq) + dy
        if 0 <= f < 8 and 0 <= r < 8:
            out |= 1 << square(f, r)
    return out


#: The files a move ``n`` files to the right (left) keeps on the board, by ``n`` (0..7+).
_KEEP_FOR_RIGHT: tuple[SquareSet, ...] = tuple(
    sum((BB_FILES[f] for f in range(8 - n)), 0) for n in range(9)
)
_KEEP_FOR_LEFT: tuple[SquareSet, ...] = tuple(
    sum((BB_FILES[f] for f in range(n, 8)), 0) for n in range(9)
)


# --------------------------------------------------------------------------------------
# Modern (CQL 6) shifts: per designator, with the full-rank / full-file rule (M1, M2)
# --------------------------------------------------------------------------------------


def modern_shift(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    """CQL 6 shift of one square designator by ``dx`` files and ``dy`` ranks.

    A square on a rank the designator covers completely ignores ``dx``; a square on a
    file it covers completely ignores ``dy`` (decision M2).  Squares that leave the
    board are dropped (M1); the caller treats an empty result as an invalid member.

    >>> format_squares(modern_shift(parse_squares("a-h2,c4"), 2, 3))
    '[a-h5,e7]'
    >>> format_squares(modern_shift(parse_squares("a1-8,c4"), 0, 3))
    '[a1-8,c7]'
    >>> modern_shift(parse_squares("d2,c4"), 7, 0)
    0
    """
    if dx == 0 and dy == 0:
        return bb
    if bb.bit_count() < 8:
        # No full rank or file: every square moves by (dx, dy), as in step.
        return step(bb, dx, dy)
    return modern_shift_by_square(bb, dx, dy)


def modern_shift_by_square(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    """:func:`modern_shift` one square at a time: its definition (the tests compare the
    two)."""
    full_ranks = 0
    full_files = 0
    for i in range(8):
        if bb & BB_RANKS[i] == BB_RANKS[i]:
            full_ranks |= BB_RANKS[i]
        if bb & BB_FILES[i] == BB_FILES[i]:
            full_files |= BB_FILES[i]
    out = 0
    for sq in iter_squares(bb):
        bit = 1 << sq
        sx = 0 if bit & full_ranks else dx
        sy = 0 if bit & full_files else dy
        f, r = file_of(sq) + sx, rank_of(sq) + sy
        if 0 <= f < 8 and 0 <= r < 8:
            out |= 1 << square(f, r)
    return out


# --------------------------------------------------------------------------------------
# Text: square designators shared by the legacy and the modern syntax
# --------------------------------------------------------------------------------------


class SquareSyntaxError(ValueError):
    """A square designator that is not well formed; ``offset`` points into the text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def _parse_part(text: str, pos: int, alphabet: str, allow_any: bool) -> tuple[int, int, int]:
    """Parse ``x`` or ``x-y`` (or ``?``) from ``alphabet``; return (lo, hi, new position)."""
    if pos < len(text) and text[pos] == "?" and allow_any:
        return 0, 7, pos + 1
    if pos >= len(text) or text[pos] not in alphabet:
        kind = "file a-h" if alphabet == FILES else "rank 1-8"
        got = repr(text[pos]) if pos < len(text) else "end of designator"
        raise SquareSyntaxError(f"expected a {kind}, found {got}", pos)
    lo = alphabet.index(text[pos])
    pos += 1
    hi = lo
    if pos + 1 < len(text) and text[pos] == "-" and text[pos + 1] in alphabet:
        hi = alphabet.index(text[pos + 1])
        pos += 2
    elif pos < len(text) and text[pos] == "-":
        kind = "file a-h" if alphabet == FILES else "rank 1-8"
        raise SquareSyntaxError(f"expected a {kind} after '-'", pos + 1)
    return min(lo, hi), max(lo, hi), pos


def parse_square_item(text: str, pos: int = 0, allow_any: bool = True) -> tuple[SquareSet, int]:
    """Parse one ``filepart rankpart`` item starting at ``pos``; return (set, new position)."""
    f_lo, f_hi, pos = _parse_part(text, pos, FILES, allow_any)
    r_lo, r_hi, pos = _parse_part(text, pos, RANKS, allow_any)
    return rectangle(f_lo, f_hi, r_lo, r_hi), pos


def parse_squares(text: str, allow_any: bool = True) -> SquareSet:
    """Parse a square designator: ``""`` (all squares), ``a1``, ``a-h1-2``, ``[a1,c?]``, ``[]``.

    Brackets are optional around a comma list here; the grammars decide what to demand.
    ``allow_any`` admits the legacy ``?`` file or rank.

    >>> format_squares(parse_squares("[c?,g?]"))
    '[c1-8,g1-8]'
    >>> parse_squares("[]")
    0
    """
    if text == "":
        return FULL
    body = text
    offset = 0
    if text.startswith("["):
        if not text.endswith("]"):
            raise SquareSyntaxError("missing ']' at the end of the square list", len(text))
        body = text[1:-1]
        offset = 1
        if body == "":
            return EMPTY
    out = 0
    pos = 0
    while True:
        try:
            bb, pos = parse_square_item(body, pos, allow_any)
        except SquareSyntaxError as exc:
            raise SquareSyntaxError(str(exc), exc.offset + offset) from None
        out |= bb
        if pos == len(body):
            return out
        if body[pos] != ",":
            raise SquareSyntaxError(f"unexpected {body[pos]!r} in square designator", pos + offset)
        pos += 1


def _rectangles(bb: SquareSet) -> list[tuple[int, int, int, int]]:
    """Cover ``bb`` with few rectangles (greedy, deterministic, may overlap)."""
    remaining = bb
    rects: list[tuple[int, int, int, int]] = []
    while remaining:
        sq = (remaining & -remaining).bit_length() - 1
        f0, r0 = file_of(sq), rank_of(sq)
        best = None
        for files_first in (True, False):
            rect = _grow(bb, f0, r0, files_first)
            area = (rect[1] - rect[0] + 1) * (rect[3] - rect[2] + 1)
            covered_new = popcount(rectangle(*rect) & remaining)
            key = (covered_new, area)
            if best is None or key > best[0]:
                best = (key, rect)
        assert best is not None
        rect = best[1]
        rects.append(rect)
        remaining &= ~rectangle(*rect)
    return rects


def _grow(bb: SquareSet, f0: int, r0: int, files_first: bool) -> tuple[int, int, int, int]:
    f1, r1 = f0, r0
    if files_first:
        while f1 < 7 and bb >> square(f1 + 1, r0) & 1:
            f1 += 1
        while r1 < 7 and rectangle(f0, f1, r1 + 1, r1 + 1) & ~bb == 0:
            r1 += 1
    else:
        while r1 < 7 and bb >> square(f0, r1 + 1) & 1:
            r1 += 1
        while f1 < 7 and rectangle(f1 + 1, f1 + 1, r0, r1) & ~bb == 0:
            f1 += 1
    return f0, f1, r0, r1


def _format_rect(f0: int, f1: int, r0: int, r1: int) -> str:
    files = FILES[f0] if f0 == f1 else f"{FILES[f0]}-{FILES[f1]}"
    ranks = RANKS[r0] if r0 == r1 else f"{RANKS[r0]}-{RANKS[r1]}"
    return files + ranks


def format_square_items(bb: SquareSet) -> list[str]:
    """The items of a compact spelling of ``bb``, ordered by file then rank of each corner."""
    rects = sorted(_rectangles(bb), key=lambda r: (r[0], r[2], r[1], r[3]))
    return [_format_rect(*r) for r in rects]


def format_squares(bb: SquareSet) -> str:
    """Compact text for a square set, valid in legacy and modern CQL.

    ``""`` for all 64 squares, ``[]`` for none, ``d4`` or ``a-h1`` for one rectangle,
    ``[a1,h8]`` otherwise.

    >>> format_squares(FULL), format_squares(EMPTY), format_squares(chess.BB_RANK_1)
    ('', '[]', 'a-h1')
    """
    if bb == FULL:
        return ""
    if bb == EMPTY:
        return "[]"
    items = format_square_items(bb)
    if len(items) == 1:
        return items[0]
    return "[" + ",".join(items) + "]"
