"""The index's faults: a corrupt, truncated, half-written, concurrently rebuilt or
read-only index, an index of another file or version, and an input changed after
indexing with its size kept.  Each gives one line and a scan (the scan's output), or a
clear error; never a wrong answer, never a traceback.  Building is atomic.
"""

from __future__ import annotations

import bz2
import os
import shutil
import stat
from pathlib import Path

import pytest

import cqllegacy.indexing.freshness as freshness
import cqllegacy.indexing.store as store
from cqllegacy.api import index
from cqllegacy.cli import main
from cqllegacy.errors import IncompleteInput
from cqllegacy.indexing.store import StaleIndex, default_index_path, open_index
from tests.support.runner import WCC

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "queries" / "plain.cql"


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    """60 World Championship games, plain text, with a fresh index beside them."""
    text = bz2.decompress(WCC.read_bytes())
    games = text.split(b"\n[Event ")
    path = tmp_path / "games.pgn"
    path.write_bytes(b"\n[Event ".join(games[:60]) + b"\n")
    index(path)
    return path


def run(pgn: Path, out: Path, *flags: str) -> tuple[int, bytes]:
    status = main(["run", str(SCRIPT), "-i", str(pgn), "-o", str(out), "-j", "1", *flags])
    return status, out.read_bytes()


def scanned(pgn: Path) -> bytes:
    return run(pgn, pgn.with_name("scanned.pgn"), "-q", "--no-index")[1]


def one_note(err: str, *words: str) -> None:
    """stderr holds exactly one line about the index, naming ``words``, and no traceback."""
    lines = [line for line in err.splitlines() if "index" in line]
    assert len(lines) == 1, err
    assert all(word in lines[0] for word in words), lines[0]
    assert "Traceback" not in err


def test_a_fresh_index_is_used_silently(pgn: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = scanned(pgn)
    capsys.readouterr()
    status, found = run(pgn, pgn.with_name("found.pgn"), "-q")
    assert (status, found) == (0, expected)
    assert expected  # the query matches some of these games
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("damage", ["corrupt", "truncated", "empty", "garbage"])
def test_a_damaged_index_is_said_and_the_file_scanned(
    pgn: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = scanned(pgn)
    path = default_index_path(pgn)
    data = bytearray(path.read_bytes())
    if damage == "corrupt":
        for offset in range(4096, len(data), 4096):
            data[offset : offset + 64] = os.urandom(64)
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"not an index at all\n" * 100)
    path.write_bytes(bytes(data))
    capsys.readouterr()
    status, found = run(pgn, pgn.with_name("found.pgn"), "-q")
    assert (status, found) == (0, expected)
    one_note(capsys.readouterr().err, str(path), "scanning")


def test_an_input_changed_with_its_size_and_time_kept_is_scanned(
    pgn: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = pgn.stat()
    data = pgn.read_bytes()
    # Another game's moves in place of the first game's first moves: same size.
    changed = data.replace(b"1.e4 e5", b"1.d4 d5", 1) if b"1.e4 e5" in data else None
    if changed is None:
        changed = data.replace(b"1.d4", b"1.c4", 1)
    assert changed != data and len(changed) == len(data)
    pgn.write_bytes(changed)
    os.utime(pgn, ns=(before.st_atime_ns, before.st_mtime_ns))
    expected = scanned(pgn)
    capsys.readouterr()
    status, found = run(pgn, pgn.with_name("found.pgn"), "-q")
    assert (status, found) == (0, expected)
    one_note(capsys.readouterr().err, "not built from", "scanning")


def same_size_other_content(pgn: Path) -> None:
    """Rewrite ``pgn`` with other moves of the same length, its modification time kept
    (its status change time is the clock's: no user can set it back)."""
    before = pgn.stat()
    data = pgn.read_bytes()
    changed = data.replace(b"1.d4", b"1.c4", 1)
    assert changed != data and len(changed) == len(data)
    pgn.write_bytes(changed)
    os.utime(pgn, ns=(before.st_atime_ns, before.st_mtime_ns))


def settled(pgn: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Index ``pgn`` again as if it had been written long before (no racy status)."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    index(pgn)


def test_a_file_whose_status_is_as_recorded_is_not_hashed_again(
    pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = scanned(pgn)
    settled(pgn, monkeypatch)

    def hashed(path: Path) -> freshness.SourceFacts:
        raise AssertionError(f"{path} was hashed")

    monkeypatch.setattr(freshness, "file_facts", hashed)
    capsys.readouterr()
    assert run(pgn, pgn.with_name("found.pgn"), "-q") == (0, expected)
    assert capsys.readouterr().err == ""


def test_an_input_changed_with_its_mtime_set_back_is_hashed_and_scanned(
    pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The touch-back case: size and modification time as recorded, the ctime not."""
    settled(pgn, monkeypatch)
    same_size_other_content(pgn)
    expected = scanned(pgn)
    capsys.readouterr()
    assert run(pgn, pgn.with_name("found.pgn"), "-q") == (0, expected)
    one_note(capsys.readouterr().err, "not built from", "scanning")


def test_a_racy_status_proves_nothing(
    pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file indexed right after it was written may change again within the same tick
    of the file system's clock, every time and the size kept: its index recorded the
    status as racy, so the file is hashed and the change found."""
    recorded = freshness.file_status(pgn)
    opened = open_index(default_index_path(pgn), pgn)
    try:
        racy = opened.connection.execute("SELECT racy FROM source").fetchone()[0]
    finally:
        opened.close()
    assert racy  # the fixture indexed the file as soon as it was written
    same_size_other_content(pgn)
    expected = scanned(pgn)
    monkeypatch.setattr(freshness, "file_status", lambda path: recorded)  # the same tick
    capsys.readouterr()
    assert run(pgn, pgn.with_name("found.pgn"), "-q") == (0, expected)
    one_note(capsys.readouterr().err, "not built from", "scanning")


def test_a_foreign_index_is_not_used(pgn: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = pgn.with_name("other.pgn")
    other.write_bytes(pgn.read_bytes().replace(b"[Event ", b"[Event  ", 1))
    expected = scanned(other)
    capsys.readouterr()
    status, found = run(
        other, pgn.with_name("found.pgn"), "-q", "--index", str(default_index_path(pgn))
    )
    assert (status, found) == (0, expected)
    one_note(capsys.readouterr().err, "not built from")


def test_an_index_of_another_version_is_not_used(
    pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = scanned(pgn)
    monkeypatch.setattr(store, "__version__", "0.0.0-other")
    capsys.readouterr()
    assert run(pgn, pgn.with_name("found.pgn"), "-q") == (0, expected)
    one_note(capsys.readouterr().err, "written by cqllegacy")


def test_a_read_only_index_in_a_read_only_folder_is_used(
    pgn: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = scanned(pgn)
    path = default_index_path(pgn)
    folder = pgn.parent
    out = folder.parent / f"{folder.name}-found.pgn"
    path.chmod(stat.S_IRUSR)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        capsys.readouterr()
        assert run(pgn, out, "-q") == (0, expected)
        assert capsys.readouterr().err == ""
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            ["games.pgn", "games.pgn.cqlidx", "scanned.pgn"]
        )
    finally:
        folder.chmod(stat.S_IRWXU)
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_an_interrupted_build_leaves_the_previous_index(
    pgn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = default_index_path(pgn)
    before = path.read_bytes()
    pgn.write_bytes(pgn.read_bytes() + pgn.read_bytes())

    def interrupted(self: store.Writer, columns: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store.Writer, "add", interrupted)
    assert main(["index", str(pgn), "-j", "1", "-q"]) == 130
    assert path.read_bytes() == before
    assert sorted(p.name for p in pgn.parent.iterdir()) == ["games.pgn", "games.pgn.cqlidx"]


def test_a_full_disk_while_building_is_an_error_and_leaves_the_previous_index(
    pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import duckdb

    path = default_index_path(pgn)
    before = path.read_bytes()

    def full(self: store.Writer, *args: object) -> None:
        raise duckdb.IOException("could not write: No space left on device")

    monkeypatch.setattr(store.Writer, "finish", full)
    capsys.readouterr()
    assert main(["index", str(pgn), "-j", "1", "-q"]) == 4
    err = capsys.readouterr().err
    assert "No space left on device" in err and "previous index" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert path.read_bytes() == before
    assert sorted(p.name for p in pgn.parent.iterdir()) == ["games.pgn", "games.pgn.cqlidx"]


def test_a_half_written_index_is_incomplete(pgn: Path, tmp_path: Path) -> None:
    """An index file whose build never reached its end (copied before the rename, or a
    build killed with the file in place) lacks its completion record."""
    import duckdb

    half = tmp_path / "half.cqlidx"
    shutil.copy(default_index_path(pgn), half)
    with duckdb.connect(str(half)) as connection:
        connection.execute("DELETE FROM meta WHERE key = 'complete'")
    with pytest.raises(StaleIndex, match="incomplete"):
        open_index(half, pgn)


def test_a_rebuild_during_a_run_does_not_change_its_answer(pgn: Path) -> None:
    """A run that opened the index keeps reading what it checked: a rebuild renames a new
    file over the old one's name and never writes into the file the run reads.  The
    games' texts are read from the PGN file by their byte ranges: once it changed, they
    are an error (never the new file's games)."""
    from cqllegacy.api import load
    from cqllegacy.evaluator.necessary import necessity

    path = default_index_path(pgn)
    need = necessity(load(SCRIPT).core)
    assert need is not None
    old = pgn.with_name("old.pgn")
    shutil.copy(pgn, old)
    opened = open_index(path, pgn)
    try:
        before = opened.candidates(need, 0)
        texts = [text.movetext for text in opened.texts(before)]
        index(pgn)  # the same file indexed again while the run reads
        assert opened.candidates(need, 0) == before
        assert [text.movetext for text in opened.texts(before)] == texts
        pgn.write_bytes(b"")  # another file entirely, indexed while the run reads
        index(pgn)
        assert opened.candidates(need, 0) == before
        with pytest.raises(IncompleteInput, match="changed while it was read"):
            list(opened.texts(before))
    finally:
        opened.close()
    assert before
    with pytest.raises(StaleIndex):  # the rebuilt index is of the new file
        open_index(path, old)


def test_two_builds_at_once_leave_one_whole_index(pgn: Path) -> None:
    """Builds write under names of their own (with their process id) and rename: the
    last rename wins, whole."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=index, args=(pgn,)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert all(worker.exitcode == 0 for worker in workers)
    opened = open_index(default_index_path(pgn), pgn)
    opened.close()
    assert sorted(p.name for p in pgn.parent.iterdir()) == ["games.pgn", "games.pgn.cqlidx"]


def test_a_missing_named_index_is_said(pgn: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = scanned(pgn)
    capsys.readouterr()
    missing = pgn.with_name("nowhere.cqlidx")
    assert run(pgn, pgn.with_name("found.pgn"), "-q", "--index", str(missing)) == (0, expected)
    one_note(capsys.readouterr().err, "no index")


#: DuckDB's storage: a 4 KiB file header and two 4 KiB database headers, then blocks of
#: 256 KiB, each beginning with its checksum.
_HEADERS, _BLOCK = 3 * 4096, 256 * 1024


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_block_damaged_anywhere_gives_the_scans_answer(
    pgn: Path, jobs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whichever block of the index is damaged, the run answers as the scan does, says
    so in one line when it met the damage and never shows a traceback: damage found
    when the index is opened is said and the file scanned; damage met while the run
    asks the index (checked by DuckDB as it reads the block) is said and the games the
    index had not answered are scanned."""
    expected = scanned(pgn)
    path = default_index_path(pgn)
    whole = path.read_bytes()
    failed = 0
    for start in range(_HEADERS, len(whole), _BLOCK):
        damaged = bytearray(whole)
        damaged[start + 1024 : start + 1088] = bytes(64)
        path.write_bytes(bytes(damaged))
        capsys.readouterr()
        status, found = run(pgn, pgn.with_name("found.pgn"), "-q", "-j", jobs)
        err = capsys.readouterr().err
        assert (status, found) == (0, expected), (start, err)
        if err:
            one_note(err, str(path), "scanning")
            failed += "failed while it was read" in err
    assert failed  # some damage is met only while the run asks the index


class _FailsLater:
    """``Index.main_lines`` answering its first ``answers`` calls, then failing as a
    damaged block does."""

    def __init__(self, answers: int) -> None:
        self.answers = answers
        self.calls = 0
        self.answer = store.Index.main_lines.__wrapped__  # type: ignore[attr-defined]

    def __call__(self, index: store.Index, numbers: object, names: object = None) -> object:
        import duckdb

        self.calls += 1
        if self.calls > self.answers:
            raise duckdb.Error("Corrupt database file: simulated")
        return self.answer(index, numbers, names)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_index_failing_after_some_answers_has_the_rest_scanned(
    pgn: Path, jobs: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The games handed over before the index failed stay answered, once; the rest of
    the file is scanned: the output is the scan's, the summary counts every game once."""
    import cqllegacy.runner.stored as stored

    script = pgn.with_name("checks.cql")
    script.write_text("(match (position :check))\n", encoding="utf-8")
    argv = ["run", str(script), "-i", str(pgn), "-j", jobs]
    assert main([*argv, "-o", str(pgn.with_name("scan.pgn")), "--no-index", "-q"]) == 0
    expected = pgn.with_name("scan.pgn").read_bytes()
    assert expected.count(b"[Event ") > 10
    fails = _FailsLater(answers=2)
    monkeypatch.setattr(stored, "BATCH_POSITIONS", 250)
    monkeypatch.setattr(store.Index, "main_lines", store._answering(fails))
    capsys.readouterr()
    assert main([*argv, "-o", str(pgn.with_name("found.pgn"))]) == 0
    err = capsys.readouterr().err
    assert fails.calls == 3  # two batches answered, then the failure
    assert pgn.with_name("found.pgn").read_bytes() == expected
    note, summary = err.splitlines()
    assert "failed while it was read" in note and "scanning the rest of" in note
    assert summary.startswith("read 60 games: ") and "Traceback" not in err


def test_a_run_asks_the_index_within_a_bounded_memory(pgn: Path) -> None:
    """DuckDB's buffers would otherwise keep what a run reads up to most of the
    machine's memory: every question of a run (the candidates too) is asked under the
    reader's bound, so a run's memory stays flat in the index's size."""
    opened = open_index(default_index_path(pgn), pgn)
    try:
        (limit,) = opened.connection.execute("SELECT current_setting('memory_limit')").fetchone()
    finally:
        opened.close()
    assert limit.replace(" ", "").lower() in {"91.5mib", "96.0mb", "96mb"}, limit
