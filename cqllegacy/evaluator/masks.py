"""The squares of a board whose content is in a type set: one definition, as Python text.

:func:`mask_expression` writes the expression once; :func:`mask_function` compiles it for
a board, and the generated board checks of :mod:`~cqllegacy.evaluator.operators` inline the
same text.  Type sets are the 13-bit masks of :mod:`cqllegacy.vocab.pieces` (six white
types, six black, the empty square).

>>> board = chess.Board()
>>> mask_function(0b10)(board) == chess.BB_B1 | chess.BB_G1
True
>>> mask_expression(0b100000), mask_expression(0b100000100000)
('(board.kings & board.occupied_co[True])', 'board.kings')
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import chess

from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, EMPTY_BIT, TypeSet
from cqllegacy.vocab.squares import FULL

__all__ = [
    "PIECE_ATTRS",
    "Mask",
    "designator_expression",
    "designator_squares",
    "kind_bit",
    "kinds",
    "mask_expression",
    "mask_function",
]

Mask = Callable[[chess.Board], int]

#: The python-chess board attribute holding each piece type's squares.
PIECE_ATTRS = {
    chess.PAWN: "pawns",
    chess.KNIGHT: "knights",
    chess.BISHOP: "bishops",
    chess.ROOK: "rooks",
    chess.QUEEN: "queens",
    chess.KING: "kings",
}


def kinds(types: TypeSet) -> list[tuple[str, chess.Color]]:
    """The piece kinds of ``types`` as (board attribute, colour).

    >>> kinds(0b1 | 0b1000000)
    [('pawns', True), ('pawns', False)]
    """
    return list(_kinds(types))


# Cached: a large orbit's compilation asks the same few type sets thousands of times.
@functools.lru_cache(maxsize=4096)
def _kinds(types: TypeSet) -> tuple[tuple[str, chess.Color], ...]:
    return tuple(
        (name, color)
        for color, shift in ((chess.WHITE, 0), (chess.BLACK, 6))
        for piece_type, name in PIECE_ATTRS.items()
        if types >> (piece_type - 1 + shift) & 1
    )


def kind_bit(name: str, color: chess.Color) -> TypeSet:
    """The type-set bit of one piece kind (``kind_bit("knights", chess.WHITE) == 0b10``)."""
    piece_type = next(t for t, attr in PIECE_ATTRS.items() if attr == name)
    return 1 << (piece_type - 1 + (0 if color else 6))


@functools.lru_cache(maxsize=4096)
def mask_expression(types: TypeSet) -> str:
    """A Python expression for the squares of ``board`` whose content is in ``types``."""
    if types & ANYTHING == ANYTHING:
        return str(FULL)
    if types & ANYTHING == ANY_PIECE:
        return "board.occupied"
    white = {name for name, color in kinds(types) if color}
    black = {name for name, color in kinds(types) if not color}
    parts = [f"board.{name}" for name in sorted(white & black)]
    for names, color in ((white - black, True), (black - white, False)):
        if len(names | (white & black)) == 6:
            parts.append(f"board.occupied_co[{color}]")
        elif names:
            pieces = " | ".join(f"board.{name}" for name in sorted(names))
            if len(names) > 1:
                pieces = f"({pieces})"
            parts.append(f"({pieces} & board.occupied_co[{color}])")
    if types & EMPTY_BIT:
        parts.append(f"(~board.occupied & {FULL})")
    if not parts:
        return "0"
    return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"


def designator_expression(types: TypeSet, squares: int) -> str:
    """A Python expression for the squares of a piece designator (``types`` on
    ``squares``) on ``board``: the one definition of its value.

    >>> designator_expression(0b100000, FULL), designator_expression(0, 7)
    ('(board.kings & board.occupied_co[True])', '0')
    """
    if types & ANYTHING == ANYTHING:
        return str(squares)
    if squares == 0 or types & ANYTHING == 0:
        return "0"
    mask = mask_expression(types)
    return mask if squares == FULL else f"{mask} & {squares}"


@functools.lru_cache(maxsize=1024)
def designator_squares(types: TypeSet, squares: int) -> Mask:
    """The squares of a piece designator on a board, as the function of the board
    :func:`designator_expression` writes (every evaluator rule, operator and the witness
    read a designator's squares through it).

    >>> designator_squares(0b1, chess.BB_RANK_2 | chess.BB_E4)(chess.Board()) == chess.BB_RANK_2
    True
    """
    source = f"lambda board: {designator_expression(types, squares)}"
    function: Mask = eval(compile(source, "<cqllegacy designator>", "eval"))
    return function


def mask_function(types: TypeSet) -> Mask:
    """The function of a board that :func:`mask_expression` writes (text built here from
    a type set alone; called while a query compiles, never per position)."""
    source = f"lambda board: {mask_expression(types)}"
    function: Mask = eval(compile(source, "<cqllegacy mask>", "eval"))
    return function
