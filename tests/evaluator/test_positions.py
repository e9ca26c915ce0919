"""The reference rules of the CQL 6.1 filters that follow pieces and compare positions:
``piece all``, ``in``, ``sidetomove``, ``variation``, ``echo``, ``:``, positional
intersection, ``ancestor`` and grouped ``line`` constituents (semantics: S-echo,
S-piece-variables, S-move-and-line).

Every game is written here by hand and every expected value worked out from its moves;
python-chess confirms the board facts the expectations rest on.
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.evaluate import compile_query, evaluate_filter
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.squares import Direction

CHECK = ct.Simple(ct.Keyword.CHECK)
S, T = ct.PositionVariable("s"), ct.PositionVariable("t")


def game(pgn: str) -> chess.pgn.Game:
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and not read.errors, pgn
    return read


def nodes(g: chess.pgn.Game) -> list[chess.pgn.GameNode]:
    """Every node of the game, depth first with the main continuation first."""
    out: list[chess.pgn.GameNode] = []
    stack: list[chess.pgn.GameNode] = [g]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.variations))
    return out


def matching(
    filter: ct.Filter, g: chess.pgn.Game, scope: ct.Scope = ct.Scope.MAINLINE
) -> list[int]:
    """The plies of the main-line positions where ``filter`` matches."""
    out: list[int] = []
    positions = [g, *g.mainline()]
    for ply, node in enumerate(positions):
        for optimize in (False, True):
            value = evaluate_filter(filter, node, scope=scope, optimize=optimize)
            hit = value is not None and value is not False and value != 0
            if optimize:
                assert hit == (ply in out), (filter, ply)
            elif hit:
                out.append(ply)
    return out


# 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3: the boards of plies 0 and 4, and of 1 and 5, are equal.
REPETITION = game("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *")


def test_python_chess_agrees_on_the_repeated_boards() -> None:
    boards = [node.board().board_fen() for node in [REPETITION, *REPETITION.mainline()]]
    assert [i for i, b in enumerate(boards) if boards.count(b) > 1] == [0, 1, 4, 5]


def test_echo_finds_a_board_that_occurs_twice() -> None:
    same_board = ct.InRange(ct.Count(ct.PositionIntersection(S, T)), 64, 64)
    assert matching(ct.Echo("s", "t", same_board), REPETITION) == [0, 1, 4, 5]


def test_echo_in_all_also_tries_the_source() -> None:
    same_board = ct.InRange(ct.Count(ct.PositionIntersection(S, T)), 64, 64)
    assert matching(ct.Echo("s", "t", same_board, in_all=True), REPETITION) == [0, 1, 2, 3, 4, 5]


def test_echo_with_a_later_target_only() -> None:
    later = ct.Compound(
        (
            ct.Compare(ct.CompareOp.LT, S, T),
            ct.InRange(ct.Count(ct.PositionIntersection(S, T)), 64, 64),
        )
    )
    assert matching(ct.Echo("s", "t", later), REPETITION) == [0, 1]


def test_a_numeric_echo_is_the_largest_value_over_the_targets() -> None:
    # The most squares any other position shares with this one: all 64 for a repeated board.
    shared = ct.Echo("s", "t", ct.Count(ct.PositionIntersection(S, T)))
    value = evaluate_filter(shared, REPETITION)
    assert value == 64
    after_nf6 = REPETITION.next().next()
    # After 1.Nf3 Nf6 the closest board differs on f3/g1 or f6/g8 (two squares).
    assert evaluate_filter(shared, after_nf6) == 62


def test_side_to_move_and_the_colon_operator() -> None:
    same_side = ct.Compare(ct.CompareOp.EQ, ct.SideToMove(), ct.AtPosition(S, ct.SideToMove()))
    both = ct.Compound((same_side, ct.InRange(ct.Count(ct.PositionIntersection(S, T)), 64, 64)))
    assert matching(ct.Echo("s", "t", both), REPETITION) == [0, 1, 4, 5]
    assert evaluate_filter(ct.SideToMove(), REPETITION) == 1
    assert evaluate_filter(ct.SideToMove(), REPETITION.next()) == -1


def test_colon_evaluates_its_filter_at_the_other_position() -> None:
    # Somewhere else in the game a white knight stands on f3 while it is not there now.
    elsewhere = ct.Echo("s", "t", ct.Compound((ct.Not(ct.AtPosition(S, pd("Nf3"))), pd("Nf3"))))
    assert matching(elsewhere, REPETITION) == [0, 3, 4]


def test_ancestor_on_the_main_line_and_across_variations() -> None:
    g = game("1. e4 (1. d4 d5) 1... e5 2. Nf3 *")
    table = nodes(g)  # 0 start, 1 e4, 2 e5, 3 Nf3, 4 d4, 5 d5
    assert [n.san() if n.move else "start" for n in table] == [
        "start",
        "e4",
        "e5",
        "Nf3",
        "d4",
        "d5",
    ]
    later_on_the_line = ct.Echo(
        "s", "t", ct.Compound((ct.Ancestor(S, T), ct.Compare(ct.CompareOp.LT, S, T), pd("pd5")))
    )
    # d5 (a variation position) is reached only with variations in scope.
    assert evaluate_filter(later_on_the_line, g, scope=ct.Scope.ALL) is True
    assert evaluate_filter(later_on_the_line, table[1], scope=ct.Scope.ALL) is False
    assert evaluate_filter(later_on_the_line, g, scope=ct.Scope.MAINLINE) is False
    # Position order: d5 comes after e4 although it is on another branch.
    after_in_order = ct.Echo("s", "t", ct.Compound((ct.Compare(ct.CompareOp.LT, S, T), pd("pd5"))))
    assert evaluate_filter(after_in_order, table[1], scope=ct.Scope.ALL) is True
    assert evaluate_filter(ct.Echo("s", "t", ct.Ancestor(T, S), in_all=True), g) is True


def test_mainline_and_variation() -> None:
    g = game("1. e4 (1. d4 d5) 1... e5 *")
    table = nodes(g)
    variation = ct.Simple(ct.Keyword.VARIATION)
    assert [evaluate_filter(variation, n, scope=ct.Scope.ALL) for n in table] == [
        False,
        False,
        False,
        True,
        True,
    ]


# 1. a4 Kd7 2. a5 Kd6 3. a6 Kd5 4. a7 Kd4 5. a8=Q: the a2 pawn promotes; the b2 pawn stays.
PROMOTION = game(
    '[FEN "8/4k3/8/8/8/8/PP6/4K3 w - - 0 1"]\n[SetUp "1"]\n\n'
    "1. a4 Kd7 2. a5 Kd6 3. a6 Kd5 4. a7 Kd4 5. a8=Q *"
)


def test_a_piece_variable_follows_its_pawn_through_promotion() -> None:
    promoting = ct.PieceLoop(
        "p", pd("Pa-h2"), ct.Find(ct.Intersection((ct.PieceVariable("p"), pd("a-h8"))))
    )
    assert evaluate_filter(promoting, PROMOTION) == chess.BB_A2
    assert evaluate_filter(ct.PieceLoop("p", pd("Pa-h2"), ct.Find(pd("Qa8"))), PROMOTION) == (
        chess.BB_A2 | chess.BB_B2
    )


def test_piece_all_needs_every_binding() -> None:
    every = ct.PieceLoop(
        "p", pd("P"), ct.Find(ct.Intersection((ct.PieceVariable("p"), pd("a-h8")))), all=True
    )
    assert evaluate_filter(every, PROMOTION) is False
    only_a = ct.PieceLoop("p", pd("Pa2"), every.body, all=True)
    assert evaluate_filter(only_a, PROMOTION) is True
    # No piece on the domain: every binding (there is none) matched.
    assert (
        evaluate_filter(
            ct.PieceLoop("p", pd("Ph7"), ct.Simple(ct.Keyword.FALSE), all=True), PROMOTION
        )
        is True
    )


def test_square_set_membership() -> None:
    assert evaluate_filter(ct.InSet(pd("P"), pd("a-h2")), PROMOTION) is True
    assert evaluate_filter(ct.InSet(pd("[Pk]"), pd("a-h2")), PROMOTION) is False
    assert evaluate_filter(ct.InSet(pd("Q"), pd("h8")), PROMOTION) is True  # empty X


# The queen staircase: Qa1-a2, Qa2-b2, Qb2-b3, Qb3-c3, Qc3-c4 (Black shuffles the king).
STAIRCASE = game(
    '[FEN "8/7k/8/8/8/8/8/Q3K3 w - - 0 1"]\n[SetUp "1"]\n\n'
    "1. Qa2 Kh6 2. Qb2 Kh7 3. Qb3 Kh6 4. Qc3 Kh7 5. Qc4 Kh6 *"
)


def _queen(direction: ct.Filter) -> ct.Move:
    return ct.Move(from_=pd("Q"), to=direction)


def test_a_repeated_group_of_line_constituents() -> None:
    up = _queen(ct.DirectionSet(Direction.UP, pd("Q"), 1, 1))
    right = _queen(ct.DirectionSet(Direction.RIGHT, pd("Q"), 1, 1))
    black = ct.Simple(ct.Keyword.TRUE)
    pair = ct.LineGroup(
        (ct.LineStep(up), ct.LineStep(black), ct.LineStep(right), ct.LineStep(black))
    )
    # Two rounds of "up, right", then up again: from the start position only.
    two_rounds = ct.Line((ct.LineStep(pair, 2, None), ct.LineStep(up)))
    assert matching(two_rounds, STAIRCASE) == [0]
    one_round = ct.Line((ct.LineStep(pair, 1, None), ct.LineStep(up)))
    assert matching(one_round, STAIRCASE) == [0, 4]
    assert matching(ct.Line((ct.LineStep(pair, 3, None), ct.LineStep(up))), STAIRCASE) == []
    at_most_one = ct.Line(
        (ct.LineStep(pair, 0, 1), ct.LineStep(up), ct.LineStep(black), ct.LineStep(right))
    )
    assert matching(at_most_one, STAIRCASE) == [0, 4]


def test_a_group_outside_a_line_is_refused() -> None:
    group = ct.LineGroup((ct.LineStep(CHECK),))
    query = ct.Query(ct.Header(), (ct.TopList(group),))
    with pytest.raises(ValueError, match="only stand in a line"):
        compile_query(query)
