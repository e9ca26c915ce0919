"""Array forms of the set filters: designators, set operations, attacks, rays, pawns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import chess
import numpy as np

from cqllegacy.core.tree import (
    AttackedBy,
    Attacks,
    Between,
    Complement,
    DirectionSet,
    Filter,
    InSet,
    Intersection,
    PawnFeature,
    PawnStructure,
    PieceSet,
    Ray,
    SquareColor,
    Union,
    XRay,
)
from cqllegacy.evaluator.arrays.compiler import (
    ArrayCompiler,
    _form,
    _squares,
)
from cqllegacy.evaluator.arrays.positions import (
    _CHECK,
    _FULL,
    ArrayFn,
    Positions,
    RowOnly,
    Squares,
)
from cqllegacy.evaluator.position_rules import sorted_vectors
from cqllegacy.evaluator.trees import meaningful
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.pieces import (
    ANYTHING,
    BLACK_PIECES,
    NOTHING,
    WHITE_PIECES,
    piece_bit,
)
from cqllegacy.vocab.rays import BASIC_VECTORS, is_diagonal
from cqllegacy.vocab.squares import FULL, LIGHT_SQUARES


def _constant_set(squares: int) -> ArrayFn:
    value = np.uint64(squares)
    return lambda positions: np.full(positions.size, value)


@_form(PieceSet)
def _piece_set(c: ArrayCompiler, node: PieceSet) -> ArrayFn:
    constant = constant_squares(node)
    if constant is not None:
        return _constant_set(constant)
    types, mask = node.types, np.uint64(node.squares)
    return lambda positions: positions.content(types) & mask


@_form(Union)
def _union(c: ArrayCompiler, node: Union) -> ArrayFn:
    fns = [c.compile(item) for item in meaningful(node.items)]

    def union(positions: Positions) -> Squares:
        out = np.zeros(positions.size, dtype=np.uint64)
        for fn in fns:
            out = out | _squares(fn(positions))
        return out

    return union


def constant_squares(node: Filter) -> int | None:
    """The squares of a designator whose value is the same at every position (``?g2``,
    ``.``, ``[]``), else None: forms fold it into one mask instead of an array."""
    if isinstance(node, PieceSet) and (node.types in (ANYTHING, NOTHING) or node.squares == 0):
        return node.squares if node.types != NOTHING else 0
    return None


@_form(Intersection)
def _intersection(c: ArrayCompiler, node: Intersection) -> ArrayFn:
    items = meaningful(node.items)
    mask = _FULL
    for item in items:
        constant = constant_squares(item)
        if constant is not None:
            mask &= np.uint64(constant)
    fns = [c.compile(item) for item in items if constant_squares(item) is None]
    if not fns:
        return _constant_set(int(mask))

    def intersection(positions: Positions) -> Squares:
        out = _squares(fns[0](positions)) & mask
        for fn in fns[1:]:
            out &= _squares(fn(positions))
        return out

    return intersection


@_form(Complement)
def _complement(c: ArrayCompiler, node: Complement) -> ArrayFn:
    fn = c.compile(node.arg)
    return lambda positions: ~_squares(fn(positions))


@_form(SquareColor)
def _square_color(c: ArrayCompiler, node: SquareColor) -> ArrayFn:
    fn = c.compile(node.arg)
    mask = np.uint64(FULL & ~LIGHT_SQUARES if node.dark else LIGHT_SQUARES)
    return lambda positions: _squares(fn(positions)) & mask


@_form(InSet)
def _in_set(c: ArrayCompiler, node: InSet) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)
    return lambda positions: (_squares(left(positions)) & ~_squares(right(positions))) == 0


@_form(DirectionSet)
def _direction_set(c: ArrayCompiler, node: DirectionSet) -> ArrayFn:
    fn = c.compile(node.arg)
    lo, hi = min(node.lo, node.hi), max(node.lo, node.hi)
    offsets = sorted(
        {(k * dx, k * dy) for dx, dy in node.direction.vectors for k in range(lo, hi + 1)}
    )

    def moved(positions: Positions) -> Squares:
        source = _squares(fn(positions))
        out = np.zeros(positions.size, dtype=np.uint64)
        for dx, dy in offsets:
            out |= ba.shift(source, dx, dy)
        return out

    return moved


# ---- attacks -------------------------------------------------------------------------


@_form(Attacks)
def _attacks(c: ArrayCompiler, node: Attacks) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)

    def attackers(positions: Positions) -> Squares:
        return ba.either_attackers(positions, _squares(right(positions)))

    side = _checked_side(node)
    key = ("attackers of" if side is None else "checkers of", node.right)

    def checkers(positions: Positions) -> Squares:
        # Where the king's side is to move, has one king and is not in check, no enemy
        # attacks it: the stored flag says so (a position the index keeps has it).
        assert side is not None
        moves = positions.white_to_move if side else ~positions.white_to_move
        kings = positions.kings & (positions.white if side else positions.black)
        lone = (kings & (kings - np.uint64(1))) == 0
        asked = np.flatnonzero(~(moves & lone & ~positions.flag(_CHECK)))
        if len(asked) == positions.size:
            return attackers(positions)
        out = np.zeros(positions.size, dtype=np.uint64)
        if len(asked):
            out[asked] = attackers(positions.take(asked))
        return out

    def attacks(positions: Positions) -> Squares:
        # The attackers of the targets, remembered apart: the same for every binding
        # of a tag that stands among the attackers (Positions.bound).
        among = _squares(left(positions))
        return positions.remembered(key, attackers if side is None else checkers) & among

    return attacks


def _checked_side(node: Attacks) -> chess.Color | None:
    """The colour whose king alone ``node`` asks about, when only that king's enemies
    may attack it (``A attacks k``: Black); else None."""
    left, right = node.left, node.right
    if not isinstance(left, PieceSet) or not isinstance(right, PieceSet):
        return None
    for colour, enemies in ((chess.WHITE, BLACK_PIECES), (chess.BLACK, WHITE_PIECES)):
        if right.types == piece_bit(colour, chess.KING) and not left.types & ~enemies:
            return colour
    return None


@_form(AttackedBy)
def _attacked_by(c: ArrayCompiler, node: AttackedBy) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)

    def attacked_by(positions: Positions) -> Squares:
        attackers = _squares(right(positions))
        attacked = ba.attacked_by_set(positions, chess.WHITE, attackers) | ba.attacked_by_set(
            positions, chess.BLACK, attackers
        )
        return _squares(left(positions)) & attacked

    return attacked_by


# ---- lines of squares ------------------------------------------------------------------

_ORTHOGONAL = tuple(v for v in BASIC_VECTORS if not is_diagonal(v))
_DIAGONAL = tuple(v for v in BASIC_VECTORS if is_diagonal(v))


def _ray_ends(
    positions: Positions, sets: Sequence[Squares], vectors: Iterable[tuple[int, int]]
) -> Squares:
    """``rays.ray_ends`` at every position: along each vector, from each square of the
    first set, the squares of the next set in sight (empty squares between), and so on."""
    occupied = positions.occupied
    ends = np.zeros(positions.size, dtype=np.uint64)
    for files, ranks in vectors:
        frontier = sets[0]
        for targets in sets[1:]:
            frontier = ba.slide(frontier, occupied, files, ranks) & targets
        ends |= frontier
    return ends


def _ray_sets(c: ArrayCompiler, args: tuple[Filter, ...], word: str) -> list[ArrayFn]:
    if len(args) < 2:
        raise RowOnly(f"{word} needs at least two arguments")
    return [c.compile(arg) for arg in args]


@_form(Ray)
def _ray(c: ArrayCompiler, node: Ray) -> ArrayFn:
    fns = _ray_sets(c, node.args, "ray")
    vectors = sorted_vectors(node.direction.vectors)
    return lambda positions: _ray_ends(positions, [_squares(fn(positions)) for fn in fns], vectors)


@_form(XRay)
def _xray(c: ArrayCompiler, node: XRay) -> ArrayFn:
    fns = _ray_sets(c, node.args, "xray")

    def xray(positions: Positions) -> Squares:
        # As the row form: orthogonal rays from rooks and queens, diagonal ones from
        # bishops and queens, of the first set.
        first, *rest = [_squares(fn(positions)) for fn in fns]
        queens = positions.of_type(chess.QUEEN)
        straight = first & (positions.of_type(chess.ROOK) | queens)
        slanted = first & (positions.of_type(chess.BISHOP) | queens)
        return _ray_ends(positions, [straight, *rest], _ORTHOGONAL) | _ray_ends(
            positions, [slanted, *rest], _DIAGONAL
        )

    return xray


@_form(Between)
def _between(c: ArrayCompiler, node: Between) -> ArrayFn:
    left, right = c.compile(node.left), c.compile(node.right)

    def between(positions: Positions) -> Squares:
        # A square lies strictly between x and y on a line when x is behind it and y
        # ahead of it in one direction.
        lefts, rights = _squares(left(positions)), _squares(right(positions))
        empty = np.zeros(positions.size, dtype=np.uint64)
        out = np.zeros(positions.size, dtype=np.uint64)
        for files, ranks in BASIC_VECTORS:
            behind = ba.slide(lefts, empty, files, ranks)
            ahead = ba.slide(rights, empty, -files, -ranks)
            out |= behind & ahead
        return out

    return between


def _fill(bits: Squares, ranks: int) -> Squares:
    """Every square on the file of a square of ``bits``, beyond it towards ``ranks``."""
    return ba.slide(bits, np.zeros(len(bits), dtype=np.uint64), 0, ranks)


def _beside(bits: Squares) -> Squares:
    return ba.shift(bits, 1, 0) | ba.shift(bits, -1, 0)


def _pawn_feature(feature: PawnFeature, own: Squares, enemy: Squares, up: int) -> Squares:
    """As ``position_rules._pawns_with``: the pawns of ``own`` (moving ``up``) that have
    ``feature``."""
    if feature is PawnFeature.PASSED:
        # An enemy pawn ahead on its file or a neighbouring one casts a shadow behind it.
        shadow = _fill(enemy | _beside(enemy), -up)
        return own & ~shadow
    if feature is PawnFeature.DOUBLED:
        return own & (_fill(own, 1) | _fill(own, -1))
    neighbours = _beside(own)
    files = neighbours | _fill(neighbours, 1) | _fill(neighbours, -1)
    return own & files if feature is PawnFeature.CONNECTED else own & ~files


@_form(PawnStructure)
def _pawn_structure(c: ArrayCompiler, node: PawnStructure) -> ArrayFn:
    feature = node.feature

    def pawns(positions: Positions) -> Squares:
        white = positions.pieces(chess.PAWN, chess.WHITE)
        black = positions.pieces(chess.PAWN, chess.BLACK)
        return _pawn_feature(feature, white, black, 1) | _pawn_feature(feature, black, white, -1)

    return pawns
