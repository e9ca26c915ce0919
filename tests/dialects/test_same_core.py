"""A dialect construct costs what its standard equivalent costs (issue 30, item 7): it is
read as that equivalent, so the translator builds the very same core query, which every
path (live stream, game tree, index) then runs alike.  Timing belongs in benchmarks/;
this checks the cause."""

from __future__ import annotations

import pytest
from cqllegacy.translator import to_core

from cqllegacy.legacy import read_script

PAIRS = [
    (
        "(position :doublecheck)",
        "(match (position :and ((position :attackcount A k 2 unlimited :flipcolor))))",
    ),
    (
        "(match (position !:mate :piececount R >=2))",
        "(match (position :and ((position :not :mate)) :piececount R 2 unlimited))",
    ),
    (
        "(match (position :nomate P?[27]))",
        "(match (position :and ((position :not :mate)) P[?2,?7]))",
    ),
    (
        "(match (position :not (position :check)))",
        "(match (position :and ((position :not :and ((position :check))))))",
    ),
    (
        "(match (position :powerdifference A <=\u22123))",
        "(match (position :powerdifference A -576 -3))",
    ),
    (
        # Marked nowhere: a marked :line marks where its moves end (X3, test_line_marks).
        "(match (position :noannotate :flipcolor :line (Nxe5 bxQ B:f7+)))",
        "(match (position :noannotate :flipcolor :sequence ((position :movefrom N :moveto Ue5)"
        " (position :movefrom b :moveto Q) (position :movefrom B :moveto ?f7) (position :check))))",
    ),
    (
        "(match (position :halfmovenumber 4))",
        "(match (position :or ((position :wtm :movenumber 2))))",
    ),
]


@pytest.mark.parametrize(("dialect", "standard"), PAIRS)
def test_a_dialect_form_builds_the_core_query_of_its_standard_spelling(
    dialect: str, standard: str
) -> None:
    assert to_core(read_script(dialect)) == to_core(read_script(standard))


def _benchmark_pairs() -> list[tuple[str, str, str]]:
    """The pairs benchmarks/bench_dialects.py times (the benchmark is not a module of
    the package: loaded from its file)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_dialects.py"
    spec = importlib.util.spec_from_file_location("bench_dialects", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.PAIRS)


@pytest.mark.parametrize(("name", "dialect", "standard"), _benchmark_pairs())
def test_the_benchmark_times_a_dialect_form_beside_its_own_standard_spelling(
    name: str, dialect: str, standard: str
) -> None:
    assert to_core(read_script(dialect)) == to_core(read_script(standard)), name
