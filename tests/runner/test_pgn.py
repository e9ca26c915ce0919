"""Reading PGN files: compression, encodings, line ends, game boundaries, bad games.

The reference is python-chess reading the same text on its own.
"""

from __future__ import annotations

import bz2
import gzip
import io
import logging
import lzma
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.runner import pgn as pgn_module
from cqllegacy.runner.pgn import (
    UNTERMINATED_COMMENT,
    Compression,
    DamagedInput,
    GameText,
    UnreadableGame,
    open_pgn,
    read_game,
    read_tags,
    split_games,
)
from tests.support.runner import PGN, WCC, read_all


def games_of(path: Path) -> list[GameText]:
    with open_pgn(path) as source:
        return list(split_games(source.lines()))


def texts_of(text: str) -> list[GameText]:
    return list(split_games(io.StringIO(text)))


def exported(game: chess.pgn.Game) -> str:
    return str(game)


# --------------------------------------------------------------------------------------
# Real games against python-chess
# --------------------------------------------------------------------------------------


def test_sample_games_split_and_parse_as_python_chess_reads_them() -> None:
    with bz2.open(WCC, "rt", encoding="utf-8") as handle:
        reference = []
        while (game := chess.pgn.read_game(handle)) is not None:
            reference.append(game)
    texts = games_of(WCC)
    assert len(texts) == len(reference) == 685
    for text, expected in zip(texts, reference, strict=True):
        headers, problems = read_tags(text.tag_lines)
        assert problems == ()
        assert dict(headers) == dict(expected.headers)
        game = read_game(text)
        assert list(game.mainline_moves()) == list(expected.mainline_moves())


def test_puzzle_fixture_xz_tags_match_python_chess() -> None:
    path = Path(__file__).resolve().parents[2] / "fixtures" / "lichess-puzzles.pgn.xz"
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        reference = []
        while (headers := chess.pgn.read_headers(handle)) is not None:
            reference.append(dict(headers))
    texts = games_of(path)
    assert len(texts) == len(reference)
    # read_headers gives only the tags present; ours adds python-chess's roster defaults.
    assert all(
        reference_tags.items() <= dict(read_tags(text.tag_lines)[0]).items()
        for text, reference_tags in zip(texts, reference, strict=True)
    )
    first = read_game(texts[0])
    assert first.board().fen() == reference[0]["FEN"]


# --------------------------------------------------------------------------------------
# Compression, encodings, line ends
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "compression"),
    [
        ("annotated.pgn", Compression.PLAIN),
        ("annotated.pgn.gz", Compression.GZIP),
        ("annotated.pgn.bz2", Compression.BZIP2),
        ("annotated.pgn.xz", Compression.XZ),
        ("crlf.pgn", Compression.PLAIN),
    ],
)
def test_every_form_of_the_fixture_gives_the_same_games(
    name: str, compression: Compression
) -> None:
    with open_pgn(PGN / name) as source:
        assert source.compression is compression
        texts = list(split_games(source.lines()))
    reference = read_all(PGN / "annotated.pgn")
    assert [exported(read_game(text)) for text in texts] == [exported(g) for g in reference]
    first = read_game(texts[0])
    assert first.comment == "Queen walk\nwith side lines"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("really-gzip.pgn", gzip.compress(b"1. e4 e5 *\n", mtime=0)),
        ("really-plain.pgn.gz", b"1. e4 e5 *\n"),
        ("really-xz.pgn.bz2", lzma.compress(b"1. e4 e5 *\n")),
    ],
)
def test_magic_bytes_win_over_a_lying_extension(tmp_path: Path, name: str, data: bytes) -> None:
    (tmp_path / name).write_bytes(data)
    [text] = games_of(tmp_path / name)
    assert [move.uci() for move in read_game(text).mainline_moves()] == ["e2e4", "e7e5"]


def test_latin1_file_is_decoded() -> None:
    texts = games_of(PGN / "latin1.pgn")
    assert [text.encoding for text in texts] == ["latin-1", "latin-1"]
    game = read_game(texts[0])
    assert (game.headers["White"], game.headers["Black"]) == ("Jörg Müller", "Åke Öström")
    assert game.next().comment == "très bien"
    assert game.end().board().is_checkmate()


def test_encoding_is_decided_per_game() -> None:
    texts = games_of(PGN / "mixed-encodings.pgn")
    assert [text.encoding for text in texts] == ["utf-8", "latin-1", "utf-8"]
    whites = [read_tags(text.tag_lines)[0]["White"] for text in texts]
    assert whites == ["Jörg UTF-8", "Jörg Latin-1", "Игорь"]
    assert read_game(texts[1]).next().comment == "naïve"


def test_byte_order_mark_is_ignored() -> None:
    [text] = games_of(PGN / "bom.pgn")
    assert read_tags(text.tag_lines)[0]["Event"] == "mixed"


def test_concatenated_files_with_byte_order_marks(tmp_path: Path) -> None:
    data = (PGN / "bom.pgn").read_bytes()
    (tmp_path / "two.pgn").write_bytes(data + b"\n" + data)
    texts = games_of(tmp_path / "two.pgn")
    assert [read_tags(t.tag_lines)[0]["White"] for t in texts] == ["Jörg UTF-8"] * 2


def test_old_mac_line_ends(tmp_path: Path) -> None:
    (tmp_path / "cr.pgn").write_bytes(b'[Event "a"]\r\r1. e4 {x\ry} *\r\r[Event "b"]\r\r1. d4 *\r')
    texts = games_of(tmp_path / "cr.pgn")
    assert [read_tags(t.tag_lines)[0]["Event"] for t in texts] == ["a", "b"]
    assert read_game(texts[0]).next().comment == "x\ny"


def test_truncated_compressed_file_raises_damaged_input_after_the_complete_games(
    tmp_path: Path,
) -> None:
    data = gzip.compress((PGN / "annotated.pgn").read_bytes() * 20, mtime=0)
    (tmp_path / "cut.pgn.gz").write_bytes(data[: len(data) // 2])
    seen = []
    with open_pgn(tmp_path / "cut.pgn.gz") as source, pytest.raises(DamagedInput, match="gzip"):
        for text in split_games(source.lines()):
            seen.append(text)
    assert seen
    assert all(read_game(text) for text in seen)


# --------------------------------------------------------------------------------------
# Game boundaries
# --------------------------------------------------------------------------------------


def test_blank_lines_inside_comments_do_not_end_the_game() -> None:
    [text] = texts_of('[Event "a"]\n\n1. e4 {one\n\n\ntwo} e5 *\n')
    assert read_game(text).next().comment == "one\n\n\ntwo"


def test_semicolon_comment_hides_a_brace() -> None:
    texts = texts_of("1. e4 ; not a {comment\n\n1. d4 *\n")
    assert len(texts) == 2


def test_percent_line_is_ignored() -> None:
    [text] = texts_of("1. e4 e5\n% escaped { line\n2. Nf3 *\n")
    assert len(list(read_game(text).mainline_moves())) == 3


def test_a_tag_line_where_moves_are_expected_starts_the_next_game() -> None:
    texts = texts_of('[Event "a"]\n\n1. e4 *\n[Event "b"]\n\n1. d4 *\n')
    assert [read_tags(t.tag_lines)[0]["Event"] for t in texts] == ["a", "b"]
    assert [t.line for t in texts] == [1, 4]


def test_several_blank_lines_between_tags_and_moves_keep_the_game_together() -> None:
    [text] = texts_of('[Event "a"]\n\n\n\n1. e4 *\n')
    assert len(list(read_game(text).mainline_moves())) == 1


def test_tags_only_game_then_two_blank_lines_then_tags_are_two_games() -> None:
    # python-chess: one blank line may sit inside a tag section, two end the game.
    text = '[Event "a"]\n\n[Site "x"]\n\n\n[Event "b"]\n\n1. e4 *\n'
    texts = texts_of(text)
    reference = chess.pgn.read_game(io.StringIO(text))
    assert reference is not None
    assert len(texts) == 2
    assert dict(read_tags(texts[0].tag_lines)[0]) == dict(reference.headers)


def test_headerless_games() -> None:
    texts = texts_of("1. e4 *\n\n1. d4 *\n")
    assert [t.tag_lines for t in texts] == [(), ()]
    assert [read_game(t).next().move.uci() for t in texts] == ["e2e4", "d2d4"]


@st.composite
def random_games(draw: st.DrawFn) -> chess.pgn.Game:
    """A game of random legal moves with comments, NAGs and one side line."""
    game = chess.pgn.Game()
    game.headers["White"] = draw(st.text(alphabet="abcöé XYZ,", min_size=1, max_size=12))
    node: chess.pgn.GameNode = game
    board = chess.Board()
    for _ in range(draw(st.integers(0, 12))):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = draw(st.sampled_from(moves))
        if draw(st.booleans()) and len(moves) > 1:
            other = draw(st.sampled_from([m for m in moves if m != move]))
            side = node.add_variation(other)
            side.comment = draw(st.sampled_from(["", "side", "two\nlines", "; semi {"]))
        node = node.add_main_variation(move) if node.variations else node.add_variation(move)
        node.comment = draw(st.sampled_from(["", "c", "a\n\nb", "[%clk 0:01:00]"]))
        if draw(st.booleans()):
            node.nags.add(draw(st.integers(1, 6)))
        board.push(move)
    return game


@settings(max_examples=40, deadline=None)
@given(
    games=st.lists(random_games(), min_size=1, max_size=4),
    separator=st.sampled_from(["\n", "\n\n", "\n\n\n"]),
    crlf=st.booleans(),
    encoding=st.sampled_from(["utf-8", "latin-1"]),
)
def test_random_files_read_back_as_written(
    games: list[chess.pgn.Game], separator: str, crlf: bool, encoding: str
) -> None:
    text = separator.join(str(game) + "\n" for game in games)
    data = text.encode(encoding)
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    lines = io.TextIOWrapper(io.BytesIO(data), encoding="latin-1", newline=None)
    texts = list(split_games(lines))
    assert [t.file_ordinal for t in texts] == list(range(1, len(games) + 1))
    assert [exported(read_game(t)) for t in texts] == [exported(g) for g in games]


# --------------------------------------------------------------------------------------
# Bad games
# --------------------------------------------------------------------------------------

BROKEN_EXPECTED = {
    1: None,
    2: "illegal san: 'Kf3'",
    3: None,
    4: 'malformed tag line: [White "Broken]',
    5: "an error inside python-chess",
    6: "expected 'w' or 'b' for turn part of fen",
    7: None,
    8: "chess variant 'Crazyhouse' is not supported",
    9: UNTERMINATED_COMMENT,
    10: None,
    11: "neither tags nor moves",
    12: None,
}


def problem_of(text: GameText) -> str | None:
    _, problems = read_tags(text.tag_lines)
    if problems:
        return "; ".join(problems)
    try:
        read_game(text)
    except UnreadableGame as exc:
        return str(exc)
    return None


def test_each_kind_of_bad_game_is_found_and_its_neighbours_are_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    texts = games_of(PGN / "broken.pgn")
    assert [t.file_ordinal for t in texts] == list(BROKEN_EXPECTED)
    with caplog.at_level(logging.DEBUG):
        found = {t.file_ordinal: problem_of(t) for t in texts}
    for ordinal, expected in BROKEN_EXPECTED.items():
        if expected is None:
            assert found[ordinal] is None, ordinal
        else:
            assert found[ordinal] is not None and expected in found[ordinal], ordinal
    good = [read_game(texts[n - 1]) for n, e in BROKEN_EXPECTED.items() if e is None]
    assert [g.headers["Event"] for g in good] == [
        "good 1",
        "good 3",
        "good 7",
        "good 10",
        "good 12",
    ]
    # python-chess's own log line would duplicate the runner's report on stderr.
    assert not [r for r in caplog.records if r.name.startswith("chess")]


def test_illegal_move_in_sibling_variation_names_the_move() -> None:
    # python-chess's own IndexError is not shown (issue 32, item 8).
    with pytest.raises(UnreadableGame, match=r"illegal san: 'Kf3'.*an error inside python-chess"):
        read_game(GameText(1, 1, (), "1. e4 (1. Kf3) (1. d4) e5 *\n"))


def test_unterminated_comment_at_end_of_file_is_a_problem() -> None:
    [text] = texts_of("1. e4 {open\n\nstill open\n")
    assert text.problems == (UNTERMINATED_COMMENT,)


def _split_line_by_line(lines: list[str]) -> list[GameText]:
    """The splitter's own line-by-line rule, without split_games's fast path."""
    splitter = pgn_module._Splitter(ordinal=1)
    out = []
    for number, line in enumerate(lines, start=1):
        done = splitter.feed(number, line.removeprefix("\xef\xbb\xbf"))
        if done is not None:
            out.append(done)
    return out + list(splitter.close())


_LINES = [
    '[Event "x"]\n',
    '[White "A"]\n',
    "[Black B]\n",
    "[ bad\n",
    "\n",
    "  \n",
    "\t\n",
    "1. e4 e5\n",
    "2. Nf3 {a comment\n",
    "still inside}\n",
    "3. Bb5 ; hides { this\n",
    "% escape {\n",
    "; comment line {\n",
    "1-0\n",
    "*\n",
    " 1. d4\n",
    "{\n",
    "}\n",
    '\xef\xbb\xbf[Event "bom"]\n',
    "\xef\xbb\xbf1. c4\n",
    "\x0c\n",
    "\x85\n",
    "\x1f\n",
    "\x1f1. e4\n",
    "1. e4 (1. d4 {x\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=40))
def test_fast_splitting_equals_the_line_by_line_rule(lines: list[str]) -> None:
    assert list(split_games(lines)) == _split_line_by_line(lines)
