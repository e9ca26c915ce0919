"""CQL 6.1 ``passedpawns``, ``isolatedpawns``, ``doubledpawns``, ``connectedpawns`` (issue 18,
item 6): read, printed (chessql reads the text), round-tripped, kind-checked, left alone by
every transform (CQL defines them under ``notransform``), and run: the squares they give are
compared with pawn predicates written here square by square on python-chess boards, on
hand-made positions, hand-made games and real games, by the reference and the lowered
evaluator.  Their meaning: docs/semantics.md, S-pawn-structure.
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import attrs
import chess
import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import BasicTransform, apply, basic_transforms
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.modern import ModernSyntaxError, print_query, read_query
from cqllegacy.modern.kinds import kind_of
from tests.support.modern import assert_cql, one, pd

FEATURES = list(ct.PawnFeature)
WORDS = [feature.value for feature in FEATURES]


def body(text: str) -> ct.Filter:
    (top,) = read_query(f"cql()\n{text}\n").lists
    return top.body


def node(word: str) -> ct.PawnStructure:
    return ct.PawnStructure(ct.PawnFeature(word))


# --------------------------------------------------------------------------------------
# Independent predicates: one pawn at a time, by file and rank, on python-chess's board
# --------------------------------------------------------------------------------------


def _pawns(board: chess.Board, color: chess.Color) -> list[chess.Square]:
    return list(board.pieces(chess.PAWN, color))


def _files_near(square: chess.Square) -> set[int]:
    file = chess.square_file(square)
    return {f for f in (file - 1, file + 1) if 0 <= f <= 7}


def is_passed(board: chess.Board, square: chess.Square, color: chess.Color) -> bool:
    """No enemy pawn on the pawn's file or a neighbouring one, on a rank ahead of it."""
    rank, file = chess.square_rank(square), chess.square_file(square)
    for enemy in _pawns(board, not color):
        ahead = chess.square_rank(enemy) > rank if color else chess.square_rank(enemy) < rank
        if ahead and abs(chess.square_file(enemy) - file) <= 1:
            return False
    return True


def is_connected(board: chess.Board, square: chess.Square, color: chess.Color) -> bool:
    """A friendly pawn on a neighbouring file, any rank."""
    return any(chess.square_file(p) in _files_near(square) for p in _pawns(board, color))


def is_doubled(board: chess.Board, square: chess.Square, color: chess.Color) -> bool:
    """Another friendly pawn on the same file."""
    file = chess.square_file(square)
    return any(p != square and chess.square_file(p) == file for p in _pawns(board, color))


PREDICATES = {
    "passedpawns": is_passed,
    "connectedpawns": is_connected,
    "isolatedpawns": lambda board, sq, color: not is_connected(board, sq, color),
    "doubledpawns": is_doubled,
}


def expected(board: chess.Board, word: str) -> int:
    test = PREDICATES[word]
    found = 0
    for color in chess.COLORS:
        for square in _pawns(board, color):
            if test(board, square, color):
                found |= chess.BB_SQUARES[square]
    return found


# --------------------------------------------------------------------------------------
# Reading and printing
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        *((word, node(word)) for word in WORDS),
        ("#passedpawns >= 2", ct.InRange(ct.Count(node("passedpawns")), 2, None)),
        ("doubledpawns & a-h2", ct.Intersection((node("doubledpawns"), pd("a-h2")))),
        ("connectedpawns attacks k", ct.Attacks(node("connectedpawns"), pd("k"))),
        ("isolatedpawns | passedpawns", ct.Union((node("isolatedpawns"), node("passedpawns")))),
        ("light passedpawns", ct.SquareColor(False, node("passedpawns"))),
        ("flip passedpawns", ct.Transform(ct.TransformKind.FLIP, node("passedpawns"))),
        ("not isolatedpawns", ct.Not(node("isolatedpawns"))),
        (
            "piece x in passedpawns x & a-h7",
            ct.PieceLoop(
                "x", node("passedpawns"), ct.Intersection((ct.PieceVariable("x"), pd("a-h7")))
            ),
        ),
    ],
)
def test_read_print_and_round_trip(text: str, tree: ct.Filter) -> None:
    assert body(text) == tree
    query = one(tree)
    printed = print_query(query)
    assert_cql(printed)
    assert read_query(printed) == query


def test_the_words_are_set_filters_and_their_misplacement_is_refused_where_it_stands() -> None:
    for word in WORDS:
        assert kind_of(node(word)) is ct.Kind.SET
    with pytest.raises(ModernSyntaxError, match="`passedpawns` gives a set of squares") as info:
        read_query("cql()\ncheck\npassedpawns : check\n")
    assert (info.value.line, info.value.column) == (3, 1)
    with pytest.raises(ModernSyntaxError, match="unknown word 'passedpawn'"):
        read_query("cql() passedpawn")


def test_a_word_in_a_comment_or_string_is_no_filter() -> None:
    query = read_query('cql()\n// passedpawns\ncheck "passedpawns" in player\n')
    assert not any(isinstance(n, ct.PawnStructure) for n in query.lists[0].body.walk())


# --------------------------------------------------------------------------------------
# Transforms: CQL defines each as `notransform flipcolor {…}`, so no transform changes it
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", WORDS)
def test_every_basic_transform_leaves_them_unchanged(word: str) -> None:
    taus = set(basic_transforms(ct.TransformKind.FLIPCOLOR))
    for kind in ct.TransformKind:
        taus |= set(basic_transforms(kind))
    taus |= {BasicTransform(dx=-3, dy=2), BasicTransform(swap_colors=True)}
    for tau in taus:
        assert apply(tau, node(word)) == node(word), tau


# --------------------------------------------------------------------------------------
# Running, against the predicates above
# --------------------------------------------------------------------------------------

FENS = [
    chess.STARTING_FEN,
    # Doubled c-pawns, passed h- and a-pawns, an isolated f-pawn on each side.
    "8/p4p2/1p3P2/8/2P5/2P5/7P/k6K w - - 0 1",
    # Tripled pawns on the a-file (the edge: one neighbouring file), a black pawn beside a
    # white one on the same rank (not ahead: the white pawn stays passed).
    "4k3/8/8/P7/Pp6/P7/8/4K3 w - - 0 1",
    # Pawns on the h-file and g-file only: connected across the edge-most pair.
    "4k3/6pp/8/8/8/8/6PP/4K3 b - - 0 1",
    # A pawn blocked head-on is not passed; one whose enemy neighbour has gone past is.
    "4k3/8/3p4/3P4/5P2/6p1/8/4K3 w - - 0 1",
    # No pawns at all: every filter is empty.
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
]

GAMES = [
    "1. e4 d5 2. exd5 c6 3. dxc6 bxc6 4. d4 e5 5. dxe5 f6 6. exf6 gxf6 7. h4 h5 8. g4 hxg4",
    "1. a4 b5 2. axb5 a6 3. bxa6 c5 4. b4 cxb4 5. c3 bxc3 6. dxc3 d5 7. a7 d4 8. cxd4 e5",
]


def _fen_nodes() -> list[chess.pgn.GameNode]:
    out = []
    for fen in FENS:
        game = chess.pgn.Game()
        game.setup(chess.Board(fen))
        out.append(game)
    return out


def _game_nodes(movetext: str) -> list[chess.pgn.GameNode]:
    game = chess.pgn.read_game(io.StringIO(movetext))
    assert game is not None
    return [game, *game.mainline()]


def _real_game_nodes(count: int = 4) -> list[chess.pgn.GameNode]:
    path = Path(__file__).resolve().parents[2] / "fixtures" / "games.pgn"
    with path.open(encoding="utf-8") as handle:
        games = [chess.pgn.read_game(handle) for _ in range(count)]
    return [n for game in games if game is not None for n in (game, *game.mainline())]


def _all_nodes() -> list[chess.pgn.GameNode]:
    nodes = _fen_nodes()
    for movetext in GAMES:
        nodes += _game_nodes(movetext)
    return nodes + _real_game_nodes()


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("word", WORDS)
def test_the_squares_are_the_pawns_python_chess_boards_show(word: str, optimize: bool) -> None:
    tree = body(word)  # the reader's tree is what runs
    shifted = body(f"shift {word}")
    for game_node in _all_nodes():
        board = game_node.board()
        value = evaluate_filter(tree, game_node, optimize=optimize)
        assert value == expected(board, word), (word, board.fen())
        # A transform leaves it unchanged, so its orbit's union is the same set.
        assert evaluate_filter(shifted, game_node, optimize=optimize) == value


def test_the_hand_made_positions_show_the_edge_cases() -> None:
    def squares(fen: str, word: str) -> set[str]:
        game = chess.pgn.Game()
        game.setup(chess.Board(fen))
        value = evaluate_filter(body(word), game)
        return {chess.square_name(sq) for sq in chess.SquareSet(value)}

    fen = "4k3/8/8/P7/Pp6/P7/8/4K3 w - - 0 1"
    # Every pawn of a file with two or more of its colour is doubled.
    assert squares(fen, "doubledpawns") == {"a3", "a4", "a5"}
    # Only pawns ahead count: b4 stands beside a4 (a4 passed), ahead of a3 (a3 not); a3 is
    # ahead of the black b4 (Black runs towards rank 1), so b4 is not passed either.
    assert squares(fen, "passedpawns") == {"a4", "a5"}
    # The a-file has one neighbour; no pawn here has a friend on a neighbouring file.
    assert squares(fen, "connectedpawns") == set()
    assert squares(fen, "isolatedpawns") == {"a3", "a4", "a5", "b4"}
    fen = "4k3/8/3p4/3P4/5P2/6p1/8/4K3 w - - 0 1"
    # d5 and d6 stop each other; f4 and g3 have passed each other.
    assert squares(fen, "passedpawns") == {"f4", "g3"}


# --------------------------------------------------------------------------------------
# The bare-word syntax the reader and printer derive from the class
# --------------------------------------------------------------------------------------


def test_a_bare_word_class_must_say_how_its_word_makes_a_node() -> None:
    @attrs.frozen(slots=True)
    class TwoFields(ct.Filter):
        SYNTAX = ct.Syntax.WORD
        WORD = "`twofields`"
        CQL_WORDS = ("twofields",)
        KIND = ct.Kind.SET
        OPERANDS = ct.NO_OPERANDS
        TRANSFORMS = ct.Transforms.NOTHING
        READS = ct.Reads.POSITION

        a: int = 0
        b: int = 0

    with pytest.raises(ct.DeclarationError, match=r"TwoFields declares SYNTAX = Syntax\.WORD"):
        ct.bare_words((TwoFields,))


def test_every_bare_word_reads_and_prints_as_itself() -> None:
    words = ct.bare_words()
    assert set(WORDS) | {"sidetomove", "check", "ply"} <= set(words)
    for word, made in words.items():
        assert body(f"not {word}") == ct.Not(made)
        printed = print_query(one(made))
        assert printed.split("\n")[1] == word
        assert_cql(printed)


def test_words_of_the_same_length_do_not_collide() -> None:
    for first, second in itertools.combinations(WORDS, 2):
        assert body(f"{first} & {second}") == ct.Intersection((node(first), node(second)))
