"""Legacy ``:relation``: the reference rule's comparison run by
:class:`~cqllegacy.evaluator.operators.relation.RelationOperator`; and the ``echo`` that
the translator writes for a main-line relation, run by the same operator.

Run by its reference rule, such an ``echo`` makes each other position of the game current
and evaluates its body there: 205 s on 3,000 games, where the legacy script it came from
takes 9.7 s (measured: ``benchmarks/queries/relation-missing.cql`` and its translation).
"""

from __future__ import annotations

from cqllegacy.core.relation_echo import relation_of
from cqllegacy.core.tree import Echo, Relation, RelationScope, RelationSideToMove
from cqllegacy.evaluator.compiler import Compiled, Compiler, Context, Kind
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
    """An ``echo`` that says a main-line relation (:func:`~cqllegacy.core.relation_echo.
    relation_of`): at a main-line position, the relation's operator; at a position in a
    variation (whose later main-line positions are none of its descendants, while the
    relation's "later" follows the variation), the reference rule.  None for any other
    ``echo``."""
    relation = relation_of(node)
    if relation is None:
        return None
    main_line = lower_relation(c, relation).fn
    elsewhere = c.reference(node).fn

    def echo(ctx: Context, p: int) -> bool:
        return bool(main_line(ctx, p) if p < ctx.mainline_end else elsewhere(ctx, p))

    return Compiled(Kind.LOGICAL, echo)
