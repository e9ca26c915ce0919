"""The plan of a whole query: its lists compiled, and the driver that runs them (the
tries of lines, or the gates and horizon of a snapshot stream, included)."""

from __future__ import annotations

import functools

import attrs

from cqllegacy.core.tree import Filter, GameHas, LineReached, Query, Reads
from cqllegacy.evaluator.analysis import Driver, QueryAnalysis
from cqllegacy.evaluator.compiler import Compiler
from cqllegacy.evaluator.drivers import CompiledList
from cqllegacy.evaluator.line_automaton import LineAutomaton
from cqllegacy.evaluator.lowering.gates import gate, horizon, list_sieve
from cqllegacy.evaluator.lowering.lines import line_trie
from cqllegacy.evaluator.plan import Gates, QueryPlan

__all__ = ["LocalSteps", "lower_query"]


def lower_query(c: Compiler, analysis: QueryAnalysis) -> QueryPlan:
    """The plan of an analysed query: its lists compiled by ``c`` and the driver that
    runs them.  The analysis names the driver the nodes' reach allows; where that is
    the game tree, the lowering runs a query whose lists are ORs of lines of local steps
    on tries of lines (``Driver.LINES``), any other on copies of the main line's boards
    (``Driver.SNAPSHOT``: behind gates, when every list has one and no piece is
    followed); a query that reads the movetext (``GameHas``), or has more than one form,
    stays on the game tree.
    A compiler without lowerings plans the reference evaluation: every game
    on the game tree."""
    query = analysis.query
    tags = frozenset(tag.name for tag in query.tags)
    lists = tuple(
        CompiledList(
            found,
            functools.partial(c.compile, found.source.body),
            tuple(c.truth(conjunct) for conjunct in found.tag_conjuncts),
            functools.partial(list_sieve, c, found.source.body, tags) if tags else None,
        )
        for found in analysis.lists
    )
    if not c.lowers:
        reference = attrs.evolve(analysis, driver=Driver.TREE, tag_needles=())
        return QueryPlan(reference, lists, Driver.TREE, c)
    if analysis.driver is not Driver.TREE:
        return QueryPlan(analysis, lists, analysis.driver, c)
    if any(top.body.find(GameHas, LineReached) is not None for top in query.lists):
        # The game's comments, NAGs and variations, or its start position (:line*): the
        # game tree has them.
        return QueryPlan(analysis, lists, Driver.TREE, c)
    if query.forms > 1:
        # The forms are tried in turn on the game tree (TreeDriver).
        return QueryPlan(analysis, lists, Driver.TREE, c)
    tries = None if query.tags else _line_tries(c, query)
    if tries is not None:
        return QueryPlan(analysis, lists, Driver.LINES, c, tries=tries)
    # Following pieces needs every board: no gates then.
    gates = None if analysis.identities else _gates(c, query)
    return QueryPlan(analysis, lists, Driver.SNAPSHOT, c, gates=gates)


class LocalSteps:
    """Whether a node reads only the current position, its next move and the tags,
    asked once per node: the recognition of lines asks about the same nodes many times
    (an orbit's members share their steps), and a node's reach is a walk of its subtree.
    The answers are filed under the node's identity with the node held beside them, so
    an identity is never that of a node collected since and made again."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Filter, bool]] = {}

    def __call__(self, node: Filter) -> bool:
        found = self._known.get(id(node))
        if found is not None and found[0] is node:
            return found[1]
        local = node.reads() <= Reads.NEXT_MOVE
        self._known[id(node)] = (node, local)
        return local


def _line_tries(c: Compiler, query: Query) -> tuple[LineAutomaton, ...] | None:
    """Per list, its body as a trie of lines of local steps followed while the game is
    read; None when some body is no OR of such lines."""
    local = LocalSteps()
    automata = []
    for top in query.lists:
        automaton = line_trie(c, top.body, local)
        if automaton is None:
            return None
        automata.append(automaton)
    return tuple(automata)


def _local(node: Filter) -> bool:
    return node.reads() <= Reads.NEXT_MOVE


def _gates(c: Compiler, query: Query) -> Gates | None:
    """Per list, a test on the position being read that its body needs, and how far
    ahead the bodies look; None when some list has no such bound."""
    tests = []
    farthest = 0
    for top in query.lists:
        ahead = horizon(top.body)
        found = None if ahead is None else gate(top.body, _local)
        if found is None or ahead is None:
            return None
        tests.append(c.truth(found))
        farthest = max(farthest, ahead)
    return Gates(tuple(tests), farthest)
