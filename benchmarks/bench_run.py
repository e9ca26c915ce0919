"""Speed and memory of ``cqllegacy run`` against the python-chess replay floor.

One command builds the corpus and measures everything::

    python benchmarks/bench_run.py            # the full corpus: WCC games x 15
    python benchmarks/bench_run.py --quick    # WCC games x 3, a 20 MB memory file
    python benchmarks/bench_run.py --sample --no-memory   # the 685 bundled games once
    python benchmarks/bench_run.py --sample --no-memory --extra DIR   # and DIR's scripts

The corpus is the bundled ``cqllegacy/data/wcc.pgn.bz2`` repeated, written as plain PGN
under ``benchmarks/out/`` (git-ignored).  Every measurement is a fresh process, timed
from start to exit (interpreter start-up and imports included, for the floor too):

* the **floor**: ``benchmarks/floor.py``, python-chess reading and replaying every game
  with a visitor that keeps nothing;
* ``cqllegacy run`` with each script of ``benchmarks/queries/`` (``--jobs 1``: one
  process, compared with the one-process floor), its games/s, the ratio to the floor,
  and peak memory (the largest resident set of the process);
* ``--jobs N`` (all cores) for a few queries, and its speed-up over ``--jobs 1``;
* peak memory of a ``--jobs 1`` and a ``--jobs N`` run on the corpus and on a generated
  ~100 MB file (20 MB with ``--quick``): largest process and, sampled, the whole process
  tree.

Floor and queries are measured in interleaved rounds (``--repeat``, default 3) and
medians are printed, so a machine that gets busier part-way affects all alike.
"""

from __future__ import annotations

import argparse
import bz2
import compileall
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks"
OUT = HERE / "out"
QUERIES = HERE / "queries"
SAMPLE = ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2"

#: Queries also measured with ``--jobs N``.
PARALLEL_QUERIES = ("plain", "knight-check", "knight-check-orbit", "sequence")

#: Baselines for the orbit target: (with transforms, the same list without them).
ORBIT_PAIRS = (("knight-check-orbit", "knight-check"),)


@attrs.frozen
class Measurement:
    seconds: float
    peak_kb: int
    tree_peak_kb: int


# --------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------


def sample_text() -> str:
    with bz2.open(SAMPLE, "rt", encoding="utf-8") as handle:
        text = handle.read()
    return text if text.endswith("\n\n") else text.rstrip("\n") + "\n\n"


def build_file(path: Path, copies: int) -> Path:
    """``copies`` times the sample games, unless the file is already there."""
    if path.exists():
        return path
    text = sample_text()
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    with open(temp, "w", encoding="utf-8", newline="\n") as handle:
        for _ in range(copies):
            handle.write(text)
    temp.replace(path)
    return path


def copies_for(megabytes: int) -> int:
    size = len(sample_text().encode("utf-8"))
    return max(1, round(megabytes * 1_000_000 / size))


# --------------------------------------------------------------------------------------
# Measuring one process
# --------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name (field 2) may hold spaces; the parent id follows its ")".
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_rss_kb(pid: int) -> int:
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += _rss_kb(current)
        stack.extend(_children(current))
    return total


class _TreeSampler(threading.Thread):
    """Samples the resident memory of a process and all its descendants."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            self.peak = max(self.peak, _tree_rss_kb(self.pid))


def measure(command: Sequence[str], *, sample_tree: bool = False) -> Measurement:
    """Run ``command`` in a fresh process; wall time and peak memory."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    sampler = _TreeSampler(process.pid) if sample_tree and Path("/proc").is_dir() else None
    if sampler:
        sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if sampler:
        sampler.done.set()
        sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}")
    # wait4 reports the largest resident set of the process and of its waited children.
    return Measurement(seconds, usage.ru_maxrss, sampler.peak if sampler else 0)


def run_command(query: Path, pgn: Path, output: Path, jobs: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "cqllegacy",
        "run",
        str(query),
        "-i",
        str(pgn),
        "-o",
        str(output),
        "-q",
        "--jobs",
        str(jobs),
    ]


def floor_command(pgn: Path) -> list[str]:
    return [sys.executable, str(HERE / "floor.py"), str(pgn)]


def compile_byte_code() -> None:
    """Compile the package's modules as ``pip install`` does, so that no measured process
    compiles source (where PYTHONDONTWRITEBYTECODE is set, no run would cache its own)."""
    for folder in (ROOT / "cqllegacy", ROOT / "translator"):
        compileall.compile_dir(folder, quiet=1)


def count_games(pgn: Path) -> int:
    text = subprocess.run(floor_command(pgn), capture_output=True, text=True, check=True)
    return int(text.stdout)


def count_matches(output: Path) -> int:
    with open(output, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.startswith("[Event "))


# --------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------


def median_of(items: list[Measurement]) -> Measurement:
    return Measurement(
        statistics.median(m.seconds for m in items),
        max(m.peak_kb for m in items),
        max(m.tree_peak_kb for m in items),
    )


def table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def speed_table(
    games: int, floor: Measurement, runs: dict[str, Measurement], matches: dict[str, int]
) -> str:
    floor_rate = games / floor.seconds
    rows = [["query", "matched", "games/s", "floor games/s", "ratio", "peak memory"]]
    for name, m in runs.items():
        rate = games / m.seconds
        rows.append(
            [
                name,
                str(matches[name]),
                f"{rate:,.0f}",
                f"{floor_rate:,.0f}",
                f"{rate / floor_rate:.2f}",
                mb(m.peak_kb),
            ]
        )
    rows.append(
        ["(floor)", "-", f"{floor_rate:,.0f}", f"{floor_rate:,.0f}", "1.00", mb(floor.peak_kb)]
    )
    return table(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a smaller corpus (WCC x 3)")
    parser.add_argument(
        "--sample",
        action="store_true",
        help="the bundled games once (685), start-up weighing as much as a user sees it",
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds of measurements")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="for the parallel runs"
    )
    parser.add_argument("--only", nargs="+", metavar="QUERY", help="measure these queries only")
    parser.add_argument("--no-memory", action="store_true", help="skip the large-file runs")
    parser.add_argument(
        "--extra",
        nargs="+",
        default=[],
        metavar="DIR",
        help="also measure the scripts of these folders (published scripts whose licence "
        "keeps them out of the repository)",
    )
    args = parser.parse_args(argv)

    compile_byte_code()
    copies = 1 if args.sample else 3 if args.quick else 15
    name = "sample" if args.sample else "corpus-quick" if args.quick else "corpus"
    corpus = build_file(OUT / f"{name}.pgn", copies)
    big_mb = 20 if args.quick else 100
    queries = sorted(QUERIES.glob("*.cql"))
    for folder in args.extra:
        queries.extend(sorted(Path(folder).resolve().glob("*.cql")))
    if args.only:
        queries = [q for q in queries if q.stem in args.only]
    games = count_games(corpus)
    print(
        f"corpus: {corpus.relative_to(ROOT)}: {games} games, {corpus.stat().st_size / 1e6:.1f} MB"
    )
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.repeat} rounds, medians\n"
    )

    floors: list[Measurement] = []
    runs: dict[str, list[Measurement]] = {q.stem: [] for q in queries}
    for _ in range(args.repeat):
        floors.append(measure(floor_command(corpus)))
        for query in queries:
            output = OUT / f"{query.stem}.pgn"
            runs[query.stem].append(measure(run_command(query, corpus, output, 1)))
    floor = median_of(floors)
    medians = {name: median_of(items) for name, items in runs.items()}
    matches = {q.stem: count_matches(OUT / f"{q.stem}.pgn") for q in queries}
    print("single process (--jobs 1) against the single-process floor")
    print(speed_table(games, floor, medians, matches))

    for orbit_name, plain_name in ORBIT_PAIRS:
        if orbit_name in medians and plain_name in medians:
            ratio = medians[orbit_name].seconds / medians[plain_name].seconds
            print(f"\n{orbit_name} costs {ratio:.2f} x {plain_name} (run time, --jobs 1)")

    parallel = [q for q in queries if q.stem in PARALLEL_QUERIES]
    if parallel and args.jobs > 1:
        rows = [["query", "--jobs 1 games/s", f"--jobs {args.jobs} games/s", "speed-up"]]
        for query in parallel:
            output = OUT / f"{query.stem}-jobs.pgn"
            timings = [
                measure(run_command(query, corpus, output, args.jobs)) for _ in range(args.repeat)
            ]
            many = median_of(timings)
            one = medians[query.stem]
            if output.read_bytes() != (OUT / f"{query.stem}.pgn").read_bytes():
                raise SystemExit(f"--jobs {args.jobs} wrote a different output for {query.stem}")
            rows.append(
                [
                    query.stem,
                    f"{games / one.seconds:,.0f}",
                    f"{games / many.seconds:,.0f}",
                    f"{one.seconds / many.seconds:.2f}",
                ]
            )
        print(f"\n--jobs {args.jobs} (outputs checked identical to --jobs 1)")
        print(table(rows))

    if not args.no_memory:
        big = build_file(OUT / f"big-{big_mb}mb.pgn", copies_for(big_mb))
        query = QUERIES / "plain.cql"
        rows = [["input", "jobs", "seconds", "largest process", "whole process tree"]]
        for pgn in (corpus, big):
            for jobs in (1, args.jobs):
                m = measure(run_command(query, pgn, OUT / "memory.pgn", jobs), sample_tree=True)
                size = f"{pgn.name} ({pgn.stat().st_size / 1e6:.0f} MB)"
                rows.append(
                    [size, str(jobs), f"{m.seconds:.1f}", mb(m.peak_kb), mb(m.tree_peak_kb)]
                )
        print(f"\npeak memory, query {query.stem}")
        print(table(rows))


if __name__ == "__main__":
    main()
