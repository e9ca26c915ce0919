"""The fast SAN reader against python-chess's own ``Board.parse_san``.

Every check compares outcomes: the same move, or the same exception type and message.
Positions come from real games and puzzles (all their positions) and from random play
that reaches promotions, en passant, castling and pins.
"""

from __future__ import annotations

import bz2
import io
import lzma
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.vocab import san as fast

ROOT = Path(__file__).resolve().parents[2]

Outcome = tuple[str, object]


def outcome(read: Callable[[], chess.Move]) -> Outcome:
    try:
        return ("move", read())
    except ValueError as error:
        return (type(error).__name__, str(error))


def assert_same(board: chess.Board, token: str) -> None:
    expected = outcome(lambda: board.parse_san(token))
    got = outcome(lambda: fast.parse_san(board, token))
    assert got == expected, (board.fen(), token)


def spellings(board: chess.Board, move: chess.Move) -> set[str]:
    """Ways a PGN file may write ``move``: SAN with and without suffix, over-specified,
    long algebraic, with a capture sign or without."""
    san = board.san(move).rstrip("+#")
    forms = {san, san.replace("x", ""), board.san(move)}
    piece = board.piece_type_at(move.from_square)
    origin = chess.square_name(move.from_square)
    target = chess.square_name(move.to_square)
    promotion = f"={chess.piece_symbol(move.promotion).upper()}" if move.promotion else ""
    if piece != chess.PAWN and not board.is_castling(move):
        letter = chess.piece_symbol(piece).upper()
        forms |= {f"{letter}{origin[0]}{target}", f"{letter}{origin[1]}{target}"}
        forms |= {f"{letter}{origin}{target}", f"{letter}{origin}-{target}"}
    forms.add(f"{origin}{target}{promotion}")
    if promotion:
        forms.add(san.replace("=", ""))
    return forms


def wrong_tokens(board: chess.Board) -> Iterator[str]:
    """Tokens that name no legal move or more than one (or are odd), for this board."""
    for square in (chess.E4, chess.D5, chess.A8, chess.H1, chess.E8, chess.C3):
        name = chess.square_name(square)
        yield from (f"N{name}", f"B{name}", f"R{name}", f"Q{name}", f"K{name}", name)
        yield from (f"ex{name}", f"{name}=Q", f"N{name}=Q", f"{name}=K")
    yield from ("O-O", "O-O-O", "0-0", "--", "Z0", "e9", "Pe4", "Kg1", "Kc1", "Kg8", "Kc8")
    for move in board.pseudo_legal_moves:
        if not board.is_legal(move):
            piece = board.piece_type_at(move.from_square)
            letter = "" if piece == chess.PAWN else chess.piece_symbol(piece).upper()
            origin, target = chess.square_name(move.from_square), chess.square_name(move.to_square)
            yield f"{letter}{target}"
            yield f"{letter}{origin[0]}{target}"


def check_every_reading(board: chess.Board) -> None:
    for move in board.legal_moves:
        for token in spellings(board, move):
            assert_same(board, token)
    for token in wrong_tokens(board):
        assert_same(board, token)


def games(path: Path, opener: Callable[..., io.TextIOBase], count: int) -> Iterator[chess.pgn.Game]:
    with opener(path, "rt", encoding="utf-8") as handle:
        for _ in range(count):
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            yield game


def positions(game: chess.pgn.Game) -> Iterator[chess.Board]:
    board = game.board()
    yield board.copy()
    for move in game.mainline_moves():
        board.push(move)
        yield board.copy()


@pytest.mark.parametrize(
    ("name", "opener", "count"),
    [
        ("cqllegacy/data/wcc.pgn.bz2", bz2.open, 5),
        ("fixtures/lichess-puzzles.pgn.xz", lzma.open, 80),
    ],
)
def test_every_move_of_real_games_reads_as_python_chess_reads_it(
    name: str, opener, count: int
) -> None:
    checked = 0
    for game in games(ROOT / name, opener, count):
        for board in positions(game):
            check_every_reading(board)
            checked += 1
    assert checked > 400


def random_play(seed: int, plies: int) -> Iterator[chess.Board]:
    """Boards along a random game that prefers captures, promotions, checks and
    en passant (so the rare cases come up often)."""
    chooser = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return
        yield board
        sharp = [m for m in moves if m.promotion or board.is_capture(m) or board.gives_check(m)]
        board.push(chooser.choice(sharp if sharp and chooser.random() < 0.6 else moves))


@settings(max_examples=8, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_games_read_as_python_chess_reads_them(seed: int) -> None:
    for board in random_play(seed, 120):
        check_every_reading(board)


@pytest.mark.parametrize(
    ("fen", "token"),
    [
        # pinned knight: the other one moves; both pinned: illegal
        ("4k3/8/8/8/1b6/8/3N1N2/4K3 w - - 0 1", "Ne4"),
        ("4k3/8/8/8/1b5b/8/3N1N2/4K3 w - - 0 1", "Ne4"),
        # two rooks, undisambiguated: ambiguous
        ("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Rd1"),
        # en passant, also when it would expose the king along the rank
        ("4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1", "exd6"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "exd6"),
        # promotion without a piece, to a king, on the wrong rank
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8"),
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8=K"),
        ("4k3/8/P7/8/8/8/8/4K3 w - - 0 1", "a7=Q"),
        # a king that would step into check, and one that castles by its king move
        ("4k3/8/8/8/8/8/5r2/4K3 w - - 0 1", "Kf1"),
        ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "Kg1"),
        # no king for the mover; a Chess960 board
        ("4k3/8/8/8/8/8/8/R7 w - - 0 1", "Ra5"),
        # check: only moves that answer it
        ("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1", "Ra2"),
        ("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1", "Kxe2"),
    ],
)
def test_hard_cases_agree_with_python_chess(fen: str, token: str) -> None:
    assert_same(chess.Board(fen), token)


def test_chess960_boards_are_read_by_python_chess() -> None:
    board = chess.Board(
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", chess960=True
    )
    for move in board.legal_moves:
        for token in spellings(board, move):
            assert_same(board, token)


def test_common_moves_take_the_fast_path() -> None:
    """Without python-chess: the moves of a real game are nearly all read directly
    (castling and en passant are python-chess's)."""
    game = next(games(ROOT / "cqllegacy/data/wcc.pgn.bz2", bz2.open, 1))
    board = game.board()
    direct = 0
    moves = list(game.mainline_moves())
    for move in moves:
        token = board.san(move).rstrip("+#")
        if fast.direct_move(board, token) == move:
            direct += 1
        board.push(move)
    assert direct >= 0.9 * len(moves)
