"""The items only a dialect has (Scidb's CQL-S, X1): Scidb's position keywords
(``:pawncount``, ``:line`` after ``|``, castling and board tests) and its match-list
keywords that read the game's tags.

Each derives from :class:`DialectItem`, so the keyword tables list its ``KEYWORD``
among the dialect keywords.  :mod:`cqllegacy.legacy.tree` re-exports every name here and
places each item in its list's union.
"""

from __future__ import annotations

import enum

import attrs

from cqllegacy.core.legacy_nodes import CheckKind, FixedMove
from cqllegacy.legacy.tree_base import (
    Designator,
    DialectItem,
    Range,
    Shape,
    Transformed,
    keyed,
    keyword,
    span_field,
)
from cqllegacy.records import Record
from cqllegacy.vocab.spans import Span


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
    BLOCKED_HEAD_ON = "blocked!"
    BEHIND = "behind"
    BEHIND_NEXT = "behind!"
    STOPPABLE = "stoppable"
    ADVANCED = "advanced"
    INTEGRATED = "integrated"
    HALFISOLATED = "halfisolated"
    DEFENDED = "defended"
    DEFENDER = "defender"
    CHAINED = "chained"
    CONSECUTIVE = "consecutive"
    CONSECUTIVE_EXACTLY = "consecutive!"
    CANDIDATE = "candidate"
    CANDIDATE_NOT_PASSED = "candidate!"


#: The attributes that take a count, ``consecutive(3)``, and the counts the help allows.
PAWN_ATTRIBUTE_COUNTS: dict[PawnAttribute, range] = {
    PawnAttribute.CONSECUTIVE: range(2, 7),
    PawnAttribute.CONSECUTIVE_EXACTLY: range(2, 7),
}


@attrs.frozen(repr=False, slots=True)
class PawnTest(Record):
    """One link of a ``:pawncount`` chain: an attribute, or its negation (``!passed``),
    with its count where it takes one (``consecutive(3)``)."""

    attribute: PawnAttribute
    negated: bool = False
    count: int | None = None

    @property
    def word(self) -> str:
        """The attribute as the script spells it, without the ``!`` that negates it."""
        return self.attribute.value + ("" if self.count is None else f"({self.count})")

    def __str__(self) -> str:
        return ("!" if self.negated else "") + self.word


@attrs.frozen(repr=False, slots=True)
class PawnChain(Record):
    """``passed-!inside``: the tests a pawn must pass, in the script's order."""

    tests: tuple[PawnTest, ...]

    def __str__(self) -> str:
        return "-".join(str(test) for test in self.tests)


@attrs.frozen(repr=False, slots=True)
class PawnCount(DialectItem):
    """Scidb's ``:pawncount PD CHAIN R``: the number of pawns of PD that pass every test
    of CHAIN lies in R (a dialect keyword, X1 and X4).  A transform maps PD alone: the
    attributes keep their chess meaning for the pawns' colour."""

    KEYWORD = keyword("pawncount", Shape.PD_PAWNS_RANGE)
    TRANSFORMED = Transformed.DESIGNATOR

    designator: Designator
    chain: PawnChain
    range: Range


@attrs.frozen(repr=False, slots=True)
class LineMove(Record):
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


@attrs.frozen(repr=False, slots=True)
class TransposedLine(Record):
    """Scidb's ``:line* (M1 M2 …)`` (X3): the position is the one the fully determined
    moves reach from the game's start, whatever order the game played them in.  ``text``
    is the argument as written (its tokens separated by single spaces), ``checks`` the
    last move's check suffixes, ``white_first`` the colour the move numbers give the
    first move (None without numbers).  Read by :mod:`.line_star`, never by the keyword
    tables."""

    text: str
    moves: tuple[FixedMove, ...]
    checks: tuple[tuple[CheckKind, bool], ...] = ()
    white_first: bool | None = None
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class HypotheticalMoves(Record):
    """Scidb's ``:line (… | C1 C2 …)`` after ``|`` (X3): legal moves matching C1, C2 …
    exist from here, one after another, whatever the game played.  A played move with
    ``!`` is the single move ``-- !`` here.  Read by :mod:`.line_moves`, never by the
    keyword tables."""

    moves: tuple[LineMove, ...]
    span: Span = span_field()


@attrs.frozen(repr=False, slots=True)
class CastlingMove(DialectItem):
    """Scidb's ``:iscastling [PD]``: the move played from this position castles; PD's
    types name the castlings (``K`` White kingside, ``q`` Black queenside …), any one of
    them (a dialect keyword, X1)."""

    KEYWORD = keyword("iscastling", Shape.OPTIONAL_PD)

    designator: Designator | None = None


@attrs.frozen(repr=False, slots=True)
class CastlingRightsTest(DialectItem):
    """Scidb's ``:castling PD``: exactly one of the castling rights PD's types name
    holds, ``K`` White's kingside right … (a dialect keyword, X1)."""

    KEYWORD = keyword("castling", Shape.PD)

    designator: Designator


@attrs.frozen(repr=False, slots=True)
class FenPosition(DialectItem):
    """Scidb's ``:fen "FEN"``: the position is the one the FEN describes (its placement,
    side to move, castling rights and en passant square; not its clocks) (a dialect
    keyword, X1)."""

    KEYWORD = keyword("fen", Shape.FEN)

    fen: str


class BoardTestKeyword(enum.Enum):
    FORCED = "forced"
    THREEFOLDREPETITION = "threefoldrepetition"


@attrs.frozen(repr=False, slots=True)
class BoardTest(DialectItem):
    """Scidb's ``:forced`` (the move played was the only legal one) and
    ``:threefoldrepetition`` (the first main-line position seen for the third time)
    (dialect keywords, X1)."""

    KEYWORD = keyed(BoardTestKeyword, Shape.NONE)

    keyword: BoardTestKeyword


@attrs.frozen(repr=False, slots=True)
class HalfmoveClockRange(DialectItem):
    """Scidb's ``:halfmoveclock R``: the half-move clock lies in R; inside a variation it
    always holds (the help) (a dialect keyword, X1)."""

    KEYWORD = keyword("halfmoveclock", Shape.RANGE)

    range: Range


#: The items of a position list; the keyword table of position lists is derived from the
#: classes named here that declare ``KEYWORD`` (cqllegacy.legacy.keywords), in this order.
class ColorPlayerKeyword(enum.Enum):
    WHITEPLAYER = "whiteplayer"
    BLACKPLAYER = "blackplayer"


@attrs.frozen(repr=False, slots=True)
class ColorPlayer(DialectItem):
    """Scidb's ``:whiteplayer NAME`` / ``:blackplayer NAME``: that player's tag contains
    NAME, ignoring case (a dialect keyword, X1)."""

    KEYWORD = keyed(ColorPlayerKeyword, Shape.WORD)

    keyword: ColorPlayerKeyword
    name: str


class MatchEloKeyword(enum.Enum):
    ELO = "elo"
    WHITEELO = "whiteelo"
    BLACKELO = "blackelo"


@attrs.frozen(repr=False, slots=True)
class MatchElo(DialectItem):
    """Scidb's match-list ``:elo R``, ``:whiteelo R``, ``:blackelo R``: the game's ratings
    as the position-list keywords of the same names read them (L9), where 0 stands for a
    player without a rating (a dialect keyword, X1)."""

    KEYWORD = keyed(MatchEloKeyword, Shape.RANGE)

    keyword: MatchEloKeyword
    range: Range


class TagWordKeyword(enum.Enum):
    EVENT = "event"
    SITE = "site"
    ANNOTATOR = "annotator"


@attrs.frozen(repr=False, slots=True)
class TagWord(DialectItem):
    """Scidb's ``:event WORD``, ``:site WORD``, ``:annotator WORD``: that tag contains
    WORD, ignoring case (a dialect keyword, X1)."""

    KEYWORD = keyed(TagWordKeyword, Shape.WORD)

    keyword: TagWordKeyword
    word: str


@attrs.frozen(repr=False, slots=True)
class NamedTag(DialectItem):
    """Scidb's ``:tag NAME [WORD]``: the game has the tag NAME and, with WORD, its value
    contains WORD, ignoring case (a dialect keyword, X1)."""

    KEYWORD = keyword("tag", Shape.NAME_OPTIONAL_WORD)

    name: str
    word: str | None = None


class RoundKeyword(enum.Enum):
    ROUND = "round"
    SUBROUND = "subround"


@attrs.frozen(repr=False, slots=True)
class RoundRange(DialectItem):
    """Scidb's ``:round R`` / ``:subround R``: the game's round (subround) number, 0 for
    none, lies in R (a dialect keyword, X1)."""

    KEYWORD = keyed(RoundKeyword, Shape.RANGE)

    keyword: RoundKeyword
    range: Range


@attrs.frozen(repr=False, slots=True)
class EcoCodes(DialectItem):
    """Scidb's ``:eco CODES``: a comma-separated list of ECO codes and ranges (``A00``,
    ``B00-99``), or ``*`` (any code) or ``-`` (none) (a dialect keyword, X1)."""

    KEYWORD = keyword("eco", Shape.WORD)

    codes: str


@attrs.frozen(repr=False, slots=True)
class PlyCountRange(DialectItem):
    """Scidb's ``:plycount R``: the game's main line has a number of half-moves in R (a
    dialect keyword, X1)."""

    KEYWORD = keyword("plycount", Shape.RANGE)

    range: Range


@attrs.frozen(repr=False, slots=True)
class Terminations(DialectItem):
    """Scidb's ``:termination WORDS``: a comma-separated list of the ways a game ended,
    read from its ``Termination`` tag (a dialect keyword, X1)."""

    KEYWORD = keyword("termination", Shape.WORD)

    words: str


@attrs.frozen(repr=False, slots=True)
class DateRange(DialectItem):
    """Scidb's ``:date RANGE``: the game's date lies in RANGE (``2010-10-27``,
    ``>=2010-10-01``, ``A B``, ``A .. B``, ``*``, ``-``) (a dialect keyword, X1)."""

    KEYWORD = keyword("date", Shape.DATES)

    text: str


class GameFeatureKeyword(enum.Enum):
    HASCOMMENTS = "hascomments"
    HASVARIATIONS = "hasvariations"
    HASANNOTATION = "hasannotation"


@attrs.frozen(repr=False, slots=True)
class GameFeature(DialectItem):
    """Scidb's ``:hascomments``, ``:hasvariations``, ``:hasannotation``: the game's
    movetext holds a comment, a variation, a NAG (a dialect keyword, X1).  ``languages``
    is the language list the help allows after ``:hascomments``, which the reader
    refuses (X5)."""

    KEYWORD = keyed(GameFeatureKeyword, Shape.OPTIONAL_WORD)

    keyword: GameFeatureKeyword
    languages: str | None = None


@attrs.frozen(repr=False, slots=True)
class EitherColor(DialectItem):
    """Scidb's match-list ``:eithercolor``: the game matches the match list as written or
    with every colour swapped, its tag conditions and position lists alike (a dialect
    keyword, X1; semantics: S-dialects)."""

    KEYWORD = keyword("eithercolor", Shape.NONE)
