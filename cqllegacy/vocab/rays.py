"""Board geometry for the evaluator: fast translation of square sets, rays and lines.

All functions take and return ``int`` bitboards in python-chess numbering.

>>> from cqllegacy.vocab.squares import format_squares, parse_squares
>>> format_squares(translate(parse_squares("[a1,h2,c8]"), 1, 0))
'[b1,d8]'
>>> format_squares(between_squares(parse_squares("a1"), parse_squares("[c3,h7]")))
'b2'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import chess

from cqllegacy.vocab.squares import BB_FILES, FULL, file_of, iter_squares, rank_of, square

__all__ = [
    "BASIC_VECTORS",
    "between_squares",
    "is_diagonal",
    "line_squares",
    "ray_count",
    "ray_ends",
    "translate",
]

Vector = tuple[int, int]

BASIC_VECTORS: tuple[Vector, ...] = (
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
)


def _files_kept(dx: int) -> int:
    """The squares that stay on the board when moved ``dx`` files (|dx| <= 7)."""
    kept = 0
    for f in range(8):
        if 0 <= f + dx < 8:
            kept |= BB_FILES[f]
    return kept


#: Per file shift (-7..7), the squares that stay on the board.
KEEP_FILES = {dx: _files_kept(dx) for dx in range(-7, 8)}


def translate(bb: int, dx: int, dy: int) -> int:
    """Every square of ``bb`` moved ``dx`` files and ``dy`` ranks; off-board squares drop.

    The bitboard counterpart of :func:`cqllegacy.vocab.squares.step` (tested equal to it).
    """
    if not -8 < dx < 8 or not -8 < dy < 8:
        return 0
    offset = dx + 8 * dy
    bb &= KEEP_FILES[dx]
    return (bb << offset if offset >= 0 else bb >> -offset) & FULL


def _line(sq: int, dx: int, dy: int) -> tuple[int, ...]:
    out = []
    f, r = file_of(sq) + dx, rank_of(sq) + dy
    while 0 <= f < 8 and 0 <= r < 8:
        out.append(square(f, r))
        f, r = f + dx, r + dy
    return tuple(out)


_LINES = {(sq, v): _line(sq, *v) for sq in range(64) for v in BASIC_VECTORS}


def line_squares(sq: int, vector: Vector) -> tuple[int, ...]:
    """The squares from ``sq`` (exclusive) to the board's edge in direction ``vector``."""
    return _LINES[(sq, vector)]


def is_diagonal(vector: Vector) -> bool:
    return vector[0] != 0 and vector[1] != 0


def _visible(sq: int, vector: Vector, occupied: int) -> Iterable[int]:
    """Squares along ``vector`` from ``sq`` up to and including the first occupied one."""
    for target in _LINES[(sq, vector)]:
        yield target
        if occupied >> target & 1:
            return


def ray_ends(occupied: int, sets: Sequence[int], vectors: Iterable[Vector]) -> int:
    """Modern ``ray`` (semantics: S-attacks): the end squares of every valid ray.

    A ray is a run of distinct squares q1 … qn on one line in one direction with
    ``qi`` in ``sets[i]`` and only empty squares strictly between consecutive ones.

    >>> from cqllegacy.vocab.squares import format_squares, parse_squares
    >>> occ = parse_squares("[a1,a4,a8]")
    >>> format_squares(ray_ends(occ, [parse_squares("a1"), occ], [(0, 1)]))
    'a4'
    """
    ends = 0
    for vector in vectors:
        frontier = sets[0]
        for targets in sets[1:]:
            reached = 0
            for sq in iter_squares(frontier):
                for nxt in _visible(sq, vector, occupied):
                    if targets >> nxt & 1:
                        reached |= 1 << nxt
            frontier = reached
            if not frontier:
                break
        ends |= frontier
    return ends


def _assignable(inner: Sequence[int], designators: Sequence[int], occupied: int) -> bool:
    """Can ``designators`` take distinct squares of ``inner`` in order, every other square empty?"""
    wanted = len(designators)
    placed = {0}
    for sq in inner:
        bit = 1 << sq
        step: set[int] = set()
        for j in placed:
            if not occupied & bit:
                step.add(j)
            if j < wanted and designators[j] & bit:
                step.add(j + 1)
        placed = step
        if not placed:
            return False
    return wanted in placed


def ray_count(
    occupied: int,
    sets: Sequence[int],
    vectors: Iterable[Vector],
    line_pieces: tuple[int, int] | None = None,
) -> int:
    """Legacy ray counting (decision L20): the number of (start, end, direction) rays.

    ``sets[0]`` holds the start, ``sets[-1]`` the end; the inner sets take distinct inner
    squares in order and every unassigned inner square is empty.  ``line_pieces`` =
    (orthogonal sliders, diagonal sliders) restricts the start square (``:rayattack``).

    >>> from cqllegacy.vocab.squares import parse_squares
    >>> rooks = parse_squares("[a1,a8]")
    >>> ray_count(rooks, [rooks, rooks], [(0, 1), (0, -1)])
    2
    """
    first, *inner, last = sets
    count = 0
    for vector in vectors:
        starts = first
        if line_pieces is not None:
            starts &= line_pieces[1] if is_diagonal(vector) else line_pieces[0]
        for start in iter_squares(starts):
            count += _rays_from(start, vector, inner, last, occupied)
    return count


def _rays_from(start: int, vector: Vector, inner: Sequence[int], last: int, occupied: int) -> int:
    count = 0
    walked: list[int] = []
    blockers = 0
    for sq in _LINES[(start, vector)]:
        if last >> sq & 1 and len(walked) >= len(inner) and _assignable(walked, inner, occupied):
            count += 1
        walked.append(sq)
        if occupied >> sq & 1:
            blockers += 1
            # Every occupied inner square needs a designator of its own.
            if blockers > len(inner):
                break
    return count


def between_squares(left: int, right: int) -> int:
    """Squares strictly inside a queen line from some square of ``left`` to one of ``right``."""
    out = 0
    for x in iter_squares(left):
        for y in iter_squares(right):
            out |= chess.between(x, y)
    return out
