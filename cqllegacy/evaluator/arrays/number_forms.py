"""Array forms of the numeric filters and comparisons."""

from __future__ import annotations

import operator

import numpy as np

from cqllegacy.core.tree import (
    Abs,
    Arith,
    ArithOp,
    Compare,
    CompareOp,
    Count,
    Filter,
    InRange,
    Negate,
    Number,
    NumericKeyword,
    NumericValue,
    Power,
    SideToMove,
)
from cqllegacy.evaluator.arrays.compiler import (
    ArrayCompiler,
    _by_game,
    _form,
    _numbers,
    _squares,
)
from cqllegacy.evaluator.arrays.positions import (
    ArrayFn,
    Bools,
    Numbers,
    Positions,
    Squares,
)
from cqllegacy.evaluator.trees import closed_range
from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab.pieces import (
    POWER_VALUES,
)

# ---- numbers -------------------------------------------------------------------------


@_form(Number)
def _number(c: ArrayCompiler, node: Number) -> ArrayFn:
    value = node.value
    return lambda positions: Numbers(
        np.full(positions.size, value, dtype=np.int64), np.ones(positions.size, np.bool_)
    )


@_form(Count)
def _count(c: ArrayCompiler, node: Count) -> ArrayFn:
    fn = c.compile(node.arg)
    return lambda positions: _numbers(_squares(fn(positions)))


_POWER_TERMS = tuple((piece_type, value) for piece_type, value in POWER_VALUES.items() if value)


@_form(Power)
def _power(c: ArrayCompiler, node: Power) -> ArrayFn:
    fn = c.compile(node.arg)

    def power(positions: Positions) -> Numbers:
        squares = _squares(fn(positions))
        total = np.zeros(positions.size, dtype=np.int64)
        for piece_type, value in _POWER_TERMS:
            held: Squares = positions.of_type(piece_type) & squares
            total += value * ba.popcount(held).astype(np.int64)
        return Numbers(total, np.ones(positions.size, np.bool_))

    return power


_ARITH = {ArithOp.ADD: operator.add, ArithOp.SUB: operator.sub}


@_form(Arith)
def _arith(c: ArrayCompiler, node: Arith) -> ArrayFn:
    op, left, right = _ARITH[node.op], c.compile(node.left), c.compile(node.right)

    def arith(positions: Positions) -> Numbers:
        a, b = _numbers(left(positions)), _numbers(right(positions))
        return Numbers(op(a.values, b.values), a.valid & b.valid)

    return arith


@_form(Negate)
def _negate(c: ArrayCompiler, node: Negate) -> ArrayFn:
    fn = c.compile(node.arg)

    def negate(positions: Positions) -> Numbers:
        value = _numbers(fn(positions))
        return Numbers(-value.values, value.valid)

    return negate


@_form(Abs)
def _abs(c: ArrayCompiler, node: Abs) -> ArrayFn:
    fn = c.compile(node.arg)

    def absolute(positions: Positions) -> Numbers:
        value = _numbers(fn(positions))
        return Numbers(np.abs(value.values), value.valid)

    return absolute


@_form(NumericValue)
def _numeric_value(c: ArrayCompiler, node: NumericValue) -> ArrayFn:
    if node.keyword is NumericKeyword.PLY:
        return lambda positions: Numbers(positions.ply, np.ones(positions.size, np.bool_))
    if node.keyword is NumericKeyword.YEAR:
        return _by_game(node)
    return lambda positions: Numbers(positions.movenumber, np.ones(positions.size, np.bool_))


@_form(SideToMove)
def _side_to_move(c: ArrayCompiler, node: SideToMove) -> ArrayFn:
    return lambda positions: Numbers(
        np.where(positions.white_to_move, 1, -1).astype(np.int64), np.ones(positions.size, np.bool_)
    )


@_form(InRange)
def _in_range(c: ArrayCompiler, node: InRange) -> ArrayFn:
    fn = c.compile(node.value)
    lo, hi = closed_range(node.lo, node.hi)

    def in_range(positions: Positions) -> Bools:
        value = _numbers(fn(positions))
        return value.valid & (value.values >= lo) & (value.values <= hi)

    return in_range


_COMPARE = {
    CompareOp.LT: operator.lt,
    CompareOp.LE: operator.le,
    CompareOp.EQ: operator.eq,
    CompareOp.GE: operator.ge,
    CompareOp.GT: operator.gt,
    CompareOp.NE: operator.ne,
}


def _chain_link(node: Filter) -> Filter | None:
    """As ``position_rules._chain_link``: ``2 < P <= 5`` is ``2 < P`` and ``P <= 5``."""
    if isinstance(node, InRange):
        return node.value
    if isinstance(node, Compare):
        return node.left
    return None


def _is_set(value: Bools | Squares) -> bool:
    return bool(value.dtype == np.uint64)


@_form(Compare)
def _compare(c: ArrayCompiler, node: Compare) -> ArrayFn:
    op = _COMPARE[node.op]
    link = _chain_link(node.right)
    rest = c.truth(node.right) if link is not None else None
    left = c.compile(node.left)
    right = c.compile(node.right if link is None else link)
    sets_compared = node.op in (CompareOp.EQ, CompareOp.NE)

    def compare(positions: Positions) -> Bools:
        a, b = left(positions), right(positions)
        if isinstance(a, Numbers) or isinstance(b, Numbers) or not (_is_set(a) and _is_set(b)):
            x, y = _numbers(a), _numbers(b)
            out: Bools = x.valid & y.valid & op(x.values, y.values)
        elif sets_compared:
            out = op(a, b)
        else:
            # Two sets ordered by their sizes.
            x, y = _numbers(a), _numbers(b)
            out = op(x.values, y.values)
        return out if rest is None else out & rest(positions)

    return compare
