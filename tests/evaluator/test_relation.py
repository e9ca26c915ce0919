"""The relation operator (:class:`~cqllegacy.evaluator.operators.relation.RelationOperator`) part by
part: its shortcuts against their definitions, square by square and position by position
on real games, and its answers against the reference rule at every position."""

from __future__ import annotations

import bz2
import io
import random
from collections.abc import Iterator
from importlib import resources
from typing import Any

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as ct
from cqllegacy.core.relation_echo import echo_of, transformed_board
from cqllegacy.evaluator.compiler import Compiler, Context
from cqllegacy.evaluator.evaluate import REFERENCE_RULES
from cqllegacy.evaluator.gametree import GameInfo, PositionTable
from cqllegacy.evaluator.lowering import LOWERING
from cqllegacy.evaluator.operators.placements import skip
from cqllegacy.evaluator.operators.relation import RelationOperator, RelationParameters
from cqllegacy.evaluator.testing import position
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, BLACK_PIECES, WHITE_PIECES, types_of
from cqllegacy.vocab.rays import translate
from cqllegacy.vocab.squares import FULL, Dihedral, iter_squares


def _games() -> list[chess.pgn.Game]:
    data = (resources.files("cqllegacy") / "data" / "wcc.pgn.bz2").read_bytes()
    out = []
    with bz2.open(io.BytesIO(data), "rt", encoding="latin-1") as handle:
        for _ in range(3):
            game = chess.pgn.read_game(handle)
            assert game is not None
            out.append(game)
    return out


CONTEXTS = []
for _game in _games():
    _table = PositionTable.build(_game, variations=True, identities=False)
    CONTEXTS.append(Context(_table, GameInfo.from_headers(_game.headers)))


def _params(
    *,
    missing: tuple[int, int, int | None] = (ANYTHING, 0, None),
    new: tuple[int, int, int | None] = (ANYTHING, 0, None),
    allowable: int = FULL,
    shift: bool = False,
    flip: bool = False,
    same_side: bool | None = None,
    original_different: tuple[int, int | None] | None = None,
    original_same: tuple[int, int | None] | None = None,
) -> RelationParameters:
    turned = [d for d in Dihedral if flip and d is not Dihedral.IDENTITY]
    return RelationParameters(
        allowable=allowable,
        missing=missing,
        new=new,
        original_different=original_different,
        original_same=original_same,
        same_side=same_side,
        main_chain=True,
        off_chain=False,
        dihedrals=tuple(d.map_set for d in (Dihedral.IDENTITY, *turned)),
        shift=shift,
    )


def _content(board: chess.Board, square: int) -> chess.Piece | None:
    return board.piece_at(square)


def _blocked_by_definition(
    op: RelationOperator, one: chess.Board, two: chess.Board, allowable: int
) -> int:
    """Squares on which the pair fails whatever else holds: both occupied (P1 on the
    allowable squares) by different pieces; with no new piece allowed, a counted P2 piece
    where P1 has none; with no missing piece allowed, a counted P1 piece P2 lacks."""
    missing_types, new_types = op.params.missing[0], op.params.new[0]
    out = 0
    for square in iter_squares(allowable):
        first, second = _content(one, square), _content(two, square)
        bit = 1 << square
        if first is not None and second is not None and first != second:
            out |= bit
        if op.blocks_new and first is None and second and types_of(second.symbol()) & new_types:
            out |= bit
        if (
            op.blocks_missing
            and second is None
            and first
            and types_of(first.symbol()) & missing_types
        ):
            out |= bit
    return out


_COUNTS = st.sampled_from([(0, 0), (0, None), (1, 2)])
_TYPES = st.sampled_from([ANYTHING, types_of("Pp"), ANY_PIECE, types_of("RNBQK")])
_ALLOWABLE = st.sampled_from([FULL, chess.BB_RANK_2 | chess.BB_RANK_7, chess.BB_CENTER])


@st.composite
def _operators(draw: st.DrawFn) -> tuple[RelationOperator, int]:
    allowable = draw(_ALLOWABLE)
    params = _params(
        missing=(draw(_TYPES), *draw(_COUNTS)),
        new=(draw(_TYPES), *draw(_COUNTS)),
        allowable=allowable,
    )
    return RelationOperator(params), allowable


def _pairs(ctx: Context, step: int) -> Iterator[tuple[int, int]]:
    end = ctx.table.mainline_length
    for p in range(0, end, step):
        for q in range(p + 1, end, step):
            yield p, q


@settings(max_examples=12, deadline=None)
@given(_operators())
def test_blocking_squares_are_those_the_definition_names(
    found: tuple[RelationOperator, int],
) -> None:
    op, allowable = found
    ctx = CONTEXTS[0]
    rows = op.rows(ctx)
    for p, q in _pairs(ctx, 9):
        expected = _blocked_by_definition(op, ctx.boards[p], ctx.boards[q], allowable)
        assert op.blocking(rows[p], rows[q]) == expected


@settings(max_examples=12, deadline=None)
@given(_operators())
def test_the_main_line_scan_skips_only_positions_that_fail(
    found: tuple[RelationOperator, int],
) -> None:
    op, _ = found
    for ctx in CONTEXTS:
        rows, end = op.rows(ctx), ctx.table.mainline_length
        line = op.changes(ctx)
        for p in range(0, end, 7):
            one = rows[p]
            horizon = line.horizon(op.blocking(one, rows[end - 1]), p, end)
            # From the horizon on every position fails.
            assert all(op.blocking(one, rows[q]) for q in range(horizon, end))
            for q in range(p + 1, end, 5):
                blocked = op.blocking(one, rows[q])
                if blocked:
                    skipped_to = skip(line.moments, blocked, q, end)
                    assert all(op.blocking(one, rows[r]) for r in range(q, skipped_to))


class _EveryShift(RelationOperator):
    """The operator trying all 225 shifts, as the reference rule does."""

    def offsets(self, one: object, two: object) -> Iterator[tuple[int, int]]:
        return ((dx, dy) for dy in range(-7, 8) for dx in range(-7, 8))


@pytest.mark.parametrize("bound", [0, 1, 3])
def test_the_shifts_tried_are_enough(bound: int) -> None:
    """With a missing bound, the shifts that put none of bound + 1 counted P1 pieces on a
    piece of their kind are left out: they never fit."""
    params = _params(missing=(ANYTHING, 0, bound), shift=True)
    fast, slow = RelationOperator(params), _EveryShift(params)
    ctx = CONTEXTS[1]
    related = 0
    # Near positions: they often relate (a move or two apart), far ones seldom.
    for p in range(ctx.table.mainline_length - 3):
        one = fast.first(ctx, {}, p)
        for q in (p + 1, p + 3):
            answer = slow.related(one, ctx, {}, q)
            assert fast.related(one, ctx, {}, q) == answer
            related += answer
    assert related or bound == 0


@pytest.mark.parametrize(
    "relation",
    [
        ct.Relation(missing=(ANY_PIECE, 0, 0), new=(ANY_PIECE, 0, 0)),
        ct.Relation(missing=(types_of("Pp"), 1, 2), new=(ANYTHING, 0, 0)),
        ct.Relation(original_same=(20, None), side_to_move=ct.RelationSideToMove.IGNORE),
        ct.Relation(missing=(ANYTHING, 0, 1), new=(ANYTHING, 0, 1), flip=True),
        ct.Relation(
            allowable=chess.BB_RANK_1 | chess.BB_RANK_2,
            missing=(ANYTHING, 0, 0),
            new=(ANYTHING, 0, 2),
            side_to_move=ct.RelationSideToMove.CHANGE,
        ),
    ],
)
def test_every_answer_is_the_reference_rules(relation: ct.Relation) -> None:
    lowered = Compiler(REFERENCE_RULES, LOWERING).truth(relation)
    reference = Compiler(REFERENCE_RULES).truth(relation)
    for ctx in CONTEXTS:
        for scope in (ct.Scope.MAINLINE, ct.Scope.ALL):
            ctx.set_scope(scope)
            for p in range(0, len(ctx.table), 3):
                assert lowered(ctx, p) == reference(ctx, p)
        ctx.set_scope(ct.Scope.MAINLINE)


_ECHOED = [
    ct.Relation(missing=(ANY_PIECE, 1, 10), new=(ANY_PIECE, 0, 0)),
    ct.Relation(missing=(ANY_PIECE, 1, 10), new=(ANY_PIECE, 0, 0), scope=ct.RelationScope.ALL),
    ct.Relation(scope=ct.RelationScope.ALL, side_to_move=ct.RelationSideToMove.IGNORE),
    ct.Relation(scope=ct.RelationScope.VARIATIONS),
    ct.Relation(
        missing=(ANYTHING, 0, None),
        new=(ANYTHING, 0, None),
        original_different=(1, 4),
        scope=ct.RelationScope.VARIATIONS,
    ),
    ct.Relation(),
    ct.Relation(missing=(types_of("Pp"), 1, 2), new=(ANYTHING, 0, 0)),
    ct.Relation(original_same=(20, None), side_to_move=ct.RelationSideToMove.IGNORE),
    ct.Relation(
        original_different=(1, 3),
        missing=(ANYTHING, 0, None),
        new=(ANYTHING, 0, None),
        side_to_move=ct.RelationSideToMove.CHANGE,
    ),
    ct.Relation(
        allowable=chess.BB_RANK_1 | chess.BB_RANK_2,
        missing=(ANYTHING, 0, 0),
        new=(WHITE_PIECES, 1, None),
    ),
]


def _with_variations() -> Context:
    """A game whose variation repeats its positions: there the relation's "later" follows
    the variation, while the echo's ``mainline`` targets are none of its descendants."""
    text = "1. Nf3 Nf6 2. Ng1 (2. Nc3 Ng8 3. Nb1 Nf6 4. Nc3 Ng8 5. Nb1) 2... Ng8 3. e4 *"
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return Context(PositionTable.build(game, variations=True, identities=False), GameInfo())


@pytest.mark.parametrize("relation", _ECHOED)
def test_the_echo_of_a_relation_answers_as_its_reference_rule(relation: ct.Relation) -> None:
    """The translator's ``echo`` of a relation is lowered to the relation's operator
    (or, inside a variation, its own rule): at every position, in either scope, the
    reference rule's answer."""
    echo = echo_of(relation)
    assert isinstance(echo, ct.Echo)
    lowered = Compiler(REFERENCE_RULES, LOWERING)
    assert LOWERING[ct.Echo](lowered, echo) is not None
    fast, reference = lowered.truth(echo), Compiler(REFERENCE_RULES).truth(echo)
    matched = 0
    for ctx in [*CONTEXTS, _with_variations()]:
        for scope in (ct.Scope.MAINLINE, ct.Scope.ALL):
            ctx.set_scope(scope)
            for p in range(0, len(ctx.table), 1 if len(ctx.table) < 20 else 2):
                answer = reference(ctx, p)
                assert fast(ctx, p) == answer
                matched += answer
        ctx.set_scope(ct.Scope.MAINLINE)
    assert matched


#: Shifted relations of the CQL 6.1 text and their patterns (fixtures 139 and 150 and the
#: like): a king or a castled rook met again elsewhere, a knight of the game with
#: variations, in every scope.
_SHIFTED_ECHOED = [
    (ct.Relation(allowable=1 << chess.G1, shift=True, original_same=(0, 0)), {chess.G1: "K"}),
    (
        ct.Relation(
            allowable=1 << chess.G1 | 1 << chess.F1,
            shift=True,
            side_to_move=ct.RelationSideToMove.IGNORE,
            scope=ct.RelationScope.ALL,
        ),
        {chess.G1: "K", chess.F1: "R"},
    ),
    (ct.Relation(allowable=1 << chess.E8, shift=True), {chess.E8: "k"}),
    (
        ct.Relation(allowable=1 << chess.F3, shift=True, scope=ct.RelationScope.VARIATIONS),
        {chess.F3: "N"},
    ),
    (
        ct.Relation(
            allowable=1 << chess.F3,
            shift=True,
            side_to_move=ct.RelationSideToMove.CHANGE,
            original_different=(1, None),
        ),
        {chess.F3: "N"},
    ),
]


@pytest.mark.parametrize(("relation", "pieces"), _SHIFTED_ECHOED)
def test_the_echo_of_a_shifted_relation_answers_as_its_reference_rule(
    relation: ct.Relation, pieces: dict[int, str]
) -> None:
    """The ``echo`` of a shifted relation says the relation where the position holds its
    pattern: the operator answers there, the reference rule elsewhere; at every position,
    in either scope, the reference rule's answer."""
    pattern = {square: types_of(letter) for square, letter in pieces.items()}
    echo = echo_of(relation, [transformed_board(relation, pattern)])
    assert isinstance(echo, ct.Echo)
    lowered = Compiler(REFERENCE_RULES, LOWERING)
    assert LOWERING[ct.Echo](lowered, echo) is not None
    fast, reference = lowered.truth(echo), Compiler(REFERENCE_RULES).truth(echo)
    holds = Compiler(REFERENCE_RULES).truth(
        ct.Compound(tuple(ct.PieceSet(t, 1 << s) for s, t in pattern.items()))
    )
    matched = held = 0
    for ctx in [*CONTEXTS, _with_variations()]:
        for scope in (ct.Scope.MAINLINE, ct.Scope.ALL):
            ctx.set_scope(scope)
            for p in range(len(ctx.table)):
                answer = reference(ctx, p)
                assert fast(ctx, p) == answer
                matched += answer
                held += holds(ctx, p)
        ctx.set_scope(ct.Scope.MAINLINE)
    assert matched and held


def test_the_echo_of_a_turned_relation_keeps_its_reference_rule() -> None:
    # Its keyed orbit of the pattern is faster than the operator's eight turns.
    relation = ct.Relation(allowable=1 << chess.G1, shift=True, flip=True)
    echo = echo_of(relation, [transformed_board(relation, {chess.G1: types_of("K")})])
    assert LOWERING[ct.Echo](Compiler(REFERENCE_RULES, LOWERING), echo) is None


def test_an_echo_of_another_shape_keeps_its_reference_rule() -> None:
    echo = echo_of(ct.Relation(missing=(ANY_PIECE, 1, None)))
    assert isinstance(echo, ct.Echo)
    compiler = Compiler(REFERENCE_RULES, LOWERING)
    assert LOWERING[ct.Echo](compiler, echo.replace(in_all=True)) is None
    assert isinstance(echo.body, ct.Compound)
    ancestor, mainline, *rest = echo.body.items
    assert isinstance(ancestor, ct.Ancestor) and mainline == ct.Simple(ct.Keyword.MAINLINE)
    swapped = ct.Ancestor(ancestor.right, ancestor.left)
    moved = (ancestor, mainline, *rest[1:], rest[0])  # the side compared last
    for items in ((mainline, ancestor, *rest), (swapped, mainline, *rest), moved):
        other = echo.replace(body=ct.Compound(tuple(items)))
        assert LOWERING[ct.Echo](compiler, other) is None


# --------------------------------------------------------------------------------------
# Shifts pinned by pieces, and later positions tried by one intersection: against the
# reference rule on short games from sparse random positions, where whole placements
# shift and pieces shifted off the board vanish.
# --------------------------------------------------------------------------------------


def _sparse_game(seed: int) -> chess.pgn.Game:
    """Kings and a few pieces on random squares, then random moves; one side line."""
    rng = random.Random(seed)
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + rng.randint(1, 5))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2:]:
            piece_type = rng.choice([chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN])
            board.set_piece_at(square, chess.Piece(piece_type, rng.random() < 0.5))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            break
    game = chess.pgn.Game()
    game.setup(board)
    node: chess.pgn.GameNode = game
    for ply in range(rng.randint(6, 16)):
        moves = list(node.board().legal_moves)
        if not moves:
            break
        if ply == 3 and len(moves) > 1:
            node.add_variation(rng.choice(moves))
        node = node.add_variation(rng.choice(moves))
    return game


def _contexts_of(games: list[chess.pgn.Game]) -> list[Context]:
    out = []
    for game in games:
        table = PositionTable.build(game, variations=True, identities=False)
        out.append(Context(table, GameInfo.from_headers(game.headers)))
    return out


#: White's king goes to the edge, its rook one file right: a later position shifted one
#: file left (both kings shift off the board) leaves White one piece short.
ROOK_PIN = position("8/8/8/k7/8/2R5/8/1K6 w - - 0 1", "Ka1 Ka4 Rd3 Ka5").game()

SPARSE = _contexts_of([ROOK_PIN, *(_sparse_game(seed) for seed in range(40))])

PINNED = [
    ct.Relation(missing=(WHITE_PIECES, 1, 1), new=(ANYTHING, 0, 0), shift=True),
    ct.Relation(missing=(ANYTHING, 0, 1), new=(ANYTHING, 0, 0), shift=True),
    ct.Relation(missing=(BLACK_PIECES, 1, 2), new=(WHITE_PIECES, 0, 0), shift=True),
    ct.Relation(
        missing=(ANY_PIECE, 1, 2),
        new=(ANYTHING, 0, 0),
        shift=True,
        side_to_move=ct.RelationSideToMove.IGNORE,
        scope=ct.RelationScope.ALL,
    ),
    ct.Relation(
        allowable=FULL & ~chess.BB_RANK_1,
        missing=(ANY_PIECE, 0, 2),
        new=(ANYTHING, 0, 0),
        shift=True,
        side_to_move=ct.RelationSideToMove.CHANGE,
    ),
    # Without shift: the later positions are tried by one intersection each.
    ct.Relation(missing=(WHITE_PIECES, 1, 10), new=(ANYTHING, 0, 0)),
    ct.Relation(
        allowable=chess.BB_CENTER | chess.BB_RANK_1,
        missing=(ANYTHING, 0, 3),
        new=(BLACK_PIECES, 0, 0),
        side_to_move=ct.RelationSideToMove.IGNORE,
    ),
]


@pytest.mark.parametrize("relation", PINNED)
def test_pinned_shifts_give_the_reference_rules_answers(relation: ct.Relation) -> None:
    lowered = Compiler(REFERENCE_RULES, LOWERING).truth(relation)
    reference = Compiler(REFERENCE_RULES).truth(relation)
    related = 0
    for ctx in [*SPARSE, *CONTEXTS[:1]]:
        for scope in (ct.Scope.MAINLINE, ct.Scope.ALL):
            ctx.set_scope(scope)
            for p in range(len(ctx.table)):
                answer = reference(ctx, p)
                assert lowered(ctx, p) == answer, (relation, p)
                related += answer
        ctx.set_scope(ct.Scope.MAINLINE)
    assert related  # the games hold positions that relate


def test_a_shift_pinned_by_the_rook_alone() -> None:
    """:data:`ROOK_PIN`: White's king is the missing piece, the rook pins the shift."""
    relation = ct.Relation(missing=(WHITE_PIECES, 1, 1), new=(ANYTHING, 0, 0), shift=True)
    lowered = Compiler(REFERENCE_RULES, LOWERING).truth(relation)
    reference = Compiler(REFERENCE_RULES).truth(relation)
    ctx = SPARSE[0]
    # Positions 0, 1, 2 relate to 2, 3, 4 shifted a file left (rook on rook, both kings
    # off the board, White's king missing); under the shift that puts White's king on
    # White's king the rook lands on an empty square.  3 and 4 have no later position
    # with the same side to move.
    expected = [True, True, True, False, False]
    assert [reference(ctx, p) for p in range(5)] == expected
    assert [lowered(ctx, p) for p in range(5)] == expected


def test_the_sparse_games_relate_under_shifts_no_king_pins() -> None:
    """The games above exercise the pins after the first: some pairs relate only under
    a shift that does not put White's king on White's king (it vanishes, or it is the
    missing piece)."""
    params = _params(missing=(WHITE_PIECES, 1, 1), new=(ANYTHING, 0, 0), shift=True)
    op = _EveryShift(params)
    found = 0
    for ctx in SPARSE:
        for p in range(ctx.table.mainline_length):
            one = op.first(ctx, {}, p)
            ones = ctx.piece_boards(p)
            for q in range(p + 1, ctx.table.mainline_length):
                twos = ctx.piece_boards(q)
                king_shift = (
                    (ones[5].bit_length() - 1) % 8 - (twos[5].bit_length() - 1) % 8,
                    (ones[5].bit_length() - 1) // 8 - (twos[5].bit_length() - 1) // 8,
                )
                turned = op.turned(ctx, {}, q, 0)
                fitting = [
                    shift
                    for shift in op.offsets(one, turned)
                    if op.fits(one, *_translated(turned, *shift))
                ]
                found += bool(fitting) and king_shift not in fitting
    assert found


def _translated(two: Any, dx: int, dy: int) -> tuple[int, tuple[int, int, int, int], int]:
    """P2's placement moved by (``dx``, ``dy``), by the square-set translation."""
    occupied, planes, counted = two.occupied, two.planes, two.counted
    moved = tuple(translate(plane, dx, dy) for plane in planes)
    return (
        translate(occupied, dx, dy),
        (moved[0], moved[1], moved[2], moved[3]),
        translate(counted, dx, dy),
    )


@pytest.mark.parametrize("relation", PINNED[-2:])
def test_the_rows_of_a_game_are_those_of_its_boards(relation: ct.Relation) -> None:
    """:meth:`RelationOperator.rows` reads the boards in one pass, as :meth:`row` does."""
    op = RelationOperator(
        _params(missing=relation.missing, new=relation.new, allowable=relation.allowable)
    )
    for ctx in SPARSE[:5]:
        assert op.rows(ctx) == [op.row(board) for board in ctx.boards]


def _spread_by_definition(white: int, black: int) -> int:
    """The grids of :func:`~cqllegacy.evaluator.operators.placements.grid_spread`, square by
    square: rank ``r`` file ``f`` at bit ``16 r + f``, the black grid 256 bits above."""
    out = 0
    for square in iter_squares(white):
        out |= 1 << (16 * (square >> 3) + (square & 7))
    for square in iter_squares(black):
        out |= 1 << (256 + 16 * (square >> 3) + (square & 7))
    return out


@pytest.mark.parametrize("new_types", [ANY_PIECE, types_of("Pp"), types_of("RNBQK"), WHITE_PIECES])
def test_the_spreads_of_a_game_are_those_of_its_boards(new_types: int) -> None:
    # Read move by move from the squares that changed: compared with every board read
    # afresh, along real games and along boards that change many squares at once.
    op = RelationOperator(_params(new=(new_types, 0, 0), missing=(WHITE_PIECES, 1, 1), shift=True))
    rng = random.Random(7)
    jumbled = [chess.Board(), chess.Board(None), chess.Board()]
    for _ in range(40):
        board = chess.Board(None)
        for square in rng.sample(range(64), rng.randint(0, 20)):
            board.set_piece_at(square, chess.Piece(rng.randint(1, 6), rng.random() < 0.5))
        jumbled.append(board)
    for boards in [*(ctx.boards for ctx in CONTEXTS), jumbled]:
        expected = []
        for board in boards:
            mask = 0
            for kind in range(12):
                if new_types >> kind & 1:
                    mask |= int(board.pieces(kind % 6 + 1, kind < 6))
            expected.append(
                _spread_by_definition(
                    mask & board.occupied_co[chess.WHITE], mask & board.occupied_co[chess.BLACK]
                )
            )
        assert op.pinned_shifts is not None
        assert op.pinned_shifts.spreads(boards) == expected
