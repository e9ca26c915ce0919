"""Errors a user sees: each renders as ``file:line:column: message`` with a caret excerpt.

The CLI prints :meth:`CqlLegacyError.render` and exits with ``exit_status``; no
traceback ever reaches the user for these.
"""

from __future__ import annotations


class CqlLegacyError(Exception):
    """Base of every error meant for the user."""

    exit_status = 2

    def render(self) -> str:
        return f"error: {self}"


def excerpt(source: str, line: int, column: int) -> str:
    """The source line ``line`` (1-based) and a caret under ``column`` (1-based).

    >>> print(excerpt("(match\\n(position Ri9))", 2, 11))
        (position Ri9))
                  ^
    """
    lines = source.splitlines() or [""]
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1].replace("\t", " ")
    return f"    {text}\n    {' ' * max(column - 1, 0)}^"


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
        parts = [f"{self.location}: {self.kind}: {self.message}"]
        if self.expected:
            parts.append(f"    expected {self.expected}")
        if self.hint:
            parts.append(f"    hint: {self.hint}")
        snippet = self.excerpt
        if snippet:
            parts.append(snippet)
        return "\n".join(parts)

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class UsageError(CqlLegacyError):
    """A command line that cannot be carried out (missing file, output over input …)."""
