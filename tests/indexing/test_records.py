"""What the index records of each position equals what python-chess says of it.

The builder finds check, the moved and the captured piece for a whole batch at once
(bitboard arithmetic over arrays); the reference here replays the same games with
python-chess and asks it position by position (``is_check``, ``piece_at``,
``is_capture``, ``is_en_passant``, ``is_checkmate``, ``is_stalemate``).
"""

from __future__ import annotations

import bz2
import io
import lzma
from pathlib import Path

import chess
import chess.pgn
import pytest

from cqllegacy.indexing.records import (
    BOARD_FIELDS,
    CHECK,
    MATE,
    STALEMATE,
    WHITE_TO_MOVE,
    position_arrays,
    record_games,
)
from cqllegacy.runner.pgn import split_games
from cqllegacy.vocab.pieces import content_bit
from tests.support.runner import WCC

ROOT = Path(__file__).resolve().parents[2]

#: Games made to reach the rare cases: en passant (both colours), a capture that
#: promotes, castling both ways, mate, stalemate, a null move, a check by a pawn and
#: by a knight, a start position with two white kings (python-chess takes the higher).
SPECIAL = """\
[Event "en passant"]

1. e4 a6 2. e5 d5 3. exd6 b5 4. a3 b4 5. c4 bxc3 6. dxe7 cxb2 7. exf8=N+ Kxf8 8. d4 bxa1=Q *

[Event "castling and promotion capture"]
[SetUp "1"]
[FEN "r3k2r/1P6/8/8/8/8/1p6/R3K2R w KQkq - 0 1"]

1. O-O bxa1=Q 2. bxa8=Q+ Ke7 3. Rxa1 *

[Event "mate"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "stalemate"]
[SetUp "1"]
[FEN "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"]

1. Qf7 1/2-1/2

[Event "null move"]

1. e4 -- 2. d4 e5 3. -- Bb4+ *

[Event "knight and pawn checks"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/3p4/4K1N1 w - - 0 1"]

1. Kxd2 Ke7 2. Nf3 Kd6 3. Ng5 Ke5 4. Nf7+ *

[Event "two white kings"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/4r3/8/K3K3 w - - 0 1"]

1. Kd2 Kd7 *

"""


def pgn_games() -> str:
    wcc = bz2.decompress(WCC.read_bytes()).decode("latin-1")
    with lzma.open(ROOT / "fixtures" / "lichess-puzzles.pgn.xz", "rt", encoding="latin-1") as f:
        puzzles = f.read()
    return SPECIAL + _first(wcc, 60) + _first(puzzles, 300)


def _first(text: str, count: int) -> str:
    games = list(split_games(io.StringIO(text)))[:count]
    return "".join("".join(g.tag_lines) + "\n" + g.movetext + "\n\n" for g in games)


def reference(text: str) -> list[tuple[int, ...]]:
    """Per main-line position: bitboards, flags, en passant square and the move facts,
    as python-chess answers them one position at a time."""
    rows: list[tuple[int, ...]] = []
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    board = game.board()
    moves = list(game.mainline_moves())
    for ply in range(len(moves) + 1):
        move = moves[ply] if ply < len(moves) else None
        last = move is None or not move
        flags = (
            (WHITE_TO_MOVE if board.turn else 0)
            | (CHECK if board.is_check() else 0)
            | (MATE if last and board.is_checkmate() else 0)
            | (STALEMATE if last and board.is_stalemate() else 0)
        )
        black, white = board.occupied_co
        placement = (board.pawns, board.knights, board.bishops, board.rooks, board.queens)
        row = (*placement, board.kings, white, black, board.castling_rights, flags)
        row += (-1 if board.ep_square is None else board.ep_square,)
        if move is None or not move:
            row += (-1, -1, 0, -1, 0)
        else:
            captured = 0
            if board.is_en_passant(move):
                captured = content_bit(chess.Piece(chess.PAWN, not board.turn))
            elif board.is_capture(move):
                captured = content_bit(board.piece_at(move.to_square))
            piece = content_bit(board.piece_at(move.from_square))
            row += (move.from_square, move.to_square, piece, move.promotion or -1, captured)
        rows.append(row)
        if move is not None:
            board.push(move)
    return rows


@pytest.mark.parametrize("batch", [1, 7, 1000])
def test_every_recorded_position_is_what_python_chess_says(batch: int) -> None:
    texts = list(split_games(io.StringIO(pgn_games())))
    recorded: list[tuple[int, ...]] = []
    for start in range(0, len(texts), batch):
        columns = record_games(texts[start : start + batch])
        assert all(columns.clean), "every game here reads cleanly"
        arrays = position_arrays(columns)
        names = [*BOARD_FIELDS, "flags", "ep", "move_from", "move_to", "move_piece"]
        names += ["move_promotion", "move_capture"]
        recorded += zip(*(arrays[name].tolist() for name in names), strict=True)
    expected = [row for text in texts for row in reference(text.pgn())]
    assert len(recorded) == len(expected)
    for number, (ours, theirs) in enumerate(zip(recorded, expected, strict=True)):
        assert ours == theirs, number
    flags = [row[len(BOARD_FIELDS)] for row in expected]
    for flag in (CHECK, MATE, STALEMATE):
        assert any(value & flag for value in flags)  # the rare cases were reached
    assert any(row[-1] for row in expected) and any(row[-2] > 0 for row in expected)


@pytest.mark.parametrize("changed", ["placement", "turn", "castling", "en passant", "none"])
def test_a_game_whose_tags_start_another_board_is_not_clean(
    changed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run answers a clean game from its stored rows without making its start board:
    the build keeps a game clean only when its first row is that board."""
    from cqllegacy.indexing import records
    from cqllegacy.runner.stored import start_board

    texts = list(split_games(io.StringIO(SPECIAL)))
    fens = {
        "placement": "r3k2r/1P6/8/8/8/8/1p6/R3K1R1 w KQkq - 0 1",
        "turn": "r3k2r/1P6/8/8/8/8/1p6/R3K2R b KQkq - 0 1",
        "castling": "r3k2r/1P6/8/8/8/8/1p6/R3K2R w Kkq - 0 1",
        "en passant": "r3k2r/1P6/8/8/8/8/1p6/R3K2R w KQkq e3 0 1",
    }

    def other_board(headers: object) -> object:
        if changed == "none":
            return None
        board = start_board({"FEN": fens[changed]})
        assert board is not None
        board.ep_square = chess.E3 if changed == "en passant" else board.ep_square
        return board

    monkeypatch.setattr(records, "start_board", other_board)
    columns = record_games([texts[1]])  # the castling game, from its FEN
    assert columns.clean == [False]
    monkeypatch.undo()
    assert record_games([texts[1]]).clean == [True]
