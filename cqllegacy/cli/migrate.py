"""``cqllegacy migrate SRC_DIR DEST_DIR``: translate a folder of legacy scripts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cqllegacy.errors import display_path

SHOWN = 20  # failing files listed on the terminal; the report lists them all

DESCRIPTION = """\
Translate every legacy .cql script under SRC_DIR (recursively) into CQL 6.1 and write it
to the same relative path under DEST_DIR, and copy every other file there unchanged (CQL
6 scripts, and the scripts refused or with a syntax error, included), so that DEST_DIR is
the whole tree, migrated.  Nothing is written
under SRC_DIR.  A :pgn or :output file inside SRC_DIR keeps its relative name (its copy
is beside the translation); one outside is named from the translation's folder.  A
report is written to DEST_DIR/MIGRATION.md and DEST_DIR/migration.json, with one entry
per file: translated exactly, translated with approximations (where and why), refused
(which construct, where), syntax error (where, and what check suggests), already CQL 6,
copied, not copied
(hidden folders, links to folders, FIFOs and devices), or unreadable (why).
"""

EPILOG = """\
exit status:
  0  every .cql script was translated exactly (other files do not count)
  1  at least one script was refused, approximated (--approximate), had a syntax
     error or was unreadable
  2  bad command line: SRC_DIR missing or not a folder, DEST_DIR a file or not
     creatable or not writable, DEST_DIR inside SRC_DIR or containing it
  4  writing a translation or the report failed (full disk ...)
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="translate a folder of legacy scripts and report on each file",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="SRC_DIR", type=Path, help="folder of legacy scripts")
    parser.add_argument("destination", metavar="DEST_DIR", type=Path, help="folder for CQL 6.1")
    parser.add_argument(
        "--approximate",
        action="store_true",
        help="translate constructs without an exact CQL 6.1 form approximately, "
        "marked by '// approximate:' comments, instead of refusing the script",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: `cqllegacy run` should not pay for loading the migration tools.
    from cqllegacy.migration import JSON_NAME, MARKDOWN_NAME, migrate_folder, summary_line

    report = migrate_folder(args.source, args.destination, approximate=args.approximate)
    print(summary_line(report))
    folder = display_path(str(args.destination))
    print(f"report: {folder}/{MARKDOWN_NAME} and {folder}/{JSON_NAME}")
    failing = [outcome for outcome in report.files if outcome.status.fails]
    for outcome in failing[:SHOWN]:
        why = f": {outcome.reason}" if outcome.reason else ""
        print(f"{outcome.status.value}: {display_path(outcome.path)}{why}", file=sys.stderr)
    if len(failing) > SHOWN:
        print(f"... and {len(failing) - SHOWN} more, see {MARKDOWN_NAME}", file=sys.stderr)
    return report.exit_status
