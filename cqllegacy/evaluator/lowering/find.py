"""``find X`` where X follows pieces: tried only at the positions where a necessity of
X that reads no binding holds, listed once for every binding; for a bound piece, from
the positions where it makes X hold, or from its own moves."""

from __future__ import annotations

from cqllegacy.core.tree import Filter, Find, Intersection, Move, PieceSet, PieceVariable
from cqllegacy.evaluator import operators as op
from cqllegacy.evaluator.compiler import Compiled, Compiler, Kind, TruthFn, as_logical, as_number
from cqllegacy.evaluator.lowering.atoms import binding_free_necessity
from cqllegacy.evaluator.lowering.holders import moving_variable, variable_holders
from cqllegacy.evaluator.lowering.lines import squares_of
from cqllegacy.evaluator.lowering.necessity import compiled_tag_bounds, relaxed_necessity
from cqllegacy.evaluator.lowering.shapes import move_destination, only_variable
from cqllegacy.evaluator.trees import free_variables, meaningful
from cqllegacy.vocab.pieces import ANYTHING
from cqllegacy.vocab.squares import FULL

__all__ = ["lower_find"]


def lower_find(c: Compiler, node: Find) -> Compiled | None:
    """``find X`` where X follows pieces: the positions where a binding-free necessity of
    X holds are found once for every binding, and X is tried there only; ``find all X``
    counted there only."""
    if not free_variables(node.arg):
        return None
    # The coarser necessity that names no variable's squares is shared by more finds (an
    # orbit of finds lists a few dozen necessities per game instead of thousands).
    necessity = binding_free_necessity(node.arg)
    if necessity is None or necessity == _BARE_MOVE:
        necessity = relaxed_necessity(node.arg, compiled_tag_bounds(c))
    if necessity is None:
        return None
    # Finds with one necessity (the orbit of a list of finds has many) list it once.
    shared = c.extras.setdefault(("find necessity", necessity), object())
    reached = move_destination(necessity)
    c.compile(node.arg)  # refused, when it is, as its reference rule refuses it
    name = only_variable(node.arg)
    moving = None if name is None or node.all else _piece_move(c, node.arg, name)
    if moving is not None:
        # The bound piece's own moves: a few per game, listed once for every piece.
        return as_logical(moving)
    holders = None if name is None else variable_holders(c, node.arg, name)
    if name is not None and holders is not None:
        # X reads one piece at its own position: where it holds is found once per piece.
        truth_of_necessity = c.truth(necessity)
        if node.all:
            return as_number(op.count_bound(name, holders, truth_of_necessity, shared, reached))
        return as_logical(op.find_bound(name, holders, truth_of_necessity, shared, reached))
    if node.all:
        return as_number(op.count_among(c.truth(necessity), c.truth(node.arg), shared, reached))
    found = op.find_among(c.truth(necessity), c.truth(node.arg), shared, reached)
    return Compiled(Kind.LOGICAL, found)


_BARE_MOVE = Move()


def _piece_move(c: Compiler, node: Filter, name: str) -> TruthFn | None:
    """``find {move from X …}`` as :func:`operators.find_moving` finds it, when X is the
    variable's square or nothing and the rest of the move reads no variable (None
    otherwise)."""
    parts = meaningful(node.conjuncts())
    if len(parts) != 1 or not isinstance(move := parts[0], Move) or move.previous:
        return None
    split = moving_variable(c, move, name)
    if split is None:
        return None
    unit, rest = split
    assert move.from_ is not None  # (moving_variable asks for it)
    fixed = _fixed_squares(move.from_, name)
    return op.find_moving(name, fixed or unit, rest.matches, squares_of(move.to))


def _fixed_squares(node: Filter, name: str) -> int | None:
    """The squares where ``x & S…`` (S: designators of any content) is the square of the
    piece variable ``x`` itself: the same at every position.  None for another form."""
    if isinstance(node, PieceVariable) and node.name == name:
        return FULL
    if not isinstance(node, Intersection):
        return None
    squares = FULL
    for item in meaningful(node.items):
        if isinstance(item, PieceSet) and item.types == ANYTHING:
            squares &= item.squares
        elif not (isinstance(item, PieceVariable) and item.name == name):
            return None
    return squares
