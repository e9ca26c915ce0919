"""Start-up of ``cqllegacy run``: a legacy script read, translated and compiled, on an
empty input; and what an index beside the input adds.

Each tree is named by an interpreter whose ``cqllegacy`` is that tree's (a virtual
environment with the tree installed in editable mode), so that two checkouts are
measured side by side, interleaved round by round, on the same loaded machine::

    python benchmarks/bench_startup.py --tree branch=.venv/bin/python \\
        --tree main=/path/to/main/venv/bin/python --rounds 7 --instructions

Per script and tree: the median CPU time (user + system, the child process's own and
its children's) over ``--rounds`` fresh processes; with ``--instructions``, the
instructions one process executes (valgrind's cachegrind, hash seed fixed: the same
count on a busy machine as on an idle one).  ``--bytecode cached`` measures with every
module's byte code compiled beforehand (a cache folder of its own per tree, filled by a
first run); ``as-is`` (the default) with the environment's own setting, which on a
machine that sets ``PYTHONDONTWRITEBYTECODE`` and has no ``__pycache__`` beside an
editable tree means compiling the package's sources in every process.  ``--index``
adds, per tree, the extra CPU time of a run on a small PGN file with an index beside it
over the same file without one.

Figures: docs/performance.md.  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "examples").glob("*.cql")) + sorted(
    (ROOT / "benchmarks" / "queries").glob("*.cql")
)
SMALL_GAMES = ROOT / "examples" / "games" / "smothered-mate.pgn"


def cpu_seconds(command: list[str], env: dict[str, str]) -> float:
    """User + system CPU time of one process running ``command`` (and its children)."""
    pid = os.fork()
    if pid == 0:  # the child: run the command with its output thrown away
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execve(command[0], command, env)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime


def instructions(command: list[str], env: dict[str, str]) -> int:
    """Instructions executed by ``command`` (valgrind --tool=cachegrind)."""
    valgrind = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
    ]
    done = subprocess.run(
        [*valgrind, *command], env={**env, "PYTHONHASHSEED": "0"}, capture_output=True, text=True
    )
    for line in done.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.split("refs:")[1].replace(",", "").strip())
    raise SystemExit(f"no instruction count from valgrind for {' '.join(command)}")


def environment(bytecode: str, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    if bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def run_command(python: str, script: Path, games: Path, out: Path) -> list[str]:
    return [python, "-m", "cqllegacy", "run", str(script), "-i", str(games), "-o", str(out), "-q"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", metavar="NAME=PYTHON", default=[])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--bytecode", choices=("as-is", "cached"), default="as-is")
    parser.add_argument("--index", action="store_true", help="also the extra of an index")
    parser.add_argument("--more", type=Path, action="append", default=[], help="a folder of .cql")
    parser.add_argument("--only", nargs="*", help="script names (without .cql)")
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.tree) or {"this": sys.executable}
    scripts = SCRIPTS + [p for folder in args.more for p in sorted(folder.glob("*.cql"))]
    if args.only:
        scripts = [p for p in scripts if p.stem in args.only]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        os.chdir(work)  # not a checkout: ``python -m`` would put its package first
        empty, out = work / "empty.pgn", work / "out.pgn"
        empty.write_text("")
        envs = {name: environment(args.bytecode, work / f"pyc-{name}") for name in trees}
        for name, python in trees.items():  # warm up: caches of byte code and the disk
            cpu_seconds(run_command(python, scripts[0], empty, out), envs[name])
        names = list(trees)
        header = ["script", *(f"{n} CPU s" for n in names)]
        if len(names) == 2:
            header.append(f"{names[0]}/{names[1]}")
        if args.instructions:
            header += [f"{n} G instr." for n in names]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for script in scripts:
            times: dict[str, list[float]] = {n: [] for n in names}
            for _ in range(args.rounds):
                for name in names:
                    command = run_command(trees[name], script, empty, out)
                    times[name].append(cpu_seconds(command, envs[name]))
            medians = [statistics.median(times[n]) for n in names]
            row = [script.stem, *(f"{m:.3f}" for m in medians)]
            if len(names) == 2:
                row.append(f"{medians[0] / medians[1]:.2f}")
            if args.instructions:
                for name in names:
                    command = run_command(trees[name], script, empty, out)
                    row.append(f"{instructions(command, envs[name]) / 1e9:.3f}")
            print("| " + " | ".join(row) + " |", flush=True)
        if args.index:
            index_extra(trees, envs, scripts[0], work, args.rounds)


def index_extra(
    trees: dict[str, str], envs: dict[str, dict[str, str]], script: Path, work: Path, rounds: int
) -> None:
    """Per tree: the median CPU of a run on a small file with its index, and without."""
    print(f"\nIndex beside the input ({SMALL_GAMES.name}, {script.stem}), CPU s, medians:")
    plain = work / "plain" / SMALL_GAMES.name
    plain.parent.mkdir()
    shutil.copy(SMALL_GAMES, plain)
    indexed: dict[str, Path] = {}
    for name, python in trees.items():
        games = work / f"indexed-{name}" / SMALL_GAMES.name
        games.parent.mkdir()
        shutil.copy(SMALL_GAMES, games)
        subprocess.run(
            [python, "-m", "cqllegacy", "index", str(games), "-q"], env=envs[name], check=True
        )
        indexed[name] = games
    out = work / "out.pgn"
    for name, python in trees.items():
        with_index, without = [], []
        for _ in range(rounds):
            with_index.append(
                cpu_seconds(run_command(python, script, indexed[name], out), envs[name])
            )
            without.append(cpu_seconds(run_command(python, script, plain, out), envs[name]))
        a, b = statistics.median(with_index), statistics.median(without)
        print(f"- {name}: with the index {a:.3f}, without {b:.3f}, extra {a - b:+.3f}")


if __name__ == "__main__":
    main()
