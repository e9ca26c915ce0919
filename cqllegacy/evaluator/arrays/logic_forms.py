"""Array forms of logic, tags and orbits."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from cqllegacy.core.tree import (
    And,
    Comment,
    Compound,
    DateIn,
    EcoRange,
    Elo,
    Keyword,
    LegacyOnly,
    Not,
    Or,
    PieceSet,
    Player,
    Result,
    RoundNumber,
    Simple,
    TagContains,
    TagSearch,
    TagValueIn,
    Transform,
    TransformKind,
)
from cqllegacy.evaluator.arrays.compiler import (
    ARRAY_FORMS,
    ArrayCompiler,
    Candidates,
    _all_at,
    _any_at,
    _by_game,
    _candidate_form,
    _cheap_first,
    _everywhere,
    _form,
    _numbers,
    _squares,
    _where,
    truth,
)
from cqllegacy.evaluator.arrays.positions import (
    _CHECK,
    _MATE,
    _STALEMATE,
    ArrayFn,
    Bools,
    Numbers,
    Positions,
    Value,
)
from cqllegacy.evaluator.compiler import Kind
from cqllegacy.evaluator.trees import meaningful, orbit_members
from cqllegacy.vocab import bitarrays as ba

# ---- logic ---------------------------------------------------------------------------


@_candidate_form(Compound)
def _compound_at(c: ArrayCompiler, node: Compound) -> Candidates:
    # Where a compound matches: where every item does (its value is the last item's).
    return _all_at([c.truth_at(item) for item in _cheap_first(c, meaningful(node.items))])


@_form(Compound)
def _compound(c: ArrayCompiler, node: Compound) -> ArrayFn:
    items = meaningful(node.items)
    if not items:
        return lambda positions: np.ones(positions.size, np.bool_)
    if node.value_kind() is Kind.LOGICAL:
        return _everywhere(c.truth_at(node))
    *head, tail = items
    guards = [c.truth(item) for item in head]
    last = c.compile(tail)

    def compound(positions: Positions) -> Value:
        holds = np.ones(positions.size, np.bool_)
        for guard in guards:
            holds &= guard(positions)
        return _where(holds, last(positions), positions.size)

    return compound


@_form(And)
def _and(c: ArrayCompiler, node: And) -> ArrayFn:
    return _everywhere(c.truth_at(node))


@_candidate_form(And)
def _and_at(c: ArrayCompiler, node: And) -> Candidates:
    return _all_at([c.truth_at(item) for item in _cheap_first(c, meaningful(node.items))])


@_form(Or)
def _or(c: ArrayCompiler, node: Or) -> ArrayFn:
    return _everywhere(c.truth_at(node))


@_candidate_form(Or)
def _or_at(c: ArrayCompiler, node: Or) -> Candidates:
    return _any_at([c.truth_at(item) for item in _cheap_first(c, meaningful(node.items))])


@_form(Not)
def _not(c: ArrayCompiler, node: Not) -> ArrayFn:
    fn = c.truth(node.arg)
    return lambda positions: ~fn(positions)


_SIMPLE: dict[Keyword, Callable[[Positions], Bools]] = {
    Keyword.TRUE: lambda positions: np.ones(positions.size, np.bool_),
    Keyword.FALSE: lambda positions: np.zeros(positions.size, np.bool_),
    Keyword.WTM: lambda positions: positions.white_to_move,
    Keyword.BTM: lambda positions: ~positions.white_to_move,
    # The flags are python-chess's own answers, stored by the index.
    Keyword.CHECK: lambda positions: positions.flag(_CHECK),
    Keyword.MATE: lambda positions: positions.flag(_MATE),
    Keyword.STALEMATE: lambda positions: positions.flag(_STALEMATE),
    Keyword.INITIAL: lambda positions: positions.ply == 0,
    Keyword.TERMINAL: lambda positions: positions.last,
    # Only main lines are stored.
    Keyword.MAINLINE: lambda positions: np.ones(positions.size, np.bool_),
    Keyword.VARIATION: lambda positions: np.zeros(positions.size, np.bool_),
}


@_form(Simple)
def _simple(c: ArrayCompiler, node: Simple) -> ArrayFn:
    return _SIMPLE[node.keyword]


@_form(Comment)
def _comment(c: ArrayCompiler, node: Comment) -> ArrayFn:
    return lambda positions: np.ones(positions.size, np.bool_)


@_form(LegacyOnly)
def _legacy_only(c: ArrayCompiler, node: LegacyOnly) -> ArrayFn:
    return c.compile(node.filter)


for _tags_only in (
    Result, Player, TagContains, TagSearch, TagValueIn, RoundNumber, EcoRange, DateIn, Elo
):
    ARRAY_FORMS.add(_tags_only, lambda c, node: _by_game(node))


# ---- orbits --------------------------------------------------------------------------


#: The translations of each kind of shift, as (files, ranks).
_TRANSLATIONS = {
    TransformKind.SHIFT: [(dx, dy) for dx in range(-7, 8) for dy in range(-7, 8)],
    TransformKind.SHIFTHORIZONTAL: [(dx, 0) for dx in range(-7, 8)],
    TransformKind.SHIFTVERTICAL: [(0, dy) for dy in range(-7, 8)],
}


#: A piece of a shifted pattern: its types and the squares it may stand on.
_Piece = tuple[int, int]


def _placed_pattern(node: Transform) -> list[_Piece] | None:
    """The pieces of a shifted pattern whose first piece stands on a single square
    (``shift {Nd4 k[b3,f5]}``), as (types, squares) with that piece first; None for
    any other transform."""
    if node.kind not in _TRANSLATIONS or node.count:
        return None
    items = node.arg.conjuncts() if isinstance(node.arg, (Compound, And)) else (node.arg,)
    pattern = []
    for item in meaningful(items):
        if not isinstance(item, PieceSet) or not item.squares:
            return None
        pattern.append((item.types, item.squares))
    anchor = next((i for i, (_, squares) in enumerate(pattern) if squares.bit_count() == 1), None)
    if anchor is None:
        return None
    return [pattern[anchor], *pattern[:anchor], *pattern[anchor + 1 :]]


def _offsets(squares: int, first: int) -> list[tuple[int, int]]:
    """Each square of ``squares`` as (files, ranks) from the square ``first``."""
    return [
        ((s & 7) - (first & 7), (s >> 3) - (first >> 3))
        for s in range(64)
        if squares >> s & 1
    ]


def _shifted_pattern(node: Transform, pattern: list[_Piece], last: _Piece) -> ArrayFn:
    """Where some translation of the pattern stands on the board, the whole board moved
    once per square of each piece instead of once per member of the orbit.

    A translation is named by the square its first piece (on one square) goes to: the
    *anchors* are the squares where that piece stands and every other piece stands on
    one of its squares moved as far.  A member of the orbit loses the squares a
    translation pushes off the board (M1), and so does the moved board, so the members
    that lose a piece's every square match nowhere here either.  The value of a set is
    ``last``'s squares in every member that matches (a compound's is its last item's)."""
    (first_types, first_squares), *rest = pattern
    first = first_squares.bit_length() - 1
    anchors = 0
    for dx, dy in _TRANSLATIONS[node.kind]:
        if _on_board(first, dx, dy):
            anchors |= 1 << (first + 8 * dy + dx)
    others = [(types, _offsets(squares, first)) for types, squares in rest]
    last_types, last_offsets = last[0], _offsets(last[1], first)
    logical = node.value_kind() is Kind.LOGICAL

    def shifted(positions: Positions) -> Value:
        found = positions.content(first_types) & np.uint64(anchors)
        for types, offsets in others:
            content = positions.content(types)
            near = ba.shift(content, -offsets[0][0], -offsets[0][1])
            for files, ranks in offsets[1:]:
                near |= ba.shift(content, -files, -ranks)
            found &= near
        if logical:
            return found != 0
        reached = ba.shift(found, *last_offsets[0])
        for files, ranks in last_offsets[1:]:
            reached |= ba.shift(found, files, ranks)
        return reached & positions.content(last_types)

    return shifted


def _last_piece(node: Transform) -> _Piece:
    """The types and squares of the last piece of a placed pattern (its value's)."""
    items = node.arg.conjuncts() if isinstance(node.arg, (Compound, And)) else (node.arg,)
    last = meaningful(items)[-1]
    assert isinstance(last, PieceSet)
    return last.types, last.squares


def _on_board(square: int, dx: int, dy: int) -> bool:
    return 0 <= (square & 7) + dx < 8 and 0 <= (square >> 3) + dy < 8


@_form(Transform)
def _transform(c: ArrayCompiler, node: Transform) -> ArrayFn:
    pattern = _placed_pattern(node)
    if pattern is not None:
        return _shifted_pattern(node, pattern, _last_piece(node))
    members = [c.compile(member) for member in orbit_members(node)]
    if node.count:

        def count(positions: Positions) -> Numbers:
            total = np.zeros(positions.size, dtype=np.int64)
            for member in members:
                total += truth(member(positions))
            return Numbers(total, np.ones(positions.size, np.bool_))

        return count

    if node.value_kind() is Kind.LOGICAL:
        return _everywhere(c.truth_at(node))

    def orbit(positions: Positions) -> Value:
        # Combined member by member: one value of each kind held at a time.
        out = members[0](positions)
        if isinstance(out, Numbers):
            return _maximum(out, [_numbers(member(positions)) for member in members[1:]])
        if out.dtype == np.uint64:
            for member in members[1:]:
                out = out | _squares(member(positions))
            return out
        out = truth(out)
        for member in members[1:]:
            out = out | truth(member(positions))
        return out

    return orbit


def _maximum(first: Numbers, rest: Iterable[Numbers]) -> Numbers:
    """The largest value at each position among those that have one."""
    values, valid = first.values.copy(), first.valid.copy()
    for other in rest:
        larger = other.valid & (~valid | (other.values > values))
        values = np.where(larger, other.values, values)
        valid |= other.valid
    return Numbers(values, valid)


@_candidate_form(Transform)
def _transform_at(c: ArrayCompiler, node: Transform) -> Candidates:
    if _placed_pattern(node) is not None:
        fn = c.truth(node)
        return lambda positions, rows: positions.remembered(node, fn)[rows]
    if node.count:
        fn = c.truth(node)
        return lambda positions, rows: fn(positions)[rows]
    # Where some member matches (a set: is not empty; a number: has a value): each
    # member asked where none before it did.
    return _any_at([c.truth_at(member) for member in orbit_members(node)])
