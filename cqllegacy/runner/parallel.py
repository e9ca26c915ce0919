"""Scanning with several processes (``run --jobs N``) or on a Dask cluster
(``run --engine dask``), with the same output as one process, in input order.

The input is cut into *units* at game boundaries:

* a plain PGN file into byte ranges (:func:`~cqllegacy.runner.pgn_parts.game_boundaries`);
  a worker reads its range itself, so only offsets travel.  The games and lines of each
  range are counted first (in the workers too), so that every unit knows the ordinal of
  its first game and its first line: messages and ``{Original game: N}`` come out as in
  a one-process run.
* a compressed file is read by the main process, which sends batches of games.
* a file with a fresh index (:class:`~cqllegacy.runner.candidates.Candidates`):
  the main process asks the index for the candidate games and sends them in batches,
  each with the span of the file's games it covers (the games between candidates cannot
  match, and only advance the count).  The index stays in the main process, which
  opened and checked it: a unit of games answered from their stored positions carries
  those positions and the games' byte ranges, and the worker reads from the PGN file
  only the texts it needs (those not ruled out), as a worker of a plain file reads its
  range.

A worker scans its unit with a :class:`~cqllegacy.runner.game_scan.GameScan`, as a
one-process scan does, and returns *events*, in order: the texts the sinks would write
for each matching game (rendered by the sinks' ``renderer``) and the messages about
unreadable games.  The main process writes them in input order
(:meth:`UnitResult.replay`), keeps the summary and the progress bar, and never has more
than a few units per worker under way, so memory does not grow with the input.

An *engine* runs the units: :class:`ProcessEngine` (``concurrent.futures`` processes)
or :class:`DaskEngine` (a ``dask.distributed`` client).  Both look like an executor:
``submit(fn, *args)`` returns a future with ``result()``.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol, TypeVar

import attrs

from cqllegacy.errors import IndexFailed, display_path
from cqllegacy.records import Record
from cqllegacy.runner.candidates import Candidates
from cqllegacy.runner.compiled import CompiledQueryLike
from cqllegacy.runner.game_scan import GameScan
from cqllegacy.runner.pgn import (
    Compression,
    DamagedInput,
    GameText,
    detect_compression,
    open_pgn,
    split_games,
    wide_encoding,
)
from cqllegacy.runner.pgn_parts import game_boundaries, range_lines
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.results import (
    FoundGame,
    InputFile,
    Renderer,
    RenderingSink,
    ScanOptions,
    Summary,
)
from cqllegacy.signals import signals_blocked, worker_started

__all__ = [
    "CandidateUnit",
    "Candidates",
    "DaskEngine",
    "Engine",
    "ProcessEngine",
    "UnitResult",
    "run_units",
    "worth_spreading",
]

Result = TypeVar("Result")
Result_co = TypeVar("Result_co", covariant=True)


class Future(Protocol[Result_co]):
    def result(self) -> Result_co: ...


class Engine(Protocol):
    """Runs functions on workers (``workers`` of them, at least one).

    ``part_bytes`` (None: chosen from the input size) and ``batch_games`` size the units.
    """

    part_bytes: int | None
    batch_games: int

    @property
    def workers(self) -> int: ...

    def submit(self, fn: Callable[..., Result], /, *args: object) -> Future[Result]:
        """``fn(*args)`` on a worker; an argument that :meth:`share` gave arrives as the
        value shared."""
        ...

    def share(self, value: CompiledQueryLike) -> object:
        """``value`` as the engine passes it to every task (sent once where it can)."""
        ...

    def close(self) -> None: ...


class CandidateUnit(Protocol):
    """Candidate games sent to a worker in a form of their own (an index's stored
    positions: :class:`cqllegacy.runner.stored.StoredUnit`), which evaluates them on
    the worker's scan state as :meth:`GameScan.game` would, in order."""

    def evaluate(self, state: GameScan, name: str, games_before: int) -> None: ...


# --------------------------------------------------------------------------------------
# Units and what workers do with them
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class FileRange(Record):
    """Bytes ``start`` to ``end`` of a plain PGN file, beginning at a game boundary."""

    path: str
    name: str
    start: int
    end: int

    def describe(self) -> str:
        """The range as messages name it.

        >>> FileRange("/x/g.pgn", "g.pgn", 0, 65536).describe()
        'g.pgn bytes 0-65536'
        """
        return f"{display_path(self.name)} bytes {self.start}-{self.end}"


@attrs.frozen(repr=False)
class Start(Record):
    """Where a unit begins: games read before it (in the whole input, in its file) and
    the file line it begins on."""

    games: int
    file_games: int
    line: int


@attrs.frozen(repr=False)
class Rendered(Record):
    """A matching game: the text of each sink."""

    texts: tuple[str, ...]


@attrs.frozen(repr=False)
class Message(Record):
    """A message about the input, printed as it is."""

    text: str


Event = Rendered | Message


@attrs.frozen(repr=False)
class UnitResult(Record):
    """What scanning a unit gave: events in input order and counts."""

    events: tuple[Event, ...]
    games: int
    matched: int
    skipped: int
    #: Units whose input could not be read (or whose worker died): not examined.
    damaged: int = 0

    def replay(self, sinks: Sequence[RenderingSink], progress: Messages) -> None:
        """Write the events, in order, as the sinks and ``progress`` of a scan in this
        process would have written them."""
        for event in self.events:
            if isinstance(event, Rendered):
                for sink, text in zip(sinks, event.texts, strict=True):
                    sink.write(text)
            else:
                progress.message(event.text)


def count_range(part: FileRange) -> tuple[int, int]:
    """The games and the lines of a file range (what could be read of it: a range that
    cannot be read is reported by its scan)."""
    lines = 0

    def counted() -> Iterator[str]:
        nonlocal lines
        for line in range_lines(part.path, part.start, part.end):
            lines += 1
            yield line

    games = 0
    with contextlib.suppress(OSError, DamagedInput):
        for _ in split_games(counted()):
            games += 1
    return games, lines


class _Recorder(Messages):
    """Sink and progress of a worker's scan: it records what the main process will do."""

    def __init__(self, renderers: Sequence[Renderer]) -> None:
        self.events: list[Event] = []
        self.renderers = renderers

    def __call__(self, found: FoundGame) -> None:
        self.events.append(Rendered(tuple(render(found) for render in self.renderers)))

    def message(self, text: str) -> None:
        self.events.append(Message(text))


def _scan_texts(
    compiled: CompiledQueryLike | Inherited,
    texts: Iterator[GameText],
    name: str,
    start: Start,
    options: ScanOptions,
    renderers: Sequence[Renderer],
    unit: str = "",
) -> UnitResult:
    """Scan the games of a unit; when its input cannot be read to the end (``unit``
    names it), the games read before stay scanned, and a message says what was lost."""
    if isinstance(compiled, Inherited):
        compiled = compiled.value()
    recorder = _Recorder(renderers)
    state = GameScan(compiled, options, [recorder], recorder, Summary(games=start.games))
    damaged = 0
    try:
        for text in texts:
            state.game(text, name)
    except (OSError, DamagedInput) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        recorder.message(
            f"warning: {unit}: cannot read: {reason}; the games from there on were not examined"
        )
        damaged = 1
    summary = state.summary
    return UnitResult(
        tuple(recorder.events),
        summary.games - start.games,
        summary.matched,
        summary.skipped,
        damaged,
    )


def scan_range(
    compiled: CompiledQueryLike | Inherited,
    part: FileRange,
    start: Start,
    options: ScanOptions,
    renderers: Sequence[Renderer],
) -> UnitResult:
    """Scan a file range (a worker's task).  A range that cannot be read (its file
    removed or changed since the run began) is one message, and counts as damaged."""
    lines = range_lines(part.path, part.start, part.end)
    texts = split_games(lines, first_ordinal=start.file_games + 1, first_line=start.line)
    return _scan_texts(compiled, texts, part.name, start, options, renderers, part.describe())


def _lost(unit: str, why: str) -> UnitResult:
    """The result of a unit whose games could not be examined."""
    message = f"warning: {unit}: {why}; the games there were not examined"
    return UnitResult((Message(message),), 0, 0, 0, damaged=1)


def scan_batch(
    compiled: CompiledQueryLike | Inherited,
    name: str,
    texts: tuple[GameText, ...],
    games_before: int,
    options: ScanOptions,
    renderers: Sequence[Renderer],
) -> UnitResult:
    """Scan games the main process read (a worker's task)."""
    start = Start(games_before, 0, 0)
    return _scan_texts(compiled, iter(texts), name, start, options, renderers)


def scan_candidates(
    compiled: CompiledQueryLike | Inherited,
    name: str,
    texts: tuple[GameText, ...] | CandidateUnit,
    games_before: int,
    span: tuple[int, int],
    options: ScanOptions,
    renderers: Sequence[Renderer],
) -> UnitResult:
    """Scan candidate games of an indexed file (a worker's task).  The unit covers the
    file's games ``span[0] + 1`` to ``span[1]`` (``games_before`` games of the input come
    before the file); each candidate is evaluated with its ordinal as in a scan, the
    games between candidates are counted and left alone (they cannot match)."""
    if isinstance(compiled, Inherited):
        compiled = compiled.value()
    first, last = span
    recorder = _Recorder(renderers)
    state = GameScan(compiled, options, [recorder], recorder, Summary(games=games_before))
    if isinstance(texts, tuple):
        for text in texts:
            state.summary.games = games_before + text.file_ordinal - 1
            state.game(text, name)
    else:
        texts.evaluate(state, name, games_before)
    summary = state.summary
    return UnitResult(tuple(recorder.events), last - first, summary.matched, summary.skipped)


# --------------------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------------------

#: Compiled queries handed to forked workers by inheritance rather than by pickling.
_INHERITED: dict[int, CompiledQueryLike] = {}


@attrs.frozen(repr=False)
class Inherited(Record):
    """A handle on a compiled query a forked worker inherited from the main process
    (whatever the query is, it needs no pickling, and it is not sent with every task)."""

    token: int

    def value(self) -> CompiledQueryLike:
        return _INHERITED[self.token]


class ProcessEngine:
    """Worker processes on this machine (started at the first task).  ``small_inputs``
    False: a scan of little input (see :func:`worth_spreading`) runs in the calling
    process instead.  ``by_default``: the number of workers was not asked for, so the
    scan may leave them unused where they cannot pay (an index that answers in
    columns, :func:`~cqllegacy.runner.scanner.answered_in_columns`)."""

    def __init__(
        self,
        jobs: int,
        *,
        part_bytes: int | None = None,
        batch_games: int = 200,
        small_inputs: bool = True,
        by_default: bool = False,
    ) -> None:
        self.jobs = max(1, jobs)
        self.small_inputs = small_inputs
        self.by_default = by_default
        self.part_bytes = part_bytes
        self.batch_games = batch_games
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._tokens: list[int] = []

    @property
    def workers(self) -> int:
        return self.jobs

    @staticmethod
    def _forking() -> bool:
        return "fork" in multiprocessing.get_all_start_methods()

    def submit(self, fn: Callable[..., Result], /, *args: object) -> Future[Result]:
        if self._executor is None:
            # fork starts workers fastest, and they inherit the compiled query (see
            # share); elsewhere the platform's default, and the query is pickled.
            context = multiprocessing.get_context("fork" if self._forking() else None)
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.jobs,
                mp_context=context,
                initializer=worker_started,
                initargs=(os.getpid(),),
            )
        # Workers start within a submit; they must not get a signal before their
        # initializer has set how they take it (see cqllegacy.signals).
        with signals_blocked():
            try:
                return self._executor.submit(fn, *args)
            except concurrent.futures.BrokenExecutor:
                # A worker died since the last task: a fresh pool takes this one.
                self.restart()
                return self.submit(fn, *args)

    def share(self, value: CompiledQueryLike) -> CompiledQueryLike | Inherited:
        if not self._forking() or self._executor is not None:
            return value
        token = id(value)
        _INHERITED[token] = value
        self._tokens.append(token)
        return Inherited(token)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        self._forget_shared()

    def abort(self) -> None:
        """Stop at once: the workers are killed, whatever they were doing (an interrupted
        run must not wait for them, nor leave them behind)."""
        self.restart()
        self._forget_shared()

    def restart(self) -> None:
        """Kill the workers; the next task starts a fresh pool (which inherits the shared
        query as the first one did)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            # The pool has no public way to kill its workers; _processes has been there
            # since the pool exists.
            workers = list((getattr(executor, "_processes", None) or {}).values())
            for worker in workers:
                worker.kill()
            executor.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.join(timeout=2)

    def _forget_shared(self) -> None:
        for token in self._tokens:
            _INHERITED.pop(token, None)
        self._tokens.clear()


#: What :meth:`DaskEngine.share` gives: the shared value, whichever copy is current.
_SHARED = object()


class DaskClient(Protocol):
    """What :class:`DaskEngine` asks of a ``dask.distributed.Client``."""

    def nthreads(self) -> Mapping[str, int]: ...

    def submit(
        self, fn: Callable[..., Result], /, *args: object, pure: bool = ...
    ) -> Future[Result]: ...

    def scatter(self, data: object, /, *, broadcast: bool = ..., hash: bool = ...) -> object: ...

    def close(self) -> None: ...


class DaskEngine:
    """A ``dask.distributed`` cluster: the scheduler at ``address``, or a cluster of
    local processes started for the run when ``address`` is None."""

    def __init__(
        self,
        address: str | None = None,
        *,
        client: DaskClient | None = None,
        part_bytes: int | None = None,
        batch_games: int = 200,
        quiet: bool = False,
    ) -> None:
        self.part_bytes = part_bytes
        self.batch_games = batch_games
        self._shared: CompiledQueryLike | None = None
        self._scattered: object = None
        self._own_client = client is None
        if client is None:
            # Importing distributed configures its logging: quieten it afterwards.
            import dask.distributed  # noqa: F401
        quiet_dask_logs(silent=quiet)
        self.client = _connect(address, quiet=quiet) if client is None else client

    @property
    def workers(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn: Callable[..., Result], /, *args: object) -> Future[Result]:
        args = tuple(self._scattered if arg is _SHARED else arg for arg in args)
        return self.client.submit(fn, *args, pure=False)

    def share(self, value: CompiledQueryLike) -> object:
        """Scatter ``value`` to every worker; tasks name it by a handle, so that after
        :meth:`restart` they get it anew."""
        self._shared = value
        self._scattered = self.client.scatter(value, broadcast=True, hash=False)
        return _SHARED

    def restart(self) -> None:
        """After workers died: scatter the shared value again (the workers that held it
        may all be gone, and every task needing it would be cancelled); Dask itself
        replaces the workers."""
        if self._shared is not None:
            self._scattered = self.client.scatter(self._shared, broadcast=True, hash=False)

    def close(self) -> None:
        if self._own_client:
            self.client.close()

    def abort(self) -> None:
        """As :meth:`close`: the cluster's own workers go on with other clients' work."""
        self.close()


class _NoTraceback(logging.Filter):
    """Dask's log records on one line: a failure the run handles (a dead worker, a
    cancelled task) is reported by the run, never as Dask's traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        record.msg = display_path(str(record.msg))
        return True


#: asyncio's too: a task of Dask's client that ends when workers die is logged there,
#: with its traceback ("Task exception was never retrieved").
_DASK_LOGGERS = ("distributed", "dask", "asyncio")
#: The levels Dask's loggers had before a run silenced them.
_LEVELS: dict[str, int] = {}


def quiet_dask_logs(*, silent: bool) -> None:
    """Dask's own logging: never a traceback, and nothing at all when ``silent`` (``-q``)."""
    for name in _DASK_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NoTraceback) for f in logger.filters):
            logger.addFilter(_NoTraceback())
        for handler in logger.handlers:
            if not any(isinstance(f, _NoTraceback) for f in handler.filters):
                handler.addFilter(_NoTraceback())
        level = _LEVELS.setdefault(name, logger.level)
        logger.setLevel(logging.CRITICAL + 1 if silent else level)


def _connect(address: str | None, *, quiet: bool = False) -> DaskClient:
    """A client of the scheduler at ``address``, or of local processes started for it
    (whose logs say nothing below an error, nothing at all when ``quiet``)."""
    from dask.distributed import Client

    # distributed's Client.__init__ has no annotations, so mypy calls it untyped.
    if address:
        return Client(address)  # type: ignore[no-untyped-call]
    import dask

    silence = logging.CRITICAL + 1 if quiet else logging.ERROR
    # A task whose worker dies fails at once (KilledWorker), rather than after Dask's
    # own three tries: the run sends it again once (RETRIES), then reports it lost, so
    # that workers killed again and again end the run instead of holding it forever.
    # No dashboard: nobody looks at it, and its port may be taken ("Port 8787 is
    # already in use", a warning of several lines).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        return Client(silence_logs=silence, dashboard_address=None)  # type: ignore[no-untyped-call]


@attrs.frozen(repr=False)
class _Ready(Record):
    """A result the main process already has (a message about a file)."""

    value: UnitResult

    def result(self) -> UnitResult:
        return self.value


# --------------------------------------------------------------------------------------
# The main process
# --------------------------------------------------------------------------------------

#: Parts of plain files: about this many per worker, within these sizes.
_PARTS_PER_WORKER = 16
_SMALLEST_PART = 64 * 1024
_LARGEST_PART = 4 * 1024 * 1024
#: Below this much text (compressed files counted at ``_COMPRESSION`` times their size)
#: local worker processes cost more than they save.
_WORTH_SPREADING = 256 * 1024
_COMPRESSION = 4


def worth_spreading(inputs: Sequence[InputFile]) -> bool:
    """Whether ``inputs`` hold enough games for local worker processes."""
    total = 0
    for item in inputs:
        try:
            size = os.path.getsize(item.path)
            with open(item.path, "rb") as handle:
                plain = detect_compression(handle.read(6)) is Compression.PLAIN
        except OSError:
            continue
        total += size if plain else _COMPRESSION * size
    return total >= _WORTH_SPREADING


def part_size(total_bytes: int, workers: int) -> int:
    """Bytes per part of a plain file.

    >>> part_size(100 * 1024 * 1024, 2), part_size(10**6, 2), part_size(10**10, 2)
    (3276800, 65536, 4194304)
    """
    wanted = total_bytes // max(1, workers * _PARTS_PER_WORKER)
    return min(_LARGEST_PART, max(_SMALLEST_PART, wanted))


#: How many times a unit is sent again after the worker scanning it died.
RETRIES = 1

#: What a unit's future raises when its worker died: the local pool broken (a worker
#: killed, out of memory), or a Dask task cancelled or given up after its workers died.
_WORKER_LOST_NAMES = frozenset({"KilledWorker", "FutureCancelledError", "CommClosedError"})


def worker_lost(exc: BaseException) -> bool:
    """Whether ``exc``, raised by a unit's future, says the worker running it died.

    >>> from concurrent.futures.process import BrokenProcessPool
    >>> worker_lost(BrokenProcessPool("x"))
    True
    >>> worker_lost(ValueError("x"))
    False
    """
    if isinstance(exc, concurrent.futures.BrokenExecutor | concurrent.futures.CancelledError):
        return True
    return type(exc).__name__ in _WORKER_LOST_NAMES


LOST_WORKER = "a worker process ended abruptly (killed, or out of memory)"


@attrs.frozen(repr=False)
class _Task(Record):
    """A unit's function and arguments, kept to send it again; ``unit`` names its input."""

    fn: Callable[..., UnitResult]
    args: tuple[object, ...]
    unit: str
    #: The input file the unit reads (a file that loses several units is one file
    #: not read to its end, for the summary).
    file: str = ""


@attrs.define(repr=False)
class _Unit(Record):
    future: Future[UnitResult]
    bytes_done: int
    task: _Task | None = None
    tries: int = 1


@attrs.define(repr=False)
class _Pipeline(Record):
    """Units under way, oldest first, at most ``window`` of them.

    A unit whose worker died is sent again (:data:`RETRIES` times) on a fresh pool; one
    that still cannot be scanned is reported lost, and the scan goes on.
    """

    engine: Engine
    emit: Callable[[UnitResult, int], None]
    window: int
    pending: collections.deque[_Unit] = attrs.Factory(collections.deque)
    retried: bool = False
    broken: bool = False
    #: The files that lost a unit already.
    damaged: set[str] = attrs.Factory(set)

    def add(self, future: Future[UnitResult], bytes_done: int) -> None:
        self._queue(_Unit(future, bytes_done))

    def submit(self, task: _Task, bytes_done: int) -> None:
        if self.broken:
            self._queue(_Unit(_Ready(self._lost(task)), bytes_done, task))
            return
        self._queue(_Unit(self.engine.submit(task.fn, *task.args), bytes_done, task))

    def _lost(self, task: _Task, why: str = f"{LOST_WORKER}, and no worker is left") -> UnitResult:
        result = _lost(task.unit, why)
        if task.file and task.file in self.damaged:
            return attrs.evolve(result, damaged=0)
        self.damaged.add(task.file)
        return result

    def waits_forever(self, future: Future[object]) -> bool:
        """Whether ``future`` may never be done: no worker is left to run it."""
        done = getattr(future, "done", None)
        return self.broken and not (done is not None and done())

    def _queue(self, unit: _Unit) -> None:
        self.pending.append(unit)
        while len(self.pending) > self.window:
            self.drain_one()

    def drain_one(self) -> None:
        unit = self.pending.popleft()
        if unit.task is not None and self.waits_forever(unit.future):
            self.emit(self._lost(unit.task), unit.bytes_done)
            return
        try:
            result = unit.future.result()
        except Exception as exc:
            if unit.task is None or not worker_lost(exc):
                raise
            result = self._after_lost_worker(unit)
        self.emit(result, unit.bytes_done)

    def _after_lost_worker(self, unit: _Unit) -> UnitResult:
        """Go on after a worker died while ``unit`` was under way (maybe scanning another
        unit): ``unit`` alone is sent again on a fresh pool (so that if it dies again,
        it is the cause), then every other unit under way.  Its result, or the message
        that it is lost once it has had its :data:`RETRIES`."""
        assert unit.task is not None
        result: UnitResult | None = None
        while result is None:
            if not self._restarted():
                result = self._lost(unit.task)
                break
            if unit.tries > RETRIES:
                result = self._lost(unit.task, f"{LOST_WORKER} while scanning them")
                break
            if not self.retried:
                self.retried = True
                self.emit(_message(f"warning: {LOST_WORKER}; its games are scanned again"), 0)
            unit.tries += 1
            try:
                result = self.engine.submit(unit.task.fn, *unit.task.args).result()
            except Exception as exc:
                if not worker_lost(exc):
                    raise
        self._send_again()
        return result

    def _restarted(self) -> bool:
        """Restart the engine; False when it cannot (a Dask cluster whose workers are
        all gone), and from then on: every unit whose worker dies is lost at once,
        so that workers killed again and again end the run."""
        restart = getattr(self.engine, "restart", None)
        if restart is None or self.broken:
            return not self.broken
        try:
            restart()
        except Exception:
            self.broken = True
        return not self.broken

    def _send_again(self) -> None:
        """After a restart, the units under way go to the fresh pool (an engine that
        does not restart keeps them: each one that failed comes here in its turn)."""
        if getattr(self.engine, "restart", None) is None or self.broken:
            return
        for other in self.pending:
            if other.task is not None:
                other.future = self.engine.submit(other.task.fn, *other.task.args)

    def drain(self) -> None:
        while self.pending:
            self.drain_one()


def _counts(future: Future[tuple[int, int]], part: FileRange) -> tuple[int, int]:
    """A range's counts; counted here when the worker counting them died."""
    try:
        return future.result()
    except Exception as exc:
        if not worker_lost(exc):
            raise
        return count_range(part)


def _message(text: str) -> UnitResult:
    return UnitResult((Message(text),), 0, 0, 0)


def run_units(
    engine: Engine,
    compiled: CompiledQueryLike,
    inputs: Sequence[InputFile],
    options: ScanOptions,
    sinks: Sequence[RenderingSink],
    emit: Callable[[UnitResult, int], None],
    candidates: Sequence[Candidates | None] | None = None,
) -> int:
    """Scan ``inputs`` on ``engine``; every unit's result goes to ``emit(result,
    bytes_done)`` in input order.  An input whose ``candidates`` are given (its index is
    fresh) has only those games evaluated.  Returns the number of input files that could
    not be read to the end."""
    pipeline = _Pipeline(engine, emit, window=2 * engine.workers)
    renderers = tuple(sink.renderer for sink in sinks)
    sending = _Sending(engine, pipeline, engine.share(compiled), options, renderers)
    sizes: list[int] = []
    for item in inputs:
        try:
            sizes.append(os.path.getsize(item.path))
        except OSError:
            sizes.append(0)
    part = engine.part_bytes or part_size(sum(sizes), engine.workers)
    damaged = 0
    games_before = 0
    bytes_before = 0
    indexed = list(candidates) if candidates is not None else [None] * len(inputs)
    try:
        for item, size, chosen in zip(inputs, sizes, indexed, strict=True):
            if chosen is not None:
                games_before, broken = _indexed_file(
                    sending, item, chosen, games_before, bytes_before, size
                )
            else:
                games_before, broken = _scanned_file(
                    sending, item, part, games_before, bytes_before
                )
            damaged += broken
            bytes_before += size
        pipeline.drain()
    except BaseException:
        # An interrupt, a failed write: nothing more is wanted from the workers.
        getattr(engine, "abort", engine.close)()
        raise
    engine.close()
    return damaged


@attrs.frozen(repr=False)
class _Sending(Record):
    """What sending a file's units to the workers takes, the same for every file."""

    engine: Engine
    pipeline: _Pipeline
    #: The compiled query as the engine shares it with its workers.
    shared: object
    options: ScanOptions
    renderers: tuple[Renderer, ...]


def _scanned_file(
    sending: _Sending, item: InputFile, part_bytes: int, games_before: int, bytes_before: int
) -> tuple[int, int]:
    """Send every game of ``item`` to the workers: the games before the file's, and
    whether it could not be read to its end (0 or 1)."""
    try:
        with open(item.path, "rb") as handle:
            head = handle.read(6)
        # Byte ranges need one byte per ASCII character: not UTF-16 or UTF-32.
        if detect_compression(head) is Compression.PLAIN and not wide_encoding(head):
            games_before = _plain_file(sending, item, part_bytes, games_before, bytes_before)
            return games_before, 0
        return _compressed_file(sending, item, games_before, bytes_before)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        sending.pipeline.add(_Ready(_message(f"warning: {item.name}: cannot read: {reason}")), 0)
        return games_before, 1


def _plain_file(
    sending: _Sending, item: InputFile, part_bytes: int, games_before: int, bytes_before: int
) -> int:
    # Workers open the file themselves, maybe elsewhere: a path that does not depend on
    # the folder they run in.
    path = os.path.abspath(item.path)
    cuts = game_boundaries(path, part_bytes)
    ends = [*cuts[1:], os.path.getsize(path)]
    parts = [FileRange(path, item.name, a, b) for a, b in zip(cuts, ends, strict=True)]
    counts = collections.deque(sending.engine.submit(count_range, part) for part in parts)
    file_games, line = 0, 1
    for part in parts:
        start = Start(games_before, file_games, line)
        args = (sending.shared, part, start, sending.options, sending.renderers)
        task = _Task(scan_range, args, part.describe(), item.name)
        sending.pipeline.submit(task, bytes_before + part.end)
        counted = counts.popleft()
        if sending.pipeline.waits_forever(counted):
            games, lines = count_range(part)  # no worker is left to count them
        else:
            games, lines = _counts(counted, part)
        games_before, file_games, line = games_before + games, file_games + games, line + lines
    return games_before


def _compressed_file(
    sending: _Sending, item: InputFile, games_before: int, bytes_before: int, after: int = 0
) -> tuple[int, int]:
    """Read and split a compressed file here, scan its games after its first ``after``
    (those are sent already) in batches elsewhere."""
    with open_pgn(item.path) as source:
        batch: list[GameText] = []
        first = games_before + after
        games_in_file = 0

        def send() -> None:
            nonlocal batch, first
            last = first + len(batch)
            unit = f"{display_path(item.name)} games {first + 1}-{last} of the input"
            args = (
                sending.shared, item.name, tuple(batch), first, sending.options,
                sending.renderers,
            )  # fmt: skip
            done = bytes_before + source.bytes_read()
            sending.pipeline.submit(_Task(scan_batch, args, unit, item.name), done)
            first += len(batch)
            batch = []

        try:
            for text in split_games(source.lines()):
                games_in_file = text.file_ordinal
                if games_in_file <= after:
                    continue
                batch.append(text)
                if len(batch) >= sending.engine.batch_games:
                    send()
        except DamagedInput as exc:
            if batch:
                send()
            note = f"warning: {item.name}: {exc}; reading stopped after game {games_in_file} "
            sending.pipeline.add(_Ready(_message(note + "of this file")), bytes_before)
            return first, 1
        if batch:
            send()
        return first, 0


def _indexed_file(
    sending: _Sending,
    item: InputFile,
    chosen: Candidates,
    games_before: int,
    bytes_before: int,
    size: int,
) -> tuple[int, int]:
    """Send the candidate games of an indexed file in batches, a few per worker; the
    last unit covers the file to its end (its games after the last candidate).  An
    index that fails on the way (:class:`~cqllegacy.errors.IndexFailed`) is said once
    and the games it has not answered are scanned.  Returns what
    :func:`_scanned_file` does."""
    engine, pipeline = sending.engine, sending.pipeline
    games = chosen.games
    covered = 0
    try:
        numbers = chosen.numbers(games_before)
        batch = candidate_batch(len(numbers), engine.workers, engine.batch_games)
        for start in range(0, len(numbers), batch):
            texts = chosen.unit(numbers[start : start + batch])
            end = games if start + batch >= len(numbers) else numbers[start + batch - 1]
            unit = f"{display_path(item.name)} games {covered + 1}-{end} of this file"
            args = (
                sending.shared, item.name, texts, games_before, (covered, end),
                sending.options, sending.renderers,
            )  # fmt: skip
            done = bytes_before + (size * end // games if games else size)
            pipeline.submit(_Task(scan_candidates, args, unit, item.name), done)
            covered = end
    except IndexFailed as exc:
        rest = f"the rest of {item.name}" if covered else item.name
        pipeline.add(_Ready(_message(f"note: {exc}; scanning {rest}")), bytes_before)
        return _compressed_file(sending, item, games_before, bytes_before, after=covered)
    if covered < games:
        pipeline.add(_Ready(UnitResult((), games - covered, 0, 0)), bytes_before + size)
    return games_before + games, 0


def candidate_batch(candidates: int, workers: int, largest: int) -> int:
    """Candidate games per unit: about :data:`_PARTS_PER_WORKER` units per worker, at
    most ``largest`` games each.

    >>> candidate_batch(10, 2, 200), candidate_batch(10_000, 2, 200), candidate_batch(0, 2, 200)
    (1, 200, 1)
    """
    wanted = candidates // max(1, workers * _PARTS_PER_WORKER)
    return max(1, min(largest, wanted))
