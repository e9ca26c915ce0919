"""With an index, ``--jobs`` and ``--engine dask`` send the candidate games to the workers
(:func:`cqllegacy.runner.parallel.run_units` with each indexed file's candidates), and
write what one process writes, with or without the index: the PGN output, the JSON Lines
report, the HTML report and the messages, over several inputs (indexed or not), with
``--gamenumber``, ``--limit`` and a script's last game.  Faults: a worker that dies,
an input changed during the run.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cqllegacy.api import Query, index, load
from cqllegacy.cli import main
from cqllegacy.errors import IncompleteInput
from cqllegacy.indexing.store import default_index_path
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.parallel import ProcessEngine
from cqllegacy.runner.pgn import split_games
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import InputFile
from tests.indexing.test_equivalence import corpus_text
from tests.support.runner import PGN, dying_worker

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [
    ROOT / "examples" / "knight-fork.cql",
    ROOT / "examples" / "smothered-mate.cql",
    ROOT / "benchmarks" / "queries" / "forany-pawn-promotes.cql",
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``a.pgn`` and ``c.pgn`` indexed, ``b.pgn`` not: the corpus of test_equivalence
    (every kind of game, unreadable ones among them), annotated games, the corpus
    fixture's games."""
    where = tmp_path_factory.mktemp("shards")
    (where / "a.pgn").write_bytes(corpus_text())
    (where / "b.pgn").write_bytes((PGN / "annotated.pgn").read_bytes())
    (where / "c.pgn").write_bytes((ROOT / "fixtures" / "games.pgn").read_bytes())
    index(where / "a.pgn")
    index(where / "c.pgn")
    return where


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The number of indexed inputs of each parallel scan; every input is worth spreading."""
    import cqllegacy.runner.parallel as parallel

    real = parallel.run_units
    calls: list[int] = []

    def counted(*args: object) -> int:
        chosen = args[6] if len(args) > 6 else None
        calls.append(sum(item is not None for item in chosen or ()))  # type: ignore[attr-defined]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "run_units", counted)
    monkeypatch.setattr(parallel, "worth_spreading", lambda inputs: True)
    yield calls


def _inputs(folder: Path) -> list[InputFile]:
    return [InputFile.of(folder / name) for name in ("a.pgn", "b.pgn", "c.pgn")]


def in_process(
    query: Query, inputs: list[InputFile], engine: object, use: bool
) -> tuple[str, str, str, tuple[int, ...]]:
    out, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
    summary = query.scan(
        inputs,
        sinks=[PgnWriter(out, several_files=True), ReportWriter(report)],
        progress=Messages(messages),
        engine=engine,  # type: ignore[arg-type]
        index=use,
    )
    counts = (summary.games, summary.matched, summary.skipped, summary.damaged_files)
    return out.getvalue(), report.getvalue(), messages.getvalue(), counts


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_candidates_on_workers_give_what_one_process_gives(
    folder: Path, script: Path, spy: list[int]
) -> None:
    query = load(script)
    inputs = _inputs(folder)
    scanned = in_process(query, inputs, None, False)
    indexed = in_process(query, inputs, None, True)
    spread = in_process(query, inputs, ProcessEngine(2, batch_games=3), True)
    assert spy == [2]  # the two indexed files went to the workers as candidates
    assert spread == indexed == scanned
    # Not vacuous: matches, and unreadable games reported.
    assert scanned[3][1] > 0 and scanned[3][2] > 0 and "a.pgn" in scanned[2]


def run_cli(script: Path, folder: Path, out: Path, *flags: str) -> tuple[bytes, ...]:
    out.mkdir()
    files = [out / "out.pgn", out / "out.jsonl", out / "out.html"]
    inputs = [str(folder / name) for name in ("a.pgn", "b.pgn", "c.pgn")]
    status = main(
        ["run", str(script), "-i", *inputs, "-o", str(files[0]), "--report", str(files[1]),
         "--html", str(files[2]), "-q", *flags]
    )  # fmt: skip
    assert status == 0
    return tuple(path.read_bytes() for path in files)


LIMITS = [
    pytest.param((), id="whole"),
    pytest.param(("--gamenumber", "150", "400"), id="gamenumber"),
    pytest.param(("--limit", "5"), id="limit"),
]


@pytest.mark.parametrize("extra", LIMITS)
def test_run_jobs_2_with_indexes_writes_the_scans_bytes(
    folder: Path, tmp_path: Path, spy: list[int], extra: tuple[str, ...]
) -> None:
    script = ROOT / "examples" / "knight-fork.cql"
    scanned = run_cli(script, folder, tmp_path / "scan", "-j", "1", "--no-index", *extra)
    alone = run_cli(script, folder, tmp_path / "one", "-j", "1", *extra)
    spread = run_cli(script, folder, tmp_path / "two", "-j", "2", *extra)
    assert spy == [2]
    assert spread == alone == scanned
    assert scanned[0].count(b"[Event ") > 1


def _games(path: Path) -> int:
    with open(path, encoding="latin-1") as handle:
        return len(list(split_games(handle)))


def test_a_scripts_last_game_stops_the_workers_as_the_scan(
    folder: Path, tmp_path: Path, spy: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    """The script's own gamenumber ends the run early in the second indexed file."""
    games = sum(_games(folder / name) for name in ("a.pgn", "b.pgn"))
    script = tmp_path / "last.cql"
    body = (ROOT / "examples" / "knight-fork.cql").read_text()
    script.write_text(body.replace("(match", f"(match :gamenumber 10 {games + 2}", 1))
    written: list[tuple[bytes, str]] = []
    for flags in (("-j", "1", "--no-index"), ("-j", "1"), ("-j", "2")):
        out = tmp_path / f"out{len(written)}.pgn"
        inputs = [str(folder / name) for name in ("a.pgn", "b.pgn", "c.pgn")]
        capsys.readouterr()
        assert main(["run", str(script), "-i", *inputs, "-o", str(out), *flags]) == 0
        summary = re.sub(r"in [0-9.]+ s", "", capsys.readouterr().err.replace(str(out), "OUT"))
        summary = re.sub(r"; used the index[^;]*", "", summary)  # said only when used
        written.append((out.read_bytes(), summary))
    assert written[0] == written[1] == written[2]
    assert f"stopped after game {games + 2}" in written[0][1], written[0][1]
    assert written[0][0].count(b"[Event ") > 0
    assert spy == [2]


def test_dask_with_indexes_gives_what_one_process_gives(folder: Path, spy: list[int]) -> None:
    distributed = pytest.importorskip("distributed")
    from cqllegacy.runner.parallel import DaskEngine

    query = load(SCRIPTS[0])
    inputs = _inputs(folder)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = in_process(query, inputs, DaskEngine(client=client, batch_games=2), True)
    assert spy == [2]
    assert on_dask == in_process(query, inputs, None, False)


# --------------------------------------------------------------------------------------
# Faults
# --------------------------------------------------------------------------------------


def _a_candidate(folder: Path) -> int:
    """The ordinal of a candidate game of a.pgn for knight-fork that does not read
    cleanly: a worker evaluates it from its text (:meth:`GameScan.game`, which
    ``dying_worker`` patches), where clean ones are evaluated from stored positions."""
    from cqllegacy.evaluator.necessary import necessity
    from cqllegacy.indexing.store import open_index

    need = necessity(load(SCRIPTS[0]).core)
    assert need is not None
    opened = open_index(default_index_path(folder / "a.pgn"), folder / "a.pgn")
    try:
        numbers = opened.candidates(need, 0)
        unclean = {
            game for (game,) in opened.connection.execute(
                "SELECT game FROM games WHERE NOT clean"
            ).fetchall()
        }
    finally:
        opened.close()
    read = [number for number in numbers if number in unclean]
    return read[len(read) // 2]


def test_a_worker_killed_once_is_replaced_and_its_candidates_evaluated_again(
    folder: Path, tmp_path: Path, spy: list[int], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    script = SCRIPTS[0]
    alone = run_cli(script, folder, tmp_path / "one", "-j", "1")
    dying_worker(monkeypatch, tmp_path / "killed-once", _a_candidate(folder))
    messages = capsys.readouterr().err.splitlines()
    out = tmp_path / "two"
    out.mkdir()
    argv = ["run", str(script), "-i", str(folder / "a.pgn"), str(folder / "b.pgn"),
            str(folder / "c.pgn"), "-o", str(out / "out.pgn"), "--report",
            str(out / "out.jsonl"), "--html", str(out / "out.html"), "-j", "2", "-q"]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert (tmp_path / "killed-once").exists()
    said = [line for line in err.splitlines() if "ended abruptly" in line]
    assert len(said) == 1 and "scanned again" in said[0] and "Traceback" not in err, err
    assert [line for line in err.splitlines() if line not in said] == messages
    written = tuple((out / name).read_bytes() for name in ("out.pgn", "out.jsonl", "out.html"))
    assert written == alone


def test_a_worker_that_always_dies_loses_its_candidates_and_exits_3(
    folder: Path, tmp_path: Path, spy: list[int], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    dying_worker(monkeypatch, None, _a_candidate(folder))
    argv = ["run", str(SCRIPTS[0]), "-i", str(folder / "a.pgn"), "-o",
            str(tmp_path / "out.pgn"), "-j", "2", "-q"]  # fmt: skip
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lost = [line for line in err.splitlines() if "not examined" in line]
    assert len(lost) == 1 and "a.pgn games" in lost[0] and "ended abruptly" in lost[0], err
    assert (tmp_path / "out.pgn").read_text().count("[Event ") > 0


def test_an_input_changed_during_the_run_is_an_error_never_another_answer(
    folder: Path, tmp_path: Path, spy: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The main process reads the candidates' texts from the input, by the byte ranges
    of the index it checked against the input when the run began; an input changed
    afterwards is said in one line (the run's results are incomplete), as with one
    process, and never answered from its new bytes."""
    import cqllegacy.indexing.scan as indexing_scan

    shard = tmp_path / "shard.pgn"
    shutil.copyfile(folder / "a.pgn", shard)
    shutil.copyfile(default_index_path(folder / "a.pgn"), default_index_path(shard))
    script = SCRIPTS[0]
    real = indexing_scan.IndexCandidates.numbers

    def change_then_ask(self: object, games_before: int) -> list[int]:
        shard.write_bytes(b"")  # the input emptied once its index is open and checked
        return real(self, games_before)  # type: ignore[arg-type]

    expected = in_process(load(script), [InputFile.of(shard)], None, True)
    shard.write_bytes((folder / "a.pgn").read_bytes())
    monkeypatch.setattr(indexing_scan.IndexCandidates, "numbers", change_then_ask)
    with pytest.raises(IncompleteInput, match="changed while it was read") as caught:
        in_process(load(script), [InputFile.of(shard)], ProcessEngine(2), True)
    assert shard.stat().st_size == 0
    assert len(str(caught.value).splitlines()) == 1 and expected[3][1] > 0


def test_a_copied_shard_and_index_with_new_times_are_used(
    folder: Path, tmp_path: Path, spy: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    """As docs/dask.md says: the index is checked against the input's size and SHA-256,
    not its modification time, so a copy of both (to another machine) stays fresh."""
    shard = tmp_path / "copy.pgn"
    shutil.copyfile(folder / "a.pgn", shard)  # copyfile: new modification times
    shutil.copyfile(default_index_path(folder / "a.pgn"), default_index_path(shard))
    os.utime(shard, (1_000_000_000, 1_000_000_000))
    capsys.readouterr()
    argv = ["run", str(SCRIPTS[0]), "-i", str(shard), "-o", str(tmp_path / "o.pgn"), "-j", "2"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "note:" not in err and "scanning" not in err, err
    assert spy == [1]


class _Interrupting:
    """A sink whose second write is interrupted (Ctrl-C while results are written)."""

    renderer = staticmethod(str)

    def __init__(self) -> None:
        self.writes = 0

    def __call__(self, found: object) -> None:
        self.write(str(found))

    def write(self, text: str) -> None:
        self.writes += 1
        if self.writes == 2:
            raise KeyboardInterrupt


def test_ctrl_c_during_an_indexed_parallel_run_stops_its_workers(
    folder: Path, spy: list[int]
) -> None:
    import multiprocessing

    engine = ProcessEngine(2, batch_games=1)
    sink = _Interrupting()
    with pytest.raises(KeyboardInterrupt):
        load(SCRIPTS[0]).scan(
            [InputFile.of(folder / "a.pgn")], sinks=[sink], progress=Messages(io.StringIO()),
            engine=engine,
        )  # fmt: skip
    assert spy == [1] and sink.writes == 2
    assert multiprocessing.active_children() == []
