"""Evaluator rules for the legacy-only nodes: ray counting (decision L20) and the
relation between two positions (semantics: S-relation, decision L18).

>>> from cqllegacy.evaluator.evaluate import evaluate_filter
>>> from cqllegacy.vocab.squares import Direction
>>> from cqllegacy.evaluator.testing import pd, position
>>> rooks = position("4k3/8/8/8/8/8/R6R/4K3 w - - 0 1")
>>> evaluate_filter(RayCount((pd("R"), pd("R")), (Direction.LEFT, Direction.RIGHT)), rooks)
2
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import attrs
import chess

from cqllegacy.core.tree import (
    CheckKind,
    FixedMove,
    HypotheticalLine,
    HypotheticalMove,
    LineReached,
    RayCount,
    Relation,
    RelationScope,
    RelationSideToMove,
)
from cqllegacy.evaluator.compiler import (
    REFERENCE_RULES,
    Compiled,
    Compiler,
    Context,
    QueryError,
    as_logical,
    as_number,
    in_bounds,
)
from cqllegacy.evaluator.position_rules import sorted_vectors
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import TypeSet, content_bit, piece_bit
from cqllegacy.vocab.rays import ray_count, translate
from cqllegacy.vocab.squares import Dihedral, file_of, iter_squares, rank_of

__all__: list[str] = []

#: Files a reference rule of this module under its node class.
_rule = REFERENCE_RULES.register


# --------------------------------------------------------------------------------------
# Legacy-only constructs
# --------------------------------------------------------------------------------------


@_rule(RayCount)
def _ray_count(c: Compiler, node: RayCount) -> Compiled:
    if len(node.args) < 2:
        raise QueryError("a ray specifier needs at least two designators")
    fns = tuple(c.set_fn(arg) for arg in node.args)
    vectors = sorted_vectors(frozenset(v for d in node.directions for v in d.vectors))
    attack = node.attack

    def count(ctx: Context, p: int) -> int:
        sets = [fn(ctx, p) for fn in fns]
        if not sets[0] or not sets[-1]:
            return 0
        board = ctx.boards[p]
        sliders = None
        if attack:
            sliders = (board.rooks | board.queens, board.bishops | board.queens)
        return ray_count(board.occupied, sets, vectors, sliders)

    return as_number(count)


@_rule(HypotheticalLine)
def _hypothetical_line(c: Compiler, node: HypotheticalLine) -> Compiled:
    moves = node.moves

    def holds(ctx: Context, p: int) -> bool:
        return _continues(ctx.boards[p].copy(stack=False), moves)

    return as_logical(holds)


def _continues(board: chess.Board, moves: tuple[HypotheticalMove, ...]) -> bool:
    """Some legal moves from ``board`` match ``moves`` one after another (X3)."""
    if not moves:
        return True
    step, rest = moves[0], moves[1:]
    legal = list(board.legal_moves)
    if step.forced and len(legal) != 1:
        return False
    for move in legal:
        if not _move_matches(board, move, step):
            continue
        board.push(move)
        try:
            if _checks_hold(board, step) and _continues(board, rest):
                return True
        finally:
            board.pop()
    return False


def _move_matches(board: chess.Board, move: chess.Move, step: HypotheticalMove) -> bool:
    # The from and to descriptions of the legacy move keywords (semantics: S-moves).
    if not (step.from_squares >> move.from_square & 1 and step.to_squares >> move.to_square & 1):
        return False
    if not content_bit(board.piece_at(move.from_square)) & step.from_types:
        return False
    if not content_bit(board.piece_at(move.to_square)) & step.to_types:
        return False
    if step.enpassant and not board.is_en_passant(move):
        return False
    if step.promote_types is None:
        return True
    return move.promotion is not None and bool(
        piece_bit(board.turn, move.promotion) & step.promote_types
    )


def _checks_hold(board: chess.Board, step: HypotheticalMove) -> bool:
    """The checks ``step`` asks of the position it led to."""
    return all(_gives(board, kind) != negated for kind, negated in step.checks)


def _gives(board: chess.Board, kind: CheckKind) -> bool:
    checkers = board.checkers()
    if kind is CheckKind.MATE:
        return board.is_checkmate()
    if kind is CheckKind.CHECK:
        return bool(checkers)
    if kind is CheckKind.DOUBLECHECK:
        return len(checkers) >= 2
    # A contact check cannot be blocked: a double check, a knight or pawn check, or a
    # check from a square next to the king (the dialect's :contactcheck).
    if not checkers:
        return False
    if len(checkers) >= 2:
        return True
    (checker,) = list(checkers)
    king = board.king(board.turn)
    if board.piece_type_at(checker) in (chess.KNIGHT, chess.PAWN):
        return True
    return king is not None and chess.square_distance(checker, king) == 1


@_rule(LineReached)
def _line_reached(c: Compiler, node: LineReached) -> Compiled:
    # X3 (:line*): the position the moves reach from the game's start, once per game.
    key = ("line*", node)

    def holds(ctx: Context, p: int) -> bool:
        if key not in ctx.memo:
            ctx.memo[key] = reached_position(ctx.boards[0], node)
        target = ctx.memo[key]
        return target is not None and _board_key(ctx.boards[p]) == target

    return as_logical(holds)


def _board_key(board: chess.Board) -> tuple[int, ...]:
    """What :class:`LineReached` compares: placement, side to move, castling rights."""
    return (
        *board.occupied_co,
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        int(board.turn),
        board.clean_castling_rights(),
    )


def reached_position(start: chess.Board, node: LineReached) -> tuple[int, ...] | None:
    """The key (:func:`_board_key`) of the position ``node``'s moves reach from
    ``start``, or None when they cannot be played there or the last move's checks fail."""
    board = start.copy(stack=False)
    if node.white_first is not None and board.turn != node.white_first:
        return None
    for step in node.moves:
        found = [move for move in board.legal_moves if _fixed_move_fits(board, move, step)]
        if len(found) != 1:
            return None
        board.push(found[0])
    if not all(_gives(board, kind) != negated for kind, negated in node.checks):
        return None
    return _board_key(board)


def _fixed_move_fits(board: chess.Board, move: chess.Move, step: FixedMove) -> bool:
    """``move`` is the one ``step`` names (a castling is the king's move to its landing
    square, in Chess960 too)."""
    if board.is_castling(move):
        king = move.from_square
        kingside = board.is_kingside_castling(move)
        landing = chess.square(6 if kingside else 2, chess.square_rank(king))
        if step.castling:
            return chess.square_file(step.to_square) == chess.square_file(landing)
        return (
            step.piece == chess.KING
            and (step.from_square, step.to_square) == (king, landing)
            and step.captured is None
        )
    if step.castling or (step.from_square, step.to_square) != (move.from_square, move.to_square):
        return False
    if board.piece_type_at(move.from_square) != step.piece or move.promotion != step.promotion:
        return False
    if board.is_en_passant(move):
        return step.enpassant
    return not step.enpassant and board.piece_type_at(move.to_square) == step.captured


def _type_bits(types: TypeSet) -> tuple[int, ...]:
    """The indices (0..11, as in a type set) of the piece kinds ``types`` admits."""
    return tuple(i for i in range(12) if types >> i & 1)


def _union_of(boards: tuple[int, ...], kinds: tuple[int, ...]) -> int:
    out = 0
    for i in kinds:
        out |= boards[i]
    return out


_EVERY_KIND = tuple(range(12))


def _same_pieces(ones: tuple[int, ...], twos: tuple[int, ...]) -> int:
    """Squares holding the same piece in both placements."""
    out = 0
    for a, b in zip(ones, twos, strict=True):
        out |= a & b
    return out


@attrs.frozen(repr=False, slots=True)
class _RelationTest(Record):
    """Legacy ``:relation`` between P1 and a later P2, on 12-bitboard piece placements.

    P2 may be turned by a dihedral map and then shifted (when ``flip``/``shift`` allow);
    pieces shifted off the board are gone, squares shifted in from outside are empty.
    """

    node: Relation
    missing_kinds: tuple[int, ...]
    new_kinds: tuple[int, ...]
    dihedrals: tuple[Dihedral, ...]

    @classmethod
    def of(cls, node: Relation) -> _RelationTest:
        dihedrals = tuple(Dihedral) if node.flip else (Dihedral.IDENTITY,)
        return cls(node, _type_bits(node.missing[0]), _type_bits(node.new[0]), dihedrals)

    def side_ok(self, first: chess.Board, second: chess.Board) -> bool:
        rule = self.node.side_to_move
        if rule is RelationSideToMove.IGNORE:
            return True
        return (first.turn == second.turn) == (rule is RelationSideToMove.SAME)

    def related(self, ctx: Context, p1: int, p2: int) -> bool:
        if not self.side_ok(ctx.boards[p1], ctx.boards[p2]):
            return False
        ones, twos = ctx.piece_boards(p1), ctx.piece_boards(p2)
        if not self.original_counts_ok(ones, twos):
            return False
        for dihedral in self.dihedrals:
            turned = tuple(dihedral.map_set(bb) for bb in twos)
            for dx, dy in self.offsets(ones, turned):
                moved = turned if dx == dy == 0 else tuple(translate(b, dx, dy) for b in turned)
                if self.compatible(ones, moved):
                    return True
        return False

    def original_counts_ok(self, ones: tuple[int, ...], twos: tuple[int, ...]) -> bool:
        """The ``original…`` counts, which compare P2 untransformed (L18)."""
        allowable = self.node.allowable
        same = _same_pieces(ones, twos)
        occupied1, occupied2 = _union_of(ones, _EVERY_KIND), _union_of(twos, _EVERY_KIND)
        different = (occupied1 ^ occupied2) | (occupied1 & occupied2 & ~same)
        different_ok = in_bounds((different & allowable).bit_count(), self.node.original_different)
        return different_ok and in_bounds((same & allowable).bit_count(), self.node.original_same)

    def offsets(self, ones: tuple[int, ...], turned: tuple[int, ...]) -> Iterator[tuple[int, int]]:
        """The shifts worth trying: all 225, unless the missing-piece bound forces one of a
        few P1 pieces to be matched by an equal P2 piece, which pins the shift down."""
        if not self.node.shift:
            yield (0, 0)
            return
        bound = self.node.missing[2]
        countable = _union_of(ones, self.missing_kinds) & self.node.allowable
        if bound is None or countable.bit_count() <= bound:
            yield from ((dx, dy) for dy in range(-7, 8) for dx in range(-7, 8))
            return
        # Of any bound+1 countable P1 pieces at least one must be matched after the shift.
        tried: set[tuple[int, int]] = set()
        for target in itertools.islice(iter_squares(countable), bound + 1):
            kind = next(i for i in _EVERY_KIND if ones[i] >> target & 1)
            for source in iter_squares(turned[kind]):
                offset = (file_of(target) - file_of(source), rank_of(target) - rank_of(source))
                if offset not in tried:
                    tried.add(offset)
                    yield offset

    def compatible(self, ones: tuple[int, ...], twos: tuple[int, ...]) -> bool:
        """No allowable square holds different pieces; missing and new counts in range."""
        allowable = self.node.allowable
        occupied1, occupied2 = _union_of(ones, _EVERY_KIND), _union_of(twos, _EVERY_KIND)
        if occupied1 & occupied2 & allowable & ~_same_pieces(ones, twos):
            return False
        missing = occupied1 & ~occupied2 & allowable & _union_of(ones, self.missing_kinds)
        new = occupied2 & ~occupied1 & allowable & _union_of(twos, self.new_kinds)
        _, missing_lo, missing_hi = self.node.missing
        _, new_lo, new_hi = self.node.new
        return in_bounds(missing.bit_count(), (missing_lo, missing_hi)) and in_bounds(
            new.bit_count(), (new_lo, new_hi)
        )


def _main_chain(ctx: Context, p: int) -> Iterator[int]:
    q = ctx.table.main_child[p]
    while q >= 0:
        yield q
        q = ctx.table.main_child[q]


def _later_positions(ctx: Context, p: int, scope: RelationScope) -> Iterator[int]:
    if scope is RelationScope.MAINLINE:
        return _main_chain(ctx, p)
    later = range(p + 1, ctx.table.subtree_end[p])
    if scope is RelationScope.ALL:
        return iter(later)
    chain = set(_main_chain(ctx, p))
    return (q for q in later if q not in chain)


@_rule(Relation)
def _relation(c: Compiler, node: Relation) -> Compiled:
    test = _RelationTest.of(node)
    scope = node.scope
    return as_logical(
        lambda ctx, p: any(test.related(ctx, p, q) for q in _later_positions(ctx, p, scope))
    )
