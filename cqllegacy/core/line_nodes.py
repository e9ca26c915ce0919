"""Filters over several positions: ``line``, ``find`` and the transforms.

A line's constituents are :class:`~cqllegacy.core.declarations.LineStep` values."""

from __future__ import annotations

import enum

import attrs

from cqllegacy.core.declarations import (
    ANY_FILTER,
    Filter,
    Kind,
    LineStep,
    Precedence,
    Reads,
    Transforms,
)


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Line(Filter):
    """``line --> C1 --> C2 …``: C1 at the current position, C2 at the next, …

    "Next" follows the line being traversed (the main line, or inside a variation
    that variation).  Only forward lines are used by the translator.
    """

    WORD = "`line`"
    CQL_WORDS = ("line",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.LINE

    steps: tuple[LineStep, ...]


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class LineGroup(Filter):
    """``( C1 --> C2 … )``: a group of ``line`` constituents, only ever the ``filter`` of a
    :class:`LineStep`, so that the whole group repeats (``(C1 --> C2)+``).

    In a canonical tree the step holding a group has a repetition other than ``(1, 1)``
    (an unrepeated group is its constituents written in place) and a group has at least
    one step.  A group is evaluated only as part of its line (semantics: S-move-and-line).
    """

    WORD = "`line`"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    # Printed only inside a line, as the parenthesised group `(C1 --> C2)`.
    PRECEDENCE = Precedence.ATOM

    steps: tuple[LineStep, ...]


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Find(Filter):
    """``find F``: F matches here or at a later position of the line.

    ``all`` makes it numeric: the number of such positions (``find all F``).
    """

    WORD = "`find`"
    CQL_WORDS = ("find", "all")
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.TRANSFORM

    arg: Filter
    all: bool = False

    def value_kind(self) -> Kind:
        return Kind.NUMBER if self.all else Kind.LOGICAL


class TransformKind(enum.Enum):
    FLIPCOLOR = "flipcolor"
    REVERSECOLOR = "reversecolor"
    FLIP = "flip"
    FLIPHORIZONTAL = "fliphorizontal"
    FLIPVERTICAL = "flipvertical"
    ROTATE90 = "rotate90"
    SHIFT = "shift"
    SHIFTHORIZONTAL = "shifthorizontal"
    SHIFTVERTICAL = "shiftvertical"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Transform(Filter):
    """``T F`` / ``T count F`` with the orbit semantics of CQL 6 (semantics: S-orbits)."""

    WORD = "a transform"
    CQL_WORDS = (*(kind.value for kind in TransformKind), "count")
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.TRANSFORM

    kind: TransformKind
    arg: Filter
    count: bool = False

    def value_kind(self) -> Kind:
        return Kind.NUMBER if self.count else self.arg.value_kind()

    def word(self) -> str:
        return f"`{self.kind.value}`"
