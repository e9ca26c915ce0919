"""Legacy-only nodes: constructs CQL 6.1 text cannot say (``MODERN = False``).

The printer refuses them, or writes their nearest form when asked to approximate."""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from cqllegacy.core.declarations import (
    ANY_FILTER,
    NO_OPERANDS,
    Filter,
    Kind,
    Origin,
    Precedence,
    Reads,
    Transforms,
    origin_field,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import ANYTHING, TypeSet
from cqllegacy.vocab.squares import FULL, Direction, SquareSet


class RelationSideToMove(enum.Enum):
    SAME = "same"
    CHANGE = "change"
    IGNORE = "ignore"


class RelationScope(enum.Enum):
    MAINLINE = "mainline"
    ALL = "all"
    VARIATIONS = "variations"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Relation(Filter):
    """Legacy ``:relation``: some later position P2 relates to the current one P1.

    ``allowable`` is the set of compared squares (FULL unless ``:pattern``);
    ``shift``/``flip`` allow P2 to be transformed before comparing; the counts are
    ``(types, lo, hi)`` / ``(lo, hi)`` with ``hi`` None for unlimited.
    """

    WORD = "`:relation`"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.REFUSED
    READS = Reads.GAME
    # Never CQL 6.1 text; written (approximately) as `true`.
    PRECEDENCE = Precedence.ATOM

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
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class RayCount(Filter):
    """Legacy ``:ray…`` counting (L20): the number of rays, numeric.

    A ray is a run of squares on one line in one of ``directions`` (basic
    directions only) whose first square matches ``args[0]``, last matches
    ``args[-1]``, whose inner designators take distinct inner squares in order, and
    whose other inner squares are empty.  With ``attack`` (``:rayattack``) the first
    square must hold a rook or queen for an orthogonal ray, a bishop or queen for a
    diagonal one (either colour).
    """

    WORD = "a legacy ray count"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION
    # Written (approximately) as `#ray (…)`.
    PRECEDENCE = Precedence.COUNT

    MODERN: ClassVar[bool] = False

    args: tuple[Filter, ...]
    directions: tuple[Direction, ...]
    attack: bool = False
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class LegacyOnly(Filter):
    """Any other legacy construct the translator rewrote into a core node the printer
    cannot express; ``filter`` is what the evaluator runs."""

    WORD = "a legacy-only filter"
    CQL_WORDS = ()
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = None

    MODERN: ClassVar[bool] = False

    filter: Filter
    origin: Origin | None = origin_field()

    def value_kind(self) -> Kind:
        return self.filter.value_kind()

    def precedence(self) -> Precedence:
        # Written (approximately) as the filter it wraps.
        return self.filter.precedence()

    def _conjunction_items(self) -> tuple[Filter, ...]:
        return (self.filter,)

    def _disjunction_items(self) -> tuple[Filter, ...]:
        return (self.filter,)


class CheckKind(enum.Enum):
    """What a move of a hypothetical line says of the position it leads to."""

    CHECK = "check"
    DOUBLECHECK = "doublecheck"
    CONTACTCHECK = "contactcheck"
    MATE = "mate"


@attrs.frozen(repr=False, slots=True)
class HypotheticalMove(Record):
    """One move of a :class:`HypotheticalLine`: the moving piece and the square it leaves
    (``from_types``, ``from_squares``), what stood on the destination before the move
    (``to_types``; the empty bit for an empty square), a promotion's new piece, en
    passant, the checks the move gives (``checks``: each kind, and whether it must not
    hold) and ``forced``: it is the only legal move there."""

    from_types: TypeSet
    from_squares: SquareSet
    to_types: TypeSet
    to_squares: SquareSet
    promote_types: TypeSet | None = None
    enpassant: bool = False
    checks: tuple[tuple[CheckKind, bool], ...] = ()
    forced: bool = False


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class HypotheticalLine(Filter):
    """Scidb's ``:line`` after ``|`` (and ``!``), X3: from the current position some
    sequence of legal moves matches ``moves`` one after another, whatever the game
    played.  A legacy-only node: CQL 6.1 cannot ask for moves not played."""

    WORD = "`:line` with `|` or `!`"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION
    # Never CQL 6.1 text; written (approximately) as `true`.
    PRECEDENCE = Precedence.ATOM

    MODERN: ClassVar[bool] = False

    moves: tuple[HypotheticalMove, ...]
    origin: Origin | None = origin_field()


#: What every Scidb atom below declares alike: no CQL 6.1 word, no operands, untouched by
#: transforms, an atom, and legacy-only (only WORD, KIND and READS differ).
SCIDB_ATOM: tuple[tuple[str, ...], frozenset[Kind], Transforms, Precedence, bool] = (
    (),
    NO_OPERANDS,
    Transforms.NOTHING,
    Precedence.ATOM,
    False,
)


class RoundPart(enum.Enum):
    """Which number of a PGN ``Round`` tag ``round.subround``."""

    ROUND = "round"
    SUBROUND = "subround"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class RoundNumber(Filter):
    """Scidb's ``:round`` / ``:subround`` number of the game: the digits before (after)
    the first ``.`` of the ``Round`` tag, 0 when the tag gives none (semantics:
    S-dialects).  CQL 6.1's ``tag`` cannot read ``Round``."""

    WORD = "a round number"
    KIND = Kind.NUMBER
    READS = Reads.TAGS
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    part: RoundPart
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class EcoRange(Filter):
    """Scidb's ``:eco`` range: the game's ECO code (the first three characters of its
    ``ECO`` tag, a letter A-E and two digits) lies from ``lo`` to ``hi`` (semantics:
    S-dialects)."""

    WORD = "an ECO range"
    KIND = Kind.LOGICAL
    READS = Reads.TAGS
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    lo: str
    hi: str
    origin: Origin | None = origin_field()


class BoardFact(enum.Enum):
    """Scidb's position keywords that only python-chess's board can answer."""

    #: ``:forced``: the position has a next move, and it is the only legal one.
    FORCED = "forced"
    #: ``:threefoldrepetition``: the first main-line position that occurs for the third
    #: time in the game (python-chess's repetition identity).
    THREEFOLD = "threefoldrepetition"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class ScidbBoardTest(Filter):
    """One of Scidb's :class:`BoardFact` tests (semantics: S-dialects)."""

    WORD = "a Scidb board test"
    KIND = Kind.LOGICAL
    READS = Reads.GAME
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    fact: BoardFact
    origin: Origin | None = origin_field()

    def reads_itself(self) -> Reads:
        return Reads.NEXT_MOVE if self.fact is BoardFact.FORCED else Reads.GAME


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class HalfmoveClock(Filter):
    """The position's half-move clock (plies since the last capture or pawn move), as
    python-chess keeps it from the start position's FEN (Scidb's ``:halfmoveclock``)."""

    WORD = "the half-move clock"
    KIND = Kind.NUMBER
    READS = Reads.POSITION
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class CastlingRights(Filter):
    """Scidb's ``:castling PD``: exactly one of the castling rights PD's types name holds
    (``K`` White's kingside right, ``q`` Black's queenside right …; semantics:
    S-dialects)."""

    WORD = "castling rights"
    KIND = Kind.LOGICAL
    READS = Reads.POSITION
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    #: The rights, as the letters K, Q, k, q.
    rights: str
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class PlyCount(Filter):
    """Scidb's ``:plycount``: the number of half-moves of the game's main line."""

    WORD = "the game's ply count"
    KIND = Kind.NUMBER
    READS = Reads.GAME
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class TagValueIn(Filter):
    """The tag ``name`` reads as one of ``values`` once lower-cased and without spaces;
    a missing tag, an empty one and ``?`` read as ``""`` (Scidb's ``:termination``)."""

    WORD = "a tag value"
    KIND = Kind.LOGICAL
    READS = Reads.TAGS
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    name: str
    values: frozenset[str]
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class DateIn(Filter):
    """Scidb's ``:date``: every day the game's ``Date`` tag may stand for lies from day
    ``lo`` to day ``hi`` (proleptic ordinals; None: no bound).  A date whose year is
    unknown lies in no range (semantics: S-dialects)."""

    WORD = "a date range"
    KIND = Kind.LOGICAL
    READS = Reads.TAGS
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    lo: int | None
    hi: int | None
    origin: Origin | None = origin_field()


class MovetextFeature(enum.Enum):
    """What Scidb's game-level keywords look for anywhere in a game's movetext."""

    COMMENTS = "comments"
    VARIATIONS = "variations"
    ANNOTATIONS = "annotations"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class GameHas(Filter):
    """Scidb's ``:hascomments``, ``:hasvariations``, ``:hasannotation``: the game's
    movetext, main line and variations, holds a comment with text, a variation, or a
    NAG other than ``$0`` (semantics: S-dialects)."""

    WORD = "a test of the game's movetext"
    KIND = Kind.LOGICAL
    READS = Reads.GAME
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    feature: MovetextFeature
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class FenIs(Filter):
    """Scidb's ``:fen``: the position is the one a FEN describes: the same placement, side
    to move, castling rights (``castling``, letters K, Q, k, q or ``-``) and en passant
    square where a capture there is legal (``ep``), as python-chess's repetition rule
    counts them; the clocks do not count (semantics: S-dialects)."""

    WORD = "a FEN position"
    KIND = Kind.LOGICAL
    READS = Reads.POSITION
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    placement: str
    white_to_move: bool
    castling: str
    ep: int | None
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True)
class FixedMove(Record):
    """One move of Scidb's ``:line*``, fully determined: the kind of the piece that moves
    (a python-chess piece type, colour-free: the side to move plays it), the square it
    leaves and the square it reaches, the kind of the piece it takes (None: it moves to
    an empty square), the promotion's kind, whether it takes en passant.  A castling
    (``castling``) names only the king's landing file, ``to_square`` on the first rank
    (g1: kingside, c1: queenside); ``from_square`` is None then."""

    piece: int
    from_square: int | None
    to_square: int
    captured: int | None = None
    promotion: int | None = None
    enpassant: bool = False
    castling: bool = False


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class LineReached(Filter):
    """Scidb's ``:line*`` (X3): the position is the one ``moves`` reach when played in
    order from the game's start position (each legal and as written; ``white_first``,
    when the moves are numbered: the colour that must move first), with the ``checks``
    of the last move; the same placement, side to move and castling rights, en passant
    aside.  If the moves cannot be played, it never holds in that game."""

    WORD = "a transposition-invariant line (`:line*`)"
    KIND = Kind.LOGICAL
    READS = Reads.GAME
    CQL_WORDS, OPERANDS, TRANSFORMS, PRECEDENCE, MODERN = SCIDB_ATOM

    moves: tuple[FixedMove, ...]
    checks: tuple[tuple[CheckKind, bool], ...] = ()
    white_first: bool | None = None
    origin: Origin | None = origin_field()

