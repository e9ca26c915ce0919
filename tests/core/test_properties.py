"""Properties: transforms commute with the board's own symmetries (python-chess does the
board side), and the fast square translation agrees with the shared table's ``step``.
"""

from __future__ import annotations

import bz2
import io
from importlib import resources

import chess
import chess.pgn
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.core.transforms import BasicTransform, apply
from cqllegacy.core.tree import (
    AttackedBy,
    Attacks,
    Between,
    DirectionSet,
    Filter,
    Keyword,
    Power,
    Ray,
    Simple,
    XRay,
)
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.evaluator.testing import pd, position
from cqllegacy.vocab.rays import translate
from cqllegacy.vocab.squares import Dihedral, Direction, color_swap_set, step


def _sample_boards() -> list[chess.Board]:
    data = resources.files("cqllegacy") / "data" / "wcc.pgn.bz2"
    boards = []
    with bz2.open(io.BytesIO(data.read_bytes()), "rt") as handle:
        for _ in range(6):
            game = chess.pgn.read_game(handle)
            assert game is not None
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                board.push(move)
                if ply % 7 == 3:
                    boards.append(board.copy(stack=False))
    return boards


BOARDS = _sample_boards()

# Filters whose meaning does not depend on which way pawns move ...
SYMMETRIC: list[Filter] = [
    Attacks(pd("[NBRQK]"), pd("a")),
    AttackedBy(pd("."), pd("[kqrbn]")),
    Ray((pd("[RQ]"), pd("a"), pd("k"))),
    XRay((pd("A"), pd("a"), pd("[kq]"))),
    Between(pd("K"), pd("[rq]")),
    DirectionSet(Direction.NORTHEAST, pd("B"), 1, 2),
    DirectionSet(Direction.HORIZONTAL, pd("k"), 1, 1),
]
# ... and filters that only survive maps keeping ranks as ranks (pawns attack forwards).
PAWNS: list[Filter] = [
    Attacks(pd("P"), pd("a")),
    AttackedBy(pd("[nbrq]"), pd("[Pp]")),
    DirectionSet(Direction.UP, pd("P"), 1, 1),
]


def _node(board: chess.Board) -> chess.pgn.GameNode:
    return position(board.fen())


@settings(max_examples=40, deadline=None)
@given(
    board=st.sampled_from(BOARDS),
    filter=st.sampled_from(SYMMETRIC),
    dihedral=st.sampled_from(list(Dihedral)),
)
def test_dihedral_maps_commute_with_set_filters(
    board: chess.Board, filter: Filter, dihedral: Dihedral
) -> None:
    image = board.transform(dihedral.map_set)
    moved = evaluate_filter(apply(BasicTransform(dihedral), filter), _node(image))
    assert moved == dihedral.map_set(evaluate_filter(filter, _node(board)))


@settings(max_examples=40, deadline=None)
@given(board=st.sampled_from(BOARDS), filter=st.sampled_from(SYMMETRIC + PAWNS))
def test_colour_swap_commutes_with_set_filters(board: chess.Board, filter: Filter) -> None:
    swapped = evaluate_filter(
        apply(BasicTransform(swap_colors=True), filter), _node(board.mirror())
    )
    assert swapped == color_swap_set(evaluate_filter(filter, _node(board)))


@settings(max_examples=30, deadline=None)
@given(
    board=st.sampled_from(BOARDS),
    keyword=st.sampled_from([Keyword.WTM, Keyword.BTM, Keyword.CHECK, Keyword.MATE]),
)
def test_colour_swap_of_position_keywords(board: chess.Board, keyword: Keyword) -> None:
    swapped = apply(BasicTransform(swap_colors=True), Simple(keyword))
    assert evaluate_filter(swapped, _node(board.mirror())) == evaluate_filter(
        Simple(keyword), _node(board)
    )
    assert evaluate_filter(
        apply(BasicTransform(swap_colors=True), Power(pd("A"))), _node(board.mirror())
    ) == evaluate_filter(Power(pd("A")), _node(board))


@settings(max_examples=200, deadline=None)
@given(
    bb=st.integers(min_value=0, max_value=(1 << 64) - 1),
    dx=st.integers(min_value=-8, max_value=8),
    dy=st.integers(min_value=-8, max_value=8),
)
def test_translate_agrees_with_step(bb: int, dx: int, dy: int) -> None:
    assert translate(bb, dx, dy) == step(bb, dx, dy)
