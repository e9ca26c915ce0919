"""The index file of one PGN file: writing it (:func:`build`), opening it for a run
(:func:`open_index`) and asking it for candidate games (:meth:`Index.candidates`).

An index is one DuckDB database (docs/index.md says why DuckDB) beside its PGN file,
``games.pgn`` → ``games.pgn.cqlidx``, with six tables:

* ``meta``: the format version, the cqllegacy version that wrote it;
* ``source``: what it was built from: the file's name, size, SHA-256 of its bytes, its
  status times, inode and device (:class:`SourceFacts`), its games and positions, and
  why reading stopped if the file is damaged;
* ``games``: per game its number in the file, first line, whether it reads cleanly,
  its main-line moves, its tags (JSON) and where its text lies in the file (byte start,
  length and digest, see :mod:`~cqllegacy.indexing.ranges`) or, for a compressed file
  (or a game whose range would not give its text), the text itself (tags, movetext,
  encoding, problems);
* ``positions``: per main-line position of a clean game (see
  :mod:`~cqllegacy.indexing.records`) the placement, side to move, rights, flags and the
  move played from it;
* ``summary``: per clean game, for each coloured piece type the squares it ever stands
  on, and the flags of any of its positions (a first, cheap rejection);
* ``ended``: the rows of ``positions`` where the side to move is mated or stalemated (a
  question that asks for either reads these few rows, not a column of every position).

Writing is atomic: the database is built under a temporary name in the same folder and
renamed over the old index only when complete, so an interrupted or failed build leaves
the previous index as it was.  Opening checks everything a stale, foreign or damaged
index would get wrong (:class:`StaleIndex` says which, in one line); the run then scans.

That the file is still the one indexed is proved by
:mod:`~cqllegacy.indexing.freshness`; the SQL that asks for candidates is written by
:mod:`~cqllegacy.indexing.sql`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import attrs

from cqllegacy.errors import IncompleteInput, IndexFailed, WriteError
from cqllegacy.evaluator.necessary import Necessity
from cqllegacy.indexing import default_index_path
from cqllegacy.indexing.freshness import FileStatus, SourceFacts, unchanged
from cqllegacy.indexing.ranges import GameRange, RangeMismatch, read_ranges
from cqllegacy.indexing.records import (
    BOARD_FIELDS,
    MOVE_FIELDS,
    PLACEMENT,
    STATE_FIELDS,
    Columns,
    game_text,
    position_arrays,
)
from cqllegacy.indexing.sql import WINDOW_GAMES, asks_positions, candidate_query, reads_windows
from cqllegacy.records import Record
from cqllegacy.runner.pgn import GameText
from cqllegacy.runner.stored import MAIN_LINE_COLUMNS
from cqllegacy.signals import interrupted_inside
from cqllegacy.version import __version__
from cqllegacy.vocab.flags import MATE, STALEMATE

__all__ = [
    "FEW_POSITIONS",
    "FORMAT",
    "LONG_TEXT",
    "LONG_TEXT_ROOM",
    "READER_MEMORY",
    "SAMPLE_GAMES",
    "WORTH_ASKING",
    "WRITER_MEMORY",
    "Index",
    "KeptTexts",
    "StaleIndex",
    "Writer",
    "default_index_path",
    "index_destination",
    "open_index",
    "writing",
]


#: The index format; an index of another format is not read.  (2: games kept as byte
#: ranges of the file; 3: the source's status recorded, so that it is hashed only when
#: its status changed; 4: a game is clean only if its first row is the board its tags
#: make; 5: the rows of mates and stalemates kept apart too, in ``ended``.)
FORMAT = 5


#: The games of a file sampled to judge whether its positions are worth asking, and the
#: share of the summary's games the positions must leave in at most to be asked.
SAMPLE_GAMES = 200


WORTH_ASKING = 0.5


def _sample_block(games: int) -> tuple[int, int]:
    """The first and last game of the sample of a file of ``games``: consecutive games
    in its middle.  Their positions lie together, so a question about them reads a few
    of the table's blocks (a sample of every n-th game read them all: 1.26 s against
    0.09 s for a queen staircase's question on 100,000 games).  One block: planning a
    long question costs more than running it on a block (rookrectangle's orbit: four
    blocks spread over the file took 1.56 s, one 0.31 s)."""
    first = max(1, games // 2 - SAMPLE_GAMES // 2)
    return first, first + SAMPLE_GAMES - 1


#: An index of fewer positions is asked its positions without a sample: a pass over them
#: costs less than planning the sample's two questions (a large orbit's question is long).
FEW_POSITIONS = 100_000


_COLUMNS = {
    "b": "UBIGINT",
    "s": "TINYINT",
    "m": "SMALLINT",
}


class StaleIndex(Exception):
    """An index that must not be used for an answer; the message says why, in one line."""


def index_destination(source: Path, output: str | os.PathLike[str] | None, several: bool) -> Path:
    """Where the index of ``source`` is written: beside it, or ``output`` (a file, or a
    folder when there are ``several`` inputs or it is one)."""
    if output is None:
        return default_index_path(source)
    out = Path(output)
    if several or out.is_dir():
        return out / default_index_path(source).name
    return out


def _duckdb() -> Any:
    import duckdb

    return duckdb


def _reading_duckdb() -> Any:
    """DuckDB as a run reads an index: its compiled module alone (``_duckdb``, which the
    ``duckdb`` package re-exports) where it offers what reading calls, else the package.
    The package's own Python modules (relational API, version lookup through
    ``importlib.metadata``) cost about 0.05–0.1 s of CPU to import, a quarter of what
    the index costs a run on a small file, and a run calls none of them."""
    try:
        import _duckdb as extension
    except ImportError:
        return _duckdb()
    if all(hasattr(extension, name) for name in _READING_CALLS):
        return extension
    return _duckdb()


#: What a run calls of DuckDB's module (:func:`_reading_duckdb`).
_READING_CALLS = ("connect", "Error")


_SCHEMA = [
    "CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
    """CREATE TABLE source (name VARCHAR, size UBIGINT, mtime_ns BIGINT, sha256 VARCHAR,
       games UBIGINT, positions UBIGINT, damaged VARCHAR, ctime_ns BIGINT, inode UBIGINT,
       device UBIGINT, racy BOOLEAN)""",
    """CREATE TABLE games (game UINTEGER, line UBIGINT, clean BOOLEAN, plies INTEGER,
       tags VARCHAR, byte_start UBIGINT, byte_length UBIGINT, digest UBIGINT,
       tag_text VARCHAR, movetext VARCHAR, encoding VARCHAR, problems VARCHAR)""",
    "CREATE TABLE positions (game UINTEGER, ply USMALLINT, "
    + ", ".join(
        [
            *(f"{name} UBIGINT" for name in BOARD_FIELDS),
            *(f"{name} TINYINT" for name in STATE_FIELDS),
            *(f"{name} SMALLINT" for name in MOVE_FIELDS),
        ]
    )
    + ")",
    "CREATE TABLE summary (game UINTEGER, "
    + ", ".join(f"u{bit} UBIGINT" for bit in range(12))
    + ", flags TINYINT)",
    "CREATE TABLE ended AS SELECT * FROM positions WITH NO DATA",
]


#: DuckDB's memory limit while writing an index, in bytes.  What it keeps beyond what
#: is being written is only a cache of blocks already on disk: a small limit keeps the
#: build's memory flat in the file's size at no cost in time or size (measured by
#: ``benchmarks/bench_index.py --build-memory``).  It must hold what waits for the next
#: checkpoint (DuckDB's default of 16 MB of log) while that checkpoint writes it: 32 MB
#: did not, on batches of long comments.
WRITER_MEMORY = 64 * 1024 * 1024


#: DuckDB pins a long text whole, more than once, while it writes it, and all the long
#: texts of a table's last row group at each later checkpoint that rewrites it: once
#: texts of over LONG_TEXT bytes (games of long comments) are written, the limit is
#: WRITER_MEMORY, LONG_TEXT_ROOM times the longest and the total length of those texts.
#: (Memory then grows with a file's long games, not with its ordinary ones.)
LONG_TEXT = 1024 * 1024


LONG_TEXT_ROOM = 2


#: DuckDB's memory limit for a run's questions and the positions it reads.  96 MB, not
#: 128: on 100,000 games the two scripts of the largest peaks (rookrectangle, real2-05)
#: reached 304 and 298 MB of resident memory under 128 MB and 275 and 269 under 96, with
#: no question slower (joins a ply at a time keep small hash tables); under 64 MB a line's
#: question spilled to disk (Appendix C #11: 9.0 s of CPU against 6.4 s).
READER_MEMORY = "96MB"


@attrs.define(repr=False)
class Writer(Record):
    """An index being written under a temporary name (see :func:`writing`).

    Each batch is inserted as it comes.  (Holding batches until they made a row group
    of positions gave a file 60 % larger, for the same CPU, on 10,000 corpus games.)"""

    connection: Any
    #: DuckDB's memory limit now: WRITER_MEMORY, or more after long texts (the longest
    #: and the total length of those written so far; see LONG_TEXT).
    memory_limit: int
    games: int = 0
    positions: int = 0
    longest: int = 0
    long_texts: int = 0

    def add(self, columns: Columns) -> None:
        """Append a batch of recorded games (in file order) and their positions."""
        import pyarrow as pa

        if not columns.games:
            return
        con = self.connection
        arrays = position_arrays(columns)
        tables = (
            (_games_table(columns), "games"),
            (pa.table(arrays), "positions"),
            (_summary_table(arrays), "summary"),
            (_ended_table(arrays), "ended"),
        )
        for table, _name in tables:
            self._make_room(_long_texts(table))
        for table, name in tables:
            con.register("new_rows", table)
            con.execute(f"INSERT INTO {name} SELECT * FROM new_rows")
            con.unregister("new_rows")
        self.games += columns.games
        self.positions += columns.positions

    def _make_room(self, lengths: list[int]) -> None:
        """Raise DuckDB's memory limit for the long texts of ``lengths``, if any."""
        if not lengths:
            return
        self.long_texts += sum(lengths)
        self.longest = max(self.longest, *lengths)
        needed = WRITER_MEMORY + LONG_TEXT_ROOM * self.longest + self.long_texts
        if needed > self.memory_limit:
            self.memory_limit = needed
            self.connection.execute(f"SET memory_limit = '{needed // 1024}KiB'")

    def finish(self, name: str, facts: SourceFacts, damaged: str | None) -> None:
        """The record of what the index was built from, written last."""
        con = self.connection
        status = facts.status
        con.execute(
            "INSERT INTO source VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                name, status.size, status.mtime_ns, facts.sha256, self.games, self.positions,
                damaged, status.ctime_ns, status.inode, status.device, facts.racy,
            ],
        )  # fmt: skip
        con.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [["format", str(FORMAT)], ["cqllegacy", __version__], ["complete", "yes"]],
        )
        con.execute("CHECKPOINT")


def _games_table(columns: Columns) -> Any:
    import pyarrow as pa

    return pa.table(
        {
            "game": pa.array(columns.game, pa.uint32()),
            "line": pa.array(columns.line, pa.uint64()),
            "clean": pa.array(columns.clean, pa.bool_()),
            "plies": pa.array(columns.plies, pa.int32()),
            "tags": pa.array(columns.tags, pa.string()),
            "byte_start": pa.array(columns.byte_start, pa.uint64()),
            "byte_length": pa.array(columns.byte_length, pa.uint64()),
            "digest": pa.array(columns.digest, pa.uint64()),
            "tag_text": pa.array(columns.tag_text, pa.string()),
            "movetext": pa.array(columns.movetext, pa.string()),
            "encoding": pa.array(columns.encoding, pa.string()),
            "problems": pa.array(columns.problems, pa.string()),
        }
    )


def _long_texts(table: Any) -> list[int]:
    """The lengths in bytes of the strings of over LONG_TEXT bytes of a pyarrow table
    (from the arrays' offsets: pyarrow.compute would cost 9 MB to import)."""
    import numpy as np
    import pyarrow as pa

    lengths: list[int] = []
    for column in table.columns:
        if pa.types.is_string(column.type):
            for chunk in column.chunks:
                offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
                length = np.diff(offsets[chunk.offset : chunk.offset + len(chunk) + 1])
                lengths += length[length > LONG_TEXT].tolist()
    return lengths


def _summary_table(arrays: Mapping[str, Any]) -> Any:
    """The summary rows of a batch's positions (``arrays``, grouped by game in file
    order): per game with positions, the union of the squares of each coloured piece
    type (``u0`` … ``u11``, TypeSet bit order) and of the flags.  Made per batch, so that
    the build needs no pass over every position at its end."""
    import numpy as np
    import pyarrow as pa

    game = arrays["game"]
    # Where each game's positions begin (reduceat's segments; none are empty).
    starts: Any = np.flatnonzero(np.r_[True, game[1:] != game[:-1]]) if len(game) else []

    def union(values: Any) -> Any:
        return np.bitwise_or.reduceat(values, starts) if len(starts) else values[:0]

    columns = {"game": pa.array(game[starts], pa.uint32())}
    for bit in range(12):
        colour = arrays["white" if bit < 6 else "black"]
        columns[f"u{bit}"] = pa.array(union(arrays[PLACEMENT[bit % 6]] & colour), pa.uint64())
    columns["flags"] = pa.array(union(arrays["flags"]), pa.int8())
    return pa.table(columns)


def _ended_table(arrays: Mapping[str, Any]) -> Any:
    """The rows of a batch's positions (``arrays``) where the side to move is mated or
    stalemated: the last positions of some games, copied whole."""
    import pyarrow as pa

    ended = (arrays["flags"] & (MATE | STALEMATE)) != 0
    return pa.table({name: values[ended] for name, values in arrays.items()})


@contextlib.contextmanager
def writing(path: Path) -> Iterator[Writer]:
    """A :class:`Writer` on a temporary file beside ``path``, renamed to ``path`` when
    the block ends normally; removed when it does not (an interrupt, a full disk …)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    spill = temporary.with_name(temporary.name + ".spill")
    _remove(temporary)
    duckdb = _duckdb()
    connection = None
    try:
        try:
            # DuckDB keeps what was inserted in its buffers up to its memory limit (by
            # default most of the machine's memory): a small bound keeps the build's
            # memory flat in the file's size; what exceeds it is written out or spilled.
            limit = WRITER_MEMORY
            config = {"memory_limit": f"{limit // 1024}KiB", "temp_directory": str(spill)}
            connection = duckdb.connect(str(temporary), config=config)
            for statement in _SCHEMA:
                connection.execute(statement)
            yield Writer(connection, limit)
            connection.close()
            connection = None
        except (duckdb.Error, RuntimeError) as exc:
            # DuckDB reports a signal that arrived while it worked as its own error.
            signalled = interrupted_inside(exc)
            if signalled is not None:
                raise signalled from exc
            if not isinstance(exc, duckdb.Error):
                raise
            # A full disk and the like, as DuckDB reports them.
            raise WriteError(
                f"writing the index {path} failed ({_first_line(exc)}); "
                "the previous index (if any) is unchanged"
            ) from exc
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()
        _remove(temporary)


def _remove(temporary: Path) -> None:
    for leftover in (temporary, temporary.with_name(temporary.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    shutil.rmtree(temporary.with_name(temporary.name + ".spill"), ignore_errors=True)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _answering(method: _Method) -> _Method:
    """``method`` of an :class:`Index`, a DuckDB error in it (a damaged block, too little
    memory) raised as :class:`~cqllegacy.errors.IndexFailed`, which a run catches."""

    @functools.wraps(method)
    def asked(self: Index, *args: Any, **kwargs: Any) -> Any:
        with self.failing():
            return method(self, *args, **kwargs)

    return cast(_Method, asked)


@attrs.define(repr=False)
class Index(Record):
    """An open, fresh index of the PGN file ``source``."""

    path: Path
    connection: Any
    games: int
    source: Path

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.connection.close()

    @contextlib.contextmanager
    def failing(self) -> Iterator[None]:
        """A DuckDB error in the block as :class:`~cqllegacy.errors.IndexFailed`."""
        try:
            yield
        except RuntimeError as exc:
            # DuckDB reports a signal that arrived while it worked as its own error.
            signalled = interrupted_inside(exc)
            if signalled is not None:
                raise signalled from exc
            raise
        except _reading_duckdb().Error as exc:
            why = _first_line(exc)
            raise IndexFailed(f"index {self.path} failed while it was read ({why})") from exc

    @_answering
    def candidates(
        self,
        need: Necessity,
        games_before: int,
        accepts: Callable[[Mapping[str, str], int], bool] | None = None,
    ) -> list[int]:
        """The numbers (in the file) of the games that may match: every game that does
        not read cleanly, and the clean ones that meet ``need`` (the file's games are
        numbered ``games_before + 1`` on in the whole input) and, where ``need.tags``,
        whose stored tags ``accepts`` (the run's tag test, given the tags and the game's
        number in the whole input)."""
        positions = self._worth_asking_positions(need, games_before)
        sql, parameters = candidate_query(need, games_before, positions=positions)
        if not reads_windows(sql) or self.games <= WINDOW_GAMES:
            return self._candidates(sql, parameters, need, games_before, accepts)
        found = []
        for first in range(1, self.games + 1, WINDOW_GAMES):
            games = (first, min(first + WINDOW_GAMES - 1, self.games))
            sql, parameters = candidate_query(need, games_before, games=games)
            found += self._candidates(sql, parameters, need, games_before, accepts)
        return found

    def _candidates(
        self,
        sql: str,
        parameters: list[object],
        need: Necessity,
        games_before: int,
        accepts: Callable[[Mapping[str, str], int], bool] | None,
    ) -> list[int]:
        """The games the candidates' question ``sql`` finds, less those whose stored
        tags ``accepts`` rejects."""
        if not (need.tags and accepts is not None):
            return [row[0] for row in self.connection.execute(sql, parameters).fetchall()]
        rows = self.connection.execute(
            f"SELECT found.game, games.clean, CASE WHEN games.clean THEN games.tags END "
            f"FROM ({sql}) AS found JOIN games ON found.game = games.game "
            "ORDER BY found.game",
            parameters,
        ).fetchall()
        return [
            game
            for game, clean, tags in rows
            if not clean or accepts(json.loads(tags), games_before + game)
        ]

    def _worth_asking_positions(self, need: Necessity, games_before: int) -> bool:
        """Whether asking the positions pays: on a sample of about
        :data:`SAMPLE_GAMES` games of a large file, they must leave out more than
        ``1 - WORTH_ASKING`` of the games the summary lets through.  (A question that
        leaves most games in costs a pass over every position and saves little: the
        summary alone then narrows, which only admits more games.)"""
        if not asks_positions(need):
            return False
        if self.games < 4 * SAMPLE_GAMES:
            return True
        (positions,) = self.connection.execute("SELECT count(*) FROM positions").fetchone()
        if positions < FEW_POSITIONS:
            return True
        counts = []
        for asked in (False, True):
            sql, parameters = candidate_query(
                need, games_before, positions=asked, sample=True, games=_sample_block(self.games)
            )
            found = self.connection.execute(f"SELECT count(*) FROM ({sql})", parameters)
            counts.append(int(found.fetchone()[0]))
        passed, narrowed = counts
        return narrowed <= WORTH_ASKING * passed

    def texts(self, numbers: Sequence[int], batch: int = 2048) -> Iterator[GameText]:
        """The texts of the games ``numbers`` (ascending), as the scan splits them: read
        from the file by their byte ranges, in file order, a batch of ranges asked of
        the index at a time (the text kept in the index where there is no range; each
        question costs a few milliseconds: 1,561 puzzles written took 7 with 256 a
        batch, their texts 75–90 ms, and now one, 42–57 ms).
        :class:`~cqllegacy.errors.IncompleteInput` when the file changed since the
        index was checked, or (the file as it was) when the index is damaged."""
        return _read_kept(self.path, self.source, self._stored(numbers, batch), self._recorded)

    def kept_texts(self, numbers: Sequence[int]) -> KeptTexts:
        """What the index keeps of the texts of the games ``numbers`` (ascending), for a
        worker to read those it wants (:class:`KeptTexts`)."""
        size, sha256 = self._recorded()
        source = Path(os.path.abspath(self.source))
        return KeptTexts(self.path, source, size, sha256, tuple(self._stored(numbers, 256)))

    def _recorded(self) -> tuple[int, str]:
        """The size and SHA-256 of the source the index was built from."""
        with self.failing():
            size, sha256 = self.connection.execute("SELECT size, sha256 FROM source").fetchone()
        return int(size), str(sha256)

    def _stored(self, numbers: Sequence[int], batch: int) -> Iterator[GameRange | GameText]:
        """What the index keeps of the games ``numbers``: a range, or the text."""
        columns = (
            "game, line, byte_start, byte_length, digest, tag_text, movetext, encoding, problems"
        )
        for start in range(0, len(numbers), batch):
            sql, parameters = _games_within(columns, "games", numbers[start : start + batch])
            with self.failing():
                rows = self.connection.execute(sql + " ORDER BY game", parameters).fetchall()
            for game, line, byte_start, length, digest, *text in rows:
                if byte_start is None:
                    yield game_text((game, line, *text))
                else:
                    yield GameRange(game, line, byte_start, length, digest)

    @_answering
    def game_facts(
        self, numbers: Sequence[int], tags: bool = True
    ) -> list[tuple[int, bool, str | None]]:
        """Per game of ``numbers`` (ascending): its number, whether it reads cleanly and
        (for a clean one, where ``tags``) its tags as stored (JSON), in the order of
        ``numbers``."""
        if not len(numbers):
            return []
        wanted = "CASE WHEN clean THEN tags END" if tags else "NULL"
        sql, parameters = _games_within("game, clean, " + wanted, "games", numbers)
        rows = self.connection.execute(sql + " ORDER BY game", parameters).fetchall()
        return [(int(game), bool(clean), tags) for game, clean, tags in rows]

    @_answering
    def main_line_sizes(self, numbers: Sequence[int]) -> list[int]:
        """Per game of ``numbers`` (ascending): how many main-line positions are stored
        of it (none of a game that does not read cleanly)."""
        if not len(numbers):
            return []
        sql, parameters = _games_within(
            "CASE WHEN clean THEN plies + 1 ELSE 0 END", "games", numbers
        )
        rows = self.connection.execute(sql + " ORDER BY game", parameters).fetchall()
        return [int(size) for (size,) in rows]

    @_answering
    def main_lines(
        self, numbers: Sequence[int], names: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """The stored main-line positions of the clean games among ``numbers``
        (ascending), one numpy array per column (``game``, ``ply`` and the columns
        ``names`` of :data:`MAIN_LINE_COLUMNS`, by default all), ordered by game and
        ply."""
        columns = ", ".join(("game", "ply", *(MAIN_LINE_COLUMNS if names is None else names)))
        sql, parameters = _games_within(columns, "positions", numbers)
        found = dict(self.connection.execute(sql, parameters).fetchnumpy())
        # Sorted here, and only when DuckDB did not keep the stored order (sorting in
        # SQL costs a third of the question even then).
        game, ply = found["game"], found["ply"]
        if len(game) > 1 and not (
            (game[1:] >= game[:-1]).all()
            and ((game[1:] != game[:-1]) | (ply[1:].astype("int64") == ply[:-1] + 1)).all()
        ):
            import numpy as np

            order = np.lexsort((ply, game))
            found = {name: values[order] for name, values in found.items()}
        return found


def _games_within(columns: str, table: str, numbers: Sequence[int]) -> tuple[str, list[object]]:
    """The question of ``columns`` of ``table``'s rows of the games ``numbers``
    (ascending), and its parameters (:func:`games_condition`)."""
    condition, parameters = games_condition(numbers)
    return f"SELECT {columns} FROM {table} WHERE {condition}", parameters


def games_condition(numbers: Sequence[int]) -> tuple[str, list[object]]:
    """The condition that a row's ``game`` is one of ``numbers`` (ascending), and its
    parameters: their range, and where some game of the range is not one of them, a
    string of bits, one per game of the range.  DuckDB takes the string in one piece,
    where a list of numbers costs it a conversion per number (measured on the puzzles:
    the facts of 6,574 of 6,605 games 16–30 ms with a list, 3.6 ms with the bits; 512
    games' positions 4.5–8 ms, 2.7 ms)."""
    first, last = int(numbers[0]), int(numbers[-1])
    condition = "game BETWEEN ? AND ?"
    parameters: list[object] = [first, last]
    if last - first + 1 != len(numbers):
        wanted = bytearray(b"0" * (last - first + 1))
        for number in numbers:
            wanted[int(number) - first] = ord("1")
        condition += " AND get_bit(?::BITSTRING, (game - ?)::INTEGER) = 1"
        parameters += [wanted.decode("ascii"), first]
    return condition, parameters


def _read_kept(
    path: Path,
    source: Path,
    kept: Iterable[GameRange | GameText],
    recorded: Callable[[], tuple[int, str]],
) -> Iterator[GameText]:
    """The texts of ``kept`` (ranges read from ``source``, texts as they are), for the
    index at ``path`` of the file ``source`` whose ``recorded`` size and SHA-256 tell a
    damaged index from a changed file when a range does not hold its game."""
    try:
        yield from read_ranges(source, kept)
    except RangeMismatch as exc:
        with contextlib.suppress(OSError):
            size, sha256 = recorded()
            if unchanged(source, size, sha256, None):
                raise IncompleteInput(
                    f"index {path} is damaged ({exc.where}); build it again, or run with --no-index"
                ) from exc
        raise


@attrs.frozen(repr=False)
class KeptTexts(Record):
    """What an index keeps of the texts of some games of its file ``source`` (a range of
    the file, or the text itself), sent to a worker of a parallel run with their stored
    positions: the worker reads only the texts it wants (:meth:`texts`), those of the
    games the positions do not rule out, where sending every text would cost splitting
    and pickling each.  ``size`` and ``sha256`` are the file's as indexed: a range that
    does not hold its game then says whether the file changed or the index is damaged,
    as :meth:`Index.texts` does."""

    path: Path
    source: Path
    size: int
    sha256: str
    kept: tuple[GameRange | GameText, ...]

    def texts(self, numbers: Sequence[int]) -> Iterator[GameText]:
        """The texts of the games ``numbers`` (ascending) among those kept."""
        wanted = set(numbers)
        chosen = (k for k in self.kept if _game_of(k) in wanted)
        return _read_kept(self.path, self.source, chosen, lambda: (self.size, self.sha256))


def _game_of(kept: GameRange | GameText) -> int:
    return kept.game if isinstance(kept, GameRange) else kept.file_ordinal


def open_index(path: Path, source: Path) -> Index:
    """The index at ``path`` of the PGN file ``source``, checked to be complete, of this
    format and version, and built from exactly the bytes ``source`` holds now; raises
    :class:`StaleIndex` otherwise."""
    if not path.is_file():
        raise StaleIndex(f"no index at {path}")
    try:
        # DuckDB keeps the blocks it read in its buffers up to its memory limit (by
        # default most of the machine's): a bound keeps a run's memory flat in the
        # index's size.  A question that needs more fails, and the run scans.
        config = {"memory_limit": READER_MEMORY}
        connection = _reading_duckdb().connect(str(path), read_only=True, config=config)
    except Exception as exc:
        raise StaleIndex(f"index {path} cannot be read ({_first_line(exc)})") from exc
    try:
        games = _check(connection, path, source)
    except StaleIndex:
        connection.close()
        raise
    except Exception as exc:
        connection.close()
        raise StaleIndex(f"index {path} is damaged ({_first_line(exc)})") from exc
    return Index(path, connection, games, source)


def _check(connection: Any, path: Path, source: Path) -> int:
    meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("complete") != "yes":
        raise StaleIndex(f"index {path} is incomplete")
    if meta.get("format") != str(FORMAT) or meta.get("cqllegacy") != __version__:
        raise StaleIndex(
            f"index {path} was written by cqllegacy {meta.get('cqllegacy')} "
            f"(format {meta.get('format')}), not by this one"
        )
    rows = connection.execute(
        "SELECT size, sha256, games, positions, damaged, mtime_ns, ctime_ns, inode, device, "
        "racy FROM source"
    ).fetchall()
    if len(rows) != 1:
        raise StaleIndex(f"index {path} is damaged (no record of its source)")
    size, sha256, games, positions, damaged, mtime_ns, ctime_ns, inode, device, racy = rows[0]
    status = None if racy else FileStatus(size, mtime_ns, ctime_ns, inode, device)
    if not unchanged(source, size, sha256, status):
        raise StaleIndex(f"index {path} was not built from {source} as it is now")
    if damaged:
        raise StaleIndex(f"index {path} is of a damaged file")
    counted = connection.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM positions), "
        "(SELECT coalesce(sum(plies + 1), 0) FROM games WHERE clean), "
        "(SELECT coalesce(max(game), 0) FROM games), "
        "(SELECT coalesce(max(byte_start + byte_length), 0) <= ? FROM games)",
        [size],
    ).fetchone()
    if counted != (games, positions, positions, games, True):
        raise StaleIndex(f"index {path} is damaged (its tables do not add up)")
    return int(games)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
