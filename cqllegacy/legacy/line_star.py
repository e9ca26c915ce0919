"""Scidb's ``:line* ( … )``: a line whose moves may come in any order (X3).

The moves are written in :mod:`.line_moves`' language, but each must be fully
determined, since the item plays them from the game's own start position: one piece
kind, one square it leaves, one square it reaches, the kind of the piece it takes (or
``-``: the square is empty), the promotion's kind.  The letters' case says nothing: the
side to move plays each move and takes the other side's piece.  ``O-O`` and ``O-O-O``
(``K-K``, ``k-q`` …) are a castling of the side to move; ``Pe5xd6 ep`` takes en passant.
Move numbers may be written; their colour must be the one that moves first in the game.
Check suffixes stand on the last move only; ``!``, ``|`` and patterns that leave a part
open are refused (:class:`~.line_moves.MoveError`, at the token).

>>> line = read_star_moves("1.Pe2-e4 Pe7-e6 2.Pd2-d4 pd7-d5", 0)
>>> [chess.square_name(move.to_square) for move in line.moves], line.white_first
(['e4', 'e6', 'd4', 'd5'], True)
>>> try:
...     read_star_moves("Pe2-e4 Pd7-d5 Pe4xd5", 0)
... except MoveError as error:
...     print(error.offset, error.message)
14 Scidb extension `:line*` needs the kind of the piece a capture takes: 'Pe4xd5'
"""

from __future__ import annotations

import attrs
import chess

from cqllegacy.core.legacy_nodes import CheckKind, FixedMove
from cqllegacy.legacy import line_moves
from cqllegacy.legacy import tree as t
from cqllegacy.legacy.line_moves import MoveError, MovePattern
from cqllegacy.vocab.pieces import ANY_PIECE, BLACK_SHIFT, EMPTY_BIT, WHITE_PIECES, TypeSet
from cqllegacy.vocab.squares import SquareSet

__all__ = ["read_star_moves"]

_NAME = "Scidb extension `:line*`"
#: Python-chess's piece type of each white piece bit (the type sets' order: P N B R Q K).
_KINDS = {1 << index: index + 1 for index in range(6)}


def _error(message: str, move: MovePattern, hint: str = "") -> MoveError:
    return MoveError(f"{_NAME} {message}: {move.text!r}", move.offset, move.text, hint=hint)


def _kind(types: TypeSet) -> int | None:
    """The one piece kind ``types`` names, colours folded, or None."""
    kinds = (types | types >> BLACK_SHIFT) & WHITE_PIECES
    return _KINDS.get(kinds)


def _square(squares: SquareSet) -> int | None:
    return squares.bit_length() - 1 if squares and not squares & (squares - 1) else None


def _castling(move: MovePattern) -> FixedMove | None:
    """A castling token as a castling of the side to move (None: not one)."""
    found = line_moves._MOVE.fullmatch(move.text)
    text = found.group("castling") if found else None
    if not text:
        return None
    text = text.replace("0", "O")
    # O-O-O-O and K-KQ name either castling, which leaves the move open.
    sides = {"O-O": "K", "O-O-O": "Q", "O-O-O-O": "KQ"}.get(text) or text[2:].upper()
    if len(sides) != 1:
        raise _error("needs one castling, not either", move, hint="write O-O or O-O-O")
    return FixedMove(chess.KING, None, chess.G1 if sides == "K" else chess.C1, castling=True)


def _fixed(move: MovePattern) -> FixedMove:
    castling = _castling(move)
    if castling is not None:
        return castling
    piece = _kind(move.origin.types)
    if piece is None:
        raise _error("needs the kind of the piece that moves", move, hint="write Pe2-e4")
    start, end = _square(move.origin.squares), _square(move.target.squares)
    if start is None:
        raise _error("needs the one square the piece leaves", move)
    if end is None:
        raise _error("needs the one square the piece reaches", move)
    target = move.target.types
    captured = None
    if target & ANY_PIECE:
        if target & EMPTY_BIT:
            raise _error("needs to know whether the move takes (x) or not (-)", move)
        captured = _kind(target)
        if captured is None:
            raise _error(
                "needs the kind of the piece a capture takes", move, hint="write Pe4xPd5"
            )
    promotion = None
    if move.promotion is not None:
        promotion = _kind(move.promotion.types)
        if promotion is None or promotion in (chess.PAWN, chess.KING):
            raise _error("needs the one piece a promotion makes", move, hint="write =Q")
    return FixedMove(piece, start, end, captured, promotion, move.enpassant)


def _white_first(moves: list[tuple[MovePattern, str | None]]) -> bool | None:
    """The colour the move numbers give the first move (None: no numbers), checking
    that the first move has one and that those given follow."""
    if not any(number for _, number in moves):
        return None
    first, first_number = moves[0]
    if first_number is None:
        raise MoveError(
            "move numbers are used for all moves or none: the first move has none",
            first.offset,
            first.text,
        )
    ply = line_moves._ply(first_number)
    for index, (move, number) in enumerate(moves):
        if number is not None and line_moves._ply(number) != ply + index:
            raise MoveError(
                f"move number {number!r} does not follow: this is "
                f"{line_moves._number_text(ply + index)}",
                move.offset,
                move.text,
            )
    return ply % 2 == 0


_CHECK_KINDS = {kind.value: kind for kind in CheckKind}


def read_star_moves(text: str, base: int) -> t.TransposedLine:
    """Read the text between the parentheses of ``:line*``; ``base`` is its offset in the
    script, so that a :class:`MoveError` (which names ``:line*``) points at the script."""
    try:
        return _read(text, base)
    except MoveError as error:
        message = error.message.replace("`:line`", "`:line*`")
        if "`:line*`" not in message:
            message = f"{_NAME}: {message}"
        raise MoveError(message, error.offset, error.text, error.hint) from None


def _read(text: str, base: int) -> t.TransposedLine:
    read: list[tuple[MovePattern, str | None]] = []
    tokens = list(line_moves._tokens(text, base))
    for token, offset in tokens:
        if token == "|":
            raise MoveError(f"{_NAME} takes no `|`: its moves are all played", offset, token)
        if token == "ep":
            patterns = [move for move, _ in read]
            line_moves._enpassant(patterns, offset)
            read[-1] = (patterns[-1], read[-1][1])
            continue
        move = line_moves._read_move(token, offset)
        read.append((attrs.evolve(move, number=None), move.number))
    if not read:
        raise MoveError(f"{_NAME} needs at least one move", base, "")
    for index, (move, _) in enumerate(read):
        if move.forced:
            raise _error("takes no `!`", move)
        if move.checks and index < len(read) - 1:
            raise _error("allows a check mark on its last move only", move)
    last = read[-1][0]
    return t.TransposedLine(
        " ".join(token for token, _ in tokens),
        tuple(_fixed(move) for move, _ in read),
        tuple((_CHECK_KINDS[name], negated) for name, negated in last.checks),
        _white_first(read),
    )
