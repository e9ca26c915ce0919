"""The query: top-level lists, the header and the legacy tag declarations."""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from cqllegacy.core.declarations import (
    Filter,
    Origin,
    origin_field,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import ANY_PIECE, TypeSet, types_of


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


@attrs.frozen(repr=False, slots=True)
class LineEnd(Record):
    """Where a top-level list puts its mark: ``plies`` half-moves further along the line
    being followed from each position the list marks, where the played part of Scidb's
    ``:line`` (``origin``) ends (X3).  The list still matches, and counts, where the
    line starts; only the marked position moves.  The main continuation is the line
    followed (the translator refuses a marked ``:line`` in a list that follows
    variations)."""

    plies: int
    origin: Origin | None = origin_field()


@attrs.frozen(repr=False, slots=True)
class TopList(Record):
    """One top-level condition of a game: ``body`` evaluated at every examined position.

    The game needs the number of matching positions in ``matchcount``
    (``(lo, hi)``, hi None = no limit; None means "at least one").
    """

    body: Filter
    matchcount: tuple[int, int | None] | None = None
    mark: Mark = Mark.ALL
    scope: Scope = Scope.MAINLINE
    origin: Origin | None = origin_field()
    #: Where the mark goes instead of the matching position (Scidb's ``:line``, X3).
    mark_end: LineEnd | None = None


@attrs.frozen(repr=False, slots=True)
class Header(Record):
    """What CQL 6 writes in ``cql( … )`` besides per-list settings."""

    inputs: tuple[str, ...] = ()
    output: str | None = None
    gamenumber: tuple[int, int | None] | None = None


@attrs.frozen(repr=False, slots=True)
class TagDeclaration(Record):
    """Legacy ``:forany NAME PD``: NAME is bound to one physical piece of the start
    position that is, now or after a promotion, of a type in ``types``.

    The whole query is evaluated once per binding of all tags (distinct tags take
    distinct pieces); the game matches when some binding satisfies every list.
    :class:`PieceVariable` nodes read the bound piece's current square.
    """

    MODERN: ClassVar[bool] = False

    name: str
    types: TypeSet
    origin: Origin | None = origin_field()

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


@attrs.frozen(repr=False, slots=True)
class Query(Record):
    """A complete query: a game matches when every top-level list is satisfied.

    A CQL 6 script is a query with one list; a legacy script has one list per
    top-level position list (they may match at different positions).

    ``forms`` above 1 splits ``lists`` into that many groups of equal length, each a
    whole form of the query (Scidb's ``:eithercolor``: the match as written, then its
    colour image).  The game matches when every list of some form is satisfied; the
    first such form gives the hits, and the lists of the other forms match nothing.
    """

    header: Header
    lists: tuple[TopList, ...]
    tags: tuple[TagDeclaration, ...] = ()
    leading_comments: tuple[str, ...] = ()
    forms: int = attrs.field(default=1, kw_only=True)

    @forms.validator
    def _check_forms(self, _attribute: object, forms: int) -> None:
        if forms < 1 or len(self.lists) % forms:
            raise ValueError(f"{len(self.lists)} lists do not make {forms} forms")
