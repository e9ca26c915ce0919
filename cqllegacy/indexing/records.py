"""What the index keeps of one PGN file's games, read once (:func:`record_games`).

Each game is read as a scan reads it (:func:`~cqllegacy.runner.pgn.split_games`,
:func:`~cqllegacy.runner.pgn.read_tags`, python-chess's reader with the fast SAN reader)
into :class:`Columns`: per game its text (so that a candidate is evaluated from exactly
the text the scan would read), its tags, and whether it reads cleanly; per main-line
position of a clean game its placement (one bitboard per coloured piece type), side to
move, castling rights, en passant square, check, mate and stalemate, and the move played
from it (from, to, piece, promotion, captured piece).  Positions inside variations are
not kept: a query that examines variations is narrowed by its tags and game numbers only.

A game that does not read cleanly (unreadable, a problem in its tags, an unterminated
comment) keeps no positions and is a candidate of every query: the scan reports it, or
(for a query decided by the tags) writes it, and the index leaves that to the scan.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable

import attrs
import chess
import chess.pgn

from cqllegacy.runner.pgn import GameText, read_stream, read_tags
from cqllegacy.vocab import san
from cqllegacy.vocab.pieces import content_bit

__all__ = [
    "BOARD_FIELDS",
    "MOVE_FIELDS",
    "PLACEMENT",
    "STATE_FIELDS",
    "Columns",
    "game_text",
    "record_games",
]

#: The placement columns: the six piece types (``pawns`` … ``kings``, any colour) and
#: the squares of each colour; a coloured type is one AND (stored so, the visitor that
#: records them does the least work per position).
PLACEMENT = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "white", "black")
#: Per position, with the placement, in one array: python-chess's castling rights (the
#: squares of the rooks that may castle).
BOARD_FIELDS = (*PLACEMENT, "castling")
#: Per position: flags (:data:`WHITE_TO_MOVE` …) and the en passant square (-1 none).
STATE_FIELDS = ("flags", "ep")
#: Per position, the move played from it (-1 / 0 none: the last position, a null move).
MOVE_FIELDS = ("move_from", "move_to", "move_piece", "move_promotion", "move_capture")

WHITE_TO_MOVE = 1
CHECK = 2
MATE = 4
STALEMATE = 8

_NO_MOVE = (-1, -1, 0, -1, 0)


@attrs.define
class Columns:
    """Games and positions of part of a file (see the module).

    Positions are kept interleaved, ``len(BOARD_FIELDS)`` numbers per position in
    ``boards`` and so on, and split into columns when they are stored.
    """

    # Games.
    game: array[int] = attrs.Factory(lambda: array("q"))
    line: array[int] = attrs.Factory(lambda: array("q"))
    clean: list[bool] = attrs.Factory(list)
    #: Main-line moves of a clean game (its positions are one more), -1 for the others.
    plies: array[int] = attrs.Factory(lambda: array("q"))
    tag_text: list[str] = attrs.Factory(list)
    movetext: list[str] = attrs.Factory(list)
    encoding: list[str] = attrs.Factory(list)
    problems: list[str] = attrs.Factory(list)
    tags: list[str] = attrs.Factory(list)
    # Positions, interleaved.
    boards: array[int] = attrs.Factory(lambda: array("Q"))
    state: array[int] = attrs.Factory(lambda: array("b"))
    moves: array[int] = attrs.Factory(lambda: array("h"))

    @property
    def games(self) -> int:
        return len(self.game)

    @property
    def positions(self) -> int:
        return len(self.state) // len(STATE_FIELDS)


class _PositionRecorder(chess.pgn.BaseVisitor["_PositionRecorder"]):
    """A python-chess visitor that appends the main line's positions to ``columns``
    while the game is read (see :func:`~cqllegacy.runner.pgn.read_stream`)."""

    parse_san = staticmethod(san.parse_san)

    def __init__(self, columns: Columns) -> None:
        self.columns = columns
        self.errors: list[Exception] = []
        self.main_moves = 0
        self.depth = 0
        self.board: chess.Board | None = None

    @property
    def readable(self) -> bool:
        return not self.errors

    def handle_error(self, error: Exception) -> None:
        self.errors.append(error)

    def begin_variation(self) -> None:
        self.depth += 1

    def end_variation(self) -> None:
        self.depth -= 1

    def visit_board(self, board: chess.Board) -> None:
        if self.depth or self.errors:
            return
        self.board = board
        c = self.columns
        black, white = board.occupied_co  # indexed by colour: chess.BLACK is 0
        c.boards.extend(
            (
                board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                board.kings, white, black, board.castling_rights,
            )
        )  # fmt: skip
        check = board.is_check()
        # A position with a legal next move is neither mate nor stalemate; mate is
        # decided here where the king is in check, stalemate at the end of the line and
        # before a null move (visit_move, end_game).
        flags = (WHITE_TO_MOVE if board.turn else 0) | (
            (CHECK | (MATE if board.is_checkmate() else 0)) if check else 0
        )
        ep = board.ep_square
        c.state.extend((flags, -1 if ep is None else ep))

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.depth:
            return
        self.main_moves += 1
        if self.errors:
            return
        c = self.columns
        if not move:
            self._final(board)
            return
        if board.is_en_passant(move):
            captured = content_bit(chess.Piece(chess.PAWN, not board.turn))
        elif board.is_capture(move):
            captured = content_bit(board.piece_at(move.to_square))
        else:
            captured = 0
        c.moves.extend(
            (
                move.from_square,
                move.to_square,
                content_bit(board.piece_at(move.from_square)),
                move.promotion or -1,
                captured,
            )
        )

    def _final(self, board: chess.Board) -> None:
        """The position ``board`` has no move after it (a null move or the end)."""
        c = self.columns
        c.moves.extend(_NO_MOVE)
        if board.is_stalemate():
            c.state[-2] |= STALEMATE

    def end_game(self) -> None:
        if self.board is not None and not self.depth and not self.errors:
            self._final(self.board)

    def result(self) -> _PositionRecorder:
        return self


def record_games(texts: Iterable[GameText], columns: Columns | None = None) -> Columns:
    """Record ``texts`` (the games of one file, in order) into ``columns``."""
    columns = columns if columns is not None else Columns()
    for text in texts:
        _record_game(columns, text)
    return columns


def _record_game(columns: Columns, text: GameText) -> None:
    headers, problems = read_tags(text.tag_lines)
    before = (len(columns.boards), len(columns.state), len(columns.moves))
    recorder = _PositionRecorder(columns)
    clean = not problems and not text.problems and read_stream(text, recorder)
    if clean and len(columns.moves) != len(columns.boards) // len(BOARD_FIELDS) * 5:
        clean = False  # never seen; a game whose positions do not add up is not trusted
    if not clean:
        del columns.boards[before[0] :]
        del columns.state[before[1] :]
        del columns.moves[before[2] :]
    columns.game.append(text.file_ordinal)
    columns.line.append(text.line)
    columns.clean.append(clean)
    columns.plies.append(recorder.main_moves if clean else -1)
    columns.tag_text.append("".join(text.tag_lines))
    columns.movetext.append(text.movetext)
    columns.encoding.append(text.encoding)
    columns.problems.append("\n".join(text.problems))
    columns.tags.append(json.dumps(dict(headers), ensure_ascii=False))


def game_text(row: tuple[int, int, str, str, str, str]) -> GameText:
    """The :class:`GameText` a stored game row ``(game, line, tag_text, movetext,
    encoding, problems)`` came from (equal to the one the scan splits off)."""
    game, line, tag_text, movetext, encoding, problems = row
    return GameText(
        file_ordinal=game,
        line=line,
        tag_lines=tuple(tag_text.splitlines(keepends=True)),
        movetext=movetext,
        encoding=encoding,
        problems=tuple(problems.split("\n")) if problems else (),
    )
