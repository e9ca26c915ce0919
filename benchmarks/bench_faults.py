"""Time and peak memory on hostile input as its size doubles (issue 20).

Run ``python benchmarks/bench_faults.py [--quick]``.  Each case runs ``cqllegacy`` in a
fresh process (``python -m cqllegacy`` from this checkout) on inputs of doubling size
and prints wall time, peak resident memory and the ratio of each to the size before:
about 2 for time (linear), about 1 for memory (bounded) is what is expected.

Cases:

* ``long line``: a ``.bz2`` file expanding to a line of spaces without a line end, after
  a few games (over the 16 MB line limit: read in pieces, the game skipped);
* ``NUL file``: a sparse file of NUL bytes, with ``--jobs 1`` and ``--jobs 2`` (the
  splitting into byte ranges);
* ``deep variations``: a game whose variations nest N deep (over the 200 limit: refused
  before python-chess reads it);
* ``check``: a legacy script of N designators in one list.
"""

from __future__ import annotations

import argparse
import bz2
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
KNIGHT_FORK = ROOT / "examples" / "knight-fork.cql"
WCC = ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2"
MB = 1024 * 1024


def measure(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Seconds and peak resident megabytes of ``python -m cqllegacy ARGV``."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "cqllegacy", *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1, 3):
        raise SystemExit(f"{argv}: exit status {os.waitstatus_to_exitcode(status)}")
    return seconds, usage.ru_maxrss / 1024


def long_line(folder: Path, megabytes: int) -> list[str]:
    games = bz2.decompress(WCC.read_bytes())[:50_000]
    path = folder / f"line{megabytes}.pgn.bz2"
    compressor = bz2.BZ2Compressor()
    with open(path, "wb") as handle:
        handle.write(compressor.compress(games + b'[Event "x"]\n\n'))
        for _ in range(megabytes):
            handle.write(compressor.compress(b" " * MB))
        handle.write(compressor.flush())
    return ["run", str(KNIGHT_FORK), "-i", str(path), "-o", "out.pgn", "-q", "-j", "1"]


def nul_file(jobs: str) -> Callable[[Path, int], list[str]]:
    def make(folder: Path, megabytes: int) -> list[str]:
        path = folder / f"nul{megabytes}.pgn"
        with open(path, "wb") as handle:
            handle.truncate(megabytes * MB)
        return ["run", str(KNIGHT_FORK), "-i", str(path), "-o", "out.pgn", "-q", "-j", jobs]

    return make


def deep_variations(folder: Path, depth: int) -> list[str]:
    board = chess.Board()
    parts = []
    for _ in range(depth):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        number = f"{board.fullmove_number}{'.' if board.turn else '...'} "
        parts.append(f"{number}{board.san(moves[0])} ( {number}{board.san(moves[1])} ")
        board.push(moves[1])
    path = folder / f"deep{depth}.pgn"
    path.write_text('[Event "deep"]\n\n' + "".join(parts) + ")" * depth + " *\n")
    return ["run", str(KNIGHT_FORK), "-i", str(path), "-o", "out.pgn", "-q", "-j", "1"]


def many_designators(folder: Path, count: int) -> list[str]:
    squares = [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]
    items = [f"{p}{s}" for p in "KQRBNPkqrbnp" for s in squares]
    body = " ".join((items * (count // len(items) + 1))[:count])
    path = folder / f"many{count}.cql"
    path.write_text(f"(match (position {body}))\n")
    return ["check", str(path)]


CASES: list[tuple[str, Callable[[Path, int], list[str]], list[int], str]] = [
    ("long line (MB)", long_line, [32, 64, 128], "MB"),
    ("NUL file, --jobs 1 (MB)", nul_file("1"), [32, 64, 128], "MB"),
    ("NUL file, --jobs 2 (MB)", nul_file("2"), [32, 64, 128], "MB"),
    ("deep variations (depth)", deep_variations, [1000, 2000, 4000], "deep"),
    ("check (designators)", many_designators, [5000, 10000, 20000], "items"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the two smaller sizes only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        print(f"{'case':28} {'size':>8} {'seconds':>8} {'x':>5} {'peak MB':>8} {'x':>5}")
        for name, make, sizes, _ in CASES:
            previous: tuple[float, float] | None = None
            for size in sizes[:2] if args.quick else sizes:
                seconds, peak = measure(make(folder, size), folder)
                ratios = (
                    ("", "")
                    if previous is None
                    else (f"{seconds / previous[0]:.1f}", f"{peak / previous[1]:.1f}")
                )
                times = f"{seconds:>8.2f} {ratios[0]:>5}"
                print(f"{name:28} {size:>8} {times} {peak:>8.0f} {ratios[1]:>5}")
                previous = (seconds, peak)
                for leftover in folder.iterdir():
                    if leftover.suffix in (".pgn", ".bz2") and leftover.name != "out.pgn":
                        leftover.unlink()


if __name__ == "__main__":
    main()
