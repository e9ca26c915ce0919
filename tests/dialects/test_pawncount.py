"""Scidb's ``:pawncount`` (X4): each attribute square by square against a pawn predicate
written here on python-chess boards (real games, hand-made positions, positions that
hypothesis makes), then whole ``:pawncount`` items against a count of those predicates,
their CQL 6.1 translation, and the reader's refusals.  Meaning: docs/semantics.md,
S-pawncount."""

from __future__ import annotations

import functools
from collections.abc import Callable

import chess
import chess.pgn
import pytest
from cqllegacy.translator import translate
from cqllegacy.translator.pawns import condition_set, pawn_count
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as core
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.legacy import LegacySyntaxError, read_script
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.lexical import parse_designator
from tests.dialects.helpers import GAMES, marked, plies_where
from tests.support.modern import assert_cql

Square = chess.Square
Predicate = Callable[[chess.Board, Square, chess.Color], bool]


# --------------------------------------------------------------------------------------
# The predicates: one pawn at a time, by file and rank
# --------------------------------------------------------------------------------------


def _ahead(color: chess.Color, rank: int, than: int) -> bool:
    """Is ``rank`` ahead of ``than`` for a pawn of ``color``?"""
    return rank > than if color == chess.WHITE else rank < than


def _pawns(board: chess.Board, color: chess.Color) -> list[Square]:
    return list(board.pieces(chess.PAWN, color))


def _files_apart(a: Square, b: Square) -> int:
    return abs(chess.square_file(a) - chess.square_file(b))


def passed(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    rank = chess.square_rank(pawn)
    return not any(
        _files_apart(enemy, pawn) <= 1 and _ahead(color, chess.square_rank(enemy), rank)
        for enemy in _pawns(board, not color)
    )


def connected(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return any(_files_apart(friend, pawn) == 1 for friend in _pawns(board, color))


def isolated(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return not connected(board, pawn, color)


def double(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return any(f != pawn and _files_apart(f, pawn) == 0 for f in _pawns(board, color))


def blocked(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    rank = chess.square_rank(pawn)
    return any(
        _files_apart(enemy, pawn) == 0 and _ahead(color, chess.square_rank(enemy), rank)
        for enemy in _pawns(board, not color)
    )


def backward(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    friends = [f for f in _pawns(board, color) if _files_apart(f, pawn) == 1]
    rank = chess.square_rank(pawn)
    return bool(friends) and all(_ahead(color, chess.square_rank(f), rank) for f in friends)


def inside(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    """The rule of the square: the enemy king reaches the promotion square in time."""
    rank = chess.square_rank(pawn)
    promotion = chess.square(chess.square_file(pawn), 7 if color == chess.WHITE else 0)
    moves = abs(chess.square_rank(promotion) - rank)
    if rank == (1 if color == chess.WHITE else 6):
        moves -= 1  # the double step
    if board.turn != color:
        moves += 1  # the king moves first
    return any(
        chess.square_distance(k, promotion) <= moves for k in board.pieces(chess.KING, not color)
    )


PREDICATES: dict[lt.PawnAttribute, Predicate] = {
    lt.PawnAttribute.PASSED: passed,
    lt.PawnAttribute.ISOLATED: isolated,
    lt.PawnAttribute.DOUBLE: double,
    lt.PawnAttribute.CONNECTED: connected,
    lt.PawnAttribute.BACKWARD: backward,
    lt.PawnAttribute.BLOCKED: blocked,
    lt.PawnAttribute.INSIDE: inside,
}


def predicate_squares(board: chess.Board, attribute: lt.PawnAttribute, color: chess.Color) -> int:
    test = PREDICATES[attribute]
    found = 0
    for pawn in _pawns(board, color):
        if test(board, pawn, color):
            found |= chess.BB_SQUARES[pawn]
    return found


def translated_squares(
    node: chess.pgn.GameNode, attribute: lt.PawnAttribute, color: chess.Color
) -> int:
    board = node.board()
    condition = condition_set(attribute, color, defender_to_move=board.turn != color)
    own = core.PieceSet(1 << (0 if color == chess.WHITE else 6), chess.BB_ALL)
    value = evaluate_filter(core.Intersection((own, condition)), node)
    assert isinstance(value, int)
    return value


# --------------------------------------------------------------------------------------
# Square by square
# --------------------------------------------------------------------------------------

HAND_MADE = [
    # Doubled c-pawns, passed a- and h-pawns, an isolated f-pawn on each side.
    "8/p4p2/1p3P2/8/2P5/2P5/7P/k6K w - - 0 1",
    # A backward d-pawn (c4, e4 ahead of d3), a pawn beside it on its rank is not backward.
    "4k3/8/8/8/2P1P3/3P4/5PP1/4K3 w - - 0 1",
    # Blocked head-on and at a distance; a black pawn behind a white one does not block.
    "4k3/8/3p4/3P4/1p6/8/1P4Pp/4K3 b - - 0 1",
    # Rule of the square: a5 against Kd5 (in), h2 from its start rank against Kc4.
    "8/8/8/P2k4/8/8/7P/K7 w - - 0 1",
    "8/8/8/P2k4/8/8/7P/K7 b - - 0 1",
    "8/8/8/8/2k5/8/7P/K7 w - - 0 1",
    "8/8/8/8/2k5/8/7P/K7 b - - 0 1",
    # Black's pawns and White's king, on both sides of the square's edge.
    "k7/p7/8/8/4K3/8/8/8 w - - 0 1",
    "k7/p7/8/8/4K3/8/8/8 b - - 0 1",
    "k7/8/8/6p1/8/8/8/3K4 w - - 0 1",
    "k7/8/8/6p1/8/8/8/3K4 b - - 0 1",
]


def _board_node(fen: str) -> chess.pgn.GameNode:
    game = chess.pgn.Game()
    game.setup(chess.Board(fen))
    return game


@functools.cache
def _real_nodes(step: int = 3) -> list[chess.pgn.GameNode]:
    """Every ``step``-th main-line position of the test games."""
    nodes: list[chess.pgn.GameNode] = []
    for path in GAMES:
        with path.open(encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                nodes += [game, *game.mainline()][::step]
    return nodes


@pytest.mark.parametrize("attribute", list(lt.PawnAttribute), ids=lambda a: a.value)
def test_each_attribute_gives_the_pawns_its_predicate_names(attribute: lt.PawnAttribute) -> None:
    shown = 0
    for node in [*map(_board_node, HAND_MADE), *_real_nodes()]:
        board = node.board()
        for color in chess.COLORS:
            want = predicate_squares(board, attribute, color)
            assert translated_squares(node, attribute, color) == want, (
                attribute,
                color,
                board.fen(),
            )
            shown |= want
    assert shown, f"{attribute.value}: no position shows it; the test would prove nothing"


_PAWN_SQUARES = [sq for sq in chess.SQUARES if 1 <= chess.square_rank(sq) <= 6]


@st.composite
def _boards(draw: st.DrawFn) -> chess.Board:
    board = chess.Board(None)
    squares = draw(st.lists(st.sampled_from(chess.SQUARES), min_size=2, max_size=2, unique=True))
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    free = [sq for sq in _PAWN_SQUARES if sq not in squares]
    pawns = draw(st.lists(st.sampled_from(free), max_size=12, unique=True))
    for pawn in pawns:
        board.set_piece_at(pawn, chess.Piece(chess.PAWN, draw(st.booleans())))
    board.turn = draw(st.booleans())
    return board


@settings(max_examples=150, deadline=None)
@given(board=_boards())
def test_on_made_up_positions_too(board: chess.Board) -> None:
    game = chess.pgn.Game()
    game.setup(board)
    for attribute in lt.PawnAttribute:
        for color in chess.COLORS:
            want = predicate_squares(board, attribute, color)
            assert translated_squares(game, attribute, color) == want, (attribute, board.fen())


# --------------------------------------------------------------------------------------
# Whole items: the chain, `!`, the range, both colours, :flipcolor
# --------------------------------------------------------------------------------------


def _count(
    board: chess.Board, color: chess.Color, chain: list[tuple[lt.PawnAttribute, bool]]
) -> int:
    pawns = 0
    for pawn in _pawns(board, color):
        if all(PREDICATES[a](board, pawn, color) != negated for a, negated in chain):
            pawns += 1
    return pawns


A = lt.PawnAttribute
ITEMS: dict[str, Callable[[chess.Board, chess.Move | None], bool]] = {
    ":pawncount P passed-!inside >=1": lambda b, m: (
        _count(b, True, [(A.PASSED, False), (A.INSIDE, True)]) >= 1
    ),
    ":pawncount p isolated 2 3": lambda b, m: 2 <= _count(b, False, [(A.ISOLATED, False)]) <= 3,
    ":pawncount [Pp] double >=4": lambda b, m: (
        _count(b, True, [(A.DOUBLE, False)]) + _count(b, False, [(A.DOUBLE, False)]) >= 4
    ),
    ":pawncount P backward-!blocked 1": lambda b, m: (
        _count(b, True, [(A.BACKWARD, False), (A.BLOCKED, True)]) == 1
    ),
    ":pawncount P connected-passed >=2 :flipcolor": lambda b, m: any(
        _count(b, c, [(A.CONNECTED, False), (A.PASSED, False)]) >= 2 for c in chess.COLORS
    ),
    ":pawncount p[a-d?] blocked 0": lambda b, m: (
        sum(
            1
            for sq in b.pieces(chess.PAWN, False)
            if chess.square_file(sq) < 4 and blocked(b, sq, False)
        )
        == 0
    ),
}


@pytest.mark.parametrize("item", sorted(ITEMS))
def test_an_item_marks_the_positions_its_count_names(item: str) -> None:
    text = f"(match (position :markall {item}))"
    want = plies_where(ITEMS[item])
    assert marked(text) == want
    assert want, f"{item}: the games hold no example; the test would prove nothing"


@pytest.mark.parametrize("item", sorted(ITEMS))
def test_its_cql_6_translation_marks_the_same_positions(item: str) -> None:
    text = f"(match (position :markall {item}))"
    modern = translate(text)
    assert_cql(modern)
    assert marked(modern) == marked(text)


def test_check_names_pawncount_as_a_dialect_form() -> None:
    script = read_script("(match (position :pawncount P passed 1))")
    assert [form for form, _ in script.dialect_forms] == ["`:pawncount`"]


def test_the_item_prints_back_as_it_reads() -> None:
    from cqllegacy.legacy.printer import print_script

    script = read_script("(match (position :pawncount [Pp] !passed-double 2 5))")
    printed = print_script(script)
    assert ":pawncount [Pp] !passed-double 2 5" in printed
    assert read_script(printed).match == script.match


# --------------------------------------------------------------------------------------
# Refusals: placed, named, never an unknown keyword
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "column", "words"),
    [
        (":pawncount P passed-candidate 1", 38, "attribute `candidate`: not implemented"),
        (":pawncount P triple(3) 1", 31, "attribute `triple`"),
        (":pawncount P doubled 1", 31, "unknown `:pawncount` attribute `doubled`"),
        (":pawncount P passed--inside 1", 38, "attribute is missing"),
        (":pawncount N passed 1", 29, "counts pawns"),
        (":pawncount [PN] passed 1", 29, "counts pawns"),
        (":pawncount P passed >50%", 38, "range"),
        (":pawncount P inside <=\u22121", 38, "empty range"),
        (":pawncount P 1", 31, "unknown `:pawncount` attribute `1`"),
    ],
)
def test_a_bad_item_is_refused_where_it_stands(item: str, column: int, words: str) -> None:
    with pytest.raises(LegacySyntaxError) as info:
        read_script(f"(match (position {item}))")
    assert words in str(info.value)
    assert (info.value.line, info.value.column) == (1, column)


def test_a_percentage_range_is_refused_with_its_reason() -> None:
    with pytest.raises(LegacySyntaxError) as info:
        read_script("(match (position :pawncount P !blocked >50%))")
    assert (info.value.line, info.value.column) == (1, 40)
    assert "percentage ranges are not supported" in info.value.hint


@st.composite
def _items(draw: st.DrawFn) -> lt.PawnCount:
    letters = draw(st.sampled_from(["P", "p", "[Pp]"]))
    squares = draw(st.integers(min_value=1, max_value=chess.BB_ALL))
    tests = draw(
        st.lists(
            st.builds(lt.PawnTest, st.sampled_from(list(lt.PawnAttribute)), st.booleans()),
            min_size=1,
            max_size=3,
        )
    )
    lo = draw(st.integers(min_value=0, max_value=4))
    hi = draw(st.one_of(st.none(), st.integers(min_value=lo, max_value=6)))
    designator = lt.Designator(parse_designator(letters).types, squares)
    return lt.PawnCount(designator, lt.PawnChain(tuple(tests)), lt.Range(lo, hi))


def _item_holds(board: chess.Board, item: lt.PawnCount) -> bool:
    colors = [c for c in chess.COLORS if item.designator.types & (1 << (0 if c else 6))]
    found = sum(
        1
        for color in colors
        for pawn in _pawns(board, color)
        if item.designator.squares & chess.BB_SQUARES[pawn]
        and all(
            PREDICATES[test.attribute](board, pawn, color) != test.negated
            for test in item.chain.tests
        )
    )
    return found in item.range


@settings(max_examples=150, deadline=None)
@given(board=_boards(), item=_items())
def test_a_whole_item_counts_what_the_predicates_count(
    board: chess.Board, item: lt.PawnCount
) -> None:
    game = chess.pgn.Game()
    game.setup(board)
    assert evaluate_filter(pawn_count(item), game) is _item_holds(board, item), (board.fen(), item)
