"""Games evaluated from the index's stored boards and moves (:mod:`cqllegacy.runner.stored`).

* the calls a stream gets from the stored positions are those python-chess's reader
  makes, on a board equal to the reader's in every field, at every main-line position
  of every clean game of a corpus with promotions, castling, en passant, null moves,
  FEN and chess960 starts, comments and variations (a recording visitor read both ways);
* which queries are fed so is derived from the stream classes and the query;
* runs fed so write the scan's bytes, with ``--gamenumber``, ``--limit`` and
  ``--skip-initial``, on queries the index narrows and on those it cannot.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from cqllegacy.api import Query, index
from cqllegacy.cli import main
from cqllegacy.evaluator.necessary import necessity
from cqllegacy.evaluator.stream import GameStream, LiveStream, main_line_only
from cqllegacy.indexing import scan as indexed_scan
from cqllegacy.indexing.store import Index, open_index
from cqllegacy.runner import stored
from cqllegacy.runner.pgn import read_stream
from cqllegacy.runner.results import ScanOptions
from cqllegacy.runner.stored import CHECK, MATE, STALEMATE, WHITE_TO_MOVE
from cqllegacy.vocab import san
from tests.indexing.test_equivalence import corpus_text, in_process

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "benchmarks" / "queries"

#: Start positions for random games: promotions (with captures) on both sides, castling
#: both ways, en passant, a black start with counters, a chess960 start.
_STARTS = [
    (None, {}),
    ("r3k2r/pPppppPp/8/8/8/8/PpPPPPpP/R3K2R w KQkq - 0 1", {}),
    ("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 12", {}),
    ("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 7 37", {}),
    ("bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1", {"Variant": "Chess960"}),
]


def random_games(count: int, seed: int) -> str:
    """Random legal games (python-chess's moves) from :data:`_STARTS`, as PGN."""
    rng = random.Random(seed)
    texts = []
    for number in range(count):
        fen, tags = _STARTS[number % len(_STARTS)]
        chess960 = bool(tags)
        board = chess.Board(fen, chess960=chess960) if fen else chess.Board()
        for _ in range(rng.randrange(20, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer promotions and captures, so that promoted pieces move and are taken.
            eager = [m for m in moves if m.promotion or board.is_capture(m)]
            board.push(rng.choice(eager if eager and rng.random() < 0.5 else moves))
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = f"random {number}"
        for name, value in tags.items():
            game.headers[name] = value
        texts.append(str(game))
    return "\n\n".join(texts) + "\n"


#: Null moves (python-chess reads ``--``), a comment, NAGs and a variation.
SPECIAL = """[Event "null moves"]
[Result "*"]

1. e4 -- 2. d4 d5 3. -- dxe4 4. Nc3 { a comment } f5 $1 ( 4... Nf6 5. Bg5 ) 5. f3 exf3 *

[Event "ep and castling"]
[Result "*"]

1. e4 Nf6 2. e5 d5 3. exd6 e6 4. Nf3 Be7 5. Be2 O-O 6. O-O c5 7. dxe7 Qxe7 8. d4 c4
9. b4 cxb3 10. axb3 Rd8 *
"""


@pytest.fixture(scope="module")
def pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "games.pgn"
    path.write_bytes(corpus_text() + b"\n\n" + (SPECIAL + "\n" + random_games(60, 7)).encode())
    index(path)
    return path


@pytest.fixture(scope="module")
def opened(pgn: Path) -> Iterator[Index]:
    found = open_index(pgn.with_name(pgn.name + ".cqlidx"), pgn)
    yield found
    found.close()


def state(board: chess.Board) -> tuple[Any, ...]:
    """Everything a chess.Board holds but its undo records (a StoredBoard is one: it
    adds only the stored flags, which :func:`flags` compares with python-chess's)."""
    kind = chess.Board if type(board) is stored.StoredBoard else type(board)
    return (
        kind, board.pawns, board.knights, board.bishops, board.rooks, board.queens,
        board.kings, tuple(board.occupied_co), board.occupied, board.promoted, board.turn,
        board.castling_rights, board.ep_square, board.fullmove_number, board.halfmove_clock,
        board.chess960, tuple((m.from_square, m.to_square, m.promotion, m.drop)
                              for m in board.move_stack),
    )  # fmt: skip


def flags(board: chess.Board) -> tuple[bool, bool, bool]:
    """Check, mate and stalemate as the board answers them (a StoredBoard: from the
    index's stored flags; the reader's board: python-chess)."""
    return board.is_check(), board.is_checkmate(), board.is_stalemate()


class Recorder(chess.pgn.BaseVisitor["Recorder"]):
    """Records every main-line call and the whole board it is given, as a stream gets
    them (and on which board object)."""

    parse_san = staticmethod(san.parse_san)

    def __init__(self) -> None:
        self.errors: list[Exception] = []
        self.main_moves = 0
        self.depth = 0
        self.first: chess.Board | None = None
        self.calls: list[tuple[Any, ...]] = []
        #: Per main-line board visited: whether it answers from stored flags.
        self.from_flags: list[bool] = []

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
        if self.first is None:
            self.first = board
        if not self.depth:
            self.calls.append(("board", board is self.first, state(board), flags(board)))
            answered = isinstance(board, stored.StoredBoard) and board._stored() is not None
            self.from_flags.append(answered)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.depth:
            return
        self.main_moves += 1
        moved = (move.from_square, move.to_square, move.promotion, move.drop, bool(move))
        self.calls.append(("move", board is self.first, moved, state(board)))

    def end_game(self) -> None:
        if self.first is not None:
            self.calls.append(("end", state(self.first)))

    def result(self) -> Recorder:
        return self


def test_a_fed_stream_sees_the_readers_calls_and_boards(opened: Index) -> None:
    numbers = list(range(1, opened.games + 1))
    facts = opened.game_facts(numbers)
    texts = {text.file_ordinal: text for text in opened.texts(numbers)}
    clean = [game for game, ok, _ in facts if ok]
    lines = stored.main_lines(opened, clean)
    seen = {"promoted": 0, "ep": 0, "castling": 0, "null": 0, "fen": 0, "chess960": 0}
    fed_boards: list[bool] = []
    read_boards: list[bool] = []
    fed_boards_calls: list[tuple[Any, ...]] = []
    for game, ok, tags in facts:
        if not ok:
            continue
        read = Recorder()
        assert read_stream(texts[game], read), game
        headers = json.loads(tags)
        board = stored.start_board(headers)
        assert board is not None, game
        fed = Recorder()
        stored.feed(fed, board, lines.of(game))
        assert fed.calls == read.calls, game
        fed_boards += fed.from_flags
        read_boards += read.from_flags
        fed_boards_calls += [call for call in fed.calls if call[0] == "board"]
        last = read.calls[-1][1]
        seen["promoted"] += any(call[-1][9] for call in read.calls if call[0] == "move")
        seen["ep"] += any(call[-1][12] is not None for call in read.calls if call[0] == "move")
        seen["castling"] += any(castles(call) for call in read.calls if call[0] == "move")
        seen["null"] += any(not call[2][4] for call in read.calls if call[0] == "move")
        seen["fen"] += "FEN" in headers
        seen["chess960"] += bool(last[15])
    assert all(seen.values()), seen
    # Every fed position answered from its stored flags, each flag was met (so each
    # stored answer was compared with python-chess's), and the reader's board is python-chess's.
    assert fed_boards and all(fed_boards) and not any(read_boards)
    assert all(any(call[3][k] for call in fed_boards_calls) for k in range(3))


def castles(call: tuple[Any, ...]) -> bool:
    """Whether a recorded move is a king's move of two files or more (castling)."""
    _, _, (start, end, *_), board = call
    return bool(board[6] >> start & 1) and abs(start % 8 - end % 8) > 1


def test_which_streams_are_fed_from_stored_positions_is_derived() -> None:
    class ReadsComments(LiveStream):
        def visit_comment(self, comment: str) -> None:
            pass

    class OtherSan(GameStream):
        parse_san = staticmethod(chess.Board.parse_san)

    assert main_line_only(LiveStream)
    assert not main_line_only(ReadsComments)
    assert not main_line_only(OtherSan)
    plain = Query.from_text("(match (position Ke1))")
    assert plain.compiled.main_line_stream
    assert stored.feeds(plain.compiled, ScanOptions())
    assert not stored.feeds(plain.compiled, ScanOptions(variations=True))
    assert not Query.from_text("(match (position :variations Ke1))").compiled.main_line_stream
    tags = Query.from_text("(match :player Lasker (position))").compiled
    assert tags.decided_by_tags and not tags.main_line_stream


def fed_games(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    fed: list[int] = []
    original = stored.feed

    def spy(stream: Any, board: chess.Board, rows: dict[str, list[Any]]) -> None:
        fed.append(len(rows["turn"]))
        original(stream, board, rows)

    monkeypatch.setattr(stored, "feed", spy)
    return fed


@pytest.mark.parametrize(
    "name", ["plain", "sequence", "attackcount", "knight-check-orbit", "forany-pawn-promotes",
             "relation-missing", "sequence-orbit"],
)  # fmt: skip
def test_stored_runs_give_the_scans_text(
    name: str, pgn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = Query.from_text((QUERIES / f"{name}.cql").read_text(encoding="utf-8"))
    fed = fed_games(monkeypatch)
    scanned = in_process(query, pgn, False)
    assert not fed
    assert in_process(query, pgn, True) == scanned
    # Queries whose lists all have array forms (under each binding of a tag) are answered
    # without a board; the others are fed the stored positions when their streams read
    # the main line alone.
    arrays = query.compiled.arrays
    if arrays is not None and all(lists.exact or lists.bound for lists in arrays):
        assert not fed
    else:
        assert fed or not query.compiled.main_line_stream


def test_a_query_the_index_cannot_narrow_is_fed_every_clean_game(
    pgn: Path, opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Scidb's half-move clock: nothing to narrow by, no array form.
    query = Query.from_text("(match (position :halfmoveclock 20 100))")
    assert necessity(query.core) is None and query.compiled.main_line_stream
    fed = fed_games(monkeypatch)
    scanned = in_process(query, pgn, False)
    assert in_process(query, pgn, True) == scanned
    clean = [game for game, ok, _ in opened.game_facts(range(1, opened.games + 1)) if ok]
    assert len(fed) == len(clean)  # one main line fed per clean game


def run(script: Path, pgn: Path, out: Path, *flags: str) -> tuple[bytes, ...]:
    out.mkdir()
    files = [out / "out.pgn", out / "out.jsonl", out / "out.html"]
    status = main(
        ["run", str(script), "-i", str(pgn), "-o", str(files[0]), "--report", str(files[1]),
         "--html", str(files[2]), "-q", "-j", "1", *flags]
    )  # fmt: skip
    assert status == 0
    return tuple(path.read_bytes() for path in files)


@pytest.mark.parametrize(
    "flags",
    [("--gamenumber", "100", "260"), ("--gamenumber", "5"), ("--limit", "3"),
     ("--limit", "1", "--gamenumber", "300", "900"), ("--skip-initial",)],
)  # fmt: skip
@pytest.mark.parametrize("name", ["sequence", "attackcount", "knight-check"])
def test_game_numbers_limits_and_skip_initial(
    name: str, flags: tuple[str, ...], pgn: Path, tmp_path: Path
) -> None:
    script = QUERIES / f"{name}.cql"
    scanned = run(script, pgn, tmp_path / "scan", "--no-index", *flags)
    assert run(script, pgn, tmp_path / "index", *flags) == scanned


@pytest.mark.parametrize("name", ["sequence", "knight-check", "forany-pawn-promotes"])
def test_workers_evaluate_stored_positions_as_one_process(
    name: str, pgn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --jobs, the candidates go to the workers as stored positions (and texts);
    what comes back is what one process and the scan write."""
    import cqllegacy.runner.parallel as parallel
    from cqllegacy.runner.output import PgnWriter
    from cqllegacy.runner.parallel import ProcessEngine
    from cqllegacy.runner.progress import Messages
    from cqllegacy.runner.report import ReportWriter
    from cqllegacy.runner.results import InputFile

    monkeypatch.setattr(parallel, "worth_spreading", lambda inputs: True)
    units: list[int] = []
    original = indexed_scan.stored_unit

    def spy(opened: Index, numbers: Any) -> stored.StoredUnit:
        units.append(len(numbers))
        return original(opened, numbers)

    monkeypatch.setattr(indexed_scan, "stored_unit", spy)
    query = Query.from_text((QUERIES / f"{name}.cql").read_text(encoding="utf-8"))

    def outputs(engine: ProcessEngine | None, use: bool) -> tuple[str, ...]:
        out, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
        summary = query.scan(
            [InputFile.of(pgn)], sinks=[PgnWriter(out, several_files=False),
            ReportWriter(report)], progress=Messages(messages), engine=engine, index=use,
        )  # fmt: skip
        return out.getvalue(), report.getvalue(), messages.getvalue(), str(summary.games)

    scanned = outputs(None, False)
    assert outputs(ProcessEngine(2, batch_games=40), True) == scanned
    assert units


def test_workers_get_every_game_of_a_query_the_index_cannot_narrow(
    pgn: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import cqllegacy.runner.parallel as parallel

    monkeypatch.setattr(parallel, "worth_spreading", lambda inputs: True)
    units: list[int] = []
    original = indexed_scan.stored_unit

    def spy(opened: Index, numbers: Any) -> stored.StoredUnit:
        units.append(len(numbers))
        return original(opened, numbers)

    monkeypatch.setattr(indexed_scan, "stored_unit", spy)
    script = QUERIES / "relation-missing.cql"
    scanned = run(script, pgn, tmp_path / "scan", "--no-index")
    assert run(script, pgn, tmp_path / "two", "-j", "2") == scanned
    assert sum(units) == count_games(pgn)


def count_games(path: Path) -> int:
    from cqllegacy.runner.pgn import open_pgn, split_games

    with open_pgn(path) as source:
        return sum(1 for _ in split_games(source.lines()))


def test_a_stored_board_asks_python_chess_once_it_is_no_longer_the_stored_position() -> None:
    """Flags that lie (check, mate and stalemate at the start position) are read while the
    board is that position, and never after a move, a null move or on a copy."""
    board = stored.StoredBoard()
    board.stored_occupied = board.occupied
    board.stored_flags = WHITE_TO_MOVE | CHECK | MATE | STALEMATE
    assert flags(board) == (True, True, True)
    assert flags(board.copy()) == (False, False, False)
    for move in (chess.Move.null(), chess.Move.from_uci("e2e4")):
        board.push(move)
        assert flags(board) == (False, False, False)
        board.pop()
        assert flags(board) == (True, True, True)
