"""The CQL 3 dialects (Scidb's CQL-S, Chess Assistant / Aquarium) read as standard CQL 3.

Decision X1: the dialect forms are read by default, beside standard CQL 3.  Most of them
have a standard equivalent that the dialect's own help states or that follows from the
help's definition; the reader builds that equivalent, so the form runs on every path
(the index included), translates to CQL 6.1 and costs what its standard spelling costs.
The tables here say, per keyword, what it becomes (:data:`POSITION_MACROS`,
:data:`LIST_MACROS`) and why the others are refused (:data:`REFUSALS`, decision X5).

Every node a macro builds carries the span of the keyword that asked for it, so a
message about it points at the user's text.

>>> from cqllegacy.legacy.printer import print_script
>>> item = POSITION_MACROS["doublecheck"](t.NO_SPAN)
>>> [type(each).__name__ for each in item.lists[0].items]
['AttackCount', 'Transform']
>>> refusal("maxswapevaluation")
'Scidb extension `:maxswapevaluation`: needs an engine'
"""

from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Callable, Mapping, Sequence

import attrs
import chess

from cqllegacy.legacy import tree as t
from cqllegacy.legacy.lexical import parse_designator
from cqllegacy.legacy.pawn_chain import PawnChainFault, read_pawn_chain
from cqllegacy.vocab.fen import PositionKey, position_key
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import LIGHT_SQUARES

__all__ = [
    "ANY_TAG_REFUSAL",
    "ANY_VALUE",
    "BARE_POSITION_LIST",
    "DATE_RANGE",
    "LIST_MACROS",
    "MAX_CONSECUTIVE",
    "NOT_NEGATABLE",
    "NOT_NEGATABLE_MATCH",
    "NO_VALUE",
    "OPTIONAL_DESIGNATOR",
    "OPTIONAL_RANGE",
    "OWN_LANGUAGE",
    "POSITION_MACROS",
    "RANGE_MACROS",
    "REFUSALS",
    "TERMINATIONS",
    "PawnChainFault",
    "date_range",
    "eco_ranges",
    "negated",
    "not_list",
    "read_pawn_chain",
    "refusal",
    "termination_values",
]

#: The form of a script that is a bare position list, Chess Assistant's (X1).
BARE_POSITION_LIST = "a bare `(position …)` without `(match …)`"


def describe_forms(forms: Sequence[tuple[str, Span]]) -> str:
    """What ``check`` says of the dialect forms a script uses (X1), one line, each form
    once with the place it is first used.

    >>> describe_forms([("`:xor`", Span(2, 3)), ("`?[27]`", Span(3, 1)), ("`:xor`", Span(4, 1))])
    'Scidb CQL-S: `:xor` (2:3), `?[27]` (3:1)'
    """
    first: dict[str, Span] = {}
    for form, span in forms:
        first.setdefault(form, span)
    parts = []
    bare = first.pop(BARE_POSITION_LIST, None)
    if bare is not None:
        parts.append(f"Chess Assistant: {BARE_POSITION_LIST} ({bare.line}:{bare.column})")
    if first:
        listed = ", ".join(f"{form} ({span.line}:{span.column})" for form, span in first.items())
        parts.append(f"Scidb CQL-S: {listed}")
    return "; ".join(parts)


#: A ``:matchconsecutive`` of more lists than this is refused: it is the ``:or`` of
#: every ordering (X2), and 6 lists already have 720 of them.
MAX_CONSECUTIVE = 6


# --------------------------------------------------------------------------------------
# Building standard legacy nodes
# --------------------------------------------------------------------------------------


def _d(text: str, squares: int | None = None) -> t.Designator:
    found = parse_designator(text)
    return t.Designator(found.types, found.squares if squares is None else squares)


def _count(text: str, lo: int, hi: int | None = -1, squares: int | None = None) -> t.PieceCount:
    return t.PieceCount(_d(text, squares), t.Range(lo, lo if hi == -1 else hi))


def _flag(keyword: t.FlagKeyword) -> t.Flag:
    return t.Flag(keyword)


def _transform(keyword: t.TransformKeyword) -> t.Transform:
    return t.Transform(keyword)


def _pl(*items: t.PositionItem) -> t.PositionList:
    return t.PositionList(tuple(items))


def _and(*lists: t.PositionList) -> t.ListOfLists:
    return t.ListOfLists(t.ListKeyword.AND, tuple(lists))


def _or(*lists: t.PositionList) -> t.ListOfLists:
    return t.ListOfLists(t.ListKeyword.OR, tuple(lists))


def _with_span(node: object, span: Span) -> object:
    """``node`` with every span in it set to ``span`` (spans are not part of equality)."""
    if isinstance(node, tuple):
        return tuple(_with_span(each, span) for each in node)
    cls = type(node)
    if not attrs.has(cls):
        return node
    changes: dict[str, object] = {}
    for field in attrs.fields(cls):
        value = getattr(node, field.name)
        changes[field.name] = span if field.name == "span" else _with_span(value, span)
    return attrs.evolve(node, **changes)  # type: ignore[misc]


def placed(item: t.PositionItem, span: Span) -> t.PositionItem:
    placed_item = _with_span(item, span)
    assert isinstance(placed_item, type(item))
    return placed_item


def not_list(inner: t.PositionList, span: Span) -> t.ListOfLists:
    """Scidb's list-valued ``:not (position …)``: the list ``inner`` does not match here."""
    body = t.PositionList((t.Flag(t.FlagKeyword.NOT, span=span), _and(inner)), span=span)
    return t.ListOfLists(t.ListKeyword.AND, (body,), span=span)


def negated(item: t.PositionItem, span: Span) -> t.ListOfLists:
    """Scidb's ``!:keyword …``: that one item does not hold here."""
    body = t.PositionList((t.Flag(t.FlagKeyword.NOT, span=span), item), span=span)
    return t.ListOfLists(t.ListKeyword.AND, (body,), span=span)


#: Keywords whose negation means nothing: list settings and transforms.
NOT_NEGATABLE: frozenset[str] = frozenset(
    {keyword.value for keyword in t.TransformKeyword}
    | {
        "markall",
        "noannotate",
        "variations",
        "variationsonly",
        "not",
        "matchcount",
        "pretransformmatchcount",
        "accumulate",
        "accumulate*",
        "sumrange",
        "tagmatch",
    }
)


#: Match-list keywords whose negation means nothing: files, game numbers, tag
#: declarations.
NOT_NEGATABLE_MATCH: frozenset[str] = frozenset({"pgn", "output", "gamenumber", "forany"})


# --------------------------------------------------------------------------------------
# Keywords the help defines by a standard query (or by a definition that is one)
# --------------------------------------------------------------------------------------

_FLIPCOLOR = t.TransformKeyword.FLIPCOLOR
DARK_SQUARES = ((1 << 64) - 1) & ~LIGHT_SQUARES


def _doublecheck() -> t.ListOfLists:
    # Two or more pieces attack the king of the side to move (the help's own equivalent).
    return _and(_pl(t.AttackCount(_d("A"), _d("k"), t.Range(2, None)), _transform(_FLIPCOLOR)))


def _contactcheck() -> t.ListOfLists:
    # In check, and the check cannot be blocked: a double check, a knight or pawn check,
    # or a queen, rook or bishop next to the king on its line (the help's equivalent).
    shift = _transform(t.TransformKeyword.SHIFT)
    return _and(
        _pl(
            _flag(t.FlagKeyword.CHECK),
            _or(
                _pl(_doublecheck()),
                _pl(t.AttackCount(_d("[NP]"), _d("k"), t.Range(1)), _transform(_FLIPCOLOR)),
                _pl(_d("[QR]d4"), _d("k[c4,e4,d3,d5]"), _transform(_FLIPCOLOR), shift),
                _pl(_d("[QB]d4"), _d("k[c3,c5,e3,e5]"), _transform(_FLIPCOLOR), shift),
            ),
        )
    )


def _endgame() -> t.ListOfLists:
    # Scidb's three material patterns of an endgame (no queens and at most three white
    # and three black rooks or minor pieces; one queen each and at most one minor piece
    # each, no rook; one side a queen and at most a minor piece against no queen and at
    # most 16 points of rooks and minor pieces).
    return _or(
        _pl(_count("[Qq]", 0), _count("[RBN]", 0, 3), _count("[rbn]", 0, 3)),
        _pl(
            _count("Q", 1),
            _count("q", 1),
            _count("[Rr]", 0),
            _count("I", 0, 1),
            _count("i", 0, 1),
        ),
        _pl(
            _count("Q", 1),
            _count("R", 0),
            _count("I", 0, 1),
            _count("q", 0),
            t.Power(_d("[rbn]"), t.Range(0, 16)),
            _transform(_FLIPCOLOR),
        ),
    )


def _no_mating_material() -> t.ListOfLists:
    # Neither side can mate: bare kings; a single minor piece; or one bishop each, both
    # on squares of one colour.
    return _or(
        _pl(_count("U", 2)),
        _pl(_count("U", 3), _count("[Ii]", 1)),
        _pl(_count("U", 4), _count("[Bb]", 2, squares=LIGHT_SQUARES)),
        _pl(_count("U", 4), _count("[Bb]", 2, squares=DARK_SQUARES)),
    )


def _mating_material() -> t.ListOfLists:
    return _and(_pl(_flag(t.FlagKeyword.NOT), _no_mating_material()))


def _gameisover() -> t.ListOfLists:
    # Mate, stalemate, or no mating material (Scidb's other cases belong to variants).
    return _or(
        _pl(_flag(t.FlagKeyword.MATE)),
        _pl(_flag(t.FlagKeyword.STALEMATE)),
        _pl(_no_mating_material()),
    )


def _after_next_move(*items: t.PositionItem) -> t.ListOfLists:
    """The move played from here leads to a position where ``items`` hold."""
    return _and(_pl(t.ListOfLists(t.ListKeyword.SEQUENCE, (_pl(), _pl(*items)))))


def _no(make: Callable[[], t.PositionItem]) -> Callable[[], t.PositionItem]:
    return lambda: negated(make(), t.NO_SPAN)


def _terminal() -> t.ListOfLists:
    # The last position of its line: no move follows (a :sequence of two positions from
    # here needs a next one).
    return _and(
        _pl(_flag(t.FlagKeyword.NOT), t.ListOfLists(t.ListKeyword.SEQUENCE, (_pl(), _pl())))
    )


_MACROS: dict[str, Callable[[], t.PositionItem]] = {
    "doublecheck": _doublecheck,
    "contactcheck": _contactcheck,
    "endgame": _endgame,
    "matingmaterial": _mating_material,
    "gameisover": _gameisover,
    "terminal": _terminal,
    "ischeck": lambda: _after_next_move(_flag(t.FlagKeyword.CHECK)),
    "ismate": lambda: _after_next_move(_flag(t.FlagKeyword.MATE)),
    "isstalemate": lambda: _after_next_move(_flag(t.FlagKeyword.STALEMATE)),
    "isdoublecheck": lambda: _after_next_move(_doublecheck()),
    "iscontactcheck": lambda: _after_next_move(_contactcheck()),
}
#: The old ``no…`` keywords: the negation of the keyword they name.
_NO_FORMS: dict[str, Callable[[], t.PositionItem]] = {
    "nomate": _no(lambda: _flag(t.FlagKeyword.MATE)),
    "nostalemate": _no(lambda: _flag(t.FlagKeyword.STALEMATE)),
    "nodoublecheck": _no(_doublecheck),
    "nocontactcheck": _no(_contactcheck),
    "noendgame": _no(_endgame),
    "nomatingmaterial": _no(_mating_material),
}


def _at(make: Callable[[], t.PositionItem]) -> Callable[[Span], t.PositionItem]:
    return lambda span: placed(make(), span)


#: Keywords that Scidb lets take an optional piece designator, whose meaning the help
#: leaves open: a designator right after them is refused (X5).
OPTIONAL_DESIGNATOR: frozenset[str] = frozenset(
    {"contactcheck", "nocontactcheck", "iscontactcheck"}
)

#: Keywords that Scidb lets take an optional range, for a chess variant: a range right
#: after them is refused (X5).
OPTIONAL_RANGE: frozenset[str] = frozenset({"ischeck"})

#: Argument-less position-list keywords of the dialects and what each becomes.
POSITION_MACROS: Mapping[str, Callable[[Span], t.PositionItem]] = {
    name: _at(make) for name, make in {**_MACROS, **_NO_FORMS}.items()
}


# --------------------------------------------------------------------------------------
# Keywords that take a range
# --------------------------------------------------------------------------------------


def _halfmovenumber(r: t.Range) -> t.PositionItem:
    # The half-move number of a position is 2 * (full-move number - 1), plus 1 when Black
    # is to move: 0 at the start of a game, 1 after White's first move.  With the move
    # number of L8 (full-move number - 1 with White to move, the full-move number with
    # Black to move) that is 2 * m with White to move and 2 * m - 1 with Black to move.
    def moves(lo: int, hi: int | None, side: t.FlagKeyword, odd: int) -> t.PositionList | None:
        first = max(0, -(-(lo + odd) // 2))
        last = None if hi is None else (hi + odd) // 2
        if last is not None and last < first:
            return None
        return _pl(_flag(side), t.RangeTest(t.RangeKeyword.MOVENUMBER, t.Range(first, last)))

    members = [
        member
        for member in (
            moves(r.lo, r.hi, t.FlagKeyword.WTM, 0),
            moves(r.lo, r.hi, t.FlagKeyword.BTM, 1),
        )
        if member is not None
    ]
    if not members:
        return _and(_pl(_flag(t.FlagKeyword.NOT)))  # no position has such a number
    return _or(*members)


#: Dialect keywords that take a range, and what each becomes.
RANGE_MACROS: Mapping[str, Callable[[t.Range], t.PositionItem]] = {
    "halfmovenumber": _halfmovenumber,
}


# --------------------------------------------------------------------------------------
# Keywords that take a list of position lists
# --------------------------------------------------------------------------------------


def _xor(lists: Sequence[t.PositionList]) -> t.PositionItem:
    # Exactly one list matches: one of them does and none of the others.
    members = []
    for index, chosen in enumerate(lists):
        others = tuple(lists[:index]) + tuple(lists[index + 1 :])
        items: list[t.PositionItem] = [_and(chosen)]
        if others:
            items.append(_and(_pl(_flag(t.FlagKeyword.NOT), _or(*others))))
        members.append(_pl(*items))
    return _or(*members)


def _cond(lists: Sequence[t.PositionList]) -> t.PositionItem:
    # Clause, expression, clause, expression …, optionally a last expression alone: the
    # expression of the first clause that matches decides; the last expression alone
    # decides when no clause matches; without it, no matching clause means no match.
    pairs = [(lists[i], lists[i + 1]) for i in range(0, len(lists) - 1, 2)]
    otherwise = lists[-1] if len(lists) % 2 else None
    members = []
    earlier: list[t.PositionList] = []
    for clause, expression in pairs:
        items: list[t.PositionItem] = [_and(clause, expression)]
        if earlier:
            items.append(_and(_pl(_flag(t.FlagKeyword.NOT), _or(*earlier))))
        members.append(_pl(*items))
        earlier.append(clause)
    if otherwise is not None:
        items = [_and(otherwise)]
        if earlier:
            items.append(_and(_pl(_flag(t.FlagKeyword.NOT), _or(*earlier))))
        members.append(_pl(*items))
    return _or(*members)


def _matchconsecutive(lists: Sequence[t.PositionList]) -> t.PositionItem:
    # X2: the lists hold at consecutive positions in some order, each once: the :or of
    # the :sequence of every distinct ordering.
    orderings = dict.fromkeys(itertools.permutations(lists))
    return _or(*(_pl(t.ListOfLists(t.ListKeyword.SEQUENCE, ordering)) for ordering in orderings))


#: Dialect keywords with an argument language of their own, read by their own module
#: (``:line``: cqllegacy.legacy.line_moves; ``:line*``: cqllegacy.legacy.line_star).
OWN_LANGUAGE: frozenset[str] = frozenset({"line", "line*"})

#: Dialect keywords that take a list of position lists, and what each becomes.
LIST_MACROS: Mapping[str, Callable[[Sequence[t.PositionList]], t.PositionItem]] = {
    "xor": _xor,
    "cond": _cond,
    "matchconsecutive": _matchconsecutive,
}


# --------------------------------------------------------------------------------------
# What is refused, and why (X5)
# --------------------------------------------------------------------------------------

_ENGINE = "needs an engine"
_TABLEBASE = "needs an endgame tablebase"
_DATABASE = "reads Scidb's player and event database, which a PGN file does not have"
_ORDER = "depends on Scidb's evaluation order"
_VARIANT = "belongs to a chess variant"
_UNDEFINED = "the help does not define it precisely"


def _reasons(reason: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), reason)


#: Why each dialect keyword that does not run is refused.
REFUSALS: Mapping[str, str] = {
    **_reasons(
        _ENGINE,
        "evaluation moveevaluation exchangeevaluation maxswapevaluation maxswapvalue",
    ),
    **_reasons(_TABLEBASE, "endgameevaluation endgameevaluation*"),
    **_reasons(
        _DATABASE,
        """playerid whiteid blackid rating whiterating blackrating averagerating
        averagerating* ratingdifference title whitetitle blacktitle country whitecountry
        blackcountry gender whitegender blackgender birthyear whitebirthyear blackbirthyear
        deathyear whitedeathyear blackdeathyear iscomputer whiteiscomputer blackiscomputer
        ishuman whiteishuman blackishuman eventcategory eventcountry eventdate eventmode
        eventtype timemode hasmarker hasmarkers hasspecialmarker hasspecialmarkers
        goodgame error""",
    ),
    **_reasons(_ORDER, "cut exclude skip reset"),
    **_reasons(
        _VARIANT,
        """losing nolosing threechecks kingonthehill checkcount piecedrop mustcapture
        captureforced takeslastpiece variant ischess960 isshufflechess whitecannotwin
        blackcannotwin isillegal isinvalid""",
    ),
    **_reasons(
        _UNDEFINED,
        """inside goodbishop opposition passedpawnrace perpendicular unstoppablepawns
        collateral pawncountdifference piececountdifference insidevariation preceding
        following endmost match startposition ispromotedpiece nocastling isnull
        halfmoveclocklimit fiftymoverule repetition pretransformrepetitioncount
        fivefoldrepetition shifthorizontal*""",
    ),
    **_reasons(
        "its search pattern's rules for blanks, delimiters and word ends are not defined"
        " precisely, and it reads the languages Scidb gives comments",
        "comment comment*",
    ),
    **_reasons("needs Scidb's own opening classification", "eco*"),
    **_reasons(
        "the help's definition (a repetition of the list's features) and its examples (a count"
        " of 0 selecting games) disagree",
        "repetitioncount",
    ),
}


#: Why Scidb's ``:hascomments`` with languages is refused (X5).
COMMENT_LANGUAGES_REFUSAL = (
    "Scidb extension `:hascomments` with languages: a PGN comment names no language;"
    " the languages are Scidb's own markup"
)


#: Why Scidb's ``:tag *`` is refused (X5).
ANY_TAG_REFUSAL = (
    "Scidb extension `:tag *`: the help does not say which tags count as additional ones"
)

_ECO_CODE = re.compile(r"([A-E])(\d\d)(?:-([A-E])?(\d\d))?")
#: Scidb's special ranges: ``*`` any value, ``-`` (or an en dash) no value.
ANY_VALUE = "*"
NO_VALUE = frozenset({"-", "\u2013", "\u2212"})


def eco_ranges(text: str) -> tuple[tuple[str, str], ...] | None:
    """The ranges of ECO codes an ``:eco`` parameter lists, each (first, last), or None
    when it is not such a list.  ``B00-99`` runs from B00 to B99, ``A80-B19`` from A80
    to B19; ``*`` is every code.

    >>> eco_ranges("A00,B00-99,C10-D05")
    (('A00', 'A00'), ('B00', 'B99'), ('C10', 'D05'))
    >>> eco_ranges("*"), eco_ranges("B99-00"), eco_ranges("F00")
    ((('A00', 'E99'),), None, None)
    """
    if text == ANY_VALUE:
        return (("A00", "E99"),)
    ranges = []
    for part in text.split(","):
        found = _ECO_CODE.fullmatch(part)
        if found is None:
            return None
        letter, first, last_letter, last = found.groups()
        lo = letter + first
        hi = lo if last is None else (last_letter or letter) + last
        if hi < lo:
            return None
        ranges.append((lo, hi))
    return tuple(ranges)


#: Scidb's ways a game ended (``:termination``) and the ``Termination`` tag values each
#: reads, lower-cased and without spaces (PGN's values; "" is a missing tag or ``?``).
TERMINATIONS: Mapping[str, frozenset[str]] = {
    "unknown": frozenset({""}),
    "normal": frozenset({"normal"}),
    "abandoned": frozenset({"abandoned"}),
    "adjudication": frozenset({"adjudication"}),
    "emergency": frozenset({"emergency"}),
    "rulesinfraction": frozenset({"rulesinfraction"}),
    "timeforfeit": frozenset({"timeforfeit"}),
    "unterminated": frozenset({"unterminated"}),
}
#: Scidb's termination words that no PGN value stands for, and why each is refused.
TERMINATION_REFUSALS: Mapping[str, str] = {
    "disconnection": "PGN has no Termination value for a disconnection",
    "unplayed": "the help gives it two meanings (a draw claim, no opponent)",
}


def termination_values(words: str) -> frozenset[str] | str:
    """The ``Termination`` values a ``:termination`` list reads, or why it is refused.

    >>> sorted(termination_values("unknown,normal"))
    ['', 'normal']
    >>> termination_values("unplayed")
    'Scidb `:termination unplayed`: the help gives it two meanings (a draw claim, no opponent)'
    """
    values: set[str] = set()
    for word in words.split(","):
        if word in TERMINATION_REFUSALS:
            return f"Scidb `:termination {word}`: {TERMINATION_REFUSALS[word]}"
        if word not in TERMINATIONS:
            return f"`:termination {word}`: not a way a game ends ({', '.join(TERMINATIONS)})"
        values |= TERMINATIONS[word]
    return frozenset(values)


_MINUS = "-\u2212"
#: One date of Scidb's ``:date``: year-month-day, then optional year, month and day steps.
DATE = (
    r"\d{4}[-\u2212]\d{2}[-\u2212]\d{2}"
    r"(?:[+\-\u2212]\d+y)?(?:[+\-\u2212]\d+m)?(?:[+\-\u2212]\d+d)?"
)
#: Scidb's ``:date`` parameter: ``*``, ``-`` (or an en dash), ``[<|<=|>|>=]DATE``,
#: ``DATE DATE`` or ``DATE .. DATE``.
DATE_RANGE = (
    rf"\*|[\-\u2013](?![\d])|(?:<=|>=|<|>)?{DATE}(?:\s+(?:\.\.\s+)?{DATE})?"
)
_DATE_PARTS = re.compile(
    r"(\d{4})[-\u2212](\d{2})[-\u2212](\d{2})"
    r"(?:([+\-\u2212])(\d+)y)?(?:([+\-\u2212])(\d+)m)?(?:([+\-\u2212])(\d+)d)?"
)


def _step(sign: str | None, amount: str | None) -> int:
    if amount is None:
        return 0
    return -int(amount) if sign in ("-", "\u2212") else int(amount)


def date_day(text: str) -> int | str:
    """The day (proleptic ordinal) a ``:date`` date names, or why it names none.  Steps
    apply in order: years and months move the month, then days move the day.

    >>> import datetime
    >>> datetime.date.fromordinal(date_day("2010-10-01+1m"))
    datetime.date(2010, 11, 1)
    >>> datetime.date.fromordinal(date_day("2010-10-27\u221243d"))
    datetime.date(2010, 9, 14)
    >>> date_day("2010-01-31+1m")
    'no day 2010-02-31'
    """
    found = _DATE_PARTS.fullmatch(text)
    assert found is not None, "the reader matched DATE"
    year, month, day, ys, ya, ms, ma, ds, da = found.groups()
    months = int(year) * 12 + int(month) - 1 + 12 * _step(ys, ya) + _step(ms, ma)
    y, m = divmod(months, 12)
    try:
        start = datetime.date(y, m + 1, int(day))
    except ValueError:
        return f"no day {y:04d}-{m + 1:02d}-{int(day):02d}"
    return start.toordinal() + _step(ds, da)


def date_range(text: str) -> tuple[int | None, int | None] | str:
    """The first and last day (ordinals, None for no bound) of a ``:date`` range other
    than ``*`` and ``-``, or why it is refused.  ``A B`` holds both; ``A .. B`` holds A
    and not B, whichever comes first (the help's order-free form).

    >>> import datetime
    >>> lo, hi = date_range("2010-10-01 .. 2010-11-01")
    >>> datetime.date.fromordinal(lo), datetime.date.fromordinal(hi)
    (datetime.date(2010, 10, 1), datetime.date(2010, 10, 31))
    >>> lo, hi = date_range("2010-10-27 .. 2010-10-27-43d")
    >>> datetime.date.fromordinal(lo), datetime.date.fromordinal(hi)
    (datetime.date(2010, 9, 15), datetime.date(2010, 10, 27))
    >>> date_range("2010-10-01 .. 2010-10-01")
    'the empty range 2010-10-01 .. 2010-10-01'
    """
    operator = re.match(r"<=|>=|<|>", text)
    body = text[operator.end() :] if operator else text
    parts = body.split()
    days = [date_day(part) for part in parts if part != ".."]
    for day in days:
        if isinstance(day, str):
            return day
    numbers = [day for day in days if isinstance(day, int)]
    if operator is not None:
        (day,) = numbers
        return {
            "<": (None, day - 1), "<=": (None, day), ">": (day + 1, None), ">=": (day, None)
        }[operator.group()]  # fmt: skip
    if len(numbers) == 1:
        return numbers[0], numbers[0]
    first, second = numbers
    if ".." in parts:
        if first == second:
            return f"the empty range {' '.join(parts)}"
        return (first, second - 1) if first < second else (second + 1, first)
    if second < first:
        return f"the empty range {' '.join(parts)}: write {parts[1]} {parts[0]}"
    return first, second


def refusal(name: str) -> str | None:
    """The message refusing the dialect keyword ``name``, or None when it is none."""
    reason = REFUSALS.get(name)
    if reason is None:
        return None
    return f"Scidb extension `:{name}`: {reason}"


# --------------------------------------------------------------------------------------
# :fen
# --------------------------------------------------------------------------------------

def fen_key(fen: str) -> PositionKey | str:
    """The position ``fen`` describes (:func:`~cqllegacy.vocab.fen.position_key`), or why
    it describes none.  The clocks are not part of it (Scidb: "the position is identical").

    >>> fen_key("rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    ('rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR', True, 'KQkq', None)
    >>> fen_key("8/8/8/8/8/8/8/8 w - - 0 1")
    'not a legal position: no white king'
    """
    try:
        board = chess.Board(fen)
    except ValueError as error:
        return f"not a FEN: {error}"
    status = board.status()
    for words, flag in _STATUS_NAMES.items():
        if status & flag:
            return f"not a legal position: {words}"
    return position_key(board)


_STATUS_NAMES = {
    "no white king": chess.STATUS_NO_WHITE_KING,
    "no black king": chess.STATUS_NO_BLACK_KING,
    "too many kings": chess.STATUS_TOO_MANY_KINGS,
    "too many white pawns": chess.STATUS_TOO_MANY_WHITE_PAWNS,
    "too many black pawns": chess.STATUS_TOO_MANY_BLACK_PAWNS,
    "pawns on the back rank": chess.STATUS_PAWNS_ON_BACKRANK,
    "too many white pieces": chess.STATUS_TOO_MANY_WHITE_PIECES,
    "too many black pieces": chess.STATUS_TOO_MANY_BLACK_PIECES,
    "bad castling rights": chess.STATUS_BAD_CASTLING_RIGHTS,
    "an invalid en passant square": chess.STATUS_INVALID_EP_SQUARE,
    "the side not to move is in check": chess.STATUS_OPPOSITE_CHECK,
    "an impossible check": chess.STATUS_IMPOSSIBLE_CHECK,
    "too many checkers": chess.STATUS_TOO_MANY_CHECKERS,
    "empty": chess.STATUS_EMPTY,
}
