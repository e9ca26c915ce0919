"""Scidb's ``:pawncount`` (X4): each attribute square by square against a pawn predicate
written here on python-chess boards (real games, hand-made positions, positions that
hypothesis makes), then whole ``:pawncount`` items against a count of those predicates,
their CQL 6.1 translation, and the reader's refusals.  Meaning: docs/semantics.md,
S-pawncount."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

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
from cqllegacy.legacy.pawn_chain import PAWN_ATTRIBUTES_REFUSED, read_pawn_chain
from tests.dialects.helpers import (
    GAMES,
    assert_index_gives_scan,
    indexed_copy,
    marked,
    plies_where,
)
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


def _on(board: chess.Board, square: Square | None, color: chess.Color) -> bool:
    """Does a pawn of ``color`` stand on ``square`` (None: off the board)?"""
    return square is not None and board.piece_at(square) == chess.Piece(chess.PAWN, color)


def _step(square: Square, files: int, ranks: int) -> Square | None:
    file, rank = chess.square_file(square) + files, chess.square_rank(square) + ranks
    return chess.square(file, rank) if 0 <= file < 8 and 0 <= rank < 8 else None


def _forward(color: chess.Color) -> int:
    return 1 if color == chess.WHITE else -1


def blocked_head_on(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return _on(board, _step(pawn, 0, _forward(color)), not color)


def behind(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    """Beyond the enemy's rearmost pawn of its file: enemy pawns on its file, all behind."""
    rank = chess.square_rank(pawn)
    file_mates = [e for e in _pawns(board, not color) if _files_apart(e, pawn) == 0]
    return bool(file_mates) and not any(
        _ahead(color, chess.square_rank(e), rank) for e in file_mates
    )


def behind_next(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return behind(board, pawn, color) and _on(board, _step(pawn, 0, -_forward(color)), not color)


def stoppable(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    rank = chess.square_rank(pawn)
    return any(
        _files_apart(e, pawn) == 1 and _ahead(color, chess.square_rank(e), rank)
        for e in _pawns(board, not color)
    )


def advanced(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return chess.square_rank(pawn) >= 4 if color == chess.WHITE else chess.square_rank(pawn) <= 3


def _friend_files(board: chess.Board, pawn: Square, color: chess.Color) -> list[bool]:
    """For each file next to the pawn that exists: does a pawn of its colour stand on it?"""
    file = chess.square_file(pawn)
    return [
        any(chess.square_file(f) == side for f in _pawns(board, color))
        for side in (file - 1, file + 1)
        if 0 <= side < 8
    ]


def integrated(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return all(_friend_files(board, pawn, color))


def halfisolated(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    sides = _friend_files(board, pawn, color)
    return len(sides) == 2 and sides[0] != sides[1]


def defended(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return bool(board.attackers(color, pawn) & board.pieces(chess.PAWN, color))


def defender(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return bool(board.attacks(pawn) & board.pieces(chess.PAWN, color))


def chained(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return defended(board, pawn, color) or defender(board, pawn, color)


def candidate(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    """No enemy pawn ahead on its file, and its supporters (pawns of its colour on the
    files next to it, level or behind) at least as many as the enemy pawns ahead there."""
    if blocked(board, pawn, color):
        return False
    rank = chess.square_rank(pawn)
    supporters = sum(
        1
        for f in _pawns(board, color)
        if _files_apart(f, pawn) == 1 and not _ahead(color, chess.square_rank(f), rank)
    )
    sentries = sum(
        1
        for e in _pawns(board, not color)
        if _files_apart(e, pawn) == 1 and _ahead(color, chess.square_rank(e), rank)
    )
    return supporters >= sentries


def candidate_not_passed(board: chess.Board, pawn: Square, color: chess.Color) -> bool:
    return candidate(board, pawn, color) and not passed(board, pawn, color)


def run_length(board: chess.Board, pawn: Square, color: chess.Color) -> int:
    """How many pawns of ``color`` stand one behind another on the pawn's file, it among
    them."""
    length = 1
    for ranks in (1, -1):
        square = _step(pawn, 0, ranks)
        while _on(board, square, color):
            length += 1
            assert square is not None
            square = _step(square, 0, ranks)
    return length


def consecutive(at_least: int) -> Predicate:
    return lambda board, pawn, color: run_length(board, pawn, color) >= at_least


def consecutive_exactly(length: int) -> Predicate:
    return lambda board, pawn, color: run_length(board, pawn, color) == length


A = lt.PawnAttribute
T = lt.PawnTest
#: Each attribute (with each count tested) and its predicate.
PREDICATES: dict[lt.PawnTest, Predicate] = {
    T(A.PASSED): passed,
    T(A.ISOLATED): isolated,
    T(A.DOUBLE): double,
    T(A.CONNECTED): connected,
    T(A.BACKWARD): backward,
    T(A.BLOCKED): blocked,
    T(A.INSIDE): inside,
    T(A.BLOCKED_HEAD_ON): blocked_head_on,
    T(A.BEHIND): behind,
    T(A.BEHIND_NEXT): behind_next,
    T(A.STOPPABLE): stoppable,
    T(A.ADVANCED): advanced,
    T(A.INTEGRATED): integrated,
    T(A.HALFISOLATED): halfisolated,
    T(A.DEFENDED): defended,
    T(A.DEFENDER): defender,
    T(A.CHAINED): chained,
    T(A.CONSECUTIVE): consecutive(2),
    T(A.CANDIDATE): candidate,
    T(A.CANDIDATE_NOT_PASSED): candidate_not_passed,
    **{T(A.CONSECUTIVE, count=n): consecutive(n) for n in (2, 3, 4)},
    **{T(A.CONSECUTIVE_EXACTLY, count=n): consecutive_exactly(n) for n in (2, 3, 4)},
}


def _test_id(test: lt.PawnTest) -> str:
    return str(test)


def predicate_squares(board: chess.Board, test: lt.PawnTest, color: chess.Color) -> int:
    holds = PREDICATES[test]
    found = 0
    for pawn in _pawns(board, color):
        if holds(board, pawn, color):
            found |= chess.BB_SQUARES[pawn]
    return found


def translated_squares(node: chess.pgn.GameNode, test: lt.PawnTest, color: chess.Color) -> int:
    board = node.board()
    condition = condition_set(test.attribute, color, board.turn != color, test.count)
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
    # Beyond the enemy: c7 just beyond c6 (and c6 just beyond c7), c4 beyond c7 at a
    # distance by Black's count, h7 beyond h5 at a distance; g5 beside h5 stops nothing.
    "8/2P4P/2p5/6Pp/2p5/8/8/k6K w - - 0 1",
    # Runs on a file: a2-a3 and a5-a6 (two runs of two), e3-e6 (four), g4 alone;
    # edge pawns with and without a neighbour file's pawn, a half-isolated f-pawn.
    "4k3/4p3/P3P3/P3P3/4P1P1/P3PP2/P7/4K3 b - - 0 1",
    # A run of three on the edge and one of three in the middle; black chains and runs.
    "4k3/1p1p4/2p1p3/1p3p2/P4P2/P4P2/P4P2/4K3 w - - 0 1",
]


def _board_node(board: chess.Board) -> chess.pgn.GameNode:
    game = chess.pgn.Game()
    game.setup(board)
    return game


def _hand_made() -> list[chess.Board]:
    """The positions above and their colour-flipped twins."""
    boards = [chess.Board(fen) for fen in HAND_MADE]
    return boards + [board.mirror() for board in boards]


@functools.cache
def _real_nodes(step: int = 3) -> list[chess.pgn.GameNode]:
    """Every ``step``-th main-line position of the test games."""
    nodes: list[chess.pgn.GameNode] = []
    for path in GAMES:
        with path.open(encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                nodes += [game, *game.mainline()][::step]
    return nodes


def test_every_attribute_that_runs_has_a_predicate() -> None:
    assert {test.attribute for test in PREDICATES} == set(lt.PawnAttribute)


@pytest.mark.parametrize("test", list(PREDICATES), ids=_test_id)
def test_each_attribute_gives_the_pawns_its_predicate_names(test: lt.PawnTest) -> None:
    shown = {chess.WHITE: 0, chess.BLACK: 0}
    left_out = 0
    for node in [*map(_board_node, _hand_made()), *_real_nodes()]:
        board = node.board()
        for color in chess.COLORS:
            want = predicate_squares(board, test, color)
            assert translated_squares(node, test, color) == want, (str(test), color, board.fen())
            shown[color] |= want
            left_out |= board.pieces_mask(chess.PAWN, color) & ~want
    # Each colour has the attribute somewhere and some pawn lacks it: else the test
    # would prove little.
    assert all(shown.values()), f"{test}: a colour never shows it"
    assert left_out, f"{test}: every pawn has it"


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
    for test in PREDICATES:
        for color in chess.COLORS:
            want = predicate_squares(board, test, color)
            assert translated_squares(game, test, color) == want, (str(test), board.fen())


# --------------------------------------------------------------------------------------
# Whole items: the chain, `!`, the range, both colours, :flipcolor
# --------------------------------------------------------------------------------------


def _count(
    board: chess.Board, color: chess.Color, chain: list[tuple[lt.PawnAttribute, bool]]
) -> int:
    pawns = 0
    for pawn in _pawns(board, color):
        if all(PREDICATES[T(a)](board, pawn, color) != negated for a, negated in chain):
            pawns += 1
    return pawns


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
    ":pawncount P defended-advanced >=2": lambda b, m: (
        _count(b, True, [(A.DEFENDED, False), (A.ADVANCED, False)]) >= 2
    ),
    ":pawncount p blocked!-!chained >=2": lambda b, m: (
        _count(b, False, [(A.BLOCKED_HEAD_ON, False), (A.CHAINED, True)]) >= 2
    ),
    ":pawncount [Pp] halfisolated-stoppable 3 4": lambda b, m: (
        3
        <= sum(_count(b, c, [(A.HALFISOLATED, False), (A.STOPPABLE, False)]) for c in chess.COLORS)
        <= 4
    ),
    ":pawncount P integrated-!defender 2 :flipcolor": lambda b, m: any(
        _count(b, c, [(A.INTEGRATED, False), (A.DEFENDER, True)]) == 2 for c in chess.COLORS
    ),
    ":pawncount [Pp] behind >=1": lambda b, m: (
        sum(_count(b, c, [(A.BEHIND, False)]) for c in chess.COLORS) >= 1
    ),
    ":pawncount p behind!-unstoppable >=1": lambda b, m: (
        _count(b, False, [(A.BEHIND_NEXT, False), (A.STOPPABLE, True)]) >= 1
    ),
    ":pawncount P consecutive!(2)-!advanced >=2 :flipcolor": lambda b, m: any(
        sum(
            1
            for pawn in _pawns(b, c)
            if PREDICATES[T(A.CONSECUTIVE_EXACTLY, count=2)](b, pawn, c)
            and not advanced(b, pawn, c)
        )
        >= 2
        for c in chess.COLORS
    ),
    ":pawncount P candidate-!passed-advanced >=1 :flipcolor": lambda b, m: any(
        _count(b, c, [(A.CANDIDATE, False), (A.PASSED, True), (A.ADVANCED, False)]) >= 1
        for c in chess.COLORS
    ),
    ":pawncount p candidate! 2": lambda b, m: (
        _count(b, False, [(A.CANDIDATE_NOT_PASSED, False)]) == 2
    ),
    ":pawncount [Pp] candidate-!candidate!-connected >=2 :flipcolor": lambda b, m: (
        sum(
            _count(
                b, c, [(A.CANDIDATE, False), (A.CANDIDATE_NOT_PASSED, True), (A.CONNECTED, False)]
            )
            for c in chess.COLORS
        )
        >= 2
    ),
    ":pawncount [Pp] isolated-consecutive >=2": lambda b, m: (
        sum(_count(b, c, [(A.ISOLATED, False), (A.CONSECUTIVE, False)]) for c in chess.COLORS) >= 2
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


@pytest.mark.parametrize(
    "text",
    [
        "(match (position :markall :pawncount P defended-advanced-!behind >=2 :flipcolor))",
        "(match (position :pawncount [Pp] consecutive!(2)-halfisolated-!stoppable 1 2 :shift))",
        "(match (position :markall :pawncount P candidate!-!advanced >=1 :flipcolor))",
    ],
)
def test_the_index_gives_what_the_scan_gives(text: str, tmp_path: Path) -> None:
    assert_index_gives_scan(text, indexed_copy(tmp_path, GAMES))


@pytest.mark.parametrize(
    "text",
    [
        "(match (position :markall :pawncount P[a-d?] candidate!-stoppable >=1 :shifthorizontal))",
        "(match (position :markall :pawncount P candidate-!passed 1 :flipvertical))",
        "(match (position :markall :pawncount P integrated-chained-!consecutive(3) 4 :flip))",
    ],
)
def test_under_a_transform_the_translation_marks_the_same_positions(text: str) -> None:
    modern = translate(text)
    assert_cql(modern)
    found = marked(text)
    assert found, "a query that matches nothing proves little"
    assert marked(modern) == found


def test_check_names_pawncount_as_a_dialect_form() -> None:
    script = read_script("(match (position :pawncount P passed 1))")
    assert [form for form, _ in script.dialect_forms] == ["`:pawncount`"]


def test_the_item_prints_back_as_it_reads() -> None:
    from cqllegacy.legacy.printer import print_script

    script = read_script("(match (position :pawncount [Pp] !passed-double 2 5))")
    printed = print_script(script)
    assert ":pawncount [Pp] !passed-double 2 5" in printed
    assert read_script(printed).match == script.match
    script = read_script("(match (position :pawncount P !consecutive!(3)-candidate! 1))")
    printed = print_script(script)
    assert ":pawncount P !consecutive!(3)-candidate! 1" in printed
    assert read_script(printed).match == script.match


# --------------------------------------------------------------------------------------
# Refusals: placed, named, never an unknown keyword
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "column", "words"),
    [
        (":pawncount P passed-stopped 1", 38, "attribute `stopped`: the help does not say"),
        (":pawncount P triple(3) 1", 31, "attribute `triple(n)`: counts the pawns of a file"),
        (":pawncount P passed-islands 1", 38, "counts pawn groups (islands), not pawns"),
        (":pawncount P chained(3) 1", 31, "attribute `chained(n)`"),
        (":pawncount P consecutive(7) 1", 31, "the count of `consecutive` is 2 to 6"),
        (":pawncount P !consecutive! 1", 31, "`consecutive!` needs a count"),
        (":pawncount P isolated-passed(2) 1", 40, "attribute `passed` takes no count"),
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


@pytest.mark.parametrize("name", sorted(PAWN_ATTRIBUTES_REFUSED))
def test_every_other_attribute_of_the_help_is_refused_with_its_reason(name: str) -> None:
    with pytest.raises(LegacySyntaxError) as info:
        read_script(f"(match (position :pawncount P passed-!{name} 1))")
    message = str(info.value)
    assert f"Scidb `:pawncount` attribute `{name}`: " in message
    assert "not implemented" not in message and "unknown" not in message
    assert (info.value.line, info.value.column) == (1, 38)


def test_the_english_spellings_of_not_blocked_and_not_stoppable_read_as_the_negations() -> None:
    item = read_script("(match (position :pawncount P unblocked-unstoppable 1))")
    chain = item.match.items[0].items[0].chain
    assert str(chain) == "!blocked-!stoppable" == str(read_pawn_chain("!blocked-!stoppable"))


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
            st.builds(
                lambda test, negated: T(test.attribute, negated, test.count),
                st.sampled_from(list(PREDICATES)),
                st.booleans(),
            ),
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
            PREDICATES[T(test.attribute, False, test.count)](board, pawn, color) != test.negated
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


def _documented_lists() -> list[str]:
    """The position lists of the examples in docs/semantics.md, S-pawncount."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "semantics.md").read_text("utf-8")
    section = text.split("### S-pawncount", 1)[1].split("\n### ", 1)[0]
    blocks = section.split("```")[1::2]
    return [line.split(";")[0].strip() for block in blocks for line in block.splitlines() if line]


@pytest.mark.parametrize("position_list", _documented_lists())
def test_the_documented_examples_read_and_translate(position_list: str) -> None:
    text = f"(match {position_list})"
    read_script(text)
    assert_cql(translate(text))


def test_the_documented_examples_are_found() -> None:
    assert len(_documented_lists()) >= 3
