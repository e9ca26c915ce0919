"""The lowering step: the one place where the evaluator recognises the patterns it runs
faster than their reference rules, each recognised once, each turned into a physical
operator of :mod:`~cqllegacy.evaluator.operators`.

One module per family of patterns; :data:`RULES`, the one list below, files each node
class with its lowering.  :data:`LOWERING` is that list as a
:class:`~cqllegacy.core.dispatch.Dispatcher`: the
:class:`~cqllegacy.evaluator.compiler.Compiler` asks it first and falls back to the
reference rule when the entry gives None (the node is not of a recognised pattern).  A
node class without an entry is compiled by its reference rule, always: those classes,
:data:`REFERENCE_RULE`, are every core node class (``core.tree.node_classes``) without a
lowering, and :data:`LOWERING` declares them absent, so a lookup of any other class fails
loudly.

Patterns recognised, by module:

=================  ===============================  =======================================
module             pattern                          operator
=================  ===============================  =======================================
``shapes``         the shapes the others read:      (none: recognition only)
                   disjunction members, a line's
                   steps, what a move demands, the
                   square a piece variable must
                   stand on
``atoms``          piece designators, ``not X``,    atoms (:class:`~cqllegacy.evaluator.
                   conjunctions                     operators.atoms.Atom`) checked in one
                                                    generated function
``counts``         ``#X`` in a range, ``#(L         atoms; attack counts (leaper tables,
                   attacks R)`` of piece            the safe king) and their sums over
                   designators and sums of them,    single squares, on the board alone;
                   ``L attacks R``, ``attackedby``  attacks counted from the smaller side
``disjunctions``   orbits of ``Transform``, ``or``, a keyed index: members filed under a
                   ``|``; orbits that place a       rare piece and its square, the square
                   piece variable (``$r[g2]         the bound piece must stand on
                   :shift``) or move to a square    (``shapes.variable_key``) or the
                   (``:moveto .d4 :shift``);        squares the next move must reach;
                   disjunctions that follow pieces  tried only where a necessity that names
                                                    no variable holds
``lines``          ``move`` with square             squares checked before anything else;
                   designators, ``line`` of single  lines walked; an OR of such lines
                   steps                            (``line_members``) a trie followed
                                                    along a read game (:mod:`~cqllegacy.
                                                    evaluator.line_automaton`)
``necessity``      what a filter that follows       relaxed necessities: a tag's colours,
                   pieces needs, with no variable   what ``x & S`` beside it says
``holders``        filters that read one piece      read for every square of the piece at
                   variable at its own position     once (``variable_holders``): a binding
                   (``x & S``, ``#(x attacks R)``,  reads the bit of its piece's square
                   ``move from x``, their ``and``,
                   ``or``, ``not``, orbits)
``find``           ``find X`` where X follows       the positions where a binding-free
                   pieces                           necessity of X holds listed once for
                                                    every binding; ``find all X`` counted
                                                    there; a bound piece's own moves
``relation``       legacy ``:relation``, the        :class:`~cqllegacy.evaluator.operators.
                   ``echo`` written for one         relation.RelationOperator`
``gates``          a list that follows pieces; a    per game, the positions where some
                   snapshot stream's lists          binding may match (``list_sieve``);
                                                    the gates and horizon of a snapshot
``plan``           the whole query                  :func:`lower_query`: the compiled lists
                                                    and the driver
=================  ===============================  =======================================

A lowered node whose truth the board alone decides carries it as ``Compiled.board``: the
live stream calls that function on python-chess's own board, the game tree on
``ctx.boards[p]``; the same operator either way.

>>> from cqllegacy.evaluator.evaluate import evaluate_filter
>>> from cqllegacy.evaluator.testing import pd, position
>>> from cqllegacy.vocab.squares import format_squares
>>> from cqllegacy.core.tree import Compound, Transform, TransformKind
>>> check = Transform(TransformKind.SHIFT, Compound((pd("Nd4"), pd("kf3"))))
>>> board = position("8/8/8/8/8/N7/2k5/4K3 w - - 0 1")
>>> [format_squares(evaluate_filter(check, board, optimize=o)) for o in (True, False)]
['c2', 'c2']
"""

from __future__ import annotations

from collections.abc import Callable

from cqllegacy.core import tree as ct
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import (
    And,
    Arith,
    AttackedBy,
    Attacks,
    Compound,
    Count,
    Echo,
    Filter,
    Find,
    InRange,
    Line,
    Move,
    Not,
    Or,
    PieceSet,
    Relation,
    Simple,
    Transform,
    Union,
)
from cqllegacy.evaluator.compiler import Compiled, Lowering
from cqllegacy.evaluator.lowering.atoms import (
    exact_atoms,
    lower_and,
    lower_compound,
    lower_not,
    lower_piece_set,
    lower_simple,
    necessary_atoms,
)
from cqllegacy.evaluator.lowering.counts import (
    counted_members,
    lower_arith,
    lower_attacked_by,
    lower_attacks,
    lower_count,
    lower_in_range,
)
from cqllegacy.evaluator.lowering.disjunctions import lower_or, lower_transform, lower_union
from cqllegacy.evaluator.lowering.find import lower_find
from cqllegacy.evaluator.lowering.gates import gate, horizon, list_sieve
from cqllegacy.evaluator.lowering.holders import variable_holders
from cqllegacy.evaluator.lowering.lines import line_members, line_trie, lower_line, lower_move
from cqllegacy.evaluator.lowering.necessity import (
    TAG_BOUNDS,
    common_bound,
    relaxed_necessity,
    tag_bounds,
)
from cqllegacy.evaluator.lowering.plan import LocalSteps, lower_query
from cqllegacy.evaluator.lowering.relation import lower_echo, lower_relation
from cqllegacy.evaluator.lowering.shapes import (
    LineMember,
    bare_move_from,
    disjunction_members,
    fading_conjuncts,
    move_demand,
    only_variable,
    single_steps,
    step_here,
    variable_key,
)

__all__ = [
    "LOWERING",
    "REFERENCE_RULE",
    "RULES",
    "TAG_BOUNDS",
    "LineMember",
    "LocalSteps",
    "bare_move_from",
    "common_bound",
    "counted_members",
    "disjunction_members",
    "exact_atoms",
    "fading_conjuncts",
    "gate",
    "horizon",
    "line_members",
    "line_trie",
    "list_sieve",
    "lower_query",
    "move_demand",
    "necessary_atoms",
    "only_variable",
    "relaxed_necessity",
    "single_steps",
    "step_here",
    "tag_bounds",
    "variable_holders",
    "variable_key",
]

#: Every lowering, filed under the node class it lowers: the one list of the patterns (each
#: lowering takes nodes of its own class only, so its type names that class).
RULES: tuple[tuple[type[Filter], Callable[..., Compiled | None]], ...] = (
    (PieceSet, lower_piece_set),
    (Count, lower_count),
    (InRange, lower_in_range),
    (Not, lower_not),
    (Attacks, lower_attacks),
    (AttackedBy, lower_attacked_by),
    (Arith, lower_arith),
    (Compound, lower_compound),
    (And, lower_and),
    (Or, lower_or),
    (Union, lower_union),
    (Transform, lower_transform),
    (Move, lower_move),
    (Line, lower_line),
    (Relation, lower_relation),
    (Echo, lower_echo),
    (Find, lower_find),
    (Simple, lower_simple),
)

#: The lowering of each node class that has one; every other core node class is declared
#: absent (it runs by its reference rule), so that a lookup of a class nobody thought
#: about fails loudly.
LOWERING: Dispatcher[Lowering] = Dispatcher("lowerings")
for _cls, _lowering in RULES:
    # Filed by exact class, each lowering is handed nodes of its own class only.
    LOWERING.register(_cls)(_lowering)

#: The node classes always compiled by their reference rule: every core class without a
#: lowering (no pattern of theirs runs faster, or none is written yet), derived.
REFERENCE_RULE: frozenset[type[Filter]] = frozenset(
    cls for cls in ct.node_classes() if cls not in LOWERING
)
LOWERING.absent(*REFERENCE_RULE, reason="it runs by its reference rule")
