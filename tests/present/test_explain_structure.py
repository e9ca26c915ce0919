"""``explain`` shows the structure the translation has, for every corpus fixture script.

For each position list of a script (found here by walking the legacy tree, labelled
``1``, ``1.2``, … as ``explain`` labels them), the test reads from ``explain``'s text
whether the list is negated and which transforms it has, and asks the translator
whether its ``:not`` and its transform keywords change what it writes for that list:
a negation or a transform present in one must be present in the other, and every list
of the script must have its line in the text.  ``:and``, ``:or`` and the sequences must
show as the constructs the translation writes for them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from cqllegacy.translator.orbits import Budget, legacy_orbit
from cqllegacy.translator.parts import (
    FALSE,
    TRUE,
    TranslationContext,
    conjunction,
)
from cqllegacy.translator.rewrite import (
    base_list,
    list_parts,
    strip_comments,
)

from cqllegacy.core import tree as core
from cqllegacy.legacy import read_script
from cqllegacy.legacy import tree as lt
from cqllegacy.present.explain import Explanation

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures" / "migration").glob("*/legacy.cql"))


def _lists(pl: lt.PositionList, label: str) -> Iterator[tuple[str, lt.PositionList, bool]]:
    """Every list with its label and whether it lies inside a transformed list."""
    yield label, pl, False
    count = 0
    for item in pl.items:
        if isinstance(item, lt.ListOfLists):
            for nested in item.lists:
                count += 1
                for found in _lists(nested, f"{label}.{count}"):
                    yield found[0], found[1], found[2] or _transforms(pl) != ()


def _transforms(pl: lt.PositionList) -> tuple[lt.TransformKeyword, ...]:
    return tuple(i.keyword for i in pl.items if isinstance(i, lt.Transform))


def _without(pl: lt.PositionList, unwanted: type | lt.FlagKeyword) -> lt.PositionList:
    def kept(item: object) -> bool:
        if isinstance(unwanted, lt.FlagKeyword):
            return not (isinstance(item, lt.Flag) and item.keyword is unwanted)
        return not isinstance(item, unwanted)

    return attrs.evolve(pl, items=tuple(i for i in pl.items if kept(i)))


def _translated(pl: lt.PositionList, top: bool) -> core.Filter:
    return conjunction(list_parts(pl, TranslationContext(budget=Budget()), top=top))


def _shown(text: str, label: str) -> tuple[bool, tuple[str, ...]]:
    """Whether explain's text shows list ``label`` negated, and its transform names."""
    if "." not in label:
        block = text.split(f"list {label} (line ", 1)[1].split("\nlist ", 1)[0]
        settings = block.splitlines()[0]
        names = re.search(r"\n  transforms: (.*?)(?: --|$)", block, re.MULTILINE)
        assert names is not None
        shown = () if names.group(1) == "none" else tuple(names.group(1).split())
        return "negated (:not)" in settings, shown
    line = re.search(rf"^ *list {re.escape(label)} \(line [0-9:]+\): (.*)$", text, re.MULTILINE)
    assert line is not None, f"list {label} is missing from:\n{text}"
    frame = re.match(r"holds when (no|some) ((?::\w+ )+)transform of this list matches", line[1])
    if frame is not None:
        return frame[1] == "no", tuple(frame[2].split())
    return line[1].startswith("holds when this list does not match (:not)"), ()


_GROUP_NODES: dict[lt.ListKeyword, tuple[type[core.Filter], ...]] = {
    lt.ListKeyword.AND: (core.Compound,),
    lt.ListKeyword.OR: (core.Or,),
    lt.ListKeyword.SEQUENCE: (core.Line,),
    lt.ListKeyword.GAPPEDSEQUENCE: (core.Line, core.Find),
}


def _check_groups(pl: lt.PositionList, written: core.Filter, text: str) -> None:
    """Each list of lists shows as what the translation writes for it."""
    for item in pl.items:
        if not isinstance(item, lt.ListOfLists):
            continue
        assert f"(:{item.keyword.value})" in text
        children = [_translated(n, top=False) for n in item.lists]
        if any(c in (TRUE, FALSE) for c in children) or len(children) < 2:
            continue  # the translation simplifies it away, rightly
        kinds = _GROUP_NODES[item.keyword]
        assert any(isinstance(node, kinds) for node in written.walk()), item


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.parent.name)
def test_explain_shows_every_negation_transform_and_list(path: Path) -> None:
    script = read_script(path.read_text(encoding="utf-8"), path=str(path))
    text = Explanation.of_legacy(script).text()
    for index, top_list in enumerate(script.match.position_lists(), start=1):
        for label, pl, inside_transform in _lists(top_list, str(index)):
            top = "." not in label
            negated, shown = _shown(text, label)
            written = _translated(pl, top)
            # The :not is there when the translation of the list depends on it.
            not_written = _translated(_without(pl, lt.FlagKeyword.NOT), top) != written
            assert negated == not_written, (label, text)
            # The transforms are there when the translation depends on them, or when
            # every transformed list is the same one (the text then says so).
            assert shown == tuple(f":{k.value}" for k in _transforms(pl)), (label, text)
            if shown and not inside_transform:
                transformed = _translated(_without(pl, lt.Transform), top) != written
                _, base = strip_comments(base_list(pl))
                one = len(legacy_orbit(base, _transforms(pl), Budget(), pl.span)) == 1
                assert transformed or one, (label, text)
            _check_groups(pl, written, text)


def test_the_smallest_nested_negation_is_explained_as_one() -> None:
    text = "(match (position :and ((position Kg1) (position :not Qd1 :shift))))"
    explained = Explanation.of_legacy(read_script(text)).text()
    assert "list 1.1 (line 1:24): a white king on g1" in explained
    assert (
        "list 1.2 (line 1:39): holds when no :shift transform of this list matches: "
        "a white queen on d1" in explained
    )


def test_the_page_draws_only_what_must_stand_on_the_board() -> None:
    text = "(match (position :and ((position Kg1) (position :not Qd1 :shift))))"
    page = Explanation.of_legacy(read_script(text)).html()
    assert page.count('<figure class="member">') == 1
    assert "white-king" in page.split('<figure class="member">')[1]
    assert "white-queen" not in page.split('<figure class="member">')[1]
