"""How the modern (CQL 6.1) reader's time grows with the script: it should double when
the script doubles (linear), also for one long ``{ }`` and for deep nesting.

Run ``python benchmarks/bench_modern_reader.py [--start N] [--steps K]``; for each shape
it prints the time of one read at N, 2N, 4N … filters and the ratio to the previous
size (about 2.0 when linear; 4.0 would be quadratic).  Measured side by side in one
run, so the ratios hold on a loaded machine too.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cqllegacy.modern.grammar import read_query

#: Filters of the kinds real scripts hold, with comments and strings among them.
_FILTERS = (
    "Ka1",
    "check",
    "#[Aa] >= 3",
    "not mate",
    "piece x in A {x attacks k}",
    "move from K to a-h8",
    'player white "Tal" // a comment',
    "flipcolor {Nd4 kf3}",
    "line --> check --> mate",
    "echo (s t) s:Q == t:Q",
)


def flat(size: int) -> str:
    """``size`` filters in the body, one a line."""
    lines = (_FILTERS[i % len(_FILTERS)] for i in range(size))
    return "cql(input games.pgn)\n" + "\n".join(lines) + "\n"


def braced(size: int) -> str:
    """The same filters inside one ``flipcolor { … }``."""
    lines = (_FILTERS[i % len(_FILTERS)] for i in range(size))
    return "cql()\nflipcolor {\n" + "\n".join(lines) + "\n}\n"


def nested(size: int) -> str:
    """Groups of filters, each group inside ``{ }`` nested 20 deep."""
    group = "{" * 20 + "\n".join(_FILTERS) + "\n" + "}" * 20
    return "cql()\n" + "\n".join(group for _ in range(max(1, size // len(_FILTERS)))) + "\n"


def seconds(text: str) -> float:
    start = time.perf_counter()
    read_query(text)
    return time.perf_counter() - start


def report(name: str, shape: Callable[[int], str], sizes: list[int]) -> None:
    previous = None
    for size in sizes:
        took = seconds(shape(size))
        ratio = f"  x{took / previous:.2f}" if previous else ""
        print(f"{name:7} {size:7,} filters  {took:7.3f} s{ratio}")
        previous = took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--start", type=int, default=2_500)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    sizes = [args.start * 2**step for step in range(args.steps)]
    read_query(flat(100))  # warm up (imports, compiled patterns)
    for name, shape in (("flat", flat), ("braced", braced), ("nested", nested)):
        report(name, shape, sizes)


if __name__ == "__main__":
    main()
