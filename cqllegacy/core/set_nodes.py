"""Set filters of the core tree: designators, set operators, attacks, directions,
rays, ``move``, piece and square loops (a set filter's value is a square set)."""

from __future__ import annotations

import enum

import attrs

from cqllegacy.core.declarations import (
    ANY_FILTER,
    NO_OPERANDS,
    SETS,
    Arguments,
    Filter,
    Kind,
    Loop,
    Origin,
    Place,
    Precedence,
    Prefix,
    Reads,
    Syntax,
    Transforms,
    by_field,
    origin_field,
)
from cqllegacy.vocab.pieces import ANYTHING, TypeSet
from cqllegacy.vocab.squares import FULL, Direction, SquareSet


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PieceSet(Filter):
    """A piece designator: the squares of ``squares`` whose content is in ``types``.

    ``PieceSet(ANYTHING, FULL)`` is CQL's ``.`` (all squares); ``squares == 0`` is ``[]``.
    """

    WORD = "a piece designator"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM
    IS_DESIGNATOR = True

    types: TypeSet = ANYTHING
    squares: SquareSet = FULL


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Union(Filter):
    """``X | Y | …``."""

    WORD = "`|`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.UNION

    items: tuple[Filter, ...]

    def _disjunction_items(self) -> tuple[Filter, ...]:
        return self.items


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Intersection(Filter):
    """``X & Y & …``."""

    WORD = "`&`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.INTERSECTION

    items: tuple[Filter, ...]


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Complement(Filter):
    """``~X``: the squares not in X."""

    WORD = "`~`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.COMPLEMENT

    arg: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Attacks(Filter):
    """``L attacks R``: squares of L whose piece attacks some square of R."""

    WORD = "`attacks`"
    CQL_WORDS = ("attacks",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATTACK

    left: Filter
    right: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class AttackedBy(Filter):
    """``L attackedby R``: squares of L attacked by some piece on R."""

    WORD = "`attackedby`"
    CQL_WORDS = ("attackedby",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATTACK

    left: Filter
    right: Filter


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class DirectionSet(Filter):
    """``up 1 3 X`` …: X moved ``lo..hi`` steps in each basic vector of ``direction``."""

    WORD = "a direction filter"
    CQL_WORDS = tuple(direction.word for direction in Direction)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.COMPLEMENT

    direction: Direction
    arg: Filter
    lo: int = 1
    hi: int = 7

    def word(self) -> str:
        return f"`{self.direction.word}`"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class SquareColor(Filter):
    """CQL 6.1 ``light X`` / ``dark X``: the squares of X that are light (dark) squares
    of the board (a1 is dark).  Only in CQL 6 scripts."""

    # As a direction's argument: one token, or parenthesised.
    SYNTAX = Prefix(reads_above=Precedence.DIRECTION, place=Place.TOKEN, flag="dark")
    WORD = "`light`"
    CQL_WORDS = ("light", "dark")
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.COMPLEMENT

    dark: bool
    arg: Filter

    def word(self) -> str:
        return "`dark`" if self.dark else "`light`"


class PawnFeature(enum.Enum):
    """What :class:`PawnStructure` asks of a pawn; the values are the CQL 6.1 words."""

    #: No enemy pawn ahead of it (towards its promotion rank) on its file or an adjacent one.
    PASSED = "passedpawns"
    #: No pawn of its colour on an adjacent file (any rank).
    ISOLATED = "isolatedpawns"
    #: Another pawn of its colour on its file (every pawn of such a file counts).
    DOUBLED = "doubledpawns"
    #: A pawn of its colour on an adjacent file (any rank).
    CONNECTED = "connectedpawns"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PawnStructure(Filter):
    """CQL 6.1 ``passedpawns``, ``isolatedpawns``, ``doubledpawns``, ``connectedpawns``:
    the squares of the pawns of either colour that have the feature, each pawn judged
    against the pawns of its own colour (and, for passed, the enemy's) (semantics:
    S-pawn-structure).  CQL defines them under ``notransform``: no transform changes them.
    Only in CQL 6 scripts."""

    SYNTAX = Syntax.WORD
    WORD = "a pawn-structure filter"
    CQL_WORDS = tuple(feature.value for feature in PawnFeature)
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM

    feature: PawnFeature

    def word(self) -> str:
        return f"`{self.feature.value}`"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Ray(Filter):
    """``ray [direction] (s1 s2 … sn)``; its value is the set of end squares."""

    WORD = "`ray`"
    CQL_WORDS = ("ray",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM

    args: tuple[Filter, ...]
    direction: Direction = Direction.ANYDIRECTION


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class XRay(Filter):
    """``xray (s1 s2 … sn)``: a ray whose first square holds a matching line piece."""

    WORD = "`xray`"
    CQL_WORDS = ("xray",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM

    args: tuple[Filter, ...]


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Between(Filter):
    """``between (s t)``: squares strictly inside a queen line from s to t."""

    SYNTAX = Arguments(gap=" ")
    WORD = "`between`"
    CQL_WORDS = ("between",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM

    left: Filter
    right: Filter


class Castling(enum.Enum):
    """The side a ``move`` must castle to; the values are the CQL 6.1 parameters."""

    KINGSIDE = "o-o"
    QUEENSIDE = "o-o-o"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Move(Filter):
    """``move [previous] [o-o | o-o-o] [from X] [to Y] [capture Z] [promote T] [enpassant]``.

    Without ``previous`` it describes the move played from the current position in
    the line being traversed (the next move); with no such move it fails.
    ``promote`` is a type set (colours matter, as in the legacy ``:promote``).
    ``castle`` (CQL 6.1 only): the move castles to that side, either colour (semantics:
    S-castling).
    """

    WORD = "`move`"
    CQL_WORDS = (
        "move",
        "from",
        "to",
        "capture",
        "promote",
        "enpassant",
        "previous",
        *(side.value for side in Castling),
    )
    KIND = Kind.LOGICAL
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.NEXT_MOVE
    PRECEDENCE = Precedence.MOVE

    from_: Filter | None = None
    to: Filter | None = None
    capture: Filter | None = None
    promote: TypeSet | None = None
    enpassant: bool = False
    previous: bool = False
    castle: Castling | None = None
    origin: Origin | None = origin_field()

    def reads_itself(self) -> Reads:
        # The previous move is read from the position before: another position.
        return Reads.GAME if self.previous else Reads.NEXT_MOVE


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PieceVariable(Filter):
    """``x``: the square of the piece bound to piece variable ``x`` (empty if captured)."""

    WORD = "a piece variable"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.GAME
    PRECEDENCE = Precedence.ATOM

    name: str


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PieceLoop(Filter):
    """``piece x in DOMAIN BODY``: some piece on DOMAIN, bound to x, makes BODY match
    (a set filter: the squares of DOMAIN whose piece makes BODY match).

    ``all`` (``piece all x in DOMAIN BODY``) is logical: BODY matches for every piece on
    DOMAIN (so also when DOMAIN holds none).  The binding follows that physical piece
    through later positions, promotions, castling and en passant included
    (semantics: S-piece-variables, M6).
    """

    SYNTAX = Loop(binds="piece")
    WORD = "`piece`"
    CQL_WORDS = ("piece", "all", "in")
    KIND = None
    OPERANDS = by_field(domain=SETS, body=ANY_FILTER)
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME
    PRECEDENCE = Precedence.TRANSFORM

    name: str
    domain: Filter
    body: Filter
    all: bool = False

    def value_kind(self) -> Kind:
        return Kind.LOGICAL if self.all else Kind.SET

    def word(self) -> str:
        return "`piece all`" if self.all else "`piece`"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class SquareVariable(Filter):
    """CQL 6.1 ``x`` bound by ``square x in …``: the one square bound to x (a set filter).

    Unlike a :class:`PieceVariable` it names a square, not a piece: its value is the same
    square at every position the body looks at (semantics: S-square-variables).  Its value
    is given per binding by the loop around it, at a position: declared to read the
    position so that nothing takes it for a constant of the game.
    """

    WORD = "a square variable"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM

    name: str


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class SquareLoop(Filter):
    """CQL 6.1 ``square x in DOMAIN BODY``: the squares of DOMAIN that, bound to x, make
    BODY match (a set filter; it matches when some square does).

    ``all`` (``square all x in DOMAIN BODY``) is logical: BODY matches for every square of
    DOMAIN, so also when DOMAIN is empty (CQL 6.1 square.html: "body is never false").
    Only in CQL 6 scripts.  A transform maps DOMAIN and BODY; x takes the images' squares.
    """

    SYNTAX = Loop(binds="square")
    WORD = "`square`"
    CQL_WORDS = ("square", "all", "in")
    KIND = None
    OPERANDS = by_field(domain=SETS, body=ANY_FILTER)
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION
    PRECEDENCE = Precedence.TRANSFORM

    name: str
    domain: Filter
    body: Filter
    all: bool = False

    def value_kind(self) -> Kind:
        return Kind.LOGICAL if self.all else Kind.SET

    def word(self) -> str:
        return "`square all`" if self.all else "`square`"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class InSet(Filter):
    """``X in Y`` for two square sets: X is a subset of Y (an empty X is in anything).

    Logical (semantics: S-modern-sets).
    """

    WORD = "`in`"
    CQL_WORDS = ("in",)
    KIND = Kind.LOGICAL
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.IN

    left: Filter
    right: Filter
