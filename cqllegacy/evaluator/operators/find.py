"""Searching later positions: ``find`` and ``find all`` tried only at the positions
listed once per game where a necessity holds (:func:`find_among`, :func:`count_among`),
for a bound piece from the positions where it makes the filter hold (:func:`find_bound`,
:func:`count_bound`) or from its own moves (:func:`find_moving`), and tests behind a
necessity decided once per position (:func:`gated`)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence

from cqllegacy.evaluator.compiler import Context, Fn, NumberFn, TruthFn
from cqllegacy.evaluator.gametree import NO_PIECE
from cqllegacy.evaluator.operators.base import (
    LANDINGS_ON_RANK,
    reachable_ends,
)
from cqllegacy.evaluator.operators.holders import Holders
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = [
    "count_among",
    "count_bound",
    "find_among",
    "find_bound",
    "find_moving",
    "gated",
]


def _listed(
    ctx: Context, token: object, necessity: Fn, reached: int = FULL
) -> tuple[list[int], Sequence[int]]:
    """The positions where ``necessity`` holds, listed once per game and scope under
    ``token``, and per position the end of the positions reachable from it in scope.
    ``reached``: squares one of which the next move must land on wherever the necessity
    holds (only the positions whose continuations land there are tried)."""
    key = (token, ctx.all_scope)
    found: tuple[list[int], Sequence[int]] | None = ctx.memo.get(key)
    if found is None:
        if reached == FULL:
            tried: Iterable[int] = range(len(ctx.table))
        else:
            landings = _landings(ctx)
            tried = sorted({q for sq in iter_squares(reached) for q in landings[sq]})
        listed = [q for q in tried if necessity(ctx, q)]
        found = ctx.memo[key] = (listed, reachable_ends(ctx))
    return found


def _landings(ctx: Context) -> list[list[int]]:
    """Per square, the positions (in order) with a continuation in scope that lands
    there: its move's target square, and for a king's move the castling landings on its
    rank (:func:`destination_keyed`)."""
    key = (_landings, ctx.all_scope)
    found: list[list[int]] | None = ctx.memo.get(key)
    if found is None:
        found = [[] for _ in range(64)]
        boards, moves = ctx.boards, ctx.moves
        for q in range(len(ctx.table)):
            squares = 0
            for r in ctx.next[q]:
                move = moves[r]
                if move:
                    squares |= 1 << move.to_square
                    if boards[q].kings >> move.from_square & 1:
                        squares |= LANDINGS_ON_RANK[move.from_square >> 3]
            for sq in iter_squares(squares):
                found[sq].append(q)
        ctx.memo[key] = found
    return found


def gated(necessity: TruthFn, test: TruthFn) -> TruthFn:
    """``test`` where ``necessity`` (a test that holds wherever it holds and reads no
    binding) holds: the necessity is decided once per position of a game, for every
    binding of the tags."""
    token = object()

    def gated_test(ctx: Context, p: int) -> bool:
        known: dict[int, bool] | None = ctx.memo.get((token, None))
        if known is None:
            known = ctx.memo[(token, None)] = {}
        holds = known.get(p)
        if holds is None:
            holds = known[p] = bool(necessity(ctx, p))
        return holds and bool(test(ctx, p))

    return gated_test


def find_among(
    necessity: TruthFn, test: TruthFn, shared: object = None, reached: int = FULL
) -> TruthFn:
    """``find X`` given a test that holds wherever X holds and reads no binding: the
    positions where it holds are listed once per game and scope, and X is tried at
    those from the current position on, along the continuations in scope.  The finds
    given the same ``shared`` key (one per necessity) share the list."""
    token = object() if shared is None else shared

    def find(ctx: Context, p: int) -> bool:
        listed, ends = _listed(ctx, token, necessity, reached)
        end = ends[p]
        for i in range(bisect.bisect_left(listed, p), len(listed)):
            q = listed[i]
            if q >= end:
                return False
            if test(ctx, q):
                return True
        return False

    return find


def _bound_hits(
    ctx: Context,
    token: object,
    name: str,
    holders: Holders,
    shared: object,
    necessity: TruthFn,
    reached: int,
) -> list[int]:
    """The positions where the filter whose masks ``holders`` gives holds for the piece
    bound to ``name``, among those where ``necessity`` holds (listed under ``shared``):
    found once per game, scope and piece."""
    identity = ctx.bindings[name]
    key = (token, (ctx.all_scope, identity))
    hits: list[int] | None = ctx.memo.get(key)
    if hits is None:
        listed, _ = _listed(ctx, shared, necessity, reached)
        track = ctx.tracks[name]
        hits = []
        for q in listed:
            sq = track[q]
            if holders(ctx, q) >> (64 if sq == NO_PIECE else sq) & 1:
                hits.append(q)
        ctx.memo[key] = hits
    return hits


def find_bound(
    name: str, holders: Holders, necessity: TruthFn, shared: object, reached: int = FULL
) -> TruthFn:
    """``find X`` where X reads the piece variable ``name`` at its own position only (its
    masks for every square: ``holders``) and holds only where ``necessity`` (which reads
    no variable) holds: the positions where X holds for a piece are found once per game
    and piece, and each ``find`` looks up the first of them from the current position."""
    token = object()

    def find(ctx: Context, p: int) -> bool:
        hits = _bound_hits(ctx, token, name, holders, shared, necessity, reached)
        if not hits:
            return False
        i = bisect.bisect_left(hits, p)
        return i < len(hits) and hits[i] < reachable_ends(ctx)[p]

    return find


def find_moving(
    name: str,
    unit: Holders | int,
    test: Callable[[Context, int, int], bool],
    reach: int = FULL,
) -> TruthFn:
    """``find {move from X …}`` where X is the piece variable ``name``'s square or nothing
    (its unit holders: ``unit``, or the squares where it is the square, when they are the
    same at every position) and ``test`` checks the move's other demands: the
    positions where the bound piece makes such a move are found once per game, scope and
    piece among the piece's own moves (listed once per game and scope for every piece),
    and each ``find`` looks up the first of them from the current position.  The same
    positions as :func:`find_bound` with ``holders_moving(unit, test)``, without a list
    of the positions where a necessity holds.  ``reach``: squares one of which the move
    must land on (a move that reaches none is not tested)."""
    token = object()

    def find(ctx: Context, p: int) -> bool:
        identity = ctx.bindings[name]
        key = (token, (ctx.all_scope, identity))
        hits: list[int] | None = ctx.memo.get(key)
        if hits is None:
            hits = []
            for q, r, origin, reached in _moves_by_piece(ctx).get(identity, ()):
                if not reach & reached or (hits and hits[-1] == q):
                    continue
                squares = unit if isinstance(unit, int) else unit(ctx, q)
                if squares >> origin & 1 and test(ctx, q, r):
                    hits.append(q)
            ctx.memo[key] = hits
        if not hits:
            return False
        i = bisect.bisect_left(hits, p)
        return i < len(hits) and hits[i] < reachable_ends(ctx)[p]

    return find


def _moves_by_piece(ctx: Context) -> dict[int, list[tuple[int, int, int, int]]]:
    """Per piece identity, the continuations in scope that move it (castling moves the
    king), as (position, continuation, square left, squares it may land on) in the order
    of the positions: once per game and scope.  A move may land on its target square and,
    a king's, on the castling landings of its rank (:func:`destination_keyed`).  A null
    move moves no piece."""
    key = (_moves_by_piece, ctx.all_scope)
    found: dict[int, list[tuple[int, int, int, int]]] | None = ctx.memo.get(key)
    if found is None:
        found = {}
        # The piece each move moves, read from the followed main line where there is
        # one: no row of every square's piece per position.
        boards, moves, movers, following = ctx.boards, ctx.moves, ctx.table.movers(), ctx.next
        for q in range(len(ctx.table)):
            for r in following[q]:
                move = moves[r]
                if move:
                    origin = move.from_square
                    reached = 1 << move.to_square
                    if boards[q].kings >> origin & 1:
                        reached |= LANDINGS_ON_RANK[origin >> 3]
                    found.setdefault(movers[r], []).append((q, r, origin, reached))
        ctx.memo[key] = found
    return found


def count_bound(
    name: str, holders: Holders, necessity: TruthFn, shared: object, reached: int = FULL
) -> NumberFn:
    """``find all X`` as :func:`find_bound` finds X: how many of the positions where X
    holds for the piece lie from the current position on, along the continuations in
    scope."""
    token = object()

    def count(ctx: Context, p: int) -> int:
        hits = _bound_hits(ctx, token, name, holders, shared, necessity, reached)
        if not hits:
            return 0
        end = reachable_ends(ctx)[p]
        return bisect.bisect_left(hits, end) - bisect.bisect_left(hits, p)

    return count


def count_among(necessity: TruthFn, test: TruthFn, shared: object, reached: int = FULL) -> NumberFn:
    """``find all X`` (how many positions from the current one on, along the
    continuations in scope, satisfy X) given a test that holds wherever X holds and reads
    no binding: X is tried only where that test holds (:func:`find_among`'s list)."""

    def count(ctx: Context, p: int) -> int:
        listed, ends = _listed(ctx, shared, necessity, reached)
        end = ends[p]
        found = 0
        for i in range(bisect.bisect_left(listed, p), len(listed)):
            q = listed[i]
            if q >= end:
                break
            if test(ctx, q):
                found += 1
        return found

    return count
