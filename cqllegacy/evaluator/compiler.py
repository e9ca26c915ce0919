"""The machinery every evaluator rule shares: the per-game context, compiled nodes and the
compiler that turns a core node into a closure ``fn(context, position) -> value``.

A :class:`Compiler` compiles each node with its *reference rule* (one per node class:
:mod:`~cqllegacy.evaluator.position_rules`, :mod:`~cqllegacy.evaluator.line_rules`,
:mod:`~cqllegacy.evaluator.legacy_rules`), or, when it is given a lowering table
(:mod:`~cqllegacy.evaluator.lowering`), first asks the lowering of the node's class for a
physical operator; a lowering that does not recognise the node gives None and the
reference rule compiles it.

A set filter's value is an ``int`` bitboard (0, the empty set, when it fails), a numeric
filter's an ``int`` (None when it fails), a logical filter's a ``bool``.

>>> compiled = as_number(lambda ctx, p: None)
>>> truth(compiled)(None, 0)
False
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import attrs
import chess

from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import Filter, Kind, Scope
from cqllegacy.evaluator.analysis import QueryError
from cqllegacy.evaluator.gametree import GameInfo, PositionTable
from cqllegacy.records import Record

__all__ = [
    "FAIL",
    "REFERENCE_RULES",
    "BoardCheck",
    "Compiled",
    "Compiler",
    "Context",
    "Fn",
    "Indexed",
    "Kind",
    "Lowering",
    "NumberFn",
    "QueryError",
    "Rule",
    "SetFn",
    "TruthFn",
    "Value",
    "as_logical",
    "as_number",
    "as_set",
    "in_bounds",
    "logical_value",
    "number_value",
    "set_value",
    "truth",
]


_T_co = TypeVar("_T_co", covariant=True)


class Indexed(Protocol[_T_co]):
    """What the rules read of a per-position list: its items by position."""

    def __getitem__(self, index: int, /) -> _T_co: ...


#: ``_PLIES[p] == p``: the ply of every position of a main line read from its start.
_PLIES = range(1 << 40)

# --------------------------------------------------------------------------------------
# The per-game context every compiled closure reads
# --------------------------------------------------------------------------------------


class _Tracks(dict[str, list[int]]):
    """``tracks[name][p]``: the square at ``p`` of the piece bound to ``name``
    (``where[p][bindings[name]]``), its track read from the table on first use after
    each binding (:meth:`PositionTable.track`): no row of every piece's square."""

    __slots__ = ("_bindings", "table")

    def __init__(self, bindings: dict[str, int]) -> None:
        super().__init__()
        # The context's bindings and table, not the context (no reference cycle).
        self._bindings = bindings
        self.table: PositionTable | None = None

    def __missing__(self, name: str) -> list[int]:
        if self.table is None:
            raise KeyError(name)
        track = self[name] = self.table.track(self._bindings[name])
        return track


class Context:
    """One game being evaluated: its positions, tags, continuations in scope and bindings.

    Built without a table it serves the filters that read the tags alone.  The lists the
    rules read are indexed by position: ``boards``, ``moves`` (the move that reached a
    position), ``next`` (the continuations in scope), ``children`` (every continuation),
    ``parent``, ``ply``; ``mainline_end`` is the first position that is not on the main
    line.  :meth:`streaming` makes a context whose lists grow while a game is read.
    """

    __slots__ = (
        "_all_scope",
        "_main_next",
        "_piece_boards",
        "bindings",
        "boards",
        "children",
        "info",
        "key",
        "mainline_end",
        "memo",
        "moves",
        "next",
        "nodes",
        "parent",
        "ply",
        "table",
        "tracks",
        "where",
        "who",
    )

    boards: list[chess.Board]
    moves: list[chess.Move | None]
    next: Indexed[tuple[int, ...]]
    children: Indexed[tuple[int, ...]]
    _main_next: Indexed[tuple[int, ...]]
    ply: Indexed[int]
    mainline_end: int
    who: list[tuple[int, ...]]
    where: list[tuple[int, ...]]

    def __init__(self, table: PositionTable | None, info: GameInfo) -> None:
        self.info = info
        self.bindings: dict[str, int] = {}
        self.tracks = _Tracks(self.bindings)
        self.memo: dict[tuple[object, object], Any] = {}
        self._piece_boards: dict[int, tuple[int, ...]] = {}
        self._all_scope = False
        if table is None:
            return
        self.table = self.tracks.table = table
        self.boards = table.boards
        self.moves = table.moves
        self.children = table.children
        self.nodes = table.nodes
        self.parent = table.parent
        self.ply = table.ply
        # ``who`` and ``where`` (only a table that follows pieces has them: queries with
        # piece variables) are read from the table when first asked (``__getattr__``):
        # their rows cost more to build than most queries that follow pieces need.
        self.mainline_end = table.mainline_length
        self._main_next = table.main_continuations()
        self.next = self._main_next
        self._refresh_key()

    if not TYPE_CHECKING:  # (hidden from mypy: other attributes stay checked)

        def __getattr__(self, name):
            # Called only for an unset slot: ``who``/``where`` are set on first use.
            if name in ("who", "where"):
                rows = getattr(self.table, name)
                if rows is not None:
                    setattr(self, name, rows)
                    return rows
            raise AttributeError(name)

    @classmethod
    def streaming(cls, info: GameInfo) -> Context:
        """A context for one main line read move by move (see
        :mod:`~cqllegacy.evaluator.stream`): the stream keeps ``boards``, ``moves`` and
        ``next`` (which is also ``children``) up to date for the position being
        evaluated; every position is on the main line and ``ply[p] == p``."""
        ctx = cls(None, info)
        following: list[tuple[int, ...]] = []
        ctx.boards, ctx.moves, ctx.next = [], [None], following
        ctx.children = ctx._main_next = following
        ctx.ply = _PLIES
        ctx.mainline_end = _PLIES.stop
        ctx._refresh_key()
        return ctx

    @property
    def all_scope(self) -> bool:
        """Whether the continuations in scope are all of them (else the main ones)."""
        return self._all_scope

    def set_scope(self, scope: Scope) -> None:
        self._all_scope = scope is Scope.ALL
        self.next = self.table.children if self._all_scope else self._main_next
        self._refresh_key()

    def bind(self, name: str, identity: int | None) -> None:
        if identity is None:
            self.bindings.pop(name, None)
        else:
            self.bindings[name] = identity
        self.tracks.pop(name, None)
        self._refresh_key()

    def _refresh_key(self) -> None:
        # Memoised results of line/find depend on the scope and on the bindings only.
        self.key = (self._all_scope, tuple(sorted(self.bindings.items())))

    def memo_for(self, token: object) -> Any:
        return self.memo.get((token, self.key))

    def store(self, token: object, value: Any) -> Any:
        self.memo[(token, self.key)] = value
        return value

    def piece_boards(self, p: int) -> tuple[int, ...]:
        """The 12 piece bitboards of position ``p``, indexed like the bits of a type set."""
        boards = self._piece_boards.get(p)
        if boards is None:
            board = self.boards[p]
            boards = tuple(
                board.pieces_mask(piece_type, color)
                for color in (chess.WHITE, chess.BLACK)
                for piece_type in chess.PIECE_TYPES
            )
            self._piece_boards[p] = boards
        return boards


# --------------------------------------------------------------------------------------
# Compiled nodes
# --------------------------------------------------------------------------------------


#: A filter's value at a position: a bitboard (a set filter; 0 when it fails), a number or
#: None (a numeric filter), a truth (a logical filter; ``bool`` is an ``int`` subtype).
Value = int | None

#: A compiled node's value function, of any kind.
Fn = Callable[[Context, int], Value]
#: The value function of a set filter: a bitboard.
SetFn = Callable[[Context, int], int]
#: The value function of a numeric filter: a number, None when it fails.
NumberFn = Callable[[Context, int], int | None]
#: Whether a filter matches at a position.
TruthFn = Callable[[Context, int], bool]

#: Whether a filter matches, as a function of the position's board alone.
BoardCheck = Callable[[chess.Board], bool]


@attrs.frozen(repr=False, slots=True)
class Compiled(Record):
    """A compiled node: its kind, its value function and, when a faster one exists, a
    function that only says whether it matches (``test``); ``board`` says the same from
    the position's board alone, when the board alone decides (the live stream calls it on
    python-chess's own board, the game tree on ``ctx.boards[p]``)."""

    kind: Kind
    fn: Fn
    test: TruthFn | None = None
    board: BoardCheck | None = None


#: A reference rule: compiles a node of the class it is filed under (a dispatcher finds
#: rules by exact class, so the rule of ``PieceSet`` is only ever handed a ``PieceSet``).
Rule = Callable[["Compiler", Filter], Compiled]

#: The reference rule of each node class: the node evaluated as the language defines it.
#: position_rules, line_rules and legacy_rules register theirs (``@REFERENCE_RULES.register``)
#: when they are imported; evaluate.py imports all three.
REFERENCE_RULES: Dispatcher[Rule] = Dispatcher("reference rules")

#: A physical operator for a node, or None when the node is not of a pattern the
#: lowering recognises (its reference rule compiles it).
Lowering = Callable[["Compiler", Filter], Compiled | None]

#: The value of a filter that fails, by kind.
FAIL = {Kind.SET: 0, Kind.NUMBER: None, Kind.LOGICAL: False, Kind.POSITION: None}


def as_set(fn: SetFn) -> Compiled:
    return Compiled(Kind.SET, fn)


def as_number(fn: NumberFn) -> Compiled:
    return Compiled(Kind.NUMBER, fn)


def as_logical(fn: TruthFn) -> Compiled:
    return Compiled(Kind.LOGICAL, fn)


# The kind of a compiled node says what its function gives (``as_set`` and the rest
# take functions of that type); these three read it back, the only place the static
# type of a value function is narrowed.


def set_value(compiled: Compiled) -> SetFn:
    """The value function of a compiled set filter."""
    assert compiled.kind is Kind.SET
    return cast(SetFn, compiled.fn)


def number_value(compiled: Compiled) -> NumberFn:
    """The value function of a compiled numeric filter, or of a position (its number in
    the game tree, None when there is none)."""
    assert compiled.kind in (Kind.NUMBER, Kind.POSITION)
    return compiled.fn


def logical_value(compiled: Compiled) -> TruthFn:
    """The value function of a compiled logical filter."""
    assert compiled.kind is Kind.LOGICAL
    return cast(TruthFn, compiled.fn)


def truth(compiled: Compiled) -> TruthFn:
    if compiled.test is not None:
        return compiled.test
    if compiled.kind is Kind.LOGICAL:
        return logical_value(compiled)
    if compiled.board is not None:
        check = compiled.board
        return lambda ctx, p: check(ctx.boards[p])
    fn = compiled.fn
    if compiled.kind is Kind.SET:
        return lambda ctx, p: fn(ctx, p) != 0
    return lambda ctx, p: fn(ctx, p) is not None


class Compiler:
    """Compiles nodes with ``rules`` (one reference rule per node class), each through its
    class's entry of ``lowering`` first when there is one; structurally equal nodes are
    compiled once and share one closure."""

    def __init__(
        self,
        rules: Mapping[type[Filter], Rule],
        lowering: Mapping[type[Filter], Lowering] = MappingProxyType({}),
    ) -> None:
        self._rules = rules
        self._lowering = lowering
        self._cache: dict[Filter, Compiled] = {}
        #: What rules share beyond compiled nodes, under keys of their own.
        self.extras: dict[object, Any] = {}

    @property
    def lowers(self) -> bool:
        """Whether this compiler lowers nodes to physical operators."""
        return bool(self._lowering)

    def compile(self, node: Filter) -> Compiled:
        compiled = self._cache.get(node)
        if compiled is None:
            lower = self._lowering.get(type(node))
            found = lower(self, node) if lower is not None else None
            compiled = found if found is not None else self.reference(node)
            self._cache[node] = compiled
        return compiled

    def reference(self, node: Filter) -> Compiled:
        """``node`` compiled by its reference rule (its children still lowered)."""
        rule = self._rules.get(type(node))
        if rule is None:
            raise QueryError(f"the evaluator has no rule for a {type(node).__name__} node")
        return rule(self, node)

    def truth(self, node: Filter) -> TruthFn:
        return truth(self.compile(node))

    def set_fn(self, node: Filter) -> SetFn:
        compiled = self.compile(node)
        if compiled.kind is not Kind.SET:
            raise QueryError(f"a {type(node).__name__} filter is not a set of squares")
        return set_value(compiled)

    def number_fn(self, node: Filter) -> NumberFn:
        """A numeric operand; a set stands for its size (semantics: S-modern-model), a
        position for its number in the game tree, which orders positions (decision M7)."""
        compiled = self.compile(node)
        if compiled.kind in (Kind.NUMBER, Kind.POSITION):
            return number_value(compiled)
        if compiled.kind is Kind.SET:
            fn = set_value(compiled)
            return lambda ctx, p: fn(ctx, p).bit_count()
        raise QueryError(f"a {type(node).__name__} filter has no numeric value")


def in_bounds(value: int, bounds: tuple[int, int | None] | None) -> bool:
    """``lo <= value <= hi`` for ``bounds = (lo, hi)``; hi None is no limit, no bounds always."""
    if bounds is None:
        return True
    lo, hi = bounds
    return lo <= value and (hi is None or value <= hi)
