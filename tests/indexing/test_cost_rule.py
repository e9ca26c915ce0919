"""The index is opened only where it can repay its cost (``indexing.scan.index_pays``),
and a run reads DuckDB through its compiled module alone.

A small plain file of a query the index would narrow by its tags alone (or not at all)
is scanned without opening its index when the games it would feed from stored positions
and the bytes it would leave unsplit save less than :data:`INDEX_COST`; the output is
the scan's either way.  A query its positions narrow uses the index unless the whole
scan of a plain file would cost less than the index.
"""

from __future__ import annotations

import bz2
import json
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from cqllegacy.api import Query, index
from cqllegacy.evaluator.necessary import Necessity, necessity
from cqllegacy.indexing import scan as indexed_scan
from cqllegacy.indexing import store
from cqllegacy.indexing.store import Index
from cqllegacy.runner import stored
from cqllegacy.runner.results import ScanOptions
from tests.cli.test_startup import imported_after, loaded_from, padded
from tests.indexing.test_equivalence import first_games, in_process
from tests.support.runner import WCC

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "benchmarks" / "queries"

#: White wins (tags only narrow it), and a relation (the index cannot narrow it: every
#: clean game is fed from stored positions).
TAGS_ONLY = (QUERIES / "relation-result.cql").read_text(encoding="utf-8")
NOT_NARROWED = (QUERIES / "relation-missing.cql").read_text(encoding="utf-8")
POSITIONS = "(match (position Pd4 Pe4))"

THREE_GAMES = """[Event "a"]
[Result "1-0"]

1. e4 e5 1-0

[Event "b"]
[Result "0-1"]

1. d4 d5 0-1

[Event "c"]
[Result "1-0"]
[White "Lasker, Emanuel"]

1. c4 c5 1-0
"""


@pytest.fixture(autouse=True)
def the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """This module's tests weigh the index's real cost (conftest.py makes it nil)."""
    monkeypatch.setattr(indexed_scan, "INDEX_COST", 0.2)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """120 World Championship games (a plain file of about 100 kB), indexed."""
    path = tmp_path_factory.mktemp("cost") / "wcc120.pgn"
    games = first_games(bz2.decompress(WCC.read_bytes()).decode("latin-1"), 120)
    path.write_bytes(games.encode("latin-1"))
    index(path)
    return path


def need_of(text: str) -> Necessity | None:
    return necessity(Query.from_text(text).core)


def needles_of(text: str) -> tuple[frozenset[str], ...]:
    return Query.from_text(text).compiled.tag_needles


# ---- the count ---------------------------------------------------------------------------


def test_the_tag_lines_bound_the_games_the_tags_admit(tmp_path: Path) -> None:
    """'1-0' is in the tags of two games (and the movetext of two, not counted); no
    needle: every game; two clauses: the fewer."""
    path = tmp_path / "three.pgn"
    path.write_text(THREE_GAMES, encoding="ascii")
    assert indexed_scan._games_admitted(path, needles_of(TAGS_ONLY)) == 2
    assert indexed_scan._games_admitted(path, ()) == 3
    both = needles_of("(match :result 1-0 :player Lasker (position :check))")
    assert len(both) == 2
    assert indexed_scan._games_admitted(path, both) == 1


def test_a_compressed_file_is_not_counted_and_its_index_is_used(tmp_path: Path) -> None:
    path = tmp_path / "three.pgn.bz2"
    path.write_bytes(bz2.compress(THREE_GAMES.encode("ascii")))
    assert indexed_scan._games_admitted(path, ()) is None
    assert indexed_scan.index_pays(need_of(TAGS_ONLY), True, needles_of(TAGS_ONLY), path)


# ---- the rule ----------------------------------------------------------------------------


def test_a_query_its_positions_narrow_uses_the_index_where_a_scan_may_cost_more(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the positions leave out, the scan of three games costs less than the
    index; 120 games may not, nor a compressed file, whose size says little."""
    need = need_of(POSITIONS)
    assert need is not None and need.lists
    assert indexed_scan.index_pays(need, True, (), small)
    three = tmp_path / "three.pgn"
    three.write_text(THREE_GAMES, encoding="ascii")
    assert not indexed_scan.index_pays(need, True, (), three)
    packed = tmp_path / "three.pgn.bz2"
    packed.write_bytes(bz2.compress(THREE_GAMES.encode("ascii")))
    assert indexed_scan.index_pays(need, True, (), packed)
    monkeypatch.setattr(indexed_scan, "SCAN_MOST", 1.0)  # a second a byte: it would pay
    assert indexed_scan.index_pays(need, True, (), three)


def test_a_file_whose_scan_costs_less_than_the_index_is_scanned_with_the_scans_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pgn = tmp_path / "three.pgn"
    pgn.write_text(THREE_GAMES, encoding="ascii")
    query = Query.from_text("(match (position Pe4))")
    scanned = in_process(query, pgn, False)
    assert scanned[0]  # a game matches: the bytes compared say something
    index(pgn)
    with monkeypatch.context() as patched:
        refuse_to_open(patched)
        assert in_process(query, pgn, True) == scanned


def test_the_rule_weighs_the_games_fed_and_the_bytes_unsplit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "three.pgn"
    path.write_text(THREE_GAMES, encoding="ascii")
    need, needles = need_of(TAGS_ONLY), needles_of(TAGS_ONLY)
    assert need is not None and not need.lists and need.tags
    assert not indexed_scan.index_pays(need, True, needles, path)
    assert not indexed_scan.index_pays(None, True, (), path)
    # Two admitted games fed at 0.1 s each pay 0.2 s; three games unread do not count.
    monkeypatch.setattr(indexed_scan, "STORED_SAVES", 0.1)
    assert indexed_scan.index_pays(need, True, needles, path)
    assert not indexed_scan.index_pays(need, False, needles, path)  # not fed: no saving
    gamenumber = Necessity((), gamenumber=(3, 3), tags=True)
    assert not indexed_scan.index_pays(gamenumber, True, needles, path)
    # The bytes alone pay (a second a byte): the file is not read to count.
    monkeypatch.setattr(indexed_scan, "UNSPLIT_SAVES", 1.0)
    monkeypatch.setattr(indexed_scan, "_games_admitted", None)  # not called
    assert indexed_scan.index_pays(need, False, needles, path)


# ---- runs --------------------------------------------------------------------------------


def refuse_to_open(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path, source: Path) -> Index:
        raise AssertionError(f"the index {path} was opened")

    monkeypatch.setattr(indexed_scan, "open_index", refuse)


@pytest.mark.parametrize("text", [TAGS_ONLY, NOT_NARROWED])
def test_a_small_file_the_index_cannot_repay_is_scanned_with_the_scans_bytes(
    text: str, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = Query.from_text(text)
    need = necessity(query.core)
    assert need is None or not need.lists
    assert stored.feeds(query.compiled, ScanOptions())
    scanned = in_process(query, small, False)
    assert scanned[0]  # some games match: the bytes compared say something
    with monkeypatch.context() as patched:
        refuse_to_open(patched)
        assert in_process(query, small, True) == scanned
        named = in_process(query, small, str(small.with_name(small.name + ".cqlidx")))
    note = (
        "note: the index cannot repay its cost on so small a file for this query; "
        f"scanning {small}\n"
    )
    assert named == (scanned[0], scanned[1], note + scanned[2], scanned[3])
    # Where it pays (no cost), the index is opened, and the bytes are the same.
    opened: list[Path] = []
    original = indexed_scan.open_index

    def spy(path: Path, source: Path) -> Index:
        opened.append(path)
        return original(path, source)

    monkeypatch.setattr(indexed_scan, "open_index", spy)
    monkeypatch.setattr(indexed_scan, "INDEX_COST", 0.0)
    assert in_process(query, small, True) == scanned
    assert opened


def test_a_query_its_positions_narrow_opens_the_index_of_a_small_file(small: Path) -> None:
    query = Query.from_text(POSITIONS)
    opened: list[Path] = []
    original = indexed_scan.open_index

    def spy(path: Path, source: Path) -> Index:
        opened.append(path)
        return original(path, source)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(indexed_scan, "open_index", spy)
        indexed = in_process(query, small, True)
    assert opened
    assert indexed == in_process(query, small, False)


# ---- DuckDB's compiled module ------------------------------------------------------------


def test_a_run_reads_the_index_through_duckdbs_compiled_module(tmp_path: Path) -> None:
    """Not the ``duckdb`` package, whose Python modules a run calls none of."""
    pgn = tmp_path / "three.pgn"
    pgn.write_text(padded(THREE_GAMES), encoding="ascii")
    index(pgn)
    script = tmp_path / "e4.cql"
    script.write_text("(match (position Pe4))\n", encoding="utf-8")
    out = tmp_path / "out.pgn"
    argv = ["run", str(script), "-i", str(pgn), "-o", str(out), "-q", "-j", "1"]
    names = imported_after(f"from cqllegacy.cli import main\nassert main({argv!r}) == 0")
    assert "_duckdb" in names
    assert loaded_from(names, ("duckdb",)) == []
    assert out.read_text(encoding="ascii").count("[Event ") == 1


def test_without_a_usable_compiled_module_the_package_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import duckdb

    monkeypatch.setitem(sys.modules, "_duckdb", types.ModuleType("_duckdb"))
    assert store._reading_duckdb() is duckdb
    monkeypatch.setitem(sys.modules, "_duckdb", None)  # import fails
    assert store._reading_duckdb() is duckdb


# ---- numpy, imported while DuckDB answers -------------------------------------------------

_THREADS_SEEN = """
import json, sys, threading
from cqllegacy.indexing import store
seen = []
real = store.Index.candidates
def spy(self, *args, **kwargs):
    seen.append(sorted(t.name for t in threading.enumerate()))
    return real(self, *args, **kwargs)
store.Index.candidates = spy
from cqllegacy.cli import main
assert main({argv!r}) == 0
left = sorted(t.name for t in threading.enumerate())
print(json.dumps([seen, left, "numpy" in sys.modules]))
"""


def threads_seen(pgn: Path, tmp_path: Path) -> tuple[list[list[str]], list[str], bool]:
    """The threads alive while the candidates are asked, those left after the run, and
    whether numpy was imported, in a fresh interpreter running POSITIONS on ``pgn``."""
    script = tmp_path / "pawns.cql"
    script.write_text(POSITIONS + "\n", encoding="utf-8")
    out = tmp_path / "out.pgn"
    argv = ["run", str(script), "-i", str(pgn), "-o", str(out), "-q", "-j", "1"]
    done = subprocess.run(
        [sys.executable, "-c", _THREADS_SEEN.format(argv=argv)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    seen, left, numpy = json.loads(done.stdout.splitlines()[-1])
    return seen, left, numpy


def test_numpy_is_imported_while_the_candidates_are_asked(small: Path, tmp_path: Path) -> None:
    seen, left, numpy = threads_seen(small, tmp_path)
    assert seen and all("import numpy" in names for names in seen)
    assert "import numpy" not in left
    assert numpy


def test_a_file_too_small_for_stored_positions_imports_no_numpy(tmp_path: Path) -> None:
    pgn = tmp_path / "three.pgn"
    pgn.write_text(padded(THREE_GAMES), encoding="ascii")
    index(pgn)
    seen, _, numpy = threads_seen(pgn, tmp_path)
    assert seen and not any("import numpy" in names for names in seen)
    assert not numpy


def test_the_importing_thread_is_gone_when_the_block_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """However long the import takes: a worker forked after the block inherits no
    thread halfway through an import."""
    monkeypatch.setattr(indexed_scan, "_import_quietly", lambda module: time.sleep(0.3))
    with indexed_scan.importing_meanwhile("a_module_nobody_has"):
        assert "import a_module_nobody_has" in {t.name for t in threading.enumerate()}
    assert "import a_module_nobody_has" not in {t.name for t in threading.enumerate()}
