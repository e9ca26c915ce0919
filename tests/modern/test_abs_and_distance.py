"""CQL 6.1 ``abs X`` and ``distance(X Y)`` (issue 29): two constructs added on the derived
syntax alone (their classes declare ``SYNTAX``; neither the reader nor the printer names
them).  Each is read, printed (chessql reads the text, with the same shape), round-tripped,
kind-checked, transformed, and run by the reference rules and the lowered plan against an
independent python-chess computation on hand-made and real games.

``abs X`` (CQL 6.1 abs.html): the absolute value of the number X.  ``distance(X Y)``
(CQL 6.1 distance.html): the moves of the game tree between positions X and Y, through
their latest common ancestor; not a distance on the board.
"""

from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import BasicTransform, apply
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.modern import ModernSyntaxError, print_query, read_query
from cqllegacy.vocab.squares import Dihedral
from tests.support.modern import assert_cql, chessql_shape, one, pd

GAMES_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "games.pgn"
S, T = ct.PositionVariable("s"), ct.PositionVariable("t")
PAWNS, BLACK_PAWNS = pd("P"), pd("p")
#: ``abs ((#P) - (#p))``: the pawn difference, either way.
PAWN_GAP = ct.Abs(ct.Arith(ct.ArithOp.SUB, ct.Count(PAWNS), ct.Count(BLACK_PAWNS)))


def body(text: str) -> ct.Filter:
    (top,) = read_query(f"cql()\n{text}\n").lists
    return top.body


# --------------------------------------------------------------------------------------
# Reading, printing, round trip
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("abs ((#P) - (#p)) >= 2", ct.InRange(PAWN_GAP, 2, None)),
        ("abs -3 == 3", ct.InRange(ct.Abs(ct.Number(-3)), 3, 3)),
        # As unary minus: the argument binds tighter than `+ -`.
        ("abs #P + 1 > 2", None),
        (
            "abs (#P) + 1 > 2",
            ct.Compare(
                ct.CompareOp.GT,
                ct.Arith(ct.ArithOp.ADD, ct.Abs(ct.Count(PAWNS)), ct.Number(1)),
                ct.Number(2),
            ),
        ),
        ("abs abs -2 == 2", ct.InRange(ct.Abs(ct.Abs(ct.Number(-2))), 2, 2)),
        ("echo (s t) distance(s t) == 2", ct.Echo("s", "t", ct.InRange(ct.Distance(S, T), 2, 2))),
        (
            "echo (s t) distance( t  s ) > 0",
            ct.Echo("s", "t", ct.Compare(ct.CompareOp.GT, ct.Distance(T, S), ct.Number(0))),
        ),
        ("echo (s t) in all distance(s t)", ct.Echo("s", "t", ct.Distance(S, T), in_all=True)),
    ],
)
def test_read_print_and_round_trip(text: str, tree: ct.Filter | None) -> None:
    if tree is None:  # `#P + 1` is `#(P + 1)` (the CQL 6.1 table): no set
        with pytest.raises(ModernSyntaxError, match="`#` needs a set of squares"):
            body(text)
        return
    assert body(text) == tree
    query = one(tree)
    printed = print_query(query)
    assert_cql(printed)
    assert read_query(printed) == query


def test_the_printed_text_has_the_shape_chessql_reads() -> None:
    printed = print_query(one(ct.InRange(PAWN_GAP, 2, None)))
    assert printed == "cql()\nabs ((#P) - (#p)) >= 2\n"
    ((relation, (left, _)),) = chessql_shape(printed)
    assert relation == "GE" and left[0] == "Abs"
    added = ct.Arith(ct.ArithOp.ADD, ct.Abs(ct.Count(PAWNS)), ct.Number(1))
    printed = print_query(one(ct.InRange(added, 2, 2)))
    assert printed == "cql()\n(abs (#P)) + 1 == 2\n"
    ((_, ((plus, (abs_, _)), _)),) = chessql_shape(printed)
    assert (plus, abs_[0]) == ("Plus", "Abs")
    printed = print_query(one(ct.Echo("s", "t", ct.InRange(ct.Distance(S, T), 3, None))))
    assert printed == "cql()\necho (s t) (distance(s t) >= 3)\n"
    ((echo, (_, _, (_, (distance, _)))),) = chessql_shape(printed)
    assert (echo, distance[0]) == ("Echo", "Distance")


# --------------------------------------------------------------------------------------
# Kinds
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("abs check", "`abs` needs a number", 1),
        ("abs move from K", "`abs` needs a number", 1),
        ("echo (s t) distance(s a1) > 1", "`distance` needs a position", 12),
        ("echo (s t) distance(s 3) > 1", "`distance` needs a position", 12),
        ("distance(a1 h8) > 1", "`distance` needs a position", 1),
    ],
)
def test_kind_errors_are_refused_at_their_place(text: str, message: str, column: int) -> None:
    with pytest.raises(ModernSyntaxError, match=message) as info:
        read_query(f"cql()\n{text}\n")
    assert (info.value.line, info.value.column) == (2, column)


@pytest.mark.parametrize(
    "text", ["echo (s t) distance(s) > 1", "echo (s t) distance(s t t) > 1", "distance s t"]
)
def test_distance_takes_two_parenthesised_positions(text: str) -> None:
    with pytest.raises(ModernSyntaxError):
        read_query(f"cql()\n{text}\n")


def test_a_position_stands_only_where_one_is_wanted() -> None:
    with pytest.raises(ModernSyntaxError, match="position"):
        read_query("cql()\necho (s t) abs s > 1\n")


# --------------------------------------------------------------------------------------
# Transforms
# --------------------------------------------------------------------------------------


def test_transforms_act_on_abs_through_its_argument() -> None:
    swap = BasicTransform(swap_colors=True)
    swapped = ct.Abs(ct.Arith(ct.ArithOp.SUB, ct.Count(BLACK_PAWNS), ct.Count(PAWNS)))
    assert apply(swap, PAWN_GAP) == swapped
    knight = ct.Count(pd("Na1"))
    turned = apply(BasicTransform(Dihedral.ROT90), knight)
    assert turned != knight
    assert apply(BasicTransform(Dihedral.ROT90), ct.Abs(knight)) == ct.Abs(turned)


def test_transforms_leave_distance_alone() -> None:
    for transform in (BasicTransform(swap_colors=True), BasicTransform(dx=1)):
        assert apply(transform, ct.Distance(S, T)) == ct.Distance(S, T)


# --------------------------------------------------------------------------------------
# Running: the reference rules and the lowered plan against python-chess
# --------------------------------------------------------------------------------------


def _games(text: str) -> list[chess.pgn.Game]:
    handle, out = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        out.append(game)
    return out


def _every_node(game: chess.pgn.Game) -> list[chess.pgn.GameNode]:
    out, stack = [], [game]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.variations))
    return out


def _both(tree: ct.Filter, node: chess.pgn.GameNode, scope: ct.Scope) -> object:
    """The value of ``tree`` at ``node``: the reference rules and the lowered plan agree."""
    reference = evaluate_filter(tree, node, scope=scope, optimize=False)
    lowered = evaluate_filter(tree, node, scope=scope, optimize=True)
    assert reference == lowered, (tree, node.board().fen())
    return reference


REAL_GAMES = _games(GAMES_FILE.read_text(encoding="utf-8"))[:12]


@pytest.mark.parametrize("index", range(len(REAL_GAMES)))
def test_abs_is_the_pawn_gap_python_chess_counts_on_real_games(index: int) -> None:
    tree = body("abs ((#P) - (#p))")
    flipped = body("flipcolor count {abs ((#P) - (#p)) >= 1}")
    for node in [REAL_GAMES[index], *REAL_GAMES[index].mainline()]:
        board = node.board()
        gap = abs(
            len(board.pieces(chess.PAWN, chess.WHITE)) - len(board.pieces(chess.PAWN, chess.BLACK))
        )
        assert _both(tree, node, ct.Scope.MAINLINE) == gap
        # The colour swap leaves the absolute gap as it was: both members or neither.
        assert _both(flipped, node, ct.Scope.MAINLINE) == (2 if gap else 0)


def test_abs_fails_when_its_argument_fails() -> None:
    (game,) = _games('[Event "?"]\n[WhiteElo "?"]\n\n1. e4 *\n')
    assert _both(ct.Abs(ct.Elo(ct.Color.WHITE)), game, ct.Scope.MAINLINE) is None
    (game,) = _games('[Event "?"]\n[WhiteElo "2100"]\n\n1. e4 *\n')
    negative = ct.Abs(ct.Arith(ct.ArithOp.SUB, ct.Number(2000), ct.Elo(ct.Color.WHITE)))
    assert _both(negative, game, ct.Scope.MAINLINE) == 100


#: Hand-made games with variations, nested ones among them.
TREES = _games(
    "1. e4 (1. d4 d5 2. c4) 1... e5 2. Nf3 Nc6 *\n\n"
    "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) 2. Nf3 (2. Bc4 Nf6 (2... Bc5)) 2... Nc6 *\n\n"
    "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *\n"
)


def _tree_distance(a: chess.pgn.GameNode, b: chess.pgn.GameNode) -> int:
    """Moves from a to b through their latest common ancestor, by python-chess's parents."""
    path = {}
    node: chess.pgn.GameNode | None = a
    while node is not None:
        path[id(node)] = node.ply()
        node = node.parent
    node = b
    while id(node) not in path:
        assert node.parent is not None
        node = node.parent
    return (a.ply() - node.ply()) + (b.ply() - node.ply())


@pytest.mark.parametrize("index", range(len(TREES)))
def test_distance_is_the_game_tree_path_python_chess_walks(index: int) -> None:
    game = TREES[index]
    every = _every_node(game)
    farthest = body("echo (s t) in all distance(s t)")
    for source in every:
        expected = max(_tree_distance(source, target) for target in every)
        assert _both(farthest, source, ct.Scope.ALL) == expected
        for k in range(4):
            exactly = body(f"echo (s t) distance(s t) == {k}")
            found = any(_tree_distance(source, t) == k for t in every if t is not source)
            assert _both(exactly, source, ct.Scope.ALL) is found, (k, source.board().fen())


def test_distance_on_the_main_line_only_sees_the_main_line() -> None:
    game = TREES[1]
    line = [game, *game.mainline()]
    farthest = body("echo (s t) in all distance(s t)")
    for ply, node in enumerate(line):
        assert _both(farthest, node, ct.Scope.MAINLINE) == max(ply, len(line) - 1 - ply)


def test_distance_through_the_colon_operator() -> None:
    # distance(s t) == s:ply + t:ply - 2 * (their common ancestor's ply): on one line, the
    # difference of the plies.
    game = TREES[2]
    same = body("echo (s t) {s < t  distance(s t) == t:ply - s:ply}")
    for node in [game, *game.mainline()][:-1]:
        assert _both(same, node, ct.Scope.MAINLINE) is True
