"""What a driver tests before a list: the positions where some binding of a list
that follows pieces may match (:func:`list_sieve`), and the gate and horizon of a
snapshot stream (:func:`gate`, :func:`horizon`)."""

from __future__ import annotations

from collections.abc import Callable

from cqllegacy.core.tree import And, Compound, Filter, LegacyOnly, Line, Or, Reads
from cqllegacy.evaluator.compiler import Compiler
from cqllegacy.evaluator.drivers import ListSieve
from cqllegacy.evaluator.lowering.holders import variable_holders
from cqllegacy.evaluator.lowering.necessity import compiled_tag_bounds, relaxed_necessity
from cqllegacy.evaluator.lowering.shapes import (
    disjunction_members,
    is_true,
    only_variable,
    reads_bindings,
    step_here,
)
from cqllegacy.evaluator.trees import meaningful

__all__ = ["gate", "horizon", "list_sieve"]


def gate(node: Filter, local: Callable[[Filter], bool]) -> Filter | None:
    """A filter on the current position alone (``local``) that matches wherever ``node``
    matches (None when there is none worth having)."""
    if local(node):
        return node
    if isinstance(node, Line):
        here = step_here(node)
        return None if here is None else gate(here, local)
    if isinstance(node, LegacyOnly):
        return gate(node.filter, local)
    if isinstance(node, Compound | And):
        found = [g for item in meaningful(node.items) if (g := gate(item, local)) is not None]
        return Compound(tuple(found)) if found else None
    members = list(disjunction_members(node))
    if members == [node]:
        return None
    gates = [gate(member, local) for member in members]
    if any(g is None for g in gates):
        return None
    return Or(tuple(dict.fromkeys(g for g in gates if g is not None)))


def horizon(node: Filter) -> int | None:
    """How many positions after the current one ``node`` may look at (None: unbounded,
    or earlier positions too)."""
    if node.reads_itself() is Reads.GAME and not isinstance(node, Line):
        # Earlier positions, pieces followed through the game, or unbounded search.
        return None
    below = [horizon(child) for child in node.children()]
    if any(h is None for h in below):
        return None
    deepest = max((h for h in below if h is not None), default=0)
    if isinstance(node, Line):
        if any(step.hi is None for step in node.steps):
            return None
        return sum(step.hi or 0 for step in node.steps) - 1 + deepest
    return deepest


def list_sieve(c: Compiler, body: Filter, tags: frozenset[str]) -> ListSieve | None:
    """How the game tree tries a list's ``body`` for every binding of the ``tags`` at
    once: read for every square of the one tag it reads (:func:`variable_holders`), else
    only where a necessity that reads no variable holds (:func:`relaxed_necessity`);
    None when it reads no tag or neither is found (binding by binding, everywhere)."""
    if not c.lowers or not reads_bindings(body):
        return None
    name = only_variable(body)
    if name in tags:
        holders = variable_holders(c, body, name)
        if holders is not None:
            return ListSieve(name, holders, None)
    necessity = relaxed_necessity(body, compiled_tag_bounds(c))
    if necessity is None or is_true(necessity):
        return None
    return ListSieve(None, None, c.truth(necessity))
