"""Errors a user sees: each renders as ``file:line:column: message`` with a caret excerpt.

The CLI prints :meth:`CqlLegacyError.render` and exits with ``exit_status``; no
traceback ever reaches the user for these.  Text quoted from a user's files goes through
:func:`printable` (control characters and undecodable bytes escaped, length bounded).

Exit statuses every command shares (each command documents its own 0 and 1):

=====  ===================================================================================
2      a bad script or a bad command line (:class:`UsageError`, :class:`ScriptError`)
3      an input was not read to its end (:class:`IncompleteInput`): damaged compressed data,
       undecodable text, a file changed or removed while it was read, an I/O error
4      writing a result failed (:class:`WriteError`): full disk, I/O error; nothing was
       replaced (several outputs are renamed into place together, or none)
129    SIGHUP, 130 SIGINT (Ctrl-C), 143 SIGTERM: interrupted (:class:`Interrupted`)
141    standard output was closed before everything was written to it (a broken pipe)
=====  ===================================================================================
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import signal
from typing import TypeVar

#: Exit status for a run whose inputs were not all read to their end.
INPUT_DAMAGED = 3
#: Exit status for results that could not be written.
WRITE_FAILED = 4
#: Exit status when standard output is closed early: 128 + SIGPIPE, as a shell reports a
#: command killed by that signal.
BROKEN_PIPE = 128 + 13

#: How much of a user's text a message quotes.
QUOTED = 200

_UNPRINTABLE = r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\ud800-\udfff]"
#: The same, and line ends and tabs: for what must stay on one line.
_NOT_ONE_LINE = r"[\x00-\x1f\x7f\x80-\x9f\u2028\u2029\ud800-\udfff]"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern compiled when first needed: compiling these classes of characters costs
    milliseconds, which every command would pay at its start for messages most runs never
    print."""
    return re.compile(pattern)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return char.encode("unicode_escape").decode("ascii") if code < 0xD800 else f"\\u{code:04x}"


def printable(text: str, limit: int | None = QUOTED) -> str:
    """``text`` safe to print: control characters (but tabs and line ends) and bytes that
    were not UTF-8 escaped, and at most ``limit`` characters of it kept.

    >>> printable("Qd1\\x00x"), printable("g\\udce9.pgn"), printable("a" * 30, 10)
    ('Qd1\\\\x00x', 'g\\\\xe9.pgn', 'aaaaaaaaaa... (20 more characters)')
    """
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    return _compiled(_UNPRINTABLE).sub(_escape, text)


def one_line(text: str, limit: int | None = QUOTED) -> str:
    """``text`` as :func:`printable` makes it, with line ends and tabs escaped too: a
    message about a file stays one line whatever the file's name holds.

    >>> one_line("a\\nb\\r\\tc.pgn")
    'a\\\\nb\\\\r\\\\tc.pgn'
    """
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    return _compiled(_NOT_ONE_LINE).sub(_escape, text)


def plural(count: int, word: str, words: str | None = None) -> str:
    """``count`` and the word, in the plural unless one.

    >>> plural(1, "game"), plural(685, "game"), plural(2, "match", "matches")
    ('1 game', '685 games', '2 matches')
    """
    return f"{count} {word if count == 1 else (words or word + 's')}"


def listing(items: list[str]) -> str:
    """Items as a sentence lists them.

    >>> listing(["a"]), listing(["a", "b"]), listing(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    """
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def display_path(name: str) -> str:
    """A file name as reports and messages write it: valid UTF-8, the bytes of a POSIX
    name that are not UTF-8 written ``\\xNN``, control characters (line ends and tabs
    too) escaped.

    >>> display_path("caf\\udce9.pgn"), display_path("café.pgn"), display_path("a\\nb")
    ('caf\\\\xe9.pgn', 'café.pgn', 'a\\\\nb')
    """
    return one_line(name, limit=None)


class CqlLegacyError(Exception):
    """Base of every error meant for the user."""

    exit_status = 2

    def render(self) -> str:
        return f"error: {one_line(str(self), 2 * QUOTED)}"


def excerpt(source: str, line: int, column: int) -> str:
    """The source line ``line`` (1-based) and a caret under ``column`` (1-based).

    >>> print(excerpt("(match\\n(position Ri9))", 2, 11))
        (position Ri9))
                  ^
    """
    lines = source.splitlines() or [""]
    if not 1 <= line <= len(lines):
        return ""
    text, caret = _window(lines[line - 1].replace("\t", " "), max(column - 1, 0))
    return f"    {text}\n    {' ' * caret}^"


def _window(text: str, at: int, width: int = 100) -> tuple[str, int]:
    """At most ``width`` characters of ``text`` around offset ``at`` (``...`` where cut),
    escaped by :func:`printable`, and where ``at`` is in what is returned.

    >>> _window("x" * 300 + "BAD" + "y" * 300, 300, 20)
    ('...xxxxxxxxxxBADyyyyyyy...', 13)
    """
    start = max(0, min(at - width // 2, len(text) - width))
    end = min(len(text), start + width)
    before, after = "..." if start else "", "..." if end < len(text) else ""
    head = printable(text[start:at], limit=None)
    return before + head + printable(text[at:end], limit=None) + after, len(before) + len(head)


class ScriptError(CqlLegacyError):
    """A mistake at a known place of a script (syntax error or refused translation).

    ``text`` is the offending text, ``expected`` what would have been accepted,
    ``hint`` an optional suggestion such as the closest keyword.
    """

    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        line: int,
        column: int,
        file: str | None = None,
        source: str = "",
        text: str = "",
        expected: str = "",
        hint: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.file = file
        self.source = source
        self.text = text
        self.expected = expected
        self.hint = hint

    @property
    def location(self) -> str:
        return f"{self.file or '<script>'}:{self.line}:{self.column}"

    @property
    def excerpt(self) -> str:
        return excerpt(self.source, self.line, self.column)

    def render(self) -> str:
        parts = [f"{one_line(self.location)}: {self.kind}: {one_line(self.message, 2 * QUOTED)}"]
        if self.expected:
            parts.append(f"    expected {printable(self.expected)}")
        if self.hint:
            parts.append(f"    hint: {printable(self.hint)}")
        snippet = self.excerpt
        if snippet:
            parts.append(snippet)
        return "\n".join(parts)

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


#: What ends a line of a script: the breaks of :meth:`str.splitlines`, which
#: :func:`excerpt` uses too, so a caret always stands under the line a message names.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
LINE_BREAK = re.compile("\r\n|[" + re.escape(LINE_BREAKS) + "]")

_Located = TypeVar("_Located", bound=ScriptError)


class SourceText:
    """A script's text and name, and the located errors of both readers.

    >>> source = SourceText("cql()\\r\\nflipcolour", "q.cql")
    >>> source.position(7)
    (2, 1)
    >>> print(source.error(ScriptError, "unknown word", 7, "flipcolour").render())
    q.cql:2:1: error: unknown word
        flipcolour
        ^
    """

    def __init__(self, text: str, path: str | None = None) -> None:
        self.text = text
        self.path = path
        self.line_starts = [0, *(found.end() for found in LINE_BREAK.finditer(text))]

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of ``offset`` (a tab is one column)."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def error(
        self,
        cls: type[_Located],
        message: str,
        offset: int,
        text: str = "",
        expected: str = "",
        hint: str = "",
    ) -> _Located:
        line, column = self.position(offset)
        return cls(
            message,
            line=line,
            column=column,
            file=self.path,
            source=self.text,
            text=text,
            expected=expected,
            hint=hint,
        )


class UsageError(CqlLegacyError):
    """A command line that cannot be carried out (missing file, output over input …)."""


class IncompleteInput(CqlLegacyError):
    """An input that could not be read to its end: the results are incomplete."""

    exit_status = INPUT_DAMAGED


class IndexFailed(IncompleteInput):
    """An index that failed while a run read it (a damaged block, too little memory).
    The run catches it and scans what the index had not yet answered: DuckDB checks
    every block it reads, so what the index gave before failing is right.  Should it
    ever reach the user, it is an input not read to its end."""


class WriteError(CqlLegacyError):
    """A result that could not be written (full disk, I/O error); nothing was replaced."""

    exit_status = WRITE_FAILED


class Interrupted(KeyboardInterrupt):
    """A signal that ends the command: SIGINT, SIGTERM or SIGHUP.

    A ``KeyboardInterrupt``, so that nothing meant to catch errors catches it, and every
    ``finally`` and ``with`` on the way out removes what it must.

    >>> Interrupted(signal.SIGTERM).exit_status, Interrupted(signal.SIGTERM).describe()
    (143, 'interrupted by SIGTERM')
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """128 plus the signal's number, as a shell reports a command the signal killed."""
        return 128 + self.signum

    def describe(self) -> str:
        return f"interrupted by {signal.Signals(self.signum).name}"


#: The most words a script may hold (designators, keywords, numbers, names; comments
#: and parentheses do not count): reading, translating and compiling take time and
#: memory growing with the words (about 0.1 ms and 2 kB each), so a script is refused
#: beyond this many rather than run for minutes.  ``CQLLEGACY_MAX_SCRIPT_WORDS`` sets
#: another limit.
MAX_SCRIPT_WORDS = 50_000


def max_script_words() -> int:
    text = os.environ.get("CQLLEGACY_MAX_SCRIPT_WORDS", "")
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else MAX_SCRIPT_WORDS


@functools.cache
def _words(comment: str) -> re.Pattern[str]:
    return re.compile(f"(?P<comment>{comment})|\"[^\"]*\"?|[^\\s()\"]+", re.DOTALL)


def refuse_too_many_words(
    text: str, path: str | None, comment: str, error: type[ScriptError] = ScriptError
) -> None:
    """Raise ``error`` (the language's syntax error) at the first word of ``text`` past
    :func:`max_script_words` (``comment``: the pattern of the language's comments).
    Time bounded by the limit and the comments, whatever the script's size.

    >>> refuse_too_many_words("(match (position Qd1))", None, ";[^\\n]*")
    >>> import os; os.environ["CQLLEGACY_MAX_SCRIPT_WORDS"] = "2"
    >>> try:  # doctest: +ELLIPSIS
    ...     refuse_too_many_words("; a comment\\n(match (position Qd1))", "q.cql", ";[^\\n]*")
    ... except ScriptError as error:
    ...     print(error.render())
    q.cql:2:18: error: more than 2 words in the script, the limit (a larger script takes ...
        (match (position Qd1))
                         ^
    >>> del os.environ["CQLLEGACY_MAX_SCRIPT_WORDS"]
    """
    limit = max_script_words()
    if len(text) <= limit:
        return  # no room for more words than characters
    words = 0
    for found in _words(comment).finditer(text):
        if found.lastgroup == "comment":
            continue
        words += 1
        if words > limit:
            raise SourceText(text, path).error(
                error,
                f"more than {limit:,} words in the script, the limit (a larger script "
                "takes minutes to read; CQLLEGACY_MAX_SCRIPT_WORDS sets another)",
                found.start(),
                found.group(),
            )
