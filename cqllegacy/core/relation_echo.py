"""A legacy ``:relation`` as CQL 6.1 ``echo``, and back (semantics: S-echo, S-relation).

One table for one fact, used both ways. The translator writes a relation with
:func:`echo_of`. The evaluator runs an ``echo`` of that shape with the relation's own
operator, found by :func:`relation_of`: it compares each pair of positions on bitboards
(and in columns on an index) instead of making every other position of the game current
and evaluating the body there.

:func:`relation_of` is exact by construction. It reads a relation off the body and keeps
it only when :func:`echo_of` gives the same ``echo`` back, node for node (the names of
the two variables aside). So it admits exactly the texts the translator writes for
untransformed relations, however the body was found.

>>> relation = Relation(missing=(ANY_PIECE, 1, None))
>>> echo = echo_of(relation)
>>> found = relation_of(echo)
>>> found.missing[1:], echo_of(found) == echo
((1, None), True)
>>> relation_of(echo.replace(in_all=True)) is None
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from cqllegacy.core.tree import (
    Ancestor,
    AtPosition,
    Compare,
    CompareOp,
    Complement,
    Compound,
    Count,
    Echo,
    Filter,
    InRange,
    Intersection,
    Keyword,
    Not,
    PieceSet,
    PositionIntersection,
    PositionVariable,
    Relation,
    RelationScope,
    RelationSideToMove,
    SideToMove,
    Simple,
    Transform,
    TransformKind,
)
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, EMPTY_BIT, TypeSet
from cqllegacy.vocab.squares import FULL, SquareSet

__all__ = [
    "SOURCE",
    "TARGET",
    "Pattern",
    "echo_of",
    "is_pattern_piece",
    "pattern_designators",
    "relation_of",
    "transformed_board",
    "transformed_relation_of",
    "untransformed_board",
]

#: The names the translator gives the two positions.
SOURCE, TARGET = "source", "target"

_SOURCE = PositionVariable(SOURCE)
_TARGET = PositionVariable(TARGET)
_SAME_SQUARES = PositionIntersection(_SOURCE, _TARGET)
_OCCUPIED = PieceSet(ANY_PIECE)
_EMPTY = PieceSet(EMPTY_BIT)
_TRUE = Simple(Keyword.TRUE)
_FALSE = Simple(Keyword.FALSE)

Bounds = tuple[int, int | None]
#: The piece type on each square of a relation's ``:pattern``, in the list's order.
Pattern = dict[int, TypeSet]


def echo_of(relation: Relation, board: Sequence[Filter] | None = None) -> Filter:
    """The ``echo`` that means ``relation`` at a position whose later positions it
    compares (the translator checks first that the rendering is exact there).

    ``board`` compares P2's board with P1's; by default the untransformed comparison
    (:func:`untransformed_board`). A relation that can never hold gives ``false``.
    """
    body: list[Filter] = [Ancestor(_SOURCE, _TARGET)]
    if relation.scope is RelationScope.MAINLINE:
        body.append(Simple(Keyword.MAINLINE))
    elif relation.scope is RelationScope.VARIATIONS:
        body.append(Simple(Keyword.VARIATION))
    side = relation.side_to_move
    if side is not RelationSideToMove.IGNORE:
        op = CompareOp.EQ if side is RelationSideToMove.SAME else CompareOp.NE
        body.append(Compare(op, SideToMove(), _at_source(SideToMove())))
    allowed = _allowed(relation.allowable)
    if relation.original_different is not None:
        different = Count(_meet(Complement(_SAME_SQUARES), *allowed))
        body.append(_count_in(different, relation.original_different))
    if relation.original_same is not None:
        same = Count(_meet(_SAME_SQUARES, _OCCUPIED, *allowed))
        body.append(_count_in(same, relation.original_same))
    body += untransformed_board(relation) if board is None else board
    body = [b for b in body if b != _TRUE]
    if _FALSE in body:
        return _FALSE
    return Echo(SOURCE, TARGET, Compound(tuple(body)))


def untransformed_board(relation: Relation) -> list[Filter]:
    """P2 as it stands against P1 on the allowable squares: no square with another piece,
    missing and new pieces counted (``true`` or ``false`` where a count decides alone)."""
    allowed = _allowed(relation.allowable)
    missing_types, missing_lo, missing_hi = relation.missing
    new_types, new_lo, new_hi = relation.new
    missing_types &= ANY_PIECE
    new_types &= ANY_PIECE
    missing_bounds: Bounds = (missing_lo, missing_hi)
    new_bounds: Bounds = (new_lo, new_hi)
    everything = missing_types == ANY_PIECE and new_types == ANY_PIECE
    if everything and missing_bounds == (0, 0) and new_bounds == (0, 0):
        # No piece differs, none is missing, none is new: the squares are the same.
        return [Not(_meet(Complement(_SAME_SQUARES), *allowed))]
    out: list[Filter] = [Not(_conflict(allowed))]
    for types, bounds, counted in (
        (missing_types, missing_bounds, _missing),
        (new_types, new_bounds, _new),
    ):
        if types == 0:
            out.append(_TRUE if bounds[0] <= 0 else _FALSE)
        else:
            out.append(_count_in(Count(counted(types, allowed)), bounds))
    return out


@functools.lru_cache(maxsize=256)
def relation_of(echo: Filter) -> Relation | None:
    """The untransformed relation whose :func:`echo_of` is ``echo`` (its two variables
    named anything), or None for any other filter.  Remembered: the lowering and the
    array forms both ask."""
    body = _body(echo)
    if body is None:
        return None
    guess = _guess(body.items)
    if guess is None or echo_of(guess) != Echo(SOURCE, TARGET, body):
        return None
    return guess


def transformed_relation_of(echo: Filter) -> tuple[Relation, Pattern] | None:
    """The shifted or turned relation and the pattern whose ``echo`` (:func:`echo_of`
    with :func:`transformed_board`) is ``echo``, or None for any other filter.

    The two mean the same only where P1 holds the pattern (the translator writes the
    ``echo`` beside the pattern's designators).  Of the relations with that ``echo``,
    the one whose missing and new counts are the defaults: where P1 holds the pattern,
    every allowable square holds a piece, so no other count says anything else.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> relation = Relation(allowable=1 << 6, shift=True, original_same=(0, 0))
    >>> pattern = {6: types_of("K")}
    >>> echo = echo_of(relation, [transformed_board(relation, pattern)])
    >>> transformed_relation_of(echo) == (relation, pattern)
    True
    """
    body = _body(echo)
    if body is None:
        return None
    read = _transformed_pattern(body.items[-1])
    if read is None:
        return None
    pattern, shift, flip = read
    allowable = sum(1 << square for square in pattern)
    # The rest of the body is read as an untransformed relation's with the default
    # counts; its board comparison stands in for the transformed one.
    untransformed = untransformed_board(Relation(allowable=allowable))
    guess = _guess((*body.items[:-1], *untransformed))
    if guess is None:
        return None
    guess = guess.replace(allowable=allowable, shift=shift, flip=flip)
    if echo_of(guess, [transformed_board(guess, pattern)]) != Echo(SOURCE, TARGET, body):
        return None
    return guess, pattern


def _body(echo: Filter) -> Compound | None:
    """The body of an ``echo`` with its variables named as :func:`echo_of` names them;
    None for another filter."""
    if not isinstance(echo, Echo) or echo.in_all or not isinstance(echo.body, Compound):
        return None
    if echo.source == echo.target:
        return None
    if (echo.source, echo.target) != (SOURCE, TARGET):
        return _renamed(echo.body, {echo.source: SOURCE, echo.target: TARGET})
    return echo.body


def _transformed_pattern(board: Filter) -> tuple[Pattern, bool, bool] | None:
    """The pattern of :func:`transformed_board` and whether it shifts and turns."""
    flip = isinstance(board, Transform) and board.kind is TransformKind.FLIP
    if flip:
        assert isinstance(board, Transform)
        board = board.arg
    shift = isinstance(board, Transform) and board.kind is TransformKind.SHIFT
    if shift:
        assert isinstance(board, Transform)
        board = board.arg
    if not (shift or flip) or not isinstance(board, Compound):
        return None
    pattern: Pattern = {}
    for item in board.items:
        if not isinstance(item, PieceSet) or not is_pattern_piece(item.types, item.squares):
            return None
        pattern[item.squares.bit_length() - 1] = item.types
    return pattern, shift, flip


def is_pattern_piece(types: TypeSet, squares: SquareSet) -> bool:
    """Whether a designator can stand in the pattern of a shifted or turned relation: one
    kind of piece (one colour, one type) on one square, so that P1's content there is
    known (``[KQ]g1`` would let P2 hold a queen where P1 has a king)."""
    return squares.bit_count() == 1 and types in _KINDS


#: The type set of each single kind of piece (one colour, one type).
_KINDS = frozenset(1 << i for i in range(12))


def pattern_designators(pattern: Pattern) -> Filter:
    """The designators of ``pattern``, in its order: what P1 holds where a shifted or
    turned relation's ``echo`` says the relation."""
    return Compound(tuple(PieceSet(types, 1 << square) for square, types in pattern.items()))


def transformed_board(relation: Relation, pattern: Pattern) -> Filter:
    """Some map of the relation's ``:shift``/``:flip`` moves P2 onto P1's ``pattern`` (one
    piece type a square, in the list's order), or ``false`` when a count asks for a
    missing or a new piece (every pattern square keeps its piece).  Exact where P1 holds
    the pattern and no pattern piece may go missing (the translator checks)."""
    if relation.missing[1] > 0 or relation.new[1] > 0:
        return _FALSE
    # In the order of the list's designators: a transform of the list moves each one in
    # place, so the transformed lists' patterns stay alike and a modern transform of the
    # whole list can be proved to mean the same (translator.orbits.choose_compact).
    result = pattern_designators(pattern)
    if relation.shift:
        result = Transform(TransformKind.SHIFT, result)
    if relation.flip:
        result = Transform(TransformKind.FLIP, result)
    return result


# --------------------------------------------------------------------------------------
# The parts of the body
# --------------------------------------------------------------------------------------


def _at_source(f: Filter) -> Filter:
    return AtPosition(_SOURCE, f)


def _meet(*items: Filter) -> Filter:
    return items[0] if len(items) == 1 else Intersection(items)


def _allowed(allowable: int) -> list[Filter]:
    return [] if allowable == FULL else [PieceSet(ANYTHING, allowable)]


def _conflict(allowed: list[Filter]) -> Filter:
    """The allowable squares where both positions hold a piece, not the same one."""
    return _meet(Complement(_SAME_SQUARES), _OCCUPIED, _at_source(_OCCUPIED), *allowed)


def _missing(types: TypeSet, allowed: list[Filter]) -> Filter:
    """The allowable squares that held a piece of ``types`` in P1 and are empty in P2."""
    return _meet(_at_source(PieceSet(types)), _EMPTY, *allowed)


def _new(types: TypeSet, allowed: list[Filter]) -> Filter:
    """The allowable squares that hold a piece of ``types`` in P2 and were empty in P1."""
    return _meet(PieceSet(types), _at_source(_EMPTY), *allowed)


def _count_in(value: Count, bounds: Bounds) -> Filter:
    lo, hi = bounds
    if hi == 0 and lo <= 0:
        # "none": the set is empty (a count of 0 would read the same, less directly).
        return Not(value.arg)
    if lo <= 0 and hi is None:
        return _TRUE
    return InRange(value, lo if lo > 0 else None, hi)


def _counted(part: Filter) -> tuple[Filter, Bounds] | None:
    """The set a count conjunct counts and its bounds, read back from :func:`_count_in`."""
    if isinstance(part, Not):
        return part.arg, (0, 0)
    if not isinstance(part, InRange) or not isinstance(part.value, Count):
        return None
    lo, hi = part.lo, part.hi
    if isinstance(lo, int | None) and isinstance(hi, int | None):
        return part.value.arg, (lo or 0, hi)
    return None


# --------------------------------------------------------------------------------------
# Reading a relation off a body (checked afterwards by echo_of)
# --------------------------------------------------------------------------------------


def _renamed(body: Compound, names: dict[str, str]) -> Compound | None:
    """``body`` with its position variables renamed; None where another ``echo`` inside
    binds names of its own."""
    if any(isinstance(node, Echo) for node in body.walk()):
        return None

    def rename(node: Filter) -> Filter:
        if isinstance(node, PositionVariable) and node.name in names:
            return PositionVariable(names[node.name])
        return node

    renamed = body.transform(rename)
    return renamed if isinstance(renamed, Compound) else None


def _guess(items: tuple[Filter, ...]) -> Relation | None:
    """The relation the conjuncts ``items`` seem to say, by the order :func:`echo_of`
    writes them in; only a guess (:func:`relation_of` checks it)."""
    parts = list(items)
    if parts[:1] != [Ancestor(_SOURCE, _TARGET)]:
        return None
    parts = parts[1:]
    scope = RelationScope.ALL  # no keyword: every later position examined
    if parts and isinstance(parts[0], Simple) and parts[0] in _SCOPES:
        scope = _SCOPES[parts.pop(0)]
    side = RelationSideToMove.IGNORE
    first = parts[0] if parts else None
    if isinstance(first, Compare) and first.left == SideToMove():
        parts.pop(0)
        same = first.op is CompareOp.EQ
        side = RelationSideToMove.SAME if same else RelationSideToMove.CHANGE
    fields: dict[str, object] = {"side_to_move": side, "scope": scope}
    fields["allowable"] = allowable = _allowable_in(parts)
    allowed = _allowed(allowable)
    board = _board_guess(parts, allowed, fields)
    if board is None:
        return None
    originals = parts[:board]
    for part in originals:
        found = _counted(part)
        if found is None:
            return None
        counted, bounds = found
        if counted == _meet(Complement(_SAME_SQUARES), *allowed):
            fields["original_different"] = bounds
        elif counted == _meet(_SAME_SQUARES, _OCCUPIED, *allowed):
            fields["original_same"] = bounds
        else:
            return None
    return Relation().replace(**fields)


def _board_guess(
    parts: list[Filter], allowed: list[Filter], fields: dict[str, object]
) -> int | None:
    """Where the untransformed comparison of the boards begins among ``parts`` (the
    original counts stand before it), its counts put in ``fields``; None when it is not
    there."""
    conflict = Not(_conflict(allowed))
    if conflict in parts:
        at = parts.index(conflict)
        rest = parts[at + 1 :]
        fields["missing"] = _piece_count(rest, _missing, allowed)
        fields["new"] = _piece_count(rest, _new, allowed)
        return at
    if parts and parts[-1] == Not(_meet(Complement(_SAME_SQUARES), *allowed)):
        return len(parts) - 1
    return None


#: The keyword of a scope that :func:`echo_of` writes one for.
_SCOPES: dict[Filter, RelationScope] = {
    Simple(Keyword.MAINLINE): RelationScope.MAINLINE,
    Simple(Keyword.VARIATION): RelationScope.VARIATIONS,
}


def _allowable_in(parts: list[Filter]) -> int:
    """The squares of the first ``[Aa_]`` designator limited to some squares, or every
    square (the relation's ``allowable``, as :func:`_allowed` writes it)."""
    for part in parts:
        for node in part.walk():
            if isinstance(node, PieceSet) and node.types == ANYTHING and node.squares != FULL:
                return node.squares
    return FULL


def _piece_count(
    parts: list[Filter], count: Callable[[TypeSet, list[Filter]], Filter], allowed: list[Filter]
) -> tuple[TypeSet, int, int | None]:
    """The count ``count`` makes (:func:`_missing` or :func:`_new`) among ``parts``: its
    types and bounds. None found reads as no bound at all (a count that said nothing was
    left out)."""
    for part in parts:
        found = _counted(part)
        if found is None or not isinstance(found[0], Intersection):
            continue
        # The types stand in the first item: a piece set, P1's (missing) or P2's (new).
        first = found[0].items[0]
        designator = first.arg if isinstance(first, AtPosition) else first
        if isinstance(designator, PieceSet) and found[0] == count(designator.types, allowed):
            return (designator.types, *found[1])
    return (ANYTHING, 0, None)
