"""Legacy position-list items → core filters: one rule per legacy construct.

A position list becomes a tuple of core *constituents* whose conjunction is its
meaning.  Without transform keywords each item gives its constituents in place
(comments included); with transform keywords the list stands for the OR of its
legacy orbit (:mod:`translator.orbits`), written compactly only where a modern
transform provably means the same (T2).

>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import parse_squares
>>> from cqllegacy.legacy.tree import Designator, PieceCount, Range
>>> ctx = TranslationContext()
>>> list_parts(PositionList((PieceCount(Designator(types_of("P"), parse_squares("b2-7")),
...                                     Range(4)),)), ctx)
(InRange(value=Count(arg=PieceSet(types=1, squares=565157600297472)), lo=4, hi=4),)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeGuard

import attrs
from cqllegacy.translator.item_rules import (
    ITEM_RULES,
    TOP_LEVEL_FLAGS,
    ListView,
    comments_among_lists,
    rule,
)
from cqllegacy.translator.orbits import (
    choose_compact,
    legacy_orbit,
    legacy_orbit_by_colour,
    live_orbit,
    single_layer_count,
    transform_keywords,
)
from cqllegacy.translator.parts import (
    FALSE,
    TRUE,
    Parts,
    TranslationContext,
    comment,
    conjunction,
    constant_in_range,
    in_range,
    own_line,
    simplify_parts,
    sum_of,
)

from cqllegacy.core import tree as core
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.tree import (
    FlagKeyword,
    PositionItem,
    PositionList,
)
from cqllegacy.vocab.pieces import (
    ANYTHING,
)
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import BB_FILES

__all__ = ["ITEM_RULES", "TranslationContext", "list_parts", "nested_filter"]

# --- nested lists -----------------------------------------------------------------------

_GAP = core.LineStep(TRUE, 0, None)


@rule(lt.ListOfLists)
def _list_of_lists(item: lt.ListOfLists, view: ListView, ctx: TranslationContext) -> Parts:
    filters = [nested_filter(pl, ctx) for pl in item.lists]
    keyword = item.keyword
    if keyword is lt.ListKeyword.AND:
        among = comments_among_lists(item, view)
        if len(filters) == 1 and not among:
            return (filters[0],)
        parts: list[core.Filter] = []
        for i, f in enumerate(filters):
            parts += [*(comment(c.text) for c in among.get(2 * i, ())), f]
            parts += [comment(c.text, trailing=True) for c in among.get(2 * i + 1, ())]
        return simplify_parts(parts)
    if keyword is lt.ListKeyword.OR:
        options = [f for f in filters if f != FALSE]
        if TRUE in options:
            return ()
        if not options:
            return (FALSE,)
        return (options[0] if len(options) == 1 else core.Or(tuple(options)),)
    return _sequence_parts(keyword, filters)


def _sequence_parts(keyword: lt.ListKeyword, filters: list[core.Filter]) -> Parts:
    if FALSE in filters:
        return (FALSE,)
    if not filters:
        return ()
    if keyword is lt.ListKeyword.SEQUENCE:
        if len(filters) == 1:
            return (filters[0],)
        return (core.Line(tuple(core.LineStep(f) for f in filters)),)
    # :gappedsequence: the first list here or later, each next one strictly later (L21).
    if len(filters) == 1:
        return (core.Find(filters[0]),)
    steps: list[core.LineStep] = []
    for f in filters:
        steps += [_GAP, core.LineStep(f)]
    return (core.Line(tuple(steps)),)


# --------------------------------------------------------------------------------------
# Position lists
# --------------------------------------------------------------------------------------


#: Items that shape a list as a whole instead of testing the position.
def _is_list_setting(item: PositionItem) -> bool:
    if isinstance(item, lt.Flag):
        return item.keyword in TOP_LEVEL_FLAGS or item.keyword is FlagKeyword.NOT
    if isinstance(item, lt.RangeTest):
        return item.keyword in (
            lt.RangeKeyword.MATCHCOUNT,
            lt.RangeKeyword.PRETRANSFORMMATCHCOUNT,
        )
    return isinstance(item, lt.Transform | lt.Accumulate | lt.SumRange)


def base_list(pl: PositionList) -> PositionList:
    """The list without transform keywords, ``:not``, accumulators and list settings:
    what every member of its orbit tests (``base`` in semantics: S-list-evaluation)."""
    return attrs.evolve(pl, items=tuple(i for i in pl.items if not _is_list_setting(i)))


def strip_comments(pl: PositionList) -> tuple[tuple[lt.Comment, ...], PositionList]:
    """All comments of a list and of its nested lists (in order), and the list without
    them: a transformed list shows its comments once, before the transform (T3)."""
    found: list[lt.Comment] = []
    stripped = _strip(pl, found)
    return tuple(found), stripped


def _strip(pl: PositionList, found: list[lt.Comment]) -> PositionList:
    items: list[PositionItem] = []
    for item in pl.items:
        if isinstance(item, lt.Comment):
            found.append(item)
        elif isinstance(item, lt.ListOfLists):
            items.append(attrs.evolve(item, lists=tuple(_strip(n, found) for n in item.lists)))
        elif isinstance(item, lt.Relation):
            found.extend(p for p in item.items if isinstance(p, lt.Comment))
            kept = tuple(p for p in item.items if not isinstance(p, lt.Comment))
            items.append(attrs.evolve(item, items=kept))
        else:
            items.append(item)
    return attrs.evolve(pl, items=tuple(items))


def _check_nested_settings(pl: PositionList, ctx: TranslationContext) -> None:
    for item in pl.items:
        if isinstance(item, lt.Flag) and item.keyword in TOP_LEVEL_FLAGS:
            raise ctx.error(
                f":{item.keyword.value} has a meaning only in a top-level position list",
                item.span,
            )
        if isinstance(item, lt.RangeTest) and _is_list_setting(item):
            raise ctx.error(
                f":{item.keyword.value} may only stand in a position list of the match list",
                item.span,
            )


def item_parts(pl: PositionList, ctx: TranslationContext) -> Parts:
    """The constituents of a list without list settings, item by item in source order."""
    view = ListView(pl.items, pl.span.line)
    parts: list[core.Filter] = []
    for item in pl.items:
        parts.extend(ITEM_RULES[type(item)](item, view, ctx))
    return simplify_parts(parts)


def member_filter(member: PositionList, ctx: TranslationContext) -> core.Filter:
    """One orbit member (a list without transform keywords of its own) as one filter."""
    return _once(ctx, ctx.memo, member, lambda: conjunction(item_parts(member, ctx)))


def _once(
    ctx: TranslationContext,
    memo: dict[PositionList, core.Filter],
    pl: PositionList,
    make: Callable[[], core.Filter],
) -> core.Filter:
    """``memo[pl]``, made by ``make`` when no equal list was made before; asked by the
    identity of ``pl`` first (``ctx.by_identity``)."""
    key = (id(pl), memo is ctx.nested)
    known = ctx.by_identity.get(key)
    if known is not None and known[0] is pl:
        return known[1]
    made = memo.get(pl)
    if made is None:
        made = memo[pl] = make()
    ctx.by_identity[key] = (pl, made)
    return made


def orbit_filters(
    base: PositionList,
    keywords: tuple[lt.TransformKeyword, ...],
    ctx: TranslationContext,
    span: Span,
) -> list[core.Filter]:
    """The rewritten members of a legacy orbit, false ones left out, repeats removed."""
    members = live_orbit(base, keywords, ctx.budget, span)
    if members is None:
        members = legacy_orbit(base, keywords, ctx.budget, span)
    filters = dict.fromkeys(member_filter(m, ctx) for m in members)
    filters.pop(FALSE, None)
    return list(filters)


def transformed_filter(pl: PositionList, ctx: TranslationContext) -> tuple[Parts, core.Filter]:
    """Hoisted comments and the OR of the orbit of a list with transform keywords."""
    keywords = transform_keywords(pl)
    comments, base = strip_comments(base_list(pl))
    members = orbit_filters(base, keywords, ctx, pl.span)
    hoisted = tuple(comment(c.text) for c in comments)
    if not members:
        return hoisted, FALSE
    if len(members) == 1:
        return hoisted, members[0]

    def inner(kws: tuple[lt.TransformKeyword, ...]) -> list[core.Filter]:
        return orbit_filters(base, kws, ctx, pl.span)

    compact = choose_compact(keywords, members, inner)
    if compact is None:
        return hoisted, core.Or(tuple(members))
    # The modern transform writes the untransformed list once: its comments can stay at
    # their places in it, next to what they annotate (T3).
    plain = member_filter(base, ctx)
    commented = _innermost_replaced(compact, plain, member_filter(base_list(pl), ctx))
    return ((), commented) if commented is not None else (hoisted, compact)


def _innermost_replaced(
    node: core.Filter, old: core.Filter, new: core.Filter
) -> core.Filter | None:
    """``node`` (nested transforms around ``old``) around ``new`` instead; None when the
    innermost filter is not ``old``."""
    if node == old:
        return new
    if isinstance(node, core.Transform):
        inner = _innermost_replaced(node.arg, old, new)
        return None if inner is None else attrs.evolve(node, arg=inner)
    return None


def list_parts(pl: PositionList, ctx: TranslationContext, *, top: bool = False) -> Parts:
    """The constituents whose conjunction is the meaning of ``pl`` (semantics: S-list-evaluation).

    ``top`` says that ``pl`` is a top-level list, whose settings (scope, marks, match
    counts) the caller has taken care of.
    """
    if not top:
        _check_nested_settings(pl, ctx)
    negated = any(isinstance(i, lt.Flag) and i.keyword is FlagKeyword.NOT for i in pl.items)
    if transform_keywords(pl):
        shared = tuple(i for i in pl.items if _shared_relation(i, transformed=True))
        rest = _without_shared_relations(pl, transformed=True)
        hoisted, core_filter = transformed_filter(rest, ctx)
        parts: Parts = hoisted
        # An orbit of one member is that member: its constituents join the list's.
        body: Parts = (
            core_filter.items if isinstance(core_filter, core.Compound) else (core_filter,)
        )
        # OR over T of (T's items and R) is (OR over T of T's items) and R.
        view = ListView(base_list(rest).items)
        for relation in shared:
            body += ITEM_RULES[lt.Relation](relation, view, ctx)
    else:
        parts = ()
        body = item_parts(base_list(pl), ctx)
    if negated:
        body = _negated(body)
    sums = tuple(_sumrange_parts(pl, ctx))
    return simplify_parts((*parts, *body, *sums))


def _negated(body: Parts) -> Parts:
    """``:not`` of the constituents ``body``; comments alone test nothing, so they stay
    before the ``false`` that the negation of an empty list is."""
    if all(isinstance(p, core.Comment) for p in body):
        return (*(own_line(p) for p in body), FALSE)
    return (_negate(body[0] if len(body) == 1 else conjunction(body)),)


def _negate(f: core.Filter) -> core.Filter:
    if f == TRUE:
        return FALSE
    if f == FALSE:
        return TRUE
    return core.Not(f)


def nested_filter(pl: PositionList, ctx: TranslationContext) -> core.Filter:
    """A nested list (argument of ``:and``, ``:or``, ``:sequence``…) as one filter.

    The members of a transformed list often share nested lists: each is rewritten once.
    """
    return _once(ctx, ctx.nested, pl, lambda: conjunction(list_parts(pl, ctx)))


# --------------------------------------------------------------------------------------
# Accumulators (semantics: S-accumulators)
# --------------------------------------------------------------------------------------


def _accumulates(pl: PositionList, name: str) -> bool:
    return any(isinstance(i, lt.Accumulate) and i.name == name for i in pl.items)


def _nested_via_and_or(pl: PositionList) -> Iterator[PositionList]:
    for item in pl.items:
        if isinstance(item, lt.ListOfLists) and item.keyword in (
            lt.ListKeyword.AND,
            lt.ListKeyword.OR,
        ):
            yield from item.lists


def _shared_relation(item: PositionItem, *, transformed: bool) -> TypeGuard[lt.Relation]:
    """Whether ``item`` is a ``:relation`` that every transformed list of its list has
    alike: one without ``:pattern`` (its counts never follow the list's transforms, L18),
    or any relation of a list without transform keywords."""
    if not isinstance(item, lt.Relation):
        return False
    pattern = any(
        isinstance(p, lt.RelationFlag) and p.keyword is lt.RelationFlagKeyword.PATTERN
        for p in item.items
    )
    return not (transformed and pattern)


def _without_shared_relations(pl: PositionList, *, transformed: bool) -> PositionList:
    kept = tuple(i for i in pl.items if not _shared_relation(i, transformed=transformed))
    return attrs.evolve(pl, items=kept)


def _sumrange_parts(pl: PositionList, ctx: TranslationContext) -> Iterator[core.Filter]:
    negated = any(isinstance(i, lt.Flag) and i.keyword is FlagKeyword.NOT for i in pl.items)
    for item in pl.items:
        if isinstance(item, lt.SumRange):
            # The :sumrange is a conjunct of its list, which (unless negated) holds its
            # shared relations: its own members count without them.
            if _counts_each_colour(pl, item.name):
                white, black = colour_terms(pl, item.name, ctx, relations_hold=not negated)
                yield _either(_sum_in_range(white, item.range), _sum_in_range(black, item.range))
                continue
            terms = accumulated_terms(pl, item.name, ctx, relations_hold=not negated)
            yield _sum_in_range(terms, item.range)


def _sum_in_range(terms: Sequence[core.Filter], r: lt.Range) -> core.Filter:
    if all(isinstance(t, core.Number) for t in terms):
        total = sum(t.value for t in terms if isinstance(t, core.Number))
        return constant_in_range(total, r)
    return in_range(sum_of(terms), r)


def _either(a: core.Filter, b: core.Filter) -> core.Filter:
    if TRUE in (a, b):
        return TRUE
    if a == FALSE:
        return b
    if b == FALSE:
        return a
    return core.Or((a, b))


def accumulated_terms(
    pl: PositionList, name: str, ctx: TranslationContext, *, relations_hold: bool = False
) -> list[core.Filter]:
    """Numeric terms whose sum is the value ``name`` reaches while ``pl`` is evaluated
    once: every orbit member of every accumulating list counts when it matches.

    A member's ``:relation`` is part of the member, as the transformed list has it (with
    ``:pattern``, its own transformed squares: L18), so a list with a relation counts
    like any other.  ``relations_hold`` says that the terms are read where ``pl``'s
    shared relations hold (``pl``'s own ``:sumrange``): its members are then counted
    without them, which changes no count (they are the same in every member).
    """
    keywords = transform_keywords(pl)
    _, base = strip_comments(base_list(pl))
    members = legacy_orbit(base, keywords, ctx.budget, pl.span)
    terms: list[core.Filter] = []
    if _accumulates(pl, name):
        transformed = bool(keywords)
        counted = [
            _without_shared_relations(m, transformed=transformed) if relations_hold else m
            for m in members
        ]
        terms += _count_terms(keywords, [member_filter(m, ctx) for m in counted], pl.span, ctx)
    for member in members:
        for nested in _nested_via_and_or(member):
            terms += accumulated_terms(nested, name, ctx)
    return terms


def _counts_each_colour(pl: PositionList, name: str) -> bool:
    """Does ``:accumulate* name`` (Scidb's count per colour) stand in ``pl`` or in a list
    nested in it?  (A name is counted one way only: translator.query refuses a mix.)"""
    if any(isinstance(i, lt.AccumulateEach) and i.name == name for i in pl.items):
        return True
    nested = (n for i in pl.items if isinstance(i, lt.ListOfLists) for n in i.lists)
    return any(_counts_each_colour(n, name) for n in nested)


def colour_terms(
    pl: PositionList,
    name: str,
    ctx: TranslationContext,
    *,
    relations_hold: bool = False,
    swapped: bool = False,
) -> tuple[list[core.Filter], list[core.Filter]]:
    """White's and Black's terms of ``:accumulate* name`` while ``pl`` is evaluated once
    (as :func:`accumulated_terms`): a member whose transform swaps the colours counts for
    the other colour; ``swapped`` says the list itself stands in such a member."""
    keywords = transform_keywords(pl)
    _, base = strip_comments(base_list(pl))
    kept, flipped = legacy_orbit_by_colour(base, keywords, ctx.budget, pl.span)
    within = tuple(k for k in keywords if k is not lt.TransformKeyword.FLIPCOLOR)
    white: list[core.Filter] = []
    black: list[core.Filter] = []
    for members, black_side in ((kept, swapped), (flipped, not swapped)):
        terms = black if black_side else white
        if _accumulates(pl, name):
            counted = [
                _without_shared_relations(m, transformed=bool(keywords)) if relations_hold else m
                for m in members
            ]
            terms += _count_terms(within, [member_filter(m, ctx) for m in counted], pl.span, ctx)
        for member in members:
            for nested in _nested_via_and_or(member):
                more_white, more_black = colour_terms(nested, name, ctx, swapped=black_side)
                white += more_white
                black += more_black
    return white, black


#: Two always-true designators (any content on the a-file / h-file) that make every
#: horizontally shifted copy of a filter invalid: ``shifthorizontal count {a1-8 h1-8 F}``
#: is 1 when F matches and 0 otherwise (M1, M2).
_INDICATOR_ANCHORS = (core.PieceSet(ANYTHING, BB_FILES[0]), core.PieceSet(ANYTHING, BB_FILES[7]))


def indicator(f: core.Filter) -> core.Filter:
    """A number that is 1 when ``f`` matches and 0 otherwise.

    ``f`` may hold a relation (a ``Relation`` node for ``run``, ``echo`` in the CQL 6.1
    form): every image but the identity loses an anchor, which comes first, so no
    transform ever reaches the relation (see :mod:`cqllegacy.core.transforms`).
    """
    items = f.items if isinstance(f, core.Compound) else (f,)
    body = core.Compound((*_INDICATOR_ANCHORS, *items))
    return core.Transform(core.TransformKind.SHIFTHORIZONTAL, body, count=True)


def _count_terms(
    keywords: tuple[lt.TransformKeyword, ...],
    members: Sequence[core.Filter],
    span: Span,
    ctx: TranslationContext,
) -> list[core.Filter]:
    live = [m for m in members if m != FALSE]
    if not live:
        return []
    counted = single_layer_count(keywords, live) if keywords else None
    if counted is not None:
        return [counted]
    # A member that always matches (its shared relation taken out) counts 1.
    return [core.Number(1) if m == TRUE else indicator(m) for m in live]


ITEM_RULES.absent(
    lt.Transform,
    lt.Accumulate,
    lt.AccumulateEach,
    lt.SumRange,
    reason="it shapes the whole list (its transforms, its accumulators): the list reads it",
)
