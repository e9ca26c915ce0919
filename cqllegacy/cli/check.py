"""``cqllegacy check SCRIPT…``: validate scripts and print them in canonical form.

Every script is checked, even after a bad one, as ``run`` and ``translate`` would take
it (:func:`~cqllegacy.runner.scripts.refusals`): the exit status is 2 when some script
would not run, else 1 when ``translate`` would refuse some legacy script, else 0, with
each error rendered on stderr.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from cqllegacy.errors import CqlLegacyError, ScriptError, display_path, printable
from cqllegacy.records import Record

if TYPE_CHECKING:
    from cqllegacy.runner.scripts import Language

DESCRIPTION = """\
Validate scripts of either language (legacy CQL 3.x and CQL 6) and print each one in
canonical form (normalised spacing, one item per line, comments kept). With several
scripts each is preceded by a ';; FILE' line. A script is checked as 'run' and
'translate' take it: what either would refuse is reported, with the reason they would
give. Each mistake of a script that does not read is reported, as far as the ones after
the first can be told apart from it (of a script over 1 MB, the first only).
Exit status 0 when every script is valid, 1 when 'translate' refuses a legacy script
that runs (no exact CQL 6.1 form), 2 when some script would not run.
"""

#: Mistakes reported per script at most.
MAX_MISTAKES = 10

#: Beyond this many characters only the first mistake is reported: finding the next one
#: reads the whole script again, seconds for a script of megabytes (made by a program, or
#: hostile), for which the first mistake is the useful one.
MAX_MENDED_CHARS = 1 << 20


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
    from cqllegacy.runner.scripts import refusals  # here: start-up of other commands

    status = 0
    several = len(args.scripts) > 1
    for number, path in enumerate(args.scripts):
        try:
            canonical = check_file(path)
        except ScriptError as error:
            for mistake in mistakes(error, functools.partial(_read_text, path=path)):
                print(printable(mistake.render(), limit=None), file=sys.stderr)
            status = max(status, error.exit_status)
            continue
        except CqlLegacyError as error:
            print(printable(error.render(), limit=None), file=sys.stderr)
            status = max(status, error.exit_status)
            continue
        for refusal in refusals(path):
            print(printable(refusal.render(), limit=None), file=sys.stderr)
            status = max(status, refusal.exit_status)
        if args.quiet:
            continue
        note = dialect_note(path)
        if note:
            print(printable(f"{display_path(path)}: note: {note}", limit=None), file=sys.stderr)
        if several:
            print(("\n" if number else "") + f";; {display_path(path)}")
        sys.stdout.write(canonical)
    return status


def check_file(path: str) -> str:
    """The canonical text of the script in ``path``; raises a :class:`CqlLegacyError`."""
    from cqllegacy.runner.scripts import read_script_file  # here: start-up of other commands

    return check_text(read_script_file(path), path)


def dialect_note(path: str) -> str:
    """The dialect forms (X1) a legacy script uses, said as information ("" for none)."""
    from cqllegacy.legacy import read_script
    from cqllegacy.legacy.dialects import describe_forms
    from cqllegacy.runner.scripts import read_script_file, script_language

    text = read_script_file(path)
    if script_language(text) != "legacy":
        return ""
    return describe_forms(read_script(text, path).dialect_forms)


def check_text(text: str, path: str) -> str:
    from cqllegacy.runner.scripts import script_language  # here: start-up of other commands

    return _CHECKERS[script_language(text)](text, path)


# --------------------------------------------------------------------------------------
# Every mistake, not only the first
# --------------------------------------------------------------------------------------
#
# The reader stops at the first mistake.  To find the next one, the script is read again
# with the mistake mended as its message suggests ("did you mean :mate?"), or blanked out
# (a keyword with the arguments that follow it, up to the next keyword or parenthesis),
# and so on; each mistake found is reported at its place in the original text.  Blanks
# keep every other character where it was; a suggestion longer than the word it mends
# shifts the rest of its line, which the edits record to map places back.

_SUGGESTION = re.compile(r"did you mean (\S+?)\?")
_NUMBER = re.compile(r"\s*-?[0-9]+(?=[\s()])")


@attrs.frozen(repr=False)
class _Edit(Record):
    offset: int  # in the mended text
    delta: int  # characters added there


def mistakes(first: ScriptError, check: Callable[[str], object]) -> list[ScriptError]:
    """``first`` and the mistakes after it that mending each one in turn reveals."""
    original = first.source
    if not original or first.text is None or len(original) > MAX_MENDED_CHARS:
        return [first]
    found = [first]
    seen = {(first.line, first.column)}
    text, error = original, first
    edits: list[_Edit] = []
    while len(found) < MAX_MISTAKES and _mendable(error):
        mended = _mend(text, error, edits)
        if mended is None:
            break
        text = mended
        try:
            check(text)
            break
        except ScriptError as next_error:
            if next_error.text is None or not next_error.line:
                break
            place = _original_place(original, text, next_error, edits)
            if place in seen:
                break
            seen.add(place)
            error = next_error
            found.append(_moved(next_error, place, original))
        except CqlLegacyError:
            break
    return found


def _mendable(error: ScriptError) -> bool:
    """Whether the mistake is one word (a keyword, a designator, a number): the lists
    around it stay whole, so what follows can still be read.  A parenthesis that is
    missing or too many leaves no such structure to go on with."""
    token = error.text or ""
    return bool(token) and not set(token) & set("()") and "unclosed" not in error.message


def _offset(text: str, line: int, column: int) -> int:
    starts = [0]
    for at, char in enumerate(text):
        if char == "\n":
            starts.append(at + 1)
    return starts[line - 1] + column - 1 if line <= len(starts) else len(text)


def _mend(text: str, error: ScriptError, edits: list[_Edit]) -> str | None:
    """``text`` with the mistake of ``error`` mended or blanked; None when its token is
    not where the error says."""
    token = error.text or ""
    at = _offset(text, error.line, error.column)
    if token and text[at : at + len(token)] != token:
        # The caret may point inside the token (at the bad square of ``Ri9``).
        start = text.rfind(token, max(0, at - len(token) + 1), at + len(token))
        at = start if start >= 0 and start <= at else -1
    if not token or at < 0:
        return None
    suggestion = _SUGGESTION.search(error.message + " " + error.hint)
    end = at + len(token)
    if suggestion is not None:
        replacement = suggestion.group(1).strip("'\"")
    else:
        replacement = ""
        if token.startswith(":"):
            # An unknown keyword: the numbers after it go with it (a designator after it
            # reads as a designator of its own).
            while (argument := _NUMBER.match(text, end)) is not None:
                end = argument.end()
    blanked = "".join(c if c == "\n" else " " for c in text[at + len(replacement) : end])
    if len(replacement) > end - at:
        edits.append(_Edit(at, len(replacement) - (end - at)))
        blanked = ""
    return text[:at] + replacement + blanked + text[end:]


def _original_place(
    original: str, text: str, error: ScriptError, edits: list[_Edit]
) -> tuple[int, int]:
    at = _offset(text, error.line, error.column)
    at -= sum(edit.delta for edit in edits if edit.offset < at)
    line = original.count("\n", 0, at) + 1
    return line, at - (original.rfind("\n", 0, at) + 1) + 1


def _moved(error: ScriptError, place: tuple[int, int], original: str) -> ScriptError:
    """``error`` placed in the original text (it was raised on the mended one)."""
    error.line, error.column = place
    error.source = original
    return error


def _read_text(text: str, path: str) -> object:
    """``text`` read as ``check`` reads it, not printed: what finding the next mistake
    needs (printing a script of megabytes costs as much again as reading it)."""
    from cqllegacy.runner.scripts import script_language  # here: start-up of other commands

    return _READERS[script_language(text)](text, path)


def _read_legacy(text: str, path: str) -> object:
    from cqllegacy.legacy import read_script

    return read_script(text, path)


def _check_legacy(text: str, path: str) -> str:
    # Imported here: the legacy grammar costs start-up that other commands need not pay.
    from cqllegacy.legacy import print_script, read_script

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

# A modern script's mistakes include what compiling finds, and its printing is cheap.
_READERS: dict[Language, Callable[[str, str], object]] = {
    "legacy": _read_legacy,
    "modern": _check_modern,
}
