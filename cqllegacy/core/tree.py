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
from collections.abc import Callable, Iterator
from typing import ClassVar, TypeVar

import attrs

from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, TypeSet, types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import FULL, Direction, SquareSet


class Reads(enum.IntEnum):
    """How far a node looks, from least to most; a tree looks as far as its farthest node.

    The evaluator chooses how to run a query from this (tags alone, the board python-chess
    is reading, or the whole game tree), so the order matters: ``max`` combines.
    """

    #: Nothing, or the game's tags alone (``result``, ``player``, numbers, ``and`` …).
    TAGS = 0
    #: The current position and the tags.
    POSITION = 1
    #: Also the move played from the current position.
    NEXT_MOVE = 2
    #: Other positions, earlier or later, or pieces followed through the game.  The
    #: default: a node class that declares nothing is evaluated on the full game tree.
    GAME = 3


class Filter:
    """Base of every core node, and the tree API every node shares.

    ``MODERN`` is False for nodes CQL 6.1 cannot express; ``READS`` declares how far the
    node itself looks (its children add theirs, see :meth:`reads`).

    >>> from cqllegacy.vocab.pieces import types_of
    >>> tree = Not(Count(PieceSet(types_of("Q"))))
    >>> [type(n).__name__ for n in tree.walk()]
    ['Not', 'Count', 'PieceSet']
    >>> tree.reads() is Reads.POSITION
    True
    >>> tree.transform(lambda n: Number(3) if isinstance(n, Count) else n)
    Not(arg=Number(value=3))
    """

    __slots__ = ()
    MODERN: ClassVar[bool] = True
    READS: ClassVar[Reads] = Reads.GAME

    def reads_itself(self) -> Reads:
        """How far this node looks, its children aside (``READS`` unless a field decides)."""
        return self.READS

    def reads(self) -> Reads:
        """How far this node and everything below it look."""
        return max(node.reads_itself() for node in self.walk())

    def children(self) -> tuple[Filter, ...]:
        """The filters directly below this node, in field order."""
        found: list[Filter] = []
        for name in _node_fields(type(self)).names:
            value = getattr(self, name)
            if isinstance(value, Filter):
                found.append(value)
            elif isinstance(value, tuple):
                found.extend(_filters_in(value))
        return tuple(found)

    def walk(self) -> Iterator[Filter]:
        """This node and every node below it, depth first, parents before children."""
        stack: list[Filter] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def find_all(self, *types: type[Filter]) -> Iterator[Filter]:
        """The nodes of ``walk`` that are instances of ``types``."""
        return (node for node in self.walk() if isinstance(node, types))

    def find(self, *types: type[Filter]) -> Filter | None:
        """The first node of ``walk`` that is an instance of ``types``, or None."""
        return next(self.find_all(*types), None)

    def replace(self: _F, **changes: object) -> _F:
        """This node rebuilt field by field with ``changes`` (fields named as attributes)."""
        fields = _node_fields(type(self))
        values = {alias: getattr(self, name) for name, alias in fields.init}
        values.update({fields.alias_of[name]: value for name, value in changes.items()})
        return type(self)(**values)

    def map_children(self: _F, fn: Callable[[Filter], Filter]) -> _F:
        """This node with every child replaced by ``fn(child)`` (itself when none changes)."""
        changes: dict[str, object] = {}
        for name in _node_fields(type(self)).names:
            value = getattr(self, name)
            if isinstance(value, Filter):
                new: object = fn(value)
            elif isinstance(value, tuple):
                new = _map_tuple(value, fn)
            else:
                continue
            if new is not value:
                changes[name] = new
        return self.replace(**changes) if changes else self

    def transform(self, fn: Callable[[Filter], Filter]) -> Filter:
        """The tree rebuilt bottom up: ``fn`` sees each node with its children already
        transformed, and returns its replacement."""
        return fn(self.map_children(lambda child: child.transform(fn)))


_F = TypeVar("_F", bound=Filter)


@attrs.frozen
class _NodeFields:
    #: Every field that can hold a filter (a filter, or a tuple of filters or line steps).
    names: tuple[str, ...]
    #: (attribute, ``__init__`` parameter) of every field ``__init__`` takes.
    init: tuple[tuple[str, str], ...]
    alias_of: dict[str, str]


#: What :func:`_node_fields` found, by node class.
_NODE_FIELDS: dict[type[Filter], _NodeFields] = {}


def _node_fields(cls: type[Filter]) -> _NodeFields:
    # A dict rather than functools.cache: mypy does not take a class for Hashable.
    found = _NODE_FIELDS.get(cls)
    if found is None:
        found = _NODE_FIELDS[cls] = _read_node_fields(cls)
    return found


def _read_node_fields(cls: type[Filter]) -> _NodeFields:
    if not attrs.has(cls):
        raise attrs.exceptions.NotAnAttrsClassError(f"{cls!r} is not an attrs-decorated class.")
    fields = attrs.fields(cls)
    init = tuple((f.name, f.alias or f.name) for f in fields if f.init)
    return _NodeFields(
        names=tuple(f.name for f in fields if f.name != "origin"),
        init=init,
        alias_of=dict(init),
    )


def _filters_in(values: tuple[object, ...]) -> Iterator[Filter]:
    for item in values:
        if isinstance(item, Filter):
            yield item
        elif isinstance(item, LineStep):
            yield item.filter


def _map_tuple(values: tuple[object, ...], fn: Callable[[Filter], Filter]) -> tuple[object, ...]:
    """``values`` with ``fn`` applied to its filters (the same tuple when nothing changed)."""
    out: list[object] = []
    for item in values:
        if isinstance(item, Filter):
            out.append(fn(item))
        elif isinstance(item, LineStep):
            new = fn(item.filter)
            out.append(item if new is item.filter else attrs.evolve(item, filter=new))
        else:
            out.append(item)
    return values if all(a is b for a, b in zip(out, values, strict=True)) else tuple(out)


@attrs.frozen(slots=True)
class Origin:
    """The legacy construct a node came from: its keyword text and source position."""

    construct: str
    span: Span

    def __str__(self) -> str:
        return f"{self.construct} at {self.span}"


def _origin_field() -> Origin | None:
    # attrs' stub types a field with a None default as Any; the attribute holds this.
    field: Origin | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)
    return field


# --------------------------------------------------------------------------------------
# Set filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class PieceSet(Filter):
    """A piece designator: the squares of ``squares`` whose content is in ``types``.

    ``PieceSet(ANYTHING, FULL)`` is CQL's ``.`` (all squares); ``squares == 0`` is ``[]``.
    """

    READS: ClassVar[Reads] = Reads.POSITION

    types: TypeSet = ANYTHING
    squares: SquareSet = FULL


@attrs.frozen(slots=True)
class Union(Filter):
    """``X | Y | …``."""

    READS: ClassVar[Reads] = Reads.POSITION

    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Intersection(Filter):
    """``X & Y & …``."""

    READS: ClassVar[Reads] = Reads.POSITION

    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Complement(Filter):
    """``~X``: the squares not in X."""

    READS: ClassVar[Reads] = Reads.POSITION

    arg: Filter


@attrs.frozen(slots=True)
class Attacks(Filter):
    """``L attacks R``: squares of L whose piece attacks some square of R."""

    READS: ClassVar[Reads] = Reads.POSITION

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class AttackedBy(Filter):
    """``L attackedby R``: squares of L attacked by some piece on R."""

    READS: ClassVar[Reads] = Reads.POSITION

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class DirectionSet(Filter):
    """``up 1 3 X`` …: X moved ``lo..hi`` steps in each basic vector of ``direction``."""

    READS: ClassVar[Reads] = Reads.POSITION

    direction: Direction
    arg: Filter
    lo: int = 1
    hi: int = 7


@attrs.frozen(slots=True)
class Ray(Filter):
    """``ray [direction] (s1 s2 … sn)``; its value is the set of end squares."""

    READS: ClassVar[Reads] = Reads.POSITION

    args: tuple[Filter, ...]
    direction: Direction = Direction.ANYDIRECTION


@attrs.frozen(slots=True)
class XRay(Filter):
    """``xray (s1 s2 … sn)``: a ray whose first square holds a matching line piece."""

    READS: ClassVar[Reads] = Reads.POSITION

    args: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Between(Filter):
    """``between (s t)``: squares strictly inside a queen line from s to t."""

    READS: ClassVar[Reads] = Reads.POSITION

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class Move(Filter):
    """``move [previous] [from X] [to Y] [capture Z] [promote T] [enpassant]``.

    Without ``previous`` it describes the move played from the current position in
    the line being traversed (the next move); with no such move it fails.
    ``promote`` is a type set (colours matter, as in the legacy ``:promote``).
    """

    READS: ClassVar[Reads] = Reads.NEXT_MOVE

    from_: Filter | None = None
    to: Filter | None = None
    capture: Filter | None = None
    promote: TypeSet | None = None
    enpassant: bool = False
    previous: bool = False
    origin: Origin | None = _origin_field()

    def reads_itself(self) -> Reads:
        # The previous move is read from the position before: another position.
        return Reads.GAME if self.previous else Reads.NEXT_MOVE


@attrs.frozen(slots=True)
class PieceVariable(Filter):
    """``x``: the square of the piece bound to piece variable ``x`` (empty if captured)."""

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    name: str


@attrs.frozen(slots=True)
class PieceLoop(Filter):
    """``piece x in DOMAIN BODY``: some piece on DOMAIN, bound to x, makes BODY match
    (a set filter: the squares of DOMAIN whose piece makes BODY match).

    ``all`` (``piece all x in DOMAIN BODY``) is logical: BODY matches for every piece on
    DOMAIN (so also when DOMAIN holds none).  The binding follows that physical piece
    through later positions, promotions, castling and en passant included
    (semantics: S-piece-variables, M6).
    """

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    name: str
    domain: Filter
    body: Filter
    all: bool = False


@attrs.frozen(slots=True)
class InSet(Filter):
    """``X in Y`` for two square sets: X is a subset of Y (an empty X is in anything).

    Logical (semantics: S-modern-sets).
    """

    READS: ClassVar[Reads] = Reads.TAGS

    left: Filter
    right: Filter


# --------------------------------------------------------------------------------------
# Numeric filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Number(Filter):

    READS: ClassVar[Reads] = Reads.TAGS
    value: int


@attrs.frozen(slots=True)
class Count(Filter):
    """``#X``: the size of set X (always matches)."""

    READS: ClassVar[Reads] = Reads.TAGS

    arg: Filter


@attrs.frozen(slots=True)
class Power(Filter):
    """``power X``: material on the squares of X (P1 N3 B3 R5 Q9 K0)."""

    READS: ClassVar[Reads] = Reads.POSITION

    arg: Filter


class ArithOp(enum.Enum):
    ADD = "+"
    SUB = "-"


@attrs.frozen(slots=True)
class Arith(Filter):

    READS: ClassVar[Reads] = Reads.TAGS
    op: ArithOp
    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class Negate(Filter):

    READS: ClassVar[Reads] = Reads.TAGS
    arg: Filter


class NumericKeyword(enum.Enum):
    YEAR = "year"
    MOVENUMBER = "movenumber"
    PLY = "ply"


@attrs.frozen(slots=True)
class NumericValue(Filter):
    """``year``, ``movenumber``, ``ply``; ``year`` fails when the date has no year."""

    READS: ClassVar[Reads] = Reads.TAGS

    keyword: NumericKeyword

    def reads_itself(self) -> Reads:
        return Reads.TAGS if self.keyword is NumericKeyword.YEAR else Reads.POSITION


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    def swapped(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


@attrs.frozen(slots=True)
class Elo(Filter):
    """``elo white`` / ``elo black`` / ``elo`` (the larger); fails when missing."""

    READS: ClassVar[Reads] = Reads.TAGS

    color: Color | None = None


@attrs.frozen(slots=True)
class InRange(Filter):
    """``lo <= value <= hi``; either bound may be None (printed ``value >= lo`` …).

    ``lo == hi`` prints as ``value == lo``.  Fails when ``value`` fails.
    """

    READS: ClassVar[Reads] = Reads.TAGS

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

    READS: ClassVar[Reads] = Reads.TAGS

    op: CompareOp
    left: Filter
    right: Filter


# --------------------------------------------------------------------------------------
# Logical, position and game filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Compound(Filter):
    """``{F1 … Fn}``: all constituents match; the value is that of the last."""

    READS: ClassVar[Reads] = Reads.TAGS

    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class And(Filter):

    READS: ClassVar[Reads] = Reads.TAGS
    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Or(Filter):

    READS: ClassVar[Reads] = Reads.TAGS
    items: tuple[Filter, ...]


@attrs.frozen(slots=True)
class Not(Filter):

    READS: ClassVar[Reads] = Reads.TAGS
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
    #: A position that is not on the main line (``not mainline``).
    VARIATION = "variation"


@attrs.frozen(slots=True)
class Simple(Filter):
    """An argument-less filter: ``wtm``, ``check``, ``initial``, ``true`` …"""

    READS: ClassVar[Reads] = Reads.TAGS

    keyword: Keyword

    def reads_itself(self) -> Reads:
        return _SIMPLE_READS[self.keyword]


#: ``terminal`` asks whether a move follows; ``true``/``false`` read nothing.
_SIMPLE_READS = {
    **{keyword: Reads.POSITION for keyword in Keyword},
    Keyword.TRUE: Reads.TAGS,
    Keyword.FALSE: Reads.TAGS,
    Keyword.TERMINAL: Reads.NEXT_MOVE,
}


@attrs.frozen(slots=True)
class SideToMove(Filter):
    """``sidetomove``: 1 when White is to move, -1 when Black is (numeric).

    The colour swap of a transform leaves it alone (decision M9)."""

    READS: ClassVar[Reads] = Reads.POSITION


@attrs.frozen(slots=True)
class Result(Filter):
    """``result 1-0`` …: the game's Result tag (``*`` never matches)."""

    READS: ClassVar[Reads] = Reads.TAGS

    result: GameResult


@attrs.frozen(slots=True)
class Player(Filter):
    """``player [white|black] "text"``: substring of the player tag(s).

    ``ignore_case`` reproduces the legacy ``:player`` (L10).
    """

    READS: ClassVar[Reads] = Reads.TAGS

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

    READS: ClassVar[Reads] = Reads.TAGS

    tag: TagName
    text: str


@attrs.frozen(slots=True)
class Comment(Filter):
    """A ``//`` comment at its place (T3); matches always and changes nothing.

    ``trailing`` says the comment annotates the filter before it in its compound: it is
    written at the end of that filter's (last) line, as ``Nd4  // the knight``.  A
    trailing comment that opens a compound annotates the opening: it is written on the
    line of the ``{`` (or of the ``cql( )`` header, for the first filter of the body).
    Otherwise the comment stands on a line of its own, before what follows it.
    """

    READS: ClassVar[Reads] = Reads.TAGS

    text: str
    trailing: bool = False


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

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    steps: tuple[LineStep, ...]


@attrs.frozen(slots=True)
class LineGroup(Filter):
    """``( C1 --> C2 … )``: a group of ``line`` constituents, only ever the ``filter`` of a
    :class:`LineStep`, so that the whole group repeats (``(C1 --> C2)+``).

    In a canonical tree the step holding a group has a repetition other than ``(1, 1)``
    (an unrepeated group is its constituents written in place) and a group has at least
    one step.  A group is evaluated only as part of its line (semantics: S-move-and-line).
    """

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    steps: tuple[LineStep, ...]


@attrs.frozen(slots=True)
class Find(Filter):
    """``find F``: F matches here or at a later position of the line.

    ``all`` makes it numeric: the number of such positions (``find all F``).
    """

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

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
    """``T F`` / ``T count F`` with the orbit semantics of CQL 6 (semantics: S-orbits)."""

    READS: ClassVar[Reads] = Reads.TAGS

    kind: TransformKind
    arg: Filter
    count: bool = False


# --------------------------------------------------------------------------------------
# Comparing positions: echo, position variables and their filters (semantics: S-echo)
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Echo(Filter):
    """``echo (S T) BODY``: with S bound to the current position (the source), some other
    position of the game in scope, bound to T and made current (the target), makes BODY
    match.  ``in_all`` (``echo (S T) in all BODY``) also tries the source as a target.

    Logical; numeric when BODY is numeric: the largest value over the targets where BODY
    matched.  ``quiet`` only silences CQL's comments and changes no match.
    """

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    source: str
    target: str
    body: Filter
    in_all: bool = False
    quiet: bool = False


@attrs.frozen(slots=True)
class PositionVariable(Filter):
    """``S``: the position bound to the echo variable S (a position value).

    A position is usable only where a position is wanted: ``S : F``, ``S & T``, ``S < T``
    and the other comparisons (position order, M7), ``ancestor(S T)``.
    """

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    name: str


@attrs.frozen(slots=True)
class AtPosition(Filter):
    """``POSITION : F``: F evaluated with POSITION as the current position; it matches when F
    matched there, and its value is F's value there."""

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    position: Filter
    arg: Filter


@attrs.frozen(slots=True)
class PositionIntersection(Filter):
    """``X & Y`` of two positions: the squares on which both hold the same piece type and
    colour, a square empty in both included (a set filter)."""

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    left: Filter
    right: Filter


@attrs.frozen(slots=True)
class Ancestor(Filter):
    """``ancestor(X Y)``: position X is Y or lies before Y on the way from the start
    position to Y (logical; decision M8)."""

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

    left: Filter
    right: Filter


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

    READS: ClassVar[Reads] = Reads.GAME  # said although it is the default: chosen, not inherited

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

    READS: ClassVar[Reads] = Reads.POSITION

    MODERN: ClassVar[bool] = False

    args: tuple[Filter, ...]
    directions: tuple[Direction, ...]
    attack: bool = False
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class LegacyOnly(Filter):
    """Any other legacy construct the translator rewrote into a core node the printer
    cannot express; ``filter`` is what the evaluator runs."""

    READS: ClassVar[Reads] = Reads.TAGS

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

    def start_types(self) -> TypeSet:
        """The types a piece of the start position may have to be eligible: ``types``
        and the pawns of each colour that has a piece type in ``types`` a pawn can
        promote to (that pawn may become one later).

        >>> from cqllegacy.vocab.pieces import format_modern_types, types_of
        >>> format_modern_types(TagDeclaration("rook", types_of("Rr")).start_types())
        '[RPrp]'
        >>> format_modern_types(TagDeclaration("king", types_of("K")).start_types())
        'K'
        """
        start = self.types & ANY_PIECE
        for pawn, promoted in ((_WHITE_PAWN, _WHITE_PROMOTED), (_BLACK_PAWN, _BLACK_PROMOTED)):
            if start & promoted:
                start |= pawn
        return start


_WHITE_PAWN = types_of("P")
_BLACK_PAWN = types_of("p")
_WHITE_PROMOTED = types_of("QRBN")
_BLACK_PROMOTED = types_of("qrbn")


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
