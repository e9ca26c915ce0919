"""Small builders for tests and examples: core piece designators from CQL 6 text, and
game positions from a FEN plus moves.

They spare tests the modern reader (a separate stage) and the slow ``node.board()``.

>>> from cqllegacy.vocab.pieces import types_of
>>> pd("Ka1") == PieceSet(types_of("K"), 1)
True
>>> pd("[Rr]a1-8").squares == chess.BB_FILE_A
True
>>> pd("[a1,b2]").types == ANYTHING and pd("[ab]").squares == FULL
True
>>> pd("h8").types == ANYTHING and pd("_").squares == FULL
True
>>> position("8/8/8/8/8/8/8/K6k w - - 0 1", "Kb1").board().fen()
'8/8/8/8/8/8/8/1K5k b - - 1 1'
"""

from __future__ import annotations

import io

import chess
import chess.pgn

from cqllegacy.core.tree import PieceSet
from cqllegacy.vocab.pieces import ANYTHING, MODERN_LETTERS, TypeSet
from cqllegacy.vocab.squares import FULL, parse_squares

__all__ = ["game_from_pgn", "pd", "position"]


def _split_types(text: str) -> tuple[TypeSet, str]:
    """The piece-type part of a modern designator and the rest of the text.

    ``a`` and ``b`` are also file letters: followed by a rank or a ``-`` they start squares.
    """
    if text[:1] in ("a", "b") and text[1:2] in ("-", *"12345678"):
        return ANYTHING, text
    close = text.find("]")
    if text.startswith("[") and close > 1 and all(ch in MODERN_LETTERS for ch in text[1:close]):
        letters, rest = text[1:close], text[close + 1 :]
    elif text and text[0] in MODERN_LETTERS:
        letters, rest = text[0], text[1:]
    else:
        return ANYTHING, text
    types = 0
    for letter in letters:
        types |= MODERN_LETTERS[letter]
    return types, rest


def pd(text: str) -> PieceSet:
    """A CQL 6 piece designator (``K``, ``[Rr]a1``, ``Ph2-7``, ``_f1-8``, ``a-h2``) as a node.

    ``.`` is every square; an empty square part means all 64 squares.
    """
    if text == ".":
        return PieceSet(ANYTHING, FULL)
    types, squares = _split_types(text)
    if squares.startswith("[") and "," not in squares and squares != "[]":
        squares = squares[1:-1]
    return PieceSet(types, parse_squares(squares, allow_any=False))


def position(
    fen: str = chess.STARTING_FEN,
    moves: str = "",
    *,
    chess960: bool = False,
    headers: dict[str, str] | None = None,
) -> chess.pgn.GameNode:
    """The game node reached from ``fen`` by the space-separated SAN ``moves``.

    ``headers`` are set on the game (for the game filters).
    """
    game = chess.pgn.Game()
    if fen != chess.STARTING_FEN or chess960:
        game.setup(chess.Board(fen, chess960=chess960))
    game.headers.update(headers or {})
    node: chess.pgn.GameNode = game
    board = game.board()
    for san in moves.split():
        move = board.parse_san(san)
        board.push(move)
        node = node.add_main_variation(move)
    return node


def game_from_pgn(text: str) -> chess.pgn.Game:
    """The first game of a PGN text (raises ``ValueError`` when there is none)."""
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None:
        raise ValueError("no game in the PGN text")
    return game
