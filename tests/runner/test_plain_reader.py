"""The plain-game reader of :func:`cqllegacy.runner.pgn.read_stream` against python-chess.

A visitor that reads the main line only is given a plain game (tags that leave the
standard start, a movetext of moves, move numbers, NAGs and results) without
python-chess's reader.  The reference is python-chess's ``read_game`` on the same text:
every call such a visitor takes (``visit_board``, ``visit_move``, ``handle_error``,
``end_game``), with the board's full state at each, must be the same.
"""

from __future__ import annotations

import io
import random

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.evaluator.stream import main_line_only
from cqllegacy.runner import pgn as pgn_module
from cqllegacy.runner.pgn import GameText, open_pgn, plain_game, read_stream, split_games
from cqllegacy.vocab import san
from tests.support.runner import WCC

Call = tuple[object, ...]


def _state(board: chess.Board) -> Call:
    """Everything a board holds, its stacks included."""
    return (
        board.fen(),
        tuple(board.move_stack),
        len(board._stack),  # (python-chess's own record of earlier states)
        board.promoted,
        board.castling_rights,
    )


class Recorder(chess.pgn.BaseVisitor[list[Call]]):
    """Records the calls a main-line-only visitor takes, with the board's state; the
    attributes :func:`read_stream` reads of a stream."""

    parse_san = staticmethod(san.parse_san)

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.errors: list[Exception] = []
        self.main_moves = 0
        self.readable = True

    def visit_board(self, board: chess.Board) -> None:
        self.calls.append(("board", *_state(board)))

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.main_moves += 1
        self.calls.append(("move", move, *_state(board)))

    def handle_error(self, error: Exception) -> None:
        self.errors.append(error)
        self.calls.append(("error", type(error).__name__, str(error)))

    def end_game(self) -> None:
        self.calls.append(("end",))

    def result(self) -> list[Call]:
        return self.calls


def reference(text: GameText) -> tuple[bool, list[Call]]:
    """python-chess reading ``text``: whether it ran without raising, and the calls."""
    visitor = Recorder()
    try:
        chess.pgn.read_game(io.StringIO(text.pgn()), Visitor=lambda: visitor)
    except Exception:
        return False, visitor.calls
    return True, visitor.calls


def fast(text: GameText) -> tuple[bool, list[Call]]:
    """:func:`read_stream` reading ``text``; python-chess's reader is used exactly where
    the game is not plain."""
    visitor = Recorder()
    original, used = chess.pgn.read_game, []

    def counted(*args: object, **kwargs: object) -> object:
        used.append(True)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    chess.pgn.read_game = counted  # type: ignore[assignment]
    try:
        read_stream(text, visitor)
    finally:
        chess.pgn.read_game = original
    assert bool(used) != plain_game(text)
    ran = visitor.calls[-1:] == [("end",)]
    return ran, visitor.calls


def test_the_recorder_is_a_main_line_only_visitor() -> None:
    # Otherwise read_stream would hand it to python-chess, and nothing here would test the
    # plain reader.
    assert main_line_only(Recorder)


def test_real_games_are_plain_and_read_as_python_chess_reads_them() -> None:
    with open_pgn(WCC) as source:
        texts = list(split_games(source.lines()))
    assert all(map(plain_game, texts))
    for text in texts[::7]:
        assert fast(text) == reference(text)


TAGS = ('[Event "x"]\n', '[White "Tal"]\n')


def _text(movetext: str, tags: tuple[str, ...] = TAGS) -> GameText:
    return GameText(1, 1, tags, movetext)


@pytest.mark.parametrize(
    "movetext",
    [
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n",
        "1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6?? 4.Qxf7# 1-0\n",
        "1. e4 $1 e5 $23 2. Ke2 !? Ke7 ?! 3. Ke3 ! Ke6 !! *\n",
        "1. e4 e5 2. Kf3 Nc6 *\n",  # an illegal move: python-chess skips the rest
        "1. e4 Qh4 e5 *\n",  # an illegal move mid-game
        "1. e4 e5 2. -- Nf6 3. Z0 *\n",  # null moves
        "1. d4 e5 1-0 2. dxe5 0-1 f6 *\n",  # results inside the movetext
        "1. e4 d5 2. e5 f5 3. exf6 gxf6 4. Nf3 Bg7 5. Be2 Nh6 6. 0-0 0-0 *\n",  # e.p., 0-0
        "1. e4\nd5\n2. exd5 Qxd5\n 3. Nc3 Qa5 *\n",  # moves over several lines
        "1. e4 Nf6 2. e5 Ne4 3. d4 Nxf2 4. Kxf2 e6 5. Xy9 *\n",  # an unknown token
        "1. e4 $" + "1" * 5000 + " e5 *\n",  # a NAG number python-chess cannot read
        "",
        "*\n",
    ],
)
def test_hand_made_movetexts(movetext: str) -> None:
    text = _text(movetext)
    assert plain_game(text)
    assert fast(text) == reference(text)


@pytest.mark.parametrize(
    ("tags", "movetext"),
    [
        (TAGS, "1. e4 {best} e5 *\n"),
        (TAGS, "1. e4 (1. d4 d5) e5 *\n"),
        (TAGS, "1. e4 e5 ; a comment\n2. Nf3 *\n"),
        (TAGS, "1. e4 e5\n% escaped\n2. Nf3 *\n"),
        (TAGS, "1. e4 e5\n[Foo] 2. Nf3 *\n"),
        (TAGS, "1. e4 e5\n   \n2. Nf3 *\n"),
        (TAGS, "1. e4 e5\r\n2. Nf3 *\n"),
        (('[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n', '[SetUp "1"]\n'), "1. e4 Kd7 *\n"),
        (('[fen "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n',), "1. e4 Kd7 *\n"),
        (('[Variant "Chess960"]\n',), "1. e4 e5 *\n"),
        (('[Event "x"]\n', "junk\n"), "1. e4 e5 *\n"),
        ((), "1. e4 e5 *\n"),
    ],
)
def test_games_that_are_not_plain_go_to_python_chess(tags: tuple[str, ...], movetext: str) -> None:
    text = _text(movetext, tags)
    assert not plain_game(text)
    assert fast(text) == reference(text)


def test_a_tag_whose_name_only_begins_like_fen_keeps_a_game_plain() -> None:
    # "Opening" holds "fen" in "Defence": only a tag named FEN or Variant sets the start.
    text = _text("1. e4 e5 *\n", ('[Opening "Sicilian Defence"]\n', '[Fenton "y"]\n'))
    assert plain_game(text)
    assert fast(text) == reference(text)


_NAGS = ("$1", "$2", "$14", "!", "?", "!!", "??", "!?", "?!")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_NOISE = ("Ke9", "Qh4", "Nf3", "e4", "O-O-O", "exd6", "xx", "e8=Q", "--", "P@e4")


def _spelt(board: chess.Board, move: chess.Move, rng: random.Random) -> str:
    """``move`` in SAN, in one of the spellings python-chess reads."""
    text = board.san(move)
    if rng.random() < 0.3:
        text = text.rstrip("+#")
    if text.startswith("O-O") and rng.random() < 0.5:
        text = text.replace("O", "0")
    if "=" in text and rng.random() < 0.5:
        text = text.replace("=", "")
    return text


def _movetext(seed: int, plies: int) -> str:
    """A game played at random from the start, written with the tokens python-chess
    reads in a plain movetext (numbers, NAGs, results, line breaks) and now and then a
    token that is not a legal move there."""
    rng = random.Random(seed)
    board = chess.Board()
    words: list[str] = []
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        if board.turn == chess.WHITE or rng.random() < 0.2:
            dots = "." if board.turn == chess.WHITE else "..."
            words.append(f"{board.fullmove_number}{dots}" + ("" if rng.random() < 0.7 else " "))
        promotions = [m for m in moves if m.promotion]
        move = rng.choice(promotions or moves) if rng.random() < 0.5 else rng.choice(moves)
        words.append(_spelt(board, move, rng))
        board.push(move)
        roll = rng.random()
        if roll < 0.1:
            words.append(rng.choice(_NAGS))
        elif roll < 0.13:
            words.append(rng.choice(_RESULTS))
        elif roll < 0.15:
            words.append(rng.choice(_NOISE))
        elif roll < 0.2:
            words.append("\n")
    words.append(rng.choice(_RESULTS))
    return " ".join(words).replace(" \n ", "\n") + "\n"


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 160))
def test_generated_games_read_as_python_chess_reads_them(seed: int, plies: int) -> None:
    text = _text(_movetext(seed, plies))
    assert plain_game(text)
    assert fast(text) == reference(text)


def test_streams_that_read_more_than_the_main_line_go_to_python_chess() -> None:
    class Commented(Recorder):
        def visit_comment(self, comment: str) -> None:
            self.calls.append(("comment", comment))

    assert not pgn_module._reads_main_line_only(Commented)
    assert pgn_module._reads_main_line_only(Recorder)
