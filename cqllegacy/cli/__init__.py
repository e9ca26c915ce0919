"""The ``cqllegacy`` command: one sub-command per module in this package.

Each sub-command module has ``register(subparsers)`` that adds its parser and sets
``func`` to a callable ``(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from cqllegacy.cli.startup import collector_for_start_up
from cqllegacy.errors import BROKEN_PIPE, CqlLegacyError, Interrupted, one_line, printable
from cqllegacy.signals import interrupting_signals

# Order here is the order of --help.
SUBCOMMANDS = ("run", "index", "explain", "translate", "check", "migrate", "fixtures")

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
1 something was refused (translate, fixtures make, check), refused, approximated or
unreadable (migrate), or differs (fixtures check); 2 bad script or bad command line;
3 an input was not read to its end (damaged compressed data); 4 writing failed (full
disk ...); 130, 143, 129 interrupted by SIGINT, SIGTERM, SIGHUP; 141 standard output
closed early (broken pipe).  An interrupted command removes its temporary files and
leaves the previous outputs as they were.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cqllegacy",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from cqllegacy.version import __version__

    parser.add_argument("--version", action="version", version=f"cqllegacy {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"cqllegacy.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command; returns its exit status.  Every way out is a status and at most a few
    lines on stderr, never a traceback: see the statuses in :mod:`cqllegacy.errors`."""
    with interrupting_signals(), collector_for_start_up(whole_process=argv is None):
        try:
            return _command(argv)
        except CqlLegacyError as exc:
            print(printable(exc.render(), limit=None), file=sys.stderr)
            return exc.exit_status
        except KeyboardInterrupt as exc:  # Interrupted, or Ctrl-C before its handler
            interrupted = exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT)
            print(_with_notes(interrupted.describe(), exc), file=sys.stderr)
            return interrupted.exit_status
        except BrokenPipeError as exc:
            _silence_stdout()
            message = "standard output was closed before everything was written to it"
            print(_with_notes(f"error: {message} (broken pipe)", exc), file=sys.stderr)
            return BROKEN_PIPE


def _command(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if words and not words[0].startswith("-") and words[0] not in SUBCOMMANDS:
        print(not_a_command(words[0]), file=sys.stderr)
        return 2
    if not set(words) & set(SUBCOMMANDS) and any(w.lower().endswith(".cql") for w in words):
        # CQL's own command line ("cql -input h.pgn foo.cql"): run takes it as it is.
        typed = " ".join(printable(word) for word in words)
        print(
            f"cqllegacy: no command given; to run the script, type:\n  cqllegacy run {typed}",
            file=sys.stderr,
        )
        return 2
    command, words = _cql_style(parser, words)
    args, extras = parser.parse_known_args(words)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    if extras:
        # Reported under the sub-command's usage line, not the top-level one.
        command.error("unrecognized arguments: " + " ".join(extras))
    settle = getattr(args, "settle", None)
    if settle is not None:
        settle(args, command)
    return int(args.func(args))


def not_a_command(word: str) -> str:
    """What to type when the first word is no sub-command (a script's name, as ``cql
    foo.cql`` takes it).

    >>> print(not_a_command("mates.cql"))
    cqllegacy: 'mates.cql' is not a command; to run the script, type:
      cqllegacy run mates.cql [-i GAMES.pgn] [-o OUT.pgn]
    (or translate, explain, check; cqllegacy --help lists every command)
    """
    name = printable(word)
    if word.lower().endswith(".cql") or os.path.isfile(word):
        return (
            f"cqllegacy: {name!r} is not a command; to run the script, type:\n"
            f"  cqllegacy run {name} [-i GAMES.pgn] [-o OUT.pgn]\n"
            "(or translate, explain, check; cqllegacy --help lists every command)"
        )
    choices = ", ".join(SUBCOMMANDS)
    return f"cqllegacy: {name!r} is not a command (choose from {choices}; see cqllegacy --help)"


def _cql_style(
    parser: argparse.ArgumentParser, words: list[str]
) -> tuple[argparse.ArgumentParser, list[str]]:
    """The parser of the sub-command ``words`` name (``parser`` itself when none), and
    ``words`` with its CQL-style options rewritten (:mod:`cqllegacy.cli.cql_style`)."""
    from cqllegacy.cli.cql_style import normalize

    for index, word in enumerate(words):
        sub = _subparser(parser, word)
        if sub is not None:
            command, rest = _cql_style(sub, words[index + 1 :])
            return command, [*words[: index + 1], *rest]
        if not word.startswith("-"):
            break
    if parser.prog == "cqllegacy":
        return parser, words
    return parser, normalize(words, parser)


def _subparser(parser: argparse.ArgumentParser, word: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = action.choices.get(word)
            return found if isinstance(found, argparse.ArgumentParser) else None
    return None


def _with_notes(line: str, exc: BaseException) -> str:
    """``line`` and what the exception's notes say (which files were left alone)."""
    notes = getattr(exc, "__notes__", [])
    return "; ".join([line, *(one_line(note) for note in notes)])


def _silence_stdout() -> None:
    """Point standard output at the null device, so that Python's last flush at exit does
    not fail on the closed pipe once more."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
