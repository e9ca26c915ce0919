"""Start-up: a command imports only what its own path needs.

Every ``cqllegacy run`` pays its imports before it reads a game, and with the position
index a selective query is mostly start-up; so the legacy grammar (pyparsing), the CQL 6
reader, the explanation and HTML modules, DuckDB and Dask are imported where they are
used, and the command line (which every command, and ``--help``, builds) imports none
of the run: no python-chess, no trees, no evaluator.  Each check runs a fresh interpreter and reads
``sys.modules``; nothing here measures time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cqllegacy.indexing import scan as indexed_scan

ROOT = Path(__file__).resolve().parents[2]

#: Never imported by building the command line (what every command does first).
NOT_FOR_THE_COMMAND_LINE = (
    "chess",
    "cqllegacy.api",
    "cqllegacy.core",
    "cqllegacy.evaluator",
    "cqllegacy.runner",
    "cqllegacy.present",
    "cqllegacy.legacy.grammar",
    "cqllegacy.modern.grammar",
    "cqllegacy.translator",
    "cqllegacy.indexing",
    "cqllegacy.migration",
    "cqllegacy.fixturekit",
    "pyparsing",
    "duckdb",
    "dask",
    "pyarrow",
    "numpy",
)

#: Never imported by a run that writes only PGN (no --html, no --why).
NOT_FOR_A_PLAIN_RUN = ("cqllegacy.present", "dask", "cqllegacy.migration", "cqllegacy.fixturekit")

#: Never imported by a run that uses no index (``--no-index``, or no index beside its
#: inputs): the index's modules (``cqllegacy.indexing`` itself only says where an index
#: would be) and what they load.
NOT_WITHOUT_AN_INDEX = (
    "cqllegacy.indexing.scan",
    "cqllegacy.indexing.store",
    "cqllegacy.runner.stored",
    "cqllegacy.indexing.records",
    "cqllegacy.indexing.ranges",
    "cqllegacy.indexing.build",
    "cqllegacy.indexing.arrays",
    "cqllegacy.vocab.bitarrays",
    "cqllegacy.evaluator.necessary",
    "duckdb",
    "numpy",
    "pyarrow",
)

#: Standard modules a plain run has no use for (the sample games' resources, temporary
#: files, suggestions for misspelt options, pickling for threads, secrets' hashing);
#: checked against what the interpreter loads by itself before any of ours, for a CQL 6
#: script (pyparsing, the legacy reader's, loads difflib through unittest).
NOT_FOR_A_PLAIN_RUN_STDLIB = (
    "tempfile",
    "importlib.resources",
    "difflib",
    "secrets",
    "hmac",
    "pickle",
)

LEGACY = "(match (position :mate :attackcount N k 1 :flipcolor))\n"
MODERN = "cql()\nflipcolor {mate #(N attacks k) == 1}\n"
GAMES = ROOT / "examples" / "games" / "smothered-mate.pgn"


def imported_after(code: str) -> list[str]:
    """The names in ``sys.modules`` after a fresh interpreter runs ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    names: list[str] = json.loads(done.stdout.splitlines()[-1])
    return names


def loaded_from(names: list[str], packages: tuple[str, ...]) -> list[str]:
    return [n for n in names if any(n == p or n.startswith(p + ".") for p in packages)]


def test_the_command_line_imports_no_reader_report_or_store() -> None:
    names = imported_after("from cqllegacy.cli import build_parser\nbuild_parser()")
    assert loaded_from(names, NOT_FOR_THE_COMMAND_LINE) == []


def run_script(tmp_path: Path, text: str, *options: str) -> list[str]:
    script = tmp_path / "query.cql"
    script.write_text(text, encoding="utf-8")
    out = tmp_path / "found.pgn"
    argv = ["run", str(script), "-i", str(GAMES), "-o", str(out), "--jobs", "1", "-q", *options]
    code = f"from cqllegacy.cli import main\nassert main({argv!r}) == 0"
    names = imported_after(code)
    # Both games are puzzles themed "smotheredMate": a knight mates, so both match.
    assert out.read_text(encoding="utf-8").count("[Event ") == 2
    return names


@pytest.mark.parametrize(
    ("text", "other_reader"),
    [(LEGACY, ("cqllegacy.modern.grammar",)), (MODERN, ("cqllegacy.legacy.grammar", "pyparsing"))],
    ids=["legacy", "cql6"],
)
def test_a_run_imports_its_own_reader_only(
    tmp_path: Path, text: str, other_reader: tuple[str, ...]
) -> None:
    names = run_script(tmp_path, text)
    assert loaded_from(names, other_reader + NOT_FOR_A_PLAIN_RUN) == []


@pytest.mark.parametrize("options", [("--no-index",), ()], ids=["no-index", "none-beside"])
@pytest.mark.parametrize("text", [LEGACY, MODERN], ids=["legacy", "cql6"])
def test_a_run_without_an_index_imports_none_of_the_index(
    tmp_path: Path, text: str, options: tuple[str, ...]
) -> None:
    assert not (GAMES.parent / (GAMES.name + ".cqlidx")).exists()
    names = run_script(tmp_path, text, *options)
    assert loaded_from(names, NOT_WITHOUT_AN_INDEX) == []


def test_a_plain_run_imports_no_standard_module_it_does_not_use(tmp_path: Path) -> None:
    before = set(imported_after("pass"))  # site hooks may load some of them already
    names = set(run_script(tmp_path, MODERN, "--no-index")) - before
    assert loaded_from(sorted(names), NOT_FOR_A_PLAIN_RUN_STDLIB) == []


#: The collector's state after a command, as the process that ran it sees it.
COLLECTOR_AFTER = """
import gc, json, sys
from cqllegacy.cli import main
found = gc.get_threshold()
sys.argv = ["cqllegacy", *{argv!r}]
status = {call}
print(json.dumps([status, gc.get_freeze_count() > 0, gc.get_threshold() == found]))
"""


def collector_after(tmp_path: Path, call: str) -> list[object]:
    script = tmp_path / "query.cql"
    script.write_text(LEGACY, encoding="utf-8")
    out = tmp_path / "found.pgn"
    argv = ["run", str(script), "-i", str(GAMES), "-o", str(out), "-j", "1", "-q", "--no-index"]
    code = COLLECTOR_AFTER.format(argv=argv, call=call)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    answer: list[object] = json.loads(done.stdout.splitlines()[-1])
    return answer


def test_the_command_of_the_process_freezes_its_start_up(tmp_path: Path) -> None:
    # main() reads the process's own command line: what the start-up made (modules,
    # classes, the compiled query) is frozen before the games, and the collector's
    # threshold is the one it found.
    assert collector_after(tmp_path, "main()") == [0, True, True]


def test_a_command_run_inside_another_program_leaves_its_collector_alone(tmp_path: Path) -> None:
    assert collector_after(tmp_path, "main(sys.argv[1:])") == [0, False, True]


#: A run's whole process, as the console script starts it: ``main()`` reads ``sys.argv``.
WHOLE_PROCESS_RUN = """
import json, sys
from cqllegacy.cli import main
sys.argv = ["cqllegacy", *{argv!r}]
status = main()
{after}
print(json.dumps([status, sorted(sys.modules)]))
"""


def whole_process_run(tmp_path: Path, text: str, *options: str, after: str = "") -> list[str]:
    script = tmp_path / "query.cql"
    script.write_text(text, encoding="utf-8")
    out = tmp_path / "found.pgn"
    argv = ["run", str(script), "-i", str(GAMES), "-o", str(out), "-j", "1", "-q", *options]
    code = WHOLE_PROCESS_RUN.format(argv=argv, after=after)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    status, names = json.loads(done.stdout.splitlines()[-1])
    assert status == 0
    assert out.read_text(encoding="utf-8").count("[Event ") == 2
    return list(names)


#: What python-chess's ``chess.engine`` and ``chess.svg`` load when their code runs.
LOADED_BY_CHESS_EXTRAS = ("asyncio", "xml.etree", "concurrent.futures")


@pytest.mark.parametrize("text", [LEGACY, MODERN], ids=["legacy", "cql6"])
def test_the_command_of_the_process_runs_no_chess_engine_code(tmp_path: Path, text: str) -> None:
    # chess.pgn imports chess.engine and chess.svg; the command's process has their code
    # run only on first use, which a run that writes PGN never makes.
    names = whole_process_run(tmp_path, text)
    assert "chess.pgn" in names
    assert loaded_from(names, LOADED_BY_CHESS_EXTRAS) == []


def test_a_deferred_chess_module_works_on_first_use(tmp_path: Path) -> None:
    # After the run, the deferred modules are still python-chess's own, complete.
    after = (
        "import chess, chess.engine, chess.svg\n"
        "assert chess.engine.Cp(30).score() == 30\n"
        "assert chess.svg.board(chess.Board()).startswith('<svg')\n"
        "assert chess.pgn.Game().eval() is None"
    )
    names = whole_process_run(tmp_path, LEGACY, after=after)
    assert "asyncio" in names


def test_an_html_page_draws_its_diagrams_with_the_deferred_chess_svg(tmp_path: Path) -> None:
    page = tmp_path / "found.html"
    names = whole_process_run(tmp_path, LEGACY, "--html", str(page))
    assert "xml.etree.ElementTree" in names
    assert page.read_text(encoding="utf-8").count("<svg") >= 2


#: What reading stored positions loads (the positions come as numpy arrays).
LOADED_BY_STORED_POSITIONS = ("numpy", "cqllegacy.evaluator.arrays")


def test_a_run_on_an_index_with_few_candidates_does_not_load_numpy(tmp_path: Path) -> None:
    """Two candidate games are read from their texts: the index is used (DuckDB), but
    loading numpy to read their stored positions would cost more than replaying them.
    A long comment before each game's moves makes a file whose scan may cost more than
    the index (``indexing.scan.SCAN_MOST``)."""
    games = tmp_path / GAMES.name
    text = GAMES.read_text(encoding="utf-8")
    games.write_text(padded(text), "utf-8")
    main_in_fresh_process(["index", str(games), "-q"])
    script = tmp_path / "query.cql"
    script.write_text(LEGACY, encoding="utf-8")
    found = {}
    for name, extra in (("index", []), ("scan", ["--no-index"])):
        out = tmp_path / f"{name}.pgn"
        argv = ["run", str(script), "-i", str(games), "-o", str(out), "-j", "1", *extra]
        names = main_in_fresh_process(argv)
        found[name] = out.read_text(encoding="utf-8")
        if name == "index":
            assert "_duckdb" in names or "duckdb" in names
            assert loaded_from(names, LOADED_BY_STORED_POSITIONS) == []
    assert found["index"] == found["scan"]
    assert found["index"].count("[Event ") == 2


def padded(games: str) -> str:
    """``games`` with a long comment before each movetext: a file whose scan may cost
    more than opening its index (:data:`~cqllegacy.indexing.scan.SCAN_MOST`), whatever
    few games it holds."""
    text = re.sub(r"\n\n(?=\d)", "\n\n{" + "a comment " * 3000 + "}\n", games)
    assert len(text) * indexed_scan.SCAN_MOST >= indexed_scan.INDEX_COST
    return text


def main_in_fresh_process(argv: list[str]) -> list[str]:
    """``sys.modules`` after ``cqllegacy.cli.main(argv)`` in a fresh interpreter."""
    return imported_after(f"from cqllegacy.cli import main\nassert main({argv!r}) == 0")


#: The environment's OpenBLAS threads inside a command, whole-process or not.
BLAS_THREADS = """
import os
from cqllegacy.cli.startup import collector_for_start_up
with collector_for_start_up(whole_process={whole}):
    print(os.environ.get("OPENBLAS_NUM_THREADS", "unset"))
"""


@pytest.mark.parametrize(
    ("whole", "found", "seen"),
    [(True, None, "1"), (True, "3", "3"), (False, None, "unset")],
    ids=["process-own", "user-says", "inside-a-program"],
)
def test_the_command_of_the_process_asks_openblas_for_one_thread(
    whole: bool, found: str | None, seen: str
) -> None:
    # numpy's OpenBLAS would start a thread per core on import, which no array form
    # uses; the command's own process asks for none unless the user said otherwise.
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if found is not None:
        env["OPENBLAS_NUM_THREADS"] = found
    code = BLAS_THREADS.format(whole=whole)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [seen]
