"""What evaluating a query costs on top of reading the games, output left aside.

``python benchmarks/bench_eval.py [PGN] [--only QUERY ...]`` splits the games of a PGN
file (default: the benchmark corpus, see ``bench_run.py``) once, in memory, then reads
every game with python-chess:

* with a visitor that keeps nothing (the floor, as ``floor.py``), and
* for each script of ``benchmarks/queries/``, the way ``cqllegacy run`` does it: on the
  query's stream while the game is read (a game tree and the usual evaluation where the
  query needs them), then, for a game that matches, nothing more: neither the second
  reading nor the output of ``run`` is counted.

It prints the time per game of each, and the evaluation cost: the difference to the
floor, per game and per position.  The ``:shift :flip :flipcolor`` target compares
these evaluation costs for a list with and without its transforms.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cqllegacy.evaluator.evaluate import CompiledQuery, compile_query  # noqa: E402
from cqllegacy.runner.pgn import (  # noqa: E402
    GameText,
    open_pgn,
    read_game,
    read_stream,
    read_tags,
    split_games,
)
from cqllegacy.runner.scripts import load_query  # noqa: E402

QUERIES = ROOT / "benchmarks" / "queries"
DEFAULT_PGN = ROOT / "benchmarks" / "out" / "corpus.pgn"


class _Lean(chess.pgn.BaseVisitor[bool]):
    def result(self) -> bool:
        return True


def load_games(path: Path) -> list[GameText]:
    with open_pgn(path) as source:
        return list(split_games(source.lines()))


def floor_seconds(games: Sequence[GameText]) -> float:
    started = time.process_time()
    for text in games:
        chess.pgn.read_game(io.StringIO(text.pgn()), Visitor=_Lean)
    return time.process_time() - started


def query_seconds(compiled: CompiledQuery, games: Sequence[GameText]) -> tuple[float, int]:
    """Time to decide every game the way the runner does; and how many matched."""
    matched = 0
    started = time.process_time()
    for ordinal, text in enumerate(games, start=1):
        headers, _ = read_tags(text.tag_lines)
        if not compiled.prefilter(headers, ordinal):
            continue
        stream = compiled.stream(headers, ordinal)
        if stream is not None and read_stream(text, stream):
            verdict = stream.verdict()
            if verdict is not None:
                matched += verdict.matched
                continue
        matched += compiled.evaluate(read_game(text), ordinal).matched
    return time.process_time() - started, matched


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pgn", nargs="?", type=Path, default=DEFAULT_PGN)
    parser.add_argument("--only", nargs="+", metavar="QUERY")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    games = load_games(args.pgn)
    positions = sum(1 + len(g.movetext.split()) * 2 // 3 for g in games)  # rough, for scale
    queries = sorted(QUERIES.glob("*.cql"))
    if args.only:
        queries = [q for q in queries if q.stem in args.only]
    compiled = {q.stem: compile_query(load_query(q).query) for q in queries}
    floors: list[float] = []
    times: dict[str, list[float]] = {name: [] for name in compiled}
    matches: dict[str, int] = {}
    for _ in range(args.repeat):
        floors.append(floor_seconds(games))
        for name, query in compiled.items():
            seconds, matches[name] = query_seconds(query, games)
            times[name].append(seconds)
    n = len(games)
    print(f"{args.pgn.name}: {n} games, CPU time; median (and best) of {args.repeat} rounds")
    print(f"{'query':22} {'matched':>7} {'ms/game':>14} {'x floor':>12} {'eval µs/game':>14}")
    floor, floor_best = statistics.median(floors), min(floors)
    print(f"{'(floor)':22} {'-':>7} {floor / n * 1e3:6.3f} ({floor_best / n * 1e3:5.3f})")
    for name, items in times.items():
        seconds, best = statistics.median(items), min(items)
        print(
            f"{name:22} {matches[name]:7d} {seconds / n * 1e3:6.3f} ({best / n * 1e3:5.3f}) "
            f"{seconds / floor:5.2f} ({best / floor_best:4.2f}) "
            f"{(seconds - floor) / n * 1e6:6.0f} ({(best - floor_best) / n * 1e6:5.0f})"
        )
    del positions


if __name__ == "__main__":
    main()
