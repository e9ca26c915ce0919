"""CQL 6.1 constructs real scripts use (issue 18, item 6): read, printed (chessql reads the
text), round-tripped, kind-checked, run, and checked against python-chess on hand-made
games.

``light X`` / ``dark X`` (CQL 6.1 light.html, dark.html): the squares of X that are light
(dark); a1 is dark.  Under ``flipcolor`` light and dark swap (the colour swap mirrors the
ranks); under the other transforms the image is geometric (see SquareColor's rule).
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import BasicTransform, apply
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.modern import ModernSyntaxError, print_query, read_query
from cqllegacy.vocab.squares import Dihedral
from tests.support.modern import assert_cql, one, pd


def body(text: str) -> ct.Filter:
    (top,) = read_query(f"cql()\n{text}\n").lists
    return top.body


def light(arg: ct.Filter) -> ct.SquareColor:
    return ct.SquareColor(False, arg)


def dark(arg: ct.Filter) -> ct.SquareColor:
    return ct.SquareColor(True, arg)


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("light Q", light(pd("Q"))),
        ("dark [Bb]", dark(pd("[Bb]"))),
        ("dark (k | K)", dark(ct.Union((pd("k"), pd("K"))))),
        ("#light P == 2", ct.InRange(ct.Count(light(pd("P"))), 2, 2)),
        # The CQL 6.1 table: light and dark bind tighter than `attacks` and `&`.
        ("light Q attacks k", ct.Attacks(light(pd("Q")), pd("k"))),
        ("dark B & a-h1-4", ct.Intersection((dark(pd("B")), pd("a-h1-4")))),
        (
            "flipcolor {light B}",
            ct.Transform(ct.TransformKind.FLIPCOLOR, ct.Compound((light(pd("B")),))),
        ),
    ],
)
def test_light_and_dark_read_print_and_round_trip(text: str, tree: ct.Filter) -> None:
    assert body(text) == tree
    query = one(tree)
    printed = print_query(query)
    assert_cql(printed)
    assert read_query(printed) == query


def test_light_and_dark_need_a_set() -> None:
    with pytest.raises(ModernSyntaxError, match="`light` needs a set of squares") as info:
        read_query("cql()\nlight 3\n")
    assert (info.value.line, info.value.column) == (2, 1)
    with pytest.raises(ModernSyntaxError, match="`dark` needs a set of squares"):
        read_query("cql()\ndark check\n")


def test_flipcolor_swaps_light_and_dark_and_the_other_transforms_act_geometrically() -> None:
    bishop = pd("Bc1")  # c1 is dark
    swap = BasicTransform(swap_colors=True)
    assert apply(swap, dark(bishop)) == light(pd("bc8"))  # c8 is light
    # A file mirror and an odd shift change a square's colour, a half turn does not.
    assert apply(BasicTransform(Dihedral.REFLECT_V), dark(bishop)) == light(pd("Bf1"))
    assert apply(BasicTransform(dx=1), dark(bishop)) == light(pd("Bd1"))
    assert apply(BasicTransform(dx=1, dy=1), dark(bishop)) == dark(pd("Bd2"))
    assert apply(BasicTransform(Dihedral.ROT180), dark(bishop)) == dark(pd("Bf8"))


GAMES = [
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Nb3 Qxd1",
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 7. Bh4 b6 8. cxd5 Nxd5",
    "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 g6 6. Be3 Bg7 7. f3 O-O 8. Qd2 Nc6",
]


def _nodes(movetext: str) -> list[chess.pgn.GameNode]:
    game = chess.pgn.read_game(io.StringIO(movetext))
    assert game is not None
    return [game, *game.mainline()]


@pytest.mark.parametrize("movetext", GAMES)
@pytest.mark.parametrize("word", ["light", "dark"])
@pytest.mark.parametrize("optimize", [True, False])
def test_light_and_dark_are_the_squares_python_chess_colours(
    movetext: str, word: str, optimize: bool
) -> None:
    # The filters read from the text, so the reader's tree is what runs.
    filters = {
        "[Aa]": body(f"{word} [Aa]"),
        "B": body(f"{word} B"),
        "flipcolor B": body(f"flipcolor {word} B"),
    }
    mask = chess.BB_LIGHT_SQUARES if word == "light" else chess.BB_DARK_SQUARES
    other = chess.BB_DARK_SQUARES if word == "light" else chess.BB_LIGHT_SQUARES
    for node in _nodes(movetext):
        board = node.board()
        pieces = board.occupied
        white_bishops = board.pieces_mask(chess.BISHOP, chess.WHITE)
        black_bishops = board.pieces_mask(chess.BISHOP, chess.BLACK)
        expected = {
            "[Aa]": pieces & mask,
            "B": white_bishops & mask,
            # flipcolor {light B} is light B or dark b: a set filter's value is the union.
            "flipcolor B": (white_bishops & mask) | (black_bishops & other),
        }
        for name, tree in filters.items():
            value = evaluate_filter(tree, node, optimize=optimize)
            if name == "flipcolor B":
                assert bool(value) == bool(expected[name]), (name, board.fen())
            else:
                assert value == expected[name], (name, board.fen())
