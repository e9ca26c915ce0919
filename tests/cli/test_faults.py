"""Faults a hostile user finds (issue 14): outputs that are not plain files, signals,
closed and broken standard streams, file names that are not UTF-8, damaged input,
permissions, messages.

The signal tests start ``cqllegacy run`` as a process of its own session on a PGN file
large enough that the run is still under way when the signal arrives (the bundled games
repeated), and look at the whole process group afterwards.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import errno
import glob
import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cqllegacy.cli import main
from tests.support.runner import PGN, WCC

ROOT = Path(__file__).resolve().parents[2]
KNIGHT_FORK = ROOT / "examples" / "knight-fork.cql"
PREVIOUS = "previous output\n"


@pytest.fixture(scope="module")
def big_pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled games six times over (about 3 MB, 4,110 games)."""
    path = tmp_path_factory.mktemp("big") / "big.pgn"
    path.write_bytes(bz2.decompress(WCC.read_bytes()) * 6)
    return path


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kf.cql").write_text(KNIGHT_FORK.read_text())
    (tmp_path / "games.pgn").write_bytes(bz2.decompress(WCC.read_bytes())[:60_000])
    return tmp_path


def run_cli(
    *argv: str, cwd: Path, stdin: int | None = None, **popen: object
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cqllegacy", *argv],
        cwd=cwd,
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        **popen,  # type: ignore[arg-type]
    )


def group_members(group: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    members = []
    for stat_file in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = Path(stat_file).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, process_group = fields[0], int(fields[2])
        if process_group == group and state != "Z":
            members.append(int(Path(stat_file).parent.name))
    return members


def children_of(pid: int) -> list[int]:
    found = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            found += [int(child) for child in Path(path).read_text().split()]
        except OSError:
            continue
    return found


def wait_for(condition: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("the run never got under way")
        time.sleep(0.02)


@pytest.fixture
def killer() -> Iterator[list[int]]:
    """Process groups to kill whatever the test's outcome."""
    groups: list[int] = []
    yield groups
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)


# --------------------------------------------------------------------------------------
# 2. Signals
# --------------------------------------------------------------------------------------

SIGNALS = [
    pytest.param(signal.SIGINT, 130, id="SIGINT"),
    pytest.param(signal.SIGTERM, 143, id="SIGTERM"),
    pytest.param(signal.SIGHUP, 129, id="SIGHUP"),
]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(("signum", "status"), SIGNALS)
def test_a_signal_ends_the_run_cleanly(
    big_pgn: Path, scratch: Path, killer: list[int], signum: int, status: int, jobs: str
) -> None:
    (scratch / "out.pgn").write_text(PREVIOUS)
    (scratch / "r.jsonl").write_text(PREVIOUS)
    process = run_cli(
        "run", "kf.cql", "-i", str(big_pgn), "-o", "out.pgn", "--report", "r.jsonl",
        "-j", jobs, cwd=scratch,
    )  # fmt: skip
    killer.append(process.pid)
    workers = int(jobs) if jobs != "1" else 0
    wait_for(
        lambda: (
            len(glob.glob(str(scratch / ".*.tmp"))) == 2
            and len(children_of(process.pid)) >= workers
        )
    )
    os.kill(process.pid, signum)
    _, err = process.communicate(timeout=10)
    stderr = err.decode()
    assert process.returncode == status, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert signal.Signals(signum).name in stderr
    assert glob.glob(str(scratch / ".*.tmp")) == []
    assert (scratch / "out.pgn").read_text() == PREVIOUS
    assert (scratch / "r.jsonl").read_text() == PREVIOUS
    assert group_members(process.pid) == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_ctrl_c_twice_on_the_whole_group_ends_the_run(
    big_pgn: Path, scratch: Path, killer: list[int]
) -> None:
    # A terminal sends Ctrl-C to every process of the foreground group, workers too.
    (scratch / "out.pgn").write_text(PREVIOUS)
    process = run_cli("run", "kf.cql", "-i", str(big_pgn), "-o", "out.pgn", "-j", "2", cwd=scratch)
    killer.append(process.pid)
    wait_for(lambda: glob.glob(str(scratch / ".*.tmp")) and len(children_of(process.pid)) >= 2)
    os.killpg(process.pid, signal.SIGINT)
    time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 130, err
    assert b"Traceback" not in err and err.count(b"\n") == 1, err
    assert glob.glob(str(scratch / ".*.tmp")) == []
    assert (scratch / "out.pgn").read_text() == PREVIOUS
    assert group_members(process.pid) == []


def test_ctrl_c_before_the_command_has_started_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ctrl-C while the command's modules are still being imported.
    import cqllegacy.cli as cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["run", "x.cql"]) == 130
    assert capsys.readouterr().err == "interrupted by SIGINT\n"


def catches(pid: int, signum: int) -> bool:
    """Whether the process has a handler for the signal (its SigCgt mask in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signum - 1) & 1)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_ctrl_c_as_soon_as_the_command_takes_signals_is_one_line(
    scratch: Path, killer: list[int]
) -> None:
    # SIGTERM caught: the command's handlers are in place, and it is still importing its
    # modules (the evaluator, python-chess, the grammar) -- the first fraction of a second.
    process = run_cli("run", "kf.cql", "-i", "games.pgn", "-o", "out.pgn", cwd=scratch)
    killer.append(process.pid)
    wait_for(lambda: catches(process.pid, signal.SIGTERM))
    os.kill(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 130, err
    assert err.startswith(b"interrupted by SIGINT") and err.count(b"\n") == 1, err
    assert not (scratch / "out.pgn").exists()
    assert glob.glob(str(scratch / ".*.tmp")) == []


def test_signal_handlers_are_restored_after_the_command(scratch: Path) -> None:
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    main(["check", "-q", "kf.cql"])
    assert {signum: signal.getsignal(signum) for signum in before} == before


# --------------------------------------------------------------------------------------
# 1. Outputs that are not regular files
# --------------------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device needs root")
@pytest.mark.parametrize("option", ["-o", "--report"])
def test_a_character_device_is_written_through_not_replaced(scratch: Path, option: str) -> None:
    device = scratch / "null-device"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    other = ["--report", "r.jsonl"] if option == "-o" else ["-o", "o.pgn"]
    assert main(["run", "kf.cql", "-i", "games.pgn", option, str(device), *other, "-q"]) == 0
    assert stat.S_ISCHR(device.stat().st_mode)
    assert glob.glob(str(scratch / ".*.tmp")) == []


def test_a_fifo_is_written_through_to_its_reader(scratch: Path) -> None:
    fifo = scratch / "out.fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        assert main(["run", "kf.cql", "-i", "games.pgn", "-o", str(fifo), "-q"]) == 0
        received, _ = reader.communicate(timeout=10)
    finally:
        reader.kill()
    assert received.startswith(b"[Event ") and b"{ MATCH }" in received
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_symlink_is_followed_and_its_target_replaced(scratch: Path) -> None:
    (scratch / "real").mkdir()
    target = scratch / "real" / "found.pgn"
    target.write_text(PREVIOUS)
    target.chmod(0o640)
    link = scratch / "link.pgn"
    link.symlink_to(target)
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "link.pgn", "-q"]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("[Event ")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert glob.glob(str(scratch / "real" / ".*.tmp")) == glob.glob(str(scratch / ".*.tmp")) == []


def test_a_dangling_symlink_creates_its_target(scratch: Path) -> None:
    (scratch / "link.pgn").symlink_to(scratch / "new.pgn")
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "link.pgn", "-q"]) == 0
    assert (scratch / "link.pgn").is_symlink()
    assert (scratch / "new.pgn").read_text().startswith("[Event ")


def test_a_symlink_to_an_input_is_refused(scratch: Path) -> None:
    (scratch / "link.pgn").symlink_to(scratch / "games.pgn")
    before = (scratch / "games.pgn").read_bytes()
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "link.pgn", "-q"]) == 2
    assert (scratch / "games.pgn").read_bytes() == before


def test_dev_stdout_is_the_standard_output_stream(scratch: Path) -> None:
    process = run_cli("run", "kf.cql", "-i", "games.pgn", "-o", "/dev/stdout", "-q", cwd=scratch)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.startswith(b"[Event ") and b"{ MATCH }" in out


def test_translate_writes_through_a_fifo(scratch: Path) -> None:
    fifo = scratch / "t.fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        assert main(["translate", "kf.cql", "-o", str(fifo)]) == 0
        received, _ = reader.communicate(timeout=10)
    finally:
        reader.kill()
    assert b"cql(" in received and stat.S_ISFIFO(fifo.stat().st_mode)


def test_an_output_under_a_regular_file_names_the_file(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "regfile").write_text("x")
    assert main(["run", "kf.cql", "-i", "games.pgn", "-o", "regfile/out.pgn", "-q"]) == 2
    err = capsys.readouterr().err
    assert "regfile is a file, not a folder" in err and "does not exist" not in err


# --------------------------------------------------------------------------------------
# 3. Standard streams
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "closing",
    [
        pytest.param("exec >&-; ", id="closed-by-the-shell"),
        pytest.param("exec 3>&1 >&-; ", id="closed-descriptor"),
    ],
)
def test_output_to_a_closed_standard_output_is_a_clear_error(scratch: Path, closing: str) -> None:
    command = f'{closing}exec "$0" -m cqllegacy run kf.cql -i games.pgn -o - -q'
    process = subprocess.run(
        ["sh", "-c", command, sys.executable], cwd=scratch, capture_output=True, timeout=60
    )
    assert process.returncode == 2, process.stderr
    assert b"Traceback" not in process.stderr
    assert b"standard output is closed" in process.stderr


@pytest.mark.parametrize(("stdout_option", "file_option"), [("-o", "--report"), ("--report", "-o")])
def test_a_broken_pipe_ends_the_run_and_says_the_other_file_was_not_written(
    big_pgn: Path, scratch: Path, stdout_option: str, file_option: str
) -> None:
    (scratch / "other").write_text(PREVIOUS)
    process = run_cli(
        "run", "kf.cql", "-i", str(big_pgn), stdout_option, "-", file_option, "other", "-q",
        "-j", "1", cwd=scratch,
    )  # fmt: skip
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    _, err = process.communicate(timeout=60)
    assert process.returncode == 141, err
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
    assert b"broken pipe" in err and b"other left as it was" in err
    assert (scratch / "other").read_text() == PREVIOUS
    assert glob.glob(str(scratch / ".*.tmp")) == []


# --------------------------------------------------------------------------------------
# 7. Permissions
# --------------------------------------------------------------------------------------


@pytest.fixture
def umask_027() -> Iterator[None]:
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_follow_the_umask_and_replaced_ones_keep_their_mode(
    scratch: Path, umask_027: None
) -> None:
    assert main(["translate", "kf.cql", "-o", "new.cql"]) == 0
    assert _mode(scratch / "new.cql") == 0o640
    (scratch / "old.cql").write_text("x")
    (scratch / "old.cql").chmod(0o604)
    assert main(["translate", "kf.cql", "-o", "old.cql"]) == 0
    assert _mode(scratch / "old.cql") == 0o604
    (scratch / "src").mkdir()
    (scratch / "src" / "kf.cql").write_text(KNIGHT_FORK.read_text())
    (scratch / "dest").mkdir()
    (scratch / "dest" / "kf.cql").write_text("x")
    (scratch / "dest" / "kf.cql").chmod(0o664)
    assert main(["migrate", "src", "dest"]) == 0
    assert _mode(scratch / "dest" / "kf.cql") == 0o664
    assert _mode(scratch / "dest" / "MIGRATION.md") == 0o640
    assert main(["fixtures", "make", "kf.cql", "--pgn", "games.pgn", "--out", "fx"]) == 0
    assert {_mode(path) for path in (scratch / "fx" / "kf").iterdir()} == {0o640}


# --------------------------------------------------------------------------------------
# 4. File names that are not UTF-8
# --------------------------------------------------------------------------------------

ODD = os.fsdecode(b"g\xe9.pgn")  # a Latin-1 name on a UTF-8 system


def test_an_input_named_in_latin1_is_run_and_escaped_in_the_report_and_the_output(
    scratch: Path,
) -> None:
    (scratch / ODD).write_bytes((scratch / "games.pgn").read_bytes())
    argv = ["run", "kf.cql", "-i", ODD, "games.pgn", "-o", "o.pgn", "--report", "r.jsonl", "-q"]
    assert main(argv) == 0
    records = [json.loads(line) for line in (scratch / "r.jsonl").read_text().splitlines()]
    assert records and records[0]["file"] == "g\\xe9.pgn"
    assert "{ Original game: 1 (g\\xe9.pgn, game " in (scratch / "o.pgn").read_text()


def test_migrate_keeps_names_that_are_not_utf8_and_escapes_them_in_its_reports(
    scratch: Path,
) -> None:
    source = scratch / os.fsdecode(b"src\xe9")
    (source / os.fsdecode(b"sub\xe9")).mkdir(parents=True)
    (source / os.fsdecode(b"caf\xe9.cql")).write_text(KNIGHT_FORK.read_text())
    (source / os.fsdecode(b"sub\xe9") / "kf.cql").write_text(KNIGHT_FORK.read_text())
    destination = scratch / os.fsdecode(b"dest\xff")
    command = [sys.executable, "-m", "cqllegacy", "migrate", source, destination]
    process = subprocess.run(
        [os.fsencode(part) for part in command], capture_output=True, timeout=60
    )
    assert process.returncode == 0, process.stderr
    assert b"Traceback" not in process.stderr
    assert (destination / os.fsdecode(b"caf\xe9.cql")).read_text().startswith("//")
    assert (destination / os.fsdecode(b"sub\xe9") / "kf.cql").is_file()
    report = json.loads((destination / "migration.json").read_text(encoding="utf-8"))
    assert {entry["path"] for entry in report["files"]} == {"caf\\xe9.cql", "sub\\xe9/kf.cql"}
    markdown = (destination / "MIGRATION.md").read_text(encoding="utf-8")
    assert "`caf\\xe9.cql`" in markdown and "dest\\xff" in markdown


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["translate", "b.cql", "CAFE"], id="translate"),
        pytest.param(["check", "b.cql", "CAFE"], id="check"),
        pytest.param(["fixtures", "make", "CAFE", "--pgn", "GAMES", "--out", "FX"], id="fixtures"),
    ],
)
def test_names_that_are_not_utf8_on_standard_output_and_in_fixtures(
    scratch: Path, command: list[str]
) -> None:
    names = {"CAFE": b"caf\xe9.cql", "GAMES": b"g\xe9.pgn", "FX": b"fx\xe9"}
    (scratch / "b.cql").write_text(KNIGHT_FORK.read_text())
    (scratch / os.fsdecode(names["CAFE"])).write_text(KNIGHT_FORK.read_text())
    (scratch / os.fsdecode(names["GAMES"])).write_bytes((scratch / "games.pgn").read_bytes())
    argv = [sys.executable.encode(), b"-m", b"cqllegacy"]
    argv += [names.get(part, part.encode()) for part in command]
    # Standard output as strict UTF-8, as under most UTF-8 locales.
    environment = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    process = subprocess.run(argv, cwd=scratch, capture_output=True, timeout=60, env=environment)
    assert process.returncode == 0, process.stderr
    assert b"caf\\xe9" in process.stdout and b"Traceback" not in process.stderr
    if command[0] == "fixtures":
        check = [*argv[:3], b"fixtures", b"check", names["FX"]]
        process = subprocess.run(
            check, cwd=scratch, capture_output=True, timeout=60, env=environment
        )
        assert process.returncode == 0, process.stdout + process.stderr
        assert b"1 of 1 triples agree" in process.stdout


# --------------------------------------------------------------------------------------
# 5. migrate and fixtures
# --------------------------------------------------------------------------------------


@pytest.fixture
def library(scratch: Path) -> Path:
    source = scratch / "src"
    (source / "locked").mkdir(parents=True)
    (source / "kf.cql").write_text(KNIGHT_FORK.read_text())
    (source / "locked" / "hidden.cql").write_text(KNIGHT_FORK.read_text())
    return source


def test_an_unreadable_subfolder_is_reported(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root reads any folder whatever its mode, so the refusal is played by os.scandir.
    real_scandir = os.scandir

    def scandir(path: object) -> object:
        if os.fspath(path).endswith("locked"):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", os.fspath(path))  # type: ignore[call-overload]
        return real_scandir(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", scandir)
    assert main(["migrate", "src", "dest"]) == 1
    report = json.loads(Path("dest/migration.json").read_text())
    entry = next(item for item in report["files"] if item["path"] == "locked")
    assert entry["status"] == "unreadable" and "Permission denied" in entry["reason"]


def test_a_fifo_named_cql_does_not_hang_migrate(library: Path) -> None:
    os.mkfifo(library / "pipe.cql")
    process = subprocess.run(
        [sys.executable, "-m", "cqllegacy", "migrate", "src", "dest"],
        cwd=library.parent, capture_output=True, timeout=60,
    )  # fmt: skip
    assert process.returncode == 1, process.stderr
    report = json.loads((library.parent / "dest" / "migration.json").read_text())
    entry = next(item for item in report["files"] if item["path"] == "pipe.cql")
    assert entry["status"] == "unreadable" and "a FIFO" in entry["reason"]


def test_dest_under_a_regular_file_is_a_clear_error(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("regfile").write_text("x")
    assert main(["migrate", "src", "regfile/dest"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot create DEST_DIR regfile/dest") and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_a_read_only_dest_is_a_clear_error(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("dest").mkdir(mode=0o500)
    assert main(["migrate", "src", "dest"]) == 2
    assert "cannot write in DEST_DIR dest: permission denied" in capsys.readouterr().err


def test_a_dest_without_write_permission_is_a_clear_error(
    library: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The permission check as a user other than root meets it (root writes anywhere).
    Path("dest").mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda path, mode: real_access(path, mode) and Path(path).name != "dest"
    )
    assert main(["migrate", "src", "dest"]) == 2
    assert "cannot write in DEST_DIR dest: permission denied" in capsys.readouterr().err
    assert list(Path("dest").iterdir()) == []


def _full_disk(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_during_migrate_is_a_clear_error(
    library: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cqllegacy.runner.output import Replacement

    monkeypatch.setattr(Replacement, "write", _full_disk)
    assert main(["migrate", "src", "dest"]) == 4
    err = capsys.readouterr().err
    assert "No space left on device" in err and err.count("\n") == 1


def test_fixtures_make_with_out_under_a_file_or_a_full_disk_is_a_clear_error(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cqllegacy.runner.output import Replacement

    Path("regfile").write_text("x")
    argv = ["fixtures", "make", "kf.cql", "--pgn", "games.pgn", "--out"]
    assert main([*argv, "regfile/fx"]) == 2
    assert "cannot create the folder regfile/fx/kf" in capsys.readouterr().err
    monkeypatch.setattr(Replacement, "write", _full_disk)
    assert main([*argv, "fx"]) == 4
    assert "No space left on device" in capsys.readouterr().err


@pytest.mark.parametrize("content", ["[1, 2]", '"text"', "null", "3"])
def test_fixtures_check_with_json_that_is_not_an_object(
    scratch: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "fx").mkdir()
    (scratch / "fx" / "expected.json").write_text(content)
    assert main(["fixtures", "check", "fx"]) == 2
    err = capsys.readouterr().err
    assert "not a valid fixture file" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["expected.json", "refused.txt", "legacy.cql"])
def test_fixtures_make_never_writes_over_its_pgn_input(
    scratch: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "fx" / "kf").mkdir(parents=True)
    pgn = scratch / "fx" / "kf" / name
    pgn.write_bytes((scratch / "games.pgn").read_bytes())
    before = pgn.read_bytes()
    assert main(["fixtures", "make", "kf.cql", "--pgn", str(pgn), "--out", "fx"]) == 2
    assert "refusing to write" in capsys.readouterr().err
    assert pgn.read_bytes() == before


# --------------------------------------------------------------------------------------
# 6. Damaged or unusual input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["bz2", "gz", "xz"])
def test_a_truncated_compressed_input_exits_3(
    scratch: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = (PGN / f"annotated.pgn.{suffix}").read_bytes()
    (scratch / f"cut.pgn.{suffix}").write_bytes(whole[: len(whole) * 2 // 3])
    argv = ["run", "kf.cql", "-i", f"cut.pgn.{suffix}", "-o", "o.pgn"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "not read to the end" in err and "Traceback" not in err
    assert (scratch / "o.pgn").exists()


def test_fixtures_make_on_a_truncated_input_exits_3(scratch: Path) -> None:
    whole = (PGN / "annotated.pgn.xz").read_bytes()
    (scratch / "cut.pgn.xz").write_bytes(whole[: len(whole) // 2])
    assert main(["fixtures", "make", "kf.cql", "--pgn", "cut.pgn.xz", "--out", "fx"]) == 3
    assert not (scratch / "fx").exists()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read(
    scratch: Path, encoding: str, jobs: str
) -> None:
    text = (scratch / "games.pgn").read_text(encoding="utf-8").replace("Anand", "Anänd")
    (scratch / "plain.pgn").write_text(text, encoding="utf-8")
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    (scratch / "wide.pgn").write_bytes(data)
    assert main(["run", "kf.cql", "-i", "plain.pgn", "-o", "a.pgn", "-q", "-j", jobs]) == 0
    assert main(["run", "kf.cql", "-i", "wide.pgn", "-o", "b.pgn", "-q", "-j", jobs]) == 0
    assert (scratch / "b.pgn").read_bytes() == (scratch / "a.pgn").read_bytes()
    assert b"[Event " in (scratch / "b.pgn").read_bytes()


def test_a_utf16_file_spread_over_workers_is_read_as_in_one_process(scratch: Path) -> None:
    from cqllegacy.evaluator.evaluate import compile_query
    from cqllegacy.runner.output import PgnWriter
    from cqllegacy.runner.parallel import ProcessEngine
    from cqllegacy.runner.progress import Messages
    from cqllegacy.runner.results import InputFile
    from cqllegacy.runner.scanner import scan
    from cqllegacy.runner.scripts import load_query

    (scratch / "wide.pgn").write_bytes((scratch / "games.pgn").read_text().encode("utf-16"))
    compiled = compile_query(load_query(scratch / "kf.cql").query)
    outputs = []
    for engine in (None, ProcessEngine(2, part_bytes=4096)):
        buffer = io.StringIO()
        inputs = [InputFile.of(scratch / "wide.pgn")]
        summary = scan(compiled, inputs, sinks=[PgnWriter(buffer, several_files=False)],
                       progress=Messages(io.StringIO()), engine=engine)  # fmt: skip
        assert summary.games > 20 and summary.skipped == 0
        outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[1] and outputs[0]


def test_one_invalid_byte_keeps_the_valid_utf8_of_its_game(scratch: Path) -> None:
    game = '[White "Müller"]\n[Black "Zoë"]\n\n1. e4 {naïve \xff} e5 *\n'
    (scratch / "mixed.pgn").write_bytes(game.encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    Path("all.cql").write_text("(match (position))\n")
    assert main(["run", "all.cql", "-i", "mixed.pgn", "-o", "o.pgn", "-q"]) == 0
    written = (scratch / "o.pgn").read_text(encoding="utf-8")
    assert '[White "Müller"]' in written and '[Black "Zoë"]' in written
    assert "naïve ÿ" in written and "Ã" not in written


# --------------------------------------------------------------------------------------
# 8. Messages
# --------------------------------------------------------------------------------------


def test_a_huge_pgn_line_is_not_echoed_whole(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "[Black " + "x" * 1_000_000 + "]\n"
    (scratch / "huge.pgn").write_text(f'[White "a"]\n{huge}\n1. e4 *\n')
    assert main(["run", "kf.cql", "-i", "huge.pgn", "-o", "o.pgn", "-q"]) == 0
    err = capsys.readouterr().err
    assert "malformed tag line" in err and len(err) < 1_000 and "more characters" in err


def test_a_huge_script_line_gives_a_short_error(
    scratch: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The mistake early in the line: reading stops there, and the script is not read again
    # for the next mistake (five megabytes of pieces cost the reader seconds a reading).
    # (Over the limit of a script's words, which is raised here: tests/cli/
    # test_user_mistakes.py tests the limit.)
    monkeypatch.setenv("CQLLEGACY_MAX_SCRIPT_WORDS", "2000000")
    Path("long.cql").write_text(
        "(match (position Ra1 :zzz " + "Kb2 " * 1_250_000 + ":yyy))\n"
    )
    assert main(["check", "long.cql"]) == 2
    err = capsys.readouterr().err
    assert ":zzz" in err and ":yyy" not in err and len(err) < 2_000
    line, caret = err.splitlines()[-2:]
    assert line[caret.index("^") :].startswith(":zzz")


def test_control_characters_are_escaped_in_messages(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("nul.cql").write_bytes(b"(match (position :ma\x00te\x1b[31m))")
    assert main(["check", "nul.cql"]) == 2
    err = capsys.readouterr().err
    assert "\x00" not in err and "\x1b" not in err and ":ma\\x00te" in err


SIX_LISTS = (
    "(match\n"
    + "".join(
        f" (position Ra1 Kb3 N{square} :shift :flip :flipcolor)\n"
        for square in ("c5", "c6", "c7", "d5", "d6", "d7")
    )
    + ")\n"
)


def test_check_refuses_what_run_refuses_with_the_same_reason(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("six.cql").write_text(SIX_LISTS)
    assert main(["check", "-q", "six.cql"]) == 2
    checked = capsys.readouterr().err
    assert main(["run", "six.cql", "-i", "games.pgn", "-q"]) == 2
    run = capsys.readouterr().err
    assert checked == run
    assert "add up" in checked and "six.cql:6:2" in checked


def test_check_reports_what_translate_refuses(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A shifted whole-board comparison: the one relation CQL 6.1 cannot say (see the
    # refused migration fixture 145).
    Path("rel.cql").write_text(
        "(match (position :check :relation (:shift :missingpiececount A 1)))\n"
    )
    assert main(["check", "-q", "rel.cql"]) == 1
    err = capsys.readouterr().err
    assert ":relation" in err and "translate refuses" in err
