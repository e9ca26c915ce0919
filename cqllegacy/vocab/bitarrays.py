"""Bitboard arithmetic over numpy arrays: one ``uint64`` per position.

The array counterpart of python-chess's bitboard helpers, named as python-chess names
them (``a1`` = bit 0, ``h8`` = bit 63): one call works on every position of an array at
once.  Shifts drop what leaves the board; sliders' attacks are occluded fills
(Kogge-Stone) over each position's occupancy; the board's symmetries are bit
permutations.  The tests compare every function with python-chess at every position of
real and generated games.

Only the position index imports this module (numpy is not loaded by a run without one).

>>> import chess
>>> knights = bitboards([chess.BB_B1 | chess.BB_G1, chess.BB_A8])
>>> [chess.SquareSet(int(bb)) == chess.SquareSet(expected) for bb, expected in zip(
...     knight_attacks(knights), [chess.BB_A3 | chess.BB_C3 | chess.BB_D2 | chess.BB_E2
...     | chess.BB_F3 | chess.BB_H3, chess.BB_B6 | chess.BB_C7])]
[True, True]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import attrs
import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.records import Record
from cqllegacy.vocab.squares import Dihedral

__all__ = [
    "Bitboards",
    "Placement",
    "PlacementArrays",
    "Squares",
    "attacked_by",
    "attacked_by_set",
    "attackers",
    "attackers_of_square",
    "between",
    "bishop_attacks",
    "bishop_attacks_from",
    "bitboards",
    "checkers",
    "color_swap_set",
    "contains",
    "dihedral",
    "either_attackers",
    "flip_anti_diagonal",
    "flip_diagonal",
    "flip_horizontal",
    "flip_vertical",
    "is_check",
    "king_attacks",
    "knight_attacks",
    "lsb",
    "msb",
    "pawn_attacks",
    "pieces_mask",
    "popcount",
    "queen_attacks",
    "ray",
    "rook_attacks",
    "rook_attacks_from",
    "shift",
    "shift_down",
    "shift_down_left",
    "shift_down_right",
    "shift_left",
    "shift_right",
    "shift_up",
    "shift_up_left",
    "shift_up_right",
    "slide",
    "square_bits",
]

#: One bitboard per position.
Bitboards = NDArray[np.uint64]
#: One square number per position (-1: none).
Squares = NDArray[np.integer]

_U = np.uint64
_ZERO = _U(0)
_ONE = _U(1)
_FULL = _U(chess.BB_ALL)
_NOT_A = _U(chess.BB_ALL & ~chess.BB_FILE_A)
_NOT_H = _U(chess.BB_ALL & ~chess.BB_FILE_H)


def bitboards(values: Iterable[int]) -> Bitboards:
    """An array of bitboards from Python ints.

    >>> bitboards([1, 1 << 63]).dtype
    dtype('uint64')
    """
    return np.fromiter(values, dtype=np.uint64)


# --------------------------------------------------------------------------------------
# Shifts
# --------------------------------------------------------------------------------------


def _moved(bb: Bitboards, step: int) -> Bitboards:
    """Every bit moved ``step`` places up (down when negative); bits pushed past either
    end vanish (no wrap: numpy's shifts of ``uint64`` drop them)."""
    if step >= 64 or step <= -64:
        return np.zeros_like(bb)
    if step >= 0:
        return np.left_shift(bb, _U(step))
    return np.right_shift(bb, _U(-step))


#: Per files moved right (left), 0..7, the files whose squares stay on the board.
_KEEP_RIGHT = tuple(_U(sum(chess.BB_FILES[: 8 - n])) for n in range(8))
_KEEP_LEFT = tuple(_U(sum(chess.BB_FILES[n:])) for n in range(8))


def shift(bb: Bitboards, files: int, ranks: int) -> Bitboards:
    """Every square moved ``files`` to the right and ``ranks`` up; squares pushed off
    the board vanish (as :func:`cqllegacy.vocab.squares.step`).

    >>> import chess
    >>> [chess.square_name(s) for s in chess.SquareSet(int(shift(
    ...     bitboards([chess.BB_A1 | chess.BB_G2 | chess.BB_H8]), 1, 1)[0]))]
    ['b2', 'h3']
    """
    if not (-8 < files < 8 and -8 < ranks < 8):
        return np.zeros_like(bb)
    if files > 0:
        bb = _moved(bb & _KEEP_RIGHT[files], files)
    elif files < 0:
        bb = _moved(bb & _KEEP_LEFT[-files], files)
    return _moved(bb, 8 * ranks)


def shift_up(bb: Bitboards) -> Bitboards:
    """One rank up (python-chess's ``shift_up``).

    >>> int(shift_up(bitboards([1 << 60 | 1]))[0])
    256
    """
    return _moved(bb, 8)


def shift_down(bb: Bitboards) -> Bitboards:
    """One rank down.

    >>> int(shift_down(bitboards([1 << 60 | 1]))[0]) == 1 << 52
    True
    """
    return _moved(bb, -8)


def shift_right(bb: Bitboards) -> Bitboards:
    """One file right (towards h); the h-file vanishes.

    >>> int(shift_right(bitboards([0x81]))[0])
    2
    """
    return _moved(bb & _NOT_H, 1)


def shift_left(bb: Bitboards) -> Bitboards:
    """One file left (towards a); the a-file vanishes.

    >>> int(shift_left(bitboards([0x81]))[0])
    64
    """
    return _moved(bb & _NOT_A, -1)


def shift_up_right(bb: Bitboards) -> Bitboards:
    """One square up and right (a1 → b2).

    >>> int(shift_up_right(bitboards([0x81]))[0])
    512
    """
    return _moved(bb & _NOT_H, 9)


def shift_up_left(bb: Bitboards) -> Bitboards:
    """One square up and left (h1 → g2).

    >>> int(shift_up_left(bitboards([0x81]))[0]) == 1 << 14
    True
    """
    return _moved(bb & _NOT_A, 7)


def shift_down_right(bb: Bitboards) -> Bitboards:
    """One square down and right (a8 → b7).

    >>> int(shift_down_right(bitboards([1 << 56]))[0]) == 1 << 49
    True
    """
    return _moved(bb & _NOT_H, -7)


def shift_down_left(bb: Bitboards) -> Bitboards:
    """One square down and left (h8 → g7).

    >>> int(shift_down_left(bitboards([1 << 63]))[0]) == 1 << 54
    True
    """
    return _moved(bb & _NOT_A, -9)


# --------------------------------------------------------------------------------------
# Symmetries: bit permutations (python-chess's formulas, on arrays)
# --------------------------------------------------------------------------------------


def flip_vertical(bb: Bitboards) -> Bitboards:
    """Ranks mirrored (a1 ↔ a8): a byte swap.  CQL's ``reflect_h``.

    >>> int(flip_vertical(bitboards([1]))[0]) == 1 << 56
    True
    """
    swapped: Bitboards = bb.byteswap()
    return swapped


def _swap(bb: Bitboards, width: int, mask: int) -> Bitboards:
    """Neighbouring groups of ``width`` bits exchanged where ``mask`` holds the lower."""
    m, w = _U(mask), _U(width)
    swapped: Bitboards = np.right_shift(bb, w) & m | np.left_shift(bb & m, w)
    return swapped


def flip_horizontal(bb: Bitboards) -> Bitboards:
    """Files mirrored (a1 ↔ h1).  CQL's ``reflect_v``.

    >>> int(flip_horizontal(bitboards([1]))[0])
    128
    """
    bb = _swap(bb, 1, 0x5555_5555_5555_5555)
    bb = _swap(bb, 2, 0x3333_3333_3333_3333)
    return _swap(bb, 4, 0x0F0F_0F0F_0F0F_0F0F)


def _delta_swap(bb: Bitboards, width: int, mask: int) -> Bitboards:
    """The bits ``width`` apart exchanged where ``mask`` holds the upper of the pair."""
    w = _U(width)
    t = (bb ^ np.left_shift(bb, w)) & _U(mask)
    swapped: Bitboards = bb ^ t ^ np.right_shift(t, w)
    return swapped


def flip_diagonal(bb: Bitboards) -> Bitboards:
    """Mirrored in the a1-h8 diagonal (b1 ↔ a2).  CQL's ``reflect_a1h8``.

    >>> int(flip_diagonal(bitboards([2]))[0])
    256
    """
    bb = _delta_swap(bb, 28, 0x0F0F_0F0F_0000_0000)
    bb = _delta_swap(bb, 14, 0x3333_0000_3333_0000)
    return _delta_swap(bb, 7, 0x5500_5500_5500_5500)


def flip_anti_diagonal(bb: Bitboards) -> Bitboards:
    """Mirrored in the h1-a8 diagonal (a1 ↔ h8).  CQL's ``reflect_h1a8``.

    >>> int(flip_anti_diagonal(bitboards([1]))[0]) == 1 << 63
    True
    """
    t = bb ^ np.left_shift(bb, _U(36))
    bb = bb ^ ((t ^ np.right_shift(bb, _U(36))) & _U(0xF0F0_F0F0_0F0F_0F0F))
    bb = _delta_swap(bb, 18, 0xCCCC_0000_CCCC_0000)
    return _delta_swap(bb, 9, 0xAA00_AA00_AA00_AA00)


def _rot90(bb: Bitboards) -> Bitboards:
    return flip_diagonal(flip_vertical(bb))


def _rot270(bb: Bitboards) -> Bitboards:
    return flip_vertical(flip_diagonal(bb))


def _rot180(bb: Bitboards) -> Bitboards:
    return flip_vertical(flip_horizontal(bb))


def _identity(bb: Bitboards) -> Bitboards:
    return bb


#: Each dihedral map as its square-set map on arrays (composed as squares.py composes).
_DIHEDRAL: dict[Dihedral, Callable[[Bitboards], Bitboards]] = {
    Dihedral.IDENTITY: _identity,
    Dihedral.ROT90: _rot90,
    Dihedral.ROT180: _rot180,
    Dihedral.ROT270: _rot270,
    Dihedral.REFLECT_H: flip_vertical,
    Dihedral.REFLECT_V: flip_horizontal,
    Dihedral.REFLECT_A1H8: flip_diagonal,
    Dihedral.REFLECT_H1A8: flip_anti_diagonal,
}


def dihedral(transform: Dihedral, bb: Bitboards) -> Bitboards:
    """``transform``'s map of each square set (:meth:`Dihedral.map_set` on arrays).

    >>> int(dihedral(Dihedral.ROT90, bitboards([1]))[0])  # a1 -> h1
    128
    """
    return _DIHEDRAL[transform](bb)


def color_swap_set(bb: Bitboards) -> Bitboards:
    """The square part of the colour swap (a2 ↔ a7), as
    :func:`cqllegacy.vocab.squares.color_swap_set`.

    >>> int(color_swap_set(bitboards([1 << 8]))[0]) == 1 << 48
    True
    """
    return flip_vertical(bb)


# --------------------------------------------------------------------------------------
# Counting and squares
# --------------------------------------------------------------------------------------

_M1, _M2, _M4 = _U(0x5555_5555_5555_5555), _U(0x3333_3333_3333_3333), _U(0x0F0F_0F0F_0F0F_0F0F)
_H01 = _U(0x0101_0101_0101_0101)


def _popcount_swar(bb: Bitboards) -> NDArray[np.uint8]:
    """Set bits of each value, by adding neighbouring counts (numpy before 2.0 has no
    ``bitwise_count``; the tests compare the two)."""
    x = bb - (np.right_shift(bb, _ONE) & _M1)
    x = (x & _M2) + (np.right_shift(x, _U(2)) & _M2)
    x = (x + np.right_shift(x, _U(4))) & _M4
    # The byte sums gathered in the top byte: the product wraps, as uint64 arrays do.
    counts: NDArray[np.uint8] = np.right_shift(x * _H01, _U(56)).astype(np.uint8)
    return counts


_bitwise_count: Callable[[Bitboards], NDArray[np.uint8]] | None = getattr(np, "bitwise_count", None)


def popcount(bb: Bitboards) -> NDArray[np.uint8]:
    """How many squares each set holds (python-chess's ``popcount``).

    >>> popcount(bitboards([0, 0x81, (1 << 64) - 1])).tolist()
    [0, 2, 64]
    """
    if _bitwise_count is not None:
        return _bitwise_count(bb)
    return _popcount_swar(bb)


def _smeared_down(bb: Bitboards) -> Bitboards:
    """Each value with every bit below its highest set bit set too."""
    for width in (1, 2, 4, 8, 16, 32):
        bb = bb | np.right_shift(bb, _U(width))
    return bb


def msb(bb: Bitboards) -> NDArray[np.int8]:
    """The highest square of each set, -1 for an empty one (python-chess's ``msb``).

    >>> msb(bitboards([0, 1, 0x81, 1 << 63])).tolist()
    [-1, 0, 7, 63]
    """
    return popcount(_smeared_down(bb)).astype(np.int8) - np.int8(1)


def lsb(bb: Bitboards) -> NDArray[np.int8]:
    """The lowest square of each set, -1 for an empty one (python-chess's ``lsb``).

    >>> lsb(bitboards([0, 1, 0x82, 1 << 63])).tolist()
    [-1, 0, 1, 63]
    """
    lowest = bb & (~bb + _ONE)
    below: NDArray[np.int8] = popcount(lowest - _ONE).astype(np.int8)
    # An empty set: the count of all 64 bits, less 65.
    found: NDArray[np.int8] = below - (bb == _ZERO).astype(np.int8) * np.int8(65)
    return found


def square_bits(squares: Squares) -> Bitboards:
    """The set of each square (empty for a negative one, python-chess's ``None``).

    >>> square_bits(np.array([0, 7, -1])).tolist()
    [1, 128, 0]
    """
    squares = np.asarray(squares)
    bits = np.left_shift(_ONE, np.clip(squares, 0, 63).astype(np.uint64))
    return np.where(squares >= 0, bits, _ZERO)


def contains(bb: Bitboards, squares: Squares) -> NDArray[np.bool_]:
    """Whether each set holds its position's square (False for a negative one).

    >>> contains(bitboards([0x81, 0x81, 0x81]), np.array([7, 6, -1])).tolist()
    [True, False, False]
    """
    found: NDArray[np.bool_] = (bb & square_bits(squares)) != _ZERO
    return found


_PAIR_FUNCTIONS = {"between": chess.between, "ray": chess.ray}


@functools.cache
def _square_table(name: str) -> NDArray[np.uint64]:
    """python-chess's ``between`` or ``ray`` of every pair of squares, a 64 × 64 array
    (made once, when first asked)."""
    function = _PAIR_FUNCTIONS[name]
    return np.array([[function(a, b) for b in chess.SQUARES] for a in chess.SQUARES], np.uint64)


def _pair_lookup(name: str, a: Squares, b: Squares) -> Bitboards:
    a, b = np.asarray(a), np.asarray(b)
    found = _square_table(name)[np.clip(a, 0, 63), np.clip(b, 0, 63)]
    kept: Bitboards = np.where((a >= 0) & (b >= 0), found, _ZERO)
    return kept


def between(a: Squares, b: Squares) -> Bitboards:
    """The squares strictly between ``a`` and ``b`` on a line (python-chess's
    ``between``; empty when they share none, or one is -1).

    >>> between(np.array([0, 0]), np.array([63, 10])).tolist() == [
    ...     chess.between(0, 63), 0]
    True
    """
    return _pair_lookup("between", a, b)


def ray(a: Squares, b: Squares) -> Bitboards:
    """The whole line through ``a`` and ``b``, edge to edge (python-chess's ``ray``;
    empty when they share none, or one is -1).

    >>> ray(np.array([0, 0]), np.array([9, 10])).tolist() == [chess.ray(0, 9), 0]
    True
    """
    return _pair_lookup("ray", a, b)


# --------------------------------------------------------------------------------------
# Attacks
# --------------------------------------------------------------------------------------


def pawn_attacks(color: chess.Color, pawns: Bitboards) -> Bitboards:
    """The squares the pawns ``pawns`` of ``color`` attack.

    >>> int(pawn_attacks(chess.WHITE, bitboards([chess.BB_A2]))[0]) == chess.BB_B3
    True
    """
    if color:
        return shift_up_left(pawns) | shift_up_right(pawns)
    return shift_down_left(pawns) | shift_down_right(pawns)


_KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING_STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def _leaps(bb: Bitboards, steps: Sequence[tuple[int, int]]) -> Bitboards:
    found = np.zeros_like(bb)
    for files, ranks in steps:
        found = found | shift(bb, files, ranks)
    return found


def knight_attacks(knights: Bitboards) -> Bitboards:
    """The squares the knights ``knights`` attack.

    >>> int(knight_attacks(bitboards([chess.BB_A1]))[0]) == chess.BB_B3 | chess.BB_C2
    True
    """
    return _leaps(knights, _KNIGHT_STEPS)


def king_attacks(kings: Bitboards) -> Bitboards:
    """The squares the kings ``kings`` attack.

    >>> int(king_attacks(bitboards([chess.BB_A1]))[0]) == chess.BB_A2 | chess.BB_B1 | chess.BB_B2
    True
    """
    return _leaps(kings, _KING_STEPS)


def slide(origins: Bitboards, occupied: Bitboards, files: int, ranks: int) -> Bitboards:
    """The squares a slider on each square of ``origins`` reaches in one direction (a
    step of ``files`` and ``ranks``, each -1..1): the empty ones and the first occupied
    one.  An occluded fill (Kogge-Stone): three doubling steps.

    >>> occupied = bitboards([chess.BB_A1 | chess.BB_A4])
    >>> int(slide(bitboards([chess.BB_A1]), occupied, 0, 1)[0]) == (
    ...     chess.BB_A2 | chess.BB_A3 | chess.BB_A4)
    True
    """
    step = files + 8 * ranks
    landing = _NOT_A if files > 0 else _NOT_H if files < 0 else _FULL
    reach = ~occupied & landing
    filled = origins
    for doubling in (1, 2, 4):
        filled = filled | (reach & _moved(filled, step * doubling))
        reach = reach & _moved(reach, step * doubling)
    return _moved(filled, step) & landing


def _slides(origins: Bitboards, occupied: Bitboards, steps: Sequence[tuple[int, int]]) -> Bitboards:
    found = np.zeros_like(origins)
    for files, ranks in steps:
        found = found | slide(origins, occupied, files, ranks)
    return found


_STRAIGHT = ((0, 1), (0, -1), (1, 0), (-1, 0))
_DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def rook_attacks(rooks: Bitboards, occupied: Bitboards) -> Bitboards:
    """The squares the rooks ``rooks`` attack over the occupancy ``occupied``.

    >>> int(rook_attacks(bitboards([chess.BB_A1]), bitboards([chess.BB_A2 | chess.BB_B1]))[0]
    ...     ) == chess.BB_A2 | chess.BB_B1
    True
    """
    return _slides(rooks, occupied, _STRAIGHT)


def bishop_attacks(bishops: Bitboards, occupied: Bitboards) -> Bitboards:
    """The squares the bishops ``bishops`` attack over the occupancy ``occupied``.

    >>> int(bishop_attacks(bitboards([chess.BB_A1]), bitboards([chess.BB_C3]))[0]
    ...     ) == chess.BB_B2 | chess.BB_C3
    True
    """
    return _slides(bishops, occupied, _DIAGONAL)


def queen_attacks(queens: Bitboards, occupied: Bitboards) -> Bitboards:
    """The squares the queens ``queens`` attack over the occupancy ``occupied``.

    >>> int(queen_attacks(bitboards([chess.BB_A1]), bitboards([-1 & chess.BB_ALL]))[0]
    ...     ) == chess.BB_A2 | chess.BB_B1 | chess.BB_B2
    True
    """
    return _slides(queens, occupied, _STRAIGHT + _DIAGONAL)


# --------------------------------------------------------------------------------------
# Attacks from one square per position: table lookups (quicker than fills for one piece)
# --------------------------------------------------------------------------------------


def _line_through(square: int, files: int, ranks: int) -> int:
    """The squares of the line through ``square`` along (files, ranks), but it."""
    found = 0
    for sign in (1, -1):
        f, r = chess.square_file(square), chess.square_rank(square)
        while True:
            f, r = f + sign * files, r + sign * ranks
            if not (0 <= f < 8 and 0 <= r < 8):
                break
            found |= chess.BB_SQUARES[chess.square(f, r)]
    return found


def _rank_attack(file: int, occupied: int) -> int:
    """A rook's attacks on the first rank from ``file`` over the rank's occupancy."""
    found = 0
    for step in (1, -1):
        f = file + step
        while 0 <= f < 8:
            found |= 1 << f
            if occupied >> f & 1:
                break
            f += step
    return found


@functools.cache
def _tables() -> dict[str, NDArray[np.uint64]]:
    """Per square (and for ranks, per occupancy of the rank): python-chess's leaper
    tables and the line masks the lookups use (made once, when first asked)."""

    def table(values: Iterable[int]) -> NDArray[np.uint64]:
        return np.fromiter(values, dtype=np.uint64)

    return {
        "knight": table(chess.BB_KNIGHT_ATTACKS),
        "king": table(chess.BB_KING_ATTACKS),
        "white_pawn": table(chess.BB_PAWN_ATTACKS[chess.WHITE]),
        "black_pawn": table(chess.BB_PAWN_ATTACKS[chess.BLACK]),
        "file": table(_line_through(sq, 0, 1) for sq in chess.SQUARES),
        "diagonal": table(_line_through(sq, 1, 1) for sq in chess.SQUARES),
        "anti_diagonal": table(_line_through(sq, 1, -1) for sq in chess.SQUARES),
        # Indexed by file * 256 + the rank's occupancy byte.
        "rank": table(_rank_attack(f, occ) for f in range(8) for occ in range(256)),
    }


def _quintessence(mask: Bitboards, bit: Bitboards, occupied: Bitboards) -> Bitboards:
    """A slider's attacks along one line with at most one square per rank (a file or a
    diagonal): the blockers above it by subtraction, those below by the same on the
    byte-swapped board ("hyperbola quintessence")."""
    forward = occupied & mask
    reverse = forward.byteswap() - bit.byteswap()
    forward = forward - bit
    found: Bitboards = (forward ^ reverse.byteswap()) & mask
    return found


def _rank_attacks(square: Squares, occupied: Bitboards) -> Bitboards:
    shift_to_rank = (square >> 3).astype(np.uint64) * _U(8)
    row = np.right_shift(occupied, shift_to_rank) & _U(0xFF)
    index = (square & 7).astype(np.intp) * 256 + row.astype(np.intp)
    found: Bitboards = np.left_shift(_tables()["rank"][index], shift_to_rank)
    return found


def _on_board(squares: Squares) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    squares = np.asarray(squares)
    return np.clip(squares, 0, 63).astype(np.intp), squares >= 0


def rook_attacks_from(squares: Squares, occupied: Bitboards) -> Bitboards:
    """The squares a rook on each position's square attacks (none for -1): as
    :func:`rook_attacks` of that one square, by lookups.

    >>> int(rook_attacks_from(np.array([0]), bitboards([chess.BB_A2 | chess.BB_C1]))[0]
    ...     ) == chess.BB_A2 | chess.BB_B1 | chess.BB_C1
    True
    """
    square, valid = _on_board(squares)
    t = _tables()
    bit = square_bits(square)
    found = _quintessence(t["file"][square], bit, occupied) | _rank_attacks(square, occupied)
    kept: Bitboards = np.where(valid, found, _ZERO)
    return kept


def bishop_attacks_from(squares: Squares, occupied: Bitboards) -> Bitboards:
    """The squares a bishop on each position's square attacks (none for -1).

    >>> int(bishop_attacks_from(np.array([0]), bitboards([chess.BB_C3]))[0]
    ...     ) == chess.BB_B2 | chess.BB_C3
    True
    """
    square, valid = _on_board(squares)
    t = _tables()
    bit = square_bits(square)
    found = _quintessence(t["diagonal"][square], bit, occupied) | _quintessence(
        t["anti_diagonal"][square], bit, occupied
    )
    kept: Bitboards = np.where(valid, found, _ZERO)
    return kept


def attackers_of_square(placement: Placement, color: chess.Color, squares: Squares) -> Bitboards:
    """The pieces of ``color`` attacking each position's square (none for -1):
    python-chess's ``attackers_mask``; as :func:`attackers` of that one square, by
    lookups.

    >>> board = chess.Board("4k3/8/8/8/4p3/3P1N2/8/4R1K1 w - - 0 1")
    >>> found = attackers_of_square(PlacementArrays.of_boards([board]), chess.WHITE,
    ...                             np.array([chess.E4]))
    >>> int(found[0]) == board.attackers_mask(chess.WHITE, chess.E4)
    True
    """
    square, valid = _on_board(squares)
    t = _tables()
    # A pawn of `color` attacks from where a pawn of the other colour would attack.
    pawn = t["black_pawn" if color else "white_pawn"][square]
    found = _attackers_by_lookup(placement, square, pawn)
    kept: Bitboards = np.where(valid, found, _ZERO) & (
        placement.white if color else placement.black
    )
    return kept


def _attackers_by_lookup(
    placement: Placement, square: NDArray[np.intp], pawn_reach: Bitboards
) -> Bitboards:
    p = placement
    t = _tables()
    occupied = _occupied(p)
    found: Bitboards = (
        (t["knight"][square] & p.knights)
        | (t["king"][square] & p.kings)
        | (pawn_reach & p.pawns)
        | (rook_attacks_from(square, occupied) & (p.rooks | p.queens))
        | (bishop_attacks_from(square, occupied) & (p.bishops | p.queens))
    )
    return found


# --------------------------------------------------------------------------------------
# Placements: attackers and check
# --------------------------------------------------------------------------------------


class Placement(Protocol):
    """Each position's pieces, as the index stores them: a set per piece type (either
    colour) and per colour (:class:`PlacementArrays`, the index's position chunks)."""

    @property
    def pawns(self) -> Bitboards: ...
    @property
    def knights(self) -> Bitboards: ...
    @property
    def bishops(self) -> Bitboards: ...
    @property
    def rooks(self) -> Bitboards: ...
    @property
    def queens(self) -> Bitboards: ...
    @property
    def kings(self) -> Bitboards: ...
    @property
    def white(self) -> Bitboards: ...
    @property
    def black(self) -> Bitboards: ...


@attrs.frozen(repr=False)
class PlacementArrays(Record):
    """A :class:`Placement` of its own (boards read by python-chess, tests, benchmarks)."""

    pawns: Bitboards
    knights: Bitboards
    bishops: Bitboards
    rooks: Bitboards
    queens: Bitboards
    kings: Bitboards
    white: Bitboards
    black: Bitboards

    @classmethod
    def of_boards(cls, boards: Sequence[chess.BaseBoard]) -> PlacementArrays:
        """The placements of ``boards``.

        >>> len(PlacementArrays.of_boards([chess.Board()]).kings)
        1
        """
        return cls(
            pawns=bitboards(board.pawns for board in boards),
            knights=bitboards(board.knights for board in boards),
            bishops=bitboards(board.bishops for board in boards),
            rooks=bitboards(board.rooks for board in boards),
            queens=bitboards(board.queens for board in boards),
            kings=bitboards(board.kings for board in boards),
            white=bitboards(board.occupied_co[chess.WHITE] for board in boards),
            black=bitboards(board.occupied_co[chess.BLACK] for board in boards),
        )


_BY_TYPE = {
    chess.PAWN: "pawns",
    chess.KNIGHT: "knights",
    chess.BISHOP: "bishops",
    chess.ROOK: "rooks",
    chess.QUEEN: "queens",
    chess.KING: "kings",
}


def pieces_mask(placement: Placement, piece_type: chess.PieceType, color: chess.Color) -> Bitboards:
    """The squares of ``color``'s pieces of ``piece_type`` (python-chess's
    ``pieces_mask``).

    >>> int(pieces_mask(PlacementArrays.of_boards([chess.Board()]), chess.KING, chess.BLACK)[0]
    ...     ) == chess.BB_E8
    True
    """
    side = placement.white if color else placement.black
    found: Bitboards = getattr(placement, _BY_TYPE[piece_type]) & side
    return found


def _occupied(placement: Placement) -> Bitboards:
    return placement.white | placement.black


def attacked_by(placement: Placement, color: chess.Color) -> Bitboards:
    """Every square some piece of ``color`` attacks.

    >>> int(attacked_by(PlacementArrays.of_boards([chess.Board()]), chess.WHITE)[0]
    ...     ) == chess.BB_RANK_3 | chess.BB_RANK_2 | chess.BB_RANK_1 & ~chess.BB_CORNERS
    True
    """
    return attacked_by_set(placement, color, _occupied(placement))


def _attackers(placement: Placement, targets: Bitboards, pawn_reach: Bitboards) -> Bitboards:
    """The pieces of either colour that attack some square of ``targets``, pawns among
    them where they stand on ``pawn_reach``."""
    p = placement
    occupied = _occupied(p)
    found: Bitboards = (
        (knight_attacks(targets) & p.knights)
        | (king_attacks(targets) & p.kings)
        | (pawn_reach & p.pawns)
        | (rook_attacks(targets, occupied) & (p.rooks | p.queens))
        | (bishop_attacks(targets, occupied) & (p.bishops | p.queens))
    )
    return found


def attackers(placement: Placement, color: chess.Color, targets: Bitboards) -> Bitboards:
    """The pieces of ``color`` that attack some square of ``targets`` (per position, or
    one set for all: it broadcasts); python-chess's ``attackers_mask`` for one square.

    >>> board = chess.Board("4k3/8/8/8/4p3/3P1N2/8/4R1K1 w - - 0 1")
    >>> found = attackers(PlacementArrays.of_boards([board]), chess.WHITE,
    ...                   bitboards([chess.BB_E4]))
    >>> int(found[0]) == board.attackers_mask(chess.WHITE, chess.E4)
    True
    """
    # A pawn of `color` attacks a target from where a pawn of the other colour on the
    # target would attack.
    found = _attackers(placement, targets, pawn_attacks(not color, targets))
    return found & (placement.white if color else placement.black)


def either_attackers(placement: Placement, targets: Bitboards) -> Bitboards:
    """The pieces of either colour that attack some square of ``targets``.

    >>> board = chess.Board("4k3/8/8/3p4/4p3/3P1N2/8/4R1K1 w - - 0 1")
    >>> found = either_attackers(PlacementArrays.of_boards([board]), bitboards([chess.BB_E4]))
    >>> either = board.attackers_mask(True, chess.E4) | board.attackers_mask(False, chess.E4)
    >>> found.tolist() == [either]
    True
    """
    targets = np.broadcast_to(np.asarray(targets, dtype=np.uint64), np.shape(placement.white))
    if not (targets & (targets - _ONE)).any():
        # One square a position at most (a king): lookups from it beat the fills.
        return _either_attackers_of_square(placement, targets)
    # A white pawn attacks a target from where a black pawn on the target would attack.
    reach = (pawn_attacks(chess.BLACK, targets) & placement.white) | (
        pawn_attacks(chess.WHITE, targets) & placement.black
    )
    return _attackers(placement, targets, reach) & _occupied(placement)


def _either_attackers_of_square(placement: Placement, targets: Bitboards) -> Bitboards:
    """:func:`either_attackers` of ``targets``, at most one square a position."""
    square, valid = _on_board(lsb(targets))
    t = _tables()
    reach = (t["black_pawn"][square] & placement.white) | (
        t["white_pawn"][square] & placement.black
    )
    found: Bitboards = np.where(valid, _attackers_by_lookup(placement, square, reach), _ZERO)
    return found & _occupied(placement)


def attacked_by_set(placement: Placement, color: chess.Color, pieces: Bitboards) -> Bitboards:
    """Every square attacked by the pieces of ``color`` that stand on ``pieces``
    (:func:`attacked_by` of some of a side's pieces).

    >>> board = chess.Board()
    >>> found = attacked_by_set(PlacementArrays.of_boards([board]), chess.WHITE,
    ...                         bitboards([chess.BB_G1]))
    >>> found.tolist() == [chess.BB_E2 | chess.BB_F3 | chess.BB_H3]
    True
    """
    p = placement
    side: Bitboards = (p.white if color else p.black) & pieces
    occupied = _occupied(p)
    queens: Bitboards = p.queens & side
    return (
        pawn_attacks(color, p.pawns & side)
        | knight_attacks(p.knights & side)
        | king_attacks(p.kings & side)
        | rook_attacks((p.rooks & side) | queens, occupied)
        | bishop_attacks((p.bishops & side) | queens, occupied)
    )


def checkers(placement: Placement, white_to_move: NDArray[np.bool_]) -> Bitboards:
    """The pieces giving check to the side to move: those attacking its king (the
    highest one, as python-chess's ``Board.king`` takes it; none, no check).

    >>> board = chess.Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    >>> int(checkers(PlacementArrays.of_boards([board]), np.array([True]))[0]) == chess.BB_E2
    True
    """
    p = placement
    ours = np.where(white_to_move, p.white, p.black)
    theirs = np.where(white_to_move, p.black, p.white)
    king = msb(p.kings & ours)
    square = np.clip(king, 0, 63).astype(np.intp)
    t = _tables()
    # Their pawns attack our king from where our pawn on its square would attack.
    reach = np.where(white_to_move, t["white_pawn"][square], t["black_pawn"][square])
    found: Bitboards = np.where(king >= 0, _attackers_by_lookup(p, square, reach) & theirs, _ZERO)
    return found


def is_check(placement: Placement, white_to_move: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Whether the side to move is in check (python-chess's ``Board.is_check``).

    >>> board = chess.Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    >>> is_check(PlacementArrays.of_boards([board, chess.Board()]), np.array([True, True])
    ...          ).tolist()
    [True, False]
    """
    found: NDArray[np.bool_] = checkers(placement, white_to_move) != _ZERO
    return found
