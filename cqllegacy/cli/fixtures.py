"""``cqllegacy fixtures make|check``: fixture triples to compare with CQL 6 or CQLi."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from cqllegacy.errors import UsageError, display_path

if TYPE_CHECKING:
    from cqllegacy.fixturekit import CheckReport

DESCRIPTION = """\
A fixture triple is a folder with the legacy script (legacy.cql), its CQL 6.1
translation (modern.cql, or refused.txt with the reason it has none) and expected.json:
the games the legacy script selects on a PGN file (1-based ordinals), the positions each
top-level position list matched and marked, and the PGN file's path and SHA-256.
Run modern.cql in CQL 6 or CQLi on the same PGN file to confirm it selects the same games.
"""

MAKE_EPILOG = """\
Each SCRIPT goes to DIR/<script name without .cql>/.  The PGN path is recorded relative
to that folder when possible, and modern.cql reads that file (cql(input ...)), whatever
the script's own :pgn (but for a name that is not UTF-8): run it from the triple's folder.

exit status: 0 every script translated, 1 some script refused (its triple then has
refused.txt), 2 bad script or bad command line
"""

CHECK_EPILOG = """\
DIR is one triple or a folder of triples.  Both scripts are run again on the recorded
PGN file (or on --pgn, the same games elsewhere); matched and marked positions of the
legacy script and the selected games of the modern script are compared with
expected.json (matched positions too when both scripts have the same number of
top-level lists; CQL 6 marks every matching position).

exit status: 0 no differences, 1 differences or a changed PGN file (its SHA-256 differs
from the recorded one), 2 no triple found, recorded PGN missing, bad command line
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "fixtures",
        help="make or check fixture triples (legacy script, CQL 6.1 script, expected games)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    make = actions.add_parser(
        "make",
        help="write a triple for each script",
        description=DESCRIPTION,
        epilog=MAKE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    make.add_argument("scripts", metavar="SCRIPT", nargs="+", type=Path, help="legacy scripts")
    make.add_argument("--pgn", required=True, type=Path, metavar="GAMES.pgn", help="games to run")
    make.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    make.set_defaults(func=run_make)
    check = actions.add_parser(
        "check",
        help="re-run the scripts of triples and report differences",
        description=DESCRIPTION,
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("directory", metavar="DIR", type=Path, help="a triple or a folder of them")
    check.add_argument(
        "--pgn",
        type=Path,
        metavar="GAMES.pgn",
        help="the games to run on, instead of the file expected.json records (moved or "
        "copied: its SHA-256 is still compared with the recorded one)",
    )
    check.set_defaults(func=run_check)


def run_make(args: argparse.Namespace) -> int:
    # Imported here: other sub-commands should not pay for loading the fixture kit.
    from cqllegacy.fixturekit import Toolchain, make_triples

    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} exists and is not a folder")
    made = make_triples(Toolchain.default(), args.scripts, args.pgn, args.out)
    for triple in made:
        if triple.refused is None:
            print(f"{display_path(str(triple.folder))}: legacy.cql, modern.cql, expected.json")
        else:
            first = triple.refused.splitlines()[0]
            folder = display_path(str(triple.folder))
            print(f"{folder}: legacy.cql, refused.txt, expected.json ({first})")
    return 1 if any(triple.refused is not None for triple in made) else 0


def run_check(args: argparse.Namespace) -> int:
    # Imported here: other sub-commands should not pay for loading the fixture kit.
    from cqllegacy.fixturekit import Toolchain, check_triples, find_triples

    if not args.directory.is_dir():
        raise UsageError(f"{args.directory} is not a folder")
    folders = find_triples(args.directory)
    if not folders:
        raise UsageError(f"no fixture triple (a folder with expected.json) in {args.directory}")
    reports = check_triples(Toolchain.default(), folders, args.pgn)
    for report in reports:
        for line in _describe(report):
            print(display_path(line))
    failed = sum(1 for report in reports if not report.ok)
    print(f"{len(reports) - failed} of {len(reports)} triples agree with expected.json")
    return 1 if failed else 0


def _describe(report: CheckReport) -> list[str]:
    if report.ok:
        return [f"ok: {report.folder}"]
    lines = [f"DIFFERENT: {report.folder}"]
    if report.pgn_changed:
        lines.append(
            f"  the PGN file changed: {report.pgn} has SHA-256 {report.current_sha256}, "
            f"expected.json recorded {report.recorded_sha256}; rebuild the triple with "
            "'cqllegacy fixtures make' if the change is intended"
        )
    lines += [f"  {difference}" for difference in report.differences]
    return lines
