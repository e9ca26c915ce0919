"""Necessary conditions of a query, for a position index (:mod:`cqllegacy.indexing`).

:func:`necessity` says what a game must show for the query to match it, in terms an
index of main-line positions can check without replaying anything: for each top-level
list that needs a match, one examined position where one of a few *alternatives* holds,
each a conjunction of piece atoms (:class:`~cqllegacy.evaluator.operators.Atom`) and
position flags (side to move, check, mate, stalemate); and the game numbers the header
allows.

Everything here is conservative: a condition is only ever left out (which admits more
games), never guessed.  The atoms come from :func:`~cqllegacy.evaluator.lowering.
necessary_atoms`, the orbits and other disjunctions from
:func:`~cqllegacy.evaluator.lowering.disjunction_members` (the lowering relies on both
for its own speed-ups); a node neither knows says nothing.  A query whose lists read
the tags (``tags``: a conjunct that reads the tags alone, which the run checks on the
stored tags before a game is read) or the game numbers narrows by them even where it
examines variations; its positions are narrowed only on the main line.  A query that
needs nothing the index can check has no necessity (None): it is scanned.

>>> from cqllegacy.core.tree import Header, Query, TopList, Transform, TransformKind
>>> from cqllegacy.evaluator.testing import pd
>>> need = necessity(Query(Header(), (TopList(Compound((pd("Ka1"), Simple(Keyword.CHECK)))),)))
>>> [(len(a.atoms), sorted(a.flags)) for a in need.lists[0].alternatives]
[(1, ['check'])]
>>> flip = Transform(TransformKind.FLIPCOLOR, pd("Ka1"))
>>> len(necessity(Query(Header(), (TopList(flip),))).lists[0].alternatives)
2
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs

from cqllegacy.core.tree import (
    Compound,
    Filter,
    Keyword,
    LegacyOnly,
    Line,
    Query,
    Simple,
)
from cqllegacy.evaluator.analysis import analyse
from cqllegacy.evaluator.lowering import disjunction_members, necessary_atoms
from cqllegacy.evaluator.operators import Atom

__all__ = ["MAX_ALTERNATIVES", "Alternative", "ListNeed", "Necessity", "necessity"]

#: Beyond this many alternatives a list's condition is dropped: a disjunction that wide
#: admits nearly every game, and the question would cost more than it saves.
MAX_ALTERNATIVES = 512

#: Position flags the index stores, by the keyword that asks for them.
FLAGS: dict[Keyword, str] = {
    Keyword.WTM: "wtm",
    Keyword.BTM: "btm",
    Keyword.CHECK: "check",
    Keyword.MATE: "mate",
    Keyword.STALEMATE: "stalemate",
}


@attrs.frozen
class Alternative:
    """Atoms and flags that all hold at one position."""

    atoms: tuple[Atom, ...] = ()
    flags: frozenset[str] = frozenset()

    def __and__(self, other: Alternative) -> Alternative:
        return Alternative(self.atoms + other.atoms, self.flags | other.flags)

    @property
    def says_something(self) -> bool:
        return bool(self.atoms or self.flags)


@attrs.frozen
class ListNeed:
    """Some examined main-line position satisfies one of ``alternatives``."""

    alternatives: tuple[Alternative, ...]


@attrs.frozen
class Necessity:
    """What a game must show to match: every list's need, a game number in
    ``gamenumber`` (``(lo, hi)``, hi None: no limit) when the header says so, and
    (``tags``) tags the query's tag conditions accept."""

    lists: tuple[ListNeed, ...]
    gamenumber: tuple[int, int | None] | None = None
    tags: bool = False


#: No condition at all: holds everywhere.
_ANYTHING = (Alternative(),)


def necessity(query: Query, *, variations: bool = False) -> Necessity | None:
    """The necessary conditions of ``query``, or None when the index cannot narrow it
    (it needs nothing the index can check).  Positions narrow only where the query
    looks at the main line alone (not ``variations``)."""
    analysis = analyse(query)
    needing = [found for found in analysis.lists if found.needs_a_match]
    lists: tuple[ListNeed, ...] = ()
    if not (variations or analysis.variations):
        lists = tuple(
            ListNeed(alternatives)
            for found in needing
            if (alternatives := position_alternatives(found.source.body)) is not None
        )
    gamenumber = query.header.gamenumber
    tags = any(found.tag_conjuncts for found in needing)
    if not lists and gamenumber is None and not tags:
        return None
    return Necessity(lists, gamenumber, tags)


def position_alternatives(node: Filter) -> tuple[Alternative, ...] | None:
    """Alternatives one of which holds at a position wherever ``node`` matches there;
    None when nothing can be said."""
    found = _alternatives(node)
    if len(found) > MAX_ALTERNATIVES or not all(alt.says_something for alt in found):
        return None
    return found


def _alternatives(node: Filter) -> tuple[Alternative, ...]:
    """As :func:`position_alternatives`, ``_ANYTHING`` standing for "nothing known"."""
    common = Alternative()
    choices: list[tuple[Alternative, ...]] = []
    for part in node.conjuncts():
        flag = _flag(part)
        if flag is not None:
            common = common & Alternative(flags=frozenset({flag}))
            continue
        atoms = necessary_atoms(part)
        if atoms:
            common = common & Alternative(atoms)
        else:
            inner = _inner_alternatives(part)
            if inner is not None:
                choices.append(inner)
    # One disjunction is enough to narrow; the narrowest (fewest alternatives) is kept,
    # the others are left out.
    best = min(choices, key=len, default=_ANYTHING)
    return tuple(common & alt for alt in best)


def _inner_alternatives(part: Filter) -> tuple[Alternative, ...] | None:
    """What a conjunct that yields no atoms of its own still says: the first step of a
    line, the members of a disjunction; None when nothing."""
    if isinstance(part, Line):
        if part.steps and part.steps[0].lo >= 1:
            return _useful(_alternatives(part.steps[0].filter))
        return None
    members = list(itertools.islice(disjunction_members(part), MAX_ALTERNATIVES + 1))
    if len(members) < 2 or len(members) > MAX_ALTERNATIVES:
        return None
    found: list[Alternative] = []
    for member in members:
        alternatives = _useful(_member_alternatives(member))
        if alternatives is None:
            return None
        found.extend(alternatives)
        if len(found) > MAX_ALTERNATIVES:
            return None
    return tuple(dict.fromkeys(found))


def _member_alternatives(member: Filter) -> tuple[Alternative, ...]:
    flag = _flag(member)
    if flag is not None:
        return (Alternative(flags=frozenset({flag})),)
    return _alternatives(member)


def _useful(alternatives: Sequence[Alternative]) -> tuple[Alternative, ...] | None:
    """``alternatives`` when each says something (one that says nothing admits all)."""
    if not alternatives or not all(alt.says_something for alt in alternatives):
        return None
    return tuple(alternatives)


def _flag(node: Filter) -> str | None:
    while isinstance(node, LegacyOnly):
        node = node.filter
    if isinstance(node, Compound) and len(node.items) == 1:
        return _flag(node.items[0])
    if isinstance(node, Simple):
        return FLAGS.get(node.keyword)
    return None
