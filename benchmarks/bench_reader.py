"""How fast the legacy reader reads a realistic 200-line script.

Run ``python benchmarks/bench_reader.py [--runs N]``; prints the median time of one
read (designator cache cleared before each, as in a fresh process) and lines per second.
Target: well under 50 ms for 200 lines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cqllegacy.legacy.grammar import parse_designator, read_script

# Twenty lines per block, ten blocks: every kind of list, comments, nested lists.
_BLOCK = """\
  ;; block {n}: a knight fork, a pin, a staircase and a relation
  (position :markall ; find each occurrence
    N[c{r},d{r}] kf6 qb5 :wtm
    :attackcount N k 1 100
    :attackcount N [q] 1
    :shift :flip :flipcolor)
  (position :piececount P[b2-7] 4 :shifthorizontal :flipcolor)   ; quadrupled pawns
  (position :ray (Qa? n k[?4-8]) 1 unlimited
    :powerdifference [RrBbNn] -1000 -2
    :and ((position :attackcount k . 8 :attackcount A k 1 :mate :btm)
          (position :not :attackcount k .e4 1 :attackcount A .e4 2 100 :shift)))
  (position :shift :flip :flipcolor
    :sequence ((position :movefrom Qa2) (position :check)
               (position :movefrom Qb2) (position :check)
               (position :movefrom Qc4)))
  (position Ke6 be7 be4 nd5 :shift :flip
    :relation (:pattern :shift :flip :originalsamecount 0 :variations))
  (position :moveto [Aa]d4 :pretransformmatchcount 12 1000 :shift)
  (position :result 1-0 :whiteelo 0 2300 :blackelo 2600 3000 :flipcolor)
  (position :gappedsequence ((position) (position Nd4)) :movenumber 10 40)
"""


def build_script(blocks: int = 10) -> str:
    body = "".join(_BLOCK.format(n=n, r=n % 8 + 1) for n in range(blocks))
    return f"(match :result 1-0 :year 1950 2024\n{body})\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    text = build_script()
    lines = text.count("\n")
    timings = []
    for _ in range(runs):
        parse_designator.cache_clear()
        start = time.perf_counter()
        read_script(text)
        timings.append(time.perf_counter() - start)
    median = statistics.median(timings)
    print(
        f"read_script: {lines} lines, median {median * 1000:.2f} ms over {runs} runs "
        f"({lines / median:,.0f} lines/s)"
    )


if __name__ == "__main__":
    main()
