"""Legacy ``:relation``: the reference rule's comparison run by
:class:`~cqllegacy.evaluator.operators.relation.RelationOperator`; and the ``echo`` that
the translator writes for a relation, run by the same operator (a shifted one's where the
position holds its pattern).

Run by its reference rule, such an ``echo`` makes each other position of the game current
and evaluates its body there: 205 s on 3,000 games, where the legacy script it came from
takes 9.7 s (measured: ``benchmarks/queries/relation-missing.cql`` and its translation).
"""

from __future__ import annotations

from collections.abc import Callable

from cqllegacy.core.relation_echo import (
    pattern_designators,
    relation_of,
    transformed_relation_of,
)
from cqllegacy.core.tree import Echo, Relation, RelationScope, RelationSideToMove
from cqllegacy.evaluator.compiler import Compiled, Compiler, Context, Fn, Kind, truth
from cqllegacy.evaluator.operators.relation import RelationParameters, relation
from cqllegacy.vocab.squares import Dihedral

__all__ = ["lower_echo", "lower_relation"]


def lower_relation(c: Compiler, node: Relation) -> Compiled:
    """Every legacy relation: the reference rule's comparison on placements read once per
    position (see :class:`~cqllegacy.evaluator.operators.relation.RelationOperator`)."""
    # The identity first: the original counts compare P2 as it stands.
    turned = [d for d in Dihedral if node.flip and d is not Dihedral.IDENTITY]
    dihedrals = (Dihedral.IDENTITY, *turned)
    side = node.side_to_move
    params = RelationParameters(
        allowable=node.allowable,
        missing=node.missing,
        new=node.new,
        original_different=node.original_different,
        original_same=node.original_same,
        same_side=None if side is RelationSideToMove.IGNORE else side is RelationSideToMove.SAME,
        main_chain=node.scope is not RelationScope.VARIATIONS,
        off_chain=node.scope is not RelationScope.MAINLINE,
        dihedrals=tuple(d.map_set for d in dihedrals),
        shift=node.shift,
    )
    return Compiled(Kind.LOGICAL, relation(params))


def lower_echo(c: Compiler, node: Echo) -> Compiled | None:
    """An ``echo`` that says a relation
    (:func:`~cqllegacy.core.relation_echo.relation_of`), run by the relation's operator;
    None for any other ``echo``.

    The ``echo`` of a shifted relation (``shift {Kg1}`` in its body,
    :func:`~cqllegacy.core.relation_echo.transformed_relation_of`) says the relation only
    where the current position holds the pattern: there the operator answers, elsewhere
    the reference rule.  One that may turn the later position (``flip``) is left to the
    reference rule: its keyed orbit of the pattern is faster than the operator's eight
    turns of every later position (fixture 137 on the 685 World Championship games:
    7.3–8.6 s against 16.8–18.9 s, three runs).
    """
    relation = relation_of(node)
    if relation is not None:
        return Compiled(Kind.LOGICAL, _as_relation(c, relation, c.reference(node).fn))
    found = transformed_relation_of(node)
    if found is None or found[0].flip:
        return None
    relation, pattern = found
    reference = c.reference(node).fn
    related = _as_relation(c, relation, reference)
    holds = truth(c.compile(pattern_designators(pattern)))

    def echo(ctx: Context, p: int) -> bool:
        return related(ctx, p) if holds(ctx, p) else bool(reference(ctx, p))

    return Compiled(Kind.LOGICAL, echo)


def _as_relation(c: Compiler, relation: Relation, reference: Fn) -> Callable[[Context, int], bool]:
    """An ``echo`` that says ``relation``, answered by the relation's operator where it
    can be (``reference``, the echo's own rule, elsewhere).

    The echo's targets are the positions the list examines.  Where that is the main line,
    the relation is its main-line form (one into variations finds no target).  Where it is
    the whole tree, the relation as written, except at a position inside a variation for a
    relation of the main line or of variations: there the relation's "later" follows the
    variation, while the echo's targets (main-line positions, or those in variations)
    descend from it differently, and the reference rule answers."""
    scope = relation.scope
    # Compiled as nodes: a main-line relation's two forms are one operator (one memo of
    # answers), shared with any equal relation of the query.
    as_written = c.compile(relation).fn
    along_main_line = c.compile(relation.replace(scope=RelationScope.MAINLINE)).fn

    def echo(ctx: Context, p: int) -> bool:
        if p >= ctx.mainline_end and scope is not RelationScope.ALL:
            return bool(reference(ctx, p))
        if ctx.next is ctx.children:  # every position examined (the reference rule's test)
            return bool(as_written(ctx, p))
        if p >= ctx.mainline_end:
            return bool(reference(ctx, p))
        return scope is not RelationScope.VARIATIONS and bool(along_main_line(ctx, p))

    return echo
