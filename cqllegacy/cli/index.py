"""``cqllegacy index``: build the position index of PGN files, for ``run`` to use."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cqllegacy.cli.options import default_jobs, positive
from cqllegacy.cli.startup import games_begin
from cqllegacy.errors import IncompleteInput, UsageError, WriteError, display_path

DESCRIPTION = """\
Index PGN files, so that later runs on them read only the games that may match: for
each game where it lies in the file (its text, for a compressed file), its tags and a
summary (the squares each piece type ever stands on, the checks and mates), and for
each position of its main line the placement, side to move, castling and en passant
rights, check, mate and stalemate and the move played.
`cqllegacy run` finds the index beside its input (GAMES.pgn -> GAMES.pgn.cqlidx) and
uses it while it is fresh; its output is the same as without it.
"""

EPILOG = """\
variations: positions inside variations are not indexed; a run that examines them
  (--variations, or a script that looks into variations) is narrowed by its tags and
  game numbers only.
freshness: the index records the file's SHA-256 and status (size, modification and
  status change times, inode, device), its format and the cqllegacy version.  A run
  hashes the file again only when its status differs from the one recorded (or was
  recorded within 2 s of a change), and scans (saying so in one line) when the file
  changed, the index is of another file or version, or damaged.
atomic: the index is written under a temporary name and renamed when complete; an
  interrupted or failed build leaves the previous index as it was.
workers: a worker process of --jobs that dies (killed, out of memory) is replaced and
  its games are indexed again (said in one line); if it dies again on the same games,
  the index holds the games before them, and runs scan the file (status 3).
exit status: 0 indexed; 2 bad command line or unreadable input; 3 an input was not read
  to its end, or a worker died twice on the same games (its index records that, and runs
  scan it); 4 writing the index failed.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "index",
        help="index PGN files so that runs on them are faster",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("inputs", metavar="PGN", nargs="+", help="the PGN file(s) to index")
    parser.add_argument(
        "-o",
        "--output",
        metavar="INDEX",
        help="the index file (one input) or folder (several inputs); default: beside each "
        "input, its name with .cqlidx",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=positive,
        default=None,
        metavar="N",
        help=f"processes that replay games at once (default: every core, {default_jobs()} here)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cqllegacy.indexing.build import build
    from cqllegacy.indexing.store import index_destination
    from cqllegacy.runner.progress import make_progress

    sources = [Path(name) for name in args.inputs]
    for source in sources:
        if not source.is_file():
            raise UsageError(f"input {source} is not a file")
        if not os.access(source, os.R_OK):
            raise UsageError(f"input {source} cannot be read (permission denied)")
    several = len(sources) > 1
    if several and args.output is not None and not Path(args.output).is_dir():
        raise UsageError("with several inputs, -o names an existing folder")
    targets = [index_destination(source, args.output, several) for source in sources]
    for source, target in zip(sources, targets, strict=True):
        if target.resolve() == source.resolve():
            raise UsageError(f"the index of {source} would replace it")
        _check_writable(target, beside=args.output is None)
    jobs = args.jobs or default_jobs()
    games_begin()
    status = 0
    for source, target in zip(sources, targets, strict=True):
        progress = make_progress(sys.stderr, quiet=args.quiet, total_bytes=source.stat().st_size)
        try:
            result = build(source, target, jobs=jobs, progress=progress)
        except OSError as exc:
            raise WriteError(
                f"cannot write the index {target}: {exc.strerror or exc}; "
                "the previous index (if any) is unchanged"
            ) from exc
        finally:
            progress.close()
        if result.damaged:
            print(f"warning: {source}: {result.damaged}; runs on it will scan", file=sys.stderr)
            status = IncompleteInput.exit_status
        if not args.quiet:
            print(
                f"indexed {source}: {result.games} games, {result.positions} positions; "
                f"wrote {target} ({_size(target)})",
                file=sys.stderr,
            )
    return status


def _check_writable(target: Path, *, beside: bool) -> None:
    """Refuse, with what to do instead, an index in a folder this user cannot write (the
    index is written there under a temporary name, then renamed)."""
    folder = target.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        where = "beside its input, " if beside else ""
        raise UsageError(
            f"cannot write the index {display_path(str(target))}: {where}in the folder "
            f"{display_path(str(folder))}, which is not writable (permission denied); "
            "write it elsewhere with -o INDEX, and run with --index INDEX"
        )


def _size(path: Path) -> str:
    size = path.stat().st_size
    return f"{size / 1e6:.1f} MB" if size >= 1e5 else f"{size} bytes"
