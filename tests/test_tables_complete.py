"""Every per-class table covers every class it must: a core node class without a reference
rule, a legacy-only node the printer does not refuse, or a legacy item class without a
translator rule fails here, not on a user's script.  (Declared reach: tests/core/
test_tree_api.py; printer entries: tests/modern/test_printer.py.)"""

from __future__ import annotations

import pytest
from cqllegacy.translator import rewrite

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.evaluate import REFERENCE_RULES
from cqllegacy.evaluator.lowering import LOWERING, REFERENCE_RULE
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
    assert cls in REFERENCE_RULES


@pytest.mark.parametrize("cls", CORE_NODES, ids=lambda c: c.__name__)
def test_every_core_node_is_lowered_or_left_to_its_reference_rule(cls: type[ct.Filter]) -> None:
    # A new node class runs by its reference rule anyway; this asks its author to say so
    # (add it to lowering.REFERENCE_RULE) or to lower it.
    assert (cls in LOWERING) != (cls in REFERENCE_RULE), (
        f"{cls.__name__}: list it in lowering.REFERENCE_RULE, or give it a lowering"
    )


def test_the_lowering_tables_name_core_nodes_only() -> None:
    assert set(LOWERING) | REFERENCE_RULE <= set(CORE_NODES)


#: One instance of each node class CQL 6.1 cannot say.
LEGACY_ONLY = {
    ct.Relation: lambda: ct.Relation(),
    ct.RayCount: lambda: ct.RayCount((pd("K"), pd("k")), (Direction.UP,)),
    ct.LegacyOnly: lambda: ct.LegacyOnly(pd("K")),
}


def test_the_nodes_cql_6_cannot_say_are_the_known_ones() -> None:
    # tests/modern/test_printer.py checks that every other class has a printer entry.
    assert {cls for cls in CORE_NODES if not cls.MODERN} == set(LEGACY_ONLY)


@pytest.mark.parametrize(
    "cls", sorted(LEGACY_ONLY, key=lambda c: c.__name__), ids=lambda c: c.__name__
)
def test_the_printer_refuses_what_cql_6_cannot_say(cls: type) -> None:
    # The printer refuses what CQL 6.1 cannot say, naming the legacy construct (T1).
    query = ct.Query(ct.Header(), (ct.TopList(LEGACY_ONLY[cls]()),))
    with pytest.raises(NotExpressible):
        printer.print_query(query)


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
