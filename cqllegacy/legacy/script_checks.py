"""Checks of a whole legacy script once it is read: the dialect forms that depend on
what else the script holds (decisions X3 and X5), each refused with its place."""

from __future__ import annotations

from collections.abc import Iterator

from cqllegacy.legacy import tree as t
from cqllegacy.legacy.diagnostics import Reading

__all__ = ["check_script"]


def check_script(reading: Reading, match: t.MatchList) -> None:
    """Refuse (through ``reading``) what the dialect forms of ``match`` do not allow."""
    main_line_only_forms(reading, match)
    either_color_alone(reading, match)
    line_transforms(reading, match)


_FLIPCOLOR = t.TransformKeyword.FLIPCOLOR
_VARIATION_FLAGS = (t.FlagKeyword.VARIATIONS, t.FlagKeyword.VARIATIONSONLY)


def main_line_only_forms(reading: Reading, match: t.MatchList) -> None:
    """Scidb's :halfmovenumber always fails inside a variation, which its standard
    equivalent cannot say: with :variations it is refused (X5)."""
    forms = [(form, span) for form, span in reading.dialect if form == "`:halfmovenumber`"]
    if not forms:
        return
    for position_list in match.position_lists():
        if any(
            isinstance(item, t.Flag) and item.keyword in _VARIATION_FLAGS
            for item in position_list.items
        ):
            raise reading.main_line_only(forms[0][0], forms[0][1])


def _transformed_items(
    items: tuple[t.PositionItem, ...], outer: frozenset[t.TransformKeyword]
) -> Iterator[tuple[t.PositionItem, frozenset[t.TransformKeyword]]]:
    """Every item, nested lists' items included, with the transforms that act on it."""
    here = outer | {item.keyword for item in items if isinstance(item, t.Transform)}
    for item in items:
        yield item, here
        if isinstance(item, t.ListOfLists):
            for nested in item.lists:
                yield from _transformed_items(nested.items, here)


def _has_either_color(match: t.MatchList) -> bool:
    return any(isinstance(item, t.EitherColor) for item in match.items)


def either_color_alone(reading: Reading, match: t.MatchList) -> None:
    """Scidb's ``:eithercolor`` swaps the colours of every list; the help forbids a
    list's own ``:flipcolor`` beside it, nested lists' included."""
    if not _has_either_color(match):
        return
    for position_list in match.position_lists():
        for item, _ in _transformed_items(position_list.items, frozenset()):
            if isinstance(item, t.Transform) and item.keyword is _FLIPCOLOR:
                raise reading.flipcolor_with_eithercolor(item.span)


def line_transforms(reading: Reading, match: t.MatchList) -> None:
    """Scidb's ``:line`` under a transform: the help says only ``:flipcolor`` acts on
    it, and that not with move numbers; its own example shifts one (X5).  Under
    ``:eithercolor`` every list is colour-flipped.  ``:line*`` takes no transform (X3)."""
    places = {span for form, span in reading.dialect if form == "`:line`"}
    fens = {span for form, span in reading.dialect if form == "`:fen`"}
    stars = {span for form, span in reading.dialect if form == "`:line*`"}
    if not places | fens | stars:
        return
    numbered = set(reading.line_with_numbers)
    outer = frozenset({_FLIPCOLOR}) if _has_either_color(match) else frozenset()
    for position_list in match.position_lists():
        for item, transforms in _transformed_items(position_list.items, outer):
            if item.span not in places | fens | stars or not transforms:
                continue
            if item.span in stars:
                # X3: the help allows no transform keyword with :line*.
                which = ":eithercolor" if outer else f":{min(each.value for each in transforms)}"
                raise reading.line_star_transformed(item.span, which)
            others = sorted(each.value for each in transforms if each is not _FLIPCOLOR)
            if others and item.span in fens:
                raise reading.fen_transformed(item.span, f":{others[0]}")
            if others:
                raise reading.line_transformed(item.span, f":{others[0]}")
            if item.span in numbered:
                which = ":eithercolor" if outer else ":flipcolor"
                raise reading.line_transformed(item.span, which)
