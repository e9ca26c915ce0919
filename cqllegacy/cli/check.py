"""``cqllegacy check SCRIPT…``: validate scripts and print them in canonical form.

Every script is checked, even after a bad one, as ``run`` and ``translate`` would take
it (:func:`~cqllegacy.runner.scripts.refusals`): the exit status is 2 when some script
would not run, else 1 when ``translate`` would refuse some legacy script, else 0, with
each error rendered on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from cqllegacy.errors import CqlLegacyError, display_path, printable
from cqllegacy.legacy import print_script, read_script
from cqllegacy.runner.scripts import Language, read_script_file, refusals, script_language

DESCRIPTION = """\
Validate legacy CQL scripts and print each one in canonical form (normalised
spacing, one item per line, comments kept). With several scripts each is
preceded by a ';; FILE' line. A script is checked as 'run' and 'translate' take it:
what either would refuse is reported, with the reason they would give.
Exit status 0 when every script is valid, 1 when 'translate' refuses a legacy script
that runs (no exact CQL 6.1 form), 2 when some script would not run.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="validate scripts and print them canonically",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scripts", nargs="+", metavar="SCRIPT", help="script files to check")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="only validate: print nothing for valid scripts"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    status = 0
    several = len(args.scripts) > 1
    for number, path in enumerate(args.scripts):
        try:
            canonical = check_file(path)
        except CqlLegacyError as error:
            print(printable(error.render(), limit=None), file=sys.stderr)
            status = max(status, error.exit_status)
            continue
        for refusal in refusals(path):
            print(printable(refusal.render(), limit=None), file=sys.stderr)
            status = max(status, refusal.exit_status)
        if args.quiet:
            continue
        if several:
            print(("\n" if number else "") + f";; {display_path(path)}")
        sys.stdout.write(canonical)
    return status


def check_file(path: str) -> str:
    """The canonical text of the script in ``path``; raises a :class:`CqlLegacyError`."""
    text = read_script_file(path)
    return _CHECKERS[script_language(text)](text, path)


def _check_legacy(text: str, path: str) -> str:
    return print_script(read_script(text, path))


def _check_modern(text: str, path: str) -> str:
    from cqllegacy.evaluator.evaluate import compile_query
    from cqllegacy.modern import print_query, read_query

    # Reading already validates (the reader checks every operand's kind, so what it
    # accepts the evaluator runs); compiling as `run` does keeps `check` honest should
    # the two ever disagree.  Printing gives the canonical spelling, and it can only fail
    # for a construct the reader accepted but CQL 6.1 text cannot hold, which would be a
    # bug worth a clear message rather than silence.
    query = read_query(text, path)
    compile_query(query)
    return print_query(query)


_CHECKERS: dict[Language, Callable[[str, str], str]] = {
    "legacy": _check_legacy,
    "modern": _check_modern,
}
