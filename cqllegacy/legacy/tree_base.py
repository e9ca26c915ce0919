"""What every legacy tree module shares: keyword declarations, ranges, comments and
piece designators (the leaves), and the base of the dialect items.

:mod:`cqllegacy.legacy.tree` re-exports every name here; the dialect items
(:mod:`cqllegacy.legacy.dialect_items`) build on them without importing the tree.
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from cqllegacy.records import Record
from cqllegacy.vocab.spans import NO_SPAN, Span
from cqllegacy.vocab.squares import FULL, SquareSet


def span_field() -> Span:
    return attrs.field(default=NO_SPAN, eq=False, repr=False, kw_only=True)


# --------------------------------------------------------------------------------------
# What a keyword item declares: its keyword and the shape of its parameters
# --------------------------------------------------------------------------------------


class Shape(enum.Enum):
    """Parameter shapes (semantics: S-legacy-grammar); the value describes them in messages."""

    NONE = "no parameters"
    PD = "a piece designator"
    PD_RANGE = "a piece designator and a range"
    PD_PD_RANGE = "two piece designators and a range"
    RANGE = "a range"
    RESULT = "a game result"
    RAY = "a ray specifier list and an optional range"
    LISTS = "a parenthesised list of position lists"
    RELATION = "a parenthesised relation list"
    NAME = "a name"
    NAME_RANGE = "a name and a range"
    NAME_PD = "a name and a piece designator"
    FILE = "a file name"
    WORD = "a word"
    PD_PAWNS_RANGE = "a pawn designator, pawn attributes and a range"
    NAME_OPTIONAL_WORD = "a tag name and an optional word"
    OPTIONAL_PD = "an optional piece designator"
    OPTIONAL_WORD = "an optional word"
    FEN = "a FEN in double quotes"
    DATES = "a date range"


@attrs.frozen(repr=False)
class KeywordDeclaration(Record):
    """A keyword item's ``KEYWORD``: its keyword (``name``), or one keyword per member of
    the enum its first field holds (``keyed``), and the shape of its parameters, which
    follow in field order.  The reader's keyword tables (cqllegacy.legacy.keywords) and
    the printer (cqllegacy.legacy.printer) are derived from these declarations."""

    shape: Shape
    name: str | None = None
    keyed: type[enum.Enum] | None = None

    def names(self) -> tuple[str, ...]:
        """The keywords, without the colon."""
        if self.keyed is not None:
            return tuple(str(member.value) for member in self.keyed)
        assert self.name is not None
        return (self.name,)


class Transformed(enum.Enum):
    """How a legacy transform (a flip, a shift, the colour flip) acts on a position-list
    item that declares it (``TRANSFORMED``; translator/orbits.py reads it)."""

    #: Its designator fields (one or several, found by their type) are mapped; nothing
    #: else in it changes.
    DESIGNATOR = "designator"


def keyword(name: str, shape: Shape) -> KeywordDeclaration:
    """``KEYWORD`` of an item with one keyword, ``:name`` followed by ``shape``."""
    return KeywordDeclaration(shape, name=name)


def keyed(keywords: type[enum.Enum], shape: Shape) -> KeywordDeclaration:
    """``KEYWORD`` of an item whose first field is one of ``keywords`` (each ``:value``)."""
    return KeywordDeclaration(shape, keyed=keywords)


@attrs.frozen(repr=False, slots=True)
class Range(Record):
    """An inclusive integer range; ``hi is None`` means unlimited (decision L16).

    ``Range(3)`` and ``Range(3, 3)`` are the same range, written ``3``.
    """

    lo: int
    hi: int | None = attrs.field()
    span: Span = span_field()

    @hi.default
    def _hi_default(self) -> int | None:
        return self.lo

    def __contains__(self, value: int) -> bool:
        return self.lo <= value and (self.hi is None or value <= self.hi)

    def negated(self) -> Range:
        """``-hi .. -lo``: the range a colour flip gives ``:powerdifference`` (L12)."""
        if self.hi is None:
            raise ValueError("an unlimited range has no negation")
        return Range(-self.hi, -self.lo, span=self.span)


@attrs.frozen(repr=False, slots=True)
class Comment(Record):
    """A ``;`` comment, kept in place for ``check`` and carried into CQL 6 (T3).

    ``text`` excludes the leading semicolons and the line end.
    """

    text: str
    span: Span = span_field()


# --------------------------------------------------------------------------------------
# Piece designators
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False, slots=True)
class Designator(Record):
    """A piece designator: contents ``types`` on squares ``squares``.

    ``tag`` names a ``$tag`` piece type (semantics: S-tags); then ``types`` is 0 and the
    designator stands for that one piece on ``squares``.
    """

    types: int
    squares: SquareSet = FULL
    tag: str | None = None
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class DialectItem(Record):
    """The base of an item only a dialect has (X1): the keyword tables list its
    ``KEYWORD`` among the dialect keywords, and ``check`` names it."""

    DIALECT: ClassVar[bool] = True

    # Written out, not span_field(): mypy's attrs plugin must see kw_only to let the
    # subclasses' fields without defaults follow it.
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False, kw_only=True)
