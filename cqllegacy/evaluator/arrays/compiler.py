"""The array compiler: each node through its class's array form, and candidate rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import (
    Filter,
    Reads,
)
from cqllegacy.evaluator.arrays.positions import (
    ArrayFn,
    Bools,
    Numbers,
    Positions,
    RowOnly,
    Squares,
    Value,
)
from cqllegacy.evaluator.compiler import REFERENCE_RULES, Compiler, Context, Kind
from cqllegacy.evaluator.gametree import GameInfo
from cqllegacy.vocab import bitarrays as ba

# --------------------------------------------------------------------------------------
# Values of each kind, and how one kind is read as another
# --------------------------------------------------------------------------------------


def truth(value: Value) -> Bools:
    """Where a value makes its filter match (``compiler.truth``)."""
    if isinstance(value, Numbers):
        return value.valid
    if value.dtype == np.bool_:
        return value
    return value != 0


def _where(mask: Bools, value: Value, size: int) -> Value:
    """``value`` where ``mask`` holds, the failing value elsewhere."""
    if isinstance(value, Numbers):
        return Numbers(value.values, value.valid & mask)
    return np.where(mask, value, np.zeros(size, dtype=value.dtype))


def _squares(value: Value) -> Squares:
    if isinstance(value, Numbers) or value.dtype != np.uint64:
        raise RowOnly("a set was expected")
    return value


def _numbers(value: Value) -> Numbers:
    """A number, or a set standing for its size (``compiler.number_value``)."""
    if isinstance(value, Numbers):
        return value
    if value.dtype == np.uint64:
        return Numbers(ba.popcount(value).astype(np.int64), np.ones(len(value), np.bool_))
    raise RowOnly("a number was expected")


# --------------------------------------------------------------------------------------
# The array forms, one per node class
# --------------------------------------------------------------------------------------

#: A node class's array form: given a way to compile its operands, the function of the
#: positions that gives its value.
ArrayForm: TypeAlias = Callable[["ArrayCompiler", Any], ArrayFn]

#: The array form of each node class, or its reason to be row only.
ARRAY_FORMS: Dispatcher[ArrayForm] = Dispatcher("array forms")
_form = ARRAY_FORMS.register

#: Where a filter matches among some rows (ascending indices into the positions).
Candidates: TypeAlias = Callable[["Positions", NDArray[np.intp]], Bools]

#: The classes that narrow candidates part by part (the others are evaluated at the
#: candidates alone, or everywhere: :meth:`ArrayCompiler.truth_at`).
CANDIDATE_FORMS: Dispatcher[Callable[[ArrayCompiler, Any], Candidates]] = Dispatcher(
    "candidate forms"
)
_candidate_form = CANDIDATE_FORMS.register


class ArrayCompiler:
    """Compiles nodes into array functions (equal nodes once), raising :class:`RowOnly`
    for a node whose class, or one of whose operands, has no array form."""

    def __init__(self) -> None:
        self._compiled: dict[Filter, ArrayFn] = {}
        self._candidates: dict[Filter, Candidates] = {}
        self._local: dict[Filter, bool] = {}
        self._size: dict[Filter, int] = {}

    def compile(self, node: Filter) -> ArrayFn:
        found = self._compiled.get(node)
        if found is None:
            form = ARRAY_FORMS.get(type(node))
            if form is None:
                reason = ARRAY_FORMS.absent_classes().get(type(node), "no array form")
                raise RowOnly(f"{type(node).__name__}: {reason}")
            found = self._compiled[node] = form(self, node)
        return found

    def truth(self, node: Filter) -> Callable[[Positions], Bools]:
        fn = self.compile(node)
        return lambda positions: truth(fn(positions))

    def truth_at(self, node: Filter) -> Candidates:
        """Where ``node`` matches among some rows of the positions (the candidates an
        earlier part left): a filter of one position and its move is evaluated at those
        rows alone, a conjunction, disjunction or line narrows them part by part, any
        other filter is evaluated everywhere and read at the rows."""
        found = self._candidates.get(node)
        if found is None:
            form = CANDIDATE_FORMS.get(type(node))
            if form is not None:
                found = form(self, node)
            else:
                found = _at_rows(node, self.truth(node), self.local(node))
            self._candidates[node] = found
        return found

    def local(self, node: Filter) -> bool:
        """Whether ``node`` reads one position and its next move (and the tags) only
        (``node.reads()``, found once per node below it too: an orbit's members share
        most of their nodes)."""
        found = self._local.get(node)
        if found is None:
            found = node.reads_itself() <= Reads.NEXT_MOVE and all(
                self.local(child) for child in node.children()
            )
            self._local[node] = found
        return found

    def size(self, node: Filter) -> int:
        """How many nodes ``node``'s tree has (``walk``), found once per node."""
        found = self._size.get(node)
        if found is None:
            found = self._size[node] = 1 + sum(self.size(child) for child in node.children())
        return found


def compile_array(node: Filter) -> ArrayFn:
    """The array function of ``node`` (raises :class:`RowOnly` when it has none)."""
    return ArrayCompiler().compile(node)


def _cheap_first(c: ArrayCompiler, items: Sequence[Filter]) -> list[Filter]:
    """Conjuncts or disjuncts ordered so that those of one position come first, smaller
    before larger (they are all pure: the order changes no answer)."""
    return sorted(items, key=lambda item: (not c.local(item), c.size(item)))


def _all_at(parts: Sequence[Candidates]) -> Candidates:
    """Where every part holds among ``rows``: each part asked only where the ones before
    it held."""

    def all_at(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        if not parts:
            return np.ones(len(rows), np.bool_)
        holds = parts[0](positions, rows)
        if len(parts) == 1:
            return holds
        left = np.flatnonzero(holds)  # which of ``rows`` every part so far holds at
        for part in parts[1:]:
            if not len(left):
                break
            left = left[part(positions, rows[left])]
        out = np.zeros(len(rows), np.bool_)
        out[left] = True
        return out

    return all_at


def _any_at(parts: Sequence[Candidates]) -> Candidates:
    """Where some part holds among ``rows``: each part asked only where none before it
    held."""

    def any_at(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        out = np.zeros(len(rows), np.bool_)
        open_ = None  # which of ``rows`` no part has held at yet (None: all of them)
        asked = rows
        for part in parts:
            holds = part(positions, asked)
            if not holds.any():
                continue  # the rows still open stay as they are
            if open_ is None:
                out[holds] = True
                open_ = np.flatnonzero(~holds)
            else:
                out[open_[holds]] = True
                open_ = open_[~holds]
            if not len(open_):
                break
            asked = rows[open_]
        return out

    return any_at


def _everywhere(at: Candidates) -> Callable[[Positions], Bools]:
    return lambda positions: at(positions, np.arange(positions.size, dtype=np.intp))


def _by_game(node: Filter) -> ArrayFn:
    """A filter that reads the tags alone: its reference value once per game, spread over
    the game's positions."""
    compiled = Compiler(REFERENCE_RULES).compile(node)
    fn, kind = compiled.fn, compiled.kind

    def by_game(positions: Positions) -> Value:
        games, starts = np.unique(positions.game, return_index=True)
        counts = np.diff(np.append(starts, positions.size))
        values = [fn(Context(None, positions.infos.get(int(g), GameInfo())), -1) for g in games]
        if kind is Kind.NUMBER:
            valid = np.repeat(np.array([v is not None for v in values], np.bool_), counts)
            numbers = np.repeat(np.array([v or 0 for v in values], np.int64), counts)
            return Numbers(numbers, valid)
        if kind is Kind.SET:
            return np.repeat(np.array(values, dtype=np.uint64), counts)
        return np.repeat(np.array([bool(v) for v in values], np.bool_), counts)

    return by_game


def _at_rows(node: Filter, fn: Callable[[Positions], Bools], local: bool) -> Candidates:
    """``fn`` read at some rows: a filter of one position and its move evaluated at those
    rows alone when they are few, any filter otherwise evaluated at every position once
    per chunk (orbit members share parts: ``wtm``, ``check``) and read at the rows."""

    def at_rows(positions: Positions, rows: NDArray[np.intp]) -> Bools:
        if local and len(rows) * 2 < positions.size:
            return fn(positions.take(rows))
        everywhere = positions.remembered(node, fn)
        # Rows are ascending and distinct: as many as the positions are all of them.
        return everywhere if len(rows) == positions.size else everywhere[rows]

    return at_rows
