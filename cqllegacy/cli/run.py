"""``cqllegacy run``: run a script on PGN files, write the matching games."""

from __future__ import annotations

import argparse
import contextlib
import importlib.resources
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from cqllegacy.api import Match, Query, load
from cqllegacy.core.tree import Query as CoreQuery
from cqllegacy.errors import UsageError, WriteError
from cqllegacy.runner.compiled import CompiledQueryLike, decided_by_tags
from cqllegacy.runner.output import STDOUT, PgnWriter, check_destinations, open_destination
from cqllegacy.runner.progress import make_progress
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import FoundGame, InputFile, MatchSink, ScanOptions, Summary
from cqllegacy.runner.scanner import total_size

if TYPE_CHECKING:
    from cqllegacy.runner.parallel import Engine

SAMPLE_GAMES = "wcc.pgn.bz2"
SAMPLE_DESCRIPTION = "685 World Championship games"

DESCRIPTION = """\
Run SCRIPT -- a legacy CQL 3.x script "(match ... (position ...))" or a CQL 6 script
"cql(...) ..." -- on PGN games and write the games that match, as they were written
in the input (comments and layout kept).  Each written game starts with the comment
{Original game: N}, N being its number in the whole input (with several input files:
{Original game: N (FILE, game M)}), and has {MATCH} after the move that produced each
marked position ({MATCH} before the first move for the start position), after any
comment already there.
"""

EPILOG = f"""\
inputs: -i replaces the script's :pgn / input files.  Paths written in a script are
  relative to the script's folder; paths on the command line to the current folder.
  With no input anywhere, the bundled sample games ({SAMPLE_DESCRIPTION})
  are used, and standard error says so.  Plain, .gz, .bz2 and .xz files are read (the
  compression is recognised from the file's first bytes, whatever its name says), in
  UTF-8 or Latin-1 (decided game by game; a byte that is not UTF-8 is read as Latin-1),
  or UTF-16/UTF-32 with a byte-order mark, with any line ends.
output: -o replaces the script's :output / output file; "-o -" writes to standard
  output.  With neither, the output is SCRIPT-STEM-out.pgn in the current folder (as
  CQL 5 did).  Output and report are written under a temporary name and renamed when
  the run ends (an interrupted run leaves the old files alone); writing either over an
  input file or over the script is refused.  A symbolic link is followed (the file it
  leads to is replaced); a device, a FIFO or /dev/stdout is written to, not replaced.
  A completed run always writes the output, empty when nothing matched.  PGN is written in UTF-8.
html: --html REPORT.html writes one self-contained page (no network access needed):
  each matching game with White, Black, event, year, number and file, a diagram of
  every marked position (the squares that made it match highlighted, the move that
  led there as an arrow) and the moves with the marked ones highlighted; a filter box
  narrows the list by player or event.
why: --why N prints, for game N of the input, which list matched at which positions
  and, for a list with transforms, which transformed list (as its designators).
report: --report FILE.jsonl writes one JSON object per matching game: "ordinal" (in
  the whole input), "file", "file_ordinal", "white", "black" and "lists", one entry
  per top-level list with "count" and "plies" of the positions where it matched --
  main line: an integer, 0 = start position; inside a variation: a string such as
  "24.1/27" (the first alternative to the 24th half-move, then on to ply 27).
bad games: a game python-chess cannot read (illegal move, malformed tag, bad FEN,
  unsupported variant, unterminated comment ...) is reported on standard error with
  its file, line, number and reason, and skipped; every other game is examined.
progress: on a terminal, standard error shows a progress bar (games, games/s,
  matches, ETA); a one-line summary (games read, matched, skipped, seconds) ends the
  run.  -q turns both off.
exit status: 0 when the run completed, whether or not any game matched;
  2 for a bad script or a bad command line (missing input, output over an input ...);
  3 when an input was not read to its end (damaged or truncated compressed data: the
  output has the games read before the damage); 4 when writing failed (full disk ...);
  130/143/129 when interrupted by SIGINT/SIGTERM/SIGHUP and 141 for a broken pipe on
  standard output (then no output or report is replaced).
"""


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every platform has it
        return os.cpu_count() or 1


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a script on PGN files and write the matching games",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("script", metavar="SCRIPT", help="the script file (legacy or CQL 6)")
    parser.add_argument(
        "-i",
        "--input",
        dest="inputs",
        metavar="PGN",
        nargs="+",
        action="extend",
        help="PGN file(s) to read instead of the script's",
    )
    parser.add_argument(
        "-o", "--output", metavar="OUT.pgn", help='matching games go here ("-": standard output)'
    )
    parser.add_argument(
        "--report", metavar="FILE.jsonl", help='JSON Lines report ("-": standard output)'
    )
    parser.add_argument(
        "--html", metavar="REPORT.html", help="a self-contained HTML page with diagrams"
    )
    parser.add_argument(
        "--why",
        type=_positive,
        metavar="N",
        help="print why game N (its number in the input) matched",
    )
    parser.add_argument(
        "--variations",
        action="store_true",
        help="also examine positions inside variations, for every list (decision L14)",
    )
    parser.add_argument(
        "--skip-initial",
        action="store_true",
        help="do not examine the start position of a game, as CQL 3.0 (decision L1)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=_positive,
        default=None,
        metavar="N",
        help=f"processes that scan at once (default: every core, {default_jobs()} here, or "
        "one for a script that reads only the tags); the output is the same as with --jobs 1",
    )
    parser.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local: processes on this machine (--jobs); dask: a Dask cluster "
        "(needs the optional extra cqllegacy[dask])",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: the scheduler, e.g. tcp://host:8786 (default: a cluster "
        "of local processes started for the run)",
    )
    add_index_options(parser)
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar, no notes, no summary (warnings about bad games remain)",
    )
    parser.set_defaults(func=run)


def add_index_options(parser: argparse.ArgumentParser) -> None:
    """``--index PATH`` and ``--no-index`` (see ``cqllegacy index --help``)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--index",
        metavar="PATH",
        help="the index to use (made by `cqllegacy index`): a file for one input, else a "
        "folder; default: INPUT.cqlidx beside each input, used when it is fresh",
    )
    group.add_argument(
        "--no-index", action="store_true", help="scan every game, even where an index is"
    )


def index_choice(args: argparse.Namespace) -> bool | str:
    """The ``index`` argument of :meth:`cqllegacy.api.Query.scan` the options ask for."""
    if getattr(args, "no_index", False):
        return False
    return getattr(args, "index", None) or True


@attrs.frozen
class RunPlan:
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


def plan_run(args: argparse.Namespace, loaded: Query, sample: Path) -> RunPlan:
    """Inputs and destinations of the run: the command line first, then the script."""
    header = loaded.query.header
    if args.inputs:
        inputs = tuple(InputFile.of(name) for name in args.inputs)
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
        return RunPlan((InputFile(sample, str(sample)),), output, args.report, True, html)
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
def sample_games() -> Iterator[Path]:
    """The bundled sample games as a file on disk."""
    resource = importlib.resources.files("cqllegacy").joinpath("data", SAMPLE_GAMES)
    with importlib.resources.as_file(resource) as path:
        yield path


def open_sinks(
    stack: contextlib.ExitStack, plan: RunPlan, loaded: Query, options: ScanOptions
) -> list[MatchSink]:
    output = stack.enter_context(open_destination(plan.output))
    sinks: list[MatchSink] = [PgnWriter(output, several_files=len(plan.inputs) > 1)]
    if plan.report is not None:
        report = stack.enter_context(open_destination(plan.report))
        sinks.append(ReportWriter(report))
    if plan.html is not None:
        sinks.append(open_html(stack, plan, loaded, options))
    return sinks


def open_html(
    stack: contextlib.ExitStack, plan: RunPlan, loaded: Query, options: ScanOptions
) -> MatchSink:
    """The HTML report's sink; the page is closed before its file is (a callback
    registered after the file's context runs first)."""
    from cqllegacy.present.html_report import GameEntry, HtmlReport

    assert plan.html is not None
    handle = stack.enter_context(open_destination(plan.html))
    page = HtmlReport(handle, GameEntry(loaded.core, variations=options.variations))
    name = loaded.path.name if loaded.path is not None else "script"
    files = ", ".join(item.name for item in plan.inputs)
    page.start(f"cqllegacy: {name}", f"{name} on {files}")
    stack.callback(page.finish)
    return page


def summary_line(summary: Summary, plan: RunPlan) -> str:
    text = summary.line()
    names = (plan.output, plan.report, plan.html)
    written = [name for name in names if name not in (None, STDOUT)]
    if written:
        text += "; wrote " + " and ".join(str(name) for name in written)
    return text


def make_engine(args: argparse.Namespace, compiled: CompiledQueryLike) -> Engine | None:
    """Where the games are scanned: here (None), local processes or a Dask cluster.

    Without ``--jobs``, a query decided by the tags alone scans here: its games cost
    little more than splitting the file, which worker processes would repeat.
    """
    if args.engine == "dask":
        try:
            from cqllegacy.runner.parallel import DaskEngine

            return DaskEngine(args.scheduler)
        except ImportError as exc:
            raise UsageError("--engine dask needs Dask: pip install 'cqllegacy[dask]'") from exc
        except OSError as exc:
            raise UsageError(f"cannot reach the Dask scheduler {args.scheduler}: {exc}") from exc
    if args.scheduler:
        raise UsageError("--scheduler goes with --engine dask")
    jobs = args.jobs or (1 if decided_by_tags(compiled) else default_jobs())
    if jobs == 1:
        return None
    from cqllegacy.runner.parallel import ProcessEngine

    return ProcessEngine(jobs, small_inputs=False)


def _carry_out(
    args: argparse.Namespace,
    loaded: Query,
    compiled: CompiledQueryLike,
    options: ScanOptions,
) -> tuple[Summary, RunPlan, list[str]]:
    err = sys.stderr
    with contextlib.ExitStack() as stack:
        plan = plan_run(args, loaded, stack.enter_context(sample_games()))
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
        progress = make_progress(err, quiet=args.quiet, total_bytes=total_size(plan.inputs))
        engine = make_engine(args, compiled)
        summary = loaded.scan(
            plan.inputs, options=options, sinks=sinks, progress=progress, engine=engine,
            index=index_choice(args),
        )  # fmt: skip
    return summary, plan, why


@attrs.frozen
class WhyText:
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


def run(args: argparse.Namespace) -> int:
    """The ``run`` command.  A bad script raises :class:`~cqllegacy.errors.ScriptError`,
    a run that cannot be carried out :class:`~cqllegacy.errors.UsageError`."""
    err = sys.stderr
    loaded = load(Path(args.script))
    compiled = loaded.compiled
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
        text = "\n".join(why) or f"game {args.why} did not match (or is not in the input)"
        print(text, file=err if plan.output == STDOUT else sys.stdout)
    if not args.quiet:
        print(summary_line(summary, plan), file=err)
    return summary.exit_status
