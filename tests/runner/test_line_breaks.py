"""Games whose tags and comments hold line breaks other than PGN's, and control characters.

PGN lines end at ``\\n`` (``\\r\\n`` and ``\\r`` read as ``\\n``).  ``str.splitlines``
also splits at vertical tab, form feed, ``\\x1c``-``\\x1e``, NEL, U+2028 and U+2029:
a reader that split a game's text with it lost every game that held one (issue 32,
item 9).  The reference is python-chess reading the same file.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import chess
import chess.pgn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cqllegacy
from cqllegacy.runner.pgn import open_pgn, read_tags, split_games

#: Every character ``str.splitlines`` takes as a line break, and every control character
#: (C0 and C1), except PGN's own line ends.
ODD_CHARACTERS = sorted(
    {
        chr(code)
        for code in range(sys.maxunicode + 1)
        if len(f"a{chr(code)}b".splitlines()) > 1 or code < 0x20 or 0x7F <= code <= 0x9F
    }
    - {"\n", "\r"}
)

#: What a tag value or a comment is made of: the odd characters among plain ones (never
#: ``"``, ``\\`` or ``}``, which end a value or a comment).
TEXT = st.text(st.sampled_from([*ODD_CHARACTERS, "a", "b", " "]), min_size=1, max_size=6)

ALL_GAMES = "(match (position))"

#: Each example writes its file afresh, over the last one.
TMP_PATH_IS_FINE = [HealthCheck.function_scoped_fixture]


def test_the_odd_characters_include_those_the_issue_names() -> None:
    for character in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00\x1f\x7f":
        assert character in ODD_CHARACTERS


@st.composite
def odd_games(draw: st.DrawFn) -> chess.pgn.Game:
    game = chess.pgn.Game()
    game.headers["Event"] = draw(TEXT)
    game.headers["White"] = draw(TEXT)
    game.headers["Annotator"] = draw(TEXT)
    node: chess.pgn.GameNode = game
    for san in ["e4", "e5", "Nf3"][: draw(st.integers(1, 3))]:
        node = node.add_variation(node.board().parse_san(san))
        if draw(st.booleans()):
            node.comment = draw(TEXT)
    return game


def python_chess_reads(path: Path) -> list[tuple[dict[str, str], list[str]]]:
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors
            moves = [move.uci() for move in game.mainline_moves()]
            games.append((dict(game.headers), moves))
    return games


def written(path: Path, games: list[chess.pgn.Game]) -> Path:
    path.write_text("\n".join(f"{game}\n" for game in games), encoding="utf-8")
    return path


@settings(max_examples=60, deadline=None, suppress_health_check=TMP_PATH_IS_FINE)
@given(games=st.lists(odd_games(), min_size=1, max_size=3))
def test_every_game_python_chess_reads_is_split_into_its_own_tag_lines(
    games: list[chess.pgn.Game], tmp_path: Path
) -> None:
    path = written(tmp_path / "odd.pgn", games)
    with open_pgn(path) as source:
        texts = list(split_games(source.lines()))
    reference = python_chess_reads(path)
    assert len(texts) == len(reference)
    for text, (headers, _) in zip(texts, reference, strict=True):
        found, problems = read_tags(text.tag_lines)
        assert problems == ()
        assert dict(found) == headers
        assert all(line.count("\n") == 1 and line.endswith("\n") for line in text.tag_lines)


@settings(max_examples=25, deadline=None, suppress_health_check=TMP_PATH_IS_FINE)
@given(games=st.lists(odd_games(), min_size=1, max_size=3))
def test_no_game_python_chess_reads_is_skipped_by_a_run(
    games: list[chess.pgn.Game], tmp_path: Path
) -> None:
    path = written(tmp_path / "odd.pgn", games)
    reference = python_chess_reads(path)
    matches = list(cqllegacy.load(ALL_GAMES).search(path, index=False))
    assert [(dict(m.headers), [mv.uci() for mv in m.game.mainline_moves()]) for m in matches] == (
        reference
    )


def test_the_issues_nine_games_are_read_whole_by_a_scan_and_through_an_index(
    tmp_path: Path,
) -> None:
    games = []
    for number, odd in enumerate("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x1f", 1):
        game = chess.pgn.Game()
        game.headers["Event"] = f"event{odd}{number}"
        game.add_variation(chess.Move.from_uci("e2e4")).comment = f"before{odd}after"
        games.append(game)
    path = written(tmp_path / "nine.pgn", games)
    reference = python_chess_reads(path)
    assert len(reference) == 9
    query = cqllegacy.load("(match (position Pe4))")  # a query the index narrows
    scanned = [dict(m.headers) for m in query.search(path, index=False)]
    assert scanned == [headers for headers, _ in reference]
    # The index keeps the text of a compressed file's games (not their byte ranges).
    packed = tmp_path / "nine.pgn.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    cqllegacy.index(packed, tmp_path / "nine.cqlidx", progress=None)
    indexed = [dict(m.headers) for m in query.search(packed, index=tmp_path / "nine.cqlidx")]
    assert indexed == scanned
