"""Array forms that read the moves and look along the game; the row-only classes."""

from __future__ import annotations

from collections.abc import Callable

import chess
import numpy as np
from numpy.typing import NDArray

from cqllegacy.core.tree import (
    Ancestor,
    AtPosition,
    Castling,
    CastlingRights,
    Distance,
    FenIs,
    Filter,
    Find,
    GameHas,
    HalfmoveClock,
    HypotheticalLine,
    Line,
    LineGroup,
    LineReached,
    Move,
    PieceLoop,
    PieceVariable,
    PlyCount,
    PositionIntersection,
    PositionVariable,
    RayCount,
    ScidbBoardTest,
    SquareLoop,
    SquareVariable,
)
from cqllegacy.evaluator.arrays.compiler import (
    ARRAY_FORMS,
    ArrayCompiler,
    Candidates,
    _candidate_form,
    _everywhere,
    _form,
    _squares,
)
from cqllegacy.evaluator.arrays.positions import (
    ArrayFn,
    Bools,
    Numbers,
    Positions,
    RowOnly,
    Squares,
    Truth,
    Value,
    bound_column,
)
from cqllegacy.evaluator.arrays.set_forms import constant_squares
from cqllegacy.evaluator.line_rules import StepAutomaton
from cqllegacy.vocab.pieces import (
    TypeSet,
)

# ---- the move ------------------------------------------------------------------------


#: A move's squares at each position, or (a constant designator) one mask for all.
_MoveSquares = Callable[[Positions], Squares | np.uint64]


@_form(Move)
def _move(c: ArrayCompiler, node: Move) -> ArrayFn:
    def optional(arg: Filter | None) -> _MoveSquares | None:
        if arg is None:
            return None
        constant = constant_squares(arg)
        if constant is not None:
            # The same squares everywhere: one mask, not an array per position.
            mask = np.uint64(constant)
            return lambda positions: mask
        fn = c.compile(arg)
        return lambda positions: _squares(fn(positions))

    from_, to, capture = optional(node.from_), optional(node.to), optional(node.capture)
    bare = (from_, to, capture, node.promote, node.enpassant, node.castle) == (
        None, None, None, None, False, None,
    )  # fmt: skip
    promote, enpassant, castle = node.promote, node.enpassant, node.castle

    def next_move(positions: Positions) -> Bools:
        if bare:
            # A null move is a move too, for a bare ``move``.
            return ~positions.last
        out = positions.moved.copy()
        if enpassant:
            out &= positions.en_passant
        if castle is not None:
            side = positions.kingside if castle is Castling.KINGSIDE else ~positions.kingside
            out &= positions.castles & side
        if promote is not None:
            out &= _promotes_to(positions, promote)
        if from_ is not None:
            out &= (from_(positions) & positions.from_bit) != 0
        if to is not None:
            out &= (to(positions) & positions.destination) != 0
        if capture is not None:
            out &= (capture(positions) & positions.captured) != 0
        return out

    if node.previous:
        return lambda positions: positions.previous_ply(next_move(positions))
    return next_move


def _promotes_to(positions: Positions, types: TypeSet) -> Bools:
    """Whether the move promotes to a piece of ``types`` (of the mover's colour)."""
    out = np.zeros(positions.size, np.bool_)
    for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        for color, shift in ((chess.WHITE, 0), (chess.BLACK, 6)):
            if types >> (piece_type - 1 + shift) & 1:
                mover = positions.white_to_move if color else ~positions.white_to_move
                out |= mover & (positions.promotion == piece_type)
    return out


# ---- along the game ------------------------------------------------------------------


@_form(Find)
def _find(c: ArrayCompiler, node: Find) -> ArrayFn:
    test = c.truth(node.arg)

    def find(positions: Positions) -> Value:
        holds = test(positions)
        if not node.all:
            return _somewhere_from_here(positions, holds)
        # The positions from here to the game's end where the argument holds: a count
        # from the end of each game.
        after = _from_the_end(positions, holds.astype(np.int64))
        return Numbers(after, np.ones(positions.size, np.bool_))

    return find


def _somewhere_from_here(positions: Positions, holds: Bools) -> Bools:
    """Per position, whether ``holds`` somewhere from it to the end of its game: it is
    not after the last position of its game that holds."""
    rows = np.flatnonzero(holds)
    if not len(rows):
        return np.zeros(positions.size, np.bool_)
    games = positions.game_index[rows]
    last_of_game = np.append(games[1:] != games[:-1], True)
    last = np.full(int(positions.game_index[-1]) + 1, -1, dtype=np.int64)
    last[games[last_of_game]] = rows[last_of_game]
    return positions.rows <= last[positions.game_index]


def _from_the_end(positions: Positions, values: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per position, the sum of ``values`` from it to the end of its game."""
    total = np.cumsum(values[::-1])[::-1]
    # What follows the game: the total of the first position of the next game.
    ends = np.flatnonzero(positions.last)
    after_end = ends + 1
    inside = after_end < positions.size
    per_game_rest = np.zeros(len(ends), dtype=np.int64)
    per_game_rest[inside] = total[after_end[inside]]
    following = np.repeat(per_game_rest, np.diff(np.append(-1, ends)))
    return total - following


@_form(Line)
def _line(c: ArrayCompiler, node: Line) -> ArrayFn:
    if node.steps and _single_steps(node):
        return _everywhere(c.truth_at(node))
    automaton = StepAutomaton.of(node.steps, c.truth)
    return lambda positions: _accepting(automaton, positions)


@_candidate_form(Line)
def _line_at(c: ArrayCompiler, node: Line) -> Candidates:
    if not (node.steps and _single_steps(node)):
        automaton = StepAutomaton.of(node.steps, c.truth)
        return lambda positions, rows: _accepting(automaton, positions)[rows]
    steps = [c.truth_at(step.filter) for step in node.steps]

    def single_steps(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        # The k-th constituent k plies on, in the same game, asked only where the
        # constituents before it held.
        left = rows
        for k, step in enumerate(steps):
            target = left + k
            inside = target < positions.size
            inside[inside] = positions.game[target[inside]] == positions.game[left[inside]]
            left = left[inside]
            if not len(left):
                break
            left = left[step(positions, left + k)]
        return np.isin(rows, left, assume_unique=True)

    return single_steps


def _single_steps(node: Line) -> bool:
    """Whether each constituent of the line is matched exactly once (no group)."""
    return all(
        (step.lo, step.hi) == (1, 1) and not isinstance(step.filter, LineGroup)
        for step in node.steps
    )


def _accepting(automaton: StepAutomaton[Truth], positions: Positions) -> Bools:
    """Where the line matches: the automaton followed backwards from each game's end
    (past its last position, where no constituent holds) to its start, every game at
    once, one distance from the end at a time."""
    n, states = positions.size, len(automaton.reads)
    # Rows 0..n-1 are the positions; row n + g is the place past the end of game g.
    games = len(positions.starts)
    ends = np.flatnonzero(positions.last)
    past_end = n + np.arange(games)
    next_row = np.arange(1, n + 1)
    next_row[ends] = past_end
    distance = np.empty(n + games, dtype=np.int64)
    distance[:n] = np.repeat(ends, np.diff(np.append(-1, ends))) - np.arange(n) + 1
    distance[n:] = 0
    reads = [
        [(np.append(test(positions), np.zeros(games, np.bool_)), t) for test, t in found]
        for found in automaton.reads
    ]
    accepted = [np.zeros(n + games, np.bool_) for _ in range(states)]
    accepted[automaton.accept][:] = True
    order = np.argsort(distance, kind="stable")
    bounds = np.searchsorted(distance[order], np.arange(distance.max(initial=0) + 2))
    for d in range(len(bounds) - 1):
        rows = order[bounds[d] : bounds[d + 1]]
        if d:
            later = next_row[rows]
            for s in range(states):
                for holds, t in reads[s]:
                    accepted[s][rows] |= holds[rows] & accepted[t][later]
        # The skips at the same place, until nothing changes (there are few states).
        changed = True
        while changed:
            changed = False
            for s in range(states):
                for t in automaton.skips[s]:
                    grown = accepted[s][rows] | accepted[t][rows]
                    if (grown != accepted[s][rows]).any():
                        accepted[s][rows] = grown
                        changed = True
    return accepted[0][:n]


# ---- row only --------------------------------------------------------------------------


@_form(PieceVariable)
def _piece_variable(c: ArrayCompiler, node: PieceVariable) -> ArrayFn:
    column = bound_column(node.name)

    def bound(positions: Positions) -> Squares:
        # A binding's squares (Positions.bound); without one, the rows bind.
        if column not in positions.columns:
            raise RowOnly(f"the piece variable {node.name} is bound by rows")
        return positions.column(column)

    return bound


ARRAY_FORMS.absent(
    PieceLoop,
    reason="it follows pieces through the game (their identities), which the index does not store",
)
ARRAY_FORMS.absent(
    SquareVariable, SquareLoop, PositionVariable, AtPosition, PositionIntersection,
    Ancestor, Distance,
    reason="it binds a variable (a square or a position) that each position tries in turn",
)  # fmt: skip
ARRAY_FORMS.absent(
    LineGroup,
    reason="a group of constituents is followed only by its line's automaton (Line's form)",
)
ARRAY_FORMS.absent(
    HypotheticalLine,
    reason="it generates legal moves from a whole board, which stored positions do not keep",
)
ARRAY_FORMS.absent(
    RayCount,
    reason="legacy ray counting places inner designators square by square (decision L20)",
)

ARRAY_FORMS.absent(
    FenIs,
    reason="it compares the castling rights and a legal en passant capture of python-chess's board",
)
ARRAY_FORMS.absent(
    LineReached,
    reason="it plays moves from each game's own start position, which the index does not store",
)
ARRAY_FORMS.absent(
    GameHas,
    reason="it reads the game's comments, NAGs and variations, which the index does not store",
)
ARRAY_FORMS.absent(
    ScidbBoardTest, HalfmoveClock, CastlingRights,
    reason="Scidb's legal-move count, repetitions, half-move clock (from a FEN's clock) and"
    " castling rights (python-chess's cleaned ones, Chess960 included) are read from its boards",
)  # fmt: skip


@_form(PlyCount)
def _ply_count(c: ArrayCompiler, node: PlyCount) -> ArrayFn:
    """Scidb's ``:plycount``: the plies of the game's main line, at each of its positions."""

    def plies(positions: Positions) -> Numbers:
        # It looks along the game: at_ply refuses a view of some positions (RowOnly).
        positions.at_ply(positions.ply, 0)
        game_index = np.cumsum(positions.first) - 1
        last_ply = positions.ply[positions.last]
        return Numbers(last_ply[game_index], np.ones(positions.size, np.bool_))

    return plies
