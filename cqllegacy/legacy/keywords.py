"""Keyword tables of the legacy language: which keywords each list kind takes, and how.

Each standard keyword has a :class:`KeywordSpec`: its name (without the colon), the
shape of its parameters and the tree node it builds, derived from the ``KEYWORD`` its item
class declares in :mod:`cqllegacy.legacy.tree` (the item unions ``MatchItem``,
``PositionItem``, ``RelationItem`` say which list takes it).  The reader dispatches on the
shape; the tests cross-check these tables against the keyword list of the reference.
Scidb and Chess Assistant extension keywords are only named here, so that the reader
can refuse them precisely (decision L17).

>>> POSITION_KEYWORDS["piececount"].shape
<Shape.PD_RANGE: 'a piece designator and a range'>
>>> sorted(homes_of("shift"), key=lambda kind: kind.value)
[<ListKind.POSITION: 'position list'>, <ListKind.RELATION: 'relation list'>]
>>> is_extension("eco*"), is_extension("mate")
(True, False)
"""

from __future__ import annotations

import enum
import functools
import typing
from collections.abc import Callable, Iterable
from typing import TypeAlias

import attrs

from cqllegacy.legacy import tree as t
from cqllegacy.legacy.tree import Shape as Shape  # re-exported: the tables name it
from cqllegacy.records import Record


class ListKind(enum.Enum):
    """The three kinds of keyword list; the value names the kind in messages."""

    MATCH = "match list"
    POSITION = "position list"
    RELATION = "relation list"

    @property
    def example(self) -> str:
        return _LIST_EXAMPLES[self]


_LIST_EXAMPLES = {
    ListKind.MATCH: "(match …)",
    ListKind.POSITION: "(position …)",
    ListKind.RELATION: ":relation (…)",
}


class Parameter(enum.Enum):
    """One parameter of a keyword; a shape is a sequence of them."""

    DESIGNATOR = "a piece designator"
    RANGE = "a range"
    OPTIONAL_RANGE = "an optional range"
    RESULT = "a game result"
    RAY = "a ray specifier list"
    LISTS = "a parenthesised list of position lists"
    RELATION = "a parenthesised relation list"
    NAME = "a name"
    FILE = "a file name"
    WORD = "a word"
    PAWN_CHAIN = "pawn attributes"
    OPTIONAL_WORD = "an optional word"
    OPTIONAL_DESIGNATOR = "an optional piece designator"
    DATE_RANGE = "a date range"
    FEN = "a FEN in double quotes"


#: The parameters of each shape, in order.
SHAPE_PARAMETERS: dict[Shape, tuple[Parameter, ...]] = {
    Shape.NONE: (),
    Shape.PD: (Parameter.DESIGNATOR,),
    Shape.PD_RANGE: (Parameter.DESIGNATOR, Parameter.RANGE),
    Shape.PD_PD_RANGE: (Parameter.DESIGNATOR, Parameter.DESIGNATOR, Parameter.RANGE),
    Shape.RANGE: (Parameter.RANGE,),
    Shape.RESULT: (Parameter.RESULT,),
    Shape.RAY: (Parameter.RAY, Parameter.OPTIONAL_RANGE),
    Shape.LISTS: (Parameter.LISTS,),
    Shape.RELATION: (Parameter.RELATION,),
    Shape.NAME: (Parameter.NAME,),
    Shape.NAME_RANGE: (Parameter.NAME, Parameter.RANGE),
    Shape.NAME_PD: (Parameter.NAME, Parameter.DESIGNATOR),
    Shape.FILE: (Parameter.FILE,),
    Shape.WORD: (Parameter.WORD,),
    Shape.PD_PAWNS_RANGE: (Parameter.DESIGNATOR, Parameter.PAWN_CHAIN, Parameter.RANGE),
    Shape.NAME_OPTIONAL_WORD: (Parameter.NAME, Parameter.OPTIONAL_WORD),
    Shape.OPTIONAL_PD: (Parameter.OPTIONAL_DESIGNATOR,),
    Shape.OPTIONAL_WORD: (Parameter.OPTIONAL_WORD,),
    Shape.FEN: (Parameter.FEN,),
    Shape.DATES: (Parameter.DATE_RANGE,),
}


#: Makes a keyword's tree node from its parameters (and ``span=…``).
Builder: TypeAlias = "Callable[..., t.MatchItem | t.PositionItem | t.RelationItem]"


@attrs.frozen(repr=False, slots=True)
class KeywordSpec(Record):
    """One standard keyword: ``build(*parameters, span=…)`` makes its tree node."""

    name: str
    shape: Shape
    build: Builder = attrs.field(eq=False, repr=False)

    @property
    def text(self) -> str:
        return ":" + self.name


def _specs(entries: Iterable[KeywordSpec]) -> dict[str, KeywordSpec]:
    return {spec.name: spec for spec in entries}


def _derived(items: object, *, dialect: bool = False) -> dict[str, KeywordSpec]:
    """The keywords of a list kind, from the ``KEYWORD`` each item class of its alias
    (``t.PositionItem`` …) declares, in the alias's order: the standard ones, or with
    ``dialect`` those of the classes that say ``DIALECT = True`` (X1)."""
    specs: list[KeywordSpec] = []
    for cls in typing.get_args(items):
        declared: t.KeywordDeclaration | None = getattr(cls, "KEYWORD", None)
        if declared is None or getattr(cls, "DIALECT", False) != dialect:
            continue  # designators and comments: no keyword; the other family
        if declared.keyed is None:
            specs += [KeywordSpec(name, declared.shape, cls) for name in declared.names()]
        else:
            specs += [
                KeywordSpec(member.value, declared.shape, functools.partial(cls, member))
                for member in declared.keyed
            ]
    return _specs(specs)


MATCH_KEYWORDS: dict[str, KeywordSpec] = _derived(t.MatchItem)
POSITION_KEYWORDS: dict[str, KeywordSpec] = _derived(t.PositionItem)
RELATION_KEYWORDS: dict[str, KeywordSpec] = _derived(t.RelationItem)

#: Dialect keywords read by an item class of their own (the others are read as standard
#: CQL 3: cqllegacy.legacy.dialects).
DIALECT_MATCH_KEYWORDS: dict[str, KeywordSpec] = _derived(t.MatchItem, dialect=True)
DIALECT_POSITION_KEYWORDS: dict[str, KeywordSpec] = _derived(t.PositionItem, dialect=True)

KEYWORDS: dict[ListKind, dict[str, KeywordSpec]] = {
    ListKind.MATCH: MATCH_KEYWORDS,
    ListKind.POSITION: POSITION_KEYWORDS,
    ListKind.RELATION: RELATION_KEYWORDS,
}

#: Examples shown when a parameter is missing, for the shapes every keyword shares.
SHAPE_EXAMPLES: dict[Shape, str] = {
    Shape.PD: "Ra3",
    Shape.PD_RANGE: "R 2",
    Shape.PD_PD_RANGE: "A k 2",
    Shape.RANGE: "1 10",
    Shape.RESULT: "1-0",
    Shape.RAY: "(Q k)",
    Shape.LISTS: "((position …) (position …))",
    Shape.RELATION: "(:pattern :shift)",
    Shape.NAME: "counter",
    Shape.NAME_RANGE: "counter 1 5",
    Shape.NAME_PD: "rook [Rr]",
    Shape.FILE: "games.pgn",
    Shape.WORD: "kasparov",
    Shape.PD_PAWNS_RANGE: "P passed-!inside >=1",
    Shape.NAME_OPTIONAL_WORD: "Source",
    Shape.OPTIONAL_PD: "[Kk]",
    Shape.OPTIONAL_WORD: "de,en",
    Shape.FEN: '"8/8/8/8/8/8/8/K1k5 w - - 0 1"',
    Shape.DATES: "2010-10-01 2010-10-31",
}

LIST_HEADS = ("match", "position")

#: Every standard keyword name, in any list.
STANDARD_NAMES: frozenset[str] = frozenset().union(*(table.keys() for table in KEYWORDS.values()))


def homes_of(name: str) -> set[ListKind]:
    """The list kinds in which ``name`` is a standard keyword."""
    return {kind for kind, table in KEYWORDS.items() if name in table}


# --------------------------------------------------------------------------------------
# Extensions (Scidb CQL-S, Chess Assistant 9): recognised, never supported (L17)
# --------------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Match-list extension keywords (semantics: S-extensions).
MATCH_EXTENSIONS: frozenset[str] = _words(
    """
    and or xor not cond
    whiteplayer blackplayer playerid whiteid blackid
    elo whiteelo blackelo
    rating whiterating blackrating averagerating averagerating* ratingdifference
    title whitetitle blacktitle country whitecountry blackcountry gender whitegender blackgender
    birthyear whitebirthyear blackbirthyear deathyear whitedeathyear blackdeathyear
    iscomputer whiteiscomputer blackiscomputer ishuman whiteishuman blackishuman
    event eventcategory eventcountry eventdate eventmode eventtype site round subround timemode
    annotator date eco eco* plycount termination variant tag
    comment comment* error goodgame hasannotation hascomments hasmarker hasmarkers
    hasspecialmarker hasspecialmarkers hasvariations
    ischess960 isshufflechess startposition eithercolor
    """
)

#: Position-list extension keywords (semantics: S-extensions).
POSITION_EXTENSIONS: frozenset[str] = _words(
    """
    cond xor castling contactcheck nocontactcheck doublecheck nodoublecheck endgame noendgame
    fen fiftymoverule halfmoveclock halfmoveclocklimit gameisover insidevariation losing
    matingmaterial nomatingmaterial mustcapture terminal threefoldrepetition fivefoldrepetition
    repetition whitecannotwin blackcannotwin threechecks kingonthehill checkcount nomate
    nostalemate inside goodbishop opposition pawncount pawncountdifference piececountdifference
    maxswapvalue maxswapevaluation exchangeevaluation evaluation moveevaluation
    endgameevaluation endgameevaluation* iscastling nocastling ischeck iscontactcheck
    isdoublecheck isillegal isinvalid ismate isnull isstalemate piecedrop forced captureforced
    takeslastpiece halfmovenumber line line* match matchconsecutive repetitioncount
    pretransformrepetitioncount accumulate* reset cut exclude skip preceding following endmost
    variant ischess960 isshufflechess startposition rating whiterating blackrating
    shifthorizontal* passedpawnrace perpendicular unstoppablepawns collateral ispromotedpiece
    nolosing
    """
)

EXTENSION_NAMES: frozenset[str] = MATCH_EXTENSIONS | POSITION_EXTENSIONS


def is_extension(name: str) -> bool:
    """True for a named extension keyword or any ``name*`` (Scidb's starred forms)."""
    return name in EXTENSION_NAMES or (name.endswith("*") and len(name) > 1)
