"""The position index against the scan, the replay floor and pgn-extract, side by side.

    python benchmarks/bench_index.py                 # the bundled-data corpus (below)
    python benchmarks/bench_index.py --pgn BIG.pgn   # another plain PGN file
    python benchmarks/bench_index.py --quick         # World Championship games only

The default corpus is every distinct game of the project's data folder, written as one
plain PGN file under ``benchmarks/out/``: the 685 World Championship games, 6,605
Lichess puzzles and, where the shared data folder is there, 6,065 studies and problems
(``CQLLEGACY_DATA`` names that folder; the studies are for local measurement only).  No
game is repeated.  ``benchmarks/make_corpus.py`` makes a large corpus of distinct games.

Every measurement is a fresh process (start-up included), timed in CPU seconds of the
process and its threads (user + system; the machine is shared, and CPU time is what a
busy machine does not inflate) and in wall seconds.  In rounds (``--repeat``), medians:

* the **floor** (``benchmarks/floor.py``: python-chess replaying every game);
* ``cqllegacy index`` (``--jobs N``) against one scan ``run --no-index --jobs N`` of the
  plain benchmark query;
* each query of ``benchmarks/queries/`` and of the extra queries below, ``--jobs 1``, with
  ``--no-index`` and with the index: the outputs (PGN and report) must be identical;
* ``pgn-extract -Tf`` on a FEN pattern (white pawns on d4 and e4) against the same
  question asked with the index: the same games must come out;
* the index's size per game, and the peak memory of an indexed run.

``--scale-out`` measures instead the indexed run with ``--jobs 1`` against ``--jobs N``
(the candidate games spread over N processes), in wall seconds, on a few queries
(:data:`SCALE_OUT`); the outputs must be identical.

The table it prints is the one in the README.
"""

from __future__ import annotations

import argparse
import bz2
import lzma
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "index"
QUERIES = sorted((ROOT / "benchmarks" / "queries").glob("*.cql"))
DATA = Path(os.environ.get("CQLLEGACY_DATA", ROOT.parent / "shared" / "data"))

#: Queries of the kinds users ask an indexed database: a few pieces on given squares
#: (selective), an endgame by material, a mate pattern.
EXTRA = {
    "pawns-d4-e4": "(match (position Pd4 Pe4))",
    "pawns-d4-e4-c4": "(match (position Pd4 Pe4 Pc4 pd5 pe5))",
    "rook-endgame": "(match (position :piececount [QqBbNn] 0 :piececount R 1 :piececount r 1))",
    "queen-mates-on-h7": "(match (position :mate Qh7 kg8))",
    "knight-on-d6-check": "(match (position :check Nd6 ke8 :flipcolor))",
    "bishop-pair-vs-rook": (
        "(match (position :piececount B 2 :piececount [Nn] 0 :piececount r 1 "
        ":piececount R 0 :piececount b 0 :piececount [Qq] 0))"
    ),
}


#: Queries for ``--scale-out``: many candidates and a costly evaluation, a selective one.
SCALE_OUT = ("real-15-knightchase", "forany-pawn-promotes", "pawns-d4-e4-c4")


def corpus(quick: bool) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / ("wcc.pgn" if quick else "data.pgn")
    if path.exists():
        return path
    parts = [bz2.decompress((ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2").read_bytes())]
    if not quick:
        parts.append(lzma.decompress((ROOT / "fixtures" / "lichess-puzzles.pgn.xz").read_bytes()))
        studies = DATA / "studies-problems.pgn.xz"
        if studies.exists():
            parts.append(lzma.decompress(studies.read_bytes()))
    path.write_bytes(b"\n\n".join(parts))
    return path


def measured(command: list[str]) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and peak resident kB of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, after.ru_maxrss


def cqllegacy(*args: str) -> list[str]:
    return [sys.executable, "-m", "cqllegacy", *args]


def script_for(name: str) -> Path:
    path = OUT / f"{name}.cql"
    path.write_text(EXTRA[name] + "\n", encoding="utf-8")
    return path


def count_games(path: Path) -> int:
    return len(re.findall(rb"^\[Event ", path.read_bytes(), flags=re.M))


def median(values: list[float]) -> float:
    return statistics.median(values)


def bench(pgn: Path, repeat: int, jobs: int) -> None:
    games = count_games(pgn)
    scripts = [*QUERIES, *(script_for(name) for name in EXTRA)]
    print(f"corpus: {pgn} ({games} games, {pgn.stat().st_size / 1e6:.1f} MB)", flush=True)

    # Index build against one scan, both with --jobs.
    build, scan_j = [], []
    plain = ROOT / "benchmarks" / "queries" / "plain.cql"
    for _ in range(repeat):
        build.append(measured(cqllegacy("index", str(pgn), "-q", "-j", str(jobs)))[1])
        scan_j.append(
            measured(
                cqllegacy("run", str(plain), "-i", str(pgn), "-o", str(OUT / "s.pgn"),
                          "-q", "--no-index", "-j", str(jobs))
            )[1]
        )  # fmt: skip
    index_path = pgn.with_name(pgn.name + ".cqlidx")
    size = index_path.stat().st_size
    print(
        f"index: build {median(build):.1f} s wall with --jobs {jobs}, one scan "
        f"{median(scan_j):.1f} s: {median(build) / median(scan_j):.2f} x a scan; "
        f"{size / 1e6:.1f} MB, {size / games:.0f} bytes per game ({pgn.stat().st_size / games:.0f} "
        "bytes of PGN)",
        flush=True,
    )

    floor = [measured([sys.executable, "benchmarks/floor.py", str(pgn)])[0] for _ in range(repeat)]
    floor_cpu = median(floor)
    print(f"floor: {floor_cpu:.2f} s CPU ({games / floor_cpu:.0f} games/s)", flush=True)
    print()
    print("| query | matched | scan s | index s | × floor (index) | × scan | peak MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for script in scripts:
        scan_times, index_times, peak = [], [], 0
        for _ in range(repeat):
            out_s, out_i = OUT / "scan.pgn", OUT / "index.pgn"
            scan_times.append(
                measured(
                    cqllegacy("run", str(script), "-i", str(pgn), "-o", str(out_s),
                              "--report", str(OUT / "scan.jsonl"), "-q", "--no-index", "-j1")
                )[0]
            )  # fmt: skip
            cpu, _wall, rss = measured(
                cqllegacy("run", str(script), "-i", str(pgn), "-o", str(out_i),
                          "--report", str(OUT / "index.jsonl"), "-q", "-j1")
            )  # fmt: skip
            index_times.append(cpu)
            peak = max(peak, rss)
            same = out_s.read_bytes() == out_i.read_bytes() and (
                (OUT / "scan.jsonl").read_bytes() == (OUT / "index.jsonl").read_bytes()
            )
            if not same:
                raise SystemExit(f"{script.name}: the indexed run wrote other bytes")
        matched = count_games(OUT / "index.pgn")
        s, i = median(scan_times), median(index_times)
        ratios.append(floor_cpu / i)
        print(
            f"| {script.stem} | {matched} ({100 * matched / games:.1f} %) | {s:.2f} | {i:.2f} "
            f"| {floor_cpu / i:.1f} | {s / i:.1f} | {peak / 1024:.0f} |",
            flush=True,
        )
    print(f"\nmedian query with the index: {median(ratios):.1f} x the floor")
    pgn_extract(pgn, repeat)


def pgn_extract(pgn: Path, repeat: int) -> None:
    tool = shutil.which("pgn-extract")
    if tool is None:
        print("pgn-extract: not installed")
        return
    pattern = "*/*/*/*/???PP*/*/*/*"
    theirs, ours = [], []
    for _ in range(repeat):
        theirs.append(measured([tool, "-s", f"-Tf{pattern}", str(pgn), "-o", str(OUT / "pe.pgn")]))
        ours.append(
            measured(
                cqllegacy("run", str(script_for("pawns-d4-e4")), "-i", str(pgn),
                          "-o", str(OUT / "cq.pgn"), "-q", "-j1")
            )
        )  # fmt: skip
    found_theirs, found_ours = count_games(OUT / "pe.pgn"), count_games(OUT / "cq.pgn")
    t_wall, o_wall = median([w for _, w, _ in theirs]), median([w for _, w, _ in ours])
    t_cpu, o_cpu = median([c for c, _, _ in theirs]), median([c for c, _, _ in ours])
    print(
        f"pgn-extract -Tf'{pattern}': {found_theirs} games, {t_wall:.2f} s wall "
        f"({t_cpu:.2f} s CPU); cqllegacy with the index: {found_ours} games, {o_wall:.2f} s "
        f"wall ({o_cpu:.2f} s CPU): {t_wall / o_wall:.1f} x faster (wall)"
    )


def main_process_cpu(argv: list[str]) -> float:
    """The CPU seconds of the process that runs ``cqllegacy argv`` alone, its workers left
    out: the part of a parallel run no worker can take (with idle cores, the wall time is
    at least this, and at least the total CPU time over the cores)."""
    code = (
        "import resource, sys\n"
        "from cqllegacy.cli import main\n"
        "main(sys.argv[1:])\n"
        "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(usage.ru_utime + usage.ru_stime)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[-1])


def scale_out(pgn: Path, repeat: int, jobs: int) -> None:
    """Indexed runs with one process against ``jobs`` processes, wall seconds."""
    games = count_games(pgn)
    index_path = pgn.with_name(pgn.name + ".cqlidx")
    if not index_path.exists():
        measured(cqllegacy("index", str(pgn), "-q", "-j", str(jobs)))
    print(f"corpus: {pgn} ({games} games, {pgn.stat().st_size / 1e6:.1f} MB), indexed")
    print(
        f"| query | matched | -j1 wall s | -j{jobs} wall s | wall speed-up | -j1 CPU s "
        f"| -j{jobs} CPU s (all processes) | -j{jobs} CPU s (main process) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in SCALE_OUT:
        queries = ROOT / "benchmarks" / "queries"
        script = script_for(name) if name in EXTRA else queries / f"{name}.cql"
        walls: dict[int, list[float]] = {1: [], jobs: []}
        cpus: dict[int, list[float]] = {1: [], jobs: []}
        own: list[float] = []
        written: dict[int, bytes] = {}
        for _ in range(repeat):
            for count in walls:
                out = OUT / f"scale{count}.pgn"
                report = OUT / f"scale{count}.jsonl"
                argv = ["run", str(script), "-i", str(pgn), "-o", str(out),
                        "--report", str(report), "-q", "-j", str(count)]  # fmt: skip
                cpu, wall, _rss = measured(cqllegacy(*argv))
                if count == jobs:
                    own.append(main_process_cpu(argv))
                walls[count].append(wall)
                cpus[count].append(cpu)
                written[count] = out.read_bytes() + report.read_bytes()
            if written[1] != written[jobs]:
                raise SystemExit(f"{name}: --jobs {jobs} wrote other bytes than --jobs 1")
        one, many = median(walls[1]), median(walls[jobs])
        matched = count_games(OUT / "scale1.pgn")
        print(
            f"| {name} | {matched} | {one:.2f} | {many:.2f} | {one / many:.2f} "
            f"| {median(cpus[1]):.2f} | {median(cpus[jobs]):.2f} | {median(own):.2f} |",
            flush=True,
        )
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgn", type=Path, help="a plain PGN file to measure on")
    parser.add_argument("--quick", action="store_true", help="World Championship games only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument(
        "--scale-out", action="store_true", help="the indexed run, --jobs 1 against --jobs N"
    )
    args = parser.parse_args()
    if args.scale_out:
        scale_out(args.pgn or corpus(args.quick), args.repeat, args.jobs)
    else:
        bench(args.pgn or corpus(args.quick), args.repeat, args.jobs)


if __name__ == "__main__":
    main()
