"""Faults, second round (issue 20): hostile input cannot make the reader hold it whole
or take time that grows faster than its size -- lines without an end, huge games, files
of NUL bytes, variations nested thousands deep, scripts of many designators.

The limits are small here (set through their environment variables); the defaults are
tested on inputs just over them, kept small on disk by compression or sparse files.
"""

from __future__ import annotations

import bz2
from pathlib import Path

import chess
import pytest

from cqllegacy.cli import main
from cqllegacy.runner import pgn
from tests.cli.test_faults import KNIGHT_FORK, scratch  # noqa: F401 (a fixture)
from tests.support.runner import WCC


def wcc_games(count: int) -> bytes:
    """The first ``count`` bundled games."""
    text = bz2.decompress(WCC.read_bytes())
    cut = 0
    for _ in range(count):
        cut = text.index(b"[Event ", cut + 1)
    return text[:cut]


def deep_game(depth: int) -> str:
    """A legal game whose variations nest ``depth`` deep, each one a move longer."""
    board = chess.Board()
    parts = []
    for _ in range(depth):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        main_move, other = moves[0], moves[1]
        number = f"{board.fullmove_number}{'.' if board.turn else '...'} "
        parts.append(f"{number}{board.san(main_move)} ( {number}{board.san(other)} ")
        board.push(other)
    return '[Event "deep"]\n\n' + "".join(parts) + ")" * depth + " *\n\n"


def _run(*argv: str) -> int:
    return main(["run", "kf.cql", "-o", "out.pgn", "-q", *argv])


def _games_out() -> int:
    return Path("out.pgn").read_text(encoding="utf-8").count("{ Original game: ")


def _reference(tmp: Path, data: bytes) -> int:
    """Matches of the input without the hostile part."""
    (tmp / "ref.pgn").write_bytes(data)
    assert main(["run", "kf.cql", "-i", "ref.pgn", "-o", "ref-out.pgn", "-q", "-j", "1"]) == 0
    return Path("ref-out.pgn").read_text(encoding="utf-8").count("{ Original game: ")


# --------------------------------------------------------------------------------------
# Lines without an end, games without an end
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("filler", [b" ", b"\x00", b"1. e4 "])
def test_a_line_over_the_limit_is_reported_and_the_scan_goes_on(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    filler: bytes,
    jobs: str,
) -> None:
    monkeypatch.setenv("CQLLEGACY_MAX_LINE_BYTES", "1000")
    before, after = (
        wcc_games(150),
        bz2.decompress(WCC.read_bytes())[len(wcc_games(150)) :][:300_000],
    )
    after = after[after.index(b"[Event ") :]
    hostile = b'[Event "hostile"]\n\n' + filler * (300_000 // len(filler)) + b"\n\n"
    Path("in.pgn").write_bytes(before + hostile + after)
    expected = _reference(scratch, before + after)
    assert _run("-i", "in.pgn", "-j", jobs, "--report", "r.jsonl") == 0
    err = capsys.readouterr().err
    assert "a line longer than 1000 bytes (the limit): not read" in err, err
    assert err.count("\n") == 1 and "game 151 skipped" in err
    assert _games_out() == expected


def test_a_compressed_line_of_spaces_over_the_default_limit_is_skipped(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 17 MB of spaces without a line end, in a few kilobytes of bzip2.
    size = pgn.MAX_LINE_BYTES + 1024 * 1024
    data = wcc_games(20) + b'[Event "x"]\n\n' + b" " * size
    Path("in.pgn.bz2").write_bytes(bz2.compress(data))
    del data
    assert _run("-i", "in.pgn.bz2", "-j", "1") == 0
    err = capsys.readouterr().err
    assert "game 21 skipped: a line longer than 16 MB (the limit)" in err, err
    assert _games_out() == _reference(scratch, wcc_games(20))


def test_a_sparse_file_of_nul_bytes_is_read_without_holding_it(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    with open("nul.pgn", "wb") as handle:
        handle.truncate(pgn.MAX_LINE_BYTES + 1)
    for jobs in ("1", "2"):
        assert _run("-i", "nul.pgn", "-j", jobs) == 0
        err = capsys.readouterr().err
        expected = "game 1 skipped: a line longer than 16 MB (the limit): not read"
        assert err == f"warning: nul.pgn:1: {expected}\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_game_over_the_size_limit_is_reported_and_the_scan_goes_on(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    jobs: str,
) -> None:
    monkeypatch.setenv("CQLLEGACY_MAX_GAME_BYTES", "20000")
    before = wcc_games(100)
    hostile = b'[Event "long"]\n\n' + b"{ a long comment line }\n" * 20_000 + b"*\n\n"
    tags_only = b'[Event "tags"]\n' * 2000 + b"\n*\n\n"
    after = bz2.decompress(WCC.read_bytes())[len(before) :][:300_000]
    after = after[after.index(b"[Event ") :]
    Path("in.pgn").write_bytes(before + hostile + tags_only + after)
    expected = _reference(scratch, before + after)
    assert _run("-i", "in.pgn", "-j", jobs) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2, err
    assert "game 101 skipped: the game's text is longer than 20000 bytes (the limit)" in err[0]
    assert "game 102 skipped: the game's text is longer than 20000 bytes" in err[1]
    assert _games_out() == expected


def test_the_default_limits_are_the_documented_ones() -> None:
    # The README links to the page that lists them.
    root = Path(__file__).resolve().parents[2]
    assert "docs/commands.md" in (root / "README.md").read_text()
    page = (root / "docs" / "commands.md").read_text()
    assert pgn.MAX_LINE_BYTES == 16 * 1024 * 1024 and "16 MB" in page
    assert pgn.MAX_GAME_BYTES == 64 * 1024 * 1024 and "64 MB" in page
    assert pgn.MAX_VARIATION_DEPTH == 200 and "200 deep" in page
    assert "CQLLEGACY_MAX_LINE_BYTES" in page


# --------------------------------------------------------------------------------------
# Variations nested deep
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_variations_nested_deeper_than_the_default_limit_are_refused_per_game(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    jobs: str,
) -> None:
    before = wcc_games(150)
    ok, deep = deep_game(pgn.MAX_VARIATION_DEPTH), deep_game(pgn.MAX_VARIATION_DEPTH + 1)
    Path("in.pgn").write_bytes(before + deep.encode() + ok.encode() + wcc_games(30))
    assert _run("-i", "in.pgn", "-j", jobs, "--variations") == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "game 151 skipped: variations nested 201 deep, more than 200 (the limit)" in err


def test_the_depth_limit_can_be_lowered(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CQLLEGACY_MAX_VARIATION_DEPTH", "5")
    # Parentheses inside comments do not nest.
    Path("in.pgn").write_text(deep_game(6) + deep_game(5) + '[Event "c"]\n\n1. e4 {(((((((} *\n')
    assert _run("-i", "in.pgn", "-j", "1") == 0
    err = capsys.readouterr().err
    assert err == (
        "warning: in.pgn:1: game 1 skipped: variations nested 6 deep, more than 5 (the limit): "
        "not read\n"
    )


# --------------------------------------------------------------------------------------
# Scripts of many designators
# --------------------------------------------------------------------------------------


def test_checking_a_list_asks_its_flags_once_per_list_not_per_item(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # check was quadratic in a list's items: every item asked again whether its list was
    # negated (2,500 designators 1.2 s, 20,000 79 s).
    import cqllegacy.translator.query as query

    calls = []
    real_flags = query._flags

    def counted(pl: object) -> object:
        calls.append(pl)
        return real_flags(pl)  # type: ignore[arg-type]

    monkeypatch.setattr(query, "_flags", counted)
    squares = [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]
    items = " ".join(f"{p}{s}" for p in "QRBN" for s in squares)
    Path("many.cql").write_text(f"(match (position {items}))\n")
    assert main(["check", "many.cql"]) == 0
    assert len(calls) < 40, len(calls)


def test_a_query_decided_by_tags_skips_a_game_nested_too_deep_too(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Such a query reads no move with python-chess, but its movetext scanner would meet
    # the game's nesting all the same (time growing faster than the game).
    Path("tags.cql").write_text('cql() event "deep"\n')
    Path("in.pgn").write_text(deep_game(pgn.MAX_VARIATION_DEPTH + 1) + deep_game(20))
    assert main(["run", "tags.cql", "-i", "in.pgn", "-o", "out.pgn", "-q", "-j", "1"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "game 1 skipped: variations nested 201 deep" in err, err
    assert _games_out() == 1
