"""The attribute chain of Scidb's ``:pawncount`` (X4): ``passed-!inside``,
``isolated-consecutive(3)``.

Each link is an attribute, ``!`` before it negates it, and a count in parentheses follows
the attributes that take one.  An attribute runs when it is a fact of one pawn that the
help defines precisely (semantics: S-pawncount); every other name the help gives is
refused here with the reason (X5), never called unknown.

>>> str(read_pawn_chain("passed-!inside"))
'passed-!inside'
>>> str(read_pawn_chain("isolated-!consecutive!(3)"))
'isolated-!consecutive!(3)'
>>> read_pawn_chain("passed-islands").offset
7
"""

from __future__ import annotations

import re

import attrs

from cqllegacy.legacy import tree as t
from cqllegacy.legacy.dialect_items import PAWN_ATTRIBUTE_COUNTS
from cqllegacy.records import Record

__all__ = ["PAWN_ATTRIBUTES_REFUSED", "PawnChainFault", "read_pawn_chain"]

_FILE_COUNT = (
    "counts the pawns of a file among those the chain has kept, so its count depends on "
    "the chain's order (the help's own example: `single!-behind` and `behind-single!` differ)"
)
_LANGUAGES_RANKS = (
    "the help's texts disagree on what it counts: the English one the pawns of a file, "
    "the German one the pawns of a rank, and its example wants them side by side"
)
_GROUPS = "counts pawn groups ({}), not pawns"
_WINGS = "combines the counts of the two wings (a-d, e-h), it is no test of one pawn"

#: The attribute names of the help that do not run, and why (X4, X5).  A name with
#: ``(n)`` is listed by its name alone.
PAWN_ATTRIBUTES_REFUSED: dict[str, str] = {
    "single": (
        "the help's texts disagree: the German one counts every pawn, the English one a "
        "pawn alone on its file"
    ),
    "single!": _FILE_COUNT,
    "double!": _FILE_COUNT,
    "triple": (
        "the help's texts disagree: the German one asks two pawns on the file, the English "
        "one three"
    ),
    "triple!": _FILE_COUNT,
    **dict.fromkeys(
        ["uno", "uno!", "duo", "duo!", "trio", "trio!", "quart", "quart!"], _LANGUAGES_RANKS
    ),
    "chained!": (
        "counts the pawns of one chain, and the help does not say which chain a pawn on "
        "two diagonals with pawns of its colour belongs to"
    ),
    "stopped": (
        "the help does not say which rank the enemy pawn stands next to: the pawn's own, "
        "or that of the square ahead of it"
    ),
    "symmetrical": (
        "the help does not say what the number of enemy pawns on the file is compared with"
    ),
    "mirrored": (
        "the help does not say whose squares the mirror maps (this pawn's or every pawn's "
        "of its colour on the file), nor whether a file without enemy pawns counts"
    ),
    "forefront": "restricts which pawns the links after it see, so it depends on the chain's order",
    "rear": "restricts which pawns the links after it see, so it depends on the chain's order",
    "islands": _GROUPS.format("islands"),
    "islands!": _GROUPS.format("islands"),
    "compounds": _GROUPS.format("compounds"),
    "compounds!": _GROUPS.format("compounds"),
    "files": _GROUPS.format("files"),
    "files!": _GROUPS.format("files"),
    "ranks": _GROUPS.format("ranks"),
    "ranks!": _GROUPS.format("ranks"),
    "bothsides": _WINGS,
    "oneside": _WINGS,
}
#: Names that only some forms of the help give a count: ``chained`` runs, ``chained(3)``
#: does not.
_REFUSED_WITH_COUNT: dict[str, str] = {
    "chained": PAWN_ATTRIBUTES_REFUSED["chained!"],
    "triple": _FILE_COUNT,
    "quart": (
        "the help's texts disagree on what it counts: the English one the pawns of a "
        "file, the German one the pawns connected on a rank"
    ),
    "quart!": (
        "the help's texts disagree on what it counts: the English one the pawns of a "
        "file, the German one the pawns connected on a rank"
    ),
}
#: The English help's spellings of ``!blocked`` and ``!stoppable`` (its remark
#: "passed = unblocked-unstoppable", which the German help writes "!blocked-!stoppable").
_SPELLED_NEGATED: dict[str, t.PawnAttribute] = {
    "unblocked": t.PawnAttribute.BLOCKED,
    "unstoppable": t.PawnAttribute.STOPPABLE,
}
_LINK = re.compile(r"(?P<name>[^()!]+!?)(?:\((?P<count>[^()]*)\))?")
_RUNNING = ", ".join(
    f"{a.value}(n)" if a in PAWN_ATTRIBUTE_COUNTS and a.value.endswith("!") else a.value
    for a in t.PawnAttribute
)


@attrs.frozen(repr=False, slots=True)
class PawnChainFault(Record):
    """Why a ``:pawncount`` chain is refused, and where in its text."""

    message: str
    offset: int
    text: str
    hint: str = f"the attributes that run: {_RUNNING}"


def _refused(name: str, reason: str, offset: int, link: str) -> PawnChainFault:
    return PawnChainFault(f"Scidb `:pawncount` attribute `{name}`: {reason}", offset, link)


def _counted(
    attribute: t.PawnAttribute, count: str | None, negated: bool, offset: int, link: str
) -> t.PawnTest | PawnChainFault:
    """The test of an attribute that takes a count, its count checked."""
    allowed = PAWN_ATTRIBUTE_COUNTS[attribute]
    if count is None:
        if attribute.value.endswith("!"):
            return PawnChainFault(
                f"Scidb `:pawncount` attribute `{attribute.value}` needs a count: "
                f"`{attribute.value}(n)`",
                offset,
                link,
            )
        return t.PawnTest(attribute, negated)
    if not count.isdigit() or int(count) not in allowed:
        return PawnChainFault(
            f"the count of `{attribute.value}` is {allowed.start} to {allowed.stop - 1} "
            f"(the help's range), not `{count}`",
            offset,
            link,
        )
    return t.PawnTest(attribute, negated, int(count))


def _pawn_test(link: str, offset: int) -> t.PawnTest | PawnChainFault:
    negated = link.startswith("!")
    body = link[1:] if negated else link
    found = _LINK.fullmatch(body)
    if found is None:
        return PawnChainFault("a `:pawncount` attribute is missing here", offset, link or "-")
    name, count = found["name"], found["count"]
    try:
        attribute = t.PawnAttribute(name)
    except ValueError:
        pass
    else:
        if attribute in PAWN_ATTRIBUTE_COUNTS:
            return _counted(attribute, count, negated, offset, link)
        if count is None:
            return t.PawnTest(attribute, negated)
        if name in _REFUSED_WITH_COUNT:
            return _refused(f"{name}(n)", _REFUSED_WITH_COUNT[name], offset, link)
        return PawnChainFault(f"Scidb `:pawncount` attribute `{name}` takes no count", offset, link)
    if name in _SPELLED_NEGATED and count is None:
        return t.PawnTest(_SPELLED_NEGATED[name], not negated)
    if count is not None and name in _REFUSED_WITH_COUNT:
        return _refused(f"{name}(n)", _REFUSED_WITH_COUNT[name], offset, link)
    if name in PAWN_ATTRIBUTES_REFUSED:
        shown = name if count is None else f"{name}(n)"
        return _refused(shown, PAWN_ATTRIBUTES_REFUSED[name], offset, link)
    if name == "doubled":
        return PawnChainFault(
            "unknown `:pawncount` attribute `doubled`", offset, link, "Scidb's word is `double`"
        )
    return PawnChainFault(f"unknown `:pawncount` attribute `{name}`", offset, link)


def read_pawn_chain(text: str) -> t.PawnChain | PawnChainFault:
    """The attribute chain of ``:pawncount`` (``passed-!inside``), or why it is refused."""
    tests: list[t.PawnTest] = []
    offset = 0
    for link in text.split("-"):
        found = _pawn_test(link, offset)
        if isinstance(found, PawnChainFault):
            return found
        tests.append(found)
        offset += len(link) + 1
    return t.PawnChain(tuple(tests))
