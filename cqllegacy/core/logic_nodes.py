"""Logical, position and game filters of the core tree: ``{ }``, ``and``, ``or``,
``not``, keywords, tags and comments."""

from __future__ import annotations

import enum

import attrs

from cqllegacy.core.declarations import (
    ANY_FILTER,
    NO_OPERANDS,
    Filter,
    Kind,
    Origin,
    Precedence,
    Prefix,
    Reads,
    Syntax,
    Transforms,
    origin_field,
)
from cqllegacy.core.number_nodes import Color
from cqllegacy.vocab.results import GameResult


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Compound(Filter):
    """``{F1 … Fn}``: all constituents match; the value is that of the last."""

    WORD = "`{ }`"
    CQL_WORDS = ()
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM

    items: tuple[Filter, ...]

    def value_kind(self) -> Kind:
        # The value is the last constituent's; a comment kept at its place is none.
        items = [item for item in self.items if not isinstance(item, Comment)]
        return items[-1].value_kind() if items else Kind.LOGICAL

    def _conjunction_items(self) -> tuple[Filter, ...]:
        return self.items

    def _disjunction_items(self) -> tuple[Filter, ...] | None:
        # `{X}` is X; a compound of several filters is their conjunction.
        items = [item for item in self.items if not isinstance(item, Comment)]
        return tuple(items) if len(items) == 1 else None


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class And(Filter):
    WORD = "`and`"
    CQL_WORDS = ("and",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.AND

    items: tuple[Filter, ...]

    def _conjunction_items(self) -> tuple[Filter, ...]:
        return self.items


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Or(Filter):
    WORD = "`or`"
    CQL_WORDS = ("or",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.OR

    items: tuple[Filter, ...]

    def _disjunction_items(self) -> tuple[Filter, ...]:
        return self.items


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Not(Filter):
    SYNTAX = Prefix()
    WORD = "`not`"
    CQL_WORDS = ("not",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.NOT

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


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Simple(Filter):
    """An argument-less filter: ``wtm``, ``check``, ``initial``, ``true`` …"""

    SYNTAX = Syntax.WORD
    WORD = "a keyword filter"
    CQL_WORDS = tuple(keyword.value for keyword in Keyword)
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM

    keyword: Keyword

    def reads_itself(self) -> Reads:
        return _SIMPLE_READS[self.keyword]

    def word(self) -> str:
        return f"`{self.keyword.value}`"


#: ``terminal`` asks whether a move follows; ``true``/``false`` read nothing.
_SIMPLE_READS = {
    **{keyword: Reads.POSITION for keyword in Keyword},
    Keyword.TRUE: Reads.TAGS,
    Keyword.FALSE: Reads.TAGS,
    Keyword.TERMINAL: Reads.NEXT_MOVE,
}


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class SideToMove(Filter):
    """``sidetomove``: 1 when White is to move, -1 when Black is (numeric).

    The colour swap of a transform leaves it alone (decision M9)."""

    SYNTAX = Syntax.WORD
    WORD = "`sidetomove`"
    CQL_WORDS = ("sidetomove",)
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.POSITION
    PRECEDENCE = Precedence.ATOM


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Result(Filter):
    """``result 1-0`` …: the game's Result tag (``*`` never matches)."""

    WORD = "`result`"
    CQL_WORDS = ("result",)
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM

    result: GameResult


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Player(Filter):
    """``player [white|black] "text"``: substring of the player tag(s).

    ``ignore_case`` reproduces the legacy ``:player`` (L10).
    """

    WORD = "`player`"
    CQL_WORDS = ("player", "white", "black", "in", "lowercase")
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS
    # `player "x"`; the printer's other spelling, `"x" in player`, is InSet's form.
    PRECEDENCE = Precedence.ATOM

    text: str
    color: Color | None = None
    ignore_case: bool = False
    origin: Origin | None = origin_field()


class TagName(enum.Enum):
    EVENT = "event"
    SITE = "site"


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class TagContains(Filter):
    """``event "text"`` / ``site "text"``: substring of that tag."""

    WORD = "a tag filter"
    CQL_WORDS = (*(tag.value for tag in TagName), "in", "lowercase")
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS
    # `event "x"`; the printer's other spelling, `"x" in event`, is InSet's form.
    PRECEDENCE = Precedence.ATOM

    tag: TagName
    text: str


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class TagSearch(Filter):
    """The PGN tag ``name`` is present and, when ``text`` is given, contains it (ignoring
    case with ``ignore_case``).  CQL 6.1 ``tag "Name"``, ``"text" in lowercase tag
    "Name"``; for Event and Site ``"text" in lowercase event``.  Scidb's match-list
    ``:event``, ``:site``, ``:annotator``, ``:tag`` (semantics: S-dialects)."""

    WORD = "a tag search"
    CQL_WORDS = ("tag", "event", "site", "in", "lowercase")
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM

    name: str
    text: str | None = None
    ignore_case: bool = False
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class Comment(Filter):
    """A ``//`` comment at its place (T3); matches always and changes nothing.

    ``trailing`` says the comment annotates the filter before it in its compound: it is
    written at the end of that filter's (last) line, as ``Nd4  // the knight``.  A
    trailing comment that opens a compound annotates the opening: it is written on the
    line of the ``{`` (or of the ``cql( )`` header, for the first filter of the body).
    Otherwise the comment stands on a line of its own, before what follows it.
    """

    WORD = "a comment"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS
    PRECEDENCE = Precedence.ATOM
    IS_COMMENT = True

    text: str
    trailing: bool = False
