"""Tags (``:forany``) over an index: piece identities rebuilt from the stored moves, each
binding tried over whole columns, and the relaxed bodies that reject games first.

The identities are compared with a tracker written here on python-chess's own move
facts (castling, en passant, promotion) at every position of real, random, FEN and
Chess960 games.  The runs are compared byte for byte with the scan on scripts that bind
tags in every way the rows know (counts with upper bounds, ``not``, ``:tagmatch``, two
tags, promotions, the colour flip, ``--skip-initial``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from cqllegacy.api import index
from cqllegacy.core import tree as ct
from cqllegacy.evaluator.arrays import ArrayCompiler, Positions
from cqllegacy.evaluator.arrays import identities as ids
from cqllegacy.evaluator.arrays.relaxed import TOP, hull, relax
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import types_of
from tests.indexing.test_equivalence import corpus_text, run_outputs
from tests.indexing.test_replay import SPECIAL, random_games

SCRIPTS = {
    "checker": "(match :forany c A (position :btm :attackcount $c k 1 :matchcount 2 1000"
    " :flipcolor))",
    "checker-few": "(match :forany c A (position :btm :attackcount $c k 1 :matchcount 1 2))",
    "rook-corners": "(match :forany r [Rr] (position $r[a1,h1,a8,h8]) (position $r[d1-8]))",
    "not-the-rook": "(match :forany r R (position :movefrom $r :not (position $r[a-h1-2])))",
    "promoted": "(match :forany p [Pp] (position :initial :tagmatch p P?2"
    " :gappedsequence ((position :movefrom $p :promote U)) :flipcolor))",
    "tagmatch-queen": "(match :forany p P (position :tagmatch p Q))",
    "two-tags": "(match :forany a N :forany b n (position :attackcount $a $b 1))",
    "knight-mates": "(match :forany n [Nn] (position :movefrom $n :matchcount 3 100)"
    " (position :mate))",
}


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tag-bindings") / "games.pgn"
    path.write_bytes(corpus_text() + b"\n\n" + (SPECIAL + "\n" + random_games(60, 11)).encode())
    index(path)
    return path


def tracked(game: chess.pgn.Game) -> list[dict[int, int]]:
    """Per position, each piece's start square by its square: python-chess's facts."""
    board = game.board()
    who = {square: square for square in chess.SquareSet(board.occupied)}
    out = [dict(who)]
    for move in game.mainline_moves():
        after = dict(who)
        if board.is_castling(move):
            kingside = board.is_kingside_castling(move)
            rank = chess.square_rank(move.from_square)
            corner = chess.square(7 if kingside else 0, rank)
            rook_from = move.to_square if board.chess960 else corner
            king, rook = who[move.from_square], who[rook_from]
            del after[move.from_square], after[rook_from]
            after[chess.square(6 if kingside else 2, rank)] = king
            after[chess.square(5 if kingside else 3, rank)] = rook
        elif move:  # a null move moves nothing
            if board.is_en_passant(move):
                file, rank = chess.square_file(move.to_square), chess.square_rank(move.from_square)
                del after[chess.square(file, rank)]
            after[move.to_square] = after.pop(move.from_square)
        board.push(move)
        who = after
        out.append(dict(who))
    return out


def all_games(path: Path) -> Iterator[chess.pgn.Game]:
    with open(path, encoding="latin-1") as f:
        while True:
            try:
                game = chess.pgn.read_game(f)
            except (ValueError, IndexError):
                continue  # a broken game of the corpus: the index skips it too
            if game is None:
                return
            if not game.errors:
                yield game


def test_identities_follow_python_chess(games: Path) -> None:
    checked = castled = 0
    for game in all_games(games):
        boards = [game.board()]
        board = game.board()
        for move in game.mainline_moves():
            castled += board.is_castling(move)
            board.push(move)
            boards.append(board.copy())
        found = ids.identities(Positions.of_boards(boards))
        for ply, expected in enumerate(tracked(game)):
            row = {int(sq): int(start) for sq, start in enumerate(found[ply]) if start >= 0}
            assert row == expected, (game.headers.get("Event"), ply)
            checked += 1
    assert checked > 5000 and castled > 20


@pytest.mark.parametrize("letters", ["R", "Nn", "Q", "Pp"])
def test_tag_candidates_are_the_pieces_that_stand_on_the_types(
    games: Path, letters: str
) -> None:
    """Per start square: the piece that started there stands on a square of the types
    at some position of the game (a pawn that promotes to them too), as a loop over its
    squares says."""
    types = types_of(letters)
    some = none = 0
    for game in list(all_games(games))[:40]:
        board = game.board()
        boards = [board.copy()]
        for move in game.mainline_moves():
            board.push(move)
            boards.append(board.copy())
        positions = Positions.of_boards(boards)
        located = ids.locations(positions)
        content = positions.content(types)
        expected = [
            bool(((ids.bound_squares(located, start) & content) != 0).any())
            for start in range(64)
        ]
        found = ids.tag_candidates(positions, located, types)
        assert found.shape == (1, 64) and found[0].tolist() == expected
        some += any(expected)
        none += not all(expected)
    assert some and none


def test_a_wrong_identity_is_refused() -> None:
    board = chess.Board()
    boards = [board.copy()]
    board.push_san("e4")
    boards.append(board.copy())
    positions = Positions.of_boards(boards)
    positions.columns["move_to"][0] = chess.E3  # a move that does not lead there
    with pytest.raises(ids.RowOnly):
        ids.identities(positions)


def test_hulls_keep_every_square_a_piece_may_reach() -> None:
    assert hull(pd("K")) == pd("K")
    assert hull(pd("N")) == pd("[NP]")  # a pawn that will be a knight
    assert hull(pd("P")).types == pd("A").types
    assert hull(ct.Union((pd("N"), pd("b")))).types == pd("[Aa]").types


def test_a_tag_under_not_is_dropped_not_widened() -> None:
    body = ct.Not(ct.Intersection((ct.PieceVariable("x"), pd("a1"))))
    assert relax(body, ArrayCompiler(), {"x": hull(pd("R"))}) is TOP
    counted = ct.InRange(ct.Count(ct.PieceVariable("x")), None, 0)
    assert relax(counted, ArrayCompiler(), {"x": hull(pd("R"))}) is TOP


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize("flags", [(), ("--skip-initial",)], ids=["", "skip-initial"])
def test_tag_scripts_write_the_scan_s_bytes(
    name: str, flags: tuple[str, ...], games: Path, tmp_path: Path
) -> None:
    script = tmp_path / f"{name}.cql"
    script.write_text(SCRIPTS[name] + "\n")
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index", *flags)
    indexed = run_outputs(script, games, tmp_path / "index", *flags)
    assert indexed == scanned


def test_the_scripts_find_something(games: Path, tmp_path: Path) -> None:
    # Not vacuous: most scripts above match some games and leave others.
    found = 0
    for name, text in SCRIPTS.items():
        script = tmp_path / f"{name}.cql"
        script.write_text(text + "\n")
        out = run_outputs(script, games, tmp_path / name, "--no-index")[0]
        found += b"[Event" in out
    assert found >= len(SCRIPTS) - 2


def test_one_tag_is_answered_without_a_board(games: Path, tmp_path: Path, fed: list[int]) -> None:
    script = tmp_path / "checker.cql"
    script.write_text(SCRIPTS["checker"] + "\n")
    out = run_outputs(script, games, tmp_path / "index")[0]
    assert b"[Event" in out
    assert not fed


def test_a_wrong_binding_would_be_seen(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The comparison can fail: bindings that see each piece one square off change the
    # output of a script that finds something.
    script = tmp_path / "corners.cql"
    script.write_text(SCRIPTS["rook-corners"] + "\n")
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index")
    assert b"[Event" in scanned[0]
    real = ids.bound_squares

    def shifted(located: np.ndarray, start: int) -> np.ndarray:
        return real(located, start) << np.uint64(1)

    monkeypatch.setattr(ids, "bound_squares", shifted)
    assert run_outputs(script, games, tmp_path / "index") != scanned
