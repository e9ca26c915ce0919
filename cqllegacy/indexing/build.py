"""Building the index of a PGN file (:func:`build`), in this process or spread over
worker processes (``jobs``).

The main process reads and splits the file (as a scan does), finds where each game lies
in it (:func:`~cqllegacy.indexing.ranges.located`) and hands batches of game texts to
the workers, which replay them (:func:`~cqllegacy.indexing.records.record_games`);
the batches are written in file order, a few under way per worker at most, so memory
does not grow with the file.  The file's size and SHA-256 are taken before and after the
build: a file that changed meanwhile gives no index.  The status recorded is the one
taken after (:func:`~cqllegacy.indexing.freshness.file_facts`), racy if it differs from the
one before.
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from cqllegacy.errors import IncompleteInput, UsageError
from cqllegacy.indexing.freshness import SourceFacts, file_facts
from cqllegacy.indexing.ranges import located
from cqllegacy.indexing.records import Columns, position_arrays, record_games
from cqllegacy.indexing.store import writing
from cqllegacy.records import Record
from cqllegacy.runner.pgn import DamagedInput, GameText, open_pgn, split_games
from cqllegacy.runner.progress import Messages

if TYPE_CHECKING:
    from cqllegacy.runner.parallel import Future, ProcessEngine

__all__ = ["BuildResult", "LostBatch", "build"]

#: Games per batch handed to a worker and written at once, and the most text a batch
#: holds (characters of tags and movetext; a longer game makes a batch of its own): what
#: a batch costs to record and to write grows with its text, not only with its games.
BATCH_GAMES = 500
BATCH_TEXT = 4 * 1024 * 1024


@attrs.frozen(repr=False)
class BuildResult(Record):
    """What a build wrote: the index, the games and positions in it, and why reading
    stopped early (None: the file was read to its end)."""

    index: Path
    games: int
    positions: int
    damaged: str | None


def build(source: Path, index: Path, *, jobs: int = 1, progress: Messages) -> BuildResult:
    """Index the PGN file ``source`` into ``index`` (replaced atomically)."""
    before = _input_facts(source)
    damaged: str | None = None
    with writing(index) as writer:
        with _reading_input(source), open_pgn(source) as pgn:
            try:
                batches = _batches(_reading(source, located(pgn, split_games(pgn.lines()))))
                for columns in _recorded(batches, jobs, progress):
                    writer.add(columns)
                    progress.update(writer.games, 0, pgn.bytes_read())
            except (DamagedInput, LostBatch) as exc:
                damaged = str(exc)
        after = _input_facts(source)
        if (after.size, after.sha256) != (before.size, before.sha256):
            raise UsageError(f"{source} changed while it was being indexed; no index written")
        # The status of the end proves the content from then on; a status changed during
        # the build (the content the same) proves nothing.
        racy = after.racy or after.status != before.status
        writer.finish(source.name, attrs.evolve(after, racy=racy), damaged)
        result = BuildResult(index, writer.games, writer.positions, damaged)
    return result


def _unreadable(source: Path, exc: OSError) -> IncompleteInput:
    why = exc.strerror or str(exc)
    return IncompleteInput(
        f"input {source} could not be read while it was being indexed ({why}); "
        "no index written, the previous one (if any) is unchanged"
    )


def _input_facts(source: Path) -> SourceFacts:
    try:
        return file_facts(source)
    except OSError as exc:
        raise _unreadable(source, exc) from exc


@contextlib.contextmanager
def _reading_input(source: Path) -> Iterator[None]:
    """Opening the input: an error there is the input's, not the index's."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None and Path(exc.filename) == source:
            raise _unreadable(source, exc) from exc
        raise


def _reading(source: Path, texts: Iterator[GameText]) -> Iterator[GameText]:
    """``texts``, an error while they are read being the input's (every write to the
    index happens outside this generator)."""
    try:
        yield from texts
    except OSError as exc:
        raise _unreadable(source, exc) from exc


def _batches(texts: Iterator[GameText]) -> Iterator[tuple[GameText, ...]]:
    batch: list[GameText] = []
    size = 0
    for text in texts:
        length = text_length(text)
        if batch and size + length > BATCH_TEXT:
            yield tuple(batch)
            batch, size = [], 0
        batch.append(text)
        size += length
        if len(batch) >= BATCH_GAMES:
            yield tuple(batch)
            batch, size = [], 0
    if batch:
        yield tuple(batch)


def text_length(text: GameText) -> int:
    """The characters of a game's text (tags and movetext)."""
    return len(text.movetext) + sum(map(len, text.tag_lines))


def record_batch(texts: tuple[GameText, ...]) -> Columns:
    """Replay one batch of games and make its position columns (a worker's task)."""
    columns = record_games(texts)
    position_arrays(columns)
    return columns


def _recorded(
    batches: Iterator[tuple[GameText, ...]], jobs: int, progress: Messages
) -> Iterator[Columns]:
    """The batches recorded, in order: here, or on ``jobs`` worker processes.  A batch
    whose worker died is recorded again on a fresh pool; :class:`LostBatch` when it dies
    there too."""
    if jobs <= 1:
        for batch in batches:
            yield record_batch(batch)
        return
    from cqllegacy.runner.parallel import ProcessEngine

    engine = ProcessEngine(jobs)
    pending: collections.deque[_Sent] = collections.deque()
    retry = _Retry(engine, progress)
    try:
        for batch in batches:
            pending.append(_Sent(batch, engine.submit(record_batch, batch)))
            while len(pending) > 2 * jobs:
                yield retry.next_of(pending)
        while pending:
            yield retry.next_of(pending)
    except BaseException:
        engine.abort()
        raise
    engine.close()


class LostBatch(Exception):
    """The worker recording a batch died, and died again when the batch was sent anew."""

    def __init__(self, batch: tuple[GameText, ...]) -> None:
        from cqllegacy.runner.parallel import LOST_WORKER

        first, last = batch[0].file_ordinal, batch[-1].file_ordinal
        super().__init__(
            f"{LOST_WORKER} twice on games {first}-{last}; "
            f"the index holds the {first - 1} games before them"
        )


@attrs.define(repr=False)
class _Sent(Record):
    batch: tuple[GameText, ...]
    future: Future[Columns]


@attrs.define(repr=False)
class _Retry(Record):
    """Takes the oldest batch's columns; after a worker died, sends it again alone on a
    fresh pool (so that if it dies again, it is the cause), then the others under way."""

    engine: ProcessEngine
    progress: Messages
    warned: bool = False

    def next_of(self, pending: collections.deque[_Sent]) -> Columns:
        from cqllegacy.runner.parallel import LOST_WORKER, worker_lost

        sent = pending.popleft()
        try:
            return sent.future.result()
        except Exception as exc:
            if not worker_lost(exc):
                raise
        if not self.warned:
            self.warned = True
            self.progress.message(f"warning: {LOST_WORKER}; its games are indexed again")
        self.engine.restart()
        try:
            columns = self.engine.submit(record_batch, sent.batch).result()
        except Exception as exc:
            if not worker_lost(exc):
                raise
            raise LostBatch(sent.batch) from None
        for other in pending:
            other.future = self.engine.submit(record_batch, other.batch)
        return columns
