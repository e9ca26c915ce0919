"""``cqllegacy run``: its command line (the run itself is :mod:`cqllegacy.cli.running`)."""

from __future__ import annotations

import argparse

from cqllegacy.cli.options import SAMPLE_DESCRIPTION, add_index_options, default_jobs, positive

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
        help='PGN file(s) to read instead of the script\'s ("-": standard input)',
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
        type=positive,
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
        type=positive,
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
        type=positive,
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
    # isdecimal, not isdigit: int() refuses "²", which isdigit accepts.
    count = next((k for k, word in enumerate(numbers) if not word.isdecimal()), len(numbers))
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
    scripts = [name for name in inputs if name.lower().endswith(".cql")]
    if args.script is None and len(scripts) == 1:
        # "run -i script.cql games.pgn": -i took the script among its values.
        inputs.remove(scripts[0])
        args.script = scripts[0]
        args.inputs = inputs or None
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


def run(args: argparse.Namespace) -> int:
    """The ``run`` command (see :func:`cqllegacy.cli.running.run`)."""
    # Imported here: the run (python-chess, the readers, the evaluator) is start-up that
    # `--help` and the other commands, which all build this parser, need not pay.
    from cqllegacy.cli import running

    return running.run(args)
