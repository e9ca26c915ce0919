"""Every dispatcher covers every class it must: each per-class behaviour that cannot live on
the node class (reference rules, lowerings, the CQL 6 printer, the transform rewrite, the
translator's item rules, the legacy orbit's item maps) is one
:class:`~cqllegacy.core.dispatch.Dispatcher`, and here each is run over every class it
serves: each class has an entry or is declared absent on purpose.  A forgotten entry
fails here, not on a user's script.  (The facts each node class declares itself are
checked when the class is created: tests/core/test_tree_api.py.)"""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import chess
import pytest
from cqllegacy.translator import rewrite
from cqllegacy.translator.orbits import ITEM_MAPS

from cqllegacy.core import transforms
from cqllegacy.core import tree as ct
from cqllegacy.core.dispatch import Dispatcher, MissingEntry
from cqllegacy.evaluator.arrays import ARRAY_FORMS
from cqllegacy.evaluator.evaluate import REFERENCE_RULES
from cqllegacy.evaluator.lowering import LOWERING, REFERENCE_RULE
from cqllegacy.evaluator.testing import pd
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.keywords import DIALECT_MATCH_KEYWORDS, DIALECT_POSITION_KEYWORDS, KEYWORDS
from cqllegacy.modern import printer
from cqllegacy.modern.errors import NotExpressible
from cqllegacy.present.explain import ITEM_WORDS, MATCH_WORDS
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING
from cqllegacy.vocab.squares import FULL, Direction

CORE_NODES = ct.node_classes()

#: Every dispatcher over core node classes.
CORE_DISPATCHERS: tuple[Dispatcher[object], ...] = (
    REFERENCE_RULES,
    LOWERING,
    printer.PRINTERS,
    transforms.REWRITE,
    ARRAY_FORMS,
)


@pytest.mark.parametrize("dispatcher", CORE_DISPATCHERS, ids=lambda d: d.name)
def test_every_dispatcher_serves_every_core_node_class(dispatcher: Dispatcher[object]) -> None:
    missing = [cls.__name__ for cls in dispatcher.missing(CORE_NODES)]
    assert not missing, f"{dispatcher.name}: no entry and not declared absent: {missing}"


@pytest.mark.parametrize(
    "dispatcher",
    (*CORE_DISPATCHERS, rewrite.ITEM_RULES, ITEM_MAPS, ITEM_WORDS, MATCH_WORDS),
    ids=lambda d: d.name,
)
def test_a_missing_entry_fails_loudly(dispatcher: Dispatcher[object]) -> None:
    class Unknown:
        pass

    with pytest.raises(MissingEntry, match=f"{dispatcher.name} has no entry for Unknown"):
        dispatcher[Unknown]


@pytest.mark.parametrize("dispatcher", (REFERENCE_RULES, printer.PRINTERS), ids=lambda d: d.name)
def test_only_the_lowering_leaves_classes_out(dispatcher: Dispatcher[object]) -> None:
    # Every node runs by a reference rule and prints (or is refused by name).
    assert not dispatcher.absent_classes()


def test_the_transform_rules_follow_the_declarations() -> None:
    for cls in CORE_NODES:
        rule = transforms.REWRITE[cls]
        derived = cls.TRANSFORMS in (ct.Transforms.CHILDREN, ct.Transforms.NOTHING)
        assert (rule.__name__ in ("_rewrite_fields", "_unchanged")) == derived, cls.__name__


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
    ct.HypotheticalLine: lambda: ct.HypotheticalLine(
        (ct.HypotheticalMove(ANY_PIECE, FULL, ANYTHING, FULL, forced=True),)
    ),
    ct.RoundNumber: lambda: ct.InRange(ct.RoundNumber(ct.RoundPart.ROUND), 1, 2),
    ct.EcoRange: lambda: ct.EcoRange("B00", "B99"),
    ct.ScidbBoardTest: lambda: ct.ScidbBoardTest(ct.BoardFact.FORCED),
    ct.HalfmoveClock: lambda: ct.InRange(ct.HalfmoveClock(), 0, 3),
    ct.CastlingRights: lambda: ct.CastlingRights("KQ"),
    ct.PlyCount: lambda: ct.InRange(ct.PlyCount(), 40, 60),
    ct.GameHas: lambda: ct.GameHas(ct.MovetextFeature.COMMENTS),
    ct.FenIs: lambda: ct.FenIs("8/8/8/8/8/8/k7/2K5", True, "-", None),
    ct.LineReached: lambda: ct.LineReached((ct.FixedMove(chess.PAWN, chess.E2, chess.E4),)),
    ct.DateIn: lambda: ct.DateIn(733000, None),
    ct.TagValueIn: lambda: ct.TagValueIn("Termination", frozenset({"normal"})),
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
    return list(typing.get_args(lt.PositionItem))


#: Items of a list that are no keyword: designators, comments, the lists of `match`, and
#: the moves after `|` of Scidb's `:line` (read by its own move language, line_moves.py),
#: its `:line*` (line_star.py), and Scidb's `!` before a match-list keyword (which holds a
#: keyword item).
NOT_KEYWORDS = {
    lt.Designator, lt.Comment, lt.PositionList, lt.HypotheticalMoves, lt.TransposedLine,
    lt.NegatedMatchItem,
}  # fmt: skip
LEGACY_ITEMS = sorted(
    {
        cls
        for alias in (lt.MatchItem, lt.PositionItem, lt.RelationItem)
        for cls in typing.get_args(alias)
    }
    - NOT_KEYWORDS,
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize("cls", LEGACY_ITEMS, ids=lambda c: c.__name__)
def test_every_legacy_keyword_item_declares_its_keyword(cls: type) -> None:
    # The reader's keyword tables and the legacy printer are derived from it.
    declared = getattr(cls, "KEYWORD", None)
    assert isinstance(declared, lt.KeywordDeclaration), f"{cls.__name__} declares no KEYWORD"
    tables = {
        **KEYWORDS,
        "dialect": DIALECT_MATCH_KEYWORDS,
        "dialect position": DIALECT_POSITION_KEYWORDS,
    }
    homes = [kind for kind, table in tables.items() for name in declared.names() if name in table]
    assert homes, f"{cls.__name__}'s keywords are in no table"
    for table in tables.values():
        for name in declared.names():
            spec = table.get(name)
            if spec is not None and spec.build is cls:
                assert spec.shape is declared.shape


@pytest.mark.parametrize("cls", _position_items(), ids=lambda c: c.__name__)
def test_every_legacy_position_item_has_an_orbit_map(cls: type) -> None:
    # A transform that silently left a new item untransformed would give a wrong orbit.
    assert cls in ITEM_MAPS


def test_the_item_list_is_read() -> None:
    assert lt.Designator in _position_items() and len(_position_items()) > 10


#: Items that shape the whole list (its transform set and accumulators), translated with it.
LIST_SETTINGS = {lt.Transform, lt.Accumulate, lt.AccumulateEach, lt.SumRange}


@pytest.mark.parametrize("cls", _position_items(), ids=lambda c: c.__name__)
def test_every_legacy_position_item_has_a_translator_rule(cls: type) -> None:
    assert (cls in rewrite.ITEM_RULES) != (cls in LIST_SETTINGS)
    assert set(rewrite.ITEM_RULES.absent_classes()) == LIST_SETTINGS


@pytest.mark.parametrize("cls", _position_items(), ids=lambda c: c.__name__)
def test_explain_has_words_for_every_legacy_position_item(cls: type) -> None:
    # A forgotten entry once printed "means: any position" for the item (issue 29).
    assert ITEM_WORDS.covers(cls), f"explain's item words: no entry for {cls.__name__}"


@pytest.mark.parametrize("cls", typing.get_args(lt.MatchItem), ids=lambda c: c.__name__)
def test_explain_has_words_for_every_match_item(cls: type) -> None:
    assert MATCH_WORDS.covers(cls), f"explain's match item words: no entry for {cls.__name__}"


def _named_in(path: Path) -> set[str]:
    """The core node classes a test helper names (``ct.Cls``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ct"
    }


@pytest.mark.parametrize("cls", [cls for cls in CORE_NODES if cls.MODERN], ids=lambda c: c.__name__)
def test_the_generated_trees_hold_every_class_cql_6_can_say(cls: type) -> None:
    # tests/support/strategies.py builds the trees the round-trip and property tests draw.
    strategies = Path(__file__).parent / "support" / "strategies.py"
    assert cls.__name__ in _named_in(strategies), (
        f"tests/support/strategies.py generates no {cls.__name__}"
    )
