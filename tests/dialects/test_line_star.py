"""Scidb's ``:line* (…)`` (issue 30, X3): the positions a ``:markall`` list marks are
those identical (placement, side to move, castling rights; en passant aside) to the one
the moves reach when played in order from each game's own start.  The expected plies
come from a python-chess loop written here: per game, the moves replayed from its start
as long algebraic notation (plus the captured piece), each position compared with the
result.  Checked on the help's French example, on transpositions of real games' openings,
on games from FEN starts, Chess960 castling, en passant, lost castling rights and a
check on the last move; every refusal at its place; the index and two workers give the
scan's result."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest
from cqllegacy.translator import translate

from cqllegacy.api import Query
from cqllegacy.errors import CqlLegacyError
from cqllegacy.legacy import LegacySyntaxError, read_script
from tests.dialects.helpers import (
    GAMES,
    assert_index_gives_scan,
    indexed_copy,
    main_lines,
    marked,
)

STAR_GAMES = Path(__file__).resolve().parent / "line-star.pgn"
ALL = [*GAMES, STAR_GAMES]
#: The ordinals of line-star.pgn's games among ALL.
FIRST_STAR = len(main_lines(tuple(GAMES))) + 1
CHESS960, FRENCH_START, AFTER_E4, EN_PASSANT, RIGHTS_LOST, CHECKS = range(
    FIRST_STAR, FIRST_STAR + 6
)

#: A move as the expectation replays it: long algebraic notation python-chess parses, and
#: the kind of the piece it takes (None: none; en passant takes from an empty square).
Step = tuple[str, str | None]


#: What the expectation compares: placement, side to move, castling rights.
Key = tuple[str, bool, int]


def _key(board: chess.Board) -> Key:
    return board.board_fen(), board.turn, board.clean_castling_rights()


def _reached(start: chess.Board, steps: list[Step], check: str = "") -> Key | None:
    board = start.copy()
    for lan, captured in steps:
        try:
            move = board.parse_san(lan)
        except ValueError:
            return None
        taken = board.piece_at(move.to_square)
        if board.is_castling(move):
            taken = None
        if (taken.symbol().upper() if taken else None) != captured:
            return None
        board.push(move)
    holds = {
        "": True,
        "+": board.is_check(),
        "#": board.is_checkmate(),
        "-": not board.is_check(),
        "++": len(board.checkers()) == 2,
    }[check]
    return _key(board) if holds else None


def expected(steps: list[Step], paths: list[Path] = ALL, check: str = "") -> dict[int, set[int]]:
    found: dict[int, set[int]] = {}
    for ordinal, plies in main_lines(tuple(paths)):
        target = _reached(plies[0][0], steps, check)
        hits = {ply for ply, (board, _) in enumerate(plies) if _key(board) == target}
        if hits:
            found[ordinal] = hits
    return found


def _steps(text: str) -> list[Step]:
    """``"Ng1-f3 e4xd5:P"``: long algebraic moves, ``:X`` the piece taken."""
    out: list[Step] = []
    for word in text.split():
        lan, _, captured = word.partition(":")
        out.append((lan, captured or None))
    return out


def _star(moves: str) -> str:
    return f"(match (position :markall :line* ({moves})))"


FRENCH = _steps("e2-e4 e7-e6 d2-d4 d7-d5")


def test_the_helps_french_example_finds_the_french_in_any_order() -> None:
    want = expected(FRENCH)
    assert len(want) >= 3 and FRENCH_START not in want
    assert marked(_star("1.Pe2-e4 Pe7-e6 2.Pd2-d4 Pd7-d5"), ALL) == want
    # The same moves in another order: the same positions.
    assert marked(_star("Pd2-d4 Pd7-d5 Pe2-e4 pe7-e6"), ALL) == want
    # Played from a start after 1. e4, the first move is Black's.
    black_first = _steps("e7-e6 d2-d4 d7-d5")
    assert expected(black_first, [STAR_GAMES]) == {AFTER_E4 - FIRST_STAR + 1: {3}}
    assert marked(_star("Pe7-e6 Pd2-d4 Pd7-d5"), ALL) == expected(black_first)
    assert marked(_star("1...Pe7-e6 2.Pd2-d4 Pd7-d5"), ALL) == expected(black_first)
    # Move numbers that give the first move to White: that game's start does not fit.
    assert marked(_star("1.Pe7-e6 Pd2-d4 2.Pd7-d5"), ALL) == {}


def _transpositions() -> list[tuple[str, list[Step], int]]:
    """Openings of real games with one colour's moves reordered (where the new order is
    legal and differs): the script's moves, the steps, and the source game."""
    cases = []
    games = main_lines(tuple(GAMES))
    for ordinal, plies in games[::7]:
        moves = [move for _, move in plies[:10] if move is not None]
        if len(moves) < 10:
            continue
        rng = random.Random(ordinal)
        for _ in range(200):
            colour = rng.randrange(2)
            own = moves[colour::2]
            order = list(own)
            i, j = sorted(rng.sample(range(len(own)), 2))
            order[i], order[j] = order[j], order[i]
            new = list(moves)
            new[colour::2] = order
            written = _written(plies[0][0], new)
            if written is not None:
                cases.append((*written, ordinal))
                break
    return cases[:8]


def _written(start: chess.Board, moves: list[chess.Move]) -> tuple[str, list[Step]] | None:
    board = start.copy()
    tokens: list[str] = []
    steps: list[Step] = []
    for move in moves:
        if move not in board.legal_moves:
            return None
        piece = board.piece_at(move.from_square)
        taken = board.piece_at(move.to_square)
        assert piece is not None
        name = f"{piece.symbol()}{chess.square_name(move.from_square)}"
        to = chess.square_name(move.to_square)
        promotion = f"={chess.piece_symbol(move.promotion).upper()}" if move.promotion else ""
        if board.is_castling(move):
            tokens.append("O-O" if board.is_kingside_castling(move) else "O-O-O")
        elif board.is_en_passant(move):
            tokens.append(f"{name}x{to} ep")
        elif taken is not None:
            tokens.append(f"{name}x{taken.symbol()}{to}{promotion}")
        else:
            tokens.append(f"{name}-{to}{promotion}")
        steps.append((board.lan(move).rstrip("+#"), taken.symbol().upper() if taken else None))
        board.push(move)
    return " ".join(tokens), steps


TRANSPOSITIONS = _transpositions()


def test_the_transpositions_are_real() -> None:
    assert len(TRANSPOSITIONS) >= 5
    assert any("x" in moves for moves, _, _ in TRANSPOSITIONS)


@pytest.mark.parametrize(("moves", "steps", "source"), TRANSPOSITIONS)
def test_a_transposed_opening_marks_what_python_chess_finds(
    moves: str, steps: list[Step], source: int
) -> None:
    want = expected(steps)
    # The game it was taken from reaches the same position in its own order.
    assert 10 in want.get(source, set())
    assert marked(_star(moves), ALL) == want


@pytest.mark.parametrize(
    ("moves", "steps", "check", "game", "plies"),
    [
        # Chess960: the king stays on g1 as it castles; written as castling or king move.
        (
            "Pf2-f3 Pa7-a6 Nd1-c3 Pb7-b5 Rf1-f2 Nd8-e6 O-O",
            "f2-f3 a7-a6 Nd1-c3 b7-b5 Rf1-f2 Nd8-e6 O-O",
            "", CHESS960, {7},
        ),
        (
            "Pf2-f3 Pa7-a6 Nd1-c3 Pb7-b5 Rf1-f2 Nd8-e6",
            "f2-f3 a7-a6 Nd1-c3 b7-b5 Rf1-f2 Nd8-e6",
            "", CHESS960, {6},
        ),
        # En passant: the capture needs the double step right before it.
        ("Pe2-e4 Pa7-a6 Pe4-e5 Pd7-d5 Pe5xd6 ep", "e2-e4 a7-a6 e4-e5 d7-d5 e5xd6", "",
         EN_PASSANT, {5}),
        ("Pe2-e4 Pd7-d5 Pe4-e5 Pa7-a6 Pe5xd6 ep", "e2-e4 d7-d5 e4-e5 a7-a6 e5xd6", "",
         None, set()),
        # Castling rights count: the placement comes back at ply 6 without White's K.
        ("Ng1-f3 Ng8-f6", "Ng1-f3 Ng8-f6", "", RIGHTS_LOST, {2}),
        # A check on the last move, a capture, a capture that promotes.
        ("Pe2-e4 Pf7-f6 Qd1-h5+", "e2-e4 f7-f6 Qd1-h5", "+", CHECKS, {3}),
        ("Pe2-e4 Pf7-f6 Qd1-h5#", "e2-e4 f7-f6 Qd1-h5", "#", None, set()),
        ("Pe2-e4 Pf7-f6 Qd1-h5-", "e2-e4 f7-f6 Qd1-h5", "-", None, set()),
        ("Pe2-e4 Pf7-f6 Qd1-h5 Pg7-g6 Qh5xPg6", "e2-e4 f7-f6 Qd1-h5 g7-g6 Qh5xg6:P", "",
         CHECKS, {5}),
        ("Pe2-e4 Pf7-f6 Qd1-h5 Pg7-g6 Qh5xNg6", "e2-e4 f7-f6 Qd1-h5 g7-g6 Qh5xg6:N", "",
         None, set()),
    ],
)
def test_the_fixture_games_mark_what_python_chess_finds(
    moves: str, steps: str, check: str, game: int | None, plies: set[int]
) -> None:
    want = expected(_steps(steps), check=check)
    if game is not None:
        assert want.get(game) == plies
    assert marked(_star(moves), ALL) == want


def test_castling_is_the_kings_move_to_its_landing_square() -> None:
    text = "Pf2-f3 Pa7-a6 Nd1-c3 Pb7-b5 Rf1-f2 Nd8-e6 Kg1-g1"
    assert set(marked(_star(text), ALL)) == {CHESS960}


def test_a_promotion_that_takes() -> None:
    game = main_lines(tuple(ALL))[CHECKS - 1][1]
    moves = [move for _, move in game if move is not None]
    written = _written(game[0][0], moves)
    assert written is not None
    text, steps = written
    assert text.endswith("pb2xRa1=Q")
    assert marked(_star(text), ALL) == expected(steps) == {CHECKS: {20}}


@pytest.mark.parametrize(
    ("text", "blamed", "words"),
    [
        ("(e2-e4 Pd7-d5)", "e2-e4", "the kind of the piece that moves"),
        ("(Pe2-e4 Pd7-d5 Pe4xd5)", "Pe4xd5", "the kind of the piece a capture takes"),
        ("(Pe2-e4 Pd7-d5 Pe4:Pd5)", "Pe4:Pd5", "whether the move takes"),
        ("(Pe2-e?)", "Pe2-e?", "the one square the piece reaches"),
        ("(Pe4 Pd5)", "Pe4", "the one square the piece leaves"),
        ("([NB]g1-f3)", "[NB]", "the kind of the piece that moves"),
        ("(Pe2-e4 Pf7-f6 Qd1-h5+ Pg7-g6)", "Qd1", "a check mark on its last move only"),
        ("(Pe2-e4 | Pe7-e5)", "|", "takes no `[|]`"),
        ("(Pe2-e4!)", "Pe2", "takes no `!`"),
        ("(O-O-O-O)", "O-O", "needs one castling"),
        ("(Pe7-e8=A)", "Pe7", "the one piece a promotion makes"),
        ("(Pe7-e8)", "Pe7", "a promotion names its new piece"),
        ("(--)", "--", "the kind of the piece that moves"),
        ("(Pe2-e4 2.Pe7-e5)", "Pe2", "move numbers are used for all moves or none"),
        ("(1.Pe2-e4 1.Pe7-e5)", "1.Pe7", "does not follow"),
        ("(null)", "null", "`:line[*]` with a null move"),
        ("()", ")", "at least one move"),
    ],
)
def test_each_undetermined_move_is_refused_at_its_place(
    text: str, blamed: str, words: str
) -> None:
    with pytest.raises(LegacySyntaxError, match=words) as refused:
        read_script(f"(match (position\n :line* {text}))")
    assert "Scidb extension `:line*`" in str(refused.value)
    assert (refused.value.line, refused.value.column) == (2, 9 + text.index(blamed))


@pytest.mark.parametrize(
    ("head", "transform"),
    [
        ("(match (position :flipcolor", ":flipcolor"),
        ("(match (position :shift", ":shift"),
        ("(match :eithercolor (position", ":eithercolor"),
        ("(match (position :flip :and ((position", ":flip"),
    ],
)
def test_a_transform_beside_it_is_refused_at_its_place(head: str, transform: str) -> None:
    with pytest.raises(LegacySyntaxError, match=f"`:line\\*` under {transform}") as refused:
        read_script(f"{head}\n :line* (Pe2-e4)" + ")" * head.count("("))
    assert (refused.value.line, refused.value.column) == (2, 2)


def test_the_translation_is_refused_by_name() -> None:
    with pytest.raises(CqlLegacyError, match=r":line\* at 1:18 has no exact CQL 6.1 form"):
        translate("(match (position :line* (Pe2-e4)))")


def test_check_names_it_and_prints_it_back() -> None:
    script = read_script("(match (position :line* (1.Pe2-e4   Pe7-e6)))")
    assert [form for form, _ in script.dialect_forms] == ["`:line*`"]
    from cqllegacy.legacy.printer import print_script

    again = read_script(print_script(script))
    assert again == script


def test_it_holds_in_a_variation_too(tmp_path: Path) -> None:
    pgn = tmp_path / "v.pgn"
    pgn.write_text('[Event "v"]\n[Result "*"]\n\n1. d4 (1. e4 e6 2. d4 d5) 1... d5 2. e4 e6 *\n')
    query = Query.from_text(_star("Pe2-e4 Pe7-e6 Pd2-d4 Pd7-d5"))
    (match,) = query.search(pgn, variations=True)
    # Ply 4 of the main line, and the variation's fourth position (a key that is no ply).
    assert 4 in match.marked and len(match.marked) == 2
    (main_only,) = query.search(pgn)
    assert list(main_only.marked) == [4]


def test_explain_says_what_it_means() -> None:
    from cqllegacy.present.explain import describe_item

    script = read_script("(match (position :line* (Pe2-e4 Pe7-e6)))")
    (item,) = script.match.position_lists()[0].items
    words = describe_item(item)
    assert words is not None and "Pe2-e4 Pe7-e6" in words and "game's start" in words


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory.mktemp("line-star"), ALL)


def test_the_index_and_two_workers_give_the_scans_result(indexed: Path) -> None:
    text = _star("Pd2-d4 Pd7-d5 Pe2-e4 Pe7-e6")
    assert_index_gives_scan(text, indexed)
    query = Query.from_text(text)

    def found(jobs: int) -> list[tuple[int, object]]:
        return [(m.ordinal, m.marked) for m in query.search(ALL, jobs=jobs)]

    assert found(1) and found(2) == found(1)
