"""The legacy (CQL 3.x) script as an immutable tree: one class per construct.

Every node is a frozen, slotted ``attrs`` class.  Source positions (``span``) and
nothing else are left out of equality, so two spellings of one construct compare
equal (``Ra-h1`` and ``R[a1,b1,c1,d1,e1,f1,g1,h1]``) and whole lists hash, which
the translator uses to de-duplicate transformed lists.

Piece designators are normalised on construction: a type set (13-bit mask, see
:mod:`cqllegacy.vocab.pieces`) and a square set (64-bit int, python-chess numbering).

>>> from cqllegacy.vocab.pieces import legacy_types
>>> Designator(legacy_types("R"), 0xFF) == Designator(legacy_types("[R]"), 0xFF, span=Span(3, 4))
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import TypeAlias

import attrs

from cqllegacy.legacy.dialect_items import (
    BoardTest,
    BoardTestKeyword,
    CastlingMove,
    CastlingRightsTest,
    ColorPlayer,
    ColorPlayerKeyword,
    DateRange,
    EcoCodes,
    EitherColor,
    FenPosition,
    GameFeature,
    GameFeatureKeyword,
    HalfmoveClockRange,
    HypotheticalMoves,
    LineMove,
    MatchElo,
    MatchEloKeyword,
    NamedTag,
    PawnAttribute,
    PawnChain,
    PawnCount,
    PawnTest,
    PlyCountRange,
    RoundKeyword,
    RoundRange,
    TagWord,
    TagWordKeyword,
    Terminations,
    TransposedLine,
)
from cqllegacy.legacy.tree_base import (
    Comment,
    Designator,
    DialectItem,
    KeywordDeclaration,
    Range,
    Shape,
    Transformed,
    keyed,
    keyword,
    span_field,
)
from cqllegacy.records import Record
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import NO_SPAN, Span

# The leaves (tree_base), the dialect items (dialect_items), Span, NO_SPAN and GameResult
# are re-exported for the modules that read them from here.
__all__ = [
    "NO_SPAN",
    "Accumulate",
    "AccumulateEach",
    "AttackCount",
    "BoardTest",
    "BoardTestKeyword",
    "CastlingMove",
    "CastlingRightsTest",
    "ColorPlayer",
    "ColorPlayerKeyword",
    "Comment",
    "DateRange",
    "Designator",
    "DialectItem",
    "EcoCodes",
    "EitherColor",
    "FenPosition",
    "Flag",
    "FlagKeyword",
    "ForAny",
    "GameFeature",
    "GameFeatureKeyword",
    "GameResult",
    "HalfmoveClockRange",
    "HypotheticalMoves",
    "KeywordDeclaration",
    "LineMove",
    "ListKeyword",
    "ListOfLists",
    "MatchCondition",
    "MatchElo",
    "MatchEloKeyword",
    "MatchItem",
    "MatchList",
    "MatchPath",
    "MatchPathKeyword",
    "MatchRange",
    "MatchRangeKeyword",
    "MatchResult",
    "MoveKeyword",
    "MoveTest",
    "NamedTag",
    "NegatedMatchItem",
    "PawnAttribute",
    "PawnChain",
    "PawnCount",
    "PawnTest",
    "PieceCount",
    "Player",
    "PlyCountRange",
    "PositionItem",
    "PositionList",
    "Power",
    "PowerDifference",
    "Range",
    "RangeKeyword",
    "RangeTest",
    "Ray",
    "RayKeyword",
    "Relation",
    "RelationCountKeyword",
    "RelationFlag",
    "RelationFlagKeyword",
    "RelationItem",
    "RelationPieceCount",
    "RelationRange",
    "RelationRangeKeyword",
    "ResultTest",
    "RoundKeyword",
    "RoundRange",
    "Script",
    "Shape",
    "Span",
    "SumRange",
    "TagMatch",
    "TagWord",
    "TagWordKeyword",
    "Terminations",
    "Transform",
    "TransformKeyword",
    "Transformed",
    "TransposedLine",
    "designators",
]


# --------------------------------------------------------------------------------------
# Position-list items
# --------------------------------------------------------------------------------------


class FlagKeyword(enum.Enum):
    """Argument-less position-list keywords other than transforms."""

    MATE = "mate"
    STALEMATE = "stalemate"
    CHECK = "check"
    NOCHECK = "nocheck"
    WTM = "wtm"
    BTM = "btm"
    INITIAL = "initial"
    VARIATIONS = "variations"
    VARIATIONSONLY = "variationsonly"
    MARKALL = "markall"
    NOANNOTATE = "noannotate"
    NOT = "not"
    ENPASSANT = "enpassant"
    NOENPASSANT = "noenpassant"


class TransformKeyword(enum.Enum):
    """Transform keywords of a position list (semantics: S-legacy-transforms)."""

    FLIP = "flip"
    FLIPDIHEDRAL = "flipdihedral"
    FLIPCOLOR = "flipcolor"
    FLIPDIAGONAL = "flipdiagonal"
    FLIPOFFDIAGONAL = "flipoffdiagonal"
    FLIPHORIZONTAL = "fliphorizontal"
    FLIPVERTICAL = "flipvertical"
    SHIFT = "shift"
    SHIFTHORIZONTAL = "shifthorizontal"
    SHIFTVERTICAL = "shiftvertical"
    SHIFTMAINDIAGONAL = "shiftmaindiagonal"
    SHIFTOFFDIAGONAL = "shiftoffdiagonal"
    SHIFTDIAGONAL = "shiftdiagonal"


@attrs.frozen(repr=False, slots=True)
class Flag(Record):
    KEYWORD = keyed(FlagKeyword, Shape.NONE)

    keyword: FlagKeyword
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class Transform(Record):
    KEYWORD = keyed(TransformKeyword, Shape.NONE)

    keyword: TransformKeyword
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class PieceCount(Record):
    """``:piececount PD R``."""

    KEYWORD = keyword("piececount", Shape.PD_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR

    designator: Designator
    range: Range
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class Power(Record):
    """``:power PD R``."""

    KEYWORD = keyword("power", Shape.PD_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR
    WORDS = "the power of {designator} is {range}"

    designator: Designator
    range: Range
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class PowerDifference(Record):
    """``:powerdifference PD R``."""

    KEYWORD = keyword("powerdifference", Shape.PD_RANGE)
    WORDS = "the power difference of {designator} is {range}"

    designator: Designator
    range: Range
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class AttackCount(Record):
    """``:attackcount PD1 PD2 R``: ordered (attacker, target) pairs (L6)."""

    KEYWORD = keyword("attackcount", Shape.PD_PD_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR

    attackers: Designator
    targets: Designator
    range: Range
    span: Span = span_field()


class MoveKeyword(enum.Enum):
    MOVEFROM = "movefrom"
    MOVETO = "moveto"
    PROMOTE = "promote"


@attrs.frozen(repr=False, slots=True)
class MoveTest(Record):
    """``:movefrom PD``, ``:moveto PD`` or ``:promote PD`` (the next move, L7)."""

    KEYWORD = keyed(MoveKeyword, Shape.PD)
    TRANSFORMED = Transformed.DESIGNATOR

    keyword: MoveKeyword
    designator: Designator
    span: Span = span_field()


class RangeKeyword(enum.Enum):
    """Keywords whose only parameter is a range."""

    MOVENUMBER = "movenumber"
    MATCHCOUNT = "matchcount"
    PRETRANSFORMMATCHCOUNT = "pretransformmatchcount"
    ELO = "elo"
    WHITEELO = "whiteelo"
    BLACKELO = "blackelo"


@attrs.frozen(repr=False, slots=True)
class RangeTest(Record):
    """``:movenumber R``, ``:matchcount R``, ``:elo R`` … (see :class:`RangeKeyword`)."""

    KEYWORD = keyed(RangeKeyword, Shape.RANGE)

    keyword: RangeKeyword
    range: Range
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class ResultTest(Record):
    """``:result R`` in a position list (flipped by ``:flipcolor``, L2)."""

    KEYWORD = keyword("result", Shape.RESULT)

    result: GameResult
    span: Span = span_field()


class RayKeyword(enum.Enum):
    RAY = "ray"
    RAYATTACK = "rayattack"
    RAYDIAGONAL = "raydiagonal"
    RAYORTHOGONAL = "rayorthogonal"
    RAYHORIZONTAL = "rayhorizontal"
    RAYVERTICAL = "rayvertical"


@attrs.frozen(repr=False, slots=True)
class Ray(Record):
    """``:ray (PD1 … PDk) [R]`` and its family; ``range is None`` means "at least one"."""

    KEYWORD = keyed(RayKeyword, Shape.RAY)

    keyword: RayKeyword
    designators: tuple[Designator, ...]
    range: Range | None = None
    span: Span = span_field()


class ListKeyword(enum.Enum):
    AND = "and"
    OR = "or"
    SEQUENCE = "sequence"
    GAPPEDSEQUENCE = "gappedsequence"


@attrs.frozen(repr=False, slots=True)
class ListOfLists(Record):
    """``:and``, ``:or``, ``:sequence``, ``:gappedsequence`` with their position lists.

    ``line`` is the move text of Scidb's ``:line`` when the reader built the item from
    one (X3): its played moves, which mark where they end; the printer writes it back."""

    KEYWORD = keyed(ListKeyword, Shape.LISTS)

    keyword: ListKeyword
    lists: tuple[PositionList, ...]
    span: Span = span_field()
    line: str | None = None


class RelationFlagKeyword(enum.Enum):
    PATTERN = "pattern"
    SHIFT = "shift"
    FLIP = "flip"
    SAMESIDETOMOVE = "samesidetomove"
    CHANGESIDETOMOVE = "changesidetomove"
    IGNORESIDETOMOVE = "ignoresidetomove"
    VARIATIONS = "variations"
    VARIATIONSONLY = "variationsonly"


@attrs.frozen(repr=False, slots=True)
class RelationFlag(Record):
    KEYWORD = keyed(RelationFlagKeyword, Shape.NONE)

    keyword: RelationFlagKeyword
    span: Span = span_field()


class RelationCountKeyword(enum.Enum):
    MISSINGPIECECOUNT = "missingpiececount"
    NEWPIECECOUNT = "newpiececount"


@attrs.frozen(repr=False, slots=True)
class RelationPieceCount(Record):
    """``:missingpiececount PD R`` / ``:newpiececount PD R`` (never transformed)."""

    KEYWORD = keyed(RelationCountKeyword, Shape.PD_RANGE)

    keyword: RelationCountKeyword
    designator: Designator
    range: Range
    span: Span = span_field()


class RelationRangeKeyword(enum.Enum):
    ORIGINALDIFFERENTCOUNT = "originaldifferentcount"
    ORIGINALSAMECOUNT = "originalsamecount"


@attrs.frozen(repr=False, slots=True)
class RelationRange(Record):
    KEYWORD = keyed(RelationRangeKeyword, Shape.RANGE)

    keyword: RelationRangeKeyword
    range: Range
    span: Span = span_field()


RelationItem: TypeAlias = RelationFlag | RelationPieceCount | RelationRange | Comment


@attrs.frozen(repr=False, slots=True)
class Relation(Record):
    """``:relation ( … )``: a later position P2 relates to the current one (L18; semantics:
    S-relation)."""

    KEYWORD = keyword("relation", Shape.RELATION)

    items: tuple[RelationItem, ...]
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class Accumulate(Record):
    """``:accumulate NAME``."""

    KEYWORD = keyword("accumulate", Shape.NAME)

    name: str
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class AccumulateEach(Accumulate):
    """Scidb's ``:accumulate* NAME``: an ``:accumulate`` that keeps one count per colour.
    The members of the list's transform set that swap the colours count for Black, the
    others for White; ``:sumrange NAME R`` holds when either count lies in R (a dialect
    keyword, X1; semantics: S-accumulators)."""

    KEYWORD = keyword("accumulate*", Shape.NAME)
    DIALECT = True


@attrs.frozen(repr=False, slots=True)
class SumRange(Record):
    """``:sumrange NAME R``."""

    KEYWORD = keyword("sumrange", Shape.NAME_RANGE)

    name: str
    range: Range
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class TagMatch(Record):
    """``:tagmatch NAME PD``: the tagged piece is now described by PD."""

    KEYWORD = keyword("tagmatch", Shape.NAME_PD)
    TRANSFORMED = Transformed.DESIGNATOR

    name: str
    designator: Designator
    span: Span = span_field()


PositionItem: TypeAlias = (
    Designator
    | Flag
    | Transform
    | PieceCount
    | PawnCount
    | Power
    | PowerDifference
    | AttackCount
    | MoveTest
    | RangeTest
    | ResultTest
    | Ray
    | ListOfLists
    | Relation
    | Accumulate
    | AccumulateEach
    | SumRange
    | TagMatch
    | HypotheticalMoves
    | TransposedLine
    | CastlingMove
    | CastlingRightsTest
    | BoardTest
    | HalfmoveClockRange
    | FenPosition
    | Comment
)


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PositionList(Record):
    """``(position item…)``; items keep their source order (comments included)."""

    items: tuple[PositionItem, ...] = ()
    span: Span = span_field()

    def without_comments(self) -> tuple[PositionItem, ...]:
        return tuple(item for item in self.items if not isinstance(item, Comment))


# --------------------------------------------------------------------------------------
# Match list
# --------------------------------------------------------------------------------------


class MatchPathKeyword(enum.Enum):
    PGN = "pgn"
    OUTPUT = "output"


@attrs.frozen(repr=False, slots=True)
class MatchPath(Record):
    """``:pgn FILE`` or ``:output FILE`` (relative to the script's folder)."""

    KEYWORD = keyed(MatchPathKeyword, Shape.FILE)

    keyword: MatchPathKeyword
    path: str
    span: Span = span_field()


class MatchRangeKeyword(enum.Enum):
    YEAR = "year"
    GAMENUMBER = "gamenumber"


@attrs.frozen(repr=False, slots=True)
class MatchRange(Record):
    """``:year R`` or ``:gamenumber R``."""

    KEYWORD = keyed(MatchRangeKeyword, Shape.RANGE)

    keyword: MatchRangeKeyword
    range: Range
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class MatchResult(Record):
    """``:result R`` in the match list."""

    KEYWORD = keyword("result", Shape.RESULT)

    result: GameResult
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class Player(Record):
    """``:player NAME``: case-insensitive substring of White or Black (L10)."""

    KEYWORD = keyword("player", Shape.WORD)

    name: str
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class ForAny(Record):
    """``:forany NAME PD``: bind a tag to one physical piece (semantics: S-tags)."""

    KEYWORD = keyword("forany", Shape.NAME_PD)

    name: str
    designator: Designator
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class NegatedMatchItem(Record):
    """Scidb's ``!:keyword …`` in the match list: the game fails that one condition (a
    dialect form, X1)."""

    item: MatchCondition
    span: Span = span_field()


#: The match-list items that test the game, which Scidb's ``!`` may negate.
MatchCondition: TypeAlias = (
    MatchRange
    | MatchResult
    | Player
    | ColorPlayer
    | MatchElo
    | TagWord
    | NamedTag
    | RoundRange
    | EcoCodes
    | PlyCountRange
    | Terminations
    | DateRange
    | GameFeature
)


MatchItem: TypeAlias = (
    MatchPath
    | MatchRange
    | MatchResult
    | Player
    | ForAny
    | ColorPlayer
    | MatchElo
    | TagWord
    | NamedTag
    | RoundRange
    | EcoCodes
    | PlyCountRange
    | Terminations
    | DateRange
    | GameFeature
    | EitherColor
    | NegatedMatchItem
    | PositionList
    | Comment
)


@attrs.frozen(repr=False, slots=True)
class MatchList(Record):
    """``(match item…)``; items keep their source order (comments included)."""

    items: tuple[MatchItem, ...] = ()
    span: Span = span_field()

    def position_lists(self) -> tuple[PositionList, ...]:
        return tuple(item for item in self.items if isinstance(item, PositionList))


@attrs.frozen(repr=False, slots=True)
class Script(Record):
    """A whole legacy file: comments before the match list, the list, comments after."""

    match: MatchList
    leading: tuple[Comment, ...] = ()
    trailing: tuple[Comment, ...] = ()
    path: str | None = attrs.field(default=None, eq=False, kw_only=True)
    #: The dialect forms (X1) the text used, each with its place: what ``check`` names.
    dialect_forms: tuple[tuple[str, Span], ...] = attrs.field(default=(), eq=False, kw_only=True)


def designators(node: object) -> Iterator[Designator]:
    """Every designator in ``node`` (a legacy node, or a tuple of them), however deep,
    in source order.

    >>> script = Script(MatchList((PositionList((Designator(1, 1), Designator(2, 2))),)))
    >>> [d.squares for d in designators(script)]
    [1, 2]
    """
    if isinstance(node, Designator):
        yield node
    elif isinstance(node, tuple):
        for item in node:
            yield from designators(item)
    elif attrs.has(cls := type(node)):
        for field in attrs.fields(cls):
            yield from designators(getattr(node, field.name))
