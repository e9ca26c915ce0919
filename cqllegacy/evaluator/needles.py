"""Texts a game's tag section must contain for a game-only test to hold.

The runner rejects most games of a tag-only query before parsing their tags: a test such
as ``player "Tal"`` can hold only where the tag text contains ``tal`` in some case.
:func:`needles_of` gives such a necessary condition as *clauses*: every clause must have
one of its texts in the lower-cased tag section.  A node that gives no such text gives
no clause (the condition is then weaker, never wrong).

Texts are ASCII, and :func:`admits` is meant for tag sections that are ASCII too: there
``str.casefold`` and ``str.lower`` agree and act character by character, so a value that
holds a needle (in any case) puts the lower-cased needle into the lower-cased section.

A tag that is absent has python-chess's roster default (``?`` for the players, event
and site), which appears nowhere in the text: a needle found in that default gives no
clause.

>>> from cqllegacy.core.tree import Color, Player, Or, NumericValue, NumericKeyword, InRange
>>> needles_of(Or((Player("Tal", Color.WHITE), Player("Tal", Color.BLACK))))
(frozenset({'tal'}),)
>>> needles_of(InRange(NumericValue(NumericKeyword.YEAR), 1960, 1961)) == (
...     frozenset({"1960", "1961"}),)
True
>>> admits('[white "tal, mikhail"]\\n', (frozenset({"tal"}),))
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from cqllegacy.core.tree import (
    And,
    Compound,
    Filter,
    InRange,
    LegacyOnly,
    NumericKeyword,
    NumericValue,
    Or,
    Player,
    Result,
    TagContains,
    TagSearch,
)

__all__ = ["Needles", "admits", "needles_of"]

#: Clauses: each a set of lower-case ASCII texts, one of which must occur.
Needles = tuple[frozenset[str], ...]

#: What a missing White, Black, Event or Site tag reads as (python-chess's roster).
_ROSTER_DEFAULT = "?"

#: A year range wider than this gives no clause (too many texts to look for).
_MOST_YEARS = 16


def admits(lowered_tags: str, needles: Needles) -> bool:
    """Whether the lower-cased tag text has some text of every clause.

    >>> admits('[date "1910.01.07"]\\n', (frozenset({"1909", "1910"}), frozenset({"x"})))
    False
    """
    # Plain loops: this runs once per game of the input, and generators cost more here.
    for clause in needles:
        for needle in clause:
            if needle in lowered_tags:
                break
        else:
            return False
    return True


def _text_clause(text: str) -> Needles:
    """One clause of the lower-cased ``text``, when that stands for it in ASCII tags."""
    folded = text.casefold()
    if not folded.isascii() or folded in _ROSTER_DEFAULT:
        return ()
    return (frozenset({folded}),)


def _player(node: Player) -> Needles:
    # Case-sensitive or not, the casefolded needle is in the casefolded ASCII value.
    return _text_clause(node.text)


def _tag_contains(node: TagContains) -> Needles:
    return _text_clause(node.text)


def _tag_search(node: TagSearch) -> Needles:
    # The value holds the text; a bare presence test gives no text of the value (the
    # tag's name may stand in any case, and python-chess supplies the roster tags).
    if node.text is None:
        return ()
    return _text_clause(node.text)


def _result(node: Result) -> Needles:
    return _text_clause(node.result.value)


def _in_range(node: InRange) -> Needles:
    # A year is the integer value of the ASCII digits before the date's first ".", so the
    # year's decimal text (no leading zeros) is part of the Date tag.
    value = node.value
    if not (isinstance(value, NumericValue) and value.keyword is NumericKeyword.YEAR):
        return ()
    if node.lo is None or node.hi is None:
        return ()
    first = max(node.lo, 0)
    if node.hi < first or node.hi - first >= _MOST_YEARS:
        return ()
    return (frozenset(str(year) for year in range(first, node.hi + 1)),)


def _all_of(items: tuple[Filter, ...]) -> Needles:
    return tuple(clause for item in items for clause in needles_of(item))


def _and(node: And) -> Needles:
    return _all_of(node.items)


def _compound(node: Compound) -> Needles:
    return _all_of(node.items)


def _legacy_only(node: LegacyOnly) -> Needles:
    return needles_of(node.filter)


def _or(node: Or) -> Needles:
    # One alternative holds, so one of its clauses does: any clause of each alternative
    # will do (the first), and the union of those is a clause of the disjunction.
    chosen = [needles_of(item) for item in node.items]
    if not chosen or not all(chosen):
        return ()
    return (frozenset().union(*(clauses[0] for clauses in chosen)),)


#: The clauses of each node class that gives some, by class (a read-only table).
_NEEDLES: Mapping[type[Filter], Callable[[Any], Needles]] = MappingProxyType(
    {
        Player: _player,
        TagContains: _tag_contains,
        TagSearch: _tag_search,
        Result: _result,
        InRange: _in_range,
        And: _and,
        Compound: _compound,
        LegacyOnly: _legacy_only,
        Or: _or,
    }
)


def needles_of(node: Filter) -> Needles:
    """The clauses that hold wherever ``node`` matches, for a node read from the tags."""
    clauses = _NEEDLES.get(type(node))
    return () if clauses is None else clauses(node)
