"""``run --engine dask`` when Dask's workers die again and again, or never start
(issue 32, items 10 and 16): the run ends, in one line per loss, never a traceback.

The clients here stand in for ``dask.distributed.Client``: tasks run in this process,
or die as a killed worker's do; a cluster whose workers are all gone cannot scatter,
and its futures are never done.
"""

from __future__ import annotations

import bz2
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import cqllegacy.runner.parallel as parallel
from cqllegacy.cli import main
from tests.support.runner import WCC

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "examples" / "knight-fork.cql", "kf.cql")
    Path("wcc.pgn").write_bytes(bz2.decompress(WCC.read_bytes())[:300_000])
    return tmp_path


class _Done:
    def __init__(self, fn: Callable[..., object], args: tuple[object, ...]) -> None:
        self.fn, self.args = fn, args

    def done(self) -> bool:
        return True

    def result(self) -> object:
        return self.fn(*self.args)


class _Killed:
    """A future whose worker died."""

    def done(self) -> bool:
        return True

    def result(self) -> object:
        raise parallel.concurrent.futures.process.BrokenProcessPool("worker killed")


class _Never:
    """A future no worker is left to run: result() would wait forever."""

    def done(self) -> bool:
        return False

    def result(self) -> object:
        raise AssertionError("waited for a future that no worker will ever run")


class _EmptyingCluster:
    """Every scan task's worker dies; once it has, the workers are gone for good: the
    shared query cannot be scattered again, and new tasks are never run."""

    def __init__(self) -> None:
        self.gone = False

    def nthreads(self) -> dict[str, int]:
        return {"a": 1, "b": 1}

    def submit(self, fn: Callable[..., object], /, *args: object, pure: bool = True) -> object:
        if self.gone:
            return _Never()
        if fn is parallel.scan_range:
            self.gone = True
            return _Killed()
        return _Done(fn, args)

    def scatter(self, data: object, /, *, broadcast: bool = False, hash: bool = True) -> object:
        if self.gone:
            raise TimeoutError("No valid workers found")
        return data

    def close(self) -> None:
        pass


def test_a_cluster_whose_workers_are_all_gone_ends_the_run_with_status_3(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "error: writing the results failed: No valid workers found" (status 4),
    # or the run waited forever on futures no worker would run.
    monkeypatch.setattr(parallel, "_connect", lambda address, quiet=False: _EmptyingCluster())
    monkeypatch.setattr(parallel, "part_size", lambda total, workers: 64 * 1024)
    argv = ["run", "kf.cql", "-i", "wcc.pgn", "-o", "out.pgn", "--engine", "dask", "-q"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "writing" not in err, err
    lost = err.splitlines()
    assert lost and all("no worker is left" in line and "not examined" in line for line in lost)
    assert "wcc.pgn bytes 0-" in lost[0]
    assert Path("out.pgn").exists()


@pytest.mark.parametrize(
    "error",
    [RuntimeError("Nanny failed to start."), TimeoutError("Timed out during handshake")],
    ids=["nanny", "timeout"],
)
def test_a_local_cluster_that_cannot_start_is_one_line(
    here: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: Exception,
) -> None:
    pytest.importorskip("dask.distributed")

    def failing(address: str | None, quiet: bool = False) -> object:
        raise error

    monkeypatch.setattr(parallel, "_connect", failing)
    status = main(["run", "kf.cql", "-i", "wcc.pgn", "-o", "out.pgn", "--engine", "dask"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    if isinstance(error, OSError):
        assert status == 2 and "cannot reach" in err
    else:
        assert status == 3 and "cannot start a local Dask cluster" in err
        assert "Nanny failed to start" in err


def test_our_local_cluster_fails_a_task_at_its_first_dead_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Dask's own three tries, each waiting for a worker to come back, held a run whose
    # workers were killed again and again; the run retries once itself.
    pytest.importorskip("dask.distributed")
    import dask
    import dask.distributed

    seen = {}

    class Recording:
        def __init__(self, **kwargs: object) -> None:
            seen["allowed"] = dask.config.get("distributed.scheduler.allowed-failures")
            seen.update(kwargs)

    monkeypatch.setattr(dask.distributed, "Client", Recording)
    parallel._connect(None)
    assert seen["allowed"] == 0 and seen["dashboard_address"] is None


def test_a_file_that_loses_several_units_counts_once_in_the_summary(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "32 input files not read to the end" was said of one file that lost 32 ranges.
    monkeypatch.setattr(parallel, "_connect", lambda address, quiet=False: _EmptyingCluster())
    monkeypatch.setattr(parallel, "part_size", lambda total, workers: 64 * 1024)
    argv = ["run", "kf.cql", "-i", "wcc.pgn", "-o", "out.pgn", "--engine", "dask"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if "not examined" in line]) > 1, err
    assert "1 input file not read to the end" in err.splitlines()[-1], err
