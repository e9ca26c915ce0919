"""``cqllegacy index`` under faults: killed workers, signals, an input removed while it is
read, a huge file without line ends (issue 32, items 10, 12, 13, 14).

A worker that dies is replaced and its games indexed again; a batch whose worker dies
twice is reported in one line, and the index holds the games before it (runs scan the
file, status 3).  Every way out is one line on standard error, never a traceback.
"""

from __future__ import annotations

import bz2
import os
import signal
import sys
from pathlib import Path

import attrs
import duckdb
import pytest

import cqllegacy.indexing.build as build
from cqllegacy.cli import main
from cqllegacy.runner.pgn import GameText
from tests.cli.test_faults import children_of, killer, run_cli, wait_for
from tests.support.runner import WCC

__all__ = ["killer"]  # a fixture, used by name

WCC_TEXT = bz2.decompress(WCC.read_bytes())


@pytest.fixture
def games(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_bytes(WCC_TEXT[:400_000])
    return path


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """The bundled games four times over (4,110 games, 3 MB): long enough to be caught."""
    path = tmp_path / "big.pgn"
    path.write_bytes(WCC_TEXT * 6)
    return path


def stored(index: Path) -> list[object]:
    """Every game and position an index holds."""
    with duckdb.connect(str(index), read_only=True) as connection:
        return [
            connection.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            for table in ("games", "positions")
        ]


def one_line(stderr: str) -> None:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


# --------------------------------------------------------------------------------------
# Killed workers
# --------------------------------------------------------------------------------------

_record = build.record_batch


@attrs.frozen
class _DyingOnGame:
    """A record_batch that kills its worker process on the batch holding ``game``, the
    first ``times`` times (counted in ``marker``, which the workers share)."""

    marker: Path
    game: int
    times: int

    def __call__(self, texts: tuple[GameText, ...]) -> object:
        if any(text.file_ordinal == self.game for text in texts):
            deaths = len(self.marker.read_text()) if self.marker.exists() else 0
            if deaths < self.times:
                with open(self.marker, "a") as handle:
                    handle.write("x")
                os.kill(os.getpid(), signal.SIGKILL)
        return _record(texts)


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_a_worker_killed_once_is_replaced_and_the_index_is_whole(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(build, "BATCH_GAMES", 50)
    monkeypatch.setattr(build, "record_batch", _DyingOnGame(tmp_path / "deaths", 120, times=1))
    assert main(["index", str(games), "-j", "2", "-o", str(tmp_path / "a.cqlidx"), "-q"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "indexed again" in err, err
    monkeypatch.setattr(build, "record_batch", _record)
    assert main(["index", str(games), "-j", "1", "-o", str(tmp_path / "b.cqlidx"), "-q"]) == 0
    assert stored(tmp_path / "a.cqlidx") == stored(tmp_path / "b.cqlidx")


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_a_batch_whose_worker_dies_twice_is_reported_lost_in_one_line(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(build, "BATCH_GAMES", 50)
    monkeypatch.setattr(build, "record_batch", _DyingOnGame(tmp_path / "deaths", 120, times=9))
    status = main(["index", str(games), "-j", "2", "-o", str(tmp_path / "a.cqlidx"), "-q"])
    err = capsys.readouterr().err
    assert status == 3, err
    one_line(err)
    [line] = [line for line in err.splitlines() if "twice" in line]
    assert "games 101-150" in line and "the index holds the 100 games before them" in line
    assert "runs on it will scan" in line
    assert len(err.splitlines()) == 2  # the retry's warning, and the loss


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_killing_a_worker_of_index_jobs_2_is_one_warning_line(
    big: Path, tmp_path: Path, killer: list[int]
) -> None:
    process = run_cli("index", str(big), "-j", "2", "-o", "big.cqlidx", cwd=tmp_path)
    killer.append(process.pid)
    wait_for(lambda: len(children_of(process.pid)) >= 2)
    os.kill(children_of(process.pid)[0], signal.SIGKILL)
    _, err = process.communicate(timeout=120)
    stderr = err.decode()
    one_line(stderr)
    assert process.returncode == 0, stderr
    assert "indexed again" in stderr and "indexed " in stderr


# --------------------------------------------------------------------------------------
# Signals
# --------------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["INT", "TERM"]
)
def test_a_signal_during_index_is_one_line(
    big: Path, tmp_path: Path, killer: list[int], jobs: str, signum: int, status: int
) -> None:
    process = run_cli("index", str(big), "-j", jobs, "-o", "big.cqlidx", cwd=tmp_path)
    killer.append(process.pid)
    wanted = 2 if jobs == "2" else 0
    wait_for(lambda: list(tmp_path.glob(".*.tmp*")) and len(children_of(process.pid)) >= wanted)
    os.kill(process.pid, signum)
    _, err = process.communicate(timeout=30)
    stderr = err.decode()
    assert process.returncode == status, stderr
    assert stderr == f"interrupted by {signal.Signals(signum).name}\n"
    assert not (tmp_path / "big.cqlidx").exists()


# --------------------------------------------------------------------------------------
# The input removed while it is read
# --------------------------------------------------------------------------------------


@attrs.frozen
class _RemovingInput:
    """A record_batch that removes the input file when it records its first batch."""

    source: Path

    def __call__(self, texts: tuple[GameText, ...]) -> object:
        self.source.unlink(missing_ok=True)
        return _record(texts)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_input_removed_while_it_is_indexed_is_the_inputs_failure(
    games: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    jobs: str,
) -> None:
    monkeypatch.setattr(build, "BATCH_GAMES", 50)
    monkeypatch.setattr(build, "record_batch", _RemovingInput(games))
    target = tmp_path / "games.cqlidx"
    target.write_bytes(b"the previous index")
    status = main(["index", str(games), "-j", jobs, "-o", str(target), "-q"])
    err = capsys.readouterr().err
    assert status == 3, err
    assert err.count("\n") == 1 and err.startswith(f"error: input {games} "), err
    assert "No such file or directory" in err and "cannot write" not in err
    assert target.read_bytes() == b"the previous index"


# --------------------------------------------------------------------------------------
# A folder the user cannot write (issue 32, item 5)
# --------------------------------------------------------------------------------------


def test_an_index_in_a_folder_the_user_cannot_write_says_to_use_o(
    games: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The permission check as a user other than root meets it (root writes anywhere).
    real_access = os.access
    folder = games.parent
    monkeypatch.setattr(
        os, "access", lambda path, mode: real_access(path, mode) and Path(path) != folder
    )
    assert main(["index", str(games), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "IO Error" not in err, err
    assert "which is not writable (permission denied)" in err
    assert "write it elsewhere with -o INDEX, and run with --index INDEX" in err
    assert not list(folder.glob("*.cqlidx"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_duckdb_reports_as_its_own_error_ends_the_build_cleanly(
    signum: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signal that arrives while DuckDB executes reaches the handler inside DuckDB,
    which reports "Query interrupted" as a RuntimeError of its own (seen in CI: a
    traceback and status 1 for a Ctrl-C).  The build ends as interrupted, its temporary
    file removed, nothing at the index's place."""
    from cqllegacy import signals
    from cqllegacy.errors import Interrupted
    from cqllegacy.indexing import store

    monkeypatch.setattr(signals, "_received", 0)
    # The handler ignores the ending signals afterwards: they are put back below.
    saved = {ending: signal.getsignal(ending) for ending in signals.ENDING}

    class Interrupting:
        def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
            self.connection = connection

        def execute(self, *args: object) -> object:
            try:
                signals._interrupt(signum, None)
            except Interrupted as exc:
                raise RuntimeError("Query interrupted") from exc
            raise AssertionError("not reached")

        def close(self) -> None:
            self.connection.close()

    class Library:
        Error = duckdb.Error

        @staticmethod
        def connect(path: str, config: dict[str, str]) -> Interrupting:
            return Interrupting(duckdb.connect(path, config=config))

    monkeypatch.setattr(store, "_duckdb", lambda: Library)
    target = tmp_path / "games.pgn.cqlidx"
    try:
        with pytest.raises(Interrupted) as caught, store.writing(target):
            pass
    finally:
        for ending, handler in saved.items():
            signal.signal(ending, handler)
    assert caught.value.signum == signum
    assert list(tmp_path.iterdir()) == []
