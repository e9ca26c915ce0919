"""The shared core: a filter tree shaped after CQL 6.1.

Both paths of the product end here: the translator turns a legacy script into a
:class:`Query`, the modern reader turns CQL 6 text into one, the evaluator runs it
and the printer writes it as CQL 6 text.  Nodes are frozen, slotted ``attrs``
classes; equality is structural, so ``print → read`` round trips can be checked
with ``==`` and orbit members de-duplicated with a ``set``.

Values follow CQL: a *set filter* has a square set (``int`` bitboard) and matches
when it is non-empty; a *numeric filter* has an ``int``; a *logical filter* only
matches or not.  A filter that fails has no value.

A few nodes exist because the legacy language needs them and CQL 6.1 text cannot
say them (:class:`Relation`, :class:`TagDeclaration` users such as
:class:`TaggedPiece`); they carry ``MODERN = False`` and an ``origin`` naming the
legacy construct, so the printer can refuse them with a precise message (T1).

>>> from cqllegacy.vocab.pieces import types_of
>>> knight = PieceSet(types_of("N"), 1 << 27)
>>> flip = Transform(TransformKind.FLIP, Compound((knight,)))
>>> flip == Transform(TransformKind.FLIP, Compound((knight,)))
True
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from cqllegacy.vocab.pieces import ANYTHING, TypeSet
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import FULL, Direction, SquareSet


class Filter:
    """Base of every core node.  ``MODERN`` is False for nodes CQL 6.1 cannot express."""

    __slots__ = ()
    MODERN: ClassVar[bool] = True


@attrs.frozen(slots=True)
class Origin:
    """The legacy construct a node came from: its keyword text and source position."""

    construct: str
    span: Span

    def __str__(self) -> str:
        return f"{self.construct} at {self.span}"


def _origin_field() -> Origin | None:
    return attrs.field(default=None, eq=False, repr=False, kw_only=True)


# --------------------------------------------------------------------------------------
# Set filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class PieceSet(Filter):
    """A piece designator: the squares of ``squares`` whose content is in ``types``.

    ``PieceSet(ANYTHING, FULL)`` is CQL's ``.`` (all squares); ``squares == 0`` is ``[]``.
    """

    types: TypeSet = ANYTHING
    squares: SquareSet = FULL


@attrs.frozen(slots=True)
class Union(Filter):
    """``X | Y | …``."""

    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Intersection(Filter):
    """``X & Y & …``."""

    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Complement(Filter):
    """``~X``: the squares not in X."""

    arg: Filter


@attrs.frozen(slots=True)
class Attacks(Filter):
    """``L attacks R``: squares of L whose piece attacks some square of R."""

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class AttackedBy(Filter):
    """``L attackedby R``: squares of L attacked by some piece on R."""

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class DirectionSet(Filter):
    """``up 1 3 X`` …: X moved ``lo..hi`` steps in each basic vector of ``direction``."""

    direction: Direction
    arg: Filter
    lo: int = 1
    hi: int = 7


@attrs.frozen(slots=True)
class Ray(Filter):
    """``ray [direction] (s1 s2 … sn)``; its value is the set of end squares."""

    args: tuple[Filter, ...]
    direction: Direction = Direction.ANYDIRECTION


@attrs.frozen(slots=True)
class XRay(Filter):
    """``xray (s1 s2 … sn)``: a ray whose first square holds a matching line piece."""

    args: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Between(Filter):
    """``between (s t)``: squares strictly inside a queen line from s to t."""

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class Move(Filter):
    """``move [previous] [from X] [to Y] [capture Z] [promote T] [enpassant]``.

    Without ``previous`` it describes the move played from the current position in
    the line being traversed (the next move); with no such move it fails.
    ``promote`` is a type set (colours matter, as in the legacy ``:promote``).
    """

    from_: Filter | None = None
    to: Filter | None = None
    capture: Filter | None = None
    promote: TypeSet | None = None
    enpassant: bool = False
    previous: bool = False
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class PieceVariable(Filter):
    """``x``: the square of the piece bound to piece variable ``x`` (empty if captured)."""

    name: str


@attrs.frozen(slots=True)
class PieceLoop(Filter):
    """``piece x in DOMAIN BODY``: some piece on DOMAIN, bound to x, makes BODY match.

    The binding follows that physical piece through later positions, promotions
    included.
    """

    name: str
    domain: Filter
    body: Filter


# --------------------------------------------------------------------------------------
# Numeric filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Number(Filter):
    value: int


@attrs.frozen(slots=True)
class Count(Filter):
    """``#X``: the size of set X (always matches)."""

    arg: Filter


@attrs.frozen(slots=True)
class Power(Filter):
    """``power X``: material on the squares of X (P1 N3 B3 R5 Q9 K0)."""

    arg: Filter


class ArithOp(enum.Enum):
    ADD = "+"
    SUB = "-"


@attrs.frozen(slots=True)
class Arith(Filter):
    op: ArithOp
    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class Negate(Filter):
    arg: Filter


class NumericKeyword(enum.Enum):
    YEAR = "year"
    MOVENUMBER = "movenumber"
    PLY = "ply"


@attrs.frozen(slots=True)
class NumericValue(Filter):
    """``year``, ``movenumber``, ``ply``; ``year`` fails when the date has no year."""

    keyword: NumericKeyword


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    def swapped(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


@attrs.frozen(slots=True)
class Elo(Filter):
    """``elo white`` / ``elo black`` / ``elo`` (the larger); fails when missing."""

    color: Color | None = None


@attrs.frozen(slots=True)
class InRange(Filter):
    """``lo <= value <= hi``; either bound may be None (printed ``value >= lo`` …).

    ``lo == hi`` prints as ``value == lo``.  Fails when ``value`` fails.
    """

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


@attrs.frozen(slots=True)
class Compare(Filter):
    """A comparison that is not a range, as hand-written CQL 6 has them."""

    op: CompareOp
    left: Filter
    right: Filter


# --------------------------------------------------------------------------------------
# Logical, position and game filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Compound(Filter):
    """``{F1 … Fn}``: all constituents match; the value is that of the last."""

    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class And(Filter):
    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Or(Filter):
    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Not(Filter):
    arg: Filter


class Keyword(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    WTM = "wtm"
    BTM = "btm"
    CHECK = "check"
    MATE = "mate"
    STALEMATE = "stalemate"
    INITIAL = "initial"
    TERMINAL = "terminal"
    MAINLINE = "mainline"


@attrs.frozen(slots=True)
class Simple(Filter):
    """An argument-less filter: ``wtm``, ``check``, ``initial``, ``true`` …"""

    keyword: Keyword


@attrs.frozen(slots=True)
class Result(Filter):
    """``result 1-0`` …: the game's Result tag (``*`` never matches)."""

    result: GameResult


@attrs.frozen(slots=True)
class Player(Filter):
    """``player [white|black] "text"``: substring of the player tag(s).

    ``ignore_case`` reproduces the legacy ``:player`` (L10).
    """

    text: str
    color: Color | None = None
    ignore_case: bool = False
    origin: Origin | None = _origin_field()


class TagName(enum.Enum):
    EVENT = "event"
    SITE = "site"


@attrs.frozen(slots=True)
class TagContains(Filter):
    """``event "text"`` / ``site "text"``: substring of that tag."""

    tag: TagName
    text: str


@attrs.frozen(slots=True)
class Comment(Filter):
    """A ``//`` comment at its place (T3); matches always and changes nothing."""

    text: str


# --------------------------------------------------------------------------------------
# Filters over several positions
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class LineStep:
    """One constituent of ``line``: ``filter`` repeated ``lo..hi`` times (hi None = no limit).

    ``(1, 1)`` is a plain constituent, ``(0, None)`` is ``*``, ``(1, None)`` is ``+``,
    ``(0, 1)`` is ``?``, anything else ``{lo hi}``.
    """

    filter: Filter
    lo: int = 1
    hi: int | None = 1


@attrs.frozen(slots=True)
class Line(Filter):
    """``line --> C1 --> C2 …``: C1 at the current position, C2 at the next, …

    "Next" follows the line being traversed (the main line, or inside a variation
    that variation).  Only forward lines are used by the translator.
    """

    steps: tuple[LineStep, ...]


@attrs.frozen(slots=True)
class Find(Filter):
    """``find F``: F matches here or at a later position of the line.

    ``all`` makes it numeric: the number of such positions (``find all F``).
    """

    arg: Filter
    all: bool = False


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


@attrs.frozen(slots=True)
class Transform(Filter):
    """``T F`` / ``T count F`` with the orbit semantics of modern-cql §11."""

    kind: TransformKind
    arg: Filter
    count: bool = False


# --------------------------------------------------------------------------------------
# Legacy-only constructs (no CQL 6.1 text)
# --------------------------------------------------------------------------------------


class RelationSideToMove(enum.Enum):
    SAME = "same"
    CHANGE = "change"
    IGNORE = "ignore"


class RelationScope(enum.Enum):
    MAINLINE = "mainline"
    ALL = "all"
    VARIATIONS = "variations"


@attrs.frozen(slots=True)
class Relation(Filter):
    """Legacy ``:relation``: some later position P2 relates to the current one P1.

    ``allowable`` is the set of compared squares (FULL unless ``:pattern``);
    ``shift``/``flip`` allow P2 to be transformed before comparing; the counts are
    ``(types, lo, hi)`` / ``(lo, hi)`` with ``hi`` None for unlimited.
    """

    MODERN: ClassVar[bool] = False

    allowable: SquareSet = FULL
    missing: tuple[TypeSet, int, int | None] = (ANYTHING, 0, 0)
    new: tuple[TypeSet, int, int | None] = (ANYTHING, 0, 0)
    original_different: tuple[int, int | None] | None = None
    original_same: tuple[int, int | None] | None = None
    shift: bool = False
    flip: bool = False
    side_to_move: RelationSideToMove = RelationSideToMove.SAME
    scope: RelationScope = RelationScope.MAINLINE
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class RayCount(Filter):
    """Legacy ``:ray…`` counting (L20): the number of rays, numeric.

    A ray is a run of squares on one line in one of ``directions`` (basic
    directions only) whose first square matches ``args[0]``, last matches
    ``args[-1]``, whose inner designators take distinct inner squares in order, and
    whose other inner squares are empty.  With ``attack`` (``:rayattack``) the first
    square must hold a rook or queen for an orthogonal ray, a bishop or queen for a
    diagonal one (either colour).
    """

    MODERN: ClassVar[bool] = False

    args: tuple[Filter, ...]
    directions: tuple[Direction, ...]
    attack: bool = False
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class LegacyOnly(Filter):
    """Any other legacy construct the translator rewrote into a core node the printer
    cannot express; ``filter`` is what the evaluator runs."""

    MODERN: ClassVar[bool] = False

    filter: Filter
    origin: Origin | None = _origin_field()


# --------------------------------------------------------------------------------------
# The query
# --------------------------------------------------------------------------------------


class Mark(enum.Enum):
    """Which matching positions of a top-level list get a ``MATCH`` comment (L3)."""

    FIRST = "first"
    ALL = "all"
    NONE = "none"


class Scope(enum.Enum):
    """Which positions a top-level list examines (L14).

    "Only variations" is ``ALL`` with a ``not mainline`` constituent in the body, as
    CQL 6 writes it; "main line only" next to lists that need variations is ``ALL``
    with a ``mainline`` constituent.
    """

    MAINLINE = "mainline"
    ALL = "all"


@attrs.frozen(slots=True)
class TopList:
    """One top-level condition of a game: ``body`` evaluated at every examined position.

    The game needs the number of matching positions in ``matchcount``
    (``(lo, hi)``, hi None = no limit; None means "at least one").
    """

    body: Filter
    matchcount: tuple[int, int | None] | None = None
    mark: Mark = Mark.ALL
    scope: Scope = Scope.MAINLINE
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class Header:
    """What CQL 6 writes in ``cql( … )`` besides per-list settings."""

    inputs: tuple[str, ...] = ()
    output: str | None = None
    gamenumber: tuple[int, int | None] | None = None


@attrs.frozen(slots=True)
class TagDeclaration:
    """Legacy ``:forany NAME PD``: NAME is bound to one physical piece of the start
    position that is, now or after a promotion, of a type in ``types``.

    The whole query is evaluated once per binding of all tags (distinct tags take
    distinct pieces); the game matches when some binding satisfies every list.
    :class:`PieceVariable` nodes read the bound piece's current square.
    """

    MODERN: ClassVar[bool] = False

    name: str
    types: TypeSet
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class Query:
    """A complete query: a game matches when every top-level list is satisfied.

    A CQL 6 script is a query with one list; a legacy script has one list per
    top-level position list (they may match at different positions).
    """

    header: Header
    lists: tuple[TopList, ...]
    tags: tuple[TagDeclaration, ...] = ()
    leading_comments: tuple[str, ...] = ()
