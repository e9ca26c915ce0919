"""Position questions asked three ways over an index's stored positions: numpy kernels
(:mod:`cqllegacy.vocab.bitarrays` on :mod:`cqllegacy.indexing.arrays` chunks), DuckDB
SQL on the same columns, and python-chess one row at a time.

    python benchmarks/bench_arrays.py                       # wcc.pgn.bz2 × 15
    python benchmarks/bench_arrays.py --pgn GAMES.pgn --repeat 3 --sample 20000

The games (by default the shared data folder's ``wcc.pgn.bz2``, else the package's copy
of it) are written ``--repeat`` times into one plain file in a temporary folder and
indexed once.  The questions, each counted over every main-line position:

* **two pieces**: a white pawn on e4 and a black pawn on d5;
* **shifted**: the same two pieces under ``:shift`` (any translation of the pair that
  stays on the board), by whole-board shifts: each piece set moved back by its offset
  from the first square, the results AND-ed, kept to the translations that fit;
* **check**: the side to move in check, from the bitboards (its highest king attacked;
  sliders by occluded fills in SQL, by lookups from the king's square in numpy since the
  figures of docs/index-measurements.md were taken), checked against the flag the index stored;
* **attackers of e4**: the white pieces that attack e4, counted (summed).

numpy: the chunks are read once (timed apart: ``read``), each question on each chunk
best of 3.  DuckDB: one ``SELECT`` over the ``positions`` table each, best of 3, with
one thread and with DuckDB's default.  python-chess: one board set from each stored row
(as the index's replay does) and asked through python-chess's API, on the first
``--sample`` positions only.  Every engine's answer is compared (numpy and DuckDB over
all positions, python-chess against numpy on its sample); a difference stops the run.
Rates are positions per second of CPU time (the machine is shared; CPU time is what a
busy machine inflates least), and wall time beside it.
"""

from __future__ import annotations

import argparse
import bz2
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import chess
import duckdb
import numpy as np

from cqllegacy.api import index
from cqllegacy.evaluator.arrays import Positions
from cqllegacy.indexing.arrays import read_chunks
from cqllegacy.indexing.records import CHECK
from cqllegacy.indexing.store import open_index
from cqllegacy.vocab import bitarrays as ba

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/data/wcc.pgn.bz2")
PACKAGED = ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2"
FULL = (1 << 64) - 1

#: The two pieces: (piece type, colour, square).
PATTERN = ((chess.PAWN, chess.WHITE, chess.E4), (chess.PAWN, chess.BLACK, chess.D5))
QUESTIONS = ("two pieces", "shifted", "check", "attackers of e4")


# --------------------------------------------------------------------------------------
# numpy
# --------------------------------------------------------------------------------------


def offset(square: int, origin: int) -> tuple[int, int]:
    return (
        chess.square_file(square) - chess.square_file(origin),
        chess.square_rank(square) - chess.square_rank(origin),
    )


def fitting_references() -> int:
    """The squares the first piece can be moved to with the others kept on the board."""
    fits = ba.bitboards([FULL])
    for _kind, _colour, square in PATTERN:
        files, ranks = offset(square, PATTERN[0][2])
        fits = fits & ba.shift(ba.bitboards([FULL]), -files, -ranks)
    return int(fits[0])


def np_two(chunk: Positions) -> int:
    found = np.ones(len(chunk), dtype=bool)
    for kind, colour, square in PATTERN:
        found &= (chunk.pieces(kind, colour) & np.uint64(1 << square)) != 0
    return int(found.sum())


def np_shifted(chunk: Positions) -> int:
    aligned = np.full(len(chunk), fitting_references(), dtype=np.uint64)
    for kind, colour, square in PATTERN:
        files, ranks = offset(square, PATTERN[0][2])
        aligned &= ba.shift(chunk.pieces(kind, colour), -files, -ranks)
    return int((aligned != 0).sum())


def np_check(chunk: Positions) -> int:
    found = ba.is_check(chunk, chunk.white_to_move)
    if not (found == ((chunk.flags & CHECK) != 0)).all():
        raise SystemExit("numpy check differs from the stored flag")
    return int(found.sum())


E4 = np.asarray(np.uint64(chess.BB_E4))


def np_attackers(chunk: Positions) -> int:
    return int(ba.popcount(ba.attackers(chunk, chess.WHITE, E4)).sum(dtype=np.int64))


NUMPY: dict[str, Callable[[Positions], int]] = {
    "two pieces": np_two,
    "shifted": np_shifted,
    "check": np_check,
    "attackers of e4": np_attackers,
}


# --------------------------------------------------------------------------------------
# DuckDB SQL
# --------------------------------------------------------------------------------------


def lit(bits: int) -> str:
    return f"{bits & FULL}::UBIGINT"


def moved(expr: str, step: int) -> str:
    """``expr`` moved ``step`` bits up (down when negative); DuckDB refuses a left shift
    that overflows, so the bits that would leave are cleared first.  (Its bit operators
    share one precedence, left to right: every expression here is parenthesized.)"""
    if step > 0:
        return f"((({expr}) & {lit(FULL >> step)}) << {step})"
    if step < 0:
        return f"(({expr}) >> {-step})"
    return f"({expr})"


def keep(files: int, ranks: int) -> int:
    """The squares that stay on the board when moved by (files, ranks)."""
    return sum(
        1 << s
        for s in chess.SQUARES
        if 0 <= chess.square_file(s) + files < 8 and 0 <= chess.square_rank(s) + ranks < 8
    )


def shifted_sql(expr: str, files: int, ranks: int) -> str:
    return moved(f"({expr}) & {lit(keep(files, ranks))}", files + 8 * ranks)


class Lets:
    """Named intermediate columns, one CTE each (DuckDB inlines them)."""

    def __init__(self) -> None:
        self.columns: list[tuple[str, str]] = []

    def let(self, expr: str) -> str:
        name = f"v{len(self.columns)}"
        self.columns.append((name, expr))
        return name

    def query(self, select: str) -> str:
        parts, source = [], "positions"
        for number, (name, expr) in enumerate(self.columns):
            parts.append(f"t{number} AS (SELECT *, {expr} AS {name} FROM {source})")
            source = f"t{number}"
        head = f"WITH {', '.join(parts)} " if parts else ""
        return f"{head}SELECT {select} FROM {source}"


def coloured(kind: int, colour: bool) -> str:
    return f"({chess.PIECE_NAMES[kind]}s & {'white' if colour else 'black'})"


def sql_two() -> str:
    parts = [f"({coloured(k, c)} & {lit(1 << s)}) <> 0" for k, c, s in PATTERN]
    return f"SELECT count(*) FROM positions WHERE {' AND '.join(parts)}"


def sql_shifted() -> str:
    aligned = [lit(fitting_references())]
    for kind, colour, square in PATTERN:
        files, ranks = offset(square, PATTERN[0][2])
        aligned.append(shifted_sql(coloured(kind, colour), -files, -ranks))
    return f"SELECT count(*) FROM positions WHERE ({' & '.join(aligned)}) <> 0"


STRAIGHT = ((0, 1), (0, -1), (1, 0), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING = STRAIGHT + DIAGONAL


def slide_sql(lets: Lets, origins: str, empty: str, files: int, ranks: int) -> str:
    """Kogge-Stone fill from ``origins`` over ``empty`` in one direction, as columns."""
    step = files + 8 * ranks
    landing = FULL & ~(chess.BB_FILE_A if files > 0 else chess.BB_FILE_H if files < 0 else 0)
    reach = lets.let(f"{empty} & {lit(landing)}")
    filled = origins
    for doubling in (1, 2, 4):
        filled = lets.let(f"{filled} | ({reach} & {moved(filled, step * doubling)})")
        if doubling < 4:
            reach = lets.let(f"{reach} & {moved(reach, step * doubling)}")
    return lets.let(f"{moved(filled, step)} & {lit(landing)}")


def attackers_sql(lets: Lets, targets: str, pawn_reach: str) -> str:
    """The pieces of either colour attacking some square of ``targets``."""
    empty = lets.let(f"{lit(FULL)} - (white | black)")
    straight = [slide_sql(lets, targets, empty, f, r) for f, r in STRAIGHT]
    diagonal = [slide_sql(lets, targets, empty, f, r) for f, r in DIAGONAL]
    knight = " | ".join(shifted_sql(targets, f, r) for f, r in KNIGHT)
    king = " | ".join(shifted_sql(targets, f, r) for f, r in KING)
    return lets.let(
        f"(({knight}) & knights) | (({king}) & kings) | ({pawn_reach} & pawns)"
        f" | (({' | '.join(straight)}) & (rooks | queens))"
        f" | (({' | '.join(diagonal)}) & (bishops | queens))"
    )


def sql_check() -> str:
    lets = Lets()
    white_moves = "(flags & 1) <> 0"
    ours = lets.let(f"CASE WHEN {white_moves} THEN white ELSE black END")
    theirs = lets.let(f"CASE WHEN {white_moves} THEN black ELSE white END")
    # The highest king of the side to move: every bit below it set, then the top kept.
    smear = lets.let(f"kings & {ours}")
    for width in (1, 2, 4, 8, 16, 32):
        smear = lets.let(f"{smear} | ({smear} >> {width})")
    king = lets.let(f"{smear} & ~({smear} >> 1)")
    up = f"{shifted_sql(king, -1, 1)} | {shifted_sql(king, 1, 1)}"
    down = f"{shifted_sql(king, -1, -1)} | {shifted_sql(king, 1, -1)}"
    reach = lets.let(f"CASE WHEN {white_moves} THEN {up} ELSE {down} END")
    found = attackers_sql(lets, king, reach)
    return lets.query(
        f"count(*) FILTER (WHERE ({found} & {theirs}) <> 0), "
        f"count(*) FILTER (WHERE (({found} & {theirs}) <> 0) <> ((flags & {CHECK}) <> 0))"
    )


def sql_attackers() -> str:
    lets = Lets()
    e4 = lit(chess.BB_E4)
    # White pawns attack e4 from where a black pawn on e4 would attack.
    reach = lit(chess.BB_PAWN_ATTACKS[chess.BLACK][chess.E4])
    found = attackers_sql(lets, e4, reach)
    return lets.query(f"sum(bit_count({found} & white))")


SQL: dict[str, Callable[[], str]] = {
    "two pieces": sql_two,
    "shifted": sql_shifted,
    "check": sql_check,
    "attackers of e4": sql_attackers,
}


# --------------------------------------------------------------------------------------
# python-chess, one row at a time
# --------------------------------------------------------------------------------------


def boards(chunk: Positions, count: int) -> Iterator[chess.Board]:
    """One board, set from each of the first ``count`` rows in turn."""
    board = chess.Board.empty()
    names = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "white", "black")
    rows = zip(*(getattr(chunk, name)[:count].tolist() for name in names), strict=True)
    turns = chunk.white_to_move[:count].tolist()
    for (p, n, b, r, q, k, white, black), turn in zip(rows, turns, strict=True):
        board.pawns, board.knights, board.bishops, board.rooks = p, n, b, r
        board.queens, board.kings = q, k
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
        board.occupied = white | black
        board.turn = turn
        yield board


def placements() -> list[list[tuple[int, chess.Piece]]]:
    """Every translation of :data:`PATTERN` that stays on the board."""
    found = []
    for files in range(-7, 8):
        for ranks in range(-7, 8):
            moved_pattern = []
            for kind, colour, square in PATTERN:
                f, r = chess.square_file(square) + files, chess.square_rank(square) + ranks
                if not (0 <= f < 8 and 0 <= r < 8):
                    break
                moved_pattern.append((chess.square(f, r), chess.Piece(kind, colour)))
            else:
                found.append(moved_pattern)
    return found


def pc_two(board: chess.Board) -> bool:
    return all(board.piece_at(s) == chess.Piece(k, c) for k, c, s in PATTERN)


PLACEMENTS = placements()


def pc_shifted(board: chess.Board) -> bool:
    return any(all(board.piece_at(s) == p for s, p in ways) for ways in PLACEMENTS)


def pc_check(board: chess.Board) -> bool:
    return board.is_check()


def pc_attackers(board: chess.Board) -> int:
    return len(board.attackers(chess.WHITE, chess.E4))


PYTHON_CHESS: dict[str, Callable[[chess.Board], int]] = {
    "two pieces": pc_two,
    "shifted": pc_shifted,
    "check": pc_check,
    "attackers of e4": pc_attackers,
}


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------


@contextmanager
def timed(into: dict[str, float]) -> Iterator[None]:
    cpu, wall = time.process_time(), time.perf_counter()
    yield
    into["cpu"] = into.get("cpu", 0.0) + time.process_time() - cpu
    into["wall"] = into.get("wall", 0.0) + time.perf_counter() - wall


def indexed(source: Path, repeat: int, folder: Path) -> Path:
    raw = bz2.decompress(source.read_bytes()) if source.suffix == ".bz2" else source.read_bytes()
    pgn = folder / "games.pgn"
    with open(pgn, "wb") as out:
        for _ in range(repeat):
            out.write(raw.rstrip() + b"\n\n")
    index(pgn)
    return pgn


def measure_numpy(opened: Any) -> tuple[int, dict[str, int], dict[str, dict[str, float]]]:
    times: dict[str, dict[str, float]] = {"read": {}, **{q: {} for q in QUESTIONS}}
    answers = dict.fromkeys(QUESTIONS, 0)
    positions = 0
    chunks = read_chunks(opened)
    while True:
        with timed(times["read"]):
            chunk = next(chunks, None)
        if chunk is None:
            break
        positions += len(chunk)
        for question, kernel in NUMPY.items():
            best: dict[str, float] = {}
            for _ in range(3):
                once: dict[str, float] = {}
                with timed(once):
                    answer = kernel(chunk)
                best = once if not best or once["cpu"] < best["cpu"] else best
            answers[question] += answer
            for key, value in best.items():
                times[question][key] = times[question].get(key, 0.0) + value
    return positions, answers, times


def measure_sql(
    path: Path, threads: int | None
) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    config = {"memory_limit": "256MB"}
    if threads:
        config["threads"] = str(threads)
    connection = duckdb.connect(str(path), read_only=True, config=config)
    answers: dict[str, Any] = {}
    times: dict[str, dict[str, float]] = {}
    for question, make in SQL.items():
        sql = make()
        best: dict[str, float] = {}
        for _ in range(3):
            once: dict[str, float] = {}
            with timed(once):
                row = connection.execute(sql).fetchone()
            best = once if not best or once["cpu"] < best["cpu"] else best
        answers[question] = row
        times[question] = best
    connection.close()
    return answers, times


def measure_python_chess(opened: Any, sample: int) -> tuple[int, dict[str, dict[str, float]]]:
    chunk = next(read_chunks(opened, max_positions=sample))
    times: dict[str, dict[str, float]] = {}
    for question, ask in PYTHON_CHESS.items():
        once: dict[str, float] = {}
        with timed(once):
            answers = [int(ask(board)) for board in boards(chunk, len(chunk))]
        times[question] = once
        if sum(answers) != NUMPY[question](chunk):
            raise SystemExit(f"python-chess and numpy differ on {question!r}")
    return len(chunk), times


def rate(positions: int, seconds: float) -> str:
    return f"{positions / seconds:,.0f}" if seconds > 0 else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pgn", type=Path, default=SHARED if SHARED.exists() else PACKAGED)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--sample", type=int, default=50_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-arrays-") as folder:
        started = time.perf_counter()
        pgn = indexed(args.pgn, args.repeat, Path(folder))
        print(f"{args.pgn} × {args.repeat} indexed in {time.perf_counter() - started:.1f} s")
        path = pgn.with_name(pgn.name + ".cqlidx")
        opened = open_index(path, pgn)
        positions, np_answers, np_times = measure_numpy(opened)
        sampled, pc_times = measure_python_chess(opened, args.sample)
        opened.close()
        sql1_answers, sql1_times = measure_sql(path, threads=1)
        sql_answers, sql_times = measure_sql(path, threads=None)
    for question in QUESTIONS:
        got = sql1_answers[question]
        if got != sql_answers[question] or int(got[0]) != np_answers[question]:
            raise SystemExit(f"{question}: numpy {np_answers[question]}, DuckDB {got}")
        if question == "check" and got[1] != 0:
            raise SystemExit("DuckDB's check differs from the stored flag")
    read = np_times["read"]
    print(f"{positions:,} positions; chunks read at {rate(positions, read['cpu'])} positions/s "
          f"(CPU; wall {rate(positions, read['wall'])}); python-chess on {sampled:,}")  # fmt: skip
    print("positions/s by CPU time (wall in brackets)")
    header = ("question", "answer", "numpy", "DuckDB 1 thread", "DuckDB default",
              "python-chess", "numpy × DuckDB 1t", "numpy × python-chess")  # fmt: skip
    print(" | ".join(header))
    for question in QUESTIONS:
        n, s1, s, p = (
            np_times[question],
            sql1_times[question],
            sql_times[question],
            pc_times[question],
        )
        cells = (
            question,
            f"{np_answers[question]:,}",
            f"{rate(positions, n['cpu'])} ({rate(positions, n['wall'])})",
            f"{rate(positions, s1['cpu'])} ({rate(positions, s1['wall'])})",
            f"{rate(positions, s['cpu'])} ({rate(positions, s['wall'])})",
            f"{rate(sampled, p['cpu'])} ({rate(sampled, p['wall'])})",
            f"{s1['cpu'] / n['cpu']:.1f}",
            f"{(p['cpu'] / sampled) / (n['cpu'] / positions):.0f}",
        )
        print(" | ".join(cells))


if __name__ == "__main__":
    main()
