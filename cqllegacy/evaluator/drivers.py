"""The drivers: how a compiled query meets a game (the driver of a query is chosen by its
analysis, :mod:`~cqllegacy.evaluator.analysis`).

* :class:`TreeDriver` evaluates the lists on a game laid out as a
  :class:`~cqllegacy.evaluator.gametree.PositionTable`, for every binding of the query's
  piece tags; every query can be evaluated so, and the other drivers give the same
  results (the tests compare them on real games).
* :class:`LiveDriver`, :class:`LinesDriver` and :class:`SnapshotDriver` give a stream
  (:mod:`~cqllegacy.evaluator.stream`) that evaluates the game while python-chess reads
  it: one test per list on the reader's own board, the tries of lines, or the game
  tree's evaluation on copies of the main line's boards.
* :class:`TagsDriver` says where a query on tags alone matches, from the tags and the
  list of positions, without the moves.

All of them run the same compiled bodies: the operators of
:mod:`~cqllegacy.evaluator.lowering`, or the reference rules where nothing was lowered.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

import attrs
import chess

from cqllegacy.core.tree import Query, Scope, TopList
from cqllegacy.evaluator.analysis import ListAnalysis
from cqllegacy.evaluator.compiler import (
    Compiled,
    Context,
    TruthFn,
    in_bounds,
    truth,
)
from cqllegacy.evaluator.gametree import NO_PIECE, GameInfo, PositionTable
from cqllegacy.evaluator.line_automaton import LineAutomaton
from cqllegacy.evaluator.stream import (
    Candidates,
    GameStream,
    Hits,
    LineStream,
    ListTest,
    LiveStream,
    SnapshotStream,
    Verdict,
)
from cqllegacy.records import Record
from cqllegacy.recursion import room_for_deep_trees

__all__ = [
    "CompiledList",
    "Gates",
    "LinesDriver",
    "ListSieve",
    "LiveDriver",
    "SnapshotDriver",
    "StreamDriver",
    "TagsDriver",
    "TreeDriver",
]


@attrs.frozen(repr=False, eq=False)
class ListSieve(Record):
    """How the game tree tries a list whose body follows pieces, once per game for every
    binding of the tags: ``holders`` gives at a position the squares where the piece
    bound to ``variable`` makes the body hold (bit 64: off the board;
    ``operators.holders_test``), so a binding's hits are read from those masks without
    evaluating the body; else ``necessity`` (it reads no variable and holds wherever the
    body holds) lists the positions the body is tried at."""

    variable: str | None
    holders: Callable[[Context, int], int] | None
    necessity: TruthFn | None


class CompiledList:
    """One top-level list: its analysis, its compiled body (``compile_body()``, called the
    first time the body is needed), the compiled conjuncts of the body that read the
    tags alone, and, for a body that follows pieces, how the game tree tries it for every
    binding at once (``compile_sieve()``, called after the body is compiled)."""

    __slots__ = (
        "_body",
        "_compile_body",
        "_compile_sieve",
        "_sieve",
        "_test",
        "analysis",
        "game_checks",
    )

    def __init__(
        self,
        analysis: ListAnalysis,
        compile_body: Callable[[], Compiled],
        game_checks: tuple[TruthFn, ...],
        compile_sieve: Callable[[], ListSieve | None] | None = None,
    ) -> None:
        self.analysis = analysis
        self.game_checks = game_checks
        self._compile_body = compile_body
        self._compile_sieve = compile_sieve
        self._body: Compiled | None = None
        self._test: TruthFn | None = None
        self._sieve: ListSieve | None = None

    @property
    def source(self) -> TopList:
        return self.analysis.source

    @property
    def body(self) -> Compiled:
        return self.compile()

    def compile(self) -> Compiled:
        """The compiled body (compiled on the first call)."""
        if self._body is None:
            with room_for_deep_trees():
                self._body = self._compile_body()
        return self._body

    @property
    def sieve(self) -> ListSieve | None:
        """How the game tree tries the body for every binding at once (None: binding by
        binding, at every position)."""
        if self._compile_sieve is not None:
            self.compile()
            with room_for_deep_trees():
                self._sieve = self._compile_sieve()
            self._compile_sieve = None
        return self._sieve

    @property
    def test(self) -> TruthFn:
        if self._test is None:
            self._test = truth(self.body)
        return self._test

    def satisfied(self, count: int) -> bool:
        """Whether ``count`` matching positions satisfy the list (its ``matchcount``)."""
        if self.source.matchcount is None:
            return count >= 1
        return in_bounds(count, self.source.matchcount)


def judge(lists: Sequence[CompiledList]) -> Callable[[Hits], bool]:
    """Whether the hits of every list satisfy it."""
    return lambda hits: all(
        compiled.satisfied(len(found)) for compiled, found in zip(lists, hits, strict=True)
    )


@attrs.frozen(repr=False)
class TreeDriver(Record):
    """Evaluates the lists on a game tree, for every binding of the query's tags."""

    query: Query
    lists: tuple[CompiledList, ...]

    def verdict(
        self,
        table: PositionTable,
        info: GameInfo,
        skip_initial: bool,
        variations: bool,
        candidates: Candidates = None,
    ) -> Verdict:
        """The hits of the first binding of the tags that satisfies every list (only
        ``candidates[i]`` are examined for list i, when given).  A query of several
        forms (``Query.forms``) tries them in order: the first form whose lists are all
        satisfied gives the hits, the lists of the other forms none."""
        ctx = Context(table, info)
        if candidates is None and self._out_of_reach(ctx, skip_initial, variations):
            return Verdict(False, ())
        cache: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}
        size = len(self.lists) // self.query.forms
        for first in range(0, len(self.lists), size) if size else (0,):
            for binding in self._bindings(table):
                for name, identity in binding.items():
                    ctx.bind(name, identity)
                found = []
                for index in range(first, first + size):
                    compiled = self.lists[index]
                    key = (index, tuple(binding[name] for name in compiled.analysis.tags))
                    if key not in cache:
                        only = None if candidates is None else candidates[index]
                        cache[key] = self._list_hits(
                            ctx, compiled, skip_initial, variations, only
                        )
                    if not compiled.satisfied(len(cache[key])):
                        break
                    found.append(cache[key])
                else:
                    hits: list[tuple[int, ...]] = [()] * len(self.lists)
                    hits[first : first + size] = found
                    return Verdict(True, tuple(hits))
        return Verdict(False, ())

    def _bindings(self, table: PositionTable) -> Iterator[dict[str, int]]:
        """Every assignment of distinct eligible pieces to the query's tags."""
        tags = self.query.tags
        if not tags:
            yield {}
            return
        seen = table.identity_types()
        candidates = [
            sorted(identity for identity, types in seen.items() if types & tag.types)
            for tag in tags
        ]
        for choice in itertools.product(*candidates):
            if len(set(choice)) == len(choice):
                yield {tag.name: identity for tag, identity in zip(tags, choice, strict=True)}

    def _out_of_reach(self, ctx: Context, skip_initial: bool, variations: bool) -> bool:
        """Whether some list tried for every binding at once (a sieve) lists fewer
        positions than its ``matchcount`` asks for: every binding's hits are among them,
        so no binding satisfies it, and the game fails before any piece is followed.
        Looked at: the first list (the bindings try it first in any case) and the lists
        whose positions are listed by a necessity naming no piece (a listing the bindings
        share); another list's listing may cost more than following the pieces.  Not
        for a query of several forms: another form may match where one cannot."""
        if self.query.forms > 1:
            return False
        for index, compiled in enumerate(self.lists):
            sieve = compiled.sieve
            if sieve is None or (index > 0 and sieve.variable is not None):
                continue
            first, end = self._span(ctx, compiled, skip_initial, variations)
            bounds = compiled.source.matchcount
            fewest = 1 if bounds is None else bounds[0]
            if len(_listed(ctx, sieve, first, end)) < fewest:
                return True
        return False

    @staticmethod
    def _span(
        ctx: Context, compiled: CompiledList, skip_initial: bool, variations: bool
    ) -> tuple[int, int]:
        """The positions ``first .. end - 1`` a list examines (its scope set on ``ctx``)."""
        scope = Scope.ALL if variations else compiled.source.scope
        ctx.set_scope(scope)
        end = len(ctx.table) if scope is Scope.ALL else ctx.table.mainline_length
        first = 1 if skip_initial else 0
        if compiled.analysis.start_only:
            end = min(end, 1)
        return first, end

    @classmethod
    def _list_hits(
        cls,
        ctx: Context,
        compiled: CompiledList,
        skip_initial: bool,
        variations: bool,
        only: Sequence[int] | None,
    ) -> tuple[int, ...]:
        first, end = cls._span(ctx, compiled, skip_initial, variations)
        body = compiled.test
        sieve = compiled.sieve
        if sieve is not None and only is None:
            return _sieved_hits(ctx, sieve, body, first, end)
        examined = range(first, end) if only is None else (p for p in only if first <= p < end)
        return tuple(p for p in examined if body(ctx, p))


def _listed(ctx: Context, sieve: ListSieve, first: int, end: int) -> list[tuple[int, int]]:
    """The positions of ``first .. end`` where some binding may make the sieved list hold
    (with the masks of where its piece must stand), listed once per game and scope."""
    key = ((sieve, ctx.all_scope), (first, end))
    listed: list[tuple[int, int]] | None = ctx.memo.get(key)
    if listed is None:
        if sieve.holders is not None:
            holders = sieve.holders
            listed = [(p, mask) for p in range(first, end) if (mask := holders(ctx, p))]
        else:
            assert sieve.necessity is not None
            necessity = sieve.necessity
            listed = [(p, 0) for p in range(first, end) if necessity(ctx, p)]
        ctx.memo[key] = listed
    return listed


def _sieved_hits(
    ctx: Context, sieve: ListSieve, body: TruthFn, first: int, end: int
) -> tuple[int, ...]:
    """The positions of ``first .. end`` where the body holds for the current binding:
    the positions where some binding may match are listed once per game and scope (with
    their masks), and the binding's hits read from the masks or tried there only."""
    listed = _listed(ctx, sieve, first, end)
    if sieve.variable is None:
        return tuple(p for p, _ in listed if body(ctx, p))
    # The bound piece's squares, position by position (no row of every piece's square).
    track = ctx.tracks[sieve.variable]
    out = []
    for p, mask in listed:
        sq = track[p]
        if mask >> (64 if sq == NO_PIECE else sq) & 1:
            out.append(p)
    return tuple(out)


class StreamDriver(Record):
    """Gives a stream that evaluates a game's main line while python-chess reads it."""

    def stream(
        self, info: GameInfo, *, skip_initial: bool, variations: bool, leave_on_variation: bool
    ) -> GameStream:
        raise NotImplementedError


@attrs.frozen(repr=False)
class LiveDriver(StreamDriver):
    """One test per list at every position, on the reader's board when the board alone
    decides the list's body (its lowered ``board`` operator)."""

    lists: tuple[CompiledList, ...]
    tests: tuple[ListTest, ...] = attrs.field(init=False)

    @tests.default
    def _tests(self) -> tuple[ListTest, ...]:
        return tuple(ListTest(compiled.body.board, compiled.test) for compiled in self.lists)

    def stream(
        self, info: GameInfo, *, skip_initial: bool, variations: bool, leave_on_variation: bool
    ) -> GameStream:
        return LiveStream(
            self.tests,
            Context.streaming(info),
            judge=judge(self.lists),
            skip_initial=skip_initial,
            leave_on_variation=leave_on_variation,
        )


@attrs.frozen(repr=False)
class LinesDriver(StreamDriver):
    """One trie of lines per list, followed along the main line."""

    lists: tuple[CompiledList, ...]
    automata: tuple[LineAutomaton, ...]

    def stream(
        self, info: GameInfo, *, skip_initial: bool, variations: bool, leave_on_variation: bool
    ) -> GameStream:
        return LineStream(
            self.automata,
            Context.streaming(info),
            judge=judge(self.lists),
            skip_initial=skip_initial,
            leave_on_variation=leave_on_variation,
        )


@attrs.frozen(repr=False)
class Gates(Record):
    """What a snapshot stream tests while the game is read: per list, a test on the
    position being read that holds wherever the list may match, and how many positions
    after such a position the lists look (the boards kept around each candidate)."""

    tests: tuple[TruthFn, ...]
    horizon: int


@attrs.frozen(repr=False)
class SnapshotDriver(StreamDriver):
    """The game tree's evaluation on the main line's boards, copied while the game is
    read (only those a gate says may be needed, when ``gates`` are given: per list a test
    on the position being read that holds wherever the list may match, and how many
    positions after that the lists look)."""

    tree: TreeDriver
    identities: bool
    gates: Gates | None

    def stream(
        self, info: GameInfo, *, skip_initial: bool, variations: bool, leave_on_variation: bool
    ) -> GameStream:
        def evaluate_line(
            boards: list[chess.Board], moves: list[chess.Move], candidates: Candidates
        ) -> Verdict:
            # A board left out (UNREAD) is of a position no gate let through: no list
            # examines it, nor looks at it from a candidate (the horizon); a query that
            # follows pieces has no gates (the table reads every board).
            table = PositionTable.from_main_line(boards, moves, identities=self.identities)
            return self.tree.verdict(table, info, skip_initial, variations, candidates)

        gates = None
        if self.gates is not None:
            gates = (self.gates.tests, Context.streaming(info), self.gates.horizon)
        return SnapshotStream(evaluate_line, gates=gates, leave_on_variation=leave_on_variation)


@attrs.frozen(repr=False)
class TagsDriver(Record):
    """Where the lists of a query on tags alone match: at every examined position or at
    none, decided once from the tags."""

    lists: tuple[CompiledList, ...]

    def hits(
        self,
        info: GameInfo,
        positions: int,
        mainline_length: int,
        *,
        skip_initial: bool,
        variations: bool,
    ) -> Hits | None:
        """Per list, the indices of the positions where it matches (``positions`` of
        them, the main line first); None when some list is not satisfied."""
        ctx = Context(None, info)
        first = 1 if skip_initial else 0
        out = []
        for compiled in self.lists:
            scope = Scope.ALL if variations else compiled.source.scope
            end = positions if scope is Scope.ALL else mainline_length
            found = tuple(range(first, end)) if compiled.test(ctx, -1) else ()
            if not compiled.satisfied(len(found)):
                return None
            out.append(found)
        return tuple(out)
