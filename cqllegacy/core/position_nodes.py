"""Comparing positions: ``echo``, position variables and their filters (semantics:
S-echo)."""

from __future__ import annotations

import attrs

from cqllegacy.core.declarations import (
    ANY_FILTER,
    NO_OPERANDS,
    POSITIONS,
    Arguments,
    Filter,
    Kind,
    Precedence,
    Reads,
    Transforms,
    by_field,
)
from cqllegacy.core.set_nodes import PieceVariable, SquareVariable


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Echo(Filter):
    """``echo (S T) BODY``: with S bound to the current position (the source), some other
    position of the game in scope, bound to T and made current (the target), makes BODY
    match.  ``in_all`` (``echo (S T) in all BODY``) also tries the source as a target.

    Logical; numeric when BODY is numeric: the largest value over the targets where BODY
    matched.  ``quiet`` only silences CQL's comments and changes no match.
    """

    WORD = "`echo`"
    CQL_WORDS = ("echo", "in", "all", "quiet")
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.TRANSFORM

    source: str
    target: str
    body: Filter
    in_all: bool = False
    quiet: bool = False

    def value_kind(self) -> Kind:
        return Kind.NUMBER if self.body.value_kind() is Kind.NUMBER else Kind.LOGICAL


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PositionVariable(Filter):
    """``S``: the position bound to the echo variable S (a position value).

    A position is usable only where a position is wanted: ``S : F``, ``S & T``, ``S < T``
    and the other comparisons (position order, M7), ``ancestor(S T)``.
    """

    WORD = "a position variable"
    CQL_WORDS = ()
    KIND = Kind.POSITION
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.GAME
    PRECEDENCE = Precedence.ATOM

    name: str


#: The node classes whose value is what a loop or ``echo`` around them bound: a filter
#: holding one of them is no constant of the bindings (the evaluator's caches ask).
VARIABLES: tuple[type[Filter], ...] = (PieceVariable, SquareVariable, PositionVariable)


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class AtPosition(Filter):
    """``POSITION : F``: F evaluated with POSITION as the current position; it matches when F
    matched there, and its value is F's value there."""

    WORD = "`:`"
    CQL_WORDS = ()
    KIND = None
    OPERANDS = by_field(position=POSITIONS, arg=ANY_FILTER)
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.COLON

    position: Filter
    arg: Filter

    def value_kind(self) -> Kind:
        return self.arg.value_kind()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PositionIntersection(Filter):
    """``X & Y`` of two positions: the squares on which both hold the same piece type and
    colour, a square empty in both included (a set filter)."""

    WORD = "`&`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = POSITIONS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.INTERSECTION

    left: Filter
    right: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Ancestor(Filter):
    """``ancestor(X Y)``: position X is Y or lies before Y on the way from the start
    position to Y (logical; decision M8)."""

    SYNTAX = Arguments()
    WORD = "`ancestor`"
    CQL_WORDS = ("ancestor",)
    KIND = Kind.LOGICAL
    OPERANDS = POSITIONS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.ATOM

    left: Filter
    right: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Distance(Filter):
    """CQL 6.1 ``distance(X Y)``: how many moves of the game tree separate positions X and
    Y, through their latest common ancestor (numeric; 0 when X is Y).  Only in CQL 6
    scripts.  Not the distance of two squares on the board."""

    SYNTAX = Arguments()
    WORD = "`distance`"
    CQL_WORDS = ("distance",)
    KIND = Kind.NUMBER
    OPERANDS = POSITIONS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.ATOM

    left: Filter
    right: Filter
