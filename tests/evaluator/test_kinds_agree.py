"""The evaluator and the reader agree on every node's kind: the kind a node compiles to
is the one its class declares (core.tree.Kind, one enum for both), a position variable
included (its value is a position, which compares by its order in the game tree)."""

from __future__ import annotations

from hypothesis import given, settings

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.compiler import Compiler
from cqllegacy.evaluator.evaluate import REFERENCE_RULES
from cqllegacy.evaluator.lowering import LOWERING
from tests.support.strategies import queries


def _nodes(query: ct.Query) -> list[ct.Filter]:
    # A line group is evaluated only as part of its line.
    return [
        node
        for top in query.lists
        for node in top.body.walk()
        if not isinstance(node, ct.LineGroup)
    ]


@settings(max_examples=60, deadline=None)
@given(queries(depth=2))
def test_every_node_compiles_to_the_kind_its_class_declares(query: ct.Query) -> None:
    for compiler in (Compiler(REFERENCE_RULES), Compiler(REFERENCE_RULES, LOWERING)):
        for node in _nodes(query):
            assert compiler.compile(node).kind is node.value_kind(), node


def test_a_position_variable_is_a_position_to_both() -> None:
    node = ct.PositionVariable("s")
    assert Compiler(REFERENCE_RULES).compile(node).kind is ct.Kind.POSITION
    assert node.value_kind() is ct.Kind.POSITION
