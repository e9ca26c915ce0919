"""The movetext tokenizer against python-chess's reader (which we did not write).

For every game python-chess reads without an error, the tokenizer's moves must be the
game's nodes in the order python-chess's exporter writes them (the text order), with
the report's position keys, and each token must be the SAN python-chess read for that
node.  Games: the fixture games, the runner's test files, a sample of the World
Championship games and of the Lichess puzzles, and generated games with nested
variations, comments across lines, ``;`` comments, ``%`` lines, NAGs and suffixes.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cqllegacy.runner.movetext as movetext_module
import cqllegacy.runner.output as output_module
from cqllegacy.runner.movetext import START, Movetext, scan_movetext
from cqllegacy.runner.output import annotate_movetext
from cqllegacy.runner.pgn import GameText, UnreadableGame, open_pgn, read_game, split_games
from cqllegacy.runner.report import position_key

ROOT = Path(__file__).resolve().parents[2]
PGN = Path(__file__).resolve().parents[1] / "pgn"


# --------------------------------------------------------------------------------------
# Walks of python-chess's game tree
# --------------------------------------------------------------------------------------


def text_order(game: chess.pgn.Game) -> list[chess.pgn.ChildNode]:
    """The nodes after the start in the order python-chess's exporter writes their moves:
    a position's main continuation, then its alternatives (each with its whole line),
    then the main line goes on."""
    out: list[chess.pgn.ChildNode] = []
    _write_line(game, out)
    return out


def _write_line(node: chess.pgn.GameNode, out: list[chess.pgn.ChildNode]) -> None:
    while node.variations:
        main, *alternatives = node.variations
        out.append(main)
        for alternative in alternatives:
            out.append(alternative)
            _write_line(alternative, out)
        node = main


def depth_first(node: chess.pgn.GameNode) -> Iterator[chess.pgn.GameNode]:
    """Every node, depth first, the main continuation before the alternatives."""
    yield node
    for child in node.variations:
        yield from depth_first(child)


def assert_tokens_are_the_nodes(text: GameText) -> Movetext:
    """Compare the tokenizer with the game python-chess reads from ``text``."""
    game = read_game(text)  # raises on a game python-chess cannot read cleanly
    moves = scan_movetext(text.movetext)
    nodes = text_order(game)
    assert [move.key for move in moves.moves] == [position_key(node) for node in nodes]
    for move, node in zip(moves.moves, nodes, strict=True):
        assert node.parent.board().parse_san(move.san) == node.move, move
        assert text.movetext[move.start : move.end] == move.san
    assert moves.game_order() == [position_key(node) for node in depth_first(game)]
    assert moves.mainline_length == 1 + len(list(game.mainline()))
    assert_partial_scans_are_prefixes(text.movetext, moves)
    return moves


def assert_partial_scans_are_prefixes(movetext: str, whole: Movetext) -> None:
    """A scan through ply ``k`` is the whole scan up to the main line's move ``k + 1``,
    annotated ends included (what marking positions up to ``k`` needs)."""
    last = whole.mainline_length - 1
    for through in sorted({0, 1, 2, last // 2, last - 1, last, last + 3} - {-1}):
        part = scan_movetext(movetext, through)
        after = [i for i, m in enumerate(whole.moves) if m.key == through + 1]
        assert part.moves == whole.moves[: after[0] if after else None], through
        assert part.start_annotated_end == whole.start_annotated_end


def readable_texts(path: Path) -> list[GameText]:
    texts = []
    with open_pgn(path) as source:
        for text in split_games(source.lines()):
            try:
                read_game(text)
            except UnreadableGame:
                continue
            texts.append(text)
    return texts


# --------------------------------------------------------------------------------------
# Real games
# --------------------------------------------------------------------------------------


def test_fixture_games() -> None:
    texts = readable_texts(ROOT / "fixtures" / "games.pgn")
    assert len(texts) == 135
    for text in texts:
        assert_tokens_are_the_nodes(text)


@pytest.mark.parametrize("name", sorted(p.name for p in PGN.iterdir()))
def test_runner_test_files(name: str) -> None:
    texts = readable_texts(PGN / name)
    assert texts
    for text in texts:
        assert_tokens_are_the_nodes(text)


def test_sample_of_world_championship_games() -> None:
    texts = readable_texts(ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2")
    assert len(texts) == 685
    for text in texts[::9]:
        assert_tokens_are_the_nodes(text)


def test_sample_of_puzzles() -> None:
    with open_pgn(ROOT / "fixtures" / "lichess-puzzles.pgn.xz") as source:
        texts = list(itertools.islice(split_games(source.lines()), 0, 3000, 10))
    assert len(texts) == 300
    for text in texts:
        assert_tokens_are_the_nodes(text)


# --------------------------------------------------------------------------------------
# Corners of python-chess's reader, one by one
# --------------------------------------------------------------------------------------

CORNERS = [
    # check, mate and annotation signs are no part of the token
    "1. e4! e5?! 2. Qh5!? Nc6 3. Bc4 Nf6?? 4. Qxf7# 1-0",
    # move numbers glued to moves, no spaces at all around brackets and braces
    "1.e4(1.d4{x}d5)1...e5{y}(1...c5!?)2.Nf3 *",
    # a "(" before the first move is ignored, and so is a ")" with nothing open
    "( 1. e4 ) e5 ) 2. Nf3 *",
    # ( ( : the second "(" would branch off the start position: ignored
    "1. e4 ( ( 1. d4 ) d5 ) e5 *",
    # an empty variation
    "1. e4 () e5 *",
    # ";" hides the rest of the line, tokens included; "%" only at the start of a line
    "1. e4 ; ( 1. d4 {\n% 1... c5\n1... e5 % 2. Nf3\n2... Nc6 *",
    # a comment across lines with a blank line, a "%" line and a ";" inside
    "1. e4 {first\n\n% not an escape\n; not a comment\n} e5 *",
    # the rest of a line after a comment is not the start of a line
    "1. e4 {a\nb} % c\n1... e5 *",
    # tokens after a blank line belong to no game
    "1. e4 e5\n\n2. Nf3 *",
    # null moves, castling with zeros, a result inside the main line
    "1. e4 -- 2. d4 e5 3. Nf3 Nf6 4. Bd3 Be7 5. 0-0 O-O 1-0 6. c4 *",
    # alternatives to the same move, some the same move again
    "1. e4 (1. d4) (1. e4 c5) (1. c4 (1. Nf3)) e5 *",
    # NAGs of every kind, and a comment before the first move of a variation
    "{start} $10 1. e4 $1 $14 (1. d4 $2 {x} $3) ({pre} 1. c4) e5 *",
]


@pytest.mark.parametrize("movetext", CORNERS)
def test_corners(movetext: str) -> None:
    assert_tokens_are_the_nodes(GameText(1, 1, ('[Event "corner"]\n',), movetext + "\n"))


def test_offsets_of_words_and_annotations() -> None:
    text = "{a} $1 1. e4+!? $2 {b}\n{c} ; d\n% e\n{f} (1. d4#) e5 *"
    moves = scan_movetext(text)
    e4, d4, e5 = moves.moves
    assert moves.first_move == text.index("e4")
    assert moves.start_annotated_end == text.index(" 1.")  # after "{a} $1"
    assert text[e4.start : e4.word_end] == "e4+!?"
    # Comments on later lines, past ";" and "%" lines, are still e4's: up to "{f}".
    assert text[e4.start : e4.annotated_end] == text[text.index("e4") : text.index(" (")]
    assert (d4.word_end, d4.annotated_end) == (text.index(")"), text.index(")"))
    assert e5.annotated_end == e5.word_end == e5.end


def test_empty_and_moveless_movetexts() -> None:
    assert scan_movetext("") == Movetext((), 0, 0)
    moves = scan_movetext("{just a comment} *\n")
    assert moves.moves == () and moves.game_order() == [START]
    assert moves.first_move == len("{just a comment} *\n")
    assert moves.start_annotated_end == len("{just a comment}")


def test_unterminated_comment_runs_to_the_end() -> None:
    assert [m.san for m in scan_movetext("1. e4 {never closed e5 2. Nf3").moves] == ["e4"]


def test_deep_nesting_needs_no_recursion() -> None:
    depth = 2000
    text = "1. e4 e5 " + "(1... c5 " * depth + ")" * depth + " *"
    moves = scan_movetext(text)
    # Each "(" opens an alternative to the last move of the line before it, which is an
    # alternative to 1... e5 itself: every one branches off the position after 1. e4.
    assert [m.key for m in moves.moves[2:]] == [f"2.{i}" for i in range(1, depth + 1)]
    assert len(moves.game_order()) == depth + 3


def test_long_lines_need_no_recursion() -> None:
    moves = scan_movetext("1. Nf3 Nf6 2. Ng1 Ng8 " * 1500 + "(3. e4) *")
    assert moves.mainline_length == 6001
    assert moves.game_order()[-1] == "6000.1"  # an alternative to the 6000th half-move


# --------------------------------------------------------------------------------------
# Generated games
# --------------------------------------------------------------------------------------

#: Comment text: no "}" (it would end the comment), no "MATCH" (the output tests look for
#: it); line breaks, blank lines, and characters that mean something outside comments.
_COMMENT_TEXT = st.text(alphabet="ab e4(); %$!?{\n", max_size=14)
_REST_OF_LINE = st.text(alphabet="ab e4(){}%$!?;", max_size=10)
_SUFFIXES = st.sampled_from(["", "", "", "!", "?", "!!", "??", "!?", "?!"])


@st.composite
def _annotations(draw: st.DrawFn) -> list[str]:
    """What may follow a move: NAGs, comments, ``;`` comments, ``%`` lines."""
    pieces = []
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["nag", "comment", "comment", "semicolon", "escape"]))
        if kind == "nag":
            pieces.append(f"${draw(st.integers(0, 139))}")
        elif kind == "comment":
            pieces.append("{" + draw(_COMMENT_TEXT) + "}")
        elif kind == "semicolon":
            pieces.append(";" + draw(_REST_OF_LINE))
        else:
            pieces.append("%" + draw(_REST_OF_LINE))
    return pieces


def _move_word(draw: st.DrawFn, board: chess.Board, move: chess.Move, numbered: bool) -> str:
    san = board.san(move)
    if san.startswith("O-O") and draw(st.booleans()):
        san = san.replace("O", "0")
    number = ""
    if numbered or board.turn == chess.WHITE:
        dots = "." if board.turn == chess.WHITE else "..."
        number = f"{board.fullmove_number}{dots}" + draw(st.sampled_from(["", " "]))
        number = draw(st.sampled_from([number, ""]))
    return number + san + draw(_SUFFIXES)


def _moves_from(board: chess.Board, draw: st.DrawFn) -> chess.Move | None:
    legal = list(board.legal_moves)
    if not legal:
        return None
    if draw(st.integers(0, 30)) == 0 and not board.is_check():
        return chess.Move.null()
    return legal[draw(st.integers(0, len(legal) - 1))]


def _line(draw: st.DrawFn, board: chess.Board, depth: int, length: int) -> list[str]:
    """The pieces of text of a line of ``length`` moves from ``board`` (which it plays)."""
    pieces: list[str] = []
    numbered = True  # after a variation or a comment Black's move needs its number
    for _ in range(length):
        move = _moves_from(board, draw)
        if move is None:
            break
        pieces.append(_move_word(draw, board, move, numbered))
        annotations = draw(_annotations())
        pieces += annotations
        numbered = bool(annotations)
        for _ in range(draw(st.integers(0, 2)) if depth < 3 else 0):
            alternative = _moves_from(board, draw)
            if alternative is None:
                break
            side = board.copy()
            pieces += ["(", _move_word(draw, side, alternative, True)]
            side.push(alternative)
            pieces += draw(_annotations())
            pieces += _line(draw, side, depth + 1, draw(st.integers(0, 3)))
            pieces.append(")")
            numbered = True
        if draw(st.integers(0, 12)) == 0:
            pieces += ["(", ")"]
        board.push(move)
    return pieces


def _joined(draw: st.DrawFn, pieces: list[str]) -> str:
    """The pieces with white space between them that keeps their meaning: a line break
    after ``;`` comments and around ``%`` lines, never a blank line outside comments,
    nothing between pieces where no token can run into the next."""
    out = [pieces[0]]
    for before, after in itertools.pairwise(pieces):
        if before.startswith(";") or before.startswith("%") or after.startswith("%"):
            out.append("\n")
        elif before[-1] in "(){}" or after[0] in "(){}":
            out.append(draw(st.sampled_from(["", " ", "\n"])))
        else:
            out.append(draw(st.sampled_from([" ", " ", "  ", "\n", " \n", "\t"])))
        out.append(after)
    return "".join(out)


_STARTS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 40",
]


@st.composite
def game_texts(draw: st.DrawFn) -> GameText:
    """A game written by hand, as people do: python-chess reads it without an error."""
    fen = draw(st.sampled_from(_STARTS))
    pieces = draw(_annotations()) if draw(st.booleans()) else []
    pieces = [p for p in pieces if not p.startswith(";")]  # a ";" line would start it
    pieces += _line(draw, chess.Board(fen), 0, draw(st.integers(0, 8)))
    pieces.append(draw(st.sampled_from(["*", "1-0", "0-1", "1/2-1/2"])))
    tags = ['[Event "generated"]\n']
    if fen != chess.STARTING_FEN:
        tags += ['[SetUp "1"]\n', f'[FEN "{fen}"]\n']
    return GameText(1, 1, tuple(tags), _joined(draw, pieces) + "\n")


GENERATED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@GENERATED
@given(game_texts())
def test_generated_games(text: GameText) -> None:
    assert_tokens_are_the_nodes(text)


@settings(max_examples=40, deadline=None)
@given(game_texts())
def test_generated_games_read_as_split_games_reads_them(text: GameText) -> None:
    # The generated text is a PGN file's game, cut out as the runner cuts it.
    [again] = split_games(io.StringIO(text.pgn()))
    assert_tokens_are_the_nodes(again)


# --------------------------------------------------------------------------------------
# The plain path against the walk
# --------------------------------------------------------------------------------------

#: Words of plain movetexts, and a few that make a text more than plain.
_PLAIN_WORDS = [
    "1.", "1...", "12.", "e4", "exd5", "Nbd7", "R1e2", "O-O", "0-0-0", "e8=Q", "e8Q", "--",
    "Z0", "0000", "@@@@", "P@e4", "1-0", "0-1", "1/2-1/2", "*", "+", "#", "e4+", "Qxf7#",
    "x", "abc", "9", "e4e5", "Nf3+#",
]  # fmt: skip
_OTHER_WORDS = ["{c}", "{", "}", "$1", "!", "?", "e4!?", "(", ")", "; x", "%x", "(e5)"]
#: What separates words: blank lines (of every kind of white space) end the game.
_SEPARATORS = [
    "", " ", "  ", "\n", " \n", "\t", "\r\n", "\n\n", "\n \n", "\n\t\n", "\x85", "\xa0",
    "\n\x0c\n", "\n\x85\n", "\n\xa0 \n",
]  # fmt: skip


@st.composite
def movetexts(draw: st.DrawFn, words: list[str]) -> str:
    pieces = draw(st.lists(st.tuples(st.sampled_from(words), st.sampled_from(_SEPARATORS))))
    return draw(st.sampled_from(_SEPARATORS)) + "".join(w + s for w, s in pieces)


_THROUGH = st.none() | st.integers(0, 12)


@settings(max_examples=400, deadline=None)
@given(movetexts(_PLAIN_WORDS), _THROUGH)
def test_plain_path_is_the_walk(text: str, through: int | None) -> None:
    plain = movetext_module._plain_moves(text, through)
    assert plain is None or plain == movetext_module._walked(text, through)


@settings(max_examples=300, deadline=None)
@given(movetexts(_PLAIN_WORDS), _THROUGH)
def test_plain_word_ends_are_the_walks_annotated_ends(text: str, through: int | None) -> None:
    ends = movetext_module.plain_word_ends(text, through)
    if ends is not None:
        walked = movetext_module._walked(text, through)
        assert ends == [move.annotated_end for move in walked.moves]
        assert [move.key for move in walked.moves] == list(range(1, len(ends) + 1))


@settings(max_examples=300, deadline=None)
@given(movetexts(_PLAIN_WORDS + _OTHER_WORDS), _THROUGH)
def test_plain_path_steps_aside_for_the_rest(text: str, through: int | None) -> None:
    plain = movetext_module._plain_moves(text, through)
    assert plain is None or plain == movetext_module._walked(text, through)
    if any(mark in text for mark in "{}$!?();%"):
        assert plain is None


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("1.d4 d5 2.c4 c6 3.e3 Bf5+ 4.\nNc3 e6 1-0\n", True),
        ("1. e4 e5\n\n2. Nf3 *", False),  # a blank line ends the game
        ("1. e4 e5\n \t\n2. Nf3 *", False),
        ("1. e4 $1 e5 *", False),
        ("1. e4 {c} e5 *", False),
        ("1. e4 (1. d4) e5 *", False),
        ("1. e4! e5 *", False),
    ],
)
def test_which_texts_take_the_plain_path(text: str, plain: bool) -> None:
    assert (movetext_module._plain_moves(text, None) is not None) == plain
    assert scan_movetext(text) == movetext_module._walked(text, None)


@settings(max_examples=60, deadline=None)
@given(movetexts(_PLAIN_WORDS), st.data())
def test_plain_path_annotates_as_the_walk(text: str, data: st.DataObject) -> None:
    """Output PGN: the annotated text is the same, byte for byte, either way."""
    whole = movetext_module._walked(text, None)
    keys = [START, *(move.key for move in whole.moves)]
    marked = data.draw(st.sets(st.sampled_from(keys)))
    note = "Original game: 3"
    fast = annotate_movetext(text, marked, note)
    scan_movetext.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(movetext_module, "_plain_moves", lambda text, through: None)
        patch.setattr(output_module, "plain_word_ends", lambda text, through=None: None)
        assert annotate_movetext(text, marked, note) == fast
    scan_movetext.cache_clear()


def test_plain_path_annotates_real_games_as_the_walk() -> None:
    with open_pgn(ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2") as source:
        texts = list(itertools.islice(split_games(source.lines()), 0, 685, 7))
    taken = 0
    for number, text in enumerate(texts):
        moves = movetext_module._walked(text.movetext, None)
        keys = [START, *(move.key for move in moves.moves)]
        marked = {keys[number % len(keys)], keys[-1], keys[len(keys) // 2]}
        taken += movetext_module._plain_moves(text.movetext, None) is not None
        fast = annotate_movetext(text.movetext, marked, "N")
        scan_movetext.cache_clear()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(movetext_module, "_plain_moves", lambda text, through: None)
            patch.setattr(output_module, "plain_word_ends", lambda text, through=None: None)
            assert annotate_movetext(text.movetext, marked, "N") == fast
        scan_movetext.cache_clear()
    assert taken > len(texts) // 2  # most of these games are plain
