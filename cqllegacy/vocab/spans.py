"""Where a construct stands in a script's text.

>>> str(Span(3, 14))
'3:14'
"""

from __future__ import annotations

import attrs

from cqllegacy.records import Record

__all__ = ["NO_SPAN", "Span"]


@attrs.frozen(repr=False, slots=True)
class Span(Record):
    """1-based line and column where a construct starts in the script text."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NO_SPAN = Span(0, 0)
