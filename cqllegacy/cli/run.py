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

from cqllegacy.errors import UsageError, WriteError
from cqllegacy.runner.compiled import CompiledQueryLike, decided_by_tags
from cqllegacy.runner.output import STDOUT, PgnWriter, check_destinations, open_destination
from cqllegacy.runner.progress import make_progress
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import InputFile, MatchSink, ScanOptions, Summary
from cqllegacy.runner.scanner import scan, total_size
from cqllegacy.runner.scripts import LoadedScript, load_query

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
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar, no notes, no summary (warnings about bad games remain)",
    )
    parser.set_defaults(func=run)


@attrs.frozen
class RunPlan:
    """Where a run reads and writes, resolved from the command line and the script."""

    inputs: tuple[InputFile, ...]
    output: str
    report: str | None
    sample: bool


def default_output(script: Path) -> str:
    """``<script stem>-out.pgn`` in the current folder.

    >>> default_output(Path("scripts/mates.cql"))
    'mates-out.pgn'
    """
    return f"{script.stem}-out.pgn"


def plan_run(args: argparse.Namespace, loaded: LoadedScript, sample: Path) -> RunPlan:
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
        output = default_output(loaded.path)
    if not inputs:
        return RunPlan((InputFile(sample, str(sample)),), output, args.report, sample=True)
    return RunPlan(inputs, output, args.report, sample=False)


def check_plan(plan: RunPlan, script: Path) -> None:
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
    protected = [("input", item.path) for item in plan.inputs]
    protected.append(("script", script))
    check_destinations(destinations, protected)


def compile_for_run(loaded: LoadedScript) -> CompiledQueryLike:
    """The evaluator's compiled query (imported here so ``--help`` does not load it)."""
    from cqllegacy.evaluator.evaluate import compile_query

    try:
        return compile_query(loaded.query)
    except ValueError as exc:
        # The evaluator refuses a tree it cannot run; the user gets its reason, not a
        # traceback.
        raise UsageError(f"cannot run {loaded.path}: {exc}") from exc


@contextlib.contextmanager
def sample_games() -> Iterator[Path]:
    """The bundled sample games as a file on disk."""
    resource = importlib.resources.files("cqllegacy").joinpath("data", SAMPLE_GAMES)
    with importlib.resources.as_file(resource) as path:
        yield path


def open_sinks(stack: contextlib.ExitStack, plan: RunPlan) -> list[MatchSink]:
    output = stack.enter_context(open_destination(plan.output))
    sinks: list[MatchSink] = [PgnWriter(output, several_files=len(plan.inputs) > 1)]
    if plan.report is not None:
        report = stack.enter_context(open_destination(plan.report))
        sinks.append(ReportWriter(report))
    return sinks


def summary_line(summary: Summary, plan: RunPlan) -> str:
    text = summary.line()
    written = [name for name in (plan.output, plan.report) if name not in (None, STDOUT)]
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
    loaded: LoadedScript,
    compiled: CompiledQueryLike,
    options: ScanOptions,
) -> tuple[Summary, RunPlan]:
    err = sys.stderr
    with contextlib.ExitStack() as stack:
        plan = plan_run(args, loaded, stack.enter_context(sample_games()))
        check_plan(plan, loaded.path)
        if plan.sample and not args.quiet:
            print(
                f"no input given: running on the bundled sample games ({SAMPLE_DESCRIPTION})",
                file=err,
            )
        sinks = open_sinks(stack, plan)
        progress = make_progress(err, quiet=args.quiet, total_bytes=total_size(plan.inputs))
        engine = make_engine(args, compiled)
        summary = scan(
            compiled, plan.inputs, options=options, sinks=sinks, progress=progress, engine=engine
        )
    return summary, plan


def run(args: argparse.Namespace) -> int:
    """The ``run`` command.  A bad script raises :class:`~cqllegacy.errors.ScriptError`,
    a run that cannot be carried out :class:`~cqllegacy.errors.UsageError`."""
    err = sys.stderr
    loaded = load_query(args.script)
    compiled = compile_for_run(loaded)
    options = ScanOptions(skip_initial=args.skip_initial, variations=args.variations)
    try:
        summary, plan = _carry_out(args, loaded, compiled, options)
    except BrokenPipeError:
        raise
    except OSError as exc:
        # The scan reports unreadable inputs itself, so what arrives here failed while
        # writing (a full disk …); the temporary files are already gone.
        raise WriteError(f"writing the results failed: {exc.strerror or exc}") from exc
    if not args.quiet:
        print(summary_line(summary, plan), file=err)
    return summary.exit_status
