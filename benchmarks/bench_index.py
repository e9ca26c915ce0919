"""The position index against the scan, the replay floor and pgn-extract, side by side.

    python benchmarks/bench_index.py                 # the bundled-data corpus (below)
    python benchmarks/bench_index.py --pgn BIG.pgn   # another plain PGN file
    python benchmarks/bench_index.py --quick         # World Championship games only
    python benchmarks/bench_index.py --scale --pgn /work/corpus/games100k.pgn [--scan-sample 10000]
    python benchmarks/bench_index.py --pgn BIG.pgn --no-build --only plain,tags

The default corpus is every distinct game of the project's data folder, written as one
plain PGN file under ``benchmarks/out/``: the 685 World Championship games, 6,605
Lichess puzzles and, where the shared data folder is there, 6,065 studies and problems
(``CQLLEGACY_DATA`` names that folder; the studies are for local measurement only).  No
game is repeated.  ``benchmarks/make_corpus.py`` makes a large corpus of distinct games.

Every measurement is a fresh process (start-up included), timed in CPU seconds of the
process and its threads (user + system; the machine is shared, and CPU time is what a
busy machine does not inflate) and in wall seconds.  In rounds (``--repeat``), medians:

* the **floor** (``benchmarks/floor.py``: python-chess replaying every game);
* ``cqllegacy index`` against one scan ``run --no-index`` of the plain benchmark query,
  both with ``--jobs 1`` and ``--jobs N``, and the build's peak memory on half the file
  and on the whole;
* each query of ``benchmarks/queries/`` and of the extra queries below, ``--jobs 1``, with
  ``--no-index`` and with the index: the outputs (PGN and report) must be identical;
* ``pgn-extract -Tf`` on FEN patterns (white pawns on d4 and e4; a pawn chain c4-d4-e4
  against d5-e5) against the same questions asked with the index: the same games must
  come out (compared by their tags);
* the index's size per game, and the peak memory of an indexed run.

``--candidates`` times nothing: for every query (those above and the published scripts of
``$CQLLEGACY_PERF``, by default the shared folder's ``perf-scripts``, read in place) it
prints what the index can narrow by (:func:`~cqllegacy.evaluator.necessary.necessity`:
none, or per list its alternatives) and the share of the games that are candidates, beside
the share that matches (counted once per script and file, kept in
``benchmarks/out/index/matched.json``; ``--recount`` counts again).

``--scale-out`` measures instead the indexed run with ``--jobs 1`` against ``--jobs N``
(the candidate games spread over N processes), in wall seconds, on a few queries
(:data:`SCALE_OUT`); the outputs must be identical.

The tables it prints are the ones in docs/index-measurements.md (docs/performance.md gives their
headline figures).
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "index"
QUERIES = sorted((ROOT / "benchmarks" / "queries").glob("*.cql"))
DATA = Path(os.environ.get("CQLLEGACY_DATA", ROOT.parent / "shared" / "data"))
PERF = Path(os.environ.get("CQLLEGACY_PERF", ROOT.parent / "shared" / "perf-scripts"))

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


def bench(pgn: Path, repeat: int, jobs: int, only: set[str] | None, build_it: bool) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    games = count_games(pgn)
    scripts = [*QUERIES, *(script_for(name) for name in EXTRA)]
    if only is not None:
        scripts = [script for script in scripts if script.stem in only]
    print(f"corpus: {pgn} ({games} games, {pgn.stat().st_size / 1e6:.1f} MB)", flush=True)
    if build_it:
        measure_build(pgn, games, repeat, jobs)
    queries(pgn, games, scripts, repeat)
    pgn_extract(pgn, repeat)



def measure_build(pgn: Path, games: int, repeat: int, jobs: int) -> None:
    """Index build against one scan, with --jobs 1 and --jobs N, and its size."""
    index_path = pgn.with_name(pgn.name + ".cqlidx")
    build_figures(pgn, games, repeat, jobs)
    size = index_path.stat().st_size
    print(
        f"index size: {size / 1e6:.1f} MB, {size / games:.0f} bytes per game "
        f"({pgn.stat().st_size / games:.0f} bytes of PGN per game)",
        flush=True,
    )


def queries(pgn: Path, games: int, scripts: list[Path], repeat: int) -> None:
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
    if ratios:
        print(f"\nmedian query with the index: {median(ratios):.1f} x the floor")


#: FEN patterns pgn-extract's -Tf can say, and the same question in legacy CQL.
PATTERNS = [
    ("*/*/*/*/???PP*/*/*/*", "(match (position Pd4 Pe4))"),
    ("*/*/*/??ppp*/???PP*/*/*/*", "(match (position Pd4 Pe4 pc5 pd5 pe5))"),
]


def game_keys(path: Path) -> list[tuple[bytes, ...]]:
    """The games of a PGN file, each named by its roster tags, sorted."""
    text = path.read_bytes()
    keys = []
    for game in re.split(rb"(?m)^(?=\[Event )", text):
        if game.strip():
            tags = dict(re.findall(rb'(?m)^\[(\w+) "(.*)"\]', game))
            keys.append(tuple(tags.get(name, b"") for name in (b"Event", b"Site", b"Date",
                              b"Round", b"White", b"Black", b"Result")))  # fmt: skip
    return sorted(keys)


def build_figures(pgn: Path, games: int, repeat: int, jobs: int) -> None:
    """``cqllegacy index`` against one scan (``run --no-index`` of the plain query), both
    with ``--jobs 1`` and with ``--jobs N``, side by side in each round (wall seconds:
    what the user waits); then the build's peak memory on the first half of the file
    and on the whole (flat: about the same)."""
    plain = ROOT / "benchmarks" / "queries" / "plain.cql"
    for j in sorted({1, jobs}):
        build, scan = [], []
        for _ in range(repeat):
            build.append(measured(cqllegacy("index", str(pgn), "-q", "-j", str(j))))
            scan.append(
                measured(
                    cqllegacy("run", str(plain), "-i", str(pgn), "-o", str(OUT / "s.pgn"),
                              "-q", "--no-index", "-j", str(j))
                )
            )  # fmt: skip
        b, s = median([m[1] for m in build]), median([m[1] for m in scan])
        b_cpu, s_cpu = median([m[0] for m in build]), median([m[0] for m in scan])
        print(
            f"index build --jobs {j}: {b:.1f} s wall ({b_cpu:.1f} s CPU), one scan --jobs {j}: "
            f"{s:.1f} s wall ({s_cpu:.1f} s CPU): {b / s:.2f} x a scan's wall time, "
            f"{b_cpu / s_cpu:.2f} x its CPU ({games / b:.0f} games/s)",
            flush=True,
        )
    half = OUT / f"half-{pgn.name}"
    half.write_bytes(first_half(pgn))
    for part in (half, pgn):
        out = str(OUT / "m.cqlidx")
        peak = peak_kb(cqllegacy("index", str(part), "-q", "-j", str(jobs), "-o", out))
        print(
            f"index build peak memory ({part.stat().st_size / 1e6:.0f} MB of PGN): "
            f"{peak / 1024:.0f} MB (largest process)",
            flush=True,
        )
    half.unlink()


def first_half(pgn: Path) -> bytes:
    """The games of the first half of ``pgn`` (cut where a game's tags begin)."""
    data = pgn.read_bytes()
    cut = data.find(b"\n[Event ", len(data) // 2)
    return data if cut < 0 else data[: cut + 1]


def peak_kb(command: list[str]) -> int:
    """The peak resident kB of the largest process of one run of ``command`` (measured
    in a fresh wrapper: RUSAGE_CHILDREN keeps the maximum of every earlier child)."""
    wrapper = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, *command],
        check=True, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    return int(done.stdout.split()[-1])


def pgn_extract(pgn: Path, repeat: int) -> None:
    tool = shutil.which("pgn-extract") or shutil.which("pgn-extract", path="/usr/games")
    if tool is None:
        print("pgn-extract: not installed")
        return
    for pattern, cql in PATTERNS:
        script = OUT / "pattern.cql"
        script.write_text(cql + "\n", encoding="utf-8")
        theirs, ours = [], []
        for _ in range(repeat):
            theirs.append(
                measured([tool, "-s", f"-Tf{pattern}", str(pgn), "-o", str(OUT / "pe.pgn")])
            )
            ours.append(
                measured(
                    cqllegacy("run", str(script), "-i", str(pgn),
                              "-o", str(OUT / "cq.pgn"), "-q", "-j1")
                )
            )  # fmt: skip
        found_theirs, found_ours = game_keys(OUT / "pe.pgn"), game_keys(OUT / "cq.pgn")
        same = "the same games" if found_theirs == found_ours else "OTHER GAMES"
        t_wall, o_wall = median([w for _, w, _ in theirs]), median([w for _, w, _ in ours])
        t_cpu, o_cpu = median([c for c, _, _ in theirs]), median([c for c, _, _ in ours])
        print(
            f"pgn-extract -Tf'{pattern}': {len(found_theirs)} games, {t_wall:.2f} s wall "
            f"({t_cpu:.2f} s CPU); cqllegacy with the index: {len(found_ours)} games "
            f"({same}), {o_wall:.2f} s wall ({o_cpu:.2f} s CPU): {t_cpu / o_cpu:.1f} x "
            "faster (CPU)",
            flush=True,
        )


#: The selective query of the scale figure: a pawn wedge that random playouts seldom make.
SCALE_QUERY = "pawns-d4-e4-c4"


def scale(pgn: Path, jobs: int, sample: int) -> None:
    """The scale figure: on a large indexed file (built here if it is not fresh), the
    wall time of a selective query with the index, against a scan with ``--jobs N``, of
    the whole file or (``--scan-sample``) of its first games, extrapolated by the
    number of games (said so)."""
    games = count_games(pgn)
    print(f"corpus: {pgn} ({games} games, {pgn.stat().st_size / 1e6:.1f} MB)", flush=True)
    _, build_wall, _ = measured(cqllegacy("index", str(pgn), "-q", "-j", str(jobs)))
    size = pgn.with_name(pgn.name + ".cqlidx").stat().st_size
    print(
        f"index build --jobs {jobs}: {build_wall:.0f} s wall ({games / build_wall:.0f} games/s), "
        f"{size / games:.0f} bytes per game",
        flush=True,
    )
    script = str(script_for(SCALE_QUERY))
    out = str(OUT / "scale.pgn")
    cpu, wall, _ = measured(cqllegacy("run", script, "-i", str(pgn), "-o", out, "-q", "-j1"))
    matched = count_games(OUT / "scale.pgn")
    print(
        f"{SCALE_QUERY} {EXTRA[SCALE_QUERY]} with the index: {matched} games "
        f"({100 * matched / games:.2f} %), {wall:.1f} s wall ({cpu:.1f} s CPU), --jobs 1",
        flush=True,
    )
    part, label = pgn, "the whole file"
    if sample and sample < games:
        part = OUT / f"sample-{pgn.name}"
        data = pgn.read_bytes()
        cut = [m.start() for m in re.finditer(rb"^\[Event ", data, flags=re.M)][sample]
        part.write_bytes(data[:cut])
        label = f"its first {sample} games, x {games / sample:.1f}: extrapolated"
    scan_cpu, scan_wall, _ = measured(
        cqllegacy("run", script, "-i", str(part), "-o", str(OUT / "scale-scan.pgn"), "-q",
                  "--no-index", "-j", str(jobs))
    )  # fmt: skip
    if part is not pgn:
        scan_wall *= games / sample
        scan_cpu *= games / sample
        part.unlink()
    print(
        f"the same query scanned --jobs {jobs} ({label}): {scan_wall:.0f} s wall "
        f"({scan_cpu:.0f} s CPU); the index answers {scan_wall / wall:.0f} x sooner (wall), "
        f"{scan_cpu / cpu:.0f} x less CPU",
        flush=True,
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


def describe(need: Any) -> str:
    """What a necessity narrows by, in a few words: per list its alternatives (``s``: the
    summary alone decides it), then the game numbers and tags."""
    from cqllegacy.indexing.sql import summary_decides

    if need is None:
        return "none"
    parts = [
        f"{len(found.alternatives)}{'s' if summary_decides(found) else ''}"
        for found in need.lists
    ]
    words = [f"lists {'+'.join(parts)}"] if parts else []
    if need.gamenumber is not None:
        words.append("gamenumber")
    if need.tags:
        words.append("tags")
    return ", ".join(words) or "nothing"


def matched_counts(pgn: Path, scripts: list[Path], recount: bool) -> dict[str, int]:
    """The games each script matches in ``pgn`` (by an indexed run, which is exact),
    remembered by the script's text and the file's name and size."""
    sys.path.insert(0, str(ROOT))
    import hashlib
    import json

    from cqllegacy.api import load
    from cqllegacy.runner.results import InputFile

    store = OUT / "matched.json"
    known: dict[str, int] = json.loads(store.read_text()) if store.exists() else {}
    found = {}
    for script in scripts:
        text = script.read_bytes()
        key = f"{hashlib.sha256(text).hexdigest()[:16]} {pgn.name} {pgn.stat().st_size}"
        if recount or key not in known:
            started = time.monotonic()
            known[key] = load(script).scan([InputFile.of(pgn)], index=True).matched
            print(f"  counted {script.stem}: {known[key]} ({time.monotonic() - started:.0f} s)",
                  file=sys.stderr, flush=True)  # fmt: skip
            store.write_text(json.dumps(known, indent=1, sort_keys=True))
        found[script.stem] = known[key]
    return found


def candidate_table(pgns: list[Path], only: set[str] | None, recount: bool) -> None:
    """Per query and file: the necessity, the candidates' share, the matches' share."""
    sys.path.insert(0, str(ROOT))  # this checkout's package, not an installed one
    from cqllegacy.api import load
    from cqllegacy.evaluator.necessary import necessity
    from cqllegacy.indexing.store import default_index_path, open_index

    OUT.mkdir(parents=True, exist_ok=True)
    scripts = [*QUERIES, *(script_for(name) for name in EXTRA)]
    # The published scripts not among the benchmark queries already (by name).
    scripts += [path for path in sorted(PERF.glob("*.cql")) if path.stem not in
                {script.stem for script in scripts}]  # fmt: skip
    if only is not None:
        scripts = [script for script in scripts if script.stem in only]
    for pgn in pgns:
        if not default_index_path(pgn).exists():
            subprocess.run(cqllegacy("index", str(pgn), "-q"), check=True, cwd=ROOT)
        opened = open_index(default_index_path(pgn), pgn)
        matched = matched_counts(pgn, scripts, recount)
        print(f"\n{pgn.name}: {opened.games} games\n")
        print("| query | narrows by | candidates | matched | candidates / matched |")
        print("|---|---|---:|---:|---:|")
        shares = []
        for script in scripts:
            query = load(script)
            need = necessity(query.core)
            count = opened.games
            if need is not None:
                count = len(opened.candidates(need, 0, query.compiled.prefilter))
            share, hits = count / opened.games, matched[script.stem]
            shares.append(share)
            ratio = f"{count / hits:.1f}" if hits else "-"
            print(
                f"| {script.stem} | {describe(need)} | {count} ({100 * share:.1f} %) "
                f"| {hits} ({100 * hits / opened.games:.1f} %) | {ratio} |",
                flush=True,
            )
        narrow = sum(share <= 0.11 for share in shares)
        print(
            f"\n{narrow} of {len(shares)} queries narrow to 11 % of the games or fewer; "
            f"median candidate share {100 * median(shares):.1f} %"
        )
        opened.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgn", type=Path, help="a plain PGN file to measure on")
    parser.add_argument("--quick", action="store_true", help="World Championship games only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument(
        "--scale", action="store_true", help="only the scale figure (with --pgn: a large file)"
    )
    parser.add_argument(
        "--scan-sample", type=int, default=0, metavar="GAMES",
        help="with --scale: scan only the first GAMES games and extrapolate",
    )  # fmt: skip
    parser.add_argument("--only", help="comma-separated query names (file stems) to measure")
    parser.add_argument(
        "--no-build", action="store_true", help="use the (fresh) index there is; no build"
    )
    parser.add_argument(
        "--scale-out", action="store_true", help="the indexed run, --jobs 1 against --jobs N"
    )
    parser.add_argument(
        "--candidates", nargs="*", type=Path, metavar="PGN",
        help="no timing: per query, what the index narrows by and the candidates' share "
        "(on each PGN, indexed if need be; default the corpus)",
    )  # fmt: skip
    parser.add_argument("--recount", action="store_true", help="with --candidates: count again")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    if args.candidates is not None:
        candidate_table(args.candidates or [args.pgn or corpus(args.quick)], only, args.recount)
        return
    if args.scale_out:
        scale_out(args.pgn or corpus(args.quick), args.repeat, args.jobs)
        return
    if args.scale:
        scale(args.pgn or corpus(args.quick), args.jobs, args.scan_sample)
        return
    pgn = args.pgn or corpus(args.quick)
    if args.no_build and not pgn.with_name(pgn.name + ".cqlidx").exists():
        subprocess.run(cqllegacy("index", str(pgn), "-q"), check=True, cwd=ROOT)
    bench(pgn, args.repeat, args.jobs, only, not args.no_build)


if __name__ == "__main__":
    main()
