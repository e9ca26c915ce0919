"""Legacy ``:relation`` → CQL 6.1 ``echo`` (semantics: S-relation, S-echo, decision L18).

``run`` evaluates a relation with its own fast rule (:class:`~cqllegacy.core.tree.Relation`);
``translate`` writes the same meaning with ``echo``:

``echo (source target) {LATER SIDE COUNTS BOARD}`` at the position P1 the list examines, the
body being evaluated at each other position P2 (the target, current there):

- LATER: ``ancestor(source target)`` (P2 follows P1 on a line through it) and, for the
  default main-line relation, ``mainline``; for ``:variationsonly``, ``variation``.  With a
  relation that looks into variations the script gets the ``variations`` header, and its
  main-line lists a ``mainline`` constituent.
- SIDE: ``sidetomove == source:sidetomove`` (or ``!=``, or nothing for ``:ignoresidetomove``).
- COUNTS: ``#(~(source & target) & ALLOWED)`` (original different) and
  ``#((source & target) & [Aa] & ALLOWED)`` (original same), P2 untransformed.
- BOARD, without ``:shift``/``:flip``: no allowable square holds a different piece in P2
  (``not (~(source & target) & [Aa] & source:[Aa] & ALLOWED)``), missing pieces
  ``#(source:TYPES & _ & ALLOWED)`` and new pieces ``#(TYPES & source:_ & ALLOWED)`` in
  their ranges; with the defaults (no missing, no new piece) the three say together
  ``not (~(source & target) & ALLOWED)``: the allowable squares are the same in both.
- BOARD, with the relation's ``:shift``/``:flip``: P2 moved by one of the maps holds P1's
  content on the allowable squares.  Exact as ``flip shift {Ke6 be7 …}`` when ``:pattern``
  names one piece on each allowable square (so P1's content there is known), no such piece
  may go missing and none may appear: a map that pushes a square off the board then fails
  in both languages.  Other transformed comparisons are refused (see :func:`relation_echo`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cqllegacy.translator.errors import translation_error

from cqllegacy.core import tree as core
from cqllegacy.legacy import tree as lt
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, EMPTY_BIT, TypeSet
from cqllegacy.vocab.squares import FULL, iter_squares, popcount

__all__ = ["SOURCE", "TARGET", "relation_echo"]

SOURCE, TARGET = "source", "target"

_SOURCE = core.PositionVariable(SOURCE)
_TARGET = core.PositionVariable(TARGET)
_SAME_SQUARES = core.PositionIntersection(_SOURCE, _TARGET)
_OCCUPIED = core.PieceSet(ANY_PIECE)
_EMPTY = core.PieceSet(EMPTY_BIT)
_FALSE = core.Simple(core.Keyword.FALSE)


def _at_source(f: core.Filter) -> core.Filter:
    return core.AtPosition(_SOURCE, f)


def _meet(*items: core.Filter) -> core.Filter:
    return items[0] if len(items) == 1 else core.Intersection(items)


def _count_in(value: core.Filter, bounds: tuple[int, int | None]) -> core.Filter:
    lo, hi = bounds
    if hi == 0 and lo <= 0:
        # "none": the set is empty (a count of 0 would read the same, less directly).
        assert isinstance(value, core.Count)
        return core.Not(value.arg)
    if lo <= 0 and hi is None:
        return core.Simple(core.Keyword.TRUE)
    return core.InRange(value, lo if lo > 0 else None, hi)


def relation_echo(
    relation: core.Relation,
    designators: Sequence[lt.Designator],
    *,
    sources_on_mainline: bool,
    path: str | None,
) -> core.Filter:
    """The ``echo`` filter that means ``relation`` at the current position.

    ``designators`` are the designators standing directly in the relation's list (the
    ``:pattern``); ``sources_on_mainline`` says that the list examines main-line
    positions only.  Raises :class:`~translator.errors.TranslationError` where the
    rendering would not be exact, saying why.
    """
    origin = relation.origin
    where = origin.span if origin is not None else None

    def refuse(reason: str) -> Exception:
        assert where is not None
        message = f":relation has no exact CQL 6.1 form here: {reason}"
        return translation_error(message, where, path=path)

    body: list[core.Filter] = [core.Ancestor(_SOURCE, _TARGET)]
    if relation.scope is not core.RelationScope.ALL and not sources_on_mainline:
        raise refuse(
            "its later positions are those of the line a position inside a variation continues, "
            "and CQL 6.1 mainline/variation name the game's main line, not that line"
        )
    if relation.scope is core.RelationScope.MAINLINE:
        body.append(core.Simple(core.Keyword.MAINLINE))
    elif relation.scope is core.RelationScope.VARIATIONS:
        body.append(core.Simple(core.Keyword.VARIATION))
    side = relation.side_to_move
    if side is not core.RelationSideToMove.IGNORE:
        op = core.CompareOp.EQ if side is core.RelationSideToMove.SAME else core.CompareOp.NE
        body.append(core.Compare(op, core.SideToMove(), _at_source(core.SideToMove())))
    allowed: list[core.Filter] = []
    if relation.allowable != FULL:
        allowed.append(core.PieceSet(ANYTHING, relation.allowable))
    if relation.original_different is not None:
        different = core.Count(_meet(core.Complement(_SAME_SQUARES), *allowed))
        body.append(_count_in(different, relation.original_different))
    if relation.original_same is not None:
        same = core.Count(_meet(_SAME_SQUARES, _OCCUPIED, *allowed))
        body.append(_count_in(same, relation.original_same))
    if relation.shift or relation.flip:
        body.append(_transformed_board(relation, designators, refuse))
    else:
        body += _board(relation, allowed)
    body = [b for b in body if b != core.Simple(core.Keyword.TRUE)]
    if _FALSE in body:
        return _FALSE
    return core.Echo(SOURCE, TARGET, core.Compound(tuple(body)))


def _board(relation: core.Relation, allowed: list[core.Filter]) -> list[core.Filter]:
    """P2 as it stands against P1 on the allowable squares: no square with another piece,
    missing and new pieces counted."""
    missing_types, missing_lo, missing_hi = relation.missing
    new_types, new_lo, new_hi = relation.new
    missing_types &= ANY_PIECE
    new_types &= ANY_PIECE
    missing_bounds: tuple[int, int | None] = (missing_lo, missing_hi)
    new_bounds: tuple[int, int | None] = (new_lo, new_hi)
    everything = missing_types == ANY_PIECE and new_types == ANY_PIECE
    if everything and missing_bounds == (0, 0) and new_bounds == (0, 0):
        # No piece differs, none is missing, none is new: the squares are the same.
        return [core.Not(_meet(core.Complement(_SAME_SQUARES), *allowed))]
    conflict = _meet(core.Complement(_SAME_SQUARES), _OCCUPIED, _at_source(_OCCUPIED), *allowed)
    out: list[core.Filter] = [core.Not(conflict)]
    Count = tuple[TypeSet, tuple[int, int | None], core.Filter | None, core.Filter | None]
    counts: tuple[Count, ...] = (
        (missing_types, missing_bounds, _EMPTY, None),
        (new_types, new_bounds, None, _EMPTY),
    )
    for types, bounds, here, there in counts:
        lo, hi = bounds
        if types == 0:
            out.append(core.Simple(core.Keyword.TRUE if lo <= 0 else core.Keyword.FALSE))
            continue
        kinds = core.PieceSet(types)
        if here is not None:
            counted = _meet(_at_source(kinds), here, *allowed)
        else:
            assert there is not None
            counted = _meet(kinds, _at_source(there), *allowed)
        out.append(_count_in(core.Count(counted), (lo, hi)))
    return out


_KINDS = tuple(1 << i for i in range(12))


def _transformed_board(
    relation: core.Relation,
    designators: Sequence[lt.Designator],
    refuse: Callable[[str], Exception],
) -> core.Filter:
    """Some map of the relation's ``:shift``/``:flip`` moves P2 onto P1's pattern."""
    if relation.allowable == FULL:
        raise refuse(
            "without :pattern, a shifted or flipped comparison of the whole board needs P1's "
            "content on every square, which only a comparison of each square with each piece "
            "type at both positions could say (thousands of terms)"
        )
    pattern: dict[int, TypeSet] = {}
    for d in designators:
        if d.tag is None and popcount(d.squares) == 1 and d.types in _KINDS:
            pattern[next(iter(iter_squares(d.squares)))] = d.types
    covered = 0
    for square in pattern:
        covered |= 1 << square
    if covered != relation.allowable:
        raise refuse(
            "with :shift or :flip the later position must hold the pattern's content, and the "
            "pattern does not name one piece on each of its squares, so that content is unknown"
        )
    missing_types, missing_lo, missing_hi = relation.missing
    new_lo = relation.new[1]
    if missing_hi != 0 or any(not (t & missing_types) for t in pattern.values()):
        raise refuse(
            "a shifted pattern may leave the board, which the legacy relation counts as missing "
            "pieces while a CQL 6.1 shift drops that placement: exact only when no pattern "
            "piece may go missing"
        )
    if missing_lo > 0 or new_lo > 0:
        return _FALSE  # every pattern square keeps its piece: nothing is missing or new
    # In the order of the list's designators: a transform of the list moves each one in
    # place, so the transformed lists' patterns stay alike and a modern transform of the
    # whole list can be proved to mean the same (translator.orbits.choose_compact).
    placed = core.Compound(
        tuple(core.PieceSet(types, 1 << square) for square, types in pattern.items())
    )
    kinds = [core.TransformKind.SHIFT] if relation.shift else []
    if relation.flip:
        kinds.insert(0, core.TransformKind.FLIP)
    result: core.Filter = placed
    for kind in reversed(kinds):
        result = core.Transform(kind, result)
    return result
