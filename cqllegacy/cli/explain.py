"""``cqllegacy explain SCRIPT [--html PAGE.html]``: what a script means and how its
transforms translate."""

from __future__ import annotations

import argparse
from pathlib import Path

from cqllegacy.errors import UsageError, WriteError, display_path

DESCRIPTION = """\
Explain SCRIPT (legacy or CQL 6): for each top-level position list, what it looks for
in plain words, which positions it examines and marks, its legacy transform set (how
many transforms, how many distinct transformed lists), and whether the CQL 6
translation uses a compact modern transform or an explicit union of the transformed
lists -- and if explicit, the designator or transform that made the two meanings
differ and why (legacy unit shifts keep the squares on the edge they move away from;
CQL 6 shifts move them).
"""

EPILOG = """\
--html PAGE.html also draws each list's distinct transformed lists as small diagrams
(at most 64 per list) in one self-contained page.
exit status: 0 explained; 2 a script that does not read, has no exact meaning, or a
bad command line; 4 the HTML page could not be written (full disk ...).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="explain what a script means and how its transforms translate",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("script", metavar="SCRIPT", help="the script file (legacy or CQL 6)")
    parser.add_argument("--html", metavar="PAGE.html", help="also write an HTML page")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: every command builds this parser, and the API costs start-up.
    from cqllegacy.api import load
    from cqllegacy.runner.output import STDOUT, check_destinations, open_destination

    script = Path(args.script)
    if args.html is not None:
        if args.html == STDOUT:
            raise UsageError("--html needs a file name")
        check_destinations([("HTML page", args.html)], [("script", script)])
    explanation = load(script).explain()
    print(explanation.text())
    if args.html is not None:
        try:
            with open_destination(args.html) as handle:
                handle.write(explanation.html(title=f"cqllegacy explain {script.name}"))
        except OSError as exc:
            raise WriteError(
                f"cannot write {display_path(args.html)}: {exc.strerror or exc}"
            ) from exc
    return 0
