"""The physical plan of a query: what the lowering decided, and what a driver runs.

The evaluator is one pipeline::

    core Query ──analyse──▶ QueryAnalysis ──lower_query──▶ QueryPlan ──▶ driver

:func:`~cqllegacy.evaluator.analysis.analyse` reads the tree (how far each list looks, tag
checks, needles, identities) and names the driver the nodes' declared ``READS`` allow;
:func:`~cqllegacy.evaluator.lowering.lower_query` compiles every list (physical operators
where it recognises a pattern, reference rules elsewhere) and settles the driver: a
query whose lists are ORs of lines of local steps runs on tries of lines
(``Driver.LINES``), any other that needs more than the next move on copies of the main
line's boards behind gates (``Driver.SNAPSHOT``).  :class:`QueryPlan` holds all of it,
typed; :mod:`~cqllegacy.evaluator.evaluate` builds the driver the plan names.

The plan also answers which member of a disjunction (an ``or``, an orbit) holds at a
position, from the lowering's own expansion of the members and the tests it compiles of
them (:class:`Members`): :mod:`cqllegacy.present.witness` reads it from here.
"""

from __future__ import annotations

import attrs

from cqllegacy.core.tree import Filter, Or, Transform
from cqllegacy.evaluator.analysis import Driver, QueryAnalysis
from cqllegacy.evaluator.compiler import Compiler, Context
from cqllegacy.evaluator.drivers import CompiledList, Gates
from cqllegacy.evaluator.line_automaton import LineAutomaton
from cqllegacy.evaluator.trees import free_variables, orbit_members
from cqllegacy.records import Record

__all__ = ["Gates", "Members", "QueryPlan"]


@attrs.frozen(repr=False)
class QueryPlan(Record):
    """A lowered query: its analysis, its compiled lists, the driver that runs them and
    what that driver needs (the tries of lines of ``Driver.LINES``, the gates of
    ``Driver.SNAPSHOT`` when every list has them), and the compiler that made them."""

    analysis: QueryAnalysis
    lists: tuple[CompiledList, ...]
    driver: Driver
    compiler: Compiler = attrs.field(eq=False, repr=False)
    tries: tuple[LineAutomaton, ...] = ()
    gates: Gates | None = None

    @property
    def members(self) -> Members:
        """The members of the plan's disjunctions, and whether each holds."""
        return Members(self.compiler)


class Members:
    """The members of a disjunction (an ``or``, an orbit) as the lowering expands them,
    and whether one holds at a position, compiled as the plan compiles it: what
    :mod:`cqllegacy.present.witness` reads to show which member matched."""

    def __init__(self, compiler: Compiler) -> None:
        self.compiler = compiler

    @staticmethod
    def of(node: Filter) -> tuple[Filter, ...] | None:
        """The members of ``node`` when it is an ``or`` or an orbit (one level down, in
        order); None for any other node."""
        if isinstance(node, Or):
            return node.items
        if isinstance(node, Transform) and not node.count:
            try:
                return orbit_members(node)
            except ValueError:
                return None
        return None

    def holds(self, member: Filter, ctx: Context, p: int) -> bool:
        """Whether ``member`` matches at ``p`` (False for a member that cannot be judged
        alone: a piece variable bound outside it, a filter of the wrong kind)."""
        if free_variables(member):
            return False
        try:
            compiled = self.compiler.compile(member)
        except ValueError:
            return False
        value = compiled.fn(ctx, p)
        return value is not None and value is not False and value != 0
