"""Legacy ``:relation``: the reference rule's comparison run by
:class:`~cqllegacy.evaluator.operators.relation.RelationOperator`."""

from __future__ import annotations

from cqllegacy.core.tree import Relation, RelationScope, RelationSideToMove
from cqllegacy.evaluator.compiler import Compiled, Compiler, Kind
from cqllegacy.evaluator.operators.relation import RelationParameters, relation
from cqllegacy.vocab.squares import Dihedral

__all__ = ["lower_relation"]


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
