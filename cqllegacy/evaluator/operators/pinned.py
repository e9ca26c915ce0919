"""The relation operator's scan when shifts are pinned by pieces (semantics: S-relation,
decision L18).

It applies with a shift, the identity alone, a missing bound and no new piece allowed.
Then a pair can fit only under a shift that puts a P2 piece on one of bound + 1 counted
P1 pieces of its kind (the pins).  Each pair and pin is tried by one intersection of
grids centred on the two pieces (:func:`~cqllegacy.evaluator.operators.placements.grid_spread`)
before it is compared in full.  :class:`~cqllegacy.evaluator.operators.relation.RelationOperator`
makes one :class:`PinnedShifts` when its parameters allow and keeps the rest: the
placements, the later positions, the full comparison (:class:`Comparison` names what
this module asks of it).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Protocol

import chess

from cqllegacy.evaluator.compiler import Context
from cqllegacy.evaluator.masks import Mask
from cqllegacy.evaluator.operators.placements import (
    BLACK_SPREAD,
    ORIGINS,
    PIN_ORDER,
    WHITE_SPREAD,
    Centred,
    LineSides,
    Pinning,
    Placement,
    RelationMemo,
    Unturned,
    grid_spread,
    kind_boards,
    kind_planes,
    piece_kinds,
    shift_of,
)
from cqllegacy.vocab.pieces import ANY_PIECE, TypeSet
from cqllegacy.vocab.rays import KEEP_FILES as _KEEP
from cqllegacy.vocab.squares import FULL

__all__ = ["Comparison", "PinnedShifts"]

Board = chess.Board


class Comparison(Protocol):
    """What the pinned shifts ask of the relation operator: its placements, its later
    positions and its full comparison of two placements."""

    @property
    def new_mask(self) -> Mask: ...

    def tables(self, ctx: Context) -> RelationMemo: ...

    def first(self, ctx: Context, known: dict[int, Placement], p: int) -> Placement: ...

    def fits(
        self, one: Placement, occupied: int, planes: tuple[int, int, int, int], counted: int
    ) -> bool: ...

    def related(
        self, one: Placement, ctx: Context, known: dict[tuple[int, int], Placement], q: int
    ) -> bool: ...

    def missing_masks(self, ctx: Context) -> list[int]: ...

    def later(self, ctx: Context, p: int, counted: int) -> list[int]: ...

    def line_sides(self, ctx: Context) -> LineSides: ...

    def main_line_later(self, ctx: Context, p: int, need: int) -> list[int]: ...


class PinnedShifts:
    """The pinned shifts of one relation: what they read of a game (kept in the game's
    memo) and the scans that use them."""

    def __init__(
        self,
        relation: Comparison,
        *,
        allowable: int,
        bound: int,
        missing_types: TypeSet,
        new_types: TypeSet,
        same_side: bool | None,
        off_chain: bool,
    ) -> None:
        self.relation = relation
        self.allowable, self.bound = allowable, bound
        self.same_side, self.off_chain = same_side, off_chain
        # The kinds of pins, in the order they are taken from P1 (:meth:`related`).
        self._pin_kinds = tuple(k for k in PIN_ORDER if missing_types >> k & 1)
        # Whether every piece counts as new: the spread new pieces are all the pieces.
        self.new_everywhere = new_types & ANY_PIECE == ANY_PIECE
        self._spread_allowable = grid_spread(self.allowable, self.allowable)
        self._token = object()

    def pinning(self, ctx: Context) -> Pinning:
        """What the pinned shifts read of the game (:class:`Pinning`), read once."""
        key = (self._token, "pinning")
        found: Pinning | None = ctx.memo.get(key)
        if found is None:
            found = ctx.memo[key] = Pinning([None] * 12, self.spreads(ctx.boards), [None] * 12)
        return found

    def spreads(self, boards: Sequence[Board]) -> list[int]:
        """Per board, :func:`grid_spread` of its pieces of the kinds counted as new, each
        from the one before by the squares that changed (a move changes a few)."""
        new_mask = self.relation.new_mask
        spreads = []
        white = black = spread = 0
        for board in boards:
            new = new_mask(board)
            now_white = new & board.occupied_co[chess.WHITE]
            now_black = new & board.occupied_co[chess.BLACK]
            changed_white, changed_black = white ^ now_white, black ^ now_black
            if (changed_white | changed_black).bit_count() > 6:
                spread = grid_spread(now_white, now_black)
            else:
                while changed_white:
                    low = changed_white & -changed_white
                    spread ^= WHITE_SPREAD[low.bit_length() - 1]
                    changed_white ^= low
                while changed_black:
                    low = changed_black & -changed_black
                    spread ^= BLACK_SPREAD[low.bit_length() - 1]
                    changed_black ^= low
            white, black = now_white, now_black
            spreads.append(spread)
        return spreads

    def unturned(self, ctx: Context, q: int) -> Unturned:
        """P2's placement at ``q``, as :meth:`RelationOperator.turned` reads it unturned
        (without the order of its kinds), read once."""
        key = (self._token, "unturned")
        found: list[Unturned | None] | None = ctx.memo.get(key)
        if found is None:
            found = ctx.memo[key] = [None] * len(ctx.boards)
        placement = found[q]
        if placement is None:
            board = ctx.boards[q]
            placement = found[q] = Unturned(
                board.occupied, kind_planes(piece_kinds(board)), self.relation.new_mask(board)
            )
        return placement

    def fits_shifted(self, one: Placement, two: Unturned, dx: int, dy: int) -> bool:
        """:meth:`RelationOperator.fits` for P2 moved by (``dx``, ``dy``), the
        translation inlined."""
        keep, step = _KEEP[dx], dx + 8 * dy
        occupied, planes, counted = two
        p0, p1, p2, p3 = planes
        if step >= 0:
            occupied = (occupied & keep) << step & FULL
            counted = (counted & keep) << step & FULL
            moved = (
                (p0 & keep) << step,
                (p1 & keep) << step,
                (p2 & keep) << step,
                (p3 & keep) << step,
            )
        else:
            occupied = (occupied & keep) >> -step
            counted = (counted & keep) >> -step
            moved = (
                (p0 & keep) >> -step,
                (p1 & keep) >> -step,
                (p2 & keep) >> -step,
                (p3 & keep) >> -step,
            )
        return self.relation.fits(one, occupied, moved, counted)

    def check(self, ctx: Context, p: int) -> bool:
        """:meth:`RelationOperator.check` when the shifts are pinned."""
        if p < ctx.table.mainline_length and not self.off_chain:
            return self.main_line(ctx)[p]
        counted = self.relation.missing_masks(ctx)[p] & self.allowable
        later = self.relation.later(ctx, p, counted.bit_count())
        return bool(later) and self.related(ctx, p, counted, later, self.pinning(ctx))

    def main_line(self, ctx: Context) -> list[bool]:
        """:meth:`related` at every main-line position, asked once for all, with
        :meth:`RelationOperator.main_line_later` inlined: a loop costs less than calls
        per position."""
        key = (self._token, "main line")
        found: list[bool] | None = ctx.memo.get(key)
        if found is not None:
            return found
        found = []
        boards, allowable, bound = ctx.boards, self.allowable, self.bound
        missing_masks, sides, same_side = (
            self.relation.missing_masks(ctx),
            self.relation.line_sides(ctx),
            self.same_side,
        )
        by_side, below, game = sides.by_side, sides.first_below, self.pinning(ctx)
        for p in range(ctx.table.mainline_length):
            counted = missing_masks[p] & allowable
            need = counted.bit_count() - bound
            if need <= 0 or below is None:
                later = self.relation.main_line_later(ctx, p, need)
            else:  # the counts never grow: the positions with enough pieces come first
                positions = by_side[None if same_side is None else boards[p].turn == same_side]
                start = bisect.bisect_right(positions, p)
                stop = below[need] if need < len(below) else 0
                later = positions[start : bisect.bisect_left(positions, stop, lo=start)]
            found.append(bool(later) and self.related(ctx, p, counted, later, game))
        ctx.memo[key] = found
        return found

    def related(self, ctx: Context, p: int, counted: int, later: list[int], game: Pinning) -> bool:
        """Whether some P2 of ``later`` fits P1, which holds ``counted`` pieces of the
        kinds counted as missing.  With more than the bound of them, only the shifts that
        put a P2 piece on one of bound + 1 of them (the pins) of its kind can fit (one of
        them is not missing).  A shift that puts a counted new piece on an allowable
        square where P1 holds no piece of its colour never fits: on grids centred on the
        pin and on the P2 piece (:data:`ORIGINS`) one intersection tells, so only the
        pairs that pass it are compared in full."""
        bound, relation = self.bound, self.relation
        if counted.bit_count() <= bound:  # nothing pins the shifts
            memo = relation.tables(ctx)
            one = relation.first(ctx, memo.firsts, p)
            return any(relation.related(one, ctx, memo.turns, q) for q in later)
        boards = ctx.boards
        spreads, pieces, centred = game.spreads, game.pieces, game.centres
        # A counted new piece may stand after the shift on a piece of its colour, or on a
        # square that is not allowable: elsewhere it is new, or it differs from P1's.
        if self.new_everywhere:  # the spreads are those of each colour's pieces
            barred_at = self._spread_allowable & ~spreads[p]
        else:
            white, black = boards[p].occupied_co[chess.WHITE], boards[p].occupied_co[chess.BLACK]
            barred_at = grid_spread(self.allowable & ~white, self.allowable & ~black)
        # The pins: bound + 1 of the counted pieces, in the order of PIN_ORDER.
        left = bound + 1
        for kind in self._pin_kinds:
            placed = pieces[kind]
            if placed is None:
                placed = pieces[kind] = kind_boards(boards, kind)
            squares = placed[p] & counted
            if not squares:
                continue
            centres = centred[kind]
            if centres is None:
                centres = centred[kind] = Centred.of(placed, spreads)
            grids, sources = centres.grids, centres.sources
            while squares:
                low = squares & -squares
                squares ^= low
                target = low.bit_length() - 1
                barred = barred_at << ORIGINS[target]
                if grids is not None and barred:
                    # At most one piece of the kind per position: its grid is ready (-1
                    # where there is none: it meets every barred grid).
                    for q in later:
                        if not grids[q] & barred and self.fits_pair(ctx, p, q, target, sources[q]):
                            return True
                else:
                    for q in later:
                        spread = spreads[q]
                        for origin, source in centres.centres[q]:
                            if not spread << origin & barred and self.fits_pair(
                                ctx, p, q, target, source
                            ):
                                return True
                left -= 1
                if not left:
                    return False
        return False

    def fits_pair(self, ctx: Context, p: int, q: int, target: int, source: int) -> bool:
        """Whether P2 at ``q`` fits P1 at ``p`` moved so that ``source`` lands on
        ``target``."""
        one = self.relation.first(ctx, self.relation.tables(ctx).firsts, p)
        return self.fits_shifted(one, self.unturned(ctx, q), *shift_of(target, source))
