"""``run --engine dask``: byte ranges of plain files and batches of compressed ones go to
a Dask cluster (here a small in-process ``LocalCluster``); the results come back in input
order, the same as a local scan."""

from __future__ import annotations

import bz2
import io
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "dask.distributed", reason="Dask is optional (pip install 'cqllegacy[dask]')"
)

from cqllegacy.cli import main  # noqa: E402
from cqllegacy.evaluator.evaluate import compile_query  # noqa: E402
from cqllegacy.runner.output import PgnWriter  # noqa: E402
from cqllegacy.runner.parallel import DaskEngine  # noqa: E402
from cqllegacy.runner.progress import Messages  # noqa: E402
from cqllegacy.runner.report import ReportWriter  # noqa: E402
from cqllegacy.runner.results import InputFile  # noqa: E402
from cqllegacy.runner.scanner import scan  # noqa: E402
from cqllegacy.runner.scripts import load_query  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PGN = Path(__file__).resolve().parents[1] / "pgn"


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as local:
        yield local


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = (resources.files("cqllegacy") / "data" / "wcc.pgn.bz2").read_bytes()
    text = bz2.decompress(data).decode("utf-8")
    path = tmp_path_factory.mktemp("dask") / "games.pgn"
    cut = text.index("[Event ", 60_000)
    path.write_text(text[:cut] + (PGN / "broken.pgn").read_text(encoding="latin-1"))
    return path


def _scan(inputs: list[InputFile], engine: DaskEngine | None) -> tuple[object, ...]:
    compiled = compile_query(load_query(ROOT / "examples" / "knight-fork.cql").query)
    pgn, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
    summary = scan(
        compiled,
        inputs,
        sinks=[PgnWriter(pgn, several_files=True), ReportWriter(report)],
        progress=Messages(messages),
        engine=engine,
    )
    counts = (summary.games, summary.matched, summary.skipped)
    return pgn.getvalue(), report.getvalue(), messages.getvalue(), counts


def test_a_dask_cluster_gives_the_local_results(cluster: object, games: Path) -> None:
    inputs = [InputFile.of(games), InputFile.of(PGN / "annotated.pgn.xz")]
    with distributed.Client(cluster) as client:
        engine = DaskEngine(client=client, part_bytes=8000, batch_games=2)
        on_dask = _scan(inputs, engine)
        assert client.submit(len, "open").result() == 4  # a client handed in stays usable
    local = _scan(inputs, None)
    assert on_dask == local
    assert local[3][1] > 0 and local[3][2] > 0


def test_run_engine_dask_with_a_scheduler_address(
    cluster: object, games: Path, tmp_path: Path
) -> None:
    script = ROOT / "examples" / "knight-fork.cql"
    written = []
    for extra in ([], ["--engine", "dask", "--scheduler", cluster.scheduler_address]):
        out = tmp_path / f"out{len(extra)}.pgn"
        assert main(["run", str(script), "-i", str(games), "-o", str(out), "-q", *extra]) == 0
        written.append(out.read_bytes())
    assert written[0] == written[1] and written[0].count(b"[Event ") > 0
