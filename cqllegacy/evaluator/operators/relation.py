"""The legacy relation operator (semantics: S-relation, decision L18): whether some later
position relates to the current one, as the reference rule
(:mod:`~cqllegacy.evaluator.legacy_rules`) defines it, computed on placements read once
per position.

Each position's placement is read once into four bit planes of piece kinds (two squares
hold the same piece when the planes agree); P2's turned placements are remembered per
position, and the answer per position.  Without shift or flip, a placement is one
:data:`Row`; along a main line, when no new piece is allowed, each later position is
tried by one intersection (a counted P2 piece on an empty allowable P1 square) and only
the few that pass are compared in full (:meth:`RelationOperator.new_free_main_line`),
else the positions that fail on a square no move has changed since are skipped
(:class:`LineChanges`, :func:`skip`).  With a shift, no new piece allowed and a
missing bound, a pair can fit only under a shift that puts a P2 piece on one of bound + 1
counted P1 pieces of its kind (the pins); each pair and pin is tried by one intersection
of grids centred on the two pieces before it is compared in full
(:class:`~cqllegacy.evaluator.operators.pinned.PinnedShifts`).  Both scans answer a
game's main line in one loop.

>>> from cqllegacy.core.tree import Scope
>>> from cqllegacy.evaluator.evaluate import context_at
>>> from cqllegacy.evaluator.testing import position
>>> from cqllegacy.vocab.pieces import ANYTHING
>>> from cqllegacy.vocab.squares import FULL, Dihedral
>>> unchanged = RelationParameters(
...     allowable=FULL, missing=(ANYTHING, 0, 0), new=(ANYTHING, 0, 0),
...     original_different=None, original_same=None, same_side=None, main_chain=True,
...     off_chain=False, dihedrals=(Dihedral.IDENTITY.map_set,), shift=False)
>>> game = position("7k/8/8/8/8/8/8/K7 w - - 0 1", "Kb1 Kg8 Ka1 Kh8").game()
>>> ctx, _ = context_at(game, scope=Scope.MAINLINE, identities=False)
>>> check = relation(unchanged)
>>> check(ctx, 0), check(ctx, 1)  # the start comes again; Kb1 with kh8 does not
(True, False)
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Callable, Iterable

import attrs
import chess

from cqllegacy.evaluator.compiler import Context, TruthFn
from cqllegacy.evaluator.masks import mask_function
from cqllegacy.evaluator.operators.pinned import PinnedShifts
from cqllegacy.evaluator.operators.placements import (
    ALL_SHIFTS,
    Bounds,
    LineChanges,
    LineSides,
    Placement,
    RelationMemo,
    Row,
    differing,
    first_below,
    kind_planes,
    kinds_union,
    later_in,
    piece_kinds,
    rarest,
    skip,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import ANY_PIECE, TypeSet
from cqllegacy.vocab.rays import KEEP_FILES as _KEEP
from cqllegacy.vocab.squares import FULL

__all__ = ["RelationOperator", "RelationParameters", "relation"]

Board = chess.Board


@attrs.frozen(repr=False)
class RelationParameters(Record):
    """A legacy relation as the lowering found it (semantics: S-relation, decision L18):
    ``same_side`` True/False/None for same/changed/ignored side to move, the scope as
    (``main_chain``, ``off_chain``) — the later positions on and off P1's main
    continuation — and the transforms of P2 as ``dihedrals`` (each a square-set map) and
    ``shift``."""

    allowable: int
    missing: tuple[TypeSet, int, int | None]
    new: tuple[TypeSet, int, int | None]
    original_different: tuple[int, int | None] | None
    original_same: tuple[int, int | None] | None
    same_side: bool | None
    main_chain: bool
    off_chain: bool
    dihedrals: tuple[Callable[[int], int], ...]
    shift: bool


class RelationOperator:
    """Whether some later position relates to this one (semantics: S-relation, decision
    L18): the reference rule's comparison on placements read once per position (not once
    per pair), P2's turned placements remembered per position, and the answer per
    position (it depends on no binding).  :attr:`check` is the compiled test.

    Exactly the reference rule's test: a pair fails on a conflict (an allowable square
    holding different pieces), on the missing and new counts, on the original counts;
    with ``shift`` only the shifts the reference rule tries are tried.  Without shift or
    flip (:meth:`untransformed`) each placement is read once as a :data:`Row`, and along
    a main line (:meth:`main_line`) the positions failing on a square no move has changed
    since are skipped.
    """

    def __init__(self, params: RelationParameters) -> None:
        self.params = params
        self.allowable = params.allowable
        missing_types, missing_lo, missing_hi = params.missing
        new_types, new_lo, new_hi = params.new
        self.missing, self.new = Bounds(missing_lo, missing_hi), Bounds(new_lo, new_hi)
        self.original_different = (
            None if params.original_different is None else Bounds(*params.original_different)
        )
        self.original_same = None if params.original_same is None else Bounds(*params.original_same)
        self.only_identity = not params.shift and len(params.dihedrals) == 1
        self.missing_mask = mask_function(missing_types & ANY_PIECE)
        self.new_mask = mask_function(new_types & ANY_PIECE)
        # A square that holds a different piece in P2 than in P1 (or, with no new or no
        # missing piece allowed, a new or a missing one) fails every later position until
        # a move changes that square, so the scan of the main line skips to that move.
        self.blocks_new, self.blocks_missing = new_hi == 0, missing_hi == 0
        # No piece may go missing and none may be new: the later position holds exactly
        # the same pieces on the allowable squares, which a table of placements finds.
        self.same_placement = (
            self.blocks_new
            and self.blocks_missing
            and missing_types & ANY_PIECE == ANY_PIECE
            and new_types & ANY_PIECE == ANY_PIECE
        )
        # With a shift, the identity alone, a missing bound and no new piece allowed,
        # the pairs are tried by the shifts their pins allow (:class:`PinnedShifts`).
        self.pinned_shifts: PinnedShifts | None = None
        if (
            params.shift
            and len(params.dihedrals) == 1
            and new_hi == 0
            and missing_hi is not None
            and self.original_different is None
            and self.original_same is None
        ):
            self.pinned_shifts = PinnedShifts(
                self,
                allowable=params.allowable,
                bound=missing_hi,
                missing_types=missing_types,
                new_types=new_types,
                same_side=params.same_side,
                off_chain=params.off_chain,
            )
        self._token = object()
        # The scans that answer a game's whole main line at once, when they apply.
        self.whole_line: Callable[[Context], list[bool]] | None = None
        if not params.off_chain:
            if self.pinned_shifts is not None:
                self.whole_line = self.pinned_shifts.main_line
            elif self.only_identity and self.blocks_new and not self.same_placement:
                self.whole_line = self.new_free_main_line

    # ---- what is remembered of a game ---------------------------------------------------

    def tables(self, ctx: Context) -> RelationMemo:
        # Keyed without the bindings: nothing here depends on them.
        key = (self._token, None)
        found: RelationMemo | None = ctx.memo.get(key)
        if found is None:
            found = ctx.memo[key] = RelationMemo({}, {}, {})
        return found

    def first(self, ctx: Context, known: dict[int, Placement], p: int) -> Placement:
        """P1's placement at ``p`` (allowable squares only), read once."""
        placement = known.get(p)
        if placement is None:
            allowable = self.allowable
            board = ctx.boards[p]
            occupied = board.occupied & allowable
            counted = self.missing_mask(board) & allowable
            # P2's unturned placement at ``p`` has the same planes, often read already.
            unturned = self.tables(ctx).turns.get((p, 0))
            kinds = piece_kinds(board) if unturned is None else unturned.kinds
            planes = kind_planes(kinds) if unturned is None else unturned.planes
            placement = known[p] = Placement(occupied, planes, counted, kinds, ())
        return placement

    def turned(
        self, ctx: Context, known: dict[tuple[int, int], Placement], q: int, d: int
    ) -> Placement:
        """P2's placement at ``q`` turned by dihedral ``d``, read once."""
        placement = known.get((q, d))
        if placement is None:
            if d == 0:  # the identity
                board = ctx.boards[q]
                kinds = self.kinds(ctx)[q]
                occupied, counted = board.occupied, self.new_mask(board)
            else:
                turn = self.params.dihedrals[d]
                kinds = tuple(turn(bb) for bb in self.kinds(ctx)[q])
                occupied = kinds_union(kinds, ANY_PIECE)
                counted = kinds_union(kinds, self.params.new[0])
            placement = known[(q, d)] = Placement(
                occupied, kind_planes(kinds), counted, kinds, rarest(kinds)
            )
        return placement

    def row(self, board: Board) -> Row:
        """The :data:`Row` of a board: colour and piece type in binary, equal exactly
        when the pieces are the same."""
        allowable = self.allowable
        types = (
            board.pawns | board.bishops | board.queens,
            board.knights | board.bishops | board.kings,
            board.rooks | board.queens | board.kings,
        )
        return (
            board.turn,
            board.occupied & allowable,
            board.occupied_co[chess.WHITE],
            *types,
            self.missing_mask(board) & allowable,
            self.new_mask(board) & allowable,
        )

    def rows(self, ctx: Context) -> list[Row]:
        """The rows of every position of the game, read once."""
        key = (self._token, "rows")
        found: list[Row] | None = ctx.memo.get(key)
        if found is None:
            # row() inlined: a call per board costs more than the row.
            allowable, boards = self.allowable, ctx.boards
            missing, new = map(self.missing_mask, boards), map(self.new_mask, boards)
            found = ctx.memo[key] = [
                (
                    board.turn,
                    board.occupied & allowable,
                    board.occupied_co[chess.WHITE],
                    board.pawns | board.bishops | board.queens,
                    board.knights | board.bishops | board.kings,
                    board.rooks | board.queens | board.kings,
                    counted_missing & allowable,
                    counted_new & allowable,
                )
                for board, counted_missing, counted_new in zip(boards, missing, new, strict=True)
            ]
        return found

    def changes(self, ctx: Context) -> LineChanges:
        """When the squares of the main line change."""
        key = (self._token, "changes")
        found: LineChanges | None = ctx.memo.get(key)
        if found is None:
            found = ctx.memo[key] = LineChanges.of(self.rows(ctx), ctx.table.mainline_length)
        return found

    def last_seen(self, ctx: Context) -> dict[tuple[int, ...], int]:
        """The last main-line position of each placement (allowable squares, side to move)."""
        key = (self._token, "placements")
        found: dict[tuple[int, ...], int] | None = ctx.memo.get(key)
        if found is None:
            found = {}
            for q, (turn, occ, w, x, y, z, _, _) in enumerate(
                self.rows(ctx)[: ctx.table.mainline_length]
            ):
                found[(turn, occ, w & occ, x & occ, y & occ, z & occ)] = q
            ctx.memo[key] = found
        return found

    def kinds(self, ctx: Context) -> list[tuple[int, ...]]:
        """Per position, its 12 piece bitboards (:func:`piece_kinds`)."""
        key = (self._token, "kinds")
        found: list[tuple[int, ...]] | None = ctx.memo.get(key)
        if found is None:
            found = ctx.memo[key] = [piece_kinds(board) for board in ctx.boards]
        return found

    # ---- comparing two placements -----------------------------------------------------

    def originals_ok(self, one: Placement, two: Placement) -> bool:
        """The original counts of P1 and an unturned P2."""
        both = one.occupied & two.occupied
        differ = both & differing(one.planes, two.planes)
        if self.original_different is not None:
            different = (one.occupied ^ (two.occupied & self.allowable)) | differ
            if not self.original_different.admit(different.bit_count()):
                return False
        return self.original_same is None or self.original_same.admit((both & ~differ).bit_count())

    def fits(
        self, one: Placement, occupied: int, planes: tuple[int, int, int, int], counted: int
    ) -> bool:
        """The reference rule's ``compatible`` for P1 and a moved P2 (unmasked)."""
        if one.occupied & occupied & differing(one.planes, planes):
            return False
        return self.missing.admit((one.counted & ~occupied).bit_count()) and self.new.admit(
            (counted & self.allowable & ~one.occupied).bit_count()
        )

    def offsets(self, one: Placement, two: Placement) -> Iterable[tuple[int, int]]:
        """The shifts worth trying: all 225, or with a missing bound only those that
        bring some of bound + 1 countable P1 pieces onto a piece of their kind (at least
        one of them must be matched after the shift)."""
        missing_hi = self.missing.hi
        if missing_hi is None or one.counted.bit_count() <= missing_hi:
            return ALL_SHIFTS
        # Of any bound+1 countable P1 pieces at least one must be matched after the shift:
        # those whose kind P2 holds fewest of give the fewest shifts to try.
        left = missing_hi + 1
        found: dict[tuple[int, int], None] = {}
        countable, ones, twos = one.counted, one.kinds, two.kinds
        for kind in two.rarest:
            targets = ones[kind] & countable
            while targets:
                low = targets & -targets
                targets ^= low
                target = low.bit_length() - 1
                tf, tr = target & 7, target >> 3
                sources = twos[kind]
                while sources:
                    bit = sources & -sources
                    sources ^= bit
                    source = bit.bit_length() - 1
                    found[(tf - (source & 7), tr - (source >> 3))] = None
                left -= 1
                if not left:
                    return found
        return found

    def related(
        self, one: Placement, ctx: Context, known: dict[tuple[int, int], Placement], q: int
    ) -> bool:
        """Whether P2 at ``q``, turned by some dihedral (and shifted, with ``shift``),
        fits P1."""
        fits = self.fits
        new, missing, allowable = self.new, self.missing, self.allowable
        one_occupied, one_counted, one_planes = one.occupied, one.counted, one.planes
        for d in range(len(self.params.dihedrals)):
            two = self.turned(ctx, known, q, d)
            if not self.params.shift:
                if fits(one, two.occupied, two.planes, two.counted):
                    return True
                continue
            two_occupied, two_counted = two.occupied, two.counted
            p0, p1, p2, p3 = two.planes
            for dx, dy in self.offsets(one, two):
                # fits() with its cheapest parts first: the new and the missing counts
                # need only the moved squares, the pieces on them all four planes.  The
                # shift inlines translate(): keep the files that stay, move by ``step``.
                keep, step = _KEEP[dx], dx + 8 * dy
                if step >= 0:
                    occupied = (two_occupied & keep) << step & FULL
                    counted = (two_counted & keep) << step & FULL
                else:
                    occupied = (two_occupied & keep) >> -step
                    counted = (two_counted & keep) >> -step
                if not new.admit((counted & allowable & ~one_occupied).bit_count()):
                    continue
                if not missing.admit((one_counted & ~occupied).bit_count()):
                    continue
                both = one_occupied & occupied
                if step >= 0:
                    differ = (
                        ((p0 & keep) << step ^ one_planes[0])
                        | ((p1 & keep) << step ^ one_planes[1])
                        | ((p2 & keep) << step ^ one_planes[2])
                        | ((p3 & keep) << step ^ one_planes[3])
                    )
                else:
                    differ = (
                        ((p0 & keep) >> -step ^ one_planes[0])
                        | ((p1 & keep) >> -step ^ one_planes[1])
                        | ((p2 & keep) >> -step ^ one_planes[2])
                        | ((p3 & keep) >> -step ^ one_planes[3])
                    )
                if not both & differ:
                    return True
        return False

    def blocking(self, one: Row, two: Row) -> int:
        """The squares that make the pair (``one``, ``two``) fail whatever else holds."""
        _, occ1, w1, x1, y1, z1, counted1, _ = one
        _, occ2, w2, x2, y2, z2, _, counted2 = two
        blocked = occ1 & occ2 & ((w1 ^ w2) | (x1 ^ x2) | (y1 ^ y2) | (z1 ^ z2))
        if self.blocks_new:
            blocked |= counted2 & ~occ1
        if self.blocks_missing:
            blocked |= counted1 & ~occ2
        return blocked

    def agrees(
        self, turn: bool, occ1: int, counted1: int, turn2: bool, occ2: int, counted2: int
    ) -> bool:
        """The rest of the reference rule's test for a pair whose common squares hold
        the same pieces: side to move, original counts, missing and new counts."""
        same_side = self.params.same_side
        if same_side is not None and (turn2 == turn) != same_side:
            return False
        original_different, original_same = self.original_different, self.original_same
        if original_different is not None and not original_different.admit(
            (occ1 ^ occ2).bit_count()
        ):
            return False
        if original_same is not None and not original_same.admit((occ1 & occ2).bit_count()):
            return False
        return self.missing.admit((counted1 & ~occ2).bit_count()) and self.new.admit(
            (counted2 & ~occ1).bit_count()
        )

    # ---- the scans ----------------------------------------------------------------------

    def repeated(self, ctx: Context, p: int) -> bool:
        """:meth:`main_line` when the placement must recur unchanged."""
        turn, occ, w, x, y, z, _, _ = self.rows(ctx)[p]
        original_different, original_same = self.original_different, self.original_same
        if not (
            self.missing.admit(0)
            and self.new.admit(0)
            and (original_different is None or original_different.admit(0))
            and (original_same is None or original_same.admit(occ.bit_count()))
        ):
            return False  # the counts of an unchanged placement are out of range
        latest = self.last_seen(ctx)
        same_side = self.params.same_side
        sides = (turn,) if same_side else (not turn,) if same_side is False else (True, False)
        return any(
            latest.get((side, occ, w & occ, x & occ, y & occ, z & occ), -1) > p for side in sides
        )

    def main_line(self, ctx: Context, p: int) -> bool:
        """:meth:`untransformed` along the main line: up to the position from which some
        square fails for good, skipping the positions that fail on a square no move has
        changed since."""
        if self.same_placement:
            return self.repeated(ctx, p)
        if self.blocks_new:
            return self.new_free(ctx, p)
        table = self.rows(ctx)
        end = ctx.table.mainline_length
        line = self.changes(ctx)
        blocking, agrees = self.blocking, self.agrees
        one = table[p]
        turn, occ1, _, _, _, _, counted1, _ = one
        horizon, settled = end, False
        q = p + 1
        while q < horizon:
            two = table[q]
            blocked = blocking(one, two)
            if blocked:
                if not settled:  # asked late: many positions relate to the next one
                    horizon = line.horizon(blocking(one, table[end - 1]), p, end)
                    settled = True
                q = skip(line.moments, blocked, q, horizon)
            elif agrees(turn, occ1, counted1, two[0], two[1], two[7]):
                return True
            else:
                q += 1
        return False

    def side_rows(self, ctx: Context) -> dict[bool | None, tuple[list[int], list[int]]]:
        """The main-line positions by side to move (``None``: all of them), each list with
        the squares of the pieces counted as new at those positions."""
        key = (self._token, "side rows")
        found: dict[bool | None, tuple[list[int], list[int]]] | None = ctx.memo.get(key)
        if found is None:
            rows = self.rows(ctx)[: ctx.table.mainline_length]
            found = {None: (list(range(len(rows))), [row[7] for row in rows])}
            for side in (True, False):
                positions = [q for q, row in enumerate(rows) if row[0] == side]
                found[side] = (positions, [rows[q][7] for q in positions])
            ctx.memo[key] = found
        return found

    def new_free(self, ctx: Context, p: int) -> bool:
        """:meth:`main_line` when no new piece is allowed (:meth:`new_free_main_line`)."""
        return self.new_free_main_line(ctx)[p]

    def new_free_main_line(self, ctx: Context) -> list[bool]:
        """:meth:`main_line` at every main-line position when no new piece is allowed,
        asked once for all: a later position with a counted new piece on an empty
        allowable square of P1 fails, which one intersection of two bitboards tells (the
        intersections made and tested without a Python step each); the few others are
        compared in full."""
        key = (self._token, "new free")
        found: list[bool] | None = ctx.memo.get(key)
        if found is not None:
            return found
        found = []
        table = self.rows(ctx)
        same_side, by_side = self.params.same_side, self.side_rows(ctx)
        blocking, agrees = self.blocking, self.agrees
        for p in range(ctx.table.mainline_length):
            one = table[p]
            turn, occ1, _, _, _, _, counted1, _ = one
            positions, news = by_side[None if same_side is None else turn == same_side]
            start = bisect.bisect_right(positions, p)
            fitting = map(operator.not_, map((FULL & ~occ1).__and__, news[start:]))
            for q in itertools.compress(positions[start:], fitting):
                two = table[q]
                if not blocking(one, two) and agrees(turn, occ1, counted1, two[0], two[1], two[7]):
                    found.append(True)
                    break
            else:
                found.append(False)
        ctx.memo[key] = found
        return found

    def untransformed(self, ctx: Context, p: int) -> bool:
        """The relation without shift or flip: one pass over the later positions with
        each placement read once (as :meth:`fits` and :meth:`originals_ok` compare)."""
        params = self.params
        if p < ctx.table.mainline_length and not params.off_chain:
            return self.main_line(ctx, p)
        table = self.rows(ctx)
        blocking, agrees = self.blocking, self.agrees
        one = table[p]
        turn, occ1, _, _, _, _, counted1, _ = one
        for q in later_in(ctx.table, p, params.main_chain, params.off_chain):
            two = table[q]
            if not blocking(one, two) and agrees(turn, occ1, counted1, two[0], two[1], two[7]):
                return True
        return False

    def missing_masks(self, ctx: Context) -> list[int]:
        """Per position, its pieces of the kinds counted as missing, anywhere."""
        found: list[int] | None = ctx.memo.get((self._token, "missing"))
        if found is None:
            found = [self.missing_mask(board) for board in ctx.boards]
            ctx.memo[(self._token, "missing")] = found
        return found

    def counted_pieces(self, ctx: Context) -> list[int]:
        """Per position, how many pieces of the kinds counted as missing it holds
        anywhere (turning and shifting P2 gives no more)."""
        found: list[int] | None = ctx.memo.get((self._token, "counted"))
        if found is None:
            found = [mask.bit_count() for mask in self.missing_masks(ctx)]
            ctx.memo[(self._token, "counted")] = found
        return found

    def line_sides(self, ctx: Context) -> LineSides:
        """The main-line positions by side to move, and where the pieces counted as
        missing first fall below each number along the main line (:func:`first_below`)."""
        key = (self._token, "sides")
        found: LineSides | None = ctx.memo.get(key)
        if found is None:
            end = ctx.table.mainline_length
            having = self.counted_pieces(ctx)
            by_side: dict[bool | None, list[int]] = {None: list(range(end)), True: [], False: []}
            for q, board in enumerate(ctx.boards[:end]):
                by_side[board.turn].append(q)
            found = ctx.memo[key] = LineSides(by_side, first_below(having[:end]))
        return found

    def main_line_later(self, ctx: Context, p: int, need: int) -> list[int]:
        """The main-line positions after ``p`` with the side to move the relation asks
        for and at least ``need`` pieces of the kinds counted as missing."""
        sides = self.line_sides(ctx)
        same_side = self.params.same_side
        side = None if same_side is None else ctx.boards[p].turn == same_side
        positions = sides.by_side[side]
        start = bisect.bisect_right(positions, p)
        if need <= 0:
            return positions[start:]
        if sides.first_below is None:
            having = self.counted_pieces(ctx)
            return [q for q in positions[start:] if having[q] >= need]
        # The counts never grow: the positions with enough pieces come first.
        below = sides.first_below
        stop = below[need] if need < len(below) else 0
        return positions[start : bisect.bisect_left(positions, stop, lo=start)]

    def later(self, ctx: Context, p: int, counted: int) -> list[int]:
        """The later positions in scope with the side to move asked for and enough pieces
        of the kinds counted as missing (P1 holds ``counted`` of them)."""
        params = self.params
        missing_hi = self.missing.hi
        # Each P1 piece counted as missing that is not missing stands under a P2 piece of
        # its kind: a P2 with fewer pieces of the counted kinds cannot relate.
        need = 0 if missing_hi is None else counted - missing_hi
        if p < ctx.table.mainline_length and not params.off_chain:
            # The chain from a main-line position is the rest of the main line.
            return self.main_line_later(ctx, p, need)
        later = later_in(ctx.table, p, params.main_chain, params.off_chain)
        if need > 0:
            having = self.counted_pieces(ctx)
            later = [q for q in later if having[q] >= need]
        same_side = params.same_side
        if same_side is not None:
            boards, turn = ctx.boards, ctx.boards[p].turn
            later = [q for q in later if (boards[q].turn == turn) == same_side]
        return later

    def check(self, ctx: Context, p: int) -> bool:
        """Whether some later position in scope relates to ``p`` (remembered)."""
        if self.whole_line is not None and p < ctx.table.mainline_length:
            # Answered for the whole main line at once (no call per position on the way).
            return self.whole_line(ctx)[p]
        firsts, turns, answers = self.tables(ctx)
        answer = answers.get(p)
        if answer is not None:
            return answer
        if self.only_identity:
            answer = answers[p] = self.untransformed(ctx, p)
            return answer
        if self.pinned_shifts is not None:
            answer = answers[p] = self.pinned_shifts.check(ctx, p)
            return answer
        one = self.first(ctx, firsts, p)
        later = self.later(ctx, p, one.counted.bit_count())
        if self.original_different is not None or self.original_same is not None:
            later = [q for q in later if self.originals_ok(one, self.turned(ctx, turns, q, 0))]
        answer = any(self.related(one, ctx, turns, q) for q in later)
        answers[p] = answer
        return answer


def relation(params: RelationParameters) -> TruthFn:
    """The compiled test of a legacy relation (:meth:`RelationOperator.check`)."""
    return RelationOperator(params).check
