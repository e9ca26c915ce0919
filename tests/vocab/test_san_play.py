"""``san.play`` against python-chess's ``Board.push``: every field of the board, its move
stack and its stack of earlier states, after every move of real and generated games."""

from __future__ import annotations

import bz2
import lzma
import random
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.vocab import san

ROOT = Path(__file__).resolve().parents[2]

_STATE_FIELDS = (
    "pawns", "knights", "bishops", "rooks", "queens", "kings", "occupied_w", "occupied_b",
    "occupied", "promoted", "turn", "castling_rights", "ep_square", "halfmove_clock",
    "fullmove_number",
)  # fmt: skip


def state(board: chess.Board) -> tuple[object, ...]:
    """Everything python-chess's push changes on a board, stacks included."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        tuple(board.occupied_co), board.occupied, board.promoted, board.turn,
        board.castling_rights, board.ep_square, board.halfmove_clock, board.fullmove_number,
        board.chess960, tuple(board.move_stack),
        tuple(tuple(getattr(s, f) for f in _STATE_FIELDS) for s in board._stack),
    )  # fmt: skip


def check_move(board: chess.Board, move: chess.Move) -> None:
    """``play`` and ``push`` of ``move`` on copies of ``board`` leave equal boards."""
    played, pushed = board.copy(), board.copy()
    san.play(played, move)
    pushed.push(move)
    assert state(played) == state(pushed), (board.fen(), move)


def check_game(board: chess.Board, choose: Callable[[chess.Board], chess.Move | None]) -> int:
    """Play a game from ``board``, comparing every move; how many moves were played."""
    played = 0
    while (move := choose(board)) is not None:
        check_move(board, move)
        san.play(board, move)
        played += 1
    return played


@pytest.mark.parametrize(
    ("name", "opener", "count"),
    [
        ("cqllegacy/data/wcc.pgn.bz2", bz2.open, 40),
        ("fixtures/lichess-puzzles.pgn.xz", lzma.open, 200),
    ],
)
def test_real_games(name: str, opener: Callable[..., object], count: int) -> None:
    checked = 0
    with opener(ROOT / name, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        for _ in range(count):
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            moves = iter(list(game.mainline_moves()))
            checked += check_game(game.board(), lambda _board, moves=moves: next(moves, None))
    assert checked > 3 * count


def _sharp_chooser(
    seed: int, plies: int, pseudo: bool
) -> Callable[[chess.Board], chess.Move | None]:
    """Random moves that prefer captures, promotions, castling and en passant (legal, or
    pseudo-legal ones too, which push accepts), for ``plies`` moves."""
    rng = random.Random(seed)
    left = [plies]

    def choose(board: chess.Board) -> chess.Move | None:
        moves = list(board.pseudo_legal_moves if pseudo else board.legal_moves)
        if not moves or left[0] <= 0:
            return None
        left[0] -= 1
        sharp = [
            m for m in moves
            if m.promotion or board.is_capture(m) or board.is_castling(m) or board.is_en_passant(m)
        ]  # fmt: skip
        return rng.choice(sharp if sharp and rng.random() < 0.6 else moves)

    return choose


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_random_games(seed: int, pseudo: bool) -> None:
    check_game(chess.Board(), _sharp_chooser(seed, 200, pseudo))


@pytest.mark.parametrize(
    "fen",
    [
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",  # castling rights, first move
        "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",  # promotions onto rook corners
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",  # en passant
        "1Q2k3/8/8/8/8/8/8/4K3 w - - 3 40",  # a promoted-looking queen (no promoted mark)
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/3p4/8/8/8/8/3P4/4K3 w KQkq - 0 1",  # castling rights with no rook: cleaned
    ],
)
def test_hand_made_positions(fen: str) -> None:
    for seed in range(30):
        check_game(chess.Board(fen), _sharp_chooser(seed, 60, seed % 2 == 0))


def test_promoted_pieces_keep_their_mark_when_they_move_and_lose_it_when_taken() -> None:
    board = chess.Board("4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1")
    for uci in ("b7b8q", "g2g1q", "b8b5", "g1g5", "b5g5"):
        move = chess.Move.from_uci(uci)
        check_move(board, move)
        san.play(board, move)
    assert board.promoted == chess.BB_G5


def test_null_moves_and_chess960_boards_are_pushed_by_python_chess() -> None:
    board = chess.Board()
    board.push(chess.Move.from_uci("e2e4"))
    check_move(board, chess.Move.null())
    board960 = chess.Board.from_chess960_pos(100)
    check_game(board960, _sharp_chooser(5, 40, False))
