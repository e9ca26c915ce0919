"""The ``cqllegacy`` command: one sub-command per module in this package.

Each sub-command module has ``register(subparsers)`` that adds its parser and sets
``func`` to a callable ``(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from cqllegacy.errors import CqlLegacyError

# Order here is the order of --help.
SUBCOMMANDS = ("run", "explain", "translate", "check", "migrate", "fixtures")

DESCRIPTION = """\
Run legacy CQL 3.x scripts -- the parenthesised (match ... (position ...)) language
many people call "CQL 5 scripts" -- on PGN files, and translate them into CQL 6.1.
"""

EPILOG = """\
examples:
  cqllegacy run examples/knight-fork.cql                 # on the bundled sample games
  cqllegacy run old.cql -i games.pgn.bz2 -o found.pgn --report found.jsonl
  cqllegacy translate old.cql -o new.cql                 # CQL 6.1 text, exact or refused
  cqllegacy explain old.cql --html old.html              # what it means, its transforms
  cqllegacy check scripts/*.cql                          # validate and print canonically

exit status: 0 success (for run: the scan completed, whether or not a game matched);
1 something was refused (translate, fixtures make), refused, approximated or unreadable
(migrate), or differs (fixtures check); 2 bad script or bad command line.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cqllegacy",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from cqllegacy import __version__

    parser.add_argument("--version", action="version", version=f"cqllegacy {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"cqllegacy.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except CqlLegacyError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
