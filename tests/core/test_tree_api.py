"""The tree API every core node shares: children, walk, find, replace, map_children,
transform, and the declared reach (``READS``) the evaluator chooses its driver from."""

from __future__ import annotations

import importlib

import attrs
import pytest
from hypothesis import given, settings

from cqllegacy.core import tree as ct
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import Span
from tests.support.strategies import filters

CONCRETE = ct.node_classes()


@pytest.mark.parametrize("cls", CONCRETE, ids=lambda c: c.__name__)
def test_every_node_class_declares_its_facts(cls: type[ct.Filter]) -> None:
    # Inheriting a default would be safe but silent: each class says what it is.
    assert all(fact in vars(cls) for fact in ct.DECLARED_FACTS)


def test_the_class_list_is_every_node_class_of_the_core() -> None:
    found = {
        c
        for c in vars(ct).values()
        if isinstance(c, type) and issubclass(c, ct.Filter) and c is not ct.Filter
    }
    assert set(CONCRETE) == found


def test_a_class_that_leaves_a_fact_out_is_refused_when_it_is_created() -> None:
    with pytest.raises(ct.DeclarationError, match="Newcomer does not declare WORD, CQL_WORDS"):

        @attrs.frozen(slots=True)
        class Newcomer(ct.Filter):
            READS = ct.Reads.GAME
            OPERANDS = ct.ANY_FILTER
            TRANSFORMS = ct.Transforms.CHILDREN
            arg: ct.Filter


def test_a_class_without_its_printing_precedence_is_refused_naming_it() -> None:
    with pytest.raises(ct.DeclarationError, match="Newcomer does not declare PRECEDENCE"):

        @attrs.frozen(slots=True)
        class Newcomer(ct.Filter):
            WORD = "`new`"
            CQL_WORDS = ("new",)
            KIND = ct.Kind.SET
            OPERANDS = ct.SETS
            TRANSFORMS = ct.Transforms.CHILDREN
            READS = ct.Reads.GAME
            arg: ct.Filter


def test_a_class_whose_kind_depends_on_a_field_says_how() -> None:
    with pytest.raises(ct.DeclarationError, match="KIND = None but defines no value_kind"):

        @attrs.frozen(slots=True)
        class Newcomer(ct.Filter):
            WORD = "`new`"
            CQL_WORDS = ("new",)
            KIND = None
            OPERANDS = ct.ANY_FILTER
            TRANSFORMS = ct.Transforms.CHILDREN
            READS = ct.Reads.GAME
            PRECEDENCE = ct.Precedence.ATOM
            arg: ct.Filter


def test_a_class_whose_precedence_depends_on_a_field_says_how() -> None:
    with pytest.raises(ct.DeclarationError, match="PRECEDENCE = None but defines no precedence"):

        @attrs.frozen(slots=True)
        class Newcomer(ct.Filter):
            WORD = "`new`"
            CQL_WORDS = ("new",)
            KIND = ct.Kind.SET
            OPERANDS = ct.SETS
            TRANSFORMS = ct.Transforms.CHILDREN
            READS = ct.Reads.GAME
            PRECEDENCE = None
            arg: ct.Filter


def test_operands_by_field_name_only_existing_fields() -> None:
    with pytest.raises(ct.DeclarationError, match="OPERANDS names no field"):

        @attrs.frozen(slots=True)
        class Newcomer(ct.Filter):
            WORD = "`new`"
            CQL_WORDS = ("new",)
            KIND = ct.Kind.SET
            OPERANDS = ct.by_field(nothing=ct.SETS)
            TRANSFORMS = ct.Transforms.CHILDREN
            READS = ct.Reads.GAME
            PRECEDENCE = ct.Precedence.ATOM
            arg: ct.Filter


def test_a_declared_class_takes_part_in_the_tree_api() -> None:
    @attrs.frozen(slots=True)
    class Newcomer(ct.Filter):
        WORD = "`new`"
        CQL_WORDS = ("new",)
        KIND = ct.Kind.SET
        OPERANDS = ct.SETS
        TRANSFORMS = ct.Transforms.CHILDREN
        READS = ct.Reads.GAME
        PRECEDENCE = ct.Precedence.ATOM
        arg: ct.Filter

    assert Newcomer(pd("K")).reads() is ct.Reads.GAME
    assert ct.Compound((pd("K"), Newcomer(pd("Q")))).reads() is ct.Reads.GAME
    assert Newcomer(pd("K")).value_kind() is ct.Kind.SET
    assert list(Newcomer(pd("K")).operand_kinds()) == [(pd("K"), ct.SETS)]
    # Classes defined outside the core do not join the core's list.
    assert Newcomer not in ct.node_classes()


def test_reach_combines_by_the_farthest_node() -> None:
    assert ct.Result(GameResult.DRAW).reads() is ct.Reads.TAGS
    assert ct.Compound((pd("K"), ct.Simple(ct.Keyword.WTM))).reads() is ct.Reads.POSITION
    assert ct.Compound((pd("K"), ct.Move(to=pd("e4")))).reads() is ct.Reads.NEXT_MOVE
    assert ct.Move(to=pd("e4"), previous=True).reads() is ct.Reads.GAME
    assert ct.Not(ct.Find(pd("Q"))).reads() is ct.Reads.GAME
    assert ct.NumericValue(ct.NumericKeyword.YEAR).reads() is ct.Reads.TAGS
    assert ct.NumericValue(ct.NumericKeyword.PLY).reads() is ct.Reads.POSITION
    assert ct.Simple(ct.Keyword.TERMINAL).reads() is ct.Reads.NEXT_MOVE


def test_children_follow_field_order_and_line_steps() -> None:
    a, b, c = pd("K"), pd("Q"), pd("R")
    line = ct.Line((ct.LineStep(a), ct.LineStep(b, 0, None)))
    assert line.children() == (a, b)
    move = ct.Move(from_=a, capture=c)
    assert move.children() == (a, c)
    assert ct.Attacks(b, c).children() == (b, c)
    assert pd("K").children() == ()


def test_walk_is_depth_first_parents_first() -> None:
    a, b, c = pd("K"), pd("Q"), pd("R")
    tree = ct.Or((ct.Not(a), ct.Compound((b, c))))
    assert list(tree.walk()) == [tree, ct.Not(a), a, ct.Compound((b, c)), b, c]
    assert tree.find(ct.Compound) == ct.Compound((b, c))
    assert list(tree.find_all(ct.PieceSet)) == [a, b, c]
    assert tree.find(ct.Line) is None


def test_replace_rebuilds_field_by_field_and_keeps_the_origin() -> None:
    origin = ct.Origin(":player", Span(1, 2))
    player = ct.Player("Tal", origin=origin)
    renamed = player.replace(text="Petrosian")
    assert renamed == ct.Player("Petrosian")
    assert renamed.origin is origin
    move = ct.Move(from_=pd("K"))
    assert move.replace(from_=None, to=pd("e4")) == ct.Move(to=pd("e4"))


def test_map_children_returns_the_node_itself_when_nothing_changes() -> None:
    tree = ct.Compound((pd("K"), ct.Line((ct.LineStep(pd("Q")),))))
    assert tree.map_children(lambda child: child) is tree
    assert tree.transform(lambda node: node) is tree


def test_transform_rewrites_bottom_up_through_line_steps() -> None:
    tree = ct.Line((ct.LineStep(ct.Not(pd("K")), 0, None),))

    def swap(node: ct.Filter) -> ct.Filter:
        return ct.Number(1) if isinstance(node, ct.PieceSet) else node

    assert tree.transform(swap) == ct.Line((ct.LineStep(ct.Not(ct.Number(1)), 0, None),))


@settings(max_examples=200, deadline=None)
@given(filters())
def test_walk_visits_every_child_of_every_node(node: ct.Filter) -> None:
    seen = list(node.walk())
    assert seen[0] is node
    assert len(seen) == 1 + sum(len(list(child.walk())) for child in node.children())
    assert node.transform(lambda n: n) == node
    assert node.reads() == max(n.reads_itself() for n in seen)


@pytest.mark.parametrize(
    "module", [*ct.CORE_NODE_MODULES, "cqllegacy.core.declarations", "cqllegacy.core.query"]
)
def test_the_tree_module_gathers_every_public_name_of_its_parts(module: str) -> None:
    part = importlib.import_module(module)
    own = [
        name
        for name, value in vars(part).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module
    ]
    assert own
    for name in own:
        assert getattr(ct, name) is getattr(part, name), name
