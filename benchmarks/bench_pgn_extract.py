"""A whole ``cqllegacy run`` with an index beside pgn-extract's scan of the same file,
side by side, interleaved round by round (issue 31, item 5's pgn-extract line).

    python benchmarks/bench_pgn_extract.py --pgn benchmarks/out/wcc15.pgn \\
        --tree main=/path/to/main/python --tree branch=.venv/bin/python --rounds 5

The question is white pawns on d4 and e4: ``pgn-extract -s -Tf'*/*/*/*/???PP*/*/*/*'``
and ``(match (position Pd4 Pe4))``.  The file must have a fresh index beside it
(``cqllegacy index FILE``).  Per tree and ``--jobs`` setting (none: the default), and for
pgn-extract: the median CPU time (user + system, children included) and wall time of
fresh processes, output written.  Each tree's output must hold the games pgn-extract
writes (compared by count).  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

PATTERN = "*/*/*/*/???PP*/*/*/*"
SCRIPT = "(match (position Pd4 Pe4))\n"


def measure(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user + system, children included) and wall seconds of ``command``."""
    began = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: run the command with its messages thrown away
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execve(command[0], command, env)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime, wall


def games_in(path: Path) -> int:
    return sum(line.startswith(b"[Event ") for line in path.read_bytes().splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pgn", type=Path, required=True)
    parser.add_argument("--tree", action="append", metavar="NAME=PYTHON", default=[])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", nargs="*", default=["default", "1"])
    parser.add_argument("--bytecode-cache", type=Path, help="PYTHONPYCACHEPREFIX per tree")
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.tree)
    tool = shutil.which("pgn-extract") or shutil.which("pgn-extract", path="/usr/games")
    pgn = args.pgn.resolve()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        script = work / "pawns.cql"
        script.write_text(SCRIPT)
        commands: dict[str, tuple[list[str], dict[str, str], Path]] = {}
        for name, python in trees.items():
            env = dict(os.environ)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            cache = args.bytecode_cache or work
            env["PYTHONPYCACHEPREFIX"] = str(cache / f"pyc-{name}")
            for jobs in args.jobs:
                out = work / f"out-{name}-{jobs}.pgn"
                command = [python, "-m", "cqllegacy", "run", str(script), "-i", str(pgn)]
                command += ["-o", str(out), "-q"]
                if jobs != "default":
                    command += ["-j", jobs]
                commands[f"{name} -j {jobs}"] = (command, env, out)
        if tool is not None:
            out = work / "pgn-extract.pgn"
            command = [tool, "-s", f"-Tf{PATTERN}", str(pgn), "-o", str(out)]
            commands["pgn-extract"] = (command, dict(os.environ), out)
        for command, env, _ in commands.values():  # warm up: byte code, the disk
            measure(command, env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, (command, env, _) in commands.items():
                times[name].append(measure(command, env))
        print("| run | games written | CPU s | wall s |")
        print("|---|---|---|---|")
        for name, (_, _, out) in commands.items():
            cpu = statistics.median(t[0] for t in times[name])
            wall = statistics.median(t[1] for t in times[name])
            print(f"| {name} | {games_in(out)} | {cpu:.3f} | {wall:.3f} |")


if __name__ == "__main__":
    main()
