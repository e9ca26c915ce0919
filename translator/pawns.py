"""Scidb's ``:pawncount`` (X4) as core set filters: squares, directions and counts.

Each attribute is a *condition set*: the squares where a pawn of one colour would have
that attribute, given the other pawns and the kings on the board.  The pawns counted are
those of the designator that stand in every condition set of the chain (or outside it,
for a ``!`` test).  Every attribute is a fact of the pawn on the board, so the chain is
an intersection and CQL 6.1 says it with ``up``/``down``/``horizontal``/``vertical``,
``~``, ``&``, ``|`` and ``#`` alone (semantics: S-pawncount).

>>> from cqllegacy.legacy import read_script
>>> item = read_script("(match (position :pawncount P passed 1))").match.items[0].items[0]
>>> type(pawn_count(item)).__name__
'InRange'
"""

from __future__ import annotations

import chess

from cqllegacy.core import tree as core
from cqllegacy.legacy import tree as lt
from cqllegacy.vocab.pieces import ANYTHING, types_of
from cqllegacy.vocab.squares import BB_RANKS, FULL, Direction

__all__ = ["condition_set", "pawn_count", "promotion_reach"]

_PAWN_LETTER = {chess.WHITE: "P", chess.BLACK: "p"}
_KING_LETTER = {chess.WHITE: "K", chess.BLACK: "k"}
_AHEAD = {chess.WHITE: Direction.UP, chess.BLACK: Direction.DOWN}
_BEHIND = {chess.WHITE: Direction.DOWN, chess.BLACK: Direction.UP}


def _pieces(letter: str, squares: int = FULL) -> core.PieceSet:
    return core.PieceSet(types_of(letter), squares)


def _moved(direction: Direction, s: core.Filter, hi: int = 7) -> core.Filter:
    return core.DirectionSet(direction, s, 1, hi)


def _beside(s: core.Filter) -> core.Filter:
    """The squares next to S on its rank."""
    return _moved(Direction.HORIZONTAL, s, 1)


def _files_of(s: core.Filter) -> core.Filter:
    """Every square of the files S stands on."""
    return core.Union((s, _moved(Direction.VERTICAL, s)))


def _within_files(s: core.Filter, reach: int) -> core.Filter:
    """Every square on a file at most ``reach`` files from a square of S."""
    files = _files_of(s)
    return core.Union((files, _moved(Direction.HORIZONTAL, files, reach)))


def promotion_reach(color: chess.Color, rank: int, defender_to_move: bool) -> int:
    """How far (in king moves) the defending king may stand from the promotion square of
    a pawn of ``color`` on ``rank`` (0 … 7) and still catch it (the rule of the square).

    The pawn needs ``n`` moves to promote, one fewer from its start rank (its double
    step).  With the pawn's side to move the king must be within ``n``; with the
    defender to move it has one move more.

    >>> promotion_reach(chess.WHITE, 4, False), promotion_reach(chess.WHITE, 1, True)
    (3, 6)
    >>> promotion_reach(chess.BLACK, 6, False)
    5
    """
    relative = rank if color == chess.WHITE else 7 - rank
    moves = 7 - relative
    if relative == 1:
        moves -= 1
    return moves + (1 if defender_to_move else 0)


def _inside(color: chess.Color, defender_to_move: bool) -> core.Filter:
    """The squares of a pawn of ``color`` whose promotion square the enemy king reaches
    in time; blockers on the way are ignored."""
    king = _KING_LETTER[not color]
    parts: list[core.Filter] = []
    for rank in range(1, 7):
        reach = promotion_reach(color, rank, defender_to_move)
        # The king is near enough to the promotion rank …
        near_ranks = range(7 - reach, 8) if color == chess.WHITE else range(reach + 1)
        rows = 0
        for each in near_ranks:
            rows |= BB_RANKS[each]
        kings = _pieces(king, rows)
        # … and to the pawn's file.
        pawn_rank = core.PieceSet(ANYTHING, BB_RANKS[rank])
        parts.append(core.Intersection((pawn_rank, _within_files(kings, reach))))
    return core.Union(tuple(parts))


def condition_set(
    attribute: lt.PawnAttribute, color: chess.Color, defender_to_move: bool = False
) -> core.Filter:
    """The squares where a pawn of ``color`` has ``attribute``; ``defender_to_move``
    matters to ``inside`` alone."""
    own = _pieces(_PAWN_LETTER[color])
    enemy = _pieces(_PAWN_LETTER[not color])
    neighbours = _files_of(_beside(own))  # a pawn of its colour on a file next to it
    if attribute is lt.PawnAttribute.DOUBLE:
        return _moved(Direction.VERTICAL, own)
    if attribute is lt.PawnAttribute.CONNECTED:
        return neighbours
    if attribute is lt.PawnAttribute.ISOLATED:
        return core.Complement(neighbours)
    if attribute is lt.PawnAttribute.PASSED:
        stoppers = core.Union((enemy, _beside(enemy)))
        return core.Complement(_moved(_BEHIND[color], stoppers))
    if attribute is lt.PawnAttribute.BLOCKED:
        return _moved(_BEHIND[color], enemy)
    if attribute is lt.PawnAttribute.BACKWARD:
        side = _beside(own)
        level_or_behind = core.Union((side, _moved(_AHEAD[color], side)))
        return core.Intersection((neighbours, core.Complement(level_or_behind)))
    assert attribute is lt.PawnAttribute.INSIDE
    return _inside(color, defender_to_move)


def _counted(
    designator: lt.Designator, chain: lt.PawnChain, color: chess.Color, defender_to_move: bool
) -> core.Filter | None:
    """The pawns of ``color`` that the designator names and that pass the chain."""
    pawn = types_of(_PAWN_LETTER[color])
    if designator.types & pawn == 0 or designator.squares == 0:
        return None
    parts: list[core.Filter] = [core.PieceSet(pawn, designator.squares)]
    for test in chain.tests:
        condition = condition_set(test.attribute, color, defender_to_move)
        parts.append(core.Complement(condition) if test.negated else condition)
    return core.Intersection(tuple(parts))


def _count(item: lt.PawnCount, white_to_move: bool) -> core.Filter | None:
    sets = [
        found
        for color in chess.COLORS[::-1]
        if (found := _counted(item.designator, item.chain, color, white_to_move != color))
        is not None
    ]
    if not sets:
        return None
    return core.Count(sets[0] if len(sets) == 1 else core.Union(tuple(sets)))


def pawn_count(item: lt.PawnCount) -> core.Filter:
    """``:pawncount PD CHAIN R`` as a core filter: a count in range; split on the side to
    move when the chain asks ``inside``."""

    def in_range(value: core.Filter | None) -> core.Filter:
        if value is None:  # no pawn can be counted: the count is 0
            keyword = core.Keyword.TRUE if 0 in item.range else core.Keyword.FALSE
            return core.Simple(keyword)
        return core.InRange(value, item.range.lo, item.range.hi)

    if not any(test.attribute is lt.PawnAttribute.INSIDE for test in item.chain.tests):
        return in_range(_count(item, white_to_move=True))
    return core.Or(
        tuple(
            core.And((core.Simple(keyword), in_range(_count(item, white_to_move=white))))
            for keyword, white in ((core.Keyword.WTM, True), (core.Keyword.BTM, False))
        )
    )
