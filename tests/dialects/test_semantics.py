"""The dialect keywords that run, each against an independent python-chess predicate on
real games (every main-line position of fixtures/games.pgn and the examples' games):
the positions a ``:markall`` list marks are exactly those where the predicate holds.
Each translation is also run as CQL 6.1 (read back by the modern reader) and must mark
the same positions of the same games."""

from __future__ import annotations

import functools
import itertools

import chess
import chess.pgn
import pytest
from cqllegacy.translator import translate

from tests.dialects.helpers import GAMES, Predicate, marked, plies_where
from tests.support.modern import assert_cql


def double_check(board: chess.Board, move: chess.Move | None = None) -> bool:
    return len(board.checkers()) >= 2


def contact_check(board: chess.Board, move: chess.Move | None = None) -> bool:
    checkers = board.checkers()
    if not checkers:
        return False
    if len(checkers) >= 2:
        return True
    (checker,) = list(checkers)
    king = board.king(board.turn)
    assert king is not None
    if board.piece_type_at(checker) in (chess.KNIGHT, chess.PAWN):
        return True
    return chess.square_distance(checker, king) == 1


def _count(board: chess.Board, color: chess.Color, *types: chess.PieceType) -> int:
    return sum(len(board.pieces(kind, color)) for kind in types)


def endgame(board: chess.Board, move: chess.Move | None = None) -> bool:
    W, B = chess.WHITE, chess.BLACK
    Q, R, BI, N = chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT
    no_queens = _count(board, W, Q) + _count(board, B, Q) == 0
    if no_queens and _count(board, W, R, BI, N) <= 3 and _count(board, B, R, BI, N) <= 3:
        return True
    if (
        _count(board, W, Q) == 1
        and _count(board, B, Q) == 1
        and _count(board, W, R) + _count(board, B, R) == 0
        and _count(board, W, BI, N) <= 1
        and _count(board, B, BI, N) <= 1
    ):
        return True
    for side in (W, B):
        other = not side
        rook_and_minor_points = 5 * _count(board, other, R) + 3 * _count(board, other, BI, N)
        if (
            _count(board, side, Q) == 1
            and _count(board, side, R) == 0
            and _count(board, side, BI, N) <= 1
            and _count(board, other, Q) == 0
            and rook_and_minor_points <= 16
        ):
            return True
    return False


def no_mating_material(board: chess.Board, move: chess.Move | None = None) -> bool:
    pieces = chess.popcount(board.occupied)
    minors = chess.popcount(board.bishops | board.knights)
    if pieces == 2:
        return True
    if pieces == 3 and minors == 1:
        return True
    if pieces == 4:
        bishops = board.bishops
        return chess.popcount(bishops) == 2 and (
            bishops & chess.BB_LIGHT_SQUARES == bishops
            or bishops & chess.BB_DARK_SQUARES == bishops
        )
    return False


def game_is_over(board: chess.Board, move: chess.Move | None = None) -> bool:
    return board.is_checkmate() or board.is_stalemate() or no_mating_material(board)


def after_move(test: Predicate) -> Predicate:
    def holds(board: chess.Board, move: chess.Move | None) -> bool:
        if move is None:
            return False
        after = board.copy(stack=False)
        after.push(move)
        return test(after, None)

    return holds


CASES: dict[str, Predicate] = {
    ":doublecheck": double_check,
    ":contactcheck": contact_check,
    ":endgame": endgame,
    ":matingmaterial": lambda board, move: not no_mating_material(board),
    "!:matingmaterial": no_mating_material,
    ":nomatingmaterial": no_mating_material,
    ":gameisover": game_is_over,
    ":nomate": lambda board, move: not board.is_checkmate(),
    ":ischeck": after_move(lambda board, move: board.is_check()),
    ":ismate": after_move(lambda board, move: board.is_checkmate()),
    ":isdoublecheck": after_move(double_check),
    ":iscontactcheck": after_move(contact_check),
    "!:check": lambda board, move: not board.is_check(),
    ":terminal": lambda board, move: move is None,
    "!:terminal": lambda board, move: move is not None,
    # python-chess's ply(): 2 * (full-move number - 1), plus 1 with Black to move
    ":halfmovenumber 5 7": lambda board, move: 5 <= board.ply() <= 7,
    ":halfmovenumber >=150": lambda board, move: board.ply() >= 150,
    ":halfmovenumber 0": lambda board, move: board.ply() == 0,
    ":nodoublecheck": lambda board, move: not double_check(board),
}


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_a_dialect_keyword_marks_the_positions_its_definition_names(keyword: str) -> None:
    text = f"(match (position :markall {keyword}))"
    want = plies_where(CASES[keyword])
    assert marked(text) == want
    assert want, f"{keyword}: the games hold no example; the test would prove nothing"


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_its_cql_6_translation_marks_the_same_positions(keyword: str) -> None:
    text = f"(match (position :markall {keyword}))"
    modern = translate(text)
    assert_cql(modern)
    assert marked(modern) == marked(text)


def test_xor_is_exactly_one() -> None:
    text = "(match (position :markall :xor ((position :check) (position Q) (position q))))"

    def exactly_one(board: chess.Board, move: chess.Move | None) -> bool:
        tests = [board.is_check(), bool(board.pieces(chess.QUEEN, chess.WHITE))]
        tests.append(bool(board.pieces(chess.QUEEN, chess.BLACK)))
        return sum(tests) == 1

    assert marked(text) == plies_where(exactly_one)
    assert marked(translate(text)) == marked(text)


def test_cond_takes_the_first_clause_that_matches() -> None:
    text = (
        "(match (position :markall :cond ((position :check) (position :wtm)"
        " (position q) (position Q) (position :btm))))"
    )

    def first_clause(board: chess.Board, move: chess.Move | None) -> bool:
        if board.is_check():
            return board.turn == chess.WHITE
        if board.pieces(chess.QUEEN, chess.BLACK):
            return bool(board.pieces(chess.QUEEN, chess.WHITE))
        return board.turn == chess.BLACK

    assert marked(text) == plies_where(first_clause)
    assert marked(translate(text)) == marked(text)


def test_matchconsecutive_is_the_or_of_the_sequences_of_every_ordering() -> None:
    # X2, against the standard spelling it stands for, on the same games and plies.
    lists = ["(position :check)", "(position :movefrom K)", "(position :btm)"]
    text = f"(match (position :markall :matchconsecutive ({' '.join(lists)})))"
    orders = " ".join(
        f"(position :sequence ({' '.join(order)}))" for order in itertools.permutations(lists)
    )
    standard = f"(match (position :markall :or ({orders})))"
    assert marked(text) == marked(standard)
    assert marked(text)
    assert marked(translate(text)) == marked(text)


def test_a_bare_position_list_is_the_match_list_of_it() -> None:
    assert marked("(position :markall :doublecheck)") == marked(
        "(match (position :markall :doublecheck))"
    )


def test_a_negated_list_is_the_standard_nested_not() -> None:
    dialect = "(match (position :markall :not (position :check :wtm)))"
    standard = "(match (position :markall :and ((position :not :check :wtm))))"
    assert marked(dialect) == marked(standard)
    assert marked(dialect)


def test_open_ranges_and_signs_are_the_ranges_they_spell() -> None:
    dialect = "(match (position :markall :piececount P <=3 :powerdifference A >=\u22122))"
    standard = "(match (position :markall :piececount P 0 3 :powerdifference A -2 1000))"
    assert marked(dialect) == marked(standard)
    assert marked(dialect)


@functools.cache
def all_headers() -> list[tuple[int, chess.pgn.Headers]]:
    found = []
    ordinal = 0
    for path in GAMES:
        with path.open(encoding="utf-8") as handle:
            while (headers := chess.pgn.read_headers(handle)) is not None:
                ordinal += 1
                found.append((ordinal, headers))
    return found


@pytest.mark.parametrize(("keyword", "tag"), [("whiteplayer", "White"), ("blackplayer", "Black")])
@pytest.mark.parametrize("word", ["KARPOV", "an", "mikhail"])
def test_a_player_of_one_colour_contains_the_word_ignoring_case(
    keyword: str, tag: str, word: str
) -> None:
    text = f"(match :{keyword} {word} (position))"
    want = {n for n, headers in all_headers() if word.lower() in headers.get(tag, "").lower()}
    assert set(marked(text)) == want
    assert want
    assert set(marked(translate(text))) == want


def _rating(headers: chess.pgn.Headers, tag: str) -> int | None:
    """A rating as L9 reads it: the tag's number, None when absent or not a number;
    Scidb's match-list keywords read None as 0."""
    text = headers.get(tag, "")
    return int(text) if text.isdigit() else None


@pytest.mark.parametrize(
    ("keyword", "lo", "hi"),
    [
        ("elo", 2600, None),
        ("whiteelo", 2000, 2700),
        ("blackelo", 2700, None),
        ("whiteelo", 0, 2650),
        ("elo", 0, 0),
        ("blackelo", 0, None),
    ],
)
def test_match_list_ratings_read_0_as_unrated(keyword: str, lo: int, hi: int | None) -> None:
    tags = {"elo": ("WhiteElo", "BlackElo"), "whiteelo": ("WhiteElo",), "blackelo": ("BlackElo",)}
    top = "unlimited" if hi is None else str(hi)
    text = f"(match :{keyword} {lo} {top} (position))"

    def holds(headers: chess.pgn.Headers) -> bool:
        for tag in tags[keyword]:
            rating = _rating(headers, tag) or 0
            if lo <= rating and (hi is None or rating <= hi):
                return True
        return False

    want = {n for n, headers in all_headers() if holds(headers)}
    assert want
    assert set(marked(text)) == want
    assert set(marked(translate(text))) == want
