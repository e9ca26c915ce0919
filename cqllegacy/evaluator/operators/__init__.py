"""Physical operators: how the patterns :mod:`~cqllegacy.evaluator.lowering` recognises are
computed, one implementation each, shared by every driver.

An operator is built from what the lowering found (atoms, piece designators, compiled
children), never from the tree, and gives a function of the board (``BoardCheck``,
:data:`~cqllegacy.evaluator.operators.base.BoardCount`; the live stream calls it on
python-chess's own board, the game tree on ``ctx.boards[p]``) or of the context
(``fn(ctx, p)``) when the board alone does not decide.

One module per family of operators:

* :mod:`~cqllegacy.evaluator.operators.atoms`: atoms and the board checks generated for
  conjunctions, disjunctions and counts of them.
* :mod:`~cqllegacy.evaluator.operators.keyed`: disjunctions whose members are filed under
  a key (a rare piece's square, a piece variable's square, the next move's target).
* :mod:`~cqllegacy.evaluator.operators.attacks`: attacks and attack counts.
* :mod:`~cqllegacy.evaluator.operators.stalemate`: ``stalemate`` decided at once where it
  plainly fails.
* :mod:`~cqllegacy.evaluator.operators.moves`: moves and lines of single steps.
* :mod:`~cqllegacy.evaluator.operators.holders`: a filter read for every binding of a
  piece variable at once.
* :mod:`~cqllegacy.evaluator.operators.find`: ``find`` and ``find all`` over positions
  listed once per game.
* :mod:`~cqllegacy.evaluator.operators.relation`: legacy relations
  (``RelationOperator``), its placements read by
  :mod:`~cqllegacy.evaluator.operators.placements`, its shifts pinned by pieces in
  :mod:`~cqllegacy.evaluator.operators.pinned`.

This package re-exports every family's names, so ``operators.any_member`` reads as before.
"""

from cqllegacy.evaluator.operators.atoms import (
    Atom,
    all_atoms,
    all_of,
    count_conjunctions,
)
from cqllegacy.evaluator.operators.attacks import (
    attack_count,
    attack_count_in_range,
    attack_sum,
    attacked_by,
    attackers_of,
    attacking,
    attacks,
    board_attack_sum,
)
from cqllegacy.evaluator.operators.base import BoardCount, on_board
from cqllegacy.evaluator.operators.find import (
    count_among,
    count_bound,
    find_among,
    find_bound,
    find_moving,
    gated,
)
from cqllegacy.evaluator.operators.holders import (
    EVERYWHERE,
    OFF_BOARD,
    Holders,
    holders_all,
    holders_any,
    holders_attacked,
    holders_attacking,
    holders_count,
    holders_guarded,
    holders_moving,
    holders_not,
    holders_of_truth,
    holders_test,
    holders_within,
    remembered_holders,
    variable_squares,
)
from cqllegacy.evaluator.operators.keyed import (
    ANY_MOVE,
    KEY_COST_LIMIT,
    Member,
    any_member,
    destination_keyed,
    variable_keyed,
)
from cqllegacy.evaluator.operators.moves import next_move, remembered, single_step_line
from cqllegacy.evaluator.operators.relation import RelationOperator, RelationParameters, relation
from cqllegacy.evaluator.operators.stalemate import is_stalemate

__all__ = [
    "ANY_MOVE",
    "EVERYWHERE",
    "KEY_COST_LIMIT",
    "OFF_BOARD",
    "Atom",
    "BoardCount",
    "Holders",
    "Member",
    "RelationOperator",
    "RelationParameters",
    "all_atoms",
    "all_of",
    "any_member",
    "attack_count",
    "attack_count_in_range",
    "attack_sum",
    "attacked_by",
    "attackers_of",
    "attacking",
    "attacks",
    "board_attack_sum",
    "count_among",
    "count_bound",
    "count_conjunctions",
    "destination_keyed",
    "find_among",
    "find_bound",
    "find_moving",
    "gated",
    "holders_all",
    "holders_any",
    "holders_attacked",
    "holders_attacking",
    "holders_count",
    "holders_guarded",
    "holders_moving",
    "holders_not",
    "holders_of_truth",
    "holders_test",
    "holders_within",
    "is_stalemate",
    "next_move",
    "on_board",
    "relation",
    "remembered",
    "remembered_holders",
    "single_step_line",
    "variable_keyed",
    "variable_squares",
]
