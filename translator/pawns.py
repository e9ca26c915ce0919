"""Scidb's ``:pawncount`` (X4) as core set filters: squares, directions and counts.

Each attribute is a *condition set*: the squares where a pawn of one colour would have
that attribute, given the other pawns and the kings on the board.  The pawns counted are
those of the designator that stand in every condition set of the chain (or outside it,
for a ``!`` test).  Every attribute is a fact of the pawn on the board, so the chain is
an intersection and CQL 6.1 says it with direction filters (``up``, ``left``,
``diagonal`` …), square lists, ``~``, ``&``, ``|`` and ``#`` alone (semantics: S-pawncount).

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


def _adjacent_files(files: core.Filter) -> tuple[core.Filter, core.Filter]:
    """The squares whose file's left (right) neighbour is one of ``files``."""
    return (
        core.DirectionSet(Direction.RIGHT, files, 1, 1),
        core.DirectionSet(Direction.LEFT, files, 1, 1),
    )


def _squares(mask: int) -> core.Filter:
    return core.PieceSet(ANYTHING, mask)


def _run(own: core.Filter, length: int, exactly: bool) -> core.Filter:
    """The squares in a run of at least (``exactly``) ``length`` pawns of ``own`` standing
    one behind another on a file: the union, over the run's places that hold the square,
    of the squares whose run-mates all stand there (and, for ``exactly``, whose run ends
    on both sides)."""
    windows: list[core.Filter] = []
    for below in range(length):  # how many of the run stand below the square
        parts: list[core.Filter] = [
            core.DirectionSet(
                Direction.DOWN if step > 0 else Direction.UP, own, abs(step), abs(step)
            )
            for step in range(-below, length - below)
            if step != 0
        ]
        if exactly:
            for direction, step in ((Direction.UP, below + 1), (Direction.DOWN, length - below)):
                parts.append(core.Complement(core.DirectionSet(direction, own, step, step)))
        windows.append(parts[0] if len(parts) == 1 else core.Intersection(tuple(parts)))
    return core.Union(tuple(windows))


def _structure(attribute: lt.PawnAttribute, own: core.Filter, count: int | None) -> core.Filter:
    """The attributes that look at the pawns of the pawn's own colour alone (besides
    ``double``, ``connected``, ``isolated`` and ``backward``)."""
    left, right = _adjacent_files(_files_of(own))
    if attribute is lt.PawnAttribute.INTEGRATED:  # an edge pawn has one file next to it
        return core.Intersection(
            (
                core.Union((left, _squares(chess.BB_FILE_A))),
                core.Union((right, _squares(chess.BB_FILE_H))),
            )
        )
    if attribute is lt.PawnAttribute.HALFISOLATED:
        one_side = core.Union(
            (
                core.Intersection((left, core.Complement(right))),
                core.Intersection((right, core.Complement(left))),
            )
        )
        return core.Intersection((one_side, _squares(_INNER_FILES)))
    if attribute is lt.PawnAttribute.CHAINED:  # defended by, or defending, one of its colour
        return core.DirectionSet(Direction.DIAGONAL, own, 1, 1)
    exactly = attribute is lt.PawnAttribute.CONSECUTIVE_EXACTLY
    assert attribute is lt.PawnAttribute.CONSECUTIVE or exactly
    return _run(own, 2 if count is None else count, exactly)


_INNER_FILES = chess.BB_ALL & ~(chess.BB_FILE_A | chess.BB_FILE_H)
_DEFENDED_FROM = {
    chess.WHITE: (Direction.NORTHEAST, Direction.NORTHWEST),
    chess.BLACK: (Direction.SOUTHEAST, Direction.SOUTHWEST),
}
_DEFENDS_TOWARDS = {
    chess.WHITE: (Direction.SOUTHEAST, Direction.SOUTHWEST),
    chess.BLACK: (Direction.NORTHEAST, Direction.NORTHWEST),
}
_ENEMY_HALF = {
    chess.WHITE: BB_RANKS[4] | BB_RANKS[5] | BB_RANKS[6] | BB_RANKS[7],
    chess.BLACK: BB_RANKS[0] | BB_RANKS[1] | BB_RANKS[2] | BB_RANKS[3],
}


def _enemy_facts(attribute: lt.PawnAttribute, color: chess.Color) -> core.Filter | None:
    """The attributes that look at the enemy pawns alone (besides ``passed`` and
    ``blocked``), and ``advanced``; None for another attribute."""
    enemy = _pieces(_PAWN_LETTER[not color])
    ahead, behind = _AHEAD[color], _BEHIND[color]
    if attribute is lt.PawnAttribute.BLOCKED_HEAD_ON:
        return core.DirectionSet(behind, enemy, 1, 1)
    if attribute is lt.PawnAttribute.STOPPABLE:
        return _moved(behind, _beside(enemy))
    not_blocked = core.Complement(_moved(behind, enemy))
    if attribute is lt.PawnAttribute.BEHIND:
        return core.Intersection((_moved(ahead, enemy), not_blocked))
    if attribute is lt.PawnAttribute.BEHIND_NEXT:
        return core.Intersection((core.DirectionSet(ahead, enemy, 1, 1), not_blocked))
    if attribute is lt.PawnAttribute.ADVANCED:
        return _squares(_ENEMY_HALF[color])
    return None


#: The square variable of ``candidate``'s loop over the pawns.
CANDIDATE_VARIABLE = "candidate"


def _candidate(color: chess.Color) -> core.Filter:
    """The pawns of ``color`` with no enemy pawn ahead on their file whose supporters
    (pawns of their colour on the files next to them, level or behind) are at least as
    many as the enemy pawns ahead on those files: a loop over the pawns, since the two
    counts are the pawn's own."""
    own = _pieces(_PAWN_LETTER[color])
    enemy = _pieces(_PAWN_LETTER[not color])
    pawn = core.SquareVariable(CANDIDATE_VARIABLE)
    side = _beside(pawn)
    supporters = core.Intersection((own, core.Union((side, _moved(_BEHIND[color], side)))))
    sentries = core.Intersection((enemy, _moved(_AHEAD[color], side)))
    outnumbered = core.Compare(core.CompareOp.GE, core.Count(supporters), core.Count(sentries))
    not_blocked = core.Complement(_moved(_BEHIND[color], enemy))
    return core.Intersection((not_blocked, core.SquareLoop(CANDIDATE_VARIABLE, own, outnumbered)))


def condition_set(
    attribute: lt.PawnAttribute,
    color: chess.Color,
    defender_to_move: bool = False,
    count: int | None = None,
) -> core.Filter:
    """The squares where a pawn of ``color`` has ``attribute`` (with its ``count`` where
    it takes one); ``defender_to_move`` matters to ``inside`` alone."""
    own = _pieces(_PAWN_LETTER[color])
    enemy = _pieces(_PAWN_LETTER[not color])
    neighbours = _files_of(_beside(own))  # a pawn of its colour on a file next to it
    if (found := _enemy_facts(attribute, color)) is not None:
        return found
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
    if attribute is lt.PawnAttribute.DEFENDED:
        return core.Union(tuple(core.DirectionSet(d, own, 1, 1) for d in _DEFENDED_FROM[color]))
    if attribute is lt.PawnAttribute.DEFENDER:
        return core.Union(tuple(core.DirectionSet(d, own, 1, 1) for d in _DEFENDS_TOWARDS[color]))
    if attribute is lt.PawnAttribute.INSIDE:
        return _inside(color, defender_to_move)
    if attribute is lt.PawnAttribute.CANDIDATE:
        return _candidate(color)
    if attribute is lt.PawnAttribute.CANDIDATE_NOT_PASSED:  # the help: candidate-!passed
        passed = condition_set(lt.PawnAttribute.PASSED, color)
        return core.Intersection((_candidate(color), core.Complement(passed)))
    return _structure(attribute, own, count)


def _counted(
    designator: lt.Designator, chain: lt.PawnChain, color: chess.Color, defender_to_move: bool
) -> core.Filter | None:
    """The pawns of ``color`` that the designator names and that pass the chain."""
    pawn = types_of(_PAWN_LETTER[color])
    if designator.types & pawn == 0 or designator.squares == 0:
        return None
    parts: list[core.Filter] = [core.PieceSet(pawn, designator.squares)]
    for test in chain.tests:
        condition = condition_set(test.attribute, color, defender_to_move, test.count)
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
