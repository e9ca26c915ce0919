"""Array forms: a node's value at every stored position of some games at once.

The reference rules (:mod:`~cqllegacy.evaluator.position_rules`, ``line_rules``) say what
a node means at one position of one game, on a python-chess board.  An index stores the
positions of a file's main lines as columns of bitboards (see
:mod:`cqllegacy.indexing.records`); here each node class has, in :data:`ARRAY_FORMS`, the
same meaning computed over such columns with numpy, for every position at once:

* a set filter gives one ``uint64`` per position (the squares, 0 where it fails);
* a logical filter one ``bool`` per position;
* a numeric filter a :class:`Numbers` (the values, and where there is one).

A node class whose meaning needs more than the position, its move and the moves next to
it (a piece followed through the game, a search along the game, a binding) is declared
*row only* in :data:`ARRAY_FORMS` with its reason; a query holding one is evaluated by its
row form, position by position, where the array part leaves a candidate
(:func:`list_arrays`).  Every answer is exact: tests compare each form with the
reference rule at every position of real and generated games.

>>> import chess
>>> from cqllegacy.evaluator.testing import pd
>>> board, boards = chess.Board(), [chess.Board()]
>>> for san in ("e4", "e5", "Nf3", "Nc6"):
...     _ = board.push_san(san)
...     boards.append(board.copy())
>>> knights = compile_array(pd("N[c3,c6,f3]"))(Positions.of_boards(boards))
>>> knights.tolist() == [0, 0, 0, chess.BB_F3, chess.BB_F3]
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from cqllegacy.core.query import TagDeclaration
from cqllegacy.core.tree import Filter, PieceSet
from cqllegacy.evaluator.arrays import (
    game_forms,
    logic_forms,
    number_forms,
    relation_forms,
    set_forms,
)
from cqllegacy.evaluator.arrays.compiler import (
    ARRAY_FORMS,
    CANDIDATE_FORMS,
    ArrayCompiler,
    Candidates,
    compile_array,
    truth,
)
from cqllegacy.evaluator.arrays.positions import (
    ArrayFn,
    Bools,
    Numbers,
    Positions,
    RowOnly,
    Squares,
    Truth,
    Value,
)
from cqllegacy.evaluator.arrays.relaxed import TOP, hull, relax
from cqllegacy.records import Record

__all__ = [
    "ARRAY_FORMS",
    "CANDIDATE_FORMS",
    "ArrayCompiler",
    "ArrayFn",
    "Bools",
    "Candidates",
    "ListArrays",
    "Numbers",
    "Positions",
    "RowOnly",
    "Squares",
    "Truth",
    "Value",
    "compile_array",
    "list_arrays",
    "truth",
]

#: The modules whose forms fill :data:`ARRAY_FORMS` (imported for that alone).
FORM_MODULES = (set_forms, number_forms, logic_forms, game_forms, relation_forms)

# --------------------------------------------------------------------------------------
# What the array forms give a top-level list
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class ListArrays(Record):
    """What the arrays say of one top-level list's body: ``exact`` its truth at every
    position (None when some part of it is row only), ``necessary`` a test that holds
    wherever the body may (the conjunction of the body's conjuncts that have array forms;
    None when none has), and ``row_only`` the reason of the first part without one."""

    exact: Callable[[Positions], Bools] | None
    necessary: Callable[[Positions], Bools] | None
    row_only: str | None
    #: The fewest matching positions that satisfy the list, and whether a count does.
    least: int = 1
    satisfied: Callable[[int], bool] = attrs.field(default=lambda count: count >= 1, eq=False)
    #: The body holds at the start position only (``analysis.requires_initial``).
    start_only: bool = False
    #: For a query that binds one piece tag: the body's truth under one binding (the
    #: positions :meth:`Positions.bound` to it), or None when a part needs rows.
    bound: Callable[[Positions], Bools] | None = None
    #: The tag ``bound`` binds.
    tag: TagDeclaration | None = None


def list_arrays(body: Filter, *, tags: Sequence[TagDeclaration] = ()) -> ListArrays:
    """The array forms of a list's body (see :class:`ListArrays`); with ``tags`` (the
    query binds piece tags, tried one binding after another) the necessary part alone.

    The necessary part of a body without an exact form is its relaxation
    (:func:`~cqllegacy.evaluator.arrays.relaxed.relax`): the parts with no array form
    dropped where that only widens the match, each piece variable read as its hull."""
    compiler = ArrayCompiler()
    try:
        if tags:
            raise RowOnly("the query binds piece tags: each binding is tried by rows")
        return ListArrays(compiler.truth(body), None, None)
    except RowOnly as whole:
        reason = str(whole)
    return ListArrays(
        None,
        _necessary(body, compiler, tags),
        reason,
        bound=_bound(body, tags),
        tag=tags[0] if tags else None,
    )


def _necessary(
    body: Filter, compiler: ArrayCompiler, tags: Sequence[TagDeclaration]
) -> Callable[[Positions], Bools] | None:
    hulls = {tag.name: hull(PieceSet(tag.types)) for tag in tags}
    relaxed = relax(body, compiler, hulls)
    if relaxed is TOP:
        return None
    try:
        return compiler.truth(relaxed)
    except RowOnly:
        return None


def _bound(body: Filter, tags: Sequence[TagDeclaration]) -> Callable[[Positions], Bools] | None:
    """The body's truth under a binding of the query's one tag (None with none, or two:
    two tags take two different pieces, whose pairs are left to the rows)."""
    if len(tags) != 1:
        return None
    try:
        return ArrayCompiler().truth(body)
    except RowOnly:
        return None
