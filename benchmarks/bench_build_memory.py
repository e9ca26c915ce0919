"""Peak memory of ``cqllegacy index`` as its input doubles, per process (issue 21).

    python benchmarks/bench_build_memory.py --pgn BIG.pgn [--games 5000,10000,20000,40000]
        [--jobs 1,2] [--against OTHER_CHECKOUT]

The first N games of ``--pgn`` (for each N of ``--games``) are indexed by ``python -m
cqllegacy index`` in a fresh process, with each ``--jobs``; printed per run: the CPU
seconds of the build (its workers included), the peak resident memory of the main
process and of the largest worker (``VmHWM`` of ``/proc``, read while they run, so
Linux only), and the index's size.  Memory flat in the input's size shows as the same
peaks, within a few MB, on each row of a size twice the one before.

``--against`` names another checkout of cqllegacy (the code before a change): each of
its runs is made beside the same run of this checkout, in turn, so that both meet the
same load; the last table compares them.  A scan of the largest part (``run
--no-index`` of ``benchmarks/queries/plain.cql``, ``--jobs 1``) gives the build's CPU
as a multiple of one scan's.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "build-memory"
PLAIN = ROOT / "benchmarks" / "queries" / "plain.cql"
MB = 1024 * 1024


@attrs.frozen
class Run:
    cpu: float
    wall: float
    main_mb: float
    worker_mb: float
    index_mb: float


def first_games(pgn: Path, games: int) -> Path:
    """The first ``games`` games of ``pgn``, as a file under OUT (made once)."""
    path = OUT / f"first-{games}-{pgn.name}"
    if not path.exists():
        data = pgn.read_bytes()
        starts = [m.start() for m in re.finditer(rb"^\[Event ", data, flags=re.M)]
        if len(starts) < games:
            raise SystemExit(f"{pgn} has {len(starts)} games, fewer than {games}")
        path.write_bytes(data[: starts[games]] if games < len(starts) else data)
    return path


def peak_kb(pid: int) -> int:
    """The peak resident kB of process ``pid`` so far (0: it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, flags=re.M)
    return int(found.group(1)) if found else 0


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def measure(checkout: Path, argv: list[str], index: Path | None = None) -> Run:
    """CPU and wall seconds, peak memory of the main process and of the largest worker,
    and the size of ``index`` (removed afterwards), of ``python -m cqllegacy ARGV`` run
    from ``checkout``."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "cqllegacy", *argv],
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    main_kb, workers = 0, dict[int, int]()
    while True:
        main_kb = max(main_kb, peak_kb(process.pid))
        for child in children(process.pid):
            workers[child] = max(workers.get(child, 0), peak_kb(child))
        finished, status, usage = os.wait4(process.pid, os.WNOHANG)
        if finished:
            break
        time.sleep(0.02)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv}: exit status {os.waitstatus_to_exitcode(status)}")
    # wait4 reports the largest of the process and its (waited) workers: the main
    # process's own peak, if it came after the last reading, is at most that.
    if not workers:
        main_kb = usage.ru_maxrss
    size = 0.0
    if index is not None:
        size = index.stat().st_size / MB
        index.unlink()
    return Run(
        cpu=usage.ru_utime + usage.ru_stime,
        wall=wall,
        main_mb=main_kb / 1024,
        worker_mb=max(workers.values(), default=0) / 1024,
        index_mb=size,
    )


def build_run(checkout: Path, part: Path, jobs: int) -> Run:
    index = OUT / f"{part.name}.cqlidx"
    return measure(checkout, ["index", str(part), "-o", str(index), "-q", "-j", str(jobs)], index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgn", type=Path, required=True, help="a plain PGN file")
    parser.add_argument("--games", default="5000,10000,20000,40000")
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--against", type=Path, help="another checkout, measured beside")
    parser.add_argument("--no-scan", action="store_true", help="leave out the scan")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    sizes = [int(word) for word in args.games.split(",")]
    jobs = [int(word) for word in args.jobs.split(",")]
    checkouts = {"this": ROOT}
    if args.against is not None:
        checkouts["against"] = args.against.resolve()
    print(f"corpus: {args.pgn}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| checkout | jobs | games | MB of PGN | CPU s | main MB | largest worker MB | index MB |")  # noqa: E501
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    runs: dict[tuple[str, int, int], Run] = {}
    for size in sizes:
        part = first_games(args.pgn, size)
        for j in jobs:
            for name, checkout in checkouts.items():
                run = runs[name, j, size] = build_run(checkout, part, j)
                print(
                    f"| {name} | {j} | {size} | {part.stat().st_size / MB:.1f} | {run.cpu:.1f} "
                    f"| {run.main_mb:.0f} | {run.worker_mb:.0f} | {run.index_mb:.1f} |",
                    flush=True,
                )
    for name in checkouts:
        for j in jobs:
            peaks = [max(runs[name, j, n].main_mb, runs[name, j, n].worker_mb) for n in sizes]
            steps = ", ".join(f"{b - a:+.0f}" for a, b in itertools.pairwise(peaks))
            print(f"{name}, --jobs {j}: largest process's peak change per doubling: {steps} MB")
    if not args.no_scan:
        largest = first_games(args.pgn, sizes[-1])
        out = OUT / "scan.pgn"
        scan = measure(ROOT, ["run", str(PLAIN), "-i", str(largest), "-o", str(out), "-q",
                              "--no-index", "-j", "1"])  # fmt: skip
        for name in checkouts:
            build = runs[name, 1, sizes[-1]] if 1 in jobs else None
            if build is not None:
                print(
                    f"{name}: build --jobs 1 of {sizes[-1]} games {build.cpu:.1f} s CPU, one scan "
                    f"{scan.cpu:.1f} s CPU: {build.cpu / scan.cpu:.2f} x"
                )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
