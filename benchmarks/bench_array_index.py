"""Each script with the index (answered by the array forms where it can) against its own
scan, side by side, whole processes.

    python benchmarks/bench_array_index.py --pgn GAMES.pgn [--repeat 3] [--only a,b]
    python benchmarks/bench_array_index.py --pgn GAMES.pgn --extra DIR   # and DIR's scripts

The file is indexed first when no fresh index lies beside it.  The scripts: every
example and benchmark query, and the published scripts of ``$CQLLEGACY_PERF`` (by default
the shared folder's ``perf-scripts``) when present.  Each run is a fresh process with
``--jobs 1``; its CPU time (user + system, what a shared machine does not inflate) is
taken, in rounds, as the median.  The outputs (PGN and report) of the two runs must be
identical.  The start-up of each script (an empty input) is measured too, so that the
ratio of the time beyond start-up can be read for files of short games.

It prints one table: CPU seconds of the scan, of the indexed run, their ratio, and the
ratio of the time beyond start-up, and the indexed run's peak resident memory; then the
median ratio.  The README's speed table
and docs/performance.md quote its figures.
"""

from __future__ import annotations

import argparse
import compileall
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PERF = Path(os.environ.get("CQLLEGACY_PERF", ROOT.parent / "shared" / "perf-scripts"))


def cpu_seconds(command: Sequence[str], peaks: list[float] | None = None) -> float:
    """The CPU time of ``command`` run as a fresh process (it must succeed); its peak
    resident memory in MB (the largest of its processes) is appended to ``peaks``."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    if peaks is not None:
        peaks.append(usage.ru_maxrss / 1024)  # Linux reports kilobytes
    return usage.ru_utime + usage.ru_stime


def run(script: Path, pgn: Path, out: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "cqllegacy", "run", str(script), "-i", str(pgn),
        "-o", str(out / "out.pgn"), "--report", str(out / "out.jsonl"), "-q", "-j", "1", *flags,
    ]  # fmt: skip


def scripts(extra: Path | None, only: set[str] | None) -> list[Path]:
    found = sorted((ROOT / "examples").glob("*.cql")) + sorted(
        (HERE / "queries").glob("*.cql")
    )
    names = {path.name for path in found}
    for folder in (PERF, extra):
        if folder is not None and folder.is_dir():
            found += [p for p in sorted(folder.glob("*.cql")) if p.name not in names]
    return [p for p in found if only is None or p.stem in only]


def measure(script: Path, pgn: Path, empty: Path, repeat: int, work: Path) -> tuple[float, ...]:
    scan_out, index_out, start_out = work / "scan", work / "index", work / "start"
    for folder in (scan_out, index_out, start_out):
        folder.mkdir(exist_ok=True)
    scans, indexed, starts, peaks = [], [], [], []
    for _ in range(repeat):
        scans.append(cpu_seconds(run(script, pgn, scan_out, "--no-index")))
        indexed.append(cpu_seconds(run(script, pgn, index_out), peaks))
        starts.append(cpu_seconds(run(script, empty, start_out, "--no-index")))
    for name in ("out.pgn", "out.jsonl"):
        if not filecmp.cmp(scan_out / name, index_out / name, shallow=False):
            raise SystemExit(f"{script.name}: the indexed run wrote another {name}")
    return (
        statistics.median(scans), statistics.median(indexed), statistics.median(starts), max(peaks)
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pgn", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", help="comma-separated script names (file stems)")
    parser.add_argument("--extra", type=Path, help="a folder of further scripts")
    args = parser.parse_args(argv)
    # As `pip install` leaves it: no measured process compiles source.
    for folder in (ROOT / "cqllegacy", ROOT / "translator"):
        compileall.compile_dir(folder, quiet=1)
    pgn = args.pgn.resolve()
    if not pgn.with_name(pgn.name + ".cqlidx").exists():
        subprocess.run([sys.executable, "-m", "cqllegacy", "index", str(pgn), "-q"], check=True)
    only = set(args.only.split(",")) if args.only else None
    rows, ratios = [], []
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        empty = work / "empty.pgn"
        empty.write_text("")
        for script in scripts(args.extra, only):
            scan, indexed, start, peak = measure(script, pgn, empty, args.repeat, work)
            ratio = scan / indexed
            beyond = (scan - start) / max(indexed - start, 0.01)
            ratios.append(ratio)
            rows.append(f"| {script.stem} | {scan:.2f} | {indexed:.2f} | {ratio:.1f} × | "
                        f"{beyond:.1f} × | {peak:.0f} |")  # fmt: skip
            print(rows[-1], flush=True)
    print("| script | scan CPU s | indexed CPU s | speed-up | beyond start-up | indexed peak MB |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"median speed-up {statistics.median(ratios):.1f} ×, least {min(ratios):.1f} ×")


if __name__ == "__main__":
    main()
