"""An index's positions as chunks of numpy arrays (:mod:`cqllegacy.indexing.arrays`):
every column of every chunk against python-chess's reading of the same games (the
fixture games, null moves, random playouts with promotions, castling, en passant, FEN
and Chess960 starts), chunk boundaries between games only, and the helpers along a game
and per game against their definitions, one position at a time."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from cqllegacy.api import index
from cqllegacy.errors import IndexFailed
from cqllegacy.evaluator.arrays import Positions
from cqllegacy.indexing.arrays import read_chunks
from cqllegacy.indexing.records import CHECK, MATE, STALEMATE, WHITE_TO_MOVE
from cqllegacy.indexing.store import Index, open_index
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.pieces import piece_bit
from tests.indexing.test_replay import SPECIAL, random_games

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("arrays") / "games.pgn"
    text = (ROOT / "fixtures" / "games.pgn").read_text(encoding="utf-8")
    path.write_text(text + "\n\n" + SPECIAL + "\n" + random_games(40, 11), encoding="utf-8")
    index(path)
    return path


@pytest.fixture(scope="module")
def opened(pgn: Path) -> Iterator[Index]:
    found = open_index(pgn.with_name(pgn.name + ".cqlidx"), pgn)
    yield found
    found.close()


def expected_rows(board: chess.Board, move: chess.Move | None) -> dict[str, int]:
    """What the index keeps of the position ``board`` and the move played from it, as
    python-chess says it."""
    flags = WHITE_TO_MOVE if board.turn else 0
    flags |= CHECK if board.is_check() else 0
    if move is None or not move:
        flags |= MATE if board.is_checkmate() else STALEMATE if board.is_stalemate() else 0
    row = {
        "pawns": board.pawns, "knights": board.knights, "bishops": board.bishops,
        "rooks": board.rooks, "queens": board.queens, "kings": board.kings,
        "white": board.occupied_co[chess.WHITE], "black": board.occupied_co[chess.BLACK],
        "castling": board.castling_rights, "flags": flags,
        "ep": -1 if board.ep_square is None else board.ep_square,
    }  # fmt: skip
    if move is None or not move:
        row.update(move_from=-1, move_to=-1, move_piece=0, move_promotion=-1, move_capture=0)
        return row
    moved = board.piece_at(move.from_square)
    assert moved is not None
    taken = board.piece_at(move.to_square)
    capture = 0
    if board.is_en_passant(move):
        capture = piece_bit(not board.turn, chess.PAWN)
    elif taken is not None and taken.color != board.turn:
        capture = piece_bit(taken.color, taken.piece_type)
    row.update(
        move_from=move.from_square,
        move_to=move.to_square,
        move_piece=piece_bit(moved.color, moved.piece_type),
        move_promotion=move.promotion or -1,
        move_capture=capture,
    )
    return row


@pytest.fixture(scope="module")
def expected(pgn: Path) -> dict[tuple[int, int], dict[str, int]]:
    """Per (game, ply) of the file's main lines, read by python-chess."""
    found: dict[tuple[int, int], dict[str, int]] = {}
    handle = io.StringIO(pgn.read_text(encoding="utf-8"))
    number = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        number += 1
        board = game.board()
        moves = list(game.mainline_moves())
        for ply in range(len(moves) + 1):
            move = moves[ply] if ply < len(moves) else None
            found[number, ply] = expected_rows(board, move)
            if move is not None:
                board.push(move)
    return found


FIELDS = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "white", "black",
          "castling", "flags", "ep", "move_from", "move_to", "move_piece", "move_promotion",
          "move_capture")  # fmt: skip


def rows_of(chunk: Positions) -> dict[tuple[int, int], dict[str, int]]:
    columns = {name: chunk.column(name).tolist() for name in FIELDS}
    return {
        (game, ply): {name: columns[name][i] for name in FIELDS}
        for i, (game, ply) in enumerate(zip(chunk.game.tolist(), chunk.ply.tolist(), strict=True))
    }


def test_every_stored_position_is_python_chess_s(
    opened: Index, expected: dict[tuple[int, int], dict[str, int]]
) -> None:
    found: dict[tuple[int, int], dict[str, int]] = {}
    for chunk in read_chunks(opened, max_positions=997):
        found.update(rows_of(chunk))
    assert found == expected
    kinds = {"ep": 0, "promotion": 0, "castling": 0, "null": 0, "mate": 0}
    for (game, ply), row in expected.items():
        kinds["ep"] += row["ep"] >= 0
        kinds["promotion"] += row["move_promotion"] > 0
        kinds["castling"] += row["castling"] != 0
        kinds["mate"] += bool(row["flags"] & MATE)
        kinds["null"] += row["move_from"] < 0 and (game, ply + 1) in expected
    assert min(kinds.values()) > 0, kinds


def test_derived_sets_and_the_kernels_on_a_chunk(opened: Index) -> None:
    for chunk in read_chunks(opened, max_positions=5000):
        for piece_type in chess.PIECE_TYPES:
            kind = getattr(chunk, chess.PIECE_NAMES[piece_type] + "s")
            for color, side in ((chess.WHITE, chunk.white), (chess.BLACK, chunk.black)):
                assert (chunk.pieces(piece_type, color) == (kind & side)).all()
                assert (ba.pieces_mask(chunk, piece_type, color) == (kind & side)).all()
        assert (chunk.occupied == (chunk.white | chunk.black)).all()
        assert (chunk.white_to_move == ((chunk.flags & WHITE_TO_MOVE) != 0)).all()
        # The check the index stored at build time, and the kernels' check.
        stored = (chunk.flags & CHECK) != 0
        assert (ba.is_check(chunk, chunk.white_to_move) == stored).all()


@pytest.mark.parametrize("max_positions", [1, 50, 997, 10**6])
def test_chunks_hold_whole_games(opened: Index, pgn: Path, max_positions: int) -> None:
    chunks = list(read_chunks(opened, max_positions=max_positions))
    seen: list[int] = []
    for chunk in chunks:
        assert len(chunk) <= max_positions or len(chunk.games) == 1
        assert list(chunk.games) == list(dict.fromkeys(chunk.game.tolist()))
        for first, game in zip(chunk.starts.tolist(), chunk.games.tolist(), strict=True):
            assert chunk.ply[first] == 0 and chunk.game[first] == game
        seen += chunk.games.tolist()
    assert seen == sorted(set(seen))
    stored = opened.connection.execute("SELECT game FROM games WHERE clean ORDER BY game")
    assert seen == [row[0] for row in stored.fetchall()]
    if max_positions == 50:
        assert len(chunks) > 10
        # Full chunks: a game goes into the chunk before when it fits.
        sizes = [len(chunk) for chunk in chunks]
        firsts = [int(chunk.starts[1] if len(chunk.starts) > 1 else len(chunk)) for chunk in chunks]
        for size, next_first in zip(sizes, firsts[1:], strict=False):
            assert size + next_first > 50


def test_chunks_of_some_games(opened: Index) -> None:
    wanted = list(range(2, opened.games + 1, 3))
    seen = [g for chunk in read_chunks(opened, wanted, max_positions=300) for g in chunk.games]
    stored = opened.connection.execute("SELECT game FROM games WHERE clean").fetchall()
    clean = {row[0] for row in stored}
    assert seen == [game for game in wanted if game in clean]
    assert list(read_chunks(opened, [])) == []


def test_a_chunk_that_does_not_add_up_is_refused(
    opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cqllegacy.indexing import arrays

    real = arrays._read

    def short(index: Index, games: np.ndarray, whole_range: bool) -> dict[str, np.ndarray]:
        return {name: values[:-1] for name, values in real(index, games, whole_range).items()}

    monkeypatch.setattr(arrays, "_read", short)
    with pytest.raises(IndexFailed, match="damaged"):
        next(read_chunks(opened))


# --------------------------------------------------------------------------------------
# Helpers against their definitions
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chunk(opened: Index) -> Positions:
    return next(read_chunks(opened, max_positions=10**6))


@pytest.mark.parametrize("offset", [-3, -1, 1, 2, 500])
def test_a_step_along_a_game_never_leaves_it(chunk: Positions, offset: int) -> None:
    at = {
        (g, p): i
        for i, (g, p) in enumerate(zip(chunk.game.tolist(), chunk.ply.tolist(), strict=True))
    }
    values = np.arange(1, len(chunk) + 1, dtype=np.int64)
    mask = (chunk.flags & CHECK) != 0
    expected_values, expected_mask = [], []
    for game, ply in zip(chunk.game.tolist(), chunk.ply.tolist(), strict=True):
        there = at.get((game, ply + offset))
        expected_values.append(0 if there is None else int(values[there]))
        expected_mask.append(False if there is None else bool(mask[there]))
    assert chunk.at_ply(values, offset).tolist() == expected_values
    assert chunk.at_ply(mask, offset).tolist() == expected_mask
    if offset == 1:
        assert chunk.next_ply(values).tolist() == expected_values
    if offset == -1:
        assert chunk.previous_ply(mask).tolist() == expected_mask


def test_per_game_gathering(chunk: Positions) -> None:
    mask = (chunk.flags & CHECK) != 0
    values = chunk.ply * 3 - 7
    count: dict[int, int] = {}
    total: dict[int, int] = {}
    for game, hit, value in zip(chunk.game.tolist(), mask.tolist(), values.tolist(), strict=True):
        count[game] = count.get(game, 0) + hit
        total[game] = total.get(game, 0) + value
    games = list(count)
    assert chunk.games.tolist() == games
    assert chunk.count_per_game(mask).tolist() == [count[g] for g in games]
    assert chunk.any_per_game(mask).tolist() == [count[g] > 0 for g in games]
    assert chunk.sum_per_game(values).tolist() == [total[g] for g in games]
    pairs = [
        (g, p)
        for g, p, hit in zip(chunk.game.tolist(), chunk.ply.tolist(), mask.tolist(), strict=True)
        if hit
    ]
    assert chunk.game_plies(mask) == pairs
    assert sum(count.values()) > 0


def test_positions_out_of_order_are_refused() -> None:
    columns = {name: np.zeros(3, dtype=np.int64) for name in ("game", "ply", *FIELDS)}
    columns["game"] = np.array([1, 1, 2])
    columns["ply"] = np.array([0, 2, 0])
    with pytest.raises(ValueError, match="whole games"):
        Positions.of_columns(columns)
    columns["ply"] = np.array([0, 1, 0])
    assert Positions.of_columns(columns).games.tolist() == [1, 2]
    columns["ply"] = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="whole games"):
        Positions.of_columns(columns)
