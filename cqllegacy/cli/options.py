"""Options and defaults shared by ``run`` and ``index`` (light: every command's
parser imports this, so it imports nothing of the run itself)."""

from __future__ import annotations

import argparse
import os

SAMPLE_DESCRIPTION = "685 World Championship games"


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every platform has it
        return os.cpu_count() or 1


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def add_index_options(parser: argparse.ArgumentParser) -> None:
    """``--index PATH`` and ``--no-index`` (see ``cqllegacy index --help``)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--index",
        metavar="PATH",
        help="the index to use (made by `cqllegacy index`): a file for one input, else a "
        "folder; default: INPUT.cqlidx beside each input, used when it is fresh and can "
        "repay its cost (a small file of a query only tags narrow is scanned)",
    )
    group.add_argument(
        "--no-index", action="store_true", help="scan every game, even where an index is"
    )


def index_choice(args: argparse.Namespace) -> bool | str:
    """The ``index`` argument of :meth:`cqllegacy.api.Query.scan` the options ask for."""
    if getattr(args, "no_index", False):
        return False
    return getattr(args, "index", None) or True
