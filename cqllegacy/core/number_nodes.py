"""Numeric filters of the core tree: numbers, counts, ``power``, arithmetic, game
numbers and the comparisons."""

from __future__ import annotations

import enum
from collections.abc import Iterator

import attrs

from cqllegacy.core.declarations import (
    NO_OPERANDS,
    NUMERIC,
    POSITIONS,
    SETS,
    Filter,
    Kind,
    Place,
    Precedence,
    Prefix,
    Reads,
    Syntax,
    Transforms,
)


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Number(Filter):
    WORD = "a number"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS
    PRECEDENCE = None

    value: int

    def precedence(self) -> Precedence:
        # A negative number is written with a leading minus.
        return Precedence.ATOM if self.value >= 0 else Precedence.UNARY


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Count(Filter):
    """``#X``: the size of set X (always matches)."""

    WORD = "`#`"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.COUNT

    arg: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Power(Filter):
    """``power X``: material on the squares of X (P1 N3 B3 R5 Q9 K0)."""

    SYNTAX = Prefix(place=Place.CLOSED)
    WORD = "`power`"
    CQL_WORDS = ("power",)
    KIND = Kind.NUMBER
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.POWER

    arg: Filter


class ArithOp(enum.Enum):
    ADD = "+"
    SUB = "-"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Arith(Filter):
    WORD = "`+`/`-`"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ARITH

    op: ArithOp
    left: Filter
    right: Filter

    def _sum_operands(self) -> tuple[Filter, Filter] | None:
        return (self.left, self.right) if self.op is ArithOp.ADD else None


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Negate(Filter):
    WORD = "unary `-`"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.UNARY

    arg: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Abs(Filter):
    """CQL 6.1 ``abs X``: the absolute value of X (fails when X fails).  Read and written as
    unary minus is: the argument binds tighter than ``+ -`` and is always closed."""

    SYNTAX = Prefix(reads_above=Precedence.ARITH, place=Place.CLOSED)
    WORD = "`abs`"
    CQL_WORDS = ("abs",)
    KIND = Kind.NUMBER
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.UNARY

    arg: Filter


class NumericKeyword(enum.Enum):
    YEAR = "year"
    MOVENUMBER = "movenumber"
    PLY = "ply"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class NumericValue(Filter):
    """``year``, ``movenumber``, ``ply``; ``year`` fails when the date has no year."""

    SYNTAX = Syntax.WORD
    WORD = "a numeric filter"
    CQL_WORDS = tuple(keyword.value for keyword in NumericKeyword)
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM

    keyword: NumericKeyword

    def reads_itself(self) -> Reads:
        return Reads.TAGS if self.keyword is NumericKeyword.YEAR else Reads.POSITION


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    def swapped(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Elo(Filter):
    """``elo white`` / ``elo black`` / ``elo`` (the larger); fails when missing."""

    WORD = "`elo`"
    CQL_WORDS = ("elo", "white", "black")
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM

    color: Color | None = None


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class InRange(Filter):
    """``lo <= value <= hi``; either bound may be None (printed ``value >= lo`` …).

    ``lo == hi`` prints as ``value == lo``.  Fails when ``value`` fails.
    """

    WORD = "a comparison"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.RELATION

    value: Filter
    lo: int | None
    hi: int | None


class CompareOp(enum.Enum):
    LT = "<"
    LE = "<="
    EQ = "=="
    GE = ">="
    GT = ">"
    NE = "!="


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Compare(Filter):
    """A comparison that is not a range, as hand-written CQL 6 has them."""

    WORD = "a comparison"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.RELATION

    op: CompareOp
    left: Filter
    right: Filter

    def operand_kinds(self) -> Iterator[tuple[Filter, frozenset[Kind]]]:
        # In a chain (`2 < P <= 5`) the right operand is the next comparison; this one
        # compares with that one's left value.  Two positions compare by their order.
        right = chain_value(self.right)
        positions = Kind.POSITION in (self.left.value_kind(), right.value_kind())
        for child in (self.left, right):
            yield child, POSITIONS if positions else NUMERIC


def chain_value(node: Filter) -> Filter:
    """What a comparison compares with when ``node`` is its right operand: the left value
    of a comparison that continues the chain, or ``node`` itself.

    >>> chain_value(InRange(Number(3), None, 5))
    Number(value=3)
    """
    if isinstance(node, InRange):
        return node.value
    if isinstance(node, Compare):
        return node.left
    return node
