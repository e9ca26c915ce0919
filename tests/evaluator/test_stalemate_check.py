"""The lowered ``stalemate`` (:func:`cqllegacy.evaluator.operators.is_stalemate`, which
answers at once where a piece off the king's lines can move) against python-chess's
``Board.is_stalemate`` on real, hand-made and generated positions."""

from __future__ import annotations

import bz2
import lzma
import random
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.evaluator.operators import is_stalemate

ROOT = Path(__file__).resolve().parents[2]


def _positions(name: str, opener: object, count: int) -> list[chess.Board]:
    boards = []
    with opener(ROOT / name, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        for _ in range(count):
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            boards.append(board.copy())
            for move in game.mainline_moves():
                board.push(move)
                boards.append(board.copy())
    return boards


@pytest.mark.parametrize(
    ("name", "opener", "count"),
    [
        ("cqllegacy/data/wcc.pgn.bz2", bz2.open, 30),
        ("fixtures/lichess-puzzles.pgn.xz", lzma.open, 300),
    ],
)
def test_real_positions(name: str, opener: object, count: int) -> None:
    boards = _positions(name, opener, count)
    assert len(boards) > 1000
    for board in boards:
        assert is_stalemate(board) == board.is_stalemate(), board.fen()


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/8/3b4/1b6/1N6/K1k5 w - - 0 1",  # the only knight is pinned
        "8/8/8/8/1n1b4/8/1P6/K1k5 w - - 0 1",  # the only pawn is pinned, its push is free
        "8/8/8/8/8/1b6/1P6/K1k5 w - - 0 1",  # the pawn is blocked
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # a bare king
        "k7/P7/1K6/8/8/8/8/8 b - - 0 1",
        "5bnr/4p1pq/4Qpkr/7p/7P/4P3/PPPP1PP1/RNB1KBNR b KQ - 2 10",  # stalemate, many pieces
        "8/8/8/8/8/8/p7/k1K5 b - - 0 1",
        "4k3/4P3/4K3/8/8/8/8/8 b - - 0 1",
        "1R6/8/8/8/8/8/7r/k1K5 b - - 0 1",  # not a stalemate: the rook is free
        "8/8/8/8/8/5k2/5p2/5K2 w - - 0 1",
    ],
)
def test_hand_made_positions(fen: str) -> None:
    board = chess.Board(fen)
    assert is_stalemate(board) == board.is_stalemate()


def _sparse_board(rng: random.Random) -> chess.Board:
    """One king of each colour, at most three pieces beside the king of the side to move
    and up to five of the other side's (often a stalemate, often with pinned pieces)."""
    board = chess.Board(None)
    turn = rng.random() < 0.5
    squares = rng.sample(range(64), 10)
    board.set_piece_at(squares[0], chess.Piece(chess.KING, turn))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, not turn))
    own, other = rng.randint(1, 3), rng.randint(1, 5)
    for i, square in enumerate(squares[2 : 2 + own + other]):
        kind = rng.choice([chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN])
        if kind == chess.PAWN and square >> 3 in (0, 7):
            continue
        board.set_piece_at(square, chess.Piece(kind, turn if i < own else not turn))
    board.turn = turn
    return board


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_generated_positions(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        board = _sparse_board(rng)
        assert is_stalemate(board) == board.is_stalemate(), board.fen()


def _stalemates_with_pieces(rng: random.Random, wanted: int) -> list[chess.Board]:
    """Stalemates where the side to move has pieces besides its king (pinned or blocked):
    a bare king stalemated, then pieces of its side put where it stays a stalemate."""
    found: list[chess.Board] = []
    while len(found) < wanted:
        board = _sparse_board(rng)
        for square in chess.scan_forward(board.occupied_co[board.turn] & ~board.kings):
            board.remove_piece_at(square)
        if not board.is_stalemate():
            continue
        for square in rng.sample(range(8, 56), 48):
            if board.piece_at(square) is None:
                kind = rng.choice([chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN])
                board.set_piece_at(square, chess.Piece(kind, board.turn))
                if not board.is_stalemate():
                    board.remove_piece_at(square)
        if board.occupied_co[board.turn] & ~board.kings:
            found.append(board)
    return found


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_stalemates_with_pinned_and_blocked_pieces(seed: int) -> None:
    for board in _stalemates_with_pieces(random.Random(seed), 10):
        assert board.is_stalemate()
        assert is_stalemate(board), board.fen()
