"""With or without the position index, a run writes the same bytes: the PGN output, the
JSON Lines report and the HTML report, on every example, every benchmark query, the
corpus fixture scripts and generated queries.

The index may only leave out games that cannot match; these tests also check that it
does leave some out (else they would prove nothing).
"""

from __future__ import annotations

import bz2
import io
import json
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.api import Query, index, load
from cqllegacy.cli import main
from cqllegacy.core import tree as ct
from cqllegacy.errors import CqlLegacyError
from cqllegacy.evaluator.necessary import necessity
from cqllegacy.indexing.store import Index, open_index
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.pgn import split_games
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import InputFile
from tests.evaluator.test_equivalence import _KINDS, _PATTERNS, _transformed
from tests.support import strategies as sc
from tests.support.runner import PGN, WCC

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "examples").glob("*.cql")) + sorted(
    (ROOT / "benchmarks" / "queries").glob("*.cql")
)
FIXTURES = sorted((ROOT / "fixtures" / "migration").glob("*/*.cql"))


def first_games(text: str, count: int) -> str:
    return "".join(
        "".join(game.tag_lines) + "\n" + game.movetext + "\n"
        for game in list(split_games(io.StringIO(text)))[:count]
    )


def corpus_text() -> bytes:
    """Games of every kind, as bytes: the migration corpus (variations, FEN starts,
    mates, stalemates), annotated and badly formed games, Latin-1 and mixed encodings,
    CRLF line ends, World Championship games and puzzles."""
    parts = [(ROOT / "fixtures" / "games.pgn").read_bytes()]
    for name in ("annotated.pgn", "broken.pgn", "latin1.pgn", "mixed-encodings.pgn", "crlf.pgn"):
        parts.append((PGN / name).read_bytes())
    wcc = bz2.decompress(WCC.read_bytes()).decode("latin-1")
    parts.append(first_games(wcc, 120).encode("latin-1"))
    with lzma.open(ROOT / "fixtures" / "lichess-puzzles.pgn.xz", "rt", encoding="latin-1") as f:
        parts.append(first_games(f.read(), 80).encode("latin-1"))
    return b"\n\n".join(parts)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus in a folder with its index beside it."""
    pgn = tmp_path_factory.mktemp("indexed") / "corpus.pgn"
    pgn.write_bytes(corpus_text())
    index(pgn)
    return pgn


def run_outputs(script: Path, pgn: Path, out: Path, *flags: str) -> tuple[bytes, ...]:
    out.mkdir(exist_ok=True)
    files = [out / "out.pgn", out / "out.jsonl", out / "out.html"]
    status = main(
        ["run", str(script), "-i", str(pgn), "-o", str(files[0]), "--report", str(files[1]),
         "--html", str(files[2]), "-q", "-j", "1", *flags]
    )  # fmt: skip
    assert status == 0
    return tuple(path.read_bytes() for path in files)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scripts_write_the_same_bytes(script: Path, corpus: Path, tmp_path: Path) -> None:
    scanned = run_outputs(script, corpus, tmp_path / "scan", "--no-index")
    indexed = run_outputs(script, corpus, tmp_path / "index")
    assert indexed == scanned


def in_process(query: Query, pgn: Path, use: bool | str) -> tuple[str, str, str, int]:
    """The PGN output, the report, the messages and the games counted."""
    out, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
    summary = query.scan(
        [InputFile.of(pgn)],
        sinks=[PgnWriter(out, several_files=False), ReportWriter(report)],
        progress=Messages(messages),
        index=use,
    )
    return out.getvalue(), report.getvalue(), messages.getvalue(), summary.games


def loaded_or_none(script: Path) -> Query | None:
    try:
        return load(script)
    except CqlLegacyError:
        return None


def test_the_index_narrows_the_benchmark_queries(corpus: Path) -> None:
    """A good part of the benchmark queries are answered from far fewer candidates than
    games (the others match most games, or need what the index does not keep)."""
    opened = open_index(corpus.with_name(corpus.name + ".cqlidx"), corpus)
    try:
        narrowed = 0
        for script in SCRIPTS:
            need = necessity(load(script).core)
            if need is not None and len(opened.candidates(need, 0)) < opened.games / 2:
                narrowed += 1
    finally:
        opened.close()
    assert narrowed >= len(SCRIPTS) // 4


FIXTURE_PGN = ROOT / "fixtures" / "games.pgn"


@pytest.fixture(scope="module")
def fixture_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    path = tmp_path_factory.mktemp("fixture-index") / "games.cqlidx"
    index(FIXTURE_PGN, path)
    opened = open_index(path, FIXTURE_PGN)
    yield opened
    opened.close()


def test_every_fixture_scripts_matches_are_candidates(fixture_index: Index) -> None:
    """For every corpus fixture script, the games its expected.json says match are among
    the candidates the index returns (so the indexed run evaluates them)."""
    narrowed = 0
    for script in FIXTURES:
        query = loaded_or_none(script)
        if query is None:
            continue
        need = necessity(query.core)
        if need is None:
            continue
        expected = json.loads((script.parent / "expected.json").read_text())
        candidates = set(fixture_index.candidates(need, 0))
        assert set(expected["matching_games"]) <= candidates, script
        narrowed += len(candidates) < 135
    assert narrowed >= len(FIXTURES) // 3


@pytest.mark.parametrize("script", FIXTURES[::9], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_scripts_write_the_same_text(script: Path, fixture_index: Index) -> None:
    query = loaded_or_none(script)
    if query is None:
        pytest.skip("a script the runner refuses")
    path = str(fixture_index.path)
    scanned = in_process(query, FIXTURE_PGN, False)
    indexed = in_process(query, FIXTURE_PGN, path)
    notes = (
        "note: the index cannot narrow this query; scanning\n",
        "note: the tags alone decide this query, which the scan reads faster; scanning\n",
    )
    assert indexed[:2] == scanned[:2]
    said = indexed[2]
    for note in notes:
        said = said.replace(note, "")
    assert said == scanned[2]
    assert indexed[3] == scanned[3]


# --------------------------------------------------------------------------------------
# Generated queries
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pgn = tmp_path_factory.mktemp("small") / "small.pgn"
    wcc = bz2.decompress(WCC.read_bytes()).decode("latin-1")
    with lzma.open(ROOT / "fixtures" / "lichess-puzzles.pgn.xz", "rt", encoding="latin-1") as f:
        puzzles = first_games(f.read(), 12)
    text = (FIXTURE_PGN.read_text(encoding="utf-8").encode("utf-8").decode("latin-1"))
    pgn.write_text(first_games(wcc, 12) + puzzles + first_games(text, 10), encoding="latin-1")
    index(pgn)
    return pgn


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip


def assert_same_answer(query: ct.Query, pgn: Path) -> None:
    loaded = Query("generated", "modern", query)
    try:
        scanned = in_process(loaded, pgn, False)
    except CqlLegacyError:
        return  # a query the evaluator refuses is refused either way
    assert in_process(loaded, pgn, True) == scanned


@SETTINGS
@given(sc.queries(depth=1, max_lists=2))
def test_generated_queries(small: Path, query: ct.Query) -> None:
    assert_same_answer(query, small)


@SETTINGS
@given(_PATTERNS, st.lists(_KINDS, max_size=2), st.booleans())
def test_generated_transformed_patterns(
    small: Path, pattern: ct.Filter, kinds: list[ct.TransformKind], shifted: bool
) -> None:
    if shifted:
        kinds = [*kinds, ct.TransformKind.SHIFT]
    assert_same_answer(ct.Query(ct.Header(), (ct.TopList(_transformed(pattern, kinds)),)), small)
