"""Games rejected from their raw tag text (``CompiledQuery.tag_needles``) before their
tags are read: never a game the full tag test admits, never a game whose problems would
be reported; whole runs write the same bytes with and without the shortcut."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pyparsing as pp
import pytest
from cqllegacy.translator import to_core
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.cli.running import make_engine
from cqllegacy.core.tree import (
    And,
    Color,
    Filter,
    Header,
    InRange,
    Keyword,
    Not,
    NumericKeyword,
    NumericValue,
    Or,
    Player,
    Query,
    Result,
    Simple,
    TagContains,
    TagName,
    TopList,
)
from cqllegacy.evaluator.evaluate import CompiledQuery, compile_query
from cqllegacy.evaluator.needles import admits, needles_of
from cqllegacy.legacy import read_script
from cqllegacy.legacy.grammar import tokens
from cqllegacy.legacy.lexical import ATOM_PATTERN, COMMENT_PATTERN, WHITESPACE
from cqllegacy.runner.game_scan import GameScan
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.pgn import open_pgn, read_tags, split_games
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import InputFile, ScanOptions
from cqllegacy.runner.scanner import scan
from cqllegacy.runner.scripts import load_query
from cqllegacy.vocab.results import GameResult
from tests.support.runner import PGN, WCC

# --------------------------------------------------------------------------------------
# The needles never reject a game the full tag test admits
# --------------------------------------------------------------------------------------

#: Tag values: ASCII words in any case, quotes, backslashes, brackets, non-ASCII letters
#: (among them ones whose case folding is ASCII: Kelvin sign, long s, sharp s).
_PIECES = st.sampled_from(
    ["Tal", "TAL", "tal", "Carlsen", "Mikhail", ", ", " ", '"', "\\", "]", "[", "?", "*",
     "1-0", "0-1", "1/2-1/2", "Jörg", "MÜLLER", "\u212a", "\u017f", "ß", "SS", "İ", "é",
     "1910", "01910", ".", "19", "10", "??"]
)  # fmt: skip
_VALUES = st.lists(_PIECES, max_size=5).map("".join)
_NAMES = st.sampled_from(["White", "Black", "Event", "Site", "Date", "Result", "Round"])


_SHAPES = st.sampled_from(['[{} "{}"]', '[{}  "{}"] ', '[{} "{}"', "[{} {}]"])
_ODD_NAMES = st.sampled_from(["Variant", "FEN", "_bad"])


@st.composite
def _tag_lines(draw: st.DrawFn, pairs: list[tuple[str, str]]) -> list[str]:
    """The pairs as tag lines, mostly well formed, some not, some with an odd name."""
    lines = []
    for name, value in pairs:
        if draw(st.integers(0, 9)) == 0:
            name = draw(_ODD_NAMES)
        lines.append(draw(_SHAPES).format(name, value))
    return lines


@st.composite
def _game_bytes(draw: st.DrawFn, lines: list[str]) -> bytes:
    movetext = draw(st.sampled_from(["1. e4 e5 *", "", "1. e4 {open", "*"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join([*lines, "", movetext, "", ""])
    encoding = draw(st.sampled_from(["utf-8", "latin-1"]))
    return text.encode(encoding, errors="replace")


def _case_variants(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, text.upper(), text.swapcase(), text.casefold()])


def _texts(values: list[str]) -> st.SearchStrategy[str]:
    """Texts to look for: any, or a piece of one of ``values`` in some case (so that
    some games pass)."""
    if not values:
        return _VALUES.flatmap(_case_variants)
    pieces = st.sampled_from(values).flatmap(
        lambda v: st.tuples(st.integers(0, len(v)), st.integers(0, len(v))).map(
            lambda ends: v[min(ends) : max(ends)]
        )
    )
    return st.one_of(_VALUES, pieces).flatmap(_case_variants)


@st.composite
def _game_test(draw: st.DrawFn, texts: st.SearchStrategy[str], depth: int = 2) -> Filter:
    leaves = [
        st.builds(Player, texts, st.sampled_from([None, Color.WHITE, Color.BLACK]), st.booleans()),
        st.builds(TagContains, st.sampled_from(list(TagName)), texts),
        st.builds(Result, st.sampled_from(list(GameResult))),
        st.builds(
            lambda lo, width: InRange(NumericValue(NumericKeyword.YEAR), lo, lo + width),
            st.integers(-3, 1912),
            st.integers(-2, 20),
        ),
    ]
    if depth == 0:
        return draw(st.one_of(leaves))
    nested = st.lists(_game_test(texts, depth - 1), min_size=1, max_size=3).map(tuple)
    return draw(
        st.one_of(*leaves, nested.map(Or), nested.map(And), _game_test(texts, depth - 1).map(Not))
    )


_PAIRS = st.lists(st.tuples(_NAMES, _VALUES), max_size=7)


def _split(data: bytes, tmp_path: Path) -> list[Any]:
    path = tmp_path / "game.pgn"
    path.write_bytes(data)
    with open_pgn(path) as source:
        return list(split_games(source.lines()))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pairs=_PAIRS, matchcount=st.sampled_from([None, (0, None), (1, 3)]), data=st.data())
def test_a_game_rejected_unread_is_one_the_tags_reject_without_a_problem(
    pairs: list[tuple[str, str]],
    matchcount: tuple[int, int | None] | None,
    data: st.DataObject,
    tmp_path: Path,
) -> None:
    game = data.draw(_tag_lines(pairs).flatmap(_game_bytes))
    tests = data.draw(st.lists(_game_test(_texts([v for _, v in pairs])), min_size=1, max_size=2))
    query = Query(Header(), tuple(TopList(test, matchcount=matchcount) for test in tests))
    compiled = compile_query(query)
    state = GameScan(compiled, ScanOptions(), (), Messages(io.StringIO()))
    for text in _split(game, tmp_path):
        if state.needles and state.rejected_unread(text):
            headers, problems = read_tags(text.tag_lines)
            assert not problems and not text.problems
            assert not compiled.prefilter(headers, 1)


@settings(max_examples=300, deadline=None)
@given(pairs=_PAIRS, data=st.data())
def test_the_needles_of_a_test_are_in_every_ascii_tag_text_it_accepts(
    pairs: list[tuple[str, str]], data: st.DataObject
) -> None:
    test = data.draw(_game_test(_texts([value for _, value in pairs])))
    compiled = compile_query(Query(Header(), (TopList(test),)))
    lines = [f'[{name} "{value}"]\n' for name, value in pairs]
    headers, problems = read_tags(lines)
    text = "".join(lines)
    if text.isascii() and not problems and compiled.prefilter(headers, 1):
        assert admits(text.lower(), compiled.tag_needles)


def test_needles_of_the_benchmark_scripts() -> None:
    scripts = Path(__file__).resolve().parents[2] / "benchmarks" / "queries"
    schlechter = compile_query(load_query(scripts / "tags.cql").query)
    carlsen = compile_query(load_query(scripts / "tags-no-match.cql").query)
    assert set(schlechter.tag_needles) == {frozenset({"schlechter"}), frozenset({"1910"})}
    assert carlsen.tag_needles == (frozenset({"carlsen"}),)


def test_no_needles_where_the_tags_do_not_have_to_say_so() -> None:
    def needles(body: Filter, **settings: Any) -> tuple[frozenset[str], ...]:
        return compile_query(Query(Header(), (TopList(body, **settings),))).tag_needles

    # A list that may match nowhere, a missing tag (python-chess reads "?"), a negation,
    # a disjunction with a side that gives no text, a year range too wide to list.
    assert needles(Player("Tal"), matchcount=(0, 5)) == ()
    assert needles(Player("?")) == () and needles(TagContains(TagName.SITE, "")) == ()
    assert needles(Not(Player("Tal"))) == ()
    tal_or_spassky = Or((Player("Tal"), And((Player("Spassky"), Result(GameResult.DRAW)))))
    assert needles(tal_or_spassky) == (frozenset({"tal", "spassky"}),)
    assert needles(Or((Player("Tal"), Simple(Keyword.TRUE)))) == ()
    assert needles(InRange(NumericValue(NumericKeyword.YEAR), 1900, 2000)) == ()
    assert needles(InRange(NumericValue(NumericKeyword.YEAR), None, 1910)) == ()
    assert (
        compile_query(Query(Header(), (TopList(Player("Tal")),)), optimize=False).tag_needles == ()
    )
    # Folding is Unicode's: the Kelvin sign folds to an ASCII k.
    assert needles_of(Player("\u212aasparov", ignore_case=True)) == (frozenset({"kasparov"}),)


# --------------------------------------------------------------------------------------
# Whole runs: the same bytes with and without the shortcut
# --------------------------------------------------------------------------------------

TAG_ONLY_SCRIPTS = [
    "(match :player Schlechter :year 1910 1910 (position))",
    "(match :player carlsen (position))",
    "(match :player tal (position :markall))",
    "(match :player m (position :result 1-0 :variations :markall))",
    "(match :year 1910 1921 (position :result 1/2))",
    "(match :player LASKER (position :matchcount 0 0) (position :result 0-1))",
    "(match :gamenumber 3 400 :player botvinnik (position))",
    "(match :player jörg (position))",
    "(match :player \u212a (position))",
]

#: Scripts that also look at the board: the needles reject games before replaying too.
BOARD_SCRIPTS = [
    "(match :player tal (position :check :markall))",
    "(match :year 1910 1921 (position Qd1 :result 1-0))",
]

MODERN_SCRIPTS = [
    'cql() player white "Steinitz" event "World" year == 1886',
    'cql() player "Tal" or site "Moscow"',
    'cql() result 1-0 event "?"',
]


def _run(compiled: Any, paths: list[Path], options: ScanOptions) -> tuple[str, str, str, tuple]:
    pgn, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
    summary = scan(
        compiled,
        [InputFile.of(path) for path in paths],
        options=options,
        sinks=[PgnWriter(pgn, several_files=len(paths) > 1), ReportWriter(report)],
        progress=Messages(messages),
    )
    counts = (summary.games, summary.matched, summary.skipped, summary.damaged_files)
    return pgn.getvalue(), report.getvalue(), messages.getvalue(), counts


@attrs.define
class _WithoutNeedles:
    """A compiled query whose tag needles are hidden: the scan reads every game's tags."""

    compiled: CompiledQuery
    tag_needles: tuple[frozenset[str], ...] = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


FIXTURES = [
    *sorted(PGN.glob("*.pgn")),
    Path(__file__).resolve().parents[2] / "fixtures" / "games.pgn",
]


def _compiled(script: str) -> CompiledQuery:
    if script.startswith("cql("):
        from cqllegacy.modern.grammar import read_query

        return compile_query(read_query(script))
    return compile_query(to_core(read_script(script)))


@pytest.mark.parametrize("script", TAG_ONLY_SCRIPTS + MODERN_SCRIPTS + BOARD_SCRIPTS)
def test_runs_with_the_needles_write_what_runs_without_them_write(script: str) -> None:
    compiled = _compiled(script)
    assert compiled.decided_by_tags is (script not in BOARD_SCRIPTS)
    assert compiled.tag_needles or not script.isascii()  # a non-ASCII player: no needle
    for options in (ScanOptions(), ScanOptions(skip_initial=True, variations=True)):
        for path in FIXTURES:
            expected = _run(_WithoutNeedles(compiled), [path], options)
            assert _run(compiled, [path], options) == expected, path
        together = _run(compiled, FIXTURES, options)
        assert together == _run(_WithoutNeedles(compiled), FIXTURES, options)


@pytest.mark.parametrize("script", [*TAG_ONLY_SCRIPTS[:3], TAG_ONLY_SCRIPTS[4], *BOARD_SCRIPTS])
def test_runs_on_real_games_write_what_replaying_every_game_writes(
    script: str, tmp_path: Path
) -> None:
    # The bundled World Championship games, once with CRLF line ends and Latin-1 names.
    crlf = tmp_path / "wcc-crlf.pgn"
    with open_pgn(WCC) as source:
        text = "".join(source.lines())
    crlf.write_bytes(text.replace("\n", "\r\n").replace("Lasker", "Lask\xe9r").encode("latin-1"))
    compiled = _compiled(script)
    replaying = compile_query(compiled.query, optimize=False)
    for paths in ([WCC], [crlf]):
        fast = _run(compiled, paths, ScanOptions())
        assert fast == _run(replaying, paths, ScanOptions())
    assert fast[3][1] > 0 or "carlsen" in script


def test_a_game_the_needles_reject_still_counts_and_keeps_its_problems(tmp_path: Path) -> None:
    path = tmp_path / "g.pgn"
    path.write_text(
        '[White "Tal"]\n\n1. e4 *\n\n'
        '[White "Spassky"]\n[Black Fischer]\n\n1. e4 *\n\n'  # malformed: reported
        '[White "Spassky"]\n[Variant "Atomic"]\n\n1. e4 *\n\n'  # variant: reported
        '[White "Spassky"]\n\n1. e4 {open\n\n'  # unterminated comment: reported
        '[White "Spassky"]\n[FEN "bad"]\n\n1. e4 *\n\n'  # bad FEN: rejected silently
        '[White "Tal"]\n\n1. d4 *\n\n',
        encoding="utf-8",
    )
    compiled = _compiled("(match :player tal :gamenumber 1 6 (position))")
    pgn, _, messages, counts = _run(compiled, [path], ScanOptions())
    assert counts == (6, 2, 3, 0)
    assert "{ Original game: 6 }" in pgn
    assert re.findall(r"game (\d+) skipped", messages) == ["2", "3", "4"]


# --------------------------------------------------------------------------------------
# Start-up: the legacy tokenizer without pyparsing; no worker processes for tag queries
# --------------------------------------------------------------------------------------

#: The tokenizer as it was written with pyparsing.
_PYPARSING_TOKEN = (
    pp.Regex(f"[()]|{COMMENT_PATTERN}|{ATOM_PATTERN}")
    .parse_with_tabs()
    .set_whitespace_chars(WHITESPACE, copy_defaults=False)
)

_SCRIPT_CHARS = st.sampled_from(
    [*'();:abc19 \t\n\r\v\f\x1c\x85\u2028\xa0\u3000"[]$-é', "(match", ":player"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SCRIPT_CHARS, max_size=40).map("".join))
def test_the_legacy_tokens_are_those_pyparsing_found(text: str) -> None:
    expected = [(found[0], start) for found, start, _ in _PYPARSING_TOKEN.scan_string(text)]
    assert [(token.text, token.offset) for token in tokens(text)] == expected


def _args(**values: Any) -> argparse.Namespace:
    return argparse.Namespace(**{"engine": "local", "scheduler": None, "jobs": None, **values})


def test_a_query_on_tags_alone_scans_in_one_process_unless_told_otherwise() -> None:
    tags_only = _compiled("(match :player tal (position))")
    board = _compiled("(match :player tal (position Qd1))")
    assert make_engine(_args(), tags_only) is None
    spread = [make_engine(_args(jobs=2), tags_only), make_engine(_args(jobs=2), board)]
    assert all(engine is not None and engine.workers == 2 for engine in spread)
    for engine in spread:
        assert engine is not None
        engine.close()


def test_a_run_on_tags_loads_no_parallel_machinery(tmp_path: Path) -> None:
    # The legacy reader is a pyparsing grammar: loading pyparsing is an accepted cost.
    script, out = tmp_path / "tal.cql", tmp_path / "out.pgn"
    script.write_text("(match :player tal (position))\n", encoding="utf-8")
    argv = ["run", str(script), "-i", str(WCC), "-o", str(out), "-q"]  # default --jobs
    # The translator reads the modern vocabulary (names CQL can use); not the reader or printer.
    unwanted = (
        "multiprocessing",
        "cqllegacy.runner.parallel",
        "cqllegacy.modern.grammar",
        "cqllegacy.modern.printer",
    )
    code = (
        "import sys\nfrom cqllegacy.cli import main\n"
        f"assert main({argv!r}) == 0\n"
        f"print(sorted(m for m in sys.modules if m.startswith({unwanted!r})))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
    assert out.read_text(encoding="utf-8").count("[Event ") > 10
