"""Every binding at once: the squares where a piece variable's piece makes a filter hold
(:data:`Holders`), so a binding reads one bit of a mask computed once per position."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cqllegacy.evaluator.compiler import BoardCheck, Context, SetFn, TruthFn
from cqllegacy.evaluator.gametree import NO_PIECE
from cqllegacy.evaluator.operators.attacks import attacking
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = [
    "EVERYWHERE",
    "OFF_BOARD",
    "Holders",
    "holders_all",
    "holders_any",
    "holders_attacked",
    "holders_attacking",
    "holders_count",
    "holders_guarded",
    "holders_moving",
    "holders_not",
    "holders_of_truth",
    "holders_test",
    "holders_within",
    "remembered_holders",
    "variable_squares",
]


#: In a holders mask, the bit saying that the filter holds when the piece bound to the
#: variable is off the board (captured, or a pawn's promoted piece not yet there).
OFF_BOARD = 1 << 64

#: A holders mask saying "whatever the variable's square".
EVERYWHERE = FULL | OFF_BOARD

#: A filter read for every value of one piece variable at once: at a position, the
#: squares s such that the filter holds there when the variable's piece stands on s,
#: and :data:`OFF_BOARD` when it holds with the piece off the board.  A "unit" holders
#: function is that of a set filter whose value is at most the variable's square (``x``,
#: ``x & S``, ``x attacks R``): its value is that square exactly where the bit is set.
Holders = Callable[[Context, int], int]


def holders_of_truth(test: TruthFn) -> Holders:
    """A filter that reads no variable: it holds for every square or for none."""
    return lambda ctx, p: EVERYWHERE if test(ctx, p) else 0


def holders_all(parts: Sequence[Holders]) -> Holders:
    """All of the filters hold (a conjunction)."""
    if len(parts) == 1:
        return parts[0]
    parts_tuple = tuple(parts)

    def all_hold(ctx: Context, p: int) -> int:
        out = EVERYWHERE
        for part in parts_tuple:
            out &= part(ctx, p)
            if not out:
                return 0
        return out

    return all_hold


def holders_any(parts: Sequence[Holders]) -> Holders:
    """Some of the filters holds (a disjunction)."""
    if len(parts) == 1:
        return parts[0]
    parts_tuple = tuple(parts)

    def any_holds(ctx: Context, p: int) -> int:
        out = 0
        for part in parts_tuple:
            out |= part(ctx, p)
            if out == EVERYWHERE:
                break
        return out

    return any_holds


def holders_guarded(board: BoardCheck | None, guard: TruthFn, inner: Holders) -> Holders:
    """``inner`` where ``guard`` (filters that read no variable; ``board``, when given,
    decides it on the board alone) holds, else nothing."""
    if board is not None:
        check = board
        return lambda ctx, p: inner(ctx, p) if check(ctx.boards[p]) else 0
    return lambda ctx, p: inner(ctx, p) if guard(ctx, p) else 0


def variable_squares(ctx: Context, p: int) -> int:
    """The unit holders of the variable itself: its value is its square wherever it
    stands."""
    return FULL


def holders_not(part: Holders) -> Holders:
    """The filter does not hold."""
    return lambda ctx, p: EVERYWHERE & ~part(ctx, p)


def holders_count(unit: Holders, one: bool, zero: bool) -> Holders:
    """The size of a unit set filter's value (1 where ``unit`` says, else 0) is in a
    range that holds 1 (``one``) and 0 (``zero``) or not."""
    if one and zero:
        return lambda ctx, p: EVERYWHERE
    if one:
        return unit
    if zero:
        return holders_not(unit)
    return lambda ctx, p: 0


def holders_within(units: Sequence[Holders], values: Sequence[SetFn]) -> Holders:
    """``x & S…``: the units' value (the variable's square) within every set of
    ``values`` (filters that read no variable)."""
    units_tuple, values_tuple = tuple(units), tuple(values)

    def within(ctx: Context, p: int) -> int:
        out = FULL
        for unit in units_tuple:
            out &= unit(ctx, p)
            if not out:
                return 0
        for value in values_tuple:
            out &= value(ctx, p)
            if not out:
                return 0
        return out

    return within


def holders_attacking(unit: Holders, targets: SetFn, among: SetFn | None = None) -> Holders:
    """``x attacks R`` (and ``R attackedby x``): the squares of the unit whose piece
    attacks some square of R.  ``among``, when given, holds the square of the bound piece
    wherever it is on the board (the pieces of its tag's colour): only its pieces are
    looked at, the other bits being never read."""
    if unit is variable_squares:

        def attackers_holders(ctx: Context, p: int) -> int:
            found = targets(ctx, p)
            if not found:
                return 0
            board = ctx.boards[p]
            pieces = board.occupied if among is None else among(ctx, p)
            return attacking(board, pieces, found)

        return attackers_holders

    def attacking_holders(ctx: Context, p: int) -> int:
        squares = unit(ctx, p) & FULL
        if not squares:
            return 0
        found = targets(ctx, p)
        if not found:
            return 0
        board = ctx.boards[p]
        return attacking(board, squares & board.occupied, found)

    return attacking_holders


def holders_attacked(unit: Holders, attackers: SetFn) -> Holders:
    """``L attacks x`` (and ``x attackedby L``): the squares of the unit that some piece
    of L attacks."""

    def attacked_holders(ctx: Context, p: int) -> int:
        squares = unit(ctx, p) & FULL
        if not squares:
            return 0
        board = ctx.boards[p]
        pieces = attackers(ctx, p) & board.occupied
        attacked = 0
        for sq in iter_squares(pieces):
            attacked |= board.attacks_mask(sq)
        return squares & attacked

    return attacked_holders


def holders_moving(unit: Holders, test: Callable[[Context, int, int], bool]) -> Holders:
    """``move from x …``: the squares of the unit that a continuation in scope leaves by
    a move ``test`` accepts (``test`` checks the move's other demands; a null move leaves
    no square)."""

    def moving_holders(ctx: Context, p: int) -> int:
        squares = unit(ctx, p) & FULL
        if not squares:
            return 0
        out = 0
        for q in ctx.next[p]:
            move = ctx.moves[q]
            if move and squares >> move.from_square & 1 and test(ctx, p, q):
                out |= 1 << move.from_square
        return out

    return moving_holders


def remembered_holders(holders: Holders) -> Holders:
    """``holders``, computed once per position of a game and scope: every binding reads
    the same mask."""
    token = object()

    def remembered_mask(ctx: Context, p: int) -> int:
        key = (token, ctx.all_scope)
        known: dict[int, int] | None = ctx.memo.get(key)
        if known is None:
            known = ctx.memo[key] = {}
        found = known.get(p)
        if found is None:
            found = known[p] = holders(ctx, p)
        return found

    return remembered_mask


def holders_test(name: str, holders: Holders) -> TruthFn:
    """Whether the filter holds for the piece bound to ``name``: the bit of its square
    (:data:`OFF_BOARD` when it is off the board) in the mask ``holders`` gives."""

    def bound_holds(ctx: Context, p: int) -> bool:
        sq = ctx.tracks[name][p]
        return bool(holders(ctx, p) >> (64 if sq == NO_PIECE else sq) & 1)

    return bound_holds
