"""``run --jobs N``: the input cut at game boundaries, scanned by worker processes, with
the same output, report, messages and summary as one process, in input order."""

from __future__ import annotations

import bz2
import io
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.cli import main
from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.runner import pgn_parts as pgn_module
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.parallel import ProcessEngine, part_size, run_units
from cqllegacy.runner.pgn import (
    LONG_LINE,
    bounded_lines,
    open_pgn,
    split_games,
)
from cqllegacy.runner.pgn_parts import game_boundaries, range_lines
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import InputFile
from cqllegacy.runner.scanner import scan
from cqllegacy.runner.scripts import load_query

ROOT = Path(__file__).resolve().parents[2]
PGN = Path(__file__).resolve().parents[1] / "pgn"


def _sample_text() -> str:
    data = (resources.files("cqllegacy") / "data" / "wcc.pgn.bz2").read_bytes()
    return bz2.decompress(data).decode("utf-8")


SAMPLE = _sample_text()


def _first_games(count: int) -> str:
    starts = [i for i in range(len(SAMPLE)) if SAMPLE.startswith("[Event ", i)]
    return SAMPLE[: starts[count]] if count < len(starts) else SAMPLE


# --------------------------------------------------------------------------------------
# Cutting a file into parts
# --------------------------------------------------------------------------------------

_LINES = st.sampled_from(
    [
        '[Event "x"]',
        '[White "Tal, M"]',
        "[Black Botvinnik]",
        "",
        "  ",
        "1. e4 e5 2. Nf3 *",
        "1-0",
        "1. e4 {a comment",
        "that goes on} e5 *",
        "{",
        "}",
        "; a comment line",
        "% an escape line",
        "1. d4 ( 1. c4 ) d5",
        '\ufeff[Event "bom"]',
        '[Site "{"]',
    ]
)
_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def pgn_files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.tuples(_LINES, _ENDS), max_size=40))
    text = "".join(line + end for line, end in lines)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no line end at the end of the file
    return text.encode("utf-8")


def _split_whole(path: Path) -> list[object]:
    with open_pgn(path) as source:
        return list(split_games(source.lines()))


def _split_in_parts(path: Path, part_bytes: int) -> list[object]:
    cuts = game_boundaries(path, part_bytes)
    ends = [*cuts[1:], path.stat().st_size]
    games: list[object] = []
    line = 1
    for start, end in zip(cuts, ends, strict=True):
        lines = list(range_lines(path, start, end))
        games.extend(split_games(lines, first_ordinal=len(games) + 1, first_line=line))
        line += len(lines)
    return games


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pgn_files(), st.sampled_from([1, 5, 20, 80]))
def test_parts_split_like_the_whole_file(tmp_path: Path, data: bytes, part_bytes: int) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(data)
    assert _split_in_parts(path, part_bytes) == _split_whole(path)


def test_boundaries_fall_between_games_of_real_files(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(_first_games(60) + (PGN / "broken.pgn").read_text(encoding="latin-1"))
    cuts = game_boundaries(path, 2000)
    assert len(cuts) > 10
    assert _split_in_parts(path, 2000) == _split_whole(path)


def test_part_sizes_grow_with_the_input_within_limits() -> None:
    sizes = [part_size(total, 2) for total in (10_000, 10**6, 10**7, 10**8, 10**10)]
    assert sizes == sorted(sizes)
    assert sizes[0] == 64 * 1024 and sizes[-1] == 4 * 1024 * 1024


# --------------------------------------------------------------------------------------
# Scans on worker processes
# --------------------------------------------------------------------------------------


def _scan(inputs: list[InputFile], script: str, engine: ProcessEngine | None) -> tuple:
    compiled = compile_query(load_query(ROOT / "examples" / f"{script}.cql").query)
    pgn, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
    summary = scan(
        compiled,
        inputs,
        sinks=[PgnWriter(pgn, several_files=len(inputs) > 1), ReportWriter(report)],
        progress=Messages(messages),
        engine=engine,
    )
    counts = (summary.games, summary.matched, summary.skipped, summary.damaged_files)
    return pgn.getvalue(), report.getvalue(), messages.getvalue(), counts


@pytest.fixture(scope="module")
def mixed_inputs(tmp_path_factory: pytest.TempPathFactory) -> list[InputFile]:
    """Plain and compressed files, unreadable games, a truncated compressed file."""
    folder = tmp_path_factory.mktemp("inputs")
    plain = folder / "games.pgn"
    broken = (PGN / "broken.pgn").read_text(encoding="latin-1")
    plain.write_text(_first_games(40) + broken + _first_games(25), encoding="latin-1")
    truncated = folder / "cut.pgn.bz2"
    truncated.write_bytes(bz2.compress(_first_games(12).encode())[:-40])
    names = [plain, PGN / "annotated.pgn.bz2", PGN / "crlf.pgn", truncated, plain]
    return [InputFile.of(path) for path in names]


@pytest.mark.parametrize("script", ["knight-fork", "early-queen-trade", "many-checks"])
def test_workers_write_what_one_process_writes(mixed_inputs: list[InputFile], script: str) -> None:
    alone = _scan(mixed_inputs, script, None)
    together = _scan(mixed_inputs, script, ProcessEngine(2, part_bytes=3000, batch_games=3))
    assert together == alone
    # Not vacuous: games of every input, unreadable games, a damaged file.
    assert alone[3][0] == 162 and alone[3][2] > 0 and alone[3][3] == 1
    assert "(game 129 of the input) skipped: malformed tag line" in alone[2]
    assert "damaged bzip2 data" in alone[2]


def test_unreadable_games_are_reported_with_their_ordinal(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(_first_games(30) + (PGN / "broken.pgn").read_text(encoding="latin-1"))
    _, _, messages, counts = _scan(
        [InputFile.of(path)], "knight-fork", ProcessEngine(2, part_bytes=1500)
    )
    alone = _scan([InputFile.of(path)], "knight-fork", None)
    assert messages == alone[2] and counts == alone[3]
    # broken.pgn's first unreadable game, an illegal move, is game 32 of this file.
    assert messages.splitlines()[0].startswith(f"warning: {path}:")
    assert " game 32 skipped: illegal san" in messages.splitlines()[0]


def test_one_worker_scans_here() -> None:
    inputs = [InputFile.of(PGN / "annotated.pgn")]
    assert _scan(inputs, "knight-fork", ProcessEngine(1)) == _scan(inputs, "knight-fork", None)


def test_run_jobs_2_writes_the_same_bytes_as_jobs_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cqllegacy.runner.parallel as parallel

    parallel_runs = []

    def counted(*args: object) -> int:
        parallel_runs.append(args)
        return run_units(*args)  # type: ignore[arg-type]

    # The scanner imports run_units where it spreads a scan.
    monkeypatch.setattr(parallel, "run_units", counted)
    games = tmp_path / "games.pgn"
    # Twice the sample: large enough for several parts of the smallest size.
    games.write_text(SAMPLE + SAMPLE, encoding="utf-8")
    script = tmp_path / "fork.cql"
    script.write_text("(match (position Nd4 kf3 :shift :flipcolor))\n")
    written = []
    for jobs in ("1", "2"):
        out, report = tmp_path / f"out{jobs}.pgn", tmp_path / f"report{jobs}.jsonl"
        argv = ["run", str(script), "-i", str(games), "-o", str(out), "--report", str(report)]
        assert main([*argv, "-q", "--jobs", jobs]) == 0
        written.append((out.read_bytes(), report.read_bytes()))
    assert written[0] == written[1]
    assert written[0][0].count(b"[Event ") > 20
    assert len(parallel_runs) == 1  # --jobs 1 scans here, --jobs 2 on workers


def test_jobs_must_be_a_positive_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", str(ROOT / "examples" / "knight-fork.cql"), "--jobs", "0"])
    assert "at least 1" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# Lines read from an offset, and a file without line ends (issue 32, item 14)
# --------------------------------------------------------------------------------------


def _reference_lines(data: bytes, limit: int) -> list[str]:
    """The lines open_pgn reads (universal newlines, a line over ``limit`` as LONG_LINE)."""
    text = io.TextIOWrapper(io.BytesIO(data), encoding="latin-1", newline=None)
    return list(bounded_lines(text, limit))


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"bb", b"\r", b"\n", b"\r\n", b"c" * 9]), max_size=40),
    window=st.integers(1, 12),
    limit=st.integers(1, 20),
)
def test_lines_after_an_offset_are_the_lines_open_pgn_reads(
    data: list[bytes], window: int, limit: int
) -> None:
    whole = b"".join(data)
    found = list(pgn_module._lines_after(io.BytesIO(whole), 0, window, limit))
    lines = [line for _, line in found]
    normal = [
        line if line is LONG_LINE else line.replace("\r\n", "\n").replace("\r", "\n")
        for line in lines
    ]
    assert normal == _reference_lines(whole, limit)
    # Each offset is where its line begins: the bytes between two offsets are that line.
    ends = [offset for offset, _ in found[1:]] + [len(whole)]
    for (offset, line), end in zip(found, ends[: len(found)], strict=True):
        if line is not LONG_LINE:
            assert whole[offset:end].decode("latin-1") == line


class _CountingPattern:
    """``_LINE_END`` that counts the characters its searches are given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.scanned = pattern, 0

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str]]:
        self.scanned += len(text) - pos
        return self.pattern.finditer(text, pos)


def test_a_file_without_line_ends_is_cut_without_scanning_its_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 3 GB file without line ends took -j 2 five times -j 1's time: finding where to
    # cut it scanned every character in Python.  The bound: nothing scanned where a
    # read holds no line end (memchr finds that).
    path = tmp_path / "no-line-end.pgn"
    path.write_bytes(b"x" * (3 << 20))
    counting = _CountingPattern(pgn_module._LINE_END)
    monkeypatch.setattr(pgn_module, "_LINE_END", counting)
    monkeypatch.setenv("CQLLEGACY_MAX_LINE_BYTES", str(1 << 20))
    assert game_boundaries(path, 64 * 1024) == [0]
    assert counting.scanned <= 64 * 1024


def test_a_file_without_line_ends_gives_jobs_2_what_jobs_1_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "no-line-end.pgn"
    path.write_bytes(b"1. e4 " * (400_000))
    monkeypatch.setenv("CQLLEGACY_MAX_LINE_BYTES", str(1 << 20))
    inputs = [InputFile(str(path), path.name)]
    engine = ProcessEngine(2, part_bytes=64 * 1024)
    assert _scan(inputs, "knight-fork", engine) == _scan(inputs, "knight-fork", None)
