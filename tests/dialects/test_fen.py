"""Scidb's ``:fen "FEN"`` (issue 30): the positions a ``:markall`` list marks are those
whose FEN, as python-chess writes it with a legal en passant square only, agrees with
the given one in its first four fields (placement, side to move, castling rights, en
passant); the clocks do not count.  Checked on FENs taken from real games (castling
rights lost, en passant captures possible or not), under ``:flipcolor``, with the help's
example; the translation is refused by name; the index gives the scan's bytes."""

from __future__ import annotations

import functools
from pathlib import Path

import chess
import pytest
from cqllegacy.translator import translate

from cqllegacy.errors import CqlLegacyError
from cqllegacy.legacy import LegacySyntaxError, read_script
from tests.dialects.helpers import (
    GAMES,
    assert_index_gives_scan,
    indexed_copy,
    main_lines,
    marked,
    plies_where,
)


def fields(fen: str) -> list[str]:
    """The first four fields of ``fen`` as python-chess writes them (legal en passant)."""
    return chess.Board(fen).fen(en_passant="legal").split()[:4]


def same_position(fen: str) -> object:
    want = fields(fen)
    return lambda board, move: board.fen(en_passant="legal").split()[:4] == want


@functools.cache
def sample_fens() -> list[str]:
    """FENs of real positions, written with an en passant square after every double step
    (PGN's rule): every 7th main-line position, each one after a double step, and each
    one right after castling rights were lost."""
    found: list[str] = []
    for _, plies in main_lines(tuple(GAMES)):
        for ply, (board, _) in enumerate(plies):
            lost = ply and board.castling_rights != plies[ply - 1][0].castling_rights
            if ply % 7 == 3 or board.ep_square is not None or lost:
                found.append(board.fen(en_passant="fen"))
    return found[::5]


def test_the_samples_hold_the_cases_that_matter() -> None:
    boards = [chess.Board(fen) for fen in sample_fens()]
    assert any(board.has_legal_en_passant() for board in boards)
    assert any(board.ep_square and not board.has_legal_en_passant() for board in boards)
    assert any(board.castling_rights == 0 for board in boards)


def test_each_sample_marks_the_positions_of_its_fen() -> None:
    for fen in sample_fens():
        text = f'(match (position :markall :fen "{fen}"))'
        want = plies_where(same_position(fen))
        assert want, fen
        assert marked(text) == want, fen


@pytest.mark.parametrize(
    "fen",
    [
        # The help's example (its text says after 1.e4 e6 2.d4 d5; the FEN is after 1.e4 e6).
        "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        # Other clocks, and an en passant square no pawn can take: the same position.
        "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 7 30",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    ],
)
def test_clocks_and_an_idle_en_passant_square_do_not_count(fen: str) -> None:
    want = plies_where(same_position(fen))
    assert want
    assert marked(f'(match (position :markall :fen "{fen}"))') == want


def test_flipcolor_also_finds_the_mirrored_position() -> None:
    """fen-twin.pgn starts from the colour-flipped twin of the position after
    1. e4 e5 2. Nf3, which fixtures/games.pgn holds."""
    games = [*GAMES, Path(__file__).resolve().parent / "fen-twin.pgn"]
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    one, other = same_position(fen), same_position(chess.Board(fen).mirror().fen())
    want = plies_where(lambda board, move: one(board, move) or other(board, move), games)  # type: ignore[operator]
    assert plies_where(one, games)  # type: ignore[arg-type]
    assert want != plies_where(one, games)  # type: ignore[arg-type]
    assert marked(f'(match (position :markall :flipcolor :fen "{fen}"))', games) == want


def test_the_translation_is_refused_by_name() -> None:
    with pytest.raises(CqlLegacyError, match=":fen at 1:18"):
        translate('(match (position :fen "8/8/8/8/8/8/k7/2K5 w - - 0 1"))')


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ('(match (position :fen "8/8/8/8/8/8/8/8 w - - 0 1"))', 18, "no white king"),
        ('(match (position :fen "nonsense"))', 18, "not a FEN"),
        ("(match (position :fen x))", 23, "a FEN in double quotes"),
    ],
)
def test_a_bad_fen_is_refused_at_its_place(text: str, column: int, words: str) -> None:
    with pytest.raises(LegacySyntaxError, match=words) as refused:
        read_script(text)
    assert (refused.value.line, refused.value.column) == (1, column)


@pytest.mark.parametrize("transform", [":shift", ":flip", ":shiftvertical"])
def test_a_flip_or_shift_of_a_fen_is_refused_at_its_place(transform: str) -> None:
    text = f'(match (position {transform}\n :fen "8/8/8/8/8/8/k7/2K5 w - - 0 1"))'
    with pytest.raises(LegacySyntaxError, match=f"`:fen` under {transform}") as refused:
        read_script(text)
    assert (refused.value.line, refused.value.column) == (2, 2)


def test_check_names_it() -> None:
    script = read_script('(match (position :fen "8/8/8/8/8/8/k7/2K5 w - - 0 1"))')
    assert [form for form, _ in script.dialect_forms] == ["`:fen`"]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory.mktemp("fen"), GAMES)


def test_the_index_gives_the_scans_bytes(indexed: Path) -> None:
    fen = "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert_index_gives_scan(f'(match (position :markall :flipcolor :fen "{fen}"))', indexed)
