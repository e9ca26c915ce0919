"""Errors of the CQL 6.1 side: reading modern text and writing it.

Both are :class:`~cqllegacy.errors.ScriptError` subclasses, so the CLI renders them as
``file:line:column: error: message`` with an excerpt and a caret.

>>> err = ModernSyntaxError("unknown word 'flipcolour'", line=2, column=1,
...                         source="cql()\\nflipcolour {Ka1}\\n", text="flipcolour",
...                         hint="did you mean 'flipcolor'?")
>>> print(err.render())
<script>:2:1: error: unknown word 'flipcolour'
    hint: did you mean 'flipcolor'?
    flipcolour {Ka1}
    ^
>>> print(NotExpressible(":relation", "CQL 6.1 has no such filter").render())
<script>: error: :relation has no exact CQL 6.1 form: CQL 6.1 has no such filter
    hint: the approximate option writes the nearest CQL 6.1 form, marked by a comment
"""

from __future__ import annotations

from cqllegacy.core.tree import Origin
from cqllegacy.errors import ScriptError

APPROXIMATE_HINT = "the approximate option writes the nearest CQL 6.1 form, marked by a comment"


class ModernSyntaxError(ScriptError):
    """CQL 6 text that the modern reader cannot turn into a core query."""


class NotExpressible(ScriptError):
    """A core node (usually from a legacy construct) with no exact CQL 6.1 spelling (T1).

    ``construct`` names the legacy construct (``:relation``, ``:player``) or the core
    feature; the position comes from the node's ``origin`` when it has one.
    """

    def __init__(self, construct: str, reason: str, origin: Origin | None = None) -> None:
        span = origin.span if origin is not None else None
        line, column = (span.line, span.column) if span is not None else (0, 0)
        where = f" at {line}:{column}" if line else ""
        super().__init__(
            f"{construct}{where} has no exact CQL 6.1 form: {reason}",
            line=line,
            column=column,
            text=construct,
            hint=APPROXIMATE_HINT,
        )
        self.construct = construct
        self.reason = reason

    @property
    def location(self) -> str:
        # Nodes built without an origin have no place in any script.
        if not self.line:
            return self.file or "<script>"
        return super().location

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"
