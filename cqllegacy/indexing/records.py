"""What the index keeps of one PGN file's games, read once (:func:`record_games`).

Each game is read as a scan reads it (:func:`~cqllegacy.runner.pgn.split_games`,
:func:`~cqllegacy.runner.pgn.read_tags`, python-chess's reader with the fast SAN reader)
into :class:`Columns`: per game where its text lies in the file (its byte range, see
:mod:`~cqllegacy.indexing.ranges`; for a compressed file, the text itself), so that a
candidate is evaluated from exactly the text the scan would read, its tags, and whether
it reads cleanly; per main-line
position of a clean game its placement (one bitboard per coloured piece type), side to
move, castling rights, en passant square, check, mate and stalemate, and the move played
from it (from, to, piece, promotion, captured piece).  Positions inside variations are
not kept: a query that examines variations is narrowed by its tags and game numbers only.

A game that does not read cleanly (unreadable, a problem in its tags, an unterminated
comment) keeps no positions and is a candidate of every query: the scan reports it, or
(for a query decided by the tags) writes it, and the index leaves that to the scan.
"""

from __future__ import annotations

import contextlib
import functools
import json
from array import array
from collections.abc import Iterable
from typing import Any

import attrs
import chess
import chess.pgn

from cqllegacy.indexing.ranges import LocatedText, resplits_alike
from cqllegacy.records import Record
from cqllegacy.runner.pgn import GameText, pgn_lines, read_stream, read_tags
from cqllegacy.runner.stored import (
    BOARD_FIELDS,
    CHECK,
    MATE,
    MOVE_FIELDS,
    PLACEMENT,
    STALEMATE,
    STATE_FIELDS,
    WHITE_TO_MOVE,
    start_board,
)
from cqllegacy.vocab import san
from cqllegacy.vocab.pieces import BLACK_SHIFT, WHITE_SHIFT, piece_bit

__all__ = [
    "BOARD_FIELDS",
    "CHECK",
    "MATE",
    "MOVE_FIELDS",
    "PLACEMENT",
    "STALEMATE",
    "STATE_FIELDS",
    "WHITE_TO_MOVE",
    "Columns",
    "game_text",
    "position_arrays",
    "record_games",
]

#: What is recorded of a move while reading (the rest of MOVE_FIELDS is derived).
_RECORDED_MOVE = 3
_NO_MOVE = (-1, -1, -1)


@attrs.define(repr=False)
class Columns(Record):
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
    #: Where the game lies in the file (None: its text is kept instead, below).
    byte_start: list[int | None] = attrs.Factory(list)
    byte_length: list[int | None] = attrs.Factory(list)
    digest: list[int | None] = attrs.Factory(list)
    #: The game's text, for a game without a byte range (None for the others).
    tag_text: list[str | None] = attrs.Factory(list)
    movetext: list[str | None] = attrs.Factory(list)
    encoding: list[str | None] = attrs.Factory(list)
    problems: list[str | None] = attrs.Factory(list)
    tags: list[str] = attrs.Factory(list)
    # Positions, interleaved; a move is (from, to, promotion) until position_arrays
    # derives the rest of MOVE_FIELDS.
    boards: array[int] = attrs.Factory(lambda: array("Q"))
    state: array[int] = attrs.Factory(lambda: array("b"))
    moves: array[int] = attrs.Factory(lambda: array("h"))
    #: The positions as stored columns, once made (see :func:`position_arrays`).
    arrays: dict[str, Any] | None = None

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
        c.boards.extend(_board_row(board))
        # Check is found for the whole batch at once (position_arrays).  Mate and
        # stalemate need a position without a legal next move: only the last one of
        # the line or one before a null move (_final) can be such.
        ep = board.ep_square
        c.state.extend((WHITE_TO_MOVE if board.turn else 0, -1 if ep is None else ep))

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.depth:
            return
        self.main_moves += 1
        if self.errors:
            return
        if not move:
            self._final(board)
            return
        # The piece moved and the piece taken are read off the boards afterwards, for
        # the whole batch at once (position_arrays): here only what the move says.
        self.columns.moves.extend((move.from_square, move.to_square, move.promotion or -1))

    def _final(self, board: chess.Board) -> None:
        """The position ``board`` has no move after it (a null move or the end)."""
        c = self.columns
        c.moves.extend(_NO_MOVE)
        if board.is_checkmate():
            c.state[-2] |= MATE
        elif board.is_stalemate():
            c.state[-2] |= STALEMATE

    def end_game(self) -> None:
        if self.board is not None and not self.depth and not self.errors:
            self._final(self.board)

    def result(self) -> _PositionRecorder:
        return self


def record_games(texts: Iterable[GameText], columns: Columns | None = None) -> Columns:
    """Record ``texts`` (the games of one file, in order) into ``columns``: a
    :class:`~cqllegacy.indexing.ranges.LocatedText` by its byte range when its range,
    read from the file and split again, gives exactly that text (checked for every
    game), any other game by its text."""
    columns = columns if columns is not None else Columns()
    with contextlib.ExitStack() as stack:
        files: dict[str, int | None] = {}
        for text in texts:
            _record_game(columns, text)
            if isinstance(text, LocatedText):
                if text.path not in files:
                    files[text.path] = _opened(stack, text.path)
                descriptor = files[text.path]
                if descriptor is not None and resplits_alike(text, descriptor):
                    _keep_range(columns, text)
                    continue
            _keep_text(columns, text)
    return columns


def _opened(stack: contextlib.ExitStack, path: str) -> int | None:
    """The descriptor of ``path`` opened for the batch (None: it cannot be read, and
    the games keep their text)."""
    try:
        return stack.enter_context(open(path, "rb")).fileno()
    except OSError:
        return None


def _keep_range(columns: Columns, text: LocatedText) -> None:
    columns.byte_start.append(text.start)
    columns.byte_length.append(text.length)
    columns.digest.append(text.digest)
    for kept in (columns.tag_text, columns.movetext, columns.encoding, columns.problems):
        kept.append(None)


def _keep_text(columns: Columns, text: GameText) -> None:
    for where in (columns.byte_start, columns.byte_length, columns.digest):
        where.append(None)
    columns.tag_text.append("".join(text.tag_lines))
    columns.movetext.append(text.movetext)
    columns.encoding.append(text.encoding)
    columns.problems.append("\n".join(text.problems))


def _board_row(board: chess.Board) -> tuple[int, ...]:
    """What :meth:`_PositionRecorder.visit_board` records of ``board``'s placement and
    castling rights (BOARD_FIELDS)."""
    black, white = board.occupied_co  # indexed by colour: chess.BLACK is 0
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        white, black, board.castling_rights,
    )  # fmt: skip


def _starts_as_tagged(
    columns: Columns, headers: chess.pgn.Headers, boards_at: int, state_at: int
) -> bool:
    """Whether the game's first recorded position is the board a run makes from its
    stored tags (:func:`~cqllegacy.runner.stored.start_board`): placement, castling
    rights, side to move, en passant square.  Checked once here, so that a run answers
    a clean game from its stored positions without making that board."""
    board = start_board(headers)
    if board is None:
        return False
    recorded = columns.boards[boards_at : boards_at + len(BOARD_FIELDS)]
    turn, ep = columns.state[state_at : state_at + len(STATE_FIELDS)]
    return (
        tuple(recorded) == _board_row(board)
        and bool(turn & WHITE_TO_MOVE) == board.turn
        and (None if ep < 0 else ep) == board.ep_square
    )


def _record_game(columns: Columns, text: GameText) -> None:
    headers, problems = read_tags(text.tag_lines)
    before = (len(columns.boards), len(columns.state), len(columns.moves))
    recorder = _PositionRecorder(columns)
    clean = not problems and not text.problems and read_stream(text, recorder)
    if clean and len(columns.moves) != len(columns.boards) // len(BOARD_FIELDS) * _RECORDED_MOVE:
        clean = False  # never seen; a game whose positions do not add up is not trusted
    if clean and not _starts_as_tagged(columns, headers, before[0], before[1]):
        clean = False  # its tags would start another board: the scan reads its text
    if not clean:
        del columns.boards[before[0] :]
        del columns.state[before[1] :]
        del columns.moves[before[2] :]
    columns.game.append(text.file_ordinal)
    columns.line.append(text.line)
    columns.clean.append(clean)
    columns.plies.append(recorder.main_moves if clean else -1)
    columns.tags.append(json.dumps(dict(headers), ensure_ascii=False))


def position_arrays(columns: Columns) -> dict[str, Any]:
    """The positions of ``columns`` as stored, one numpy array per column (``game``,
    ``ply``, then BOARD_FIELDS, STATE_FIELDS and MOVE_FIELDS), made once and kept in
    ``columns.arrays`` (a worker makes them, so the writing process need not).

    The moved piece and the captured one are read off the position's boards, for every
    position at once: the piece standing on the from-square, and the opponent's piece on
    the to-square or, for an en passant capture (as python-chess decides it: a pawn
    moving diagonally to the en passant square, which is empty), the opponent's pawn.
    """
    if columns.arrays is not None:
        return columns.arrays
    import numpy as np

    plies = np.frombuffer(columns.plies, dtype=np.int64)
    counts = np.where(plies >= 0, plies + 1, 0)
    game = np.repeat(np.frombuffer(columns.game, dtype=np.int64), counts)
    ply = np.arange(len(game), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    boards = np.frombuffer(columns.boards, dtype=np.uint64).reshape(-1, len(BOARD_FIELDS))
    state = np.frombuffer(columns.state, dtype=np.int8).reshape(-1, len(STATE_FIELDS))
    moves = np.frombuffer(columns.moves, dtype=np.int16).reshape(-1, _RECORDED_MOVE)
    start, end, promotion = moves[:, 0], moves[:, 1], moves[:, 2]
    start_bit, end_bit = _square_bits(start), _square_bits(end)
    white, black = boards[:, PLACEMENT.index("white")], boards[:, PLACEMENT.index("black")]
    white_moves = (state[:, 0] & WHITE_TO_MOVE) != 0
    theirs = np.where(white_moves, black, white)
    captured = _contents(boards, end_bit & theirs)
    pawns = boards[:, PLACEMENT.index("pawns")]
    en_passant = (
        (state[:, 1] == end)
        & (end >= 0)
        & ((pawns & start_bit) != 0)
        & np.isin(np.abs(end - start), (7, 9))
        & (((white | black) & end_bit) == 0)
    )
    their_pawn = np.where(
        white_moves,
        piece_bit(chess.BLACK, chess.PAWN),
        piece_bit(chess.WHITE, chess.PAWN),
    )
    captured = np.where(en_passant, their_pawn, captured)
    arrays: dict[str, Any] = {"game": game.astype(np.uint32), "ply": ply.astype(np.uint16)}
    arrays.update({name: boards[:, i] for i, name in enumerate(BOARD_FIELDS)})
    flags = state[:, 0] | np.where(_in_check(boards, white_moves), CHECK, 0).astype(np.int8)
    arrays.update({"flags": flags, "ep": state[:, 1]})
    derived = (start, end, _contents(boards, start_bit), promotion, captured)
    for name, values in zip(MOVE_FIELDS, derived, strict=True):
        arrays[name] = np.asarray(values, dtype=np.int16)
    columns.arrays = arrays
    return arrays


def _in_check(boards: Any, white_moves: Any) -> Any:
    """Whether the side to move is in check, in each position: its king (the highest
    one, as python-chess takes it; none, no check) attacked by an opponent's piece, the
    sliding attacks found by occluded fills (Kogge-Stone) over every position at once."""
    import numpy as np

    field = {name: boards[:, i] for i, name in enumerate(PLACEMENT)}
    white, black = field["white"], field["black"]
    ours = np.where(white_moves, white, black)
    theirs = np.where(white_moves, black, white)
    king = _highest_bit(field["kings"] & ours)
    square = np.clip(_bit_index(king), 0, 63)
    tables = _attack_tables()
    pawn_attacks = np.where(
        white_moves, tables["on_white_king"][square], tables["on_black_king"][square]
    )
    empty = ~(white | black)
    straight = np.zeros_like(king)
    diagonal = np.zeros_like(king)
    for step, wrap in _DIRECTIONS:
        ray = _ray_attacks(king, empty, step, np.uint64(wrap))
        if abs(step) in (1, 8):
            straight |= ray
        else:
            diagonal |= ray
    queens = field["queens"]
    attackers = (
        (tables["knight"][square] & field["knights"])
        | (tables["king"][square] & field["kings"])
        | (pawn_attacks & field["pawns"])
        | (straight & (field["rooks"] | queens))
        | (diagonal & (field["bishops"] | queens))
    )
    return (king != 0) & ((attackers & theirs) != 0)


_NOT_A = 0xFEFEFEFEFEFEFEFE  # squares a step east can reach (no wrap onto the a-file)
_NOT_H = 0x7F7F7F7F7F7F7F7F
_FULL_BOARD = (1 << 64) - 1
#: Ray directions as a shift of square numbers, and the squares a step can land on.
_DIRECTIONS = (
    (8, _FULL_BOARD), (-8, _FULL_BOARD), (1, _NOT_A), (-1, _NOT_H),
    (9, _NOT_A), (7, _NOT_H), (-7, _NOT_A), (-9, _NOT_H),
)  # fmt: skip


def _shifted(bits: Any, step: int) -> Any:
    import numpy as np

    if step > 0:
        return np.left_shift(bits, np.uint64(step))
    return np.right_shift(bits, np.uint64(-step))


def _ray_attacks(origin: Any, empty: Any, step: int, landing: Any) -> Any:
    """The squares attacked from ``origin`` along one direction: the empty ones up to
    and including the first occupied one."""
    reach = empty & landing
    filled = origin
    for doubling in (1, 2, 4):
        filled = filled | (reach & _shifted(filled, step * doubling))
        reach = reach & _shifted(reach, step * doubling)
    return _shifted(filled, step) & landing


def _highest_bit(bits: Any) -> Any:
    return _square_bits(_bit_index(bits))


def _bit_index(bits: Any) -> Any:
    """The index of the highest set bit of each value (-1 for 0), by halving."""
    import numpy as np

    index = np.zeros(len(bits), dtype=np.int64)
    rest = bits.copy()
    for width in (32, 16, 8, 4, 2, 1):
        high = rest >= np.uint64(1 << width)
        rest = np.where(high, np.right_shift(rest, np.uint64(width)), rest)
        index += np.where(high, width, 0)
    return np.where(bits != 0, index, -1)


@functools.cache
def _attack_tables() -> dict[str, Any]:
    """python-chess's attack tables of the leapers and pawns, by square, as arrays."""
    import numpy as np

    def table(values: Iterable[int]) -> Any:
        return np.array(list(values), dtype=np.uint64)

    return {
        "knight": table(chess.BB_KNIGHT_ATTACKS),
        "king": table(chess.BB_KING_ATTACKS),
        # The black pawns that attack a white king stand where a white pawn on the
        # king's square would attack, and the other way round.
        "on_white_king": table(chess.BB_PAWN_ATTACKS[chess.WHITE]),
        "on_black_king": table(chess.BB_PAWN_ATTACKS[chess.BLACK]),
    }


def _square_bits(squares: Any) -> Any:
    """The bitboard of each square (0 for -1, no square)."""
    import numpy as np

    bits = np.left_shift(np.uint64(1), np.clip(squares, 0, 63).astype(np.uint64))
    return np.where(squares >= 0, bits, np.uint64(0))


def _contents(boards: Any, squares: Any) -> Any:
    """The content bit (:func:`~cqllegacy.vocab.pieces.piece_bit`) of the piece on each
    position's square in ``squares`` (one bit or none; 0 where there is no piece)."""
    import numpy as np

    kind = np.full(len(boards), -1, dtype=np.int16)
    for offset in range(6):  # pawns … kings, chess.PAWN - 1 … chess.KING - 1
        kind = np.where((boards[:, offset] & squares) != 0, offset, kind)
    is_black = (boards[:, PLACEMENT.index("black")] & squares) != 0
    shift = kind + np.where(is_black, BLACK_SHIFT, WHITE_SHIFT)
    return np.where(kind >= 0, np.left_shift(1, np.clip(shift, 0, None)), 0)


def game_text(row: tuple[int, int, str, str, str, str]) -> GameText:
    """The :class:`GameText` a stored game row ``(game, line, tag_text, movetext,
    encoding, problems)`` came from (equal to the one the scan splits off)."""
    game, line, tag_text, movetext, encoding, problems = row
    return GameText(
        file_ordinal=game,
        line=line,
        tag_lines=pgn_lines(tag_text),
        movetext=movetext,
        encoding=encoding,
        problems=tuple(problems.split("\n")) if problems else (),
    )
