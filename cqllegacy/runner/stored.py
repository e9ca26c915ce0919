"""Games evaluated from the boards and moves an index stores, without reading their text
(:func:`evaluate_stored`; the index is a source of them, :class:`StoredSource`).

A query whose streams read nothing of a game but its main line's boards and moves
(``main_line_stream`` of the compiled query: see
:func:`~cqllegacy.evaluator.stream.main_line_only`) is fed, for each clean game, the
calls python-chess's reader would make — ``visit_board`` with the start board, then per
position ``visit_move(board, move)`` and ``visit_board(board)`` after the move, then
``end_game`` — on one :class:`chess.Board` set from the stored row of each position
instead of replaying the SAN.  The board is the reader's in every respect the evaluator
reads, and in every other one a test compares: the placement, side to move, castling
rights (python-chess's raw ones, as stored), en passant square, the move stack (the
moves played so far), the promoted pieces, the move counters and the chess960 flag,
from a start board made from the tags exactly as the reader makes it.  Only its undo
records differ (none are kept: ``chess.Board.pop`` would fail on it, and nothing pops a
stream's board).  (Setting the
board from the stored bitboards costs about a third of pushing the stored moves
(``chess.Board.push``), measured side by side: 0.9 against 3.1 µs a position.)

Games that do not read cleanly, games of a variant other than chess (python-chess's
other board classes), and a game whose stored start does not agree with its tags (never
seen; a guard) are evaluated from their text by :meth:`GameScan.game`, as a scan does,
so their messages are the scan's; the text of a game the stored positions show to match
is fetched from the index only then, for the output.

The board is a :class:`StoredBoard`: a :class:`chess.Board` that answers ``is_check``,
``is_checkmate`` and ``is_stalemate`` of a stored position from the flags the index
stored for it (python-chess's answers: see :class:`StoredBoard`), which spares the
evaluator python-chess's attack and move generation where a query asks them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs
import chess
import chess.pgn

from cqllegacy.records import Record
from cqllegacy.runner.pgn import GameText
from cqllegacy.runner.results import FoundGameKey, ScanOptions, StopScan
from cqllegacy.vocab.flags import CHECK, MATE, STALEMATE, WHITE_TO_MOVE

if TYPE_CHECKING:
    # Names for annotations only: the index's builder reads the stored rows' fields
    # from here without loading the evaluator.
    from numpy.typing import NDArray

    from cqllegacy.core.tree import TagDeclaration
    from cqllegacy.evaluator.arrays import Bools, ListArrays, Positions
    from cqllegacy.evaluator.stream import Verdict
    from cqllegacy.runner.compiled import CompiledQueryLike
    from cqllegacy.runner.game_scan import GameScan

_V = TypeVar("_V")

__all__ = [
    "BATCH_POSITIONS", "BOARD_FIELDS", "CHECK", "MAIN_LINE_COLUMNS", "MATE", "MOVE_FIELDS",
    "PLACEMENT", "STALEMATE", "STATE_FIELDS", "WHITE_TO_MOVE", "MainLines", "StoredBoard",
    "StoredSource", "StoredUnit", "TextSource", "batches", "evaluate_stored", "feed", "feeds",
    "main_lines", "prepared", "start_board",
]  # fmt: skip

# The stored rows' fields (the index writes them, :mod:`cqllegacy.indexing.records`).
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

#: The stored columns of a position that a run reads (besides its game and ply).
MAIN_LINE_COLUMNS = (*BOARD_FIELDS, "flags", "ep", "move_from", "move_to", "move_promotion")


#: Main-line positions asked of the index at a time (held at once; a longer game alone):
#: as many as 512 games of 64 moves.  Short games come many to a batch: each batch costs
#: a few questions and the array forms' calls whatever its size (the 6,605 puzzles, about
#: 8 positions a game, took 13 batches of 512 games; now one).
BATCH_POSITIONS = 65_536

#: Games whose facts (clean or not) are asked of the index at a time.
FACTS_BATCH = 8192


class StoredBoard(chess.Board):
    """The board :func:`feed` sets to each stored position: a :class:`chess.Board`
    whose ``is_check``, ``is_checkmate`` and ``is_stalemate`` read the flags stored for
    the position it was set to, while it is that position.

    The flags are python-chess's answers: check is found at build time by bitboard
    arithmetic over the placement and the side to move, which alone decide it (tested
    against ``is_check`` on every position of the test games); mate and stalemate by
    python-chess itself at the last position of a main line and before a null move,
    and every other position has a next move that python-chess found legal.  Any change
    to the board (a move pushed, a piece set) makes a new ``occupied`` value or turns
    the side to move, and the board then asks python-chess; so does a copy (whose flags
    are not set).  A flag read costs about 0.2–0.5 µs, ``is_check`` 1.1–2.2 µs and
    ``is_stalemate`` (legal move generation) 7–8 µs (measured side by side, timeit)."""

    #: The ``occupied`` value (the very object) and the flags of the stored position
    #: the board was last set to (see :func:`feed`).
    stored_occupied: object = None
    stored_flags: int = 0

    def _stored(self) -> int | None:
        """The stored flags, while the board is the position they are of."""
        flags = self.stored_flags
        if self.occupied is self.stored_occupied and self.turn == bool(flags & WHITE_TO_MOVE):
            return flags
        return None

    def is_check(self) -> bool:
        flags = self._stored()
        return super().is_check() if flags is None else bool(flags & CHECK)

    def is_checkmate(self) -> bool:
        flags = self._stored()
        return super().is_checkmate() if flags is None else bool(flags & MATE)

    def is_stalemate(self) -> bool:
        flags = self._stored()
        return super().is_stalemate() if flags is None else bool(flags & STALEMATE)


def feeds(compiled: CompiledQueryLike, options: ScanOptions) -> bool:
    """Whether the games of a run of ``compiled`` with ``options`` can be evaluated from
    stored positions: its streams read only the main line's boards and moves, and the
    run does not examine variations (which the index does not keep)."""
    return compiled.main_line_stream and not options.variations


@attrs.frozen(repr=False)
class MainLines(Record):
    """The stored main lines of some games, ready to feed: per game the range of its
    rows (ordered by game and ply), and per row, one numpy array per column (a game's
    rows are made Python values only when it is fed: memory stays small), the board's
    fields
    (``pawns`` … ``kings``, ``white``, ``black``, ``occupied``, ``castling``, ``turn``,
    ``ep_square``), the move played from it (``move``: a :class:`chess.Move`, the null
    move where none was), whether that move zeroes the half-move clock or promotes, and
    the squares it leaves and reaches (``touched``; 0 for a null move).

    The row columns are made from the stored ones when a game is first fed: a batch the
    array forms decide whole never makes them.
    """

    rows: dict[int, tuple[int, int]]
    #: The columns as the index gave them (what the array forms read).
    stored: Mapping[str, Any] | None = None
    _made: dict[str, Any] = attrs.field(factory=dict, init=False, repr=False, eq=False)

    @property
    def columns(self) -> dict[str, Any]:
        """The row columns, made once."""
        if not self._made and self.stored is not None:
            self._made.update(_row_columns(self.stored))
        return self._made

    def of(self, game: int) -> dict[str, list[Any]]:
        """The rows of ``game``, as Python values, column by column."""
        start, end = self.rows[game]
        return {name: values[start:end].tolist() for name, values in self.columns.items()}


_MAIN_LINE_COLUMNS = (
    *BOARD_FIELDS[:6], "white", "black", "occupied", "castling", "turn", "ep_square",
    "flags", "move", "zeroing", "promotes", "touched",
)  # fmt: skip


class StoredSource(Protocol):
    """What an index gives of the games of its file: per game its number, whether it
    reads cleanly and its tags (JSON); the stored main lines of clean games, one array
    per column; the games' texts."""

    def game_facts(
        self, numbers: Sequence[int], tags: bool = True
    ) -> list[tuple[int, bool, str | None]]: ...

    def main_line_sizes(self, numbers: Sequence[int]) -> list[int]: ...

    def main_lines(
        self, numbers: Sequence[int], names: Sequence[str] | None = None
    ) -> dict[str, Any]: ...

    def texts(self, numbers: Sequence[int]) -> Iterator[GameText]: ...


def main_lines(
    source: StoredSource, numbers: Sequence[int], asked: set[str] | None = None
) -> MainLines:
    """The stored main lines of the clean games among ``numbers`` (ascending).  With
    ``asked`` (the columns earlier batches were asked for, added to as this one is),
    those columns are read at once and any other when first asked for."""
    if not numbers:
        return prepared(None)
    if asked is None or not asked:
        found = source.main_lines(numbers)
        return prepared(found if asked is None else _StoredColumns(source, numbers, found, asked))
    names = [name for name in MAIN_LINE_COLUMNS if name in asked]
    return prepared(_StoredColumns(source, numbers, source.main_lines(numbers, names), asked))


class _StoredColumns(Mapping[str, Any]):
    """A batch's stored columns: those read with the batch, and any other read when
    first asked for (in the same order: by game and ply).  Each name asked for is added
    to ``asked``, so that the next batch reads what the query reads, and no more."""

    def __init__(
        self, source: StoredSource, numbers: Sequence[int], found: dict[str, Any], asked: set[str]
    ) -> None:
        self._source, self._numbers, self._found, self._asked = source, numbers, found, asked

    def __getitem__(self, name: str) -> Any:
        if name not in self._found and name in MAIN_LINE_COLUMNS:
            self._found.update(self._source.main_lines(self._numbers, [name]))
        found = self._found[name]
        self._asked.add(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(("game", "ply", *MAIN_LINE_COLUMNS))

    def __len__(self) -> int:
        return 2 + len(MAIN_LINE_COLUMNS)


def prepared(a: Mapping[str, Any] | None) -> MainLines:
    """The main lines of :meth:`StoredSource.main_lines`'s arrays ``a`` (None: no game)."""
    import numpy as np

    if a is None or not len(a["game"]):
        return MainLines({})
    games = a["game"]
    starts = np.flatnonzero(np.diff(games.astype(np.int64), prepend=-1) != 0)
    ends = np.append(starts[1:], len(games))
    rows = dict(
        zip(games[starts].tolist(), zip(starts.tolist(), ends.tolist(), strict=True), strict=True)
    )
    return MainLines(rows, a)


def _row_columns(a: Mapping[str, Any]) -> dict[str, Any]:
    """The columns :meth:`MainLines.of` reads, made from the stored ones ``a``."""
    import numpy as np

    columns: dict[str, Any] = {name: a[name] for name in BOARD_FIELDS}
    columns["flags"] = a["flags"]
    white, black = a["white"], a["black"]
    columns["occupied"] = white | black
    white_moves = (a["flags"] & WHITE_TO_MOVE) != 0
    columns["turn"] = white_moves
    ep = a["ep"].astype(np.int64)
    columns["ep_square"] = np.where(ep >= 0, ep, None)  # an object array: None, no square
    start, end = a["move_from"].astype(np.int64), a["move_to"].astype(np.int64)
    promotion = a["move_promotion"].astype(np.int64)
    columns["move"] = _moves(start, end, promotion)
    # chess.Board.is_zeroing: the move touches a pawn or an opponent's piece.
    one = np.uint64(1)
    touched = np.left_shift(one, np.clip(start, 0, 63).astype(np.uint64)) | np.left_shift(
        one, np.clip(end, 0, 63).astype(np.uint64)
    )
    theirs = np.where(white_moves, black, white)
    moved = start >= 0
    zeroing = moved & ((touched & (a["pawns"] | theirs)) != 0)
    columns["zeroing"] = zeroing
    columns["promotes"] = promotion > 0
    columns["touched"] = np.where(moved, touched, np.uint64(0))
    return columns


#: One move object per (from, to, promotion), shared: moves are values.
_MOVES: dict[int, chess.Move] = {}
_NULL = chess.Move.null()


def _moves(start: Any, end: Any, promotion: Any) -> Any:
    """The move of each row (the null move where none is stored), an object array."""
    import numpy as np

    keys = np.where(start >= 0, start | end << 6 | (promotion + 1) << 12, -1)
    found: Any = np.unique(keys, return_inverse=True)
    unique, inverse = found
    objects = np.empty(len(unique), dtype=object)
    objects[:] = [_move(int(key)) for key in unique.tolist()]
    return objects[inverse.reshape(-1)]


def _move(key: int) -> chess.Move:
    if key < 0:
        return _NULL
    move = _MOVES.get(key)
    if move is None:
        promotion = (key >> 12) - 1
        move = chess.Move(key & 63, key >> 6 & 63, promotion if promotion > 0 else None)
        _MOVES[key] = move
    return move


def start_board(headers: Mapping[str, str]) -> StoredBoard | None:
    """The board python-chess's reader starts a game with these tags on, made as it
    makes it (its ``FEN``, ``Variant`` and chess960 castling rights), as a
    :class:`StoredBoard`; None for a board of a variant (another class than
    :class:`chess.Board`) or tags it cannot read."""
    if "FEN" not in headers and "Variant" not in headers:
        return StoredBoard()
    tags = chess.pgn.Headers(headers)
    try:
        kind = tags.variant()
        board = kind(tags.get("FEN", kind.starting_fen), chess960=tags.is_chess960())
    except ValueError:
        return None
    if type(board) is not chess.Board:
        return None
    board.chess960 = board.chess960 or board.has_chess960_castling_rights()
    # The same board, made a StoredBoard (which adds no field of its own).
    board.__class__ = StoredBoard
    assert isinstance(board, StoredBoard)
    return board


def _agrees(board: chess.Board, c: Mapping[str, Any], row: int) -> bool:
    """Whether ``board`` is the stored position ``row`` of the rows ``c`` (placement,
    side to move, castling rights, en passant square): rows as Python values
    (:meth:`MainLines.of`) or as the numpy columns of a batch."""
    return (
        (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
        == tuple(int(c[name][row]) for name in BOARD_FIELDS[:6])
        and board.occupied_co[chess.WHITE] == int(c["white"][row])
        and board.occupied_co[chess.BLACK] == int(c["black"][row])
        and board.castling_rights == int(c["castling"][row])
        and board.turn == bool(c["turn"][row])
        and board.ep_square == c["ep_square"][row]
    )


def feed(
    stream: chess.pgn.BaseVisitor[Any], board: StoredBoard, c: Mapping[str, list[Any]]
) -> None:
    """Make on ``stream`` the calls python-chess's reader makes reading a main line
    whose rows are ``c`` (:meth:`MainLines.of`; see the module), on ``board`` (its
    start board, set to each stored position in turn, with its stored flags)."""
    pawns, knights, bishops, rooks = c["pawns"], c["knights"], c["bishops"], c["rooks"]
    queens, kings, whites, blacks = c["queens"], c["kings"], c["white"], c["black"]
    occupied, castling, turns, eps = c["occupied"], c["castling"], c["turn"], c["ep_square"]
    flags = c["flags"]
    moves, zeroing, promotes, touched = c["move"], c["zeroing"], c["promotes"], c["touched"]
    occupied_co, played = board.occupied_co, board.move_stack.append
    promoted, fullmove, halfmove = board.promoted, board.fullmove_number, board.halfmove_clock
    visit_board, visit_move = stream.visit_board, stream.visit_move
    last = len(turns) - 1
    for i in range(last + 1):
        board.pawns, board.knights, board.bishops = pawns[i], knights[i], bishops[i]
        board.rooks, board.queens, board.kings = rooks[i], queens[i], kings[i]
        occupied_co[chess.WHITE] = whites[i]
        occupied_co[chess.BLACK] = blacks[i]
        board.occupied = board.stored_occupied = occupied[i]
        board.stored_flags = flags[i]
        board.castling_rights = castling[i]
        turn = board.turn = turns[i]
        board.ep_square = eps[i]
        board.promoted, board.fullmove_number, board.halfmove_clock = promoted, fullmove, halfmove
        visit_board(board)
        if i == last:
            break
        move = moves[i]
        visit_move(board, move)
        played(move)
        # The counters and the promoted pieces as chess.Board.push leaves them.
        halfmove = 0 if zeroing[i] else halfmove + 1
        if not turn:
            fullmove += 1
        if promoted & touched[i] or promotes[i]:
            promoted = _promoted_after(promoted, move, promotes[i])
    stream.end_game()


def _promoted_after(promoted: int, move: chess.Move, promotes: bool) -> int:
    """The promoted pieces after ``move`` (chess.Board.push): the moved piece carries
    its mark, a promotion makes one, and the piece taken loses its own.  (Castling and
    en passant touch other squares too, but never a promoted piece: a rook that may
    castle has not moved, and a pawn is never promoted.)"""
    start, end = 1 << move.from_square, 1 << move.to_square
    carried = promotes or promoted & start
    promoted &= ~(start | end)
    return promoted | end if carried else promoted


#: What the stored positions say of a game: nothing to write, or read its text, or
#: (a :class:`_Match`) that it matches.
_NOTHING = "nothing"
_TEXT = "text"


@attrs.frozen(repr=False)
class _Match(Record):
    headers: Mapping[str, str]
    verdict: Verdict
    main_moves: int


_Outcome = str | _Match


def evaluate_stored(
    state: GameScan, name: str, source: StoredSource, games_before: int, numbers: Sequence[int]
) -> None:
    """Evaluate the games ``numbers`` (ascending) of the indexed file called ``name``,
    whose games are numbered ``games_before + 1`` on in the input, as
    :meth:`GameScan.game` would, each clean one from its stored positions."""
    asked: set[str] = set()
    for start in range(0, len(numbers), FACTS_BATCH):
        # Each question costs some milliseconds: the facts of many batches in one.
        part = numbers[start : start + FACTS_BATCH]
        every = source.game_facts(part, tags=False)
        for first, end in batches(source.main_line_sizes(part), BATCH_POSITIONS):
            facts = every[first:end]
            lines = main_lines(source, [game for game, clean, _ in facts if clean], asked)
            outcomes = _outcomes(state, facts, lines, games_before, source.game_facts)
            _hand_over(state, name, games_before, outcomes, _wanted_texts(source, outcomes))


def batches(sizes: Sequence[int], most: int) -> Iterator[tuple[int, int]]:
    """Cuts of ``sizes`` (first, end) that hold at most ``most`` in all, or one item
    that alone holds more.

    >>> list(batches([3, 3, 5, 1, 9, 2], 6))
    [(0, 2), (2, 4), (4, 5), (5, 6)]
    """
    first, held = 0, 0
    for at, size in enumerate(sizes):
        if at > first and held + size > most:
            yield first, at
            first, held = at, 0
        held += size
    if first < len(sizes):
        yield first, len(sizes)


class TextSource(Protocol):
    """Where the texts of some games of a file are read from: an index, or what it
    keeps of some games' texts (a worker's share)."""

    def texts(self, numbers: Sequence[int]) -> Iterator[GameText]: ...


def _wanted_texts(
    source: TextSource, outcomes: Sequence[tuple[int, _Outcome]]
) -> dict[int, GameText]:
    """The texts of the games whose ``outcomes`` need them (to be written, or read from
    their text), and of no other."""
    wanted = [game for game, outcome in outcomes if outcome != _NOTHING]
    return {text.file_ordinal: text for text in source.texts(wanted)}


@attrs.frozen(repr=False)
class StoredUnit(Record):
    """Candidate games of an indexed file as a worker of a parallel run gets them: their
    facts (number, clean, tags), the stored positions of the clean ones (numpy arrays, as
    :meth:`StoredSource.main_lines` gives them) and where their texts are (a worker has
    no index: the byte ranges the index keeps, read by the worker for the games that
    need them, as :func:`evaluate_stored` reads them).  ``evaluate`` is what
    :func:`~cqllegacy.runner.parallel.scan_candidates` calls in the worker."""

    facts: tuple[tuple[int, bool, str | None], ...]
    arrays: Mapping[str, Any] | None
    texts: TextSource

    def evaluate(self, state: GameScan, name: str, games_before: int) -> None:
        outcomes = _outcomes(state, self.facts, prepared(self.arrays), games_before)
        _hand_over(state, name, games_before, outcomes, _wanted_texts(self.texts, outcomes))


def _outcomes(
    state: GameScan,
    facts: Sequence[tuple[int, bool, str | None]],
    lines: MainLines,
    games_before: int,
    fetch: Callable[[Sequence[int]], Sequence[tuple[int, bool, str | None]]] | None = None,
) -> list[tuple[int, _Outcome]]:
    """Each game's outcome; the clean games' tags are those of ``facts``, or (``fetch``
    given) read with it only for the games the arrays do not rule out."""
    clean = [game for game, ok, _ in facts if ok]
    known = None if fetch is not None else {game: tags for game, ok, tags in facts if ok}
    tags_of = _BatchTags(clean, known, fetch)
    judge, rejected = _judge(state, lines, games_before, tags_of)
    tags_of.want([game for game in clean if game not in rejected])
    return [(game, judge(game) if clean else _TEXT) for game, clean, _ in facts]


class _BatchTags(Mapping[int, str | None]):
    """The stored tags (JSON) of a batch's clean games, read when first wanted: most
    games of a batch the arrays rule out are never asked for theirs."""

    def __init__(
        self,
        games: Sequence[int],
        known: Mapping[int, str | None] | None,
        fetch: Callable[[Sequence[int]], Sequence[tuple[int, bool, str | None]]] | None,
    ) -> None:
        self._games = games
        self._found: dict[int, str | None] = dict(known or {})
        self._fetch = fetch

    def want(self, games: Sequence[int]) -> None:
        """Read the tags of ``games`` (ascending) now, in one question."""
        missing = [game for game in games if game not in self._found]
        if missing and self._fetch is not None:
            self._found.update((game, tags) for game, _clean, tags in self._fetch(missing))

    def __getitem__(self, game: int) -> str | None:
        if game not in self._found:
            self.want(self._games)  # an array form reads every game's
        return self._found[game]

    def __iter__(self) -> Iterator[int]:
        return iter(self._games)

    def __len__(self) -> int:
        return len(self._games)


def _hand_over(
    state: GameScan,
    name: str,
    games_before: int,
    outcomes: Sequence[tuple[int, _Outcome]],
    texts: Mapping[int, GameText],
) -> None:
    """Go through the games in order as :meth:`GameScan.game` does (the last game the
    query admits, the count, the progress): a match to the sinks, a game to be read
    from its text to ``GameScan.game``."""
    summary = state.summary
    for game, outcome in outcomes:
        summary.games = games_before + game - 1
        if outcome == _TEXT:
            state.game(texts[game], name)
        else:
            if state.last_game is not None and summary.games >= state.last_game:
                raise StopScan(f"stopped after game {state.last_game}", games=summary.games)
            summary.games += 1
            if isinstance(outcome, _Match):
                key = FoundGameKey(summary.games, name, game)
                state.streamed(
                    texts[game], outcome.headers, key, outcome.verdict, outcome.main_moves
                )
        state.progress.update(summary.games, summary.matched, state.bytes_before)


def _judge(
    state: GameScan,
    lines: MainLines,
    games_before: int,
    tags_of: Mapping[int, str | None],
) -> tuple[Callable[[int], _Outcome], frozenset[int]]:
    """How each clean game is judged, and the games the arrays rule out whatever their
    tags say."""
    compiled, options = state.compiled, state.options
    arrays = _answered_by_arrays(compiled.arrays, lines, tags_of)
    rejected = arrays.rejected(options.skip_initial) if arrays is not None else frozenset()

    def judge(game: int) -> _Outcome:
        """What the stored positions of the clean game ``game`` say (see _Outcome)."""
        if game in rejected:
            return _NOTHING  # whatever its tags say: no need to read them
        headers: dict[str, str] = json.loads(tags_of[game] or "{}")
        ordinal = games_before + game
        if not compiled.prefilter(headers, ordinal):
            return _NOTHING
        if arrays is not None and game in lines.rows:
            answer = arrays.judge(game, headers, options.skip_initial)
            if answer is not None:
                return answer
        stream = compiled.stream(
            headers, ordinal, skip_initial=options.skip_initial, variations=False
        )
        board = start_board(headers)
        if not isinstance(stream, chess.pgn.BaseVisitor) or board is None:
            return _TEXT
        if game not in lines.rows:
            return _TEXT
        rows = lines.of(game)
        if not _agrees(board, rows, 0):
            return _TEXT
        feed(stream, board, rows)
        verdict = stream.verdict() if stream.readable else None
        if verdict is None:
            return _TEXT
        return _Match(headers, verdict, stream.main_moves) if verdict.matched else _NOTHING

    return judge, rejected


class _ArrayAnswers:
    """What the array forms of a query's lists (:mod:`cqllegacy.evaluator.arrays`) say of
    the stored games of one batch: per list, its truth (or a test necessary for it) at
    every position, computed once for the batch, column by column."""

    def __init__(self, lists: Sequence[ListArrays], lines: MainLines, positions: Positions) -> None:
        import numpy as np

        from cqllegacy.evaluator.stream import Verdict

        self._flatnonzero = np.flatnonzero
        self._verdict = Verdict
        self.lists = lists
        self.lines = lines
        self.exact = all(arrays.exact is not None for arrays in lists)
        self.truths = [
            (arrays.exact or arrays.necessary)(positions)  # type: ignore[misc]
            if arrays.exact or arrays.necessary
            else None
            for arrays in lists
        ]
        self.positions = positions
        self.tag = next((arrays.tag for arrays in lists if arrays.bound), None)
        self._bindings: dict[bool, _Bound | None] = {}

    def _bound(
        self, start: int, end: int, headers: Mapping[str, str], skip_initial: bool
    ) -> _Outcome | None:
        """What the bindings of the query's tag say of the game whose first row is
        ``start``: nothing (no binding may satisfy every list), the hits of the first
        binding that does (every list exact under a binding), else None (the rows say)."""
        if self.tag is None:
            return None
        found = self._bindings_of(skip_initial)
        if found is None:
            return None
        if start not in found.hits:
            return _NOTHING
        if not found.exact:
            return None
        return _Match(headers, self._verdict(True, found.hits[start]), end - start - 1)

    def _bindings_of(self, skip_initial: bool) -> _Bound | None:
        """What the bindings of the query's tag say of the batch (asked once)."""
        assert self.tag is not None
        if skip_initial not in self._bindings:
            self._bindings[skip_initial] = _bindings_may_match(self, self.tag, skip_initial)
        return self._bindings[skip_initial]

    def rejected(self, skip_initial: bool) -> frozenset[int]:
        """The games that some list's array form rules out (too few positions where it
        holds, or where its necessary part does), or that no binding of the query's tag
        may satisfy, found for the whole batch at once: :meth:`judge` would say nothing
        of each, whatever its tags."""
        import numpy as np

        keep = np.ones(len(self.positions.starts), dtype=np.bool_)
        for arrays, counts in _counts_per_game(self, skip_initial):
            keep &= _satisfied(arrays, counts) if self.exact else counts >= arrays.least
        if not self.exact and self.tag is not None:
            found = self._bindings_of(skip_initial)
            if found is not None:
                keep &= np.isin(self.positions.starts, np.fromiter(found.hits, np.int64))
        return frozenset(self.positions.games[~keep].tolist())

    def judge(self, game: int, headers: Mapping[str, str], skip_initial: bool) -> _Outcome | None:
        """The outcome of ``game`` when the arrays decide it (every list exact: its hits;
        some list short of positions where it may match: nothing), else None (the
        stored positions are fed to the query's stream)."""
        # The index kept the game clean only if its first row is the board its tags
        # make (indexing/records.py): no board is made here.
        start, end = self.lines.rows[game]
        first = 1 if skip_initial else 0
        hits = []
        for arrays, truth in zip(self.lists, self.truths, strict=True):
            if truth is None:
                continue
            last = start + 1 if arrays.start_only else end
            found = self._flatnonzero(truth[start + first : last]) + first
            if not self.exact:
                if len(found) < arrays.least:
                    return _NOTHING
                continue
            hits.append(tuple(found.tolist()))
        if not self.exact:
            return self._bound(start, end, headers, skip_initial)
        matched = all(
            arrays.satisfied(len(found)) for arrays, found in zip(self.lists, hits, strict=True)
        )
        if not matched:
            return _NOTHING
        return _Match(headers, self._verdict(True, tuple(hits)), end - start - 1)


@attrs.frozen(repr=False)
class _Bound(Record):
    """What the bindings of a tag say of a batch's games, by their first rows: the hits
    of the first binding that satisfies every list (``exact``: every list has its exact
    form under a binding), or only which games some binding may satisfy."""

    exact: bool
    hits: Mapping[int, tuple[tuple[int, ...], ...]]


def _bindings_may_match(
    answers: _ArrayAnswers, tag: TagDeclaration, skip_initial: bool
) -> _Bound | None:
    """The bindings of ``tag`` to the pieces of the start (S-tags), each tried at once over
    the games that every list's necessary part leaves, in the order of the rows (by start
    square): per game, the first binding that satisfies every list.  None when the
    identities cannot be followed from the stored moves."""
    import numpy as np

    from cqllegacy.evaluator.arrays import RowOnly
    from cqllegacy.evaluator.arrays.identities import bound_squares, locations, tag_candidates

    whole = answers.positions
    keep = np.ones(len(whole.starts), dtype=np.bool_)
    for arrays, counts in _counts_per_game(answers, skip_initial):
        keep &= counts >= arrays.least
    kept = np.flatnonzero(keep)
    positions = whole.games_at(kept)
    try:
        located = locations(positions)
    except RowOnly:
        return None
    exact = all(arrays.bound is not None for arrays in answers.lists)
    candidates = tag_candidates(positions, located, tag.types)
    open_ = np.ones(len(positions.starts), dtype=np.bool_)
    hits: dict[int, tuple[tuple[int, ...], ...]] = {}
    for start in np.flatnonzero(candidates.any(axis=0)):
        view = positions.bound(tag.name, bound_squares(located, int(start)))
        ok = candidates[:, start] & open_
        truths = []
        for arrays in answers.lists:
            if arrays.bound is None:
                continue  # its necessary part is asked of each game (judge)
            truth = arrays.bound(view) & _examined(positions, arrays, skip_initial)
            counts = positions.count_per_game(truth)
            ok &= _satisfied(arrays, counts) if exact else counts >= arrays.least
            truths.append(truth)
        for game in np.flatnonzero(ok):
            first_row = int(whole.starts[kept[game]])
            hits[first_row] = _game_hits(positions, int(game), truths) if exact else ()
        open_ &= ~ok
    return _Bound(exact, hits)


def _counts_per_game(
    answers: _ArrayAnswers, skip_initial: bool
) -> Iterator[tuple[ListArrays, NDArray[Any]]]:
    """Each list with an array form, and per game of the batch the number of examined
    positions where it holds."""
    positions = answers.positions
    for arrays, truth in zip(answers.lists, answers.truths, strict=True):
        if truth is not None:
            examined = truth & _examined(positions, arrays, skip_initial)
            yield arrays, positions.count_per_game(examined)


def _satisfied(arrays: ListArrays, counts: NDArray[Any]) -> NDArray[Any]:
    """``arrays.satisfied`` of each count (asked once per distinct count)."""
    import numpy as np

    distinct, where = np.unique(counts, return_inverse=True)
    answers = np.array([arrays.satisfied(int(count)) for count in distinct], dtype=np.bool_)
    return answers[where]


def _game_hits(
    positions: Positions, game: int, truths: Sequence[NDArray[Any]]
) -> tuple[tuple[int, ...], ...]:
    """Each list's hits in one game (plies from its start)."""
    import numpy as np

    start = int(positions.starts[game])
    end = int(positions.starts[game + 1]) if game + 1 < len(positions.starts) else positions.size
    return tuple(tuple((np.flatnonzero(t[start:end])).tolist()) for t in truths)


def _examined(positions: Positions, arrays: ListArrays, skip_initial: bool) -> Bools:
    """The positions a list's count looks at (as ``_ArrayAnswers.judge`` reads them)."""
    if arrays.start_only:
        return positions.first & (not skip_initial)
    return ~positions.first if skip_initial else positions.first | True


def _answered_by_arrays(
    lists: Sequence[ListArrays] | None, lines: MainLines, tags_of: Mapping[int, str | None]
) -> _ArrayAnswers | None:
    """The array answers of a batch, where some list has an array form."""
    if lists is None or lines.stored is None:
        return None
    if not any(arrays.exact or arrays.necessary for arrays in lists):
        return None
    from cqllegacy.evaluator.arrays import Positions, RowOnly
    from cqllegacy.evaluator.gametree import GameInfo

    infos = _FromTags(tags_of, GameInfo.from_headers)
    fullmoves = _FromTags(tags_of, _start_fullmove)
    try:
        return _ArrayAnswers(lists, lines, Positions(lines.stored, infos, fullmoves))
    except RowOnly:
        # A part found at run time to need rows (never seen: the forms are checked when
        # compiled); the batch is answered by the row path, as without arrays.
        return None


def _start_fullmove(headers: Mapping[str, str]) -> int:
    """The move number of a game's start, as python-chess's reader sets it from the tags
    (a game whose start board cannot be made is read from its text anyway)."""
    if "FEN" not in headers:
        return 1
    board = start_board(headers)
    return 1 if board is None else board.fullmove_number


class _FromTags(Mapping[int, _V]):
    """Something read from each game's tags, when a filter first asks for it."""

    def __init__(
        self, tags_of: Mapping[int, str | None], read: Callable[[Mapping[str, str]], _V]
    ) -> None:
        self._tags_of = tags_of
        self._read = read
        self._found: dict[int, _V] = {}

    def __getitem__(self, game: int) -> _V:
        if game not in self._found:
            self._found[game] = self._read(json.loads(self._tags_of[game] or "{}"))
        return self._found[game]

    def __iter__(self) -> Iterator[int]:
        return iter(self._tags_of)

    def __len__(self) -> int:
        return len(self._tags_of)
