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

from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import NO_SPAN, Span
from cqllegacy.vocab.squares import FULL, SquareSet

# Span, NO_SPAN and GameResult are re-exported for the modules that read them from here.
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
    "EcoCodes",
    "Flag",
    "FlagKeyword",
    "ForAny",
    "GameResult",
    "HalfmoveClockRange",
    "HypotheticalMoves",
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
    "Span",
    "SumRange",
    "TagMatch",
    "TagWord",
    "TagWordKeyword",
    "Terminations",
    "Transform",
    "TransformKeyword",
    "designators",
]


def _span_field() -> Span:
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
    DATES = "a date range"


@attrs.frozen
class KeywordDeclaration:
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


@attrs.frozen(slots=True)
class Range:
    """An inclusive integer range; ``hi is None`` means unlimited (decision L16).

    ``Range(3)`` and ``Range(3, 3)`` are the same range, written ``3``.
    """

    lo: int
    hi: int | None = attrs.field()
    span: Span = _span_field()

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


@attrs.frozen(slots=True)
class Comment:
    """A ``;`` comment, kept in place for ``check`` and carried into CQL 6 (T3).

    ``text`` excludes the leading semicolons and the line end.
    """

    text: str
    span: Span = _span_field()


# --------------------------------------------------------------------------------------
# Piece designators
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Designator:
    """A piece designator: contents ``types`` on squares ``squares``.

    ``tag`` names a ``$tag`` piece type (semantics: S-tags); then ``types`` is 0 and the
    designator stands for that one piece on ``squares``.
    """

    types: int
    squares: SquareSet = FULL
    tag: str | None = None
    span: Span = _span_field()


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


@attrs.frozen(slots=True)
class Flag:
    KEYWORD = keyed(FlagKeyword, Shape.NONE)

    keyword: FlagKeyword
    span: Span = _span_field()


@attrs.frozen(slots=True)
class Transform:
    KEYWORD = keyed(TransformKeyword, Shape.NONE)

    keyword: TransformKeyword
    span: Span = _span_field()


@attrs.frozen(slots=True)
class PieceCount:
    """``:piececount PD R``."""

    KEYWORD = keyword("piececount", Shape.PD_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR

    designator: Designator
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class Power:
    """``:power PD R``."""

    KEYWORD = keyword("power", Shape.PD_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR
    WORDS = "the power of {designator} is {range}"

    designator: Designator
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class PowerDifference:
    """``:powerdifference PD R``."""

    KEYWORD = keyword("powerdifference", Shape.PD_RANGE)
    WORDS = "the power difference of {designator} is {range}"

    designator: Designator
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class AttackCount:
    """``:attackcount PD1 PD2 R``: ordered (attacker, target) pairs (L6)."""

    KEYWORD = keyword("attackcount", Shape.PD_PD_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR

    attackers: Designator
    targets: Designator
    range: Range
    span: Span = _span_field()


class MoveKeyword(enum.Enum):
    MOVEFROM = "movefrom"
    MOVETO = "moveto"
    PROMOTE = "promote"


@attrs.frozen(slots=True)
class MoveTest:
    """``:movefrom PD``, ``:moveto PD`` or ``:promote PD`` (the next move, L7)."""

    KEYWORD = keyed(MoveKeyword, Shape.PD)
    TRANSFORMED = Transformed.DESIGNATOR

    keyword: MoveKeyword
    designator: Designator
    span: Span = _span_field()


class PawnAttribute(enum.Enum):
    """A pawn attribute of Scidb's ``:pawncount`` that runs (X4; semantics:
    S-pawncount).  Each is a fact of one pawn on the board."""

    PASSED = "passed"
    ISOLATED = "isolated"
    DOUBLE = "double"
    CONNECTED = "connected"
    BACKWARD = "backward"
    BLOCKED = "blocked"
    INSIDE = "inside"


@attrs.frozen(slots=True)
class PawnTest:
    """One link of a ``:pawncount`` chain: an attribute, or its negation (``!passed``)."""

    attribute: PawnAttribute
    negated: bool = False

    def __str__(self) -> str:
        return ("!" if self.negated else "") + self.attribute.value


@attrs.frozen(slots=True)
class PawnChain:
    """``passed-!inside``: the tests a pawn must pass, in the script's order."""

    tests: tuple[PawnTest, ...]

    def __str__(self) -> str:
        return "-".join(str(test) for test in self.tests)


@attrs.frozen(slots=True)
class PawnCount:
    """Scidb's ``:pawncount PD CHAIN R``: the number of pawns of PD that pass every test
    of CHAIN lies in R (a dialect keyword, X1 and X4).  A transform maps PD alone: the
    attributes keep their chess meaning for the pawns' colour."""

    KEYWORD = keyword("pawncount", Shape.PD_PAWNS_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR
    DIALECT = True

    designator: Designator
    chain: PawnChain
    range: Range
    span: Span = _span_field()


class RangeKeyword(enum.Enum):
    """Keywords whose only parameter is a range."""

    MOVENUMBER = "movenumber"
    MATCHCOUNT = "matchcount"
    PRETRANSFORMMATCHCOUNT = "pretransformmatchcount"
    ELO = "elo"
    WHITEELO = "whiteelo"
    BLACKELO = "blackelo"


@attrs.frozen(slots=True)
class RangeTest:
    """``:movenumber R``, ``:matchcount R``, ``:elo R`` … (see :class:`RangeKeyword`)."""

    KEYWORD = keyed(RangeKeyword, Shape.RANGE)

    keyword: RangeKeyword
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class ResultTest:
    """``:result R`` in a position list (flipped by ``:flipcolor``, L2)."""

    KEYWORD = keyword("result", Shape.RESULT)

    result: GameResult
    span: Span = _span_field()


class RayKeyword(enum.Enum):
    RAY = "ray"
    RAYATTACK = "rayattack"
    RAYDIAGONAL = "raydiagonal"
    RAYORTHOGONAL = "rayorthogonal"
    RAYHORIZONTAL = "rayhorizontal"
    RAYVERTICAL = "rayvertical"


@attrs.frozen(slots=True)
class Ray:
    """``:ray (PD1 … PDk) [R]`` and its family; ``range is None`` means "at least one"."""

    KEYWORD = keyed(RayKeyword, Shape.RAY)

    keyword: RayKeyword
    designators: tuple[Designator, ...]
    range: Range | None = None
    span: Span = _span_field()


class ListKeyword(enum.Enum):
    AND = "and"
    OR = "or"
    SEQUENCE = "sequence"
    GAPPEDSEQUENCE = "gappedsequence"


@attrs.frozen(slots=True)
class ListOfLists:
    """``:and``, ``:or``, ``:sequence``, ``:gappedsequence`` with their position lists."""

    KEYWORD = keyed(ListKeyword, Shape.LISTS)

    keyword: ListKeyword
    lists: tuple[PositionList, ...]
    span: Span = _span_field()


class RelationFlagKeyword(enum.Enum):
    PATTERN = "pattern"
    SHIFT = "shift"
    FLIP = "flip"
    SAMESIDETOMOVE = "samesidetomove"
    CHANGESIDETOMOVE = "changesidetomove"
    IGNORESIDETOMOVE = "ignoresidetomove"
    VARIATIONS = "variations"
    VARIATIONSONLY = "variationsonly"


@attrs.frozen(slots=True)
class RelationFlag:
    KEYWORD = keyed(RelationFlagKeyword, Shape.NONE)

    keyword: RelationFlagKeyword
    span: Span = _span_field()


class RelationCountKeyword(enum.Enum):
    MISSINGPIECECOUNT = "missingpiececount"
    NEWPIECECOUNT = "newpiececount"


@attrs.frozen(slots=True)
class RelationPieceCount:
    """``:missingpiececount PD R`` / ``:newpiececount PD R`` (never transformed)."""

    KEYWORD = keyed(RelationCountKeyword, Shape.PD_RANGE)

    keyword: RelationCountKeyword
    designator: Designator
    range: Range
    span: Span = _span_field()


class RelationRangeKeyword(enum.Enum):
    ORIGINALDIFFERENTCOUNT = "originaldifferentcount"
    ORIGINALSAMECOUNT = "originalsamecount"


@attrs.frozen(slots=True)
class RelationRange:
    KEYWORD = keyed(RelationRangeKeyword, Shape.RANGE)

    keyword: RelationRangeKeyword
    range: Range
    span: Span = _span_field()


RelationItem: TypeAlias = RelationFlag | RelationPieceCount | RelationRange | Comment


@attrs.frozen(slots=True)
class Relation:
    """``:relation ( … )``: a later position P2 relates to the current one (L18; semantics:
    S-relation)."""

    KEYWORD = keyword("relation", Shape.RELATION)

    items: tuple[RelationItem, ...]
    span: Span = _span_field()


@attrs.frozen(slots=True)
class Accumulate:
    """``:accumulate NAME``."""

    KEYWORD = keyword("accumulate", Shape.NAME)

    name: str
    span: Span = _span_field()


@attrs.frozen(slots=True)
class AccumulateEach(Accumulate):
    """Scidb's ``:accumulate* NAME``: an ``:accumulate`` that keeps one count per colour.
    The members of the list's transform set that swap the colours count for Black, the
    others for White; ``:sumrange NAME R`` holds when either count lies in R (a dialect
    keyword, X1; semantics: S-accumulators)."""

    KEYWORD = keyword("accumulate*", Shape.NAME)
    DIALECT = True


@attrs.frozen(slots=True)
class SumRange:
    """``:sumrange NAME R``."""

    KEYWORD = keyword("sumrange", Shape.NAME_RANGE)

    name: str
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class TagMatch:
    """``:tagmatch NAME PD``: the tagged piece is now described by PD."""

    KEYWORD = keyword("tagmatch", Shape.NAME_PD)
    TRANSFORMED = Transformed.DESIGNATOR

    name: str
    designator: Designator
    span: Span = _span_field()


@attrs.frozen(slots=True)
class LineMove:
    """One move of Scidb's ``:line`` after ``|``: the moving piece (``origin``), what
    stands on the destination before the move (``target``; ``.`` when empty), a
    promotion, en passant, check suffixes (``+``, ``++``, ``+++``, ``#``, each with
    whether it is negated) and ``!`` (the only legal move)."""

    origin: Designator
    target: Designator
    promotion: Designator | None = None
    enpassant: bool = False
    checks: tuple[tuple[str, bool], ...] = ()
    forced: bool = False


@attrs.frozen(slots=True)
class HypotheticalMoves:
    """Scidb's ``:line (… | C1 C2 …)`` after ``|`` (X3): legal moves matching C1, C2 …
    exist from here, one after another, whatever the game played.  A played move with
    ``!`` is the single move ``-- !`` here.  Read by :mod:`.line_moves`, never by the
    keyword tables."""

    moves: tuple[LineMove, ...]
    span: Span = _span_field()


@attrs.frozen(slots=True)
class CastlingMove:
    """Scidb's ``:iscastling [PD]``: the move played from this position castles; PD's
    types name the castlings (``K`` White kingside, ``q`` Black queenside …), any one of
    them (a dialect keyword, X1)."""

    KEYWORD = keyword("iscastling", Shape.OPTIONAL_PD)
    DIALECT = True

    designator: Designator | None = None
    span: Span = _span_field()


@attrs.frozen(slots=True)
class CastlingRightsTest:
    """Scidb's ``:castling PD``: exactly one of the castling rights PD's types name
    holds, ``K`` White's kingside right … (a dialect keyword, X1)."""

    KEYWORD = keyword("castling", Shape.PD)
    DIALECT = True

    designator: Designator
    span: Span = _span_field()


class BoardTestKeyword(enum.Enum):
    FORCED = "forced"
    THREEFOLDREPETITION = "threefoldrepetition"


@attrs.frozen(slots=True)
class BoardTest:
    """Scidb's ``:forced`` (the move played was the only legal one) and
    ``:threefoldrepetition`` (the first main-line position seen for the third time)
    (dialect keywords, X1)."""

    KEYWORD = keyed(BoardTestKeyword, Shape.NONE)
    DIALECT = True

    keyword: BoardTestKeyword
    span: Span = _span_field()


@attrs.frozen(slots=True)
class HalfmoveClockRange:
    """Scidb's ``:halfmoveclock R``: the half-move clock lies in R; inside a variation it
    always holds (the help) (a dialect keyword, X1)."""

    KEYWORD = keyword("halfmoveclock", Shape.RANGE)
    DIALECT = True

    range: Range
    span: Span = _span_field()


#: The items of a position list; the keyword table of position lists is derived from the
#: classes named here that declare ``KEYWORD`` (cqllegacy.legacy.keywords), in this order.
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
    | CastlingMove
    | CastlingRightsTest
    | BoardTest
    | HalfmoveClockRange
    | Comment
)


@attrs.frozen(slots=True, cache_hash=True)
class PositionList:
    """``(position item…)``; items keep their source order (comments included)."""

    items: tuple[PositionItem, ...] = ()
    span: Span = _span_field()

    def without_comments(self) -> tuple[PositionItem, ...]:
        return tuple(item for item in self.items if not isinstance(item, Comment))


# --------------------------------------------------------------------------------------
# Match list
# --------------------------------------------------------------------------------------


class MatchPathKeyword(enum.Enum):
    PGN = "pgn"
    OUTPUT = "output"


@attrs.frozen(slots=True)
class MatchPath:
    """``:pgn FILE`` or ``:output FILE`` (relative to the script's folder)."""

    KEYWORD = keyed(MatchPathKeyword, Shape.FILE)

    keyword: MatchPathKeyword
    path: str
    span: Span = _span_field()


class MatchRangeKeyword(enum.Enum):
    YEAR = "year"
    GAMENUMBER = "gamenumber"


@attrs.frozen(slots=True)
class MatchRange:
    """``:year R`` or ``:gamenumber R``."""

    KEYWORD = keyed(MatchRangeKeyword, Shape.RANGE)

    keyword: MatchRangeKeyword
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class MatchResult:
    """``:result R`` in the match list."""

    KEYWORD = keyword("result", Shape.RESULT)

    result: GameResult
    span: Span = _span_field()


@attrs.frozen(slots=True)
class Player:
    """``:player NAME``: case-insensitive substring of White or Black (L10)."""

    KEYWORD = keyword("player", Shape.WORD)

    name: str
    span: Span = _span_field()


@attrs.frozen(slots=True)
class ForAny:
    """``:forany NAME PD``: bind a tag to one physical piece (semantics: S-tags)."""

    KEYWORD = keyword("forany", Shape.NAME_PD)

    name: str
    designator: Designator
    span: Span = _span_field()


class ColorPlayerKeyword(enum.Enum):
    WHITEPLAYER = "whiteplayer"
    BLACKPLAYER = "blackplayer"


@attrs.frozen(slots=True)
class ColorPlayer:
    """Scidb's ``:whiteplayer NAME`` / ``:blackplayer NAME``: that player's tag contains
    NAME, ignoring case (a dialect keyword, X1)."""

    KEYWORD = keyed(ColorPlayerKeyword, Shape.WORD)
    DIALECT = True

    keyword: ColorPlayerKeyword
    name: str
    span: Span = _span_field()


class MatchEloKeyword(enum.Enum):
    ELO = "elo"
    WHITEELO = "whiteelo"
    BLACKELO = "blackelo"


@attrs.frozen(slots=True)
class MatchElo:
    """Scidb's match-list ``:elo R``, ``:whiteelo R``, ``:blackelo R``: the game's ratings
    as the position-list keywords of the same names read them (L9), where 0 stands for a
    player without a rating (a dialect keyword, X1)."""

    KEYWORD = keyed(MatchEloKeyword, Shape.RANGE)
    DIALECT = True

    keyword: MatchEloKeyword
    range: Range
    span: Span = _span_field()


class TagWordKeyword(enum.Enum):
    EVENT = "event"
    SITE = "site"
    ANNOTATOR = "annotator"


@attrs.frozen(slots=True)
class TagWord:
    """Scidb's ``:event WORD``, ``:site WORD``, ``:annotator WORD``: that tag contains
    WORD, ignoring case (a dialect keyword, X1)."""

    KEYWORD = keyed(TagWordKeyword, Shape.WORD)
    DIALECT = True

    keyword: TagWordKeyword
    word: str
    span: Span = _span_field()


@attrs.frozen(slots=True)
class NamedTag:
    """Scidb's ``:tag NAME [WORD]``: the game has the tag NAME and, with WORD, its value
    contains WORD, ignoring case (a dialect keyword, X1)."""

    KEYWORD = keyword("tag", Shape.NAME_OPTIONAL_WORD)
    DIALECT = True

    name: str
    word: str | None = None
    span: Span = _span_field()


class RoundKeyword(enum.Enum):
    ROUND = "round"
    SUBROUND = "subround"


@attrs.frozen(slots=True)
class RoundRange:
    """Scidb's ``:round R`` / ``:subround R``: the game's round (subround) number, 0 for
    none, lies in R (a dialect keyword, X1)."""

    KEYWORD = keyed(RoundKeyword, Shape.RANGE)
    DIALECT = True

    keyword: RoundKeyword
    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class EcoCodes:
    """Scidb's ``:eco CODES``: a comma-separated list of ECO codes and ranges (``A00``,
    ``B00-99``), or ``*`` (any code) or ``-`` (none) (a dialect keyword, X1)."""

    KEYWORD = keyword("eco", Shape.WORD)
    DIALECT = True

    codes: str
    span: Span = _span_field()


@attrs.frozen(slots=True)
class PlyCountRange:
    """Scidb's ``:plycount R``: the game's main line has a number of half-moves in R (a
    dialect keyword, X1)."""

    KEYWORD = keyword("plycount", Shape.RANGE)
    DIALECT = True

    range: Range
    span: Span = _span_field()


@attrs.frozen(slots=True)
class Terminations:
    """Scidb's ``:termination WORDS``: a comma-separated list of the ways a game ended,
    read from its ``Termination`` tag (a dialect keyword, X1)."""

    KEYWORD = keyword("termination", Shape.WORD)
    DIALECT = True

    words: str
    span: Span = _span_field()


@attrs.frozen(slots=True)
class DateRange:
    """Scidb's ``:date RANGE``: the game's date lies in RANGE (``2010-10-27``,
    ``>=2010-10-01``, ``A B``, ``A .. B``, ``*``, ``-``) (a dialect keyword, X1)."""

    KEYWORD = keyword("date", Shape.DATES)
    DIALECT = True

    text: str
    span: Span = _span_field()


@attrs.frozen(slots=True)
class NegatedMatchItem:
    """Scidb's ``!:keyword …`` in the match list: the game fails that one condition (a
    dialect form, X1)."""

    item: MatchCondition
    span: Span = _span_field()


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
    | NegatedMatchItem
    | PositionList
    | Comment
)


@attrs.frozen(slots=True)
class MatchList:
    """``(match item…)``; items keep their source order (comments included)."""

    items: tuple[MatchItem, ...] = ()
    span: Span = _span_field()

    def position_lists(self) -> tuple[PositionList, ...]:
        return tuple(item for item in self.items if isinstance(item, PositionList))


@attrs.frozen(slots=True)
class Script:
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
