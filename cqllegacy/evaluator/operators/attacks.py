"""Attacks: ``L attacks R`` and ``L attackedby R`` counted from the smaller side
(:func:`attacks`, :func:`attacked_by`), attack counts (:func:`attack_count`,
:func:`attack_count_in_range`) and sums of them over single target squares
(:func:`attack_sum`).

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

from collections.abc import Callable, Mapping

import chess

from cqllegacy.core.tree import PieceSet
from cqllegacy.evaluator.compiler import BoardCheck, Context, NumberFn, SetFn
from cqllegacy.evaluator.masks import kinds, mask_function
from cqllegacy.evaluator.operators.base import (
    Board,
    BoardCount,
)
from cqllegacy.evaluator.trees import closed_range
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    BLACK_PIECES,
    WHITE_PIECES,
    TypeSet,
    types_of,
)
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = [
    "attack_count",
    "attack_count_in_range",
    "attack_sum",
    "attacked_by",
    "attackers_of",
    "attacking",
    "attacks",
    "board_attack_sum",
]


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
