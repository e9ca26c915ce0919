"""Faults, second round (issue 20): outputs replaced all together or not at all, never a
write through a source, statuses by what failed, names in messages and temporary files.

A full disk is a small tmpfs filled to the brim (mounted when the tests run as root,
skipped otherwise) or ``/dev/full``, a device whose every write fails with ENOSPC.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import errno
import json
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cqllegacy.cli import main
from tests.cli.test_faults import KNIGHT_FORK, PREVIOUS, scratch  # noqa: F401 (a fixture)
from tests.support.runner import WCC, dying_worker

ENOSPC = os.strerror(errno.ENOSPC)


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system with no room left (a small tmpfs, filled)."""
    folder = tmp_path / "full"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs (needs root)")
    try:
        _fill(folder / "filler")
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(path: Path) -> None:
    """Write ``path`` until its file system has no room left."""
    with contextlib.suppress(OSError), open(path, "wb", buffering=0) as filler:
        while True:
            filler.write(b"x" * 1024)


def _previous(*paths: Path) -> None:
    for path in paths:
        path.write_text(PREVIOUS)


def _unchanged(*paths: Path) -> bool:
    return all(path.read_text() == PREVIOUS for path in paths)


def _no_temporaries(*folders: Path) -> bool:
    return not [p for folder in folders for p in folder.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------------------
# 1. All or nothing
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("failing", ["-o", "--report", "--html"])
def test_a_failing_device_for_one_output_leaves_the_others_as_they_were(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    failing: str,
) -> None:
    # The failing output's data is small (a few games, still buffered when it closes).
    files = {
        "-o": scratch / "out.pgn",
        "--report": scratch / "r.jsonl",
        "--html": scratch / "p.html",
    }
    _previous(*files.values())
    files[failing].unlink()
    files[failing].symlink_to("/dev/full")
    argv = ["run", "kf.cql", "-i", "games.pgn", "-j", "1", "-q"]
    for option, path in files.items():
        argv += [option, path.name]
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert ENOSPC in err and err.count("\n") == 1, err
    assert _unchanged(*(path for option, path in files.items() if option != failing))
    assert _no_temporaries(scratch)


@pytest.mark.parametrize("size", ["small", "large"])
def test_a_full_disk_for_the_output_leaves_report_and_page_as_they_were(
    scratch: Path,  # noqa: F811
    full_disk: Path,
    capsys: pytest.CaptureFixture[str],
    size: str,
) -> None:
    games = "games.pgn"
    if size == "large":
        Path("large.pgn").write_bytes(Path(games).read_bytes() * 4)
        games = "large.pgn"
    _previous(scratch / "r.jsonl", scratch / "p.html")
    argv = ["run", "kf.cql", "-i", games, "-o", str(full_disk / "out.pgn"), "-j", "1", "-q"]
    assert main([*argv, "--report", "r.jsonl", "--html", "p.html"]) == 4
    err = capsys.readouterr().err
    assert ENOSPC in err and "out.pgn" in err and err.count("\n") == 1, err
    assert _unchanged(scratch / "r.jsonl", scratch / "p.html")
    assert not (full_disk / "out.pgn").exists()
    assert _no_temporaries(scratch, full_disk)


def test_a_failing_sync_replaces_nothing(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A device that takes the data but fails to put it on the disk: the report's file is
    # synced after the output's, and the output must not be in place when it fails.
    _previous(scratch / "out.pgn", scratch / "r.jsonl")
    real_fsync = os.fsync
    synced: list[int] = []

    def fsync(descriptor: int) -> None:
        synced.append(descriptor)
        if len(synced) == 2:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    argv = ["run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", "--report", "r.jsonl", "-q"]
    assert main([*argv, "-j", "1"]) == 4
    assert os.strerror(errno.EIO) in capsys.readouterr().err
    assert _unchanged(scratch / "out.pgn", scratch / "r.jsonl")
    assert _no_temporaries(scratch)


@pytest.fixture
def library(scratch: Path) -> Path:  # noqa: F811
    source = scratch / "src"
    (source / "sub").mkdir(parents=True)
    (source / "kf.cql").write_text(KNIGHT_FORK.read_text())
    (source / "sub" / "other.cql").write_text(KNIGHT_FORK.read_text())
    return source


def test_migrate_replaces_every_file_or_none(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = library.parent / "dest"
    (dest / "sub").mkdir(parents=True)
    _previous(dest / "kf.cql", dest / "sub" / "other.cql", dest / "MIGRATION.md")
    (dest / "migration.json").symlink_to("/dev/full")  # the last file written fails
    assert main(["migrate", "src", "dest"]) == 4
    err = capsys.readouterr().err
    assert "migration.json" in err and ENOSPC in err and err.count("\n") == 1, err
    assert _unchanged(dest / "kf.cql", dest / "sub" / "other.cql", dest / "MIGRATION.md")
    assert _no_temporaries(dest, dest / "sub")


def test_migrate_on_a_full_disk_leaves_dest_as_it_was(
    library: Path, full_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (full_disk / "filler").unlink()
    dest = full_disk / "dest"
    dest.mkdir()
    _previous(dest / "kf.cql")
    _fill(full_disk / "filler")
    assert main(["migrate", "src", str(dest)]) == 4
    assert ENOSPC in capsys.readouterr().err
    assert _unchanged(dest / "kf.cql")
    assert _no_temporaries(dest)


def test_fixtures_make_replaces_every_triple_or_none(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    (scratch / "b.cql").write_text(KNIGHT_FORK.read_text())
    argv = ["fixtures", "make", "kf.cql", "b.cql", "--pgn", "games.pgn", "--out", "fx"]
    assert main(argv) == 0
    capsys.readouterr()
    before = {p: p.read_bytes() for p in Path("fx").rglob("*") if p.is_file()}
    (scratch / "games.pgn").write_bytes((scratch / "games.pgn").read_bytes()[:20_000])
    expected = Path("fx/b/expected.json")
    expected.unlink()
    expected.symlink_to("/dev/full")
    assert main(argv) == 4
    assert ENOSPC in capsys.readouterr().err
    after = {p: p.read_bytes() for p in Path("fx").rglob("*") if p.is_file() and p != expected}
    assert after == {p: data for p, data in before.items() if p != expected}
    assert _no_temporaries(Path("fx/kf"), Path("fx/b"))


# --------------------------------------------------------------------------------------
# 2. Never through a source
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["symbolic", "hard", "dotdot"])
def test_migrate_never_writes_onto_a_source_script(
    library: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    dest = library.parent / "dest"
    original = (library / "kf.cql").read_text()
    if link == "symbolic":
        dest.mkdir()
        (dest / "kf.cql").symlink_to(library / "kf.cql")
    elif link == "hard":
        dest.mkdir()
        os.link(library / "kf.cql", dest / "kf.cql")
    else:
        # DEST's subfolder leads back into SRC: dest/sub -> src/sub/.. = src
        dest.mkdir()
        (dest / "sub").symlink_to(Path("..") / "src" / "sub" / "..")
        (library / "sub" / "other.cql").unlink()
        (library / "sub" / "kf.cql").write_text(original)
    assert main(["migrate", "src", "dest"]) == 2
    err = capsys.readouterr().err
    assert "refusing to write" in err and err.count("\n") == 1, err
    assert "kf.cql" in err and "src" in err
    assert (library / "kf.cql").read_text() == original
    assert not [p for p in library.rglob("*") if p.suffix == ".tmp" or p.name == "MIGRATION.md"]


def test_run_refuses_an_output_that_is_a_hard_link_to_the_script(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    os.link("kf.cql", "out.pgn")
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", "-q"]) == 2
    assert "refusing to write the output out.pgn over the script" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# 3. Statuses by what failed
# --------------------------------------------------------------------------------------


def test_translate_onto_a_full_disk_exits_4(
    scratch: Path,  # noqa: F811
    full_disk: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["translate", "kf.cql", "-o", str(full_disk / "kf6.cql")]) == 4
    err = capsys.readouterr().err
    assert ENOSPC in err and "kf6.cql" in err, err
    assert _no_temporaries(full_disk)


def test_translate_of_several_scripts_replaces_all_or_none(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    (scratch / "b.cql").write_text(KNIGHT_FORK.read_text())
    Path("out").mkdir()
    _previous(Path("out/kf.cql"))
    Path("out/b.cql").symlink_to("/dev/full")
    assert main(["translate", "kf.cql", "b.cql", "-o", "out"]) == 4
    assert ENOSPC in capsys.readouterr().err
    assert _unchanged(Path("out/kf.cql"))
    assert _no_temporaries(Path("out"))


def test_explain_html_onto_a_full_disk_exits_4(
    scratch: Path,  # noqa: F811
    full_disk: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The page is larger than a write buffer: the disk is found full while writing it.
    page = full_disk / "page.html"
    assert main(["explain", "kf.cql", "--html", str(page)]) == 4
    err = capsys.readouterr().err
    assert ENOSPC in err and "page.html" in err and err.count("\n") == 1, err
    assert _no_temporaries(full_disk)


@pytest.fixture
def wcc_pgn(scratch: Path) -> Path:  # noqa: F811
    """The bundled games as a plain file (about 0.5 MB: several units of work)."""
    path = scratch / "wcc.pgn"
    path.write_bytes(bz2.decompress(WCC.read_bytes()))
    return path


@pytest.mark.parametrize("change", ["removed", "truncated"])
def test_an_input_removed_or_changed_during_a_parallel_run_exits_3(
    wcc_pgn: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    change: str,
) -> None:
    import cqllegacy.runner.parallel as parallel

    real_counts = parallel._counts

    def change_then_count(future: object, part: parallel.FileRange) -> tuple[int, int]:
        # Once the first unit is under way (the main process waits for its counts).
        if os.path.exists(part.path) and change == "removed":
            os.unlink(part.path)
        elif os.path.getsize(part.path) > part.end:
            os.truncate(part.path, part.end + 10)
        return real_counts(future, part)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "_counts", change_then_count)
    argv = ["run", "kf.cql", "-i", "wcc.pgn", "-o", "out.pgn", "-j", "2", "-q"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "wcc.pgn bytes" in err and "not examined" in err and "Traceback" not in err, err
    assert "writing" not in err
    assert Path("out.pgn").exists()


def test_a_worker_killed_once_is_replaced_and_its_games_scanned_again(
    wcc_pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "kf.cql", "-i", "wcc.pgn", "-q", "--report"]
    assert main([*argv, "one.jsonl", "-o", "one.pgn", "-j", "1"]) == 0
    dying_worker(monkeypatch, wcc_pgn.parent / "killed-once", 300)
    assert main([*argv, "two.jsonl", "-o", "two.pgn", "-j", "2"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert "ended abruptly" in err and "scanned again" in err
    assert Path("two.pgn").read_bytes() == Path("one.pgn").read_bytes()
    assert Path("two.jsonl").read_bytes() == Path("one.jsonl").read_bytes()


def test_a_worker_that_always_dies_loses_its_range_and_exits_3(
    wcc_pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dying_worker(monkeypatch, None, 300)
    assert main(["run", "kf.cql", "-i", "wcc.pgn", "-o", "out.pgn", "-j", "2", "-q"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lost = [line for line in err.splitlines() if "not examined" in line]
    assert len(lost) == 1 and "wcc.pgn bytes" in lost[0] and "ended abruptly" in lost[0], err
    assert Path("out.pgn").read_text().count("[Event ") > 0


class _Done:
    def __init__(self, fn: Callable[..., object], args: tuple[object, ...]) -> None:
        self.fn, self.args = fn, args

    def result(self) -> object:
        return self.fn(*self.args)


class _Dead:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def result(self) -> object:
        raise self.exc


class _DyingClient:
    """A Dask client whose tasks run here, but those of the second byte range, which
    Dask gives up on as its workers die (``KilledWorker``, or the future cancelled)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def nthreads(self) -> dict[str, int]:
        return {"a": 1, "b": 1}

    def submit(self, fn: Callable[..., object], /, *args: object, pure: bool = True) -> object:
        import cqllegacy.runner.parallel as parallel

        dying = fn is parallel.scan_range and args[1].start > 0 and args[1].start < 100_000  # type: ignore[attr-defined]
        return _Dead(self.error) if dying else _Done(fn, args)

    def scatter(self, data: object, /, *, broadcast: bool = False, hash: bool = True) -> object:
        return data

    def close(self) -> None:
        pass


@pytest.mark.parametrize("error", ["KilledWorker", "FutureCancelledError"])
def test_dask_workers_that_die_lose_their_range_without_a_traceback(
    wcc_pgn: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: str,
) -> None:
    distributed = pytest.importorskip("distributed")
    import cqllegacy.runner.parallel as parallel

    if error == "KilledWorker":
        exc: BaseException = distributed.scheduler.KilledWorker("scan_range-1", "tcp://w:1", 3)
    else:
        exc = distributed.client.FutureCancelledError("scan_range-1", reason="worker died")
    monkeypatch.setattr(parallel, "_connect", lambda address, quiet=False: _DyingClient(exc))
    argv = ["run", "kf.cql", "-i", "wcc.pgn", "-o", "out.pgn", "--engine", "dask", "-q"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lost = [line for line in err.splitlines() if "not examined" in line]
    assert len(lost) == 1 and "wcc.pgn bytes 6" in lost[0] and "ended abruptly" in lost[0], err


def test_dask_logs_nothing_under_quiet_and_never_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import logging

    import cqllegacy.runner.parallel as parallel
    from cqllegacy.runner.parallel import DaskEngine

    logger = logging.getLogger("distributed.nanny")
    for name in ("distributed", "dask"):
        monkeypatch.setattr(logging.getLogger(name), "level", logging.getLogger(name).level)
        monkeypatch.setattr(logging.getLogger(name), "filters", [])
    monkeypatch.setattr(parallel, "_LEVELS", {"distributed": logging.WARNING})
    handler = logging.StreamHandler()
    logging.getLogger("distributed").addHandler(handler)
    try:
        DaskEngine(client=_DyingClient(RuntimeError()))  # type: ignore[arg-type]
        try:
            raise RuntimeError("worker gone")
        except RuntimeError:
            logger.exception("Worker process 123 was killed by signal 9")
        err = capsys.readouterr().err
        assert "killed by signal 9" in err and "Traceback" not in err and err.count("\n") == 1
        DaskEngine(client=_DyingClient(RuntimeError()), quiet=True)  # type: ignore[arg-type]
        logger.warning("Restarting worker")
        assert capsys.readouterr().err == ""
    finally:
        logging.getLogger("distributed").removeHandler(handler)


# --------------------------------------------------------------------------------------
# 6. Names
# --------------------------------------------------------------------------------------

ODD = "odd\nname\r\tx\x1b.pgn"


def test_a_missing_input_with_a_newline_in_its_name_is_one_line(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "kf.cql", "-i", ODD, "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "odd\\nname\\r\\tx\\x1b.pgn" in err, err


def test_warnings_and_the_summary_stay_one_line_whatever_the_names(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path(ODD).write_bytes(bz2.compress(Path("games.pgn").read_bytes())[:5000])
    out = "out\nput.pgn"
    assert main(["run", "kf.cql", "-i", ODD, "-o", out, "-j", "1"]) == 3
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("warning: odd\\nname") and "damaged" in lines[0]
    assert lines[1].endswith("wrote out\\nput.pgn")


def test_the_interruption_line_stays_one_line_whatever_the_names(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cqllegacy.errors import Interrupted
    from cqllegacy.runner.output import PgnWriter

    def interrupted(*args: object) -> None:
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(PgnWriter, "__call__", interrupted)
    argv = ["run", "kf.cql", "-i", "games.pgn", "-o", "a\nb.pgn", "--report", "c\rd.jsonl"]
    assert main([*argv, "-j", "1", "-q"]) == 143
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    # (Neither was there before: "not written", issue 32, item 8.)
    assert "a\\nb.pgn not written" in err and "c\\rd.jsonl not written" in err


@pytest.mark.parametrize("length", [242, 250, 255])
def test_the_longest_legal_output_names_are_written(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    length: int,
) -> None:
    name = "é" * ((length - 4) // 2) + "x" * ((length - 4) % 2) + ".pgn"
    assert len(os.fsencode(name)) == length
    _previous(Path(name))
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", name, "-j", "1", "-q"]) == 0
    assert Path(name).read_text().startswith("[Event ")
    long_script = "k" * (length - 4) + ".cql"
    Path(long_script).write_text(KNIGHT_FORK.read_text())
    Path("src").mkdir()
    Path(long_script).rename(Path("src") / long_script)
    assert main(["migrate", "src", "dest"]) == 0
    assert (Path("dest") / long_script).read_text().startswith("// ")
    assert _no_temporaries(scratch)


# --------------------------------------------------------------------------------------
# 7. Scripts read like PGN input
# --------------------------------------------------------------------------------------

ENCODED = [
    pytest.param(lambda text: text.encode("utf-8"), id="utf-8"),
    pytest.param(lambda text: codecs.BOM_UTF8 + text.encode("utf-8"), id="utf-8-bom"),
    pytest.param(lambda text: text.encode("utf-16"), id="utf-16"),
    pytest.param(lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"), id="utf-16-be"),
    pytest.param(lambda text: text.encode("utf-32"), id="utf-32"),
    pytest.param(lambda text: codecs.BOM_UTF32_BE + text.encode("utf-32-be"), id="utf-32-be"),
]


@pytest.mark.parametrize("encode", ENCODED)
def test_scripts_in_utf8_utf16_and_utf32_with_a_byte_order_mark_are_read(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    encode: Callable[[str], bytes],
) -> None:
    text = "; Jörg's forks\n" + KNIGHT_FORK.read_text()
    Path("wide.cql").write_bytes(encode(text))
    argv = ["-i", "games.pgn", "-j", "1", "-q"]
    assert main(["run", "kf.cql", *argv, "-o", "a.pgn"]) == 0
    assert main(["run", "wide.cql", *argv, "-o", "b.pgn"]) == 0
    assert Path("b.pgn").read_bytes() == Path("a.pgn").read_bytes()
    assert main(["translate", "wide.cql", "-o", "wide6.cql"]) == 0
    assert "Jörg" in Path("wide6.cql").read_text(encoding="utf-8")
    assert main(["check", "wide.cql"]) == 0
    Path("src").mkdir()
    Path("wide.cql").rename("src/wide.cql")
    assert main(["migrate", "src", "dest"]) == 0
    assert "Jörg" in Path("dest/wide.cql").read_text(encoding="utf-8")
    report = json.loads(Path("dest/migration.json").read_text())
    assert "reason" not in report["files"][0], report


@pytest.mark.parametrize(
    ("data", "said"),
    [
        pytest.param(codecs.BOM_UTF16_LE + "(match)".encode("utf-16-le")[:-1], "UTF-16", id="odd"),
        pytest.param(codecs.BOM_UTF32_LE + b"\x00\x00\x11\x00", "UTF-32", id="utf32-range"),
        pytest.param("(match)".encode("utf-16-le"), "byte-order mark", id="no-bom"),
    ],
)
def test_a_script_in_no_encoding_is_refused_naming_the_problem(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    data: bytes,
    said: str,
) -> None:
    Path("bad.cql").write_bytes(data)
    for command in (["run", "bad.cql", "-i", "games.pgn"], ["translate", "bad.cql"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: cannot read script bad.cql: ") and said in err, err
        assert err.count("\n") == 1 and "\\x00" not in err, err


# --------------------------------------------------------------------------------------
# 3. Statuses by what failed, per command (the README's table)
# --------------------------------------------------------------------------------------

READ_FAILS = {
    "run": ["run", "kf.cql", "-i", "games.pgn", "-o", "o.pgn", "-q"],
    "translate": ["translate", "kf.cql"],
    "check": ["check", "kf.cql"],
    "explain": ["explain", "kf.cql"],
    "fixtures make": ["fixtures", "make", "kf.cql", "--pgn", "games.pgn", "--out", "fx"],
}

WRITE_FAILS = {
    "run": ["run", "kf.cql", "-i", "games.pgn", "-o", "full", "-q"],
    "translate": ["translate", "kf.cql", "-o", "full"],
    "explain": ["explain", "kf.cql", "--html", "full"],
    "fixtures make": ["fixtures", "make", "kf.cql", "--pgn", "games.pgn", "--out", "fx"],
    "migrate": ["migrate", "src", "dest"],
}


def _readme_statuses() -> dict[str, str]:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Exit statuses and interruption")[1].split("\n### ")[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): cells[2] for cells in rows[1:]}


@pytest.mark.parametrize("command", sorted(READ_FAILS))
def test_a_script_that_fails_to_read_exits_3_naming_it(
    scratch: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    assert command in _readme_statuses()["3"]
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "kf.cql":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert main(READ_FAILS[command]) == 3
    err = capsys.readouterr().err
    assert "cannot read script kf.cql: Input/output error" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("command", sorted(WRITE_FAILS))
def test_a_write_that_fails_exits_4_naming_the_output(
    library: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert "all that write files" in _readme_statuses()["4"]
    Path("full").symlink_to("/dev/full")
    Path("fx/kf").mkdir(parents=True)
    Path("fx/kf/legacy.cql").symlink_to("/dev/full")
    Path("dest").mkdir()
    Path("dest/kf.cql").symlink_to("/dev/full")
    assert main(WRITE_FAILS[command]) == 4
    err = capsys.readouterr().err
    assert ENOSPC in err and err.count("\n") == 1, err
    assert any(name in err for name in ("full", "legacy.cql", "kf.cql")), err


@pytest.mark.parametrize(
    "command",
    [
        ["translate", "kf.cql", "-o", "sub/../kf.cql"],
        ["run", "kf.cql", "-i", "games.pgn", "-o", "sub/../games.pgn"],
        ["run", "kf.cql", "-i", "games.pgn", "-o", "link.pgn"],
        ["fixtures", "make", "kf.cql", "--pgn", "games.pgn", "--out", "fx"],
    ],
    ids=["translate-dotdot", "run-dotdot", "run-link", "fixtures-link"],
)
def test_no_command_writes_through_a_link_or_dotdot_onto_its_sources(
    scratch: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    Path("sub").mkdir()
    Path("link.pgn").symlink_to("kf.cql")
    Path("fx/kf").mkdir(parents=True)
    Path("fx/kf/legacy.cql").symlink_to(Path("../../kf.cql"))
    sources = {name: Path(name).read_bytes() for name in ("kf.cql", "games.pgn")}
    assert main(command) == 2
    err = capsys.readouterr().err
    assert "refusing to write" in err and err.count("\n") == 1, err
    assert {name: Path(name).read_bytes() for name in sources} == sources


def test_dask_scatters_the_query_again_after_its_workers_died() -> None:
    # Workers killed together take the scattered query with them: every later task
    # would be cancelled ("lost scattered data") unless it is scattered again.
    from cqllegacy.runner.parallel import DaskEngine

    scattered: list[object] = []

    class Client(_DyingClient):
        def scatter(self, data: object, /, *, broadcast: bool = False, hash: bool = True) -> object:
            scattered.append(("copy", len(scattered)))
            return scattered[-1]

    engine = DaskEngine(client=Client(RuntimeError()))  # type: ignore[arg-type]
    handle = engine.share("query")  # type: ignore[arg-type]
    assert engine.submit(lambda value: value, handle).result() == ("copy", 0)
    engine.restart()
    assert engine.submit(lambda value: value, handle).result() == ("copy", 1)
