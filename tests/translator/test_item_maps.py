"""The legacy orbit's derived item map (translator/orbits.py): an item class that declares
``TRANSFORMED = Transformed.DESIGNATOR`` has every designator field mapped by a legacy
transform, however many it has, and nothing else; one with no designator field is refused
by name."""

from __future__ import annotations

import typing
from pathlib import Path

import attrs
import pytest
from cqllegacy.translator.orbits import ITEM_MAPS, designator_fields, designators_mapped
from cqllegacy.translator.shifts import LegacyTransform

from cqllegacy.legacy import LegacySyntaxError, read_script
from cqllegacy.legacy import tree as lt
from cqllegacy.vocab.pieces import types_of
from cqllegacy.vocab.squares import format_squares, parse_squares
from tests.support import reference_legacy as ref


@attrs.frozen
class _TwoDesignators:
    """A throwaway item with two designator fields and one that is not."""

    TRANSFORMED = lt.Transformed.DESIGNATOR

    attackers: lt.Designator
    targets: lt.Designator
    label: str = "kept"


@attrs.frozen
class _NoDesignator:
    TRANSFORMED = lt.Transformed.DESIGNATOR

    label: str


def _squares(d: lt.Designator) -> str:
    return format_squares(d.squares)


def test_every_designator_field_is_mapped_and_nothing_else() -> None:
    assert designator_fields(_TwoDesignators) == ("attackers", "targets")
    item = _TwoDesignators(
        lt.Designator(types_of("R"), parse_squares("b2")),
        lt.Designator(types_of("k"), parse_squares("g7")),
    )
    image = designators_mapped(_TwoDesignators)(item, LegacyTransform(swap_colors=True))
    assert (_squares(image.attackers), _squares(image.targets)) == ("b7", "g2")
    assert image.attackers.types == types_of("r") and image.targets.types == types_of("K")
    assert image.label == "kept"


def test_a_declaration_without_a_designator_field_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="_NoDesignator declares TRANSFORMED"):
        designators_mapped(_NoDesignator)


@pytest.mark.parametrize(
    "cls",
    [cls for cls in typing.get_args(lt.PositionItem) if getattr(cls, "TRANSFORMED", None)],
    ids=lambda c: c.__name__,
)
def test_the_declared_items_map_their_designator_fields(cls: type) -> None:
    assert designator_fields(cls)
    assert ITEM_MAPS[cls].__qualname__ == "designators_mapped.<locals>.mapped"


def test_attackcount_maps_both_designators_from_its_declaration() -> None:
    # It had a hand-written map beside the derived ones; now its declaration says it.
    assert lt.AttackCount.TRANSFORMED is lt.Transformed.DESIGNATOR
    assert designator_fields(lt.AttackCount) == ("attackers", "targets")
    item = lt.AttackCount(
        lt.Designator(types_of("N"), parse_squares("b1")),
        lt.Designator(types_of("k"), parse_squares("e8")),
        lt.Range(2, None),
    )
    image = ITEM_MAPS[lt.AttackCount](item, LegacyTransform(swap_colors=True))
    assert (_squares(image.attackers), _squares(image.targets)) == ("b8", "e1")
    assert image.attackers.types == types_of("n") and image.targets.types == types_of("K")
    assert image.range == item.range


# The legacy reference (tests/support/reference_legacy.py) transforms items by its own
# model: an item kind it does not know fails there, never passes untransformed.

ROOT = Path(__file__).resolve().parents[2]


def _position_lists(script: lt.Script) -> list[lt.PositionList]:
    found, pending = [], list(script.match.position_lists())
    while pending:
        pl = pending.pop()
        found.append(pl)
        for item in pl.items:
            if isinstance(item, lt.ListOfLists):
                pending.extend(item.lists)
    return found


def test_the_reference_refuses_an_item_kind_it_does_not_know() -> None:
    (t, *_) = ref.transform_set(["flipcolor"])
    with pytest.raises(NotImplementedError, match="'newcomer'"):
        ref.transform_item(t, ("newcomer", 1))


def test_the_reference_transforms_every_item_of_the_fixture_scripts() -> None:
    transforms = ref.transform_set(["flip", "flipcolor", "shifthorizontal"])
    kinds: set[str] = set()
    for path in sorted((ROOT / "fixtures" / "migration").glob("*/legacy.cql")):
        try:
            script = read_script(path.read_text(encoding="utf-8"))
        except LegacySyntaxError:
            continue
        for pl in _position_lists(script):
            try:
                items = ref.convert_list(pl)
            except NotImplementedError:
                continue
            kinds |= {item[0] for item in items}
            for t in transforms[:: max(1, len(transforms) // 7)]:
                ref.transform_list(t, items)
    assert {"designator", "flag", "transform", "piececount", "lists"} <= kinds
