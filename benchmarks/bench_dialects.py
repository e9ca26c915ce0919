"""Each dialect construct beside its standard CQL 3 spelling, side by side (issue 30, item 7).

    python benchmarks/bench_dialects.py [--rounds 3] [--copies 3]

The games are the bundled ``cqllegacy/data/wcc.pgn.bz2`` repeated ``--copies`` times,
written as plain PGN under ``benchmarks/out/`` (git-ignored), with an index beside them.
Each pair is a script in a dialect form (Scidb CQL-S, Chess Assistant) and the standard
script its help spells it as.  Per pair: the median CPU time (user + system) of fresh
``cqllegacy run --jobs 1`` processes, by scan and with the index, rounds interleaved so
that a machine getting busier affects both alike; then dialect / standard.  The two
scripts of a pair must write the same games (compared by content).  Nothing here asserts
a time: tests/dialects/test_same_core.py checks the cause (both build one core query).
"""

from __future__ import annotations

import argparse
import bz2
import compileall
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"

#: (name, dialect form, its standard spelling).
PAIRS = [
    (
        ":doublecheck",
        "(match (position :doublecheck))",
        "(match (position :and ((position :attackcount A k 2 unlimited :flipcolor))))",
    ),
    (
        ":nomate, ?[27]",
        "(match (position :nomate P?[27] :piececount P >=14))",
        "(match (position :and ((position :not :mate)) P[?2,?7] :piececount P 14 unlimited))",
    ),
    (
        ":not (position …)",
        "(match (position :not (position :check) :movefrom Q :moveto k[a-h8]))",
        "(match (position :and ((position :not :and ((position :check)))) "
        ":movefrom Q :moveto k[a-h8]))",
    ),
    (
        ":line",
        "(match (position :noannotate :flipcolor :line (Nxe5 bxQ B:f7+)))",
        "(match (position :noannotate :flipcolor :sequence ((position :movefrom N :moveto Ue5)"
        " (position :movefrom b :moveto Q) (position :movefrom B :moveto ?f7)"
        " (position :check))))",
    ),
    (
        ":matchconsecutive",
        "(match (position :matchconsecutive ((position :check) (position :movefrom K))))",
        "(match (position :or ((position :sequence ((position :check) (position :movefrom K)))"
        " (position :sequence ((position :movefrom K) (position :check))))))",
    ),
    (
        ":halfmovenumber",
        "(match (position :halfmovenumber 41 :check))",
        "(match (position :or ((position :btm :movenumber 21)) :check))",
    ),
]


def corpus(copies: int) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / f"wcc-x{copies}.pgn"
    if not path.exists():
        text = bz2.decompress((ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2").read_bytes())
        path.write_bytes(text * copies)
    if not path.with_name(path.name + ".cqlidx").exists():
        subprocess.run([sys.executable, "-m", "cqllegacy", "index", str(path), "-q"], check=True)
    return path


def cpu_seconds(command: Sequence[str]) -> float:
    """The CPU time of ``command`` run as a fresh process (it must succeed)."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime


def run(script: Path, pgn: Path, out: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "cqllegacy", "run", str(script), "-i", str(pgn),
        "-o", str(out), "-q", "-j", "1", *flags,
    ]  # fmt: skip


def measure(pair: tuple[str, str, str], pgn: Path, rounds: int, work: Path) -> list[float]:
    """Median CPU seconds: dialect scan, standard scan, dialect indexed, standard indexed."""
    name, dialect, standard = pair
    scripts = []
    for kind, text in (("dialect", dialect), ("standard", standard)):
        script = work / f"{kind}.cql"
        script.write_text(text + "\n")
        scripts.append(script)
    times: list[list[float]] = [[], [], [], []]
    for _ in range(rounds):
        for slot, (script, flags) in enumerate(
            (s, f) for f in (("--no-index",), ()) for s in scripts
        ):
            times[slot].append(cpu_seconds(run(script, pgn, work / f"{slot}.pgn", *flags)))
    outputs = [work / f"{slot}.pgn" for slot in range(4)]
    if not all(filecmp.cmp(outputs[0], other, shallow=False) for other in outputs[1:]):
        raise SystemExit(f"{name}: the dialect and standard scripts wrote other games")
    return [statistics.median(found) for found in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=3)
    args = parser.parse_args()
    for folder in (ROOT / "cqllegacy", ROOT / "translator"):
        compileall.compile_dir(folder, quiet=1)
    pgn = corpus(args.copies)
    print("| construct | scan: dialect / standard CPU s | ratio | indexed: the same | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for pair in PAIRS:
            ds, ss, di, si = measure(pair, pgn, args.rounds, Path(folder))
            print(
                f"| {pair[0]} | {ds:.2f} / {ss:.2f} | {ds / ss:.2f} | "
                f"{di:.2f} / {si:.2f} | {di / si:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
