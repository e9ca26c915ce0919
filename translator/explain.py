"""What the translator knows about a script, for ``cqllegacy explain``: per top-level
position list, its legacy transform set, its distinct transformed lists, and whether the
translation says them with a compact modern transform or an explicit union, and why.

The facts come from the same functions the translation uses (:func:`legacy_orbit`,
:func:`~cqllegacy.translator.rewrite.transformed_filter`); nothing here decides a
meaning.  Presenting them (plain words, text, HTML) is :mod:`cqllegacy.present.explain`.

>>> from cqllegacy.legacy import read_script
>>> found = explain_script(read_script("(match (position Rc1 Kg1 :shiftvertical))"))
>>> item = found.lists[0]
>>> item.transform_count, len(item.members), item.form
(15, 9, 'explicit')
>>> print(item.reasons[0])
Rc1 is on rank 1: legacy up-shifts keep it and smear it up the file; CQL 6 shifts move it
"""

from __future__ import annotations

import attrs
from cqllegacy.translator.errors import TranslationError
from cqllegacy.translator.orbits import (
    _FLIP_LAYERS,
    _SHIFT_LAYERS,
    Budget,
    legacy_orbit,
    transform_keywords,
)
from cqllegacy.translator.parts import (
    FALSE,
    TranslationContext,
)
from cqllegacy.translator.query import to_core
from cqllegacy.translator.rewrite import (
    base_list,
    member_filter,
    strip_comments,
    transformed_filter,
)
from cqllegacy.translator.shifts import (
    FLIP_KEYWORDS,
    SHIFT_KEYWORDS,
    flip_set,
    legacy_shift,
    shift_set,
    transform_set,
)

from cqllegacy.core import tree as core
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.printer import designator_text
from cqllegacy.records import Record
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import BB_FILES, BB_RANKS, FULL, SquareSet, modern_shift

__all__ = ["ListFacts", "ScriptFacts", "explain_script", "explicit_reasons"]

#: How a list's transforms are written in CQL 6.
Form = str  # "none" (no transform keywords), "single" (one distinct list), "compact", "explicit"


@attrs.frozen(repr=False)
class ListFacts(Record):
    """One top-level position list as the translator sees it.

    ``members`` are the distinct transformed lists (the legacy orbit, identity first);
    ``modern`` the compact CQL 6 filter when ``form`` is ``"compact"``; ``reasons`` why
    the form is ``"explicit"``; ``top`` the list in the core query; ``never`` the
    indexes of the members that can match no position (the translation leaves them out:
    a shifted ``N[]``, a count out of reach).
    """

    index: int
    span: Span
    source: lt.PositionList
    keywords: tuple[lt.TransformKeyword, ...]
    transform_count: int
    members: tuple[lt.PositionList, ...]
    form: Form
    modern: core.Filter | None
    reasons: tuple[str, ...]
    never: frozenset[int] = frozenset()
    #: The list as the query ``run`` evaluates has it: its marks, scope, match count.
    top: core.TopList | None = None

    def matchable(self) -> tuple[lt.PositionList, ...]:
        """The members that may match somewhere, in orbit order."""
        return tuple(m for i, m in enumerate(self.members) if i not in self.never)


@attrs.frozen(repr=False)
class ScriptFacts(Record):
    """A script's match-list items and its top-level lists."""

    script: lt.Script
    lists: tuple[ListFacts, ...]


def explain_script(script: lt.Script) -> ScriptFacts:
    """The facts of every top-level list of ``script`` (raises the translator's
    :class:`~cqllegacy.translator.errors.TranslationError` as the translation would)."""
    budget = Budget(path=script.path)
    tops: dict[Span, core.TopList] = {}
    for top in to_core(script).lists:
        if top.origin is not None:
            # The written form's list, not its colour image (:eithercolor's second form).
            tops.setdefault(top.origin.span, top)
    lists = tuple(
        attrs.evolve(_list_facts(index, pl, budget, script.path), top=tops.get(pl.span))
        for index, pl in enumerate(script.match.position_lists(), start=1)
    )
    return ScriptFacts(script, lists)


def _list_facts(index: int, pl: lt.PositionList, budget: Budget, path: str | None) -> ListFacts:
    keywords = transform_keywords(pl)
    _, base = strip_comments(base_list(pl))
    ctx = TranslationContext(budget=budget, path=path)
    if not keywords:
        never = _never(ctx, (base,))
        return ListFacts(index, pl.span, pl, (), 1, (base,), "none", None, (), never)
    members = legacy_orbit(base, keywords, budget, pl.span)
    _, written = transformed_filter(pl, ctx)
    reasons: tuple[str, ...] = ()
    modern: core.Filter | None = None
    if isinstance(written, core.Transform):
        form, modern = "compact", written
        inner, layers = _unwrapped(written)
        if isinstance(inner, core.Or):
            # Some transforms stay explicit inside the modern ones.
            reasons = tuple(explicit_reasons(base, _uncovered(keywords, layers)))
    elif isinstance(written, core.Or):
        form, reasons = "explicit", tuple(explicit_reasons(base, keywords))
    else:
        form = "single"
    count = len(transform_set(keywords))
    never = _never(ctx, members)
    return ListFacts(index, pl.span, pl, keywords, count, members, form, modern, reasons, never)


def _never(ctx: TranslationContext, members: tuple[lt.PositionList, ...]) -> frozenset[int]:
    """The members the translator rewrites to ``false``, as the translation does."""
    found = set()
    for i, member in enumerate(members):
        try:
            if member_filter(member, ctx) == FALSE:
                found.add(i)
        except TranslationError:
            continue  # a member only the whole list can say (a shared :relation)
    return frozenset(found)


def _unwrapped(node: core.Filter) -> tuple[core.Filter, list[core.TransformKind]]:
    layers = []
    while isinstance(node, core.Transform):
        layers.append(node.kind)
        node = node.arg
    return node, layers


_COLOR_KINDS = {core.TransformKind.FLIPCOLOR}
_SHIFT_KINDS = {
    core.TransformKind.SHIFT,
    core.TransformKind.SHIFTHORIZONTAL,
    core.TransformKind.SHIFTVERTICAL,
}


def _uncovered(
    keywords: tuple[lt.TransformKeyword, ...], layers: list[core.TransformKind]
) -> tuple[lt.TransformKeyword, ...]:
    """The legacy keywords of the kinds (colour, flips, shifts) no modern layer stands
    for, or only in part."""
    kinds = set(layers)
    left = []
    for k in keywords:
        if k in SHIFT_KEYWORDS:
            covered = core.TransformKind.SHIFT in kinds
        elif k in FLIP_KEYWORDS:
            covered = bool(kinds - _COLOR_KINDS - _SHIFT_KINDS)
        else:
            covered = core.TransformKind.FLIPCOLOR in kinds
        if not covered:
            left.append(k)
    return tuple(left)


# --------------------------------------------------------------------------------------
# Why the legacy and modern orbits differ
# --------------------------------------------------------------------------------------

#: The edge a legacy unit shift keeps (the one it moves away from), per direction:
#: (dx sign, dy sign, edge squares, edge name, shift name, where it smears).
_TRAILING_EDGES = (
    (0, 1, BB_RANKS[0], "rank 1", "up-shifts", "up the file"),
    (0, -1, BB_RANKS[7], "rank 8", "down-shifts", "down the file"),
    (1, 0, BB_FILES[0], "the a-file", "right-shifts", "along the rank"),
    (-1, 0, BB_FILES[7], "the h-file", "left-shifts", "along the rank"),
)


def _moves_towards(dx: int, dy: int, sx: int, sy: int) -> bool:
    return (sx != 0 and dx * sx > 0) or (sy != 0 and dy * sy > 0)


def explicit_reasons(base: lt.PositionList, keywords: tuple[lt.TransformKeyword, ...]) -> list[str]:
    """Why no CQL 6 transform says what the legacy transform set says for ``base``:
    a flip or shift set CQL 6 has no transform for, else the first designator whose
    legacy shifts differ from CQL 6 shifts (and how); a generic reason when neither."""
    reasons = []
    flips = [k for k in keywords if k in FLIP_KEYWORDS]
    if flips and flip_set(flips) not in _FLIP_LAYERS:
        names = " ".join(f":{k.value}" for k in flips)
        reasons.append(f"{names}: CQL 6 has no transform with these board symmetries")
    shifts = [k for k in keywords if k in SHIFT_KEYWORDS]
    offsets = shift_set(shifts) if shifts else frozenset()
    if shifts and offsets not in _SHIFT_LAYERS:
        names = " ".join(f":{k.value}" for k in shifts)
        reasons.append(f"{names}: CQL 6 has no transform with these shifts")
    elif shifts:
        for designator in lt.designators(base):
            why = _shift_difference(designator, offsets)
            if why is not None:
                reasons.append(why)
                break
    if not reasons:
        reasons.append(
            "the CQL 6 orbit of the rewritten list is not the same set of filters as the "
            "legacy transformed lists"
        )
    return reasons


def _shift_difference(d: lt.Designator, offsets: frozenset[tuple[int, int]]) -> str | None:
    """How legacy and CQL 6 shifts of ``d`` differ, None when they agree."""
    name = designator_text(d)
    for dx, dy in sorted(offsets, key=lambda o: (abs(o[0]) + abs(o[1]), o)):
        legacy, modern = legacy_shift(d.squares, dx, dy), modern_shift(d.squares, dx, dy)
        if legacy == modern:
            continue
        for sx, sy, edge, edge_name, shift_name, smear in _TRAILING_EDGES:
            if (
                _moves_towards(dx, dy, sx, sy)
                and d.squares & edge
                and not _covers_line(d.squares, edge)
            ):
                return (
                    f"{name} is on {edge_name}: legacy {shift_name} keep it and smear it "
                    f"{smear}; CQL 6 shifts move it"
                )
        if modern == 0 or legacy == 0:
            return (
                f"{name} can be shifted off the board: a legacy list keeps the emptied "
                "designator (L5), CQL 6 drops that shifted copy (M1)"
            )
        return (
            f"{name} covers a whole rank or file: CQL 6 shifts leave it in place (M2), "
            "legacy shifts move it"
        )
    return None


def _covers_line(squares: SquareSet, edge: SquareSet) -> bool:
    return squares & edge == edge and squares != FULL
