"""``cqllegacy run``: run a script on PGN files, write the matching games (its command
line is :mod:`cqllegacy.cli.run`)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from cqllegacy.api import Match, Query, load, why_not
from cqllegacy.cli.options import SAMPLE_DESCRIPTION, default_jobs, index_choice
from cqllegacy.cli.startup import games_begin
from cqllegacy.core.tree import Query as CoreQuery
from cqllegacy.errors import (
    IncompleteInput,
    UsageError,
    WriteError,
    display_path,
    listing,
    plural,
)
from cqllegacy.records import Record
from cqllegacy.runner.compiled import CompiledQueryLike, decided_by_tags
from cqllegacy.runner.output import STDOUT, PgnWriter, Replacement, check_destinations
from cqllegacy.runner.progress import make_progress
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import (
    FoundGame,
    InputFile,
    MatchSink,
    ScanOptions,
    StopScan,
    Summary,
)
from cqllegacy.runner.scanner import total_size

if TYPE_CHECKING:
    from cqllegacy.runner.parallel import Engine

SAMPLE_GAMES = "wcc.pgn.bz2"


@attrs.frozen(repr=False)
class RunPlan(Record):
    """Where a run reads and writes, resolved from the command line and the script."""

    inputs: tuple[InputFile, ...]
    output: str
    report: str | None
    sample: bool
    html: str | None = None


def default_output(script: Path) -> str:
    """``<script stem>-out.pgn`` in the current folder.

    >>> default_output(Path("scripts/mates.cql"))
    'mates-out.pgn'
    """
    return f"{script.stem}-out.pgn"


#: The input name that means standard input (as ``-o -`` means standard output).
STDIN = "-"


def plan_run(
    args: argparse.Namespace,
    loaded: Query,
    sample: Callable[[], Path],
    stdin: Callable[[], Path] | None = None,
) -> RunPlan:
    """Inputs and destinations of the run: the command line first, then the script
    (``sample()`` gives the bundled games' file, asked only when there is no input;
    ``stdin()`` standard input's games in a file, asked for ``-i -``)."""
    header = loaded.query.header
    if args.inputs:
        if args.inputs.count(STDIN) > 1:
            raise UsageError("-i - (standard input) can be given once")
        inputs = tuple(
            InputFile(stdin(), "<stdin>") if name == STDIN and stdin is not None
            else InputFile.of(name)
            for name in args.inputs
        )  # fmt: skip
    else:
        inputs = tuple(InputFile.of(loaded.resolve(name)) for name in header.inputs)
    if args.output:
        output = args.output
    elif header.output:
        output = str(loaded.resolve(header.output))
    else:
        output = default_output(loaded.path or Path("query"))
    html = getattr(args, "html", None)
    if not inputs:
        path = sample()
        return RunPlan((InputFile(path, str(path)),), output, args.report, True, html)
    return RunPlan(inputs, output, args.report, False, html)


def check_plan(plan: RunPlan, script: Path | None) -> None:
    """Refuse missing inputs and destinations that would destroy an input or the script."""
    for item in plan.inputs:
        if not item.path.exists():
            raise UsageError(f"input {item.name} does not exist")
        if not item.path.is_file():
            raise UsageError(f"input {item.name} is not a file")
        if not os.access(item.path, os.R_OK):
            raise UsageError(f"input {item.name} cannot be read (permission denied)")
    destinations = [("output", plan.output)]
    if plan.report is not None:
        destinations.append(("report", plan.report))
    if plan.html is not None:
        destinations.append(("HTML report", plan.html))
    protected = [("input", item.path) for item in plan.inputs]
    if script is not None:
        protected.append(("script", script))
    check_destinations(destinations, protected)


@contextlib.contextmanager
def standard_input_games() -> Iterator[Path]:
    """Standard input's bytes in a temporary file (removed on leaving): a scan reads its
    inputs by path, and may read them more than once (an index, worker processes)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cqllegacy-") as folder:
        path = Path(folder) / "stdin.pgn"
        with open(path, "wb") as spool:
            shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
        yield path


@contextlib.contextmanager
def sample_games() -> Iterator[Path]:
    """The bundled sample games as a file on disk."""
    import importlib.resources  # a run that names its inputs never comes here

    resource = importlib.resources.files("cqllegacy").joinpath("data", SAMPLE_GAMES)
    with importlib.resources.as_file(resource) as path:
        yield path


def open_sinks(
    stack: contextlib.ExitStack, plan: RunPlan, loaded: Query, options: ScanOptions
) -> list[MatchSink]:
    # One replacement for every file: all of them are renamed into place once all are
    # written, or none is.
    replacement = stack.enter_context(Replacement())
    output = stack.enter_context(replacement.open(plan.output))
    sinks: list[MatchSink] = [PgnWriter(output, several_files=len(plan.inputs) > 1)]
    if plan.report is not None:
        report = stack.enter_context(replacement.open(plan.report))
        sinks.append(ReportWriter(report))
    if plan.html is not None:
        sinks.append(open_html(stack, replacement, plan, loaded, options))
    return sinks


def open_html(
    stack: contextlib.ExitStack,
    replacement: Replacement,
    plan: RunPlan,
    loaded: Query,
    options: ScanOptions,
) -> MatchSink:
    """The HTML report's sink; the page is closed before its file is (a callback
    registered after the file's context runs first)."""
    from cqllegacy.present.html_report import GameEntry, HtmlReport

    assert plan.html is not None
    handle = stack.enter_context(replacement.open(plan.html))
    page = HtmlReport(handle, GameEntry(loaded.core, variations=options.variations))
    name = loaded.path.name if loaded.path is not None else "script"
    files = ", ".join(item.name for item in plan.inputs)
    page.start(f"cqllegacy: {name}", f"{name} on {files}")
    stack.callback(page.finish)
    return page


def _why_not(
    args: argparse.Namespace, loaded: Query, plan: RunPlan, summary: Summary, options: ScanOptions
) -> str:
    """``--why N`` for a game that did not match, or is not there: a scan that read the
    whole input knows without reading it again."""
    if args.why > summary.games and summary.stopped is None and not summary.damaged_files:
        return f"game {args.why} is not in the input (it holds {plural(summary.games, 'game')})"
    numbers = "the script's game numbers"
    if args.gamenumber is not None:
        first, last = args.gamenumber
        numbers = f"--gamenumber {first}" + (f" {last}" if last != first else "")
    return why_not(loaded.core, plan.inputs, args.why, options, numbers)


def _notes(summary: Summary, gamenumber: tuple[int, int | None] | None) -> list[str]:
    """What the summary's counts would leave unsaid: an input without a game, a range
    of game numbers past its end."""
    if summary.damaged_files:
        return []
    if summary.games == 0:
        return ["note: the input holds no game"]
    if gamenumber is not None and summary.games < gamenumber[0]:
        return [
            f"note: the input holds {plural(summary.games, 'game')}: none is numbered "
            f"{gamenumber[0]} or more, so no game was examined"
        ]
    return []


def summary_line(
    summary: Summary, plan: RunPlan, gamenumber: tuple[int, int | None] | None = None
) -> str:
    """The summary: what was read and examined (of a range of game numbers: how many of
    them), matched and skipped, and the files written."""
    text = summary.line()
    if gamenumber is not None:
        first, last = gamenumber
        end = summary.games if last is None else min(summary.games, last)
        examined = max(0, end - first + 1)
        asked = f"game {first}" if last == first else f"games {first}-{last or 'on'}"
        read = f"read {plural(summary.games, 'game')}"
        text = text.replace(read, f"{read}, examined {examined} ({asked})", 1)
    names = (plan.output, plan.report, plan.html)
    if summary.indexed:
        files = len(plan.inputs)
        of = f" of {summary.indexed} of {files} inputs" if files > 1 else ""
        text += f"; used the index{of}"
    written = [name for name in names if name not in (None, STDOUT)]
    if written:
        text += "; wrote " + listing([display_path(str(name)) for name in written])
    return text


def make_engine(args: argparse.Namespace, compiled: CompiledQueryLike) -> Engine | None:
    """Where the games are scanned: here (None), local processes or a Dask cluster.

    Without ``--jobs``, a query decided by the tags alone scans here: its games cost
    little more than splitting the file, which worker processes would repeat.
    """
    if args.engine == "dask":
        try:
            from cqllegacy.runner.parallel import DaskEngine

            return DaskEngine(args.scheduler, quiet=args.quiet)
        except ImportError as exc:
            raise UsageError("--engine dask needs Dask: pip install 'cqllegacy[dask]'") from exc
        except OSError as exc:
            raise UsageError(f"cannot reach the Dask scheduler {args.scheduler}: {exc}") from exc
        except Exception as exc:
            # Dask's own failures to start (a local cluster whose worker processes were
            # killed while starting: "Nanny failed to start"), said in one line.
            where = "a local Dask cluster"
            if args.scheduler:
                where = f"the Dask scheduler {args.scheduler}"
            raise IncompleteInput(
                f"cannot start {where} ({type(exc).__name__}: {exc}); no game was examined"
            ) from exc
    if args.scheduler:
        raise UsageError("--scheduler goes with --engine dask")
    jobs = args.jobs or (1 if decided_by_tags(compiled) else default_jobs())
    if jobs == 1:
        return None
    from cqllegacy.runner.parallel import ProcessEngine

    return ProcessEngine(jobs, small_inputs=False, by_default=not args.jobs)


def _carry_out(
    args: argparse.Namespace,
    loaded: Query,
    compiled: CompiledQueryLike,
    options: ScanOptions,
) -> tuple[Summary, RunPlan, list[str]]:
    err = sys.stderr
    with contextlib.ExitStack() as stack:
        plan = plan_run(
            args, loaded, lambda: stack.enter_context(sample_games()),
            lambda: stack.enter_context(standard_input_games()),
        )  # fmt: skip
        check_plan(plan, loaded.path)
        if plan.sample and not args.quiet:
            print(
                f"no input given: running on the bundled sample games ({SAMPLE_DESCRIPTION})",
                file=err,
            )
        sinks = open_sinks(stack, plan, loaded, options)
        why: list[str] = []
        if args.why is not None:
            sinks.append(WhySink(WhyText(loaded.core, args.why, options), why))
        if args.limit is not None:
            sinks.append(MatchLimit(args.limit))  # last: every other sink has the game
        progress = make_progress(err, quiet=args.quiet, total_bytes=total_size(plan.inputs))
        engine = make_engine(args, compiled)
        summary = loaded.scan(
            plan.inputs, options=options, sinks=sinks, progress=progress, engine=engine,
            index=index_choice(args),
        )  # fmt: skip
    return summary, plan, why


@attrs.frozen(repr=False)
class WhyText(Record):
    """``--why N``: the explanation of game N, empty for the other games (picklable,
    so that workers make it)."""

    query: CoreQuery
    ordinal: int
    options: ScanOptions

    def __call__(self, found: FoundGame) -> str:
        if found.ordinal != self.ordinal:
            return ""
        return Match(found, self.query, self.options).why()


class WhySink:
    """Keeps the ``--why`` text of the game asked about."""

    def __init__(self, renderer: WhyText, texts: list[str]) -> None:
        self.renderer = renderer
        self.texts = texts

    def __call__(self, found: FoundGame) -> None:
        self.write(self.renderer(found))

    def write(self, text: str) -> None:
        if text:
            self.texts.append(text)


def _ordinal(found: FoundGame) -> str:
    return str(found.ordinal)


class MatchLimit:
    """``--limit N``: ends the scan once the N-th matching game has gone to the sinks
    before this one (it is the last sink); a worker renders a game as its ordinal."""

    renderer = staticmethod(_ordinal)

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.seen = 0

    def __call__(self, found: FoundGame) -> None:
        self.write(_ordinal(found))

    def write(self, text: str) -> None:
        self.seen += 1
        if self.seen >= self.limit:
            reason = f"stopped at the limit of {self.limit} matching game(s)"
            raise StopScan(reason, games=int(text), matched=self.seen)


def restricted(loaded: Query, games: tuple[int, int] | None) -> Query:
    """``loaded`` examining only the games numbered in ``games`` (and in its own
    ``gamenumber``): the same verdict for each of them, no match elsewhere."""
    if games is None:
        return loaded
    header = loaded.core.header
    first, last = games
    if header.gamenumber is not None:
        own_first, own_last = header.gamenumber
        first = max(first, own_first)
        last = last if own_last is None else min(last, own_last)
    header = attrs.evolve(header, gamenumber=(first, last))
    core = attrs.evolve(loaded.core, header=header)
    return Query(loaded.text, loaded.language, core, loaded.path, loaded.legacy)


def run(args: argparse.Namespace) -> int:
    """The ``run`` command.  A bad script raises :class:`~cqllegacy.errors.ScriptError`,
    a run that cannot be carried out :class:`~cqllegacy.errors.UsageError`."""
    err = sys.stderr
    loaded = restricted(load(Path(args.script)), args.gamenumber)
    compiled = loaded.compiled
    games_begin()  # the script is read and compiled: the collector as it was for the games
    options = ScanOptions(skip_initial=args.skip_initial, variations=args.variations)
    try:
        summary, plan, why = _carry_out(args, loaded, compiled, options)
    except BrokenPipeError:
        raise
    except OSError as exc:
        # The scan reports unreadable inputs itself, so what arrives here failed while
        # writing (a full disk …); the temporary files are already gone.
        raise WriteError(f"writing the results failed: {exc.strerror or exc}") from exc
    if args.why is not None:
        text = "\n".join(why) or _why_not(args, loaded, plan, summary, options)
        print(text, file=err if plan.output == STDOUT else sys.stdout)
    if not args.quiet:
        for note in _notes(summary, loaded.core.header.gamenumber):
            print(note, file=err)
        print(summary_line(summary, plan, loaded.core.header.gamenumber), file=err)
    return summary.exit_status
