"""The relation operator (:class:`~cqllegacy.evaluator.relation.RelationOperator`) part by
part: its shortcuts against their definitions, square by square and position by position
on real games, and its answers against the reference rule at every position."""

from __future__ import annotations

import bz2
import io
from collections.abc import Iterator
from importlib import resources

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.compiler import Compiler, Context
from cqllegacy.evaluator.evaluate import REFERENCE_RULES
from cqllegacy.evaluator.gametree import GameInfo, PositionTable
from cqllegacy.evaluator.lowering import LOWERING
from cqllegacy.evaluator.relation import RelationOperator, RelationParameters, _skip
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, types_of
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
                    skipped_to = _skip(line.moments, blocked, q, end)
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
