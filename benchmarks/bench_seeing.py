"""What seeing the results costs: the HTML report and the progress bar.

    python benchmarks/bench_seeing.py              # about two minutes on 2 cores
    python benchmarks/bench_seeing.py --repeat 5

Three measurements, each a fresh ``cqllegacy run`` process timed from start to exit, in
interleaved rounds (``--repeat``, default 3), medians printed:

* ``--html``: ``examples/knight-fork.cql`` on the bundled games with and without
  ``--html`` (the target: under 2 x);
* the size of a report of at least 1,000 matching games: knight checks
  (``:attackcount N k 1 :flipcolor``) on the bundled games repeated (target: under 20 MB),
  and that run's time with and without ``--html``;
* the progress bar: ``--jobs 1`` on the bundled games repeated three times, standard
  error on a pseudo-terminal, with the bar and with ``-q`` (no bar).

Corpora are written as plain PGN under ``benchmarks/out/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import bz2
import os
import pty
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
SAMPLE = ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2"
KNIGHT_FORK = ROOT / "examples" / "knight-fork.cql"
KNIGHT_CHECK = "(match (position :attackcount N k 1 :flipcolor))\n"
COMMAND = [sys.executable, "-m", "cqllegacy"]


def corpus(copies: int) -> Path:
    """The bundled games ``copies`` times, as plain PGN."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"wcc-x{copies}.pgn"
    if not path.exists():
        games = bz2.decompress(SAMPLE.read_bytes())
        path.write_bytes(games * copies)
    return path


def timed(argv: Sequence[str], *, terminal: bool = False) -> float:
    """Seconds from start to exit; standard error on a pseudo-terminal when asked."""
    started = time.perf_counter()
    if not terminal:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - started
    leader, follower = pty.openpty()
    drained = threading.Thread(target=_drain, args=(leader,), daemon=True)
    drained.start()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    drained.join(timeout=5)
    os.close(leader)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{argv} failed with status {status}")
    CPU_SECONDS.append(usage.ru_utime + usage.ru_stime)
    return seconds


#: Processor seconds of each terminal run, in order (less disturbed than the time on the
#: clock when the machine is shared).
CPU_SECONDS: list[float] = []


def _drain(fd: int) -> None:
    # The bar must be read, as a terminal would, or the process blocks on a full buffer.
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


def medians(runs: dict[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """Each run ``repeat`` times, in interleaved rounds; the median seconds of each."""
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            seconds[name].append(run())
    return {name: statistics.median(values) for name, values in seconds.items()}


def html_cost(repeat: int) -> None:
    out = OUT / "fork"
    plain = [*COMMAND, "run", str(KNIGHT_FORK), "-i", str(SAMPLE), "-o", f"{out}.pgn", "-q"]
    figures = medians(
        {
            "without --html": lambda: timed(plain),
            "with --html": lambda: timed([*plain, "--html", f"{out}.html"]),
        },
        repeat,
    )
    ratio = figures["with --html"] / figures["without --html"]
    print("knight-fork.cql on the bundled games (685 games, 13 matches, default --jobs):")
    for name, value in figures.items():
        print(f"  {name:16} {value:6.2f} s")
    print(f"  ratio            {ratio:6.2f}  (target: under 2)")


def report_size(repeat: int) -> None:
    games = corpus(5)
    script = OUT / "knight-check.cql"
    script.write_text(KNIGHT_CHECK, encoding="utf-8")
    out = OUT / "knight-check"
    plain = [*COMMAND, "run", str(script), "-i", str(games), "-o", f"{out}.pgn", "-q"]
    with_html = [*plain, "--report", f"{out}.jsonl", "--html", f"{out}.html"]
    figures = medians(
        {"without --html": lambda: timed(plain), "with --html": lambda: timed(with_html)},
        repeat,
    )
    matches = len(Path(f"{out}.jsonl").read_text(encoding="utf-8").splitlines())
    size = os.path.getsize(f"{out}.html")
    print(f"knight checks on the bundled games x 5 ({5 * 685} games, default --jobs):")
    print(f"  matching games   {matches}")
    print(f"  report size      {size / 1e6:6.1f} MB ({size / matches / 1e3:.1f} kB per game)")
    print(f"  size per 1,000   {size / matches:6.1f} kB -> {size / matches * 1000 / 1e6:.1f} MB")
    for name, value in figures.items():
        print(f"  {name:16} {value:6.2f} s")
    print(f"  ratio            {figures['with --html'] / figures['without --html']:6.2f}")


def progress_cost(repeat: int) -> None:
    games = corpus(3)
    base = [*COMMAND, "run", str(KNIGHT_FORK), "-i", str(games), "-o", str(OUT / "p.pgn")]
    base += ["--jobs", "1"]
    CPU_SECONDS.clear()
    figures = medians(
        {
            "bar (terminal)": lambda: timed(base, terminal=True),
            "no bar (-q)": lambda: timed([*base, "-q"], terminal=True),
        },
        repeat,
    )
    cpu = {
        "bar (terminal)": statistics.median(CPU_SECONDS[0::2]),
        "no bar (-q)": statistics.median(CPU_SECONDS[1::2]),
    }
    print(f"knight-fork.cql, --jobs 1, {3 * 685} games, standard error on a pseudo-terminal:")
    for name, value in figures.items():
        print(f"  {name:16} {value:6.2f} s on the clock, {cpu[name]:6.2f} s of processor")
    ratio = figures["bar (terminal)"] / figures["no bar (-q)"]
    cpu_ratio = cpu["bar (terminal)"] / cpu["no bar (-q)"]
    print(f"  ratio            {ratio:6.3f} on the clock, {cpu_ratio:6.3f} of processor")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--only", nargs="+", choices=("html", "size", "progress"), default=None
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    chosen = args.only or ["html", "size", "progress"]
    steps = {"html": html_cost, "size": report_size, "progress": progress_cost}
    for name in chosen:
        steps[name](args.repeat)


if __name__ == "__main__":
    main()
