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

from cqllegacy.api import Match, Query, load, why_not
from cqllegacy.core.tree import Query as CoreQuery
from cqllegacy.errors import UsageError, WriteError, display_path, listing
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
SAMPLE_DESCRIPTION = "685 World Championship games"

DESCRIPTION = """\
Run SCRIPT -- a legacy CQL 3.x script "(match ... (position ...))" or a CQL 6 script
"cql(...) ..." -- on PGN games and write the games that match, as they were written
in the input (comments and layout kept).  Each written game starts with the comment
{ Original game: N }, N being its number in the whole input (with several input files:
{ Original game: N (FILE, game M) }), and has { MATCH } after the move that produced each
marked position ({ MATCH } before the first move for the start position), after any
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
  led there as an arrow, the variation it is in) and the moves with their variations,
  the marked ones highlighted; click a move (then left/right arrow keys) to see the
  board after it; a filter box narrows the list by player or event.
why: --why N prints, for game N of the input, which list matched at which positions
  and, for a list with transforms, which transformed list (as its designators); for
  a game that did not match, per list, the position where most of its parts held
  and the parts that failed there.
report: --report FILE.jsonl writes one JSON object per matching game: "ordinal" (in
  the whole input), "file", "file_ordinal", "white", "black" and "lists", one entry
  per top-level list with "count" and "plies" of the positions where it matched --
  main line: an integer, 0 = start position; inside a variation: a string such as
  "24.1/27" (the first alternative to the 24th half-move, then on to ply 27).
bad games: a game python-chess cannot read (illegal move, malformed tag, bad FEN,
  unsupported variant, unterminated comment ...) is reported on standard error with
  its file, line, number and reason, and skipped; every other game is examined.  So is a
  game over a limit: a line over 16 MB, a text over 64 MB, variations nested over 200
  deep (CQLLEGACY_MAX_LINE_BYTES, CQLLEGACY_MAX_GAME_BYTES, CQLLEGACY_MAX_VARIATION_DEPTH).
progress: on a terminal, standard error shows a progress bar (games, games/s,
  matches, ETA); a one-line summary (games read, matched, skipped, seconds) ends the
  run.  -q turns both off.
exit status: 0 when the run completed, whether or not any game matched;
  2 for a bad script or a bad command line (missing input, output over an input ...);
  3 when an input was not read to its end (damaged or truncated compressed data, a file
  changed or removed during the run, a worker process killed twice on the same games:
  the output has the games read); 4 when writing failed (full disk ...: then no file is
  replaced, output, report and page are renamed into place together or not at all);
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
        usage="%(prog)s [OPTION...] SCRIPT [OPTION...]\n"
        "       (e.g. %(prog)s -i a.pgn -i b.pgn -o out.pgn script.cql)",
        help="run a script on PGN files and write the matching games",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # SCRIPT may come first or last, as in CQL ("cql -input h.pgn foo.cql"): when -i or
    # --gamenumber took it among their values, settle() gives it back.
    parser.add_argument(
        "script", metavar="SCRIPT", nargs="?", help="the script file (legacy or CQL 6)"
    )
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
        "-g",
        "--gamenumber",
        nargs="+",
        metavar="N",
        help="examine only games A to B of the input (A alone: game A; within the script's "
        "own gamenumber range), as CQL's -gamenumber, and stop reading after B; the output "
        "is that of the whole run restricted to those games",
    )
    parser.add_argument(
        "--limit",
        type=_positive,
        metavar="N",
        help="stop after N matching games (as CQLi's --limit); the output is the first N "
        "games of the whole run's output",
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
        help="print why game N (its number in the input) matched, or how close it came",
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
    parser.set_defaults(func=run, settle=settle)


def settle(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Give SCRIPT back from the options that took it among their values, read the
    game-number range; a command line that still lacks SCRIPT ends with ``parser.error``.

    CQL reads ``cql -input h.pgn foo.cql`` and ``cql -gamenumber 1 100 foo.cql``: the
    script is the last word.  ``-i``'s list takes every word up to the next option, and
    ``--gamenumber`` one or two numbers, so a script written after them lands there.
    """
    numbers = args.gamenumber or []
    count = next((k for k, word in enumerate(numbers) if not word.isdigit()), len(numbers))
    count = min(count, 2)
    spare = numbers[count:]
    if args.gamenumber is not None:
        if count == 0:
            parser.error("--gamenumber takes one or two game numbers: A, or A B")
        args.gamenumber = _game_range(numbers[:count], parser)
    if args.script is None and len(spare) == 1:
        args.script = spare.pop()
    if spare:
        parser.error("unrecognized arguments: " + " ".join(spare))
    inputs = args.inputs or []
    if args.script is None and len(inputs) > 1 and not _looks_like_games(inputs[-1]):
        args.script = inputs.pop()
    if args.script is None:
        parser.error("the following arguments are required: SCRIPT")


def _game_range(numbers: list[str], parser: argparse.ArgumentParser) -> tuple[int, int]:
    first, last = int(numbers[0]), int(numbers[-1])
    if first < 1 or last < first:
        parser.error(f"--gamenumber {' '.join(numbers)}: expected 1 <= A <= B")
    return first, last


def _looks_like_games(name: str) -> bool:
    """A PGN file's name, which is never the script (``-i a.pgn b.pgn`` lacks one)."""
    return name.lower().endswith((".pgn", ".gz", ".bz2", ".xz"))


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


def summary_line(summary: Summary, plan: RunPlan) -> str:
    text = summary.line()
    names = (plan.output, plan.report, plan.html)
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
        if args.limit is not None:
            sinks.append(MatchLimit(args.limit))  # last: every other sink has the game
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
        text = "\n".join(why) or why_not(loaded.core, plan.inputs, args.why, options)
        print(text, file=err if plan.output == STDOUT else sys.stdout)
    if not args.quiet:
        print(summary_line(summary, plan), file=err)
    return summary.exit_status
