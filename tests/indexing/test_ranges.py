"""Games kept as byte ranges of their file (:mod:`cqllegacy.indexing.ranges`).

Read back by :meth:`Index.texts`, every game is exactly (field by field, and of the same
class) the :class:`GameText` the scan's split gives — on the bundled data and on files
made to reach the splitter's corners: CRLF and lone CR line ends, byte-order marks,
Latin-1, comments over several lines (with blank lines and tag-like lines inside),
games with problems, a damaged tail.  Every game of a plain file is kept as a range (a
game whose range would not give its text would keep the text: that must not happen
here).  A file changed after its index was checked is an error in one line, never
another game's text; so is a damaged index (named as such); an index of the previous
format is not used.
"""

from __future__ import annotations

import bz2
import lzma
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cqllegacy.api import Query, index
from cqllegacy.cli import main
from cqllegacy.errors import IncompleteInput
from cqllegacy.indexing import ranges, store
from cqllegacy.indexing import scan as indexed_scan
from cqllegacy.indexing.store import Index, default_index_path, open_index
from cqllegacy.runner import candidates
from cqllegacy.runner.pgn import GameText, open_pgn, split_games
from tests.indexing.test_equivalence import corpus_text, in_process
from tests.support.runner import PGN, WCC

ROOT = Path(__file__).resolve().parents[2]

HAND_MADE: dict[str, bytes] = {
    "crlf": (
        b'[Event "a"]\r\n[White "X"]\r\n\r\n1. e4 e5 {a\r\ncomment} 2. Nf3 *\r\n\r\n'
        b'[Event "b"]\r\n\r\n1. d4 *\r\n'
    ),
    "lone-cr": b'[Event "a"]\r\r1. e4 *\r\r[Event "b"]\r\r1. d4 d5 *\r',
    "mixed-line-ends": b'[Event "a"]\n\r\n1. e4 *\r\r\n[Event "b"]\r\n\n1. d4 d5 *\n\r',
    "bom": (
        b'\xef\xbb\xbf[Event "a"]\n\n1. e4 *\n\n\xef\xbb\xbf[Event "b"]\n\n1. d4 *\n\n'
        b"\xef\xbb\xbf1. c4 *\n"
    ),
    "latin-1": (
        b'[White "J\xf6rg"]\n\n1. e4 {sch\xf6n} *\n\n'
        b'[White "M\xc3\xbcller"]\n\n1. d4 {gr\xc3\xbc\xdf} *\n'
    ),
    "comments": (
        b'[Event "a"]\n\n1. e4 {a long\n\ncomment with a blank line\n} e5\n'
        b"2. Nf3 ; rest {\n2... Nc6 *\n\n"
        b'[Event "b"]\n\n1. d4 {\n[Event "not a tag"]\n} d5 (1... Nf6 {x\ny}) *\n\n'
        b'[Event "c"]\n\n1. c4 {never closed\n\n[Event "d"]\n\n1. Nf3 *\n'
    ),
    "problems": (
        b'[Event "malformed\n[White Tal]\n\n1. e4 *\n\n'
        b'[Event "illegal"]\n\n1. e5 *\n\n'
        b'[Event "tags only"]\n\n\n[Event "after two blank lines"]\n\n1. e4 *\n\n'
        b"1. d4 d5 2. c4 *\n\n"
        b'[Event "variant"]\n[Variant "Atomic"]\n\n1. e4 *\n\n'
        b'[Event "deep"]\n\n1. e4 ((((((1. d4)))))) *\n\n'
        b'[Event "long line"]\n\n1. e4 ' + b"e5 " * 40 + b"*\n\n"
        b'[Event "long game"]\n\n' + b"1. e4 e5\n" * 30 + b"*\n\n"
        b'[Event "last"]\n\n1. e4 *\n'
    ),
    "between-games": (
        b'\n\n% escape\n; comment\n  \n[Event "a"]\n%inside\n\n1. e4 *\n\n%x\n\n;y\n'
        b'[Event "b"]\n\n\n1. d4 *\n\n\n\n\t\n'
    ),
    "damaged-tail": b'[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. d4 {cut o',
    "no-final-line-end": b'[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. d4 d5 *',
}


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits the "problems" file goes past: a line, a game, the nesting."""
    monkeypatch.setenv("CQLLEGACY_MAX_LINE_BYTES", "100")
    monkeypatch.setenv("CQLLEGACY_MAX_GAME_BYTES", "200")
    monkeypatch.setenv("CQLLEGACY_MAX_VARIATION_DEPTH", "4")


def split_whole(path: Path) -> list[GameText]:
    with open_pgn(path) as pgn:
        return list(split_games(pgn.lines()))


def stored(path: Path) -> tuple[list[GameText], int]:
    """Every game of ``path`` as its fresh index gives it, and the games kept as ranges."""
    opened = open_index(default_index_path(path), path)
    try:
        texts = list(opened.texts(list(range(1, opened.games + 1))))
        kept = opened.connection.execute("SELECT count(byte_start) FROM games").fetchone()[0]
    finally:
        opened.close()
    return texts, int(kept)


def assert_the_same_games(got: list[GameText], expected: list[GameText]) -> None:
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected, strict=True):
        assert type(ours) is GameText  # not a subclass: equal as the scan's are
        assert ours == theirs


@pytest.mark.parametrize("limits", ["small", "default"])
@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_the_ranges_of_hand_made_files_split_into_their_games(
    name: str,
    chunk: int,
    limits: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ranges found while splitting, read back (without the build's own check).
    Chunks of 1 and 7 bytes put a chunk's end inside every line end (``\\r|\\n``);
    with the small limits (lines of at most 100 characters) most ranges are longer than
    one line may be, and are read line by line as the file is (a longer line becomes
    :data:`~cqllegacy.runner.pgn.LONG_LINE`); shorter ones are split at once."""
    if limits == "small":
        request.getfixturevalue("small_limits")
    monkeypatch.setattr(ranges, "_CHUNK", chunk)
    path = tmp_path / f"{name}.pgn"
    path.write_bytes(HAND_MADE[name])
    read: list[GameText | None] = []
    with open_pgn(path) as pgn, open(path, "rb") as handle:
        for text in ranges.located(pgn, split_games(pgn.lines())):
            assert isinstance(text, ranges.LocatedText)
            read.append(ranges.read_range(handle.fileno(), text.range()))
            assert read[-1] == text.as_split()
    assert_the_same_games([text for text in read if text is not None], split_whole(path))


@pytest.mark.usefixtures("small_limits")
@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_files_read_back_from_their_index_and_run_as_scanned(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every game is kept as a range and read back as the split gives it; runs with
    every candidate read by its range (``FROM_THE_FILE`` 1), on queries that keep some
    games and leave others out, write the scan's bytes."""
    path = tmp_path / f"{name}.pgn"
    path.write_bytes(HAND_MADE[name])
    index(path)
    expected = split_whole(path)
    texts, kept = stored(path)
    assert_the_same_games(texts, expected)
    assert kept == len(expected)
    monkeypatch.setattr(candidates, "FROM_THE_FILE", 1.0)
    for text in ("(match (position Pe4))", "(match (position :wtm Pd4))"):
        query = Query.from_text(text)
        assert in_process(query, path, True) == in_process(query, path, False)


def test_the_hand_made_files_reach_the_corners(small_limits: None, tmp_path: Path) -> None:
    """The problems the "problems" and "comments" files are made to have, they have."""
    found = []
    for name in ("problems", "comments", "damaged-tail"):
        path = tmp_path / f"{name}.pgn"
        path.write_bytes(HAND_MADE[name])
        found += [problem for text in split_whole(path) for problem in text.problems]
    for words in ("unterminated", "line longer", "text is longer", "nested"):
        assert any(words in problem for problem in found), words


def bundled(tmp_path: Path) -> Iterator[Path]:
    """The bundled games as plain files: the World Championship games, the puzzles, and
    the test corpus (the fixture files joined: CRLF, Latin-1, broken games …)."""
    plain = {
        "wcc.pgn": bz2.decompress(WCC.read_bytes()),
        "puzzles.pgn": lzma.decompress((ROOT / "fixtures" / "lichess-puzzles.pgn.xz").read_bytes()),
        "corpus.pgn": corpus_text(),
        "bom.pgn": (PGN / "bom.pgn").read_bytes(),
    }
    for name, data in plain.items():
        path = tmp_path / name
        path.write_bytes(data)
        yield path


def test_every_range_of_the_bundled_data_splits_into_its_game(tmp_path: Path) -> None:
    """The ranges found while splitting, read back without the build's own check."""
    games = 0
    for path in bundled(tmp_path):
        with open_pgn(path) as pgn, open(path, "rb") as handle:
            for text in ranges.located(pgn, split_games(pgn.lines())):
                assert isinstance(text, ranges.LocatedText)
                assert ranges.read_range(handle.fileno(), text.range()) == text.as_split()
                games += 1
    assert games > 7000


@pytest.fixture(scope="module")
def indexed_wcc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The World Championship games as a plain file, indexed (built once: tests that
    change the file work on a copy, see :func:`wcc_copy`)."""
    path = tmp_path_factory.mktemp("wcc") / "wcc.pgn"
    path.write_bytes(bz2.decompress(WCC.read_bytes()))
    index(path)
    return path


def wcc_copy(indexed_wcc: Path, folder: Path) -> Path:
    """A copy of the file and its index (the index stays fresh: it is checked by the
    file's size and SHA-256)."""
    path = folder / "games.pgn"
    shutil.copyfile(indexed_wcc, path)
    shutil.copyfile(default_index_path(indexed_wcc), default_index_path(path))
    return path


def test_the_world_championship_games_read_back_from_their_index(indexed_wcc: Path) -> None:
    path = indexed_wcc
    texts, kept = stored(path)
    expected = split_whole(path)
    assert_the_same_games(texts, expected)
    assert kept == len(expected) == 685


def test_some_games_are_read_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "corpus.pgn"
    path.write_bytes(corpus_text())
    index(path)
    expected = split_whole(path)
    chosen = [text.file_ordinal for text in expected if text.file_ordinal % 7 in (1, 2)]
    opened = open_index(default_index_path(path), path)
    try:
        assert_the_same_games(
            list(opened.texts(chosen, batch=5)),
            [text for text in expected if text.file_ordinal in set(chosen)],
        )
        assert list(opened.texts([])) == []
    finally:
        opened.close()


@pytest.mark.parametrize("name", ["annotated.pgn.bz2", "annotated.pgn.gz", "annotated.pgn.xz"])
def test_a_compressed_file_keeps_its_games_text(name: str, tmp_path: Path) -> None:
    """Compressed files cannot be read at an offset: the index keeps their text."""
    path = tmp_path / name
    path.write_bytes((PGN / name).read_bytes())
    index(path)
    texts, kept = stored(path)
    assert_the_same_games(texts, split_whole(path))
    assert kept == 0 and texts


def test_a_utf16_file_keeps_its_games_text(tmp_path: Path) -> None:
    """Its lines are not its bytes (two a character, a byte-order mark first)."""
    path = tmp_path / "wide.pgn"
    text = HAND_MADE["comments"].decode("latin-1") + '\n[White "Jörg"]\n\n1. e4 *\n'
    path.write_bytes(text.encode("utf-16"))
    index(path)
    texts, kept = stored(path)
    assert_the_same_games(texts, split_whole(path))
    assert kept == 0 and len(texts) == 5


def test_a_game_whose_range_would_not_give_its_text_keeps_the_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build's check of every range: one that does not split into its game is not
    kept (here every one, by a planted error of one byte)."""
    path = tmp_path / "corpus.pgn"
    path.write_bytes(HAND_MADE["comments"])
    original = ranges._locate

    def off_by_one(text: GameText, where: str, start: int, end: int, found: int) -> object:
        return original(text, where, start + 1, end, found)

    monkeypatch.setattr(ranges, "_locate", off_by_one)
    index(path)
    texts, kept = stored(path)
    assert_the_same_games(texts, split_whole(path))
    assert kept == 0


# ---- the file changed after its index was checked ---------------------------------------


def _changes(data: bytes) -> dict[str, bytes]:
    middle = data.index(b"1. d4 {")
    return {
        "same size": data.replace(b"1. d4 {", b"1. c4 {", 1),
        "shifted": data[:middle] + b" " + data[middle:],
        "truncated": data[: middle + 3],
        "empty": b"",
    }


@pytest.mark.parametrize("change", ["same size", "shifted", "truncated", "empty", "removed"])
def test_a_file_changed_after_the_check_is_an_error_never_another_game(
    change: str, tmp_path: Path
) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(HAND_MADE["comments"])
    index(path)
    opened = open_index(default_index_path(path), path)
    try:
        if change == "removed":
            path.unlink()
        else:
            path.write_bytes(_changes(HAND_MADE["comments"])[change])
        first = next(opened.texts([1]), None) if change == "shifted" else None
        with pytest.raises(IncompleteInput) as caught:
            list(opened.texts(list(range(1, opened.games + 1))))
    finally:
        opened.close()
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and str(path) in message
    assert "run again" in message
    if change == "shifted":
        # The games before the change read as they were; the one after it does not.
        assert first == split_whole_bytes(HAND_MADE["comments"], tmp_path)[0]


def split_whole_bytes(data: bytes, tmp_path: Path) -> list[GameText]:
    path = tmp_path / "original.pgn"
    path.write_bytes(data)
    return split_whole(path)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_whose_input_changes_after_the_check_stops_with_one_line(
    jobs: str,
    indexed_wcc: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = wcc_copy(indexed_wcc, tmp_path)
    data = path.read_bytes()
    real_open = indexed_scan.open_index

    def open_then_change(where: Path, source: Path) -> Index:
        opened = real_open(where, source)
        source.write_bytes(data.replace(b"1.e4", b"1.d4"))  # the same size
        return opened

    monkeypatch.setattr(indexed_scan, "open_index", open_then_change)
    monkeypatch.setattr(candidates, "FROM_THE_FILE", 1.0)  # every candidate by its range
    script = ROOT / "benchmarks" / "queries" / "plain.cql"
    out = tmp_path / "out.pgn"
    status = main(["run", str(script), "-i", str(path), "-o", str(out), "-q", "-j", jobs])
    err = capsys.readouterr().err
    assert status == IncompleteInput.exit_status
    assert "changed while it was read" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


# ---- the previous format is not used ----------------------------------------------------


def test_an_index_of_the_previous_format_is_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import duckdb

    path = tmp_path / "games.pgn"
    path.write_bytes(HAND_MADE["crlf"])
    index(path)
    script = ROOT / "benchmarks" / "queries" / "plain.cql"
    scanned = tmp_path / "scanned.pgn"
    assert main(["run", str(script), "-i", str(path), "-o", str(scanned), "-q", "--no-index"]) == 0
    with duckdb.connect(str(default_index_path(path))) as connection:
        connection.execute(
            "UPDATE meta SET value = ? WHERE key = 'format'", [str(store.FORMAT - 1)]
        )
    capsys.readouterr()
    found = tmp_path / "found.pgn"
    assert main(["run", str(script), "-i", str(path), "-o", str(found), "-q"]) == 0
    err = capsys.readouterr().err
    assert found.read_bytes() == scanned.read_bytes()
    assert err.count("\n") == 1, err
    assert f"format {store.FORMAT - 1}" in err and "scanning" in err
    assert store.FORMAT == 5


# ---- a damaged index: its ranges are checked, never trusted ------------------------------


def _damage(path: Path, statement: str) -> None:
    import duckdb

    with duckdb.connect(str(default_index_path(path))) as connection:
        connection.execute(statement)


def test_ranges_beyond_the_file_are_a_damaged_index(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(HAND_MADE["crlf"])
    index(path)
    _damage(path, "UPDATE games SET byte_length = byte_length + 1 WHERE game = 2")
    with pytest.raises(store.StaleIndex, match="damaged"):
        open_index(default_index_path(path), path)


def test_a_wrong_range_in_an_unchanged_file_is_said_to_be_the_index(tmp_path: Path) -> None:
    """The file is as indexed, so the index is what is wrong: it is named, in one line."""
    path = tmp_path / "games.pgn"
    path.write_bytes(HAND_MADE["comments"])
    index(path)
    _damage(path, "UPDATE games SET digest = xor(digest, 1::UBIGINT) WHERE game = 2")
    opened = open_index(default_index_path(path), path)
    try:
        with pytest.raises(IncompleteInput) as caught:
            list(opened.texts([1, 2, 3]))
    finally:
        opened.close()
    message = str(caught.value)
    assert f"index {default_index_path(path)} is damaged (game 2 is not at bytes" in message
    assert len(message.splitlines()) == 1


# ---- what a worker gets: the ranges, read only for the games it wants --------------------


def test_a_worker_gets_ranges_and_reads_only_the_games_it_asks_for(
    indexed_wcc: Path, tmp_path: Path
) -> None:
    """A unit of stored positions carries no text of a plain file, only where the texts
    are; the worker reads those it asks for, as the index itself gives them."""
    import pickle

    path = wcc_copy(indexed_wcc, tmp_path)
    numbers = list(range(10, 60))
    opened = open_index(default_index_path(path), path)
    try:
        unit = indexed_scan.stored_unit(opened, numbers)
        wanted = [12, 30, 59]
        expected = list(opened.texts(wanted))
    finally:
        opened.close()
    kept = pickle.loads(pickle.dumps(unit.texts))  # as a worker gets it
    assert isinstance(kept, store.KeptTexts)
    assert not any(isinstance(item, GameText) for item in kept.kept)
    assert_the_same_games(list(kept.texts(wanted)), expected)
    assert list(kept.texts([])) == []


def test_a_worker_tells_a_damaged_index_from_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(HAND_MADE["comments"])
    index(path)
    _damage(path, "UPDATE games SET digest = xor(digest, 1::UBIGINT) WHERE game = 2")
    opened = open_index(default_index_path(path), path)
    try:
        kept = indexed_scan.stored_unit(opened, [1, 2, 3]).texts
    finally:
        opened.close()
    assert [text.file_ordinal for text in kept.texts([1, 3])] == [1, 3]
    with pytest.raises(IncompleteInput, match=r"is damaged \(game 2 is not at bytes"):
        list(kept.texts([2]))
    path.write_bytes(HAND_MADE["comments"].replace(b"e4", b"d4"))
    with pytest.raises(IncompleteInput, match="changed while it was read"):
        list(kept.texts([1, 2]))
