"""``cqllegacy translate SCRIPT… [-o OUT] [--approximate]``: legacy scripts → CQL 6.1.

The translation means exactly what the legacy script means, or the script is refused
with the construct and its line:column (decision T1).  ``--approximate`` writes the
nearest CQL 6.1 form instead, with a ``// approximate:`` comment at each such place.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cqllegacy.errors import (
    CqlLegacyError,
    ScriptError,
    UsageError,
    WriteError,
    display_path,
    printable,
)

if TYPE_CHECKING:
    from cqllegacy.core.tree import Filter
    from cqllegacy.runner.output import Replacement

# The readers, the core tree and the output modules are imported in the functions that
# use them: every command builds this parser, and they cost start-up.

DESCRIPTION = """\
Translate legacy CQL 3.x scripts into CQL 6.1 text that matches exactly the same
games and positions. The translation goes to standard output, or to -o OUT: a file
for one script, a folder (created when missing) for several, each translation named
after its script with the suffix .cql. An input file is never overwritten.  The
:pgn and :output file names of a translation written to another folder are rewritten
to name the same files from there.

Where CQL 6.1 cannot say exactly what a script means, the script is refused with the
construct and its line:column; --approximate writes the nearest form instead, marked
by a '// approximate:' comment.
"""

EPILOG = """\
exit status: 0 every script translated exactly, 1 some script refused (no exact CQL 6.1
form) or, with --approximate, approximated (stderr says where), 2 a script that does
not read or a bad command line.
"""

#: Exit status for a script that reads but has no exact translation (also when
#: --approximate wrote the nearest form instead, as migrate says it).
REFUSED = 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "translate",
        help="translate legacy scripts into CQL 6.1 (exact, or refused)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scripts", nargs="+", metavar="SCRIPT", help="legacy script files")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (one script) or folder (several scripts, or a name ending in /); "
        "default: standard output",
    )
    parser.add_argument(
        "--approximate",
        action="store_true",
        help="write the nearest CQL 6.1 form where no exact one exists, marked by a comment",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cqllegacy.runner.output import Replacement
    from cqllegacy.runner.scripts import relocation

    targets = output_paths(args.scripts, args.output)
    status = 0
    several = len(args.scripts) > 1
    # The translations written to files are renamed into place together at the end, or
    # none is.
    with Replacement() as replacement:
        for number, script in enumerate(args.scripts):
            target = targets[number]
            # The translation names the script's :pgn and :output files from its own folder.
            folder = Path(script).parent if target is None else target.parent
            try:
                text = translate_file(
                    script,
                    approximate=args.approximate,
                    relocate=relocation(Path(script).parent, folder),
                )
            except CqlLegacyError as error:
                print(printable(error.render(), limit=None), file=sys.stderr)
                status = max(status, exit_status(error))
                continue
            notes = approximation_messages(script, text)
            for note in notes:
                print(printable(note, limit=None), file=sys.stderr)
            if notes:
                status = max(status, REFUSED)
            if target is None:
                if several:
                    print(("\n" if number else "") + f"// {display_path(script)}")
                sys.stdout.write(text)
            else:
                write_atomically(target, text, replacement)
    return status


def exit_status(error: CqlLegacyError) -> int:
    """1 for a script that reads but has no exact translation, else the error's own."""
    from cqllegacy.legacy import LegacySyntaxError

    if isinstance(error, ScriptError) and not isinstance(error, LegacySyntaxError):
        return REFUSED
    return error.exit_status


def approximation_messages(path: str, modern: str) -> list[str]:
    """What an approximate translation of the script in ``path`` says at its
    ``// approximate:`` comments, and each top-level list it writes as ``true``
    (which then holds at every position: with nothing else, every game matches)."""
    from cqllegacy.migration import approximations_in
    from cqllegacy.runner.scripts import read_legacy, read_script_file

    notes = approximations_in(modern)
    if not notes:
        return []
    name = display_path(path)
    lines = [
        f"{name}: approximated, no exact CQL 6.1 form (output line {n.line}): {n.note}"
        for n in notes
    ]
    query = read_legacy(read_script_file(path), path)
    for index, top in enumerate(query.lists, start=1):
        if _only_approximated_by_true(top.body):
            where = f" (line {top.origin.span})" if top.origin is not None else ""
            lines.append(
                f"{name}: list {index}{where} is approximated by true: it holds at every "
                "position, so it rules out no game"
            )
    return lines


def _only_approximated_by_true(body: Filter) -> bool:
    """Whether ``body`` tests nothing but what the approximation writes as ``true``."""
    from cqllegacy.core.tree import Comment, Compound, Relation

    items = body.items if isinstance(body, Compound) else (body,)
    tests = [i for i in items if not isinstance(i, Comment)]
    return bool(tests) and all(isinstance(i, Relation) for i in tests)


def translate_file(
    path: str, *, approximate: bool, relocate: Callable[[str], str] | None = None
) -> str:
    """The CQL 6.1 text of the legacy script in ``path`` (its header's file names
    rewritten by ``relocate``)."""
    from cqllegacy.runner.scripts import read_script_file, script_language, translate_legacy

    text = read_script_file(path)
    if script_language(text) == "modern":
        raise UsageError(f"{path}: is already a CQL 6 script")
    return translate_legacy(text, approximate=approximate, path=path, relocate=relocate)


def output_paths(scripts: list[str], output: str | None) -> list[Path | None]:
    """Where each translation goes (None: standard output); refuses to overwrite inputs."""
    if output is None:
        return [None] * len(scripts)
    out = Path(output)
    # "-o new/" names a folder, made if need be, as a shell user means it (Path drops
    # the trailing separator, and the translation was written to a file "new").
    folder = output.endswith((os.sep, "/")) or out.is_dir()
    if len(scripts) == 1 and not folder:
        targets = [out]
    else:
        if out.exists() and not out.is_dir():
            raise UsageError(f"{output}: several scripts need -o to name a folder")
        targets = [out / (Path(s).stem + ".cql") for s in scripts]
        if len({t.name for t in targets}) < len(targets):
            raise UsageError("two scripts have the same name: their translations would collide")
    inputs = [Path(s) for s in scripts]
    for target in targets:
        for source in inputs:
            if _same_file(target, source):
                raise UsageError(f"{target}: refusing to write a translation over its input")
    return list(targets)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def write_atomically(target: Path, text: str, replacement: Replacement) -> None:
    """Write ``text`` for ``target`` into ``replacement`` (renamed into place when it
    commits), creating its folder first.  A folder that cannot be made is a usage error
    (2), a write that fails (a full disk) a :class:`~cqllegacy.errors.WriteError` (4)."""
    from cqllegacy.runner.output import make_folder

    make_folder(target.parent, f"the folder {display_path(str(target.parent))}")
    try:
        replacement.write(target, text)
    except OSError as error:
        reason = error.strerror or error
        raise WriteError(f"cannot write {display_path(str(target))}: {reason}") from None
