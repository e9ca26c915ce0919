"""Every per-class table covers every class it must: a node class added to the core tree
without a reference rule, a printer entry (or the MODERN = False refusal) or a declared
reach, or a legacy item class without a translator rule, fails here, not on a user's
script."""

from __future__ import annotations

import pytest
from cqllegacy.translator import rewrite

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.evaluate import FAST_RULES, RULES
from cqllegacy.evaluator.testing import pd
from cqllegacy.legacy import tree as lt
from cqllegacy.modern import printer
from cqllegacy.modern.errors import NotExpressible
from cqllegacy.vocab.squares import Direction

CORE_NODES = sorted(
    (
        c
        for c in vars(ct).values()
        if isinstance(c, type) and issubclass(c, ct.Filter) and c is not ct.Filter
    ),
    key=lambda c: c.__name__,
)


@pytest.mark.parametrize("cls", CORE_NODES, ids=lambda c: c.__name__)
def test_every_core_node_has_a_reference_rule(cls: type[ct.Filter]) -> None:
    assert cls in RULES
    assert cls in FAST_RULES


#: One instance of each node class CQL 6.1 cannot say.
LEGACY_ONLY = {
    ct.Relation: lambda: ct.Relation(),
    ct.RayCount: lambda: ct.RayCount((pd("K"), pd("k")), (Direction.UP,)),
    ct.LegacyOnly: lambda: ct.LegacyOnly(pd("K")),
}


@pytest.mark.parametrize("cls", CORE_NODES, ids=lambda c: c.__name__)
def test_every_modern_node_has_a_printer_and_the_others_are_refused(cls: type) -> None:
    if cls.MODERN:
        assert cls in printer._PRINTERS
        return
    # The printer refuses what CQL 6.1 cannot say, naming the legacy construct (T1).
    query = ct.Query(ct.Header(), (ct.TopList(LEGACY_ONLY[cls]()),))
    with pytest.raises(NotExpressible):
        printer.print_query(query)


@pytest.mark.parametrize("cls", CORE_NODES, ids=lambda c: c.__name__)
def test_every_core_node_declares_its_reach(cls: type[ct.Filter]) -> None:
    assert "READS" in vars(cls)


def _position_items() -> list[type]:
    names = str(lt.PositionItem).split("|")
    return [getattr(lt, name.strip()) for name in names]


def test_the_item_list_is_read() -> None:
    assert lt.Designator in _position_items() and len(_position_items()) > 10


#: Items that shape the whole list (its transform set and accumulators), translated with it.
LIST_SETTINGS = {lt.Transform, lt.Accumulate, lt.SumRange}


@pytest.mark.parametrize("cls", _position_items(), ids=lambda c: c.__name__)
def test_every_legacy_position_item_has_a_translator_rule(cls: type) -> None:
    assert (cls in rewrite._RULES) != (cls in LIST_SETTINGS)
