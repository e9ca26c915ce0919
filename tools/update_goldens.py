"""Rewrite the goldens of the migration corpus deliberately.

usage: python tools/update_goldens.py [--dry-run] [NAME ...]

Each corpus folder ``fixtures/migration/NNN-name/`` has a hand-written ``legacy.cql``;
this regenerates its ``modern.cql`` (or ``refused.txt``) and ``expected.json`` from the
current translator and evaluator on ``fixtures/games.pgn`` and prints what changed.
NAME selects folders by full name, by number (``073``) or by a part of the name
(``shift``); without NAME every folder is regenerated.  ``--dry-run`` writes nothing and
exits with 1 when some golden would change.

Review the printed summary (and ``git diff``) before committing: the goldens are the
reviewed meaning of each script, not just the code's latest output.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cqllegacy.fixturekit import (  # noqa: E402 (needs the checkout on sys.path)
    EXPECTED_NAME,
    Toolchain,
    Triple,
    parse_expected,
    regenerate,
    write_triple,
)

CORPUS = ROOT / "fixtures" / "migration"
GAMES = ROOT / "fixtures" / "games.pgn"


def select(names: Sequence[str]) -> list[Path]:
    folders = sorted(p for p in CORPUS.iterdir() if (p / "legacy.cql").is_file())
    if not names:
        return folders
    chosen = [f for f in folders if any(_selects(name, f.name) for name in names)]
    unknown = [n for n in names if not any(_selects(n, f.name) for f in folders)]
    if unknown:
        raise SystemExit(f"no corpus folder matches: {', '.join(unknown)}")
    return chosen


def _selects(name: str, folder: str) -> bool:
    return folder == name or folder.split("-", 1)[0] == name or name in folder


def _line_delta(old: str, new: str) -> str:
    added = removed = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return f"+{added} -{removed} lines"


def _games_delta(old: str, new: str) -> str:
    try:
        before = set(parse_expected(old).results.ordinals)
    except Exception:  # an unreadable old golden: say so instead of failing the update
        return "previous file unreadable"
    after = set(parse_expected(new).results.ordinals)
    gained, lost = sorted(after - before), sorted(before - after)
    if not gained and not lost:
        return "same games, positions changed"
    return f"games +{gained} -{lost}"


def describe_changes(folder: Path, triple: Triple) -> list[str]:
    """One line per file of the folder that would change."""
    lines = []
    new_files = triple.files()
    for name in sorted({*new_files, "modern.cql", "refused.txt"}):
        path = folder / name
        old = path.read_text(encoding="utf-8") if path.exists() else None
        new = new_files.get(name)
        if old == new:
            continue
        if new is None:
            lines.append(f"  {name}: removed")
        elif old is None:
            lines.append(f"  {name}: new")
        elif name == EXPECTED_NAME:
            lines.append(f"  {name}: {_games_delta(old, new)} ({_line_delta(old, new)})")
        else:
            lines.append(f"  {name}: {_line_delta(old, new)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="corpus folders to rewrite")
    parser.add_argument("--dry-run", action="store_true", help="report changes, write nothing")
    args = parser.parse_args(argv)
    folders = select(args.names)
    triples = regenerate(Toolchain.default(), folders, GAMES)
    changed = 0
    for folder, triple in zip(folders, triples, strict=True):
        lines = describe_changes(folder, triple)
        if lines:
            changed += 1
            print(folder.name)
            print("\n".join(lines))
            if not args.dry_run:
                write_triple(folder, triple)
    verb = "would change" if args.dry_run else "changed"
    print(f"{changed} of {len(folders)} folders {verb}")
    return 1 if args.dry_run and changed else 0


if __name__ == "__main__":
    sys.exit(main())
