"""``cqllegacy explain SCRIPT [--html PAGE.html]``: what a script means and how its
transforms translate."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cqllegacy.errors import ScriptError, UsageError, WriteError, display_path, printable

if TYPE_CHECKING:
    from cqllegacy.api import Query

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
refused: a legacy script that translate refuses (no exact CQL 6.1 form; run still runs
it) is explained, then standard error says why translate refuses it, as check does.
exit status: 0 explained; 1 explained, but translate refuses the script; 2 a script
that does not read, has no exact meaning, or a bad command line; 4 the HTML page could
not be written (full disk ...).
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
    query = load(script)
    explanation = query.explain()
    print(explanation.text())
    refusal = _translate_refusal(query)
    if args.html is not None:
        try:
            with open_destination(args.html) as handle:
                handle.write(explanation.html(title=f"cqllegacy explain {script.name}"))
        except OSError as exc:
            raise WriteError(
                f"cannot write {display_path(args.html)}: {exc.strerror or exc}"
            ) from exc
    if refusal is not None:
        print(printable(refusal.render(), limit=None), file=sys.stderr)
        print("    (translate refuses this script; run runs it)", file=sys.stderr)
        return 1
    return 0


def _translate_refusal(query: Query) -> ScriptError | None:
    """Why ``translate`` refuses a legacy script (None: it translates, or is CQL 6)."""
    if query.language != "legacy":
        return None
    try:
        query.translate()
    except ScriptError as error:
        return error
    return None
