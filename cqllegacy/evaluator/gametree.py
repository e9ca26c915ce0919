"""One game laid out for evaluation: its positions, boards, continuations and piece identities.

Positions are numbered in depth-first game order with the main continuation before the
variations, so the main line is the prefix ``0 .. mainline_length - 1`` and the
positions after any position ``p`` along every continuation form the contiguous block
``p .. subtree_end[p] - 1``.  Boards are built incrementally, one copy per position.

>>> from cqllegacy.evaluator.testing import game_from_pgn
>>> game = game_from_pgn("1. e4 e5 (1... c5 2. Nf3) 2. Nf3 *")
>>> table = PositionTable.build(game, variations=True)
>>> [table.nodes[p].san() for p in range(1, len(table))]
['e4', 'e5', 'Nf3', 'c5', 'Nf3']
>>> table.mainline_length, table.children[1], table.main_child[1], table.subtree_end[1]
(4, (2, 4), 2, 6)
"""

from __future__ import annotations

import calendar
import datetime
from collections.abc import Mapping

import attrs
import chess
import chess.pgn

from cqllegacy.records import Record
from cqllegacy.vocab.pieces import TypeSet, content_bit
from cqllegacy.vocab.squares import file_of, iter_squares, rank_of, square

__all__ = ["NO_PIECE", "GameInfo", "PositionTable", "piece_moves"]

#: Marks a square without a piece, or a piece identity that has left the board.
NO_PIECE = -1


def _digits(text: str) -> int | None:
    """The number ``text`` writes in ASCII digits (None otherwise: ``str.isdigit`` also
    takes superscripts, which ``int`` refuses)."""
    return int(text) if text.isascii() and text.isdigit() else None


def _year(date: str | None) -> int | None:
    """Digits before the first ``.`` of a PGN date (decision L9); None when there are none."""
    if not date:
        return None
    return _digits(date.split(".", 1)[0].strip())


def _elo(value: str | None) -> int | None:
    if value is None:
        return None
    return _digits(value.strip())


def round_numbers(value: str | None) -> tuple[int, int]:
    """Scidb's round and subround of a ``Round`` tag ``round.subround``: the digits before
    and after the first ``.``; 0 where a part is missing or not all digits (Scidb's "no
    round").

    >>> round_numbers("3.2"), round_numbers("12"), round_numbers("?"), round_numbers("-")
    ((3, 2), (12, 0), (0, 0), (0, 0))
    >>> round_numbers("x.2"), round_numbers(None)
    ((0, 0), (0, 0))
    """
    head, _, tail = (value or "").strip().partition(".")
    main = int(head) if head.isascii() and head.isdigit() else 0
    if main == 0:
        return 0, 0  # a game without a round has no subround (the help)
    return main, int(tail) if tail.isascii() and tail.isdigit() else 0


def eco_code(value: str | None) -> str | None:
    """The ECO code of an ``ECO`` tag: its first three characters when they are a letter
    A to E and two digits (Scidb's extended codes ``C42a`` keep their code), else None.

    >>> eco_code("B12"), eco_code("C42a"), eco_code("?"), eco_code(None)
    ('B12', 'C42', None, None)
    """
    code = (value or "").strip()[:3]
    if len(code) == 3 and code[0] in "ABCDE" and code[1:].isascii() and code[1:].isdigit():
        return code
    return None


def date_days(value: str | None) -> tuple[int, int] | None:
    """The first and last day (proleptic ordinals) a PGN ``Date`` may stand for, or None
    when its year is unknown or it names no day: ``2010.??.??`` is all of 2010.

    >>> import datetime
    >>> first, last = date_days("2010.02.??")
    >>> datetime.date.fromordinal(first), datetime.date.fromordinal(last)
    (datetime.date(2010, 2, 1), datetime.date(2010, 2, 28))
    >>> date_days("????.??.??"), date_days("2010.02.30"), date_days("2010.??.05")
    (None, None, None)
    """
    parts = (value or "").strip().split(".")
    if len(parts) != 3 or not all(part.isascii() for part in parts):
        return None
    year, month, day = (int(part) if part.isdigit() else None for part in parts)
    if year is None or (month is None and day is not None):
        return None
    try:
        if month is None:
            return datetime.date(year, 1, 1).toordinal(), datetime.date(year, 12, 31).toordinal()
        if day is None:
            last = calendar.monthrange(year, month)[1]
            first_day = datetime.date(year, month, 1).toordinal()
            return first_day, datetime.date(year, month, last).toordinal()
        exact = datetime.date(year, month, day).toordinal()
    except ValueError:
        return None
    return exact, exact


@attrs.frozen(repr=False, slots=True)
class GameInfo(Record):
    """What the game filters read from the tags, parsed once per game.

    >>> info = GameInfo.from_headers({"Date": "1972.??.??", "WhiteElo": "?", "BlackElo": "2660"})
    >>> info.year, info.white_elo, info.black_elo
    (1972, None, 2660)
    """

    white: str = ""
    black: str = ""
    event: str = ""
    site: str = ""
    result: str = "*"
    year: int | None = None
    white_elo: int | None = None
    black_elo: int | None = None
    #: Every tag, as read (Scidb's tag keywords read any of them).
    tags: Mapping[str, str] = attrs.field(factory=dict, eq=False, repr=False)

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> GameInfo:
        return cls(
            tags=headers,
            white=headers.get("White", ""),
            black=headers.get("Black", ""),
            event=headers.get("Event", ""),
            site=headers.get("Site", ""),
            result=headers.get("Result", "*").strip(),
            year=_year(headers.get("Date")),
            white_elo=_elo(headers.get("WhiteElo")),
            black_elo=_elo(headers.get("BlackElo")),
        )


def piece_moves(
    board: chess.Board, move: chess.Move | None
) -> tuple[list[tuple[int, int]], int | None]:
    """The pieces ``move`` relocates as (from, to) pairs, and the square of a captured piece.

    Castling relocates king and rook (also in the king-takes-rook encoding); en passant
    captures the pawn beside the destination.

    >>> b = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    >>> piece_moves(b, b.parse_san("O-O"))
    ([(4, 6), (7, 5)], None)
    """
    if not move:
        return [], None
    if board.is_castling(move):
        rank = rank_of(move.from_square)
        kingside = board.is_kingside_castling(move)
        target = board.piece_at(move.to_square)
        if target is not None and target.color == board.turn and target.piece_type == chess.ROOK:
            rook_from = move.to_square
        else:
            rook_from = square(7 if kingside else 0, rank)
        king_to = square(6 if kingside else 2, rank)
        rook_to = square(5 if kingside else 3, rank)
        return [(move.from_square, king_to), (rook_from, rook_to)], None
    if board.is_en_passant(move):
        return [(move.from_square, move.to_square)], square(
            file_of(move.to_square), rank_of(move.from_square)
        )
    captured = move.to_square if board.piece_at(move.to_square) is not None else None
    return [(move.from_square, move.to_square)], captured


def _start_identities(board: chess.Board) -> tuple[int, ...]:
    """``who`` and ``where`` at the start: every piece is named by its square there."""
    return tuple(sq if board.piece_type_at(sq) else NO_PIECE for sq in range(64))


def _plain_move(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` relocates one piece and captures on its destination at most: not
    what python-chess calls castling (a king moving more than one file, or onto a rook of
    the side to move), nor a pawn moving to another file onto an empty square (en
    passant, which python-chess then decides) — cheaper than asking python-chess.

    >>> board = chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    >>> [_plain_move(board, board.parse_san(san)) for san in ("O-O", "exd6", "Kf1", "Rxa8+")]
    [False, False, True, True]
    """
    origin, target = 1 << move.from_square, 1 << move.to_square
    if board.kings & origin:
        shift = abs(file_of(move.from_square) - file_of(move.to_square))
        return shift <= 1 and not board.rooks & board.occupied_co[board.turn] & target
    if board.pawns & origin and not board.occupied & target:
        return file_of(move.from_square) == file_of(move.to_square)
    return True


def _next_identities(
    who: tuple[int, ...], where: tuple[int, ...], board: chess.Board, move: chess.Move | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``who`` and ``where`` (see :class:`PositionTable`) after ``move`` from ``board``."""
    if not move:
        return who, where
    out, located = list(who), list(where)
    if _plain_move(board, move):
        origin, target = move.from_square, move.to_square
        mover, taken = who[origin], who[target]
        if taken != NO_PIECE:
            located[taken] = NO_PIECE
        out[origin], out[target] = NO_PIECE, mover
        if mover != NO_PIECE:
            located[mover] = target
        return tuple(out), tuple(located)
    for identity, landing in _relocate_by_python_chess(out, board, move):
        located[identity] = landing
    return tuple(out), tuple(located)


def _relocate_by_python_chess(
    who: list[int], board: chess.Board, move: chess.Move
) -> list[tuple[int, int]]:
    """``who`` updated in place for a move that is not :func:`_plain_move` (castling, en
    passant: python-chess says which pieces go where); the pieces it moved or took, in
    that order, as ``(identity, square or NO_PIECE)``."""
    changes: list[tuple[int, int]] = []
    relocated, captured = piece_moves(board, move)
    if captured is not None and who[captured] != NO_PIECE:
        changes.append((who[captured], NO_PIECE))
        who[captured] = NO_PIECE
    moving = [(who[origin], target) for origin, target in relocated]
    for origin, _ in relocated:
        who[origin] = NO_PIECE
    for identity, target in moving:
        who[target] = identity
        if identity != NO_PIECE:
            changes.append((identity, target))
    return changes


@attrs.frozen(repr=False, slots=True)
class _Followed(Record):
    """The pieces of one main line followed move by move: the piece on each square at the
    start (``NO_PIECE`` on an empty one), per piece the positions where it arrives on a
    square or leaves the board (``(p, square or NO_PIECE)``, in order), the promotions
    ``(p, identity)``, and per position the piece the move that reached it moved from
    its square (``movers[p]``; ``NO_PIECE`` at the start and after a null move)."""

    start: tuple[int, ...]
    relocations: dict[int, list[tuple[int, int]]]
    promotions: list[tuple[int, int]]
    movers: list[int]

    def track(self, identity: int, positions: int) -> list[int]:
        """The square of ``identity`` at each of the ``positions`` positions."""
        out: list[int] = []
        square, since = self.start[identity], 0
        for p, target in self.relocations.get(identity, ()):
            out += [square] * (p - since)
            square, since = target, p
        out += [square] * (positions - since)
        return out


def _follow_main_line(boards: list[chess.Board], moves: list[chess.Move]) -> _Followed:
    """Follow every piece along a main line (``moves[i]`` leads from ``boards[i]``),
    keeping only the moves of each: one list update per move, no row of 64 squares per
    position (``PositionTable._build_rows`` makes those when asked; tests compare)."""
    occupied = boards[0].occupied
    who = [sq if occupied >> sq & 1 else NO_PIECE for sq in range(64)]
    start = tuple(who)
    relocations: dict[int, list[tuple[int, int]]] = {sq: [] for sq in range(64) if who[sq] >= 0}
    promotions: list[tuple[int, int]] = []
    movers = [NO_PIECE]
    p = 0
    for board, move in zip(boards[:-1], moves, strict=True):
        p += 1
        if not move:
            movers.append(NO_PIECE)
            continue
        origin, target = move.from_square, move.to_square
        movers.append(who[origin])
        # _plain_move, written out (it runs for every move of every game).
        if board.kings >> origin & 1:
            plain = -1 <= (origin & 7) - (target & 7) <= 1 and not (
                (board.rooks & board.occupied_co[board.turn]) >> target & 1
            )
        elif board.pawns >> origin & 1 and not board.occupied >> target & 1:
            plain = origin & 7 == target & 7
        else:
            plain = True
        if plain:
            mover, taken = who[origin], who[target]
            if taken != NO_PIECE:
                relocations[taken].append((p, NO_PIECE))
            who[origin], who[target] = NO_PIECE, mover
            if mover != NO_PIECE:
                relocations[mover].append((p, target))
                if move.promotion is not None:
                    promotions.append((p, mover))
            continue
        for identity, landing in _relocate_by_python_chess(who, board, move):
            relocations[identity].append((p, landing))
    return _Followed(start, relocations, promotions, movers)


@attrs.define(repr=False, slots=True, eq=False)
class PositionTable(Record):
    """The examined positions of one game, indexed 0 .. n-1 (0 is the start position).

    ``children[p]`` lists every continuation (main first), ``main_child[p]`` the main one
    (-1 at the end of a line), ``moves[p]`` the move that reached ``p`` (None for 0).
    With identities, ``who[p][sq]`` is the identity of the piece on ``sq`` (its square
    in the start position) and ``where[p][identity]`` its square, both ``NO_PIECE`` where
    there is none.  ``nodes`` is empty for a table built from a main line alone
    (:meth:`from_main_line`): such a table knows positions, not game nodes.
    """

    nodes: list[chess.pgn.GameNode]
    boards: list[chess.Board]
    parent: list[int]
    children: list[tuple[int, ...]]
    main_child: list[int]
    ply: list[int]
    subtree_end: list[int]
    mainline_length: int
    moves: list[chess.Move | None] = attrs.field(factory=list)
    _who: list[tuple[int, ...]] | None = None
    _where: list[tuple[int, ...]] | None = None
    _followed: _Followed | None = None
    _to_follow: bool = False
    _tracks: dict[int, list[int]] = attrs.field(factory=dict)
    _movers: list[int] | None = None
    _index: dict[int, int] = attrs.field(factory=dict)

    def __len__(self) -> int:
        return len(self.boards)

    @classmethod
    def build(
        cls, game: chess.pgn.Game, *, variations: bool = False, identities: bool = False
    ) -> PositionTable:
        """Walk ``game`` (with its variations when ``variations``), one board per position."""
        table = cls([], [], [], [], [], [], [], 0)
        if identities:
            table._who, table._where = [], []
        root_board = game.board()
        # Explicit stack: variations may nest deeper than Python's recursion limit.
        stack: list[tuple[chess.pgn.GameNode, int, chess.Board]] = [(game, -1, root_board)]
        while stack:
            node, parent, board = stack.pop()
            index = table._add(node, parent, board, node.move if parent >= 0 else None)
            continuations = node.variations if variations else node.variations[:1]
            for child in reversed(continuations):
                child_board = board.copy(stack=False)
                child_board.push(child.move)
                stack.append((child, index, child_board))
        table._finish()
        return table

    @classmethod
    def from_main_line(
        cls, boards: list[chess.Board], moves: list[chess.Move], *, identities: bool = False
    ) -> PositionTable:
        """The table of one line: ``boards[0]`` the start, ``moves[i]`` leads from
        ``boards[i]`` to ``boards[i + 1]``; no game nodes.

        >>> board = chess.Board()
        >>> after = board.copy(stack=False)
        >>> after.push_san("e4")
        Move.from_uci('e2e4')
        >>> table = PositionTable.from_main_line([board, after], [after.peek()])
        >>> len(table), table.children, table.mainline_length, table.moves
        (2, [(1,), ()], 2, [None, Move.from_uci('e2e4')])
        """
        # Every list but the pieces' identities follows from the length alone.
        n = len(boards)
        following: list[tuple[int, ...]] = [(p + 1,) for p in range(n - 1)]
        following.append(())
        table = cls(
            nodes=[],
            boards=list(boards),
            parent=list(range(-1, n - 1)),
            children=following,
            main_child=[*range(1, n), -1],
            ply=list(range(n)),
            subtree_end=[n] * n,
            mainline_length=n,
            moves=[None, *moves],
        )
        # The pieces are followed when first asked (a game may fail before that).
        table._to_follow = identities
        return table

    def _add(
        self,
        node: chess.pgn.GameNode | None,
        parent: int,
        board: chess.Board,
        move: chess.Move | None,
    ) -> int:
        index = len(self.boards)
        if node is not None:
            self.nodes.append(node)
            self._index[id(node)] = index
        self.boards.append(board)
        self.moves.append(move)
        self.parent.append(parent)
        self.children.append(())
        self.main_child.append(-1)
        self.ply.append(0 if parent < 0 else self.ply[parent] + 1)
        if parent >= 0:
            siblings = self.children[parent]
            if not siblings:
                self.main_child[parent] = index
            self.children[parent] = (*siblings, index)
        if self._who is not None and self._where is not None:
            if parent < 0:
                who = where = _start_identities(board)
            else:
                who, where = _next_identities(
                    self._who[parent], self._where[parent], self.boards[parent], move
                )
            self._who.append(who)
            self._where.append(where)
        return index

    def _finish(self) -> None:
        n = len(self.boards)
        self.subtree_end = list(range(1, n + 1))
        for p in range(n - 1, 0, -1):
            up = self.parent[p]
            self.subtree_end[up] = max(self.subtree_end[up], self.subtree_end[p])
        length = 1
        p = 0
        while self.main_child[p] >= 0:
            p = self.main_child[p]
            length += 1
        self.mainline_length = length

    def index_of(self, node: chess.pgn.GameNode) -> int:
        """The index of a node of this game; ``KeyError`` for a node the table left out."""
        return self._index[id(node)]

    def main_continuations(self) -> list[tuple[int, ...]]:
        """``children`` restricted to the main continuation (the main-line scope)."""
        return [(c,) if c >= 0 else () for c in self.main_child]

    def identity_types(self) -> dict[int, TypeSet]:
        """For every piece identity, the piece types it has in some position of the table.

        A piece changes its type only by promoting: its types are its type at the start
        and what it promotes to in the table's moves (not every board read square by
        square; tests compare the two).
        """
        start = self.boards[0]
        seen = {sq: content_bit(start.piece_at(sq)) for sq in iter_squares(start.occupied)}
        for p, identity in self._promotions():
            move = self.moves[p]
            assert move is not None
            seen[identity] |= content_bit(self.boards[p].piece_at(move.to_square))
        return seen

    def _promotions(self) -> list[tuple[int, int]]:
        """(p, identity): the piece ``identity`` promoted by the move that reached ``p``."""
        followed = self._following()
        if followed is not None:
            return followed.promotions
        if self._who is None:
            raise ValueError("the table was built without piece identities")
        who = self._who
        out = []
        for p, move in enumerate(self.moves):
            if move is not None and move.promotion is not None:
                identity = who[p][move.to_square]
                if identity != NO_PIECE:
                    out.append((p, identity))
        return out

    def _following(self) -> _Followed | None:
        """The pieces of a main-line table followed along it (None for a game tree's
        table, or one built without identities)."""
        if self._to_follow:
            self._to_follow = False
            moves = [move for move in self.moves[1:] if move is not None]
            self._followed = _follow_main_line(self.boards, moves)
        return self._followed

    @property
    def follows_pieces(self) -> bool:
        """Whether the table was built with piece identities."""
        return self._to_follow or self._followed is not None or self._who is not None

    @property
    def who(self) -> list[tuple[int, ...]] | None:
        """``who[p][sq]``: the identity of the piece on ``sq`` at ``p`` (see the class)."""
        if self._who is None and self._following() is not None:
            self._build_rows()
        return self._who

    @property
    def where(self) -> list[tuple[int, ...]] | None:
        """``where[p][identity]``: the square of the piece ``identity`` at ``p``."""
        if self._where is None and self._following() is not None:
            self._build_rows()
        return self._where

    def _build_rows(self) -> None:
        """``who`` and ``where`` of a main-line table, position by position (built only
        when some filter asks for them: the tracks of the bound pieces serve most)."""
        who = where = _start_identities(self.boards[0])
        rows_who, rows_where = [who], [where]
        for p in range(1, len(self.boards)):
            who, where = _next_identities(who, where, self.boards[p - 1], self.moves[p])
            rows_who.append(who)
            rows_where.append(where)
        self._who, self._where = rows_who, rows_where

    def movers(self) -> list[int]:
        """``movers()[r]``: the piece the move that reached ``r`` moves from its square
        (``who[parent[r]][moves[r].from_square]``; ``NO_PIECE`` for the start and a null
        move), read from the followed main line's moves where there is one, without
        building ``who``'s rows."""
        if self._movers is None:
            followed = self._following()
            if followed is not None:
                self._movers = followed.movers
            else:
                who = self.who
                if who is None:
                    raise ValueError("the table was built without piece identities")
                self._movers = [
                    NO_PIECE if not move else who[self.parent[r]][move.from_square]
                    for r, move in enumerate(self.moves)
                ]
        return self._movers

    def track(self, identity: int) -> list[int]:
        """The square of the piece ``identity`` at every position (``NO_PIECE`` where it
        is not on the board): ``track(i)[p] == where[p][i]``, found once per piece from
        the moves that relocate it, without building ``where``'s rows."""
        found = self._tracks.get(identity)
        if found is None:
            followed = self._following()
            if followed is not None:
                found = followed.track(identity, len(self.boards))
            elif self._where is not None:
                found = [row[identity] for row in self._where]
            else:
                raise ValueError("the table was built without piece identities")
            self._tracks[identity] = found
        return found

    def is_mainline(self, p: int) -> bool:
        return p < self.mainline_length
