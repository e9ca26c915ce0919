"""Compile a core :class:`Query` once and evaluate it on games.

Every node compiles to a closure ``fn(context, position) -> value`` through dispatch
tables keyed by node class (:mod:`~cqllegacy.evaluator.position_rules`,
:mod:`~cqllegacy.evaluator.line_rules`, :mod:`~cqllegacy.evaluator.legacy_rules`); orbits, masks
and piece sets are computed at compile time.  A game is laid out once
(:class:`~cqllegacy.evaluator.gametree.PositionTable`, boards built incrementally).
Values follow CQL: a set filter gives an ``int`` bitboard (it matches when non-zero, a
failing one gives 0, the empty set), a numeric filter an ``int`` (``None`` when it
fails), a logical filter a ``bool``.

Decisions where the CQL 6.1 documentation leaves the value open (semantics: S-move-and-line,
S-modern-sets):

- ``move`` and ``line`` are logical filters (the translator uses them as conditions);
  ``piece x in S body`` is a set filter: the squares of S whose piece makes the body match.
- ``move previous from/to/capture X``: X is evaluated at the position the move was
  played from, as it is for the next move.
- Two sets compared with ``<``, ``<=``, ``>``, ``>=`` compare their sizes; ``==`` and
  ``!=`` compare the sets themselves.

>>> from cqllegacy.evaluator.testing import pd, position
>>> from cqllegacy.core.tree import Count
>>> evaluate_filter(Count(pd("P")), position())
8
>>> evaluate_filter(pd("Ke1"), position()) == 1 << 4
True
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs
import chess
import chess.pgn

from cqllegacy.core.transforms import orbit
from cqllegacy.core.tree import (
    And,
    Comment,
    Compound,
    Filter,
    LegacyOnly,
    Line,
    Mark,
    Or,
    PieceLoop,
    PieceVariable,
    Query,
    Reads,
    Scope,
    TopList,
    Transform,
    Union,
)
from cqllegacy.evaluator import board_tests, fast_rules, legacy_rules, line_rules, position_rules
from cqllegacy.evaluator.analysis import (
    Driver,
    ListAnalysis,
    QueryError,
    analyse,
    free_variables,
)
from cqllegacy.evaluator.compiler import Compiler, Context, Fn, Rule, in_bounds
from cqllegacy.evaluator.gametree import GameInfo, PositionTable
from cqllegacy.evaluator.line_automaton import LineAutomaton, line_members
from cqllegacy.evaluator.needles import Needles
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

__all__ = [
    "CompiledQuery",
    "GameMatch",
    "ListMatch",
    "QueryError",
    "compile_query",
    "evaluate_filter",
]

#: The straightforward rules: every node evaluated as the language defines it.
RULES: Mapping[type[Filter], Rule] = {
    **position_rules.RULES,
    **line_rules.RULES,
    **legacy_rules.RULES,
}

#: The same with faster rules for some node patterns (same values, tested against RULES).
FAST_RULES: Mapping[type[Filter], Rule] = {**RULES, **fast_rules.RULES}


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@attrs.frozen
class ListMatch:
    """How one top-level list fared on a game.

    Positions are game nodes (:meth:`CompiledQuery.evaluate`, :meth:`~CompiledQuery.stream_match`)
    or whatever names the caller gave them (:meth:`~CompiledQuery.stream_keys`,
    :meth:`~CompiledQuery.tag_match`).
    """

    count: int
    positions: tuple[Any, ...]
    marked: tuple[Any, ...]


@attrs.frozen
class GameMatch:
    """Whether a game matched, with one :class:`ListMatch` per top-level list.

    ``lists`` is filled for a matching game (for the tag binding that matched); a game
    that does not match has ``lists == ()``.
    """

    matched: bool
    lists: tuple[ListMatch, ...]


# --------------------------------------------------------------------------------------
# The compiled query
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class _CompiledList:
    analysis: ListAnalysis
    body: Fn
    game_checks: tuple[Fn, ...]

    @property
    def source(self) -> TopList:
        return self.analysis.source

    @property
    def tags(self) -> tuple[str, ...]:
        return self.analysis.tags

    @property
    def needs_a_match(self) -> bool:
        return self.analysis.needs_a_match

    def satisfied(self, count: int) -> bool:
        if self.source.matchcount is None:
            return count >= 1
        return in_bounds(count, self.source.matchcount)


class CompiledQuery:
    """A query ready to run on many games; build it with :func:`compile_query`.

    Besides :meth:`evaluate` on a game tree, :meth:`stream` gives a python-chess visitor
    that evaluates the query while the game is read, without a game tree (the fast path
    of the runner); both give the same results.
    """

    def __init__(self, query: Query, *, optimize: bool = True) -> None:
        self.query = query
        self.optimize = optimize
        compiler = Compiler(FAST_RULES if optimize else RULES)
        analysis = analyse(query)
        self._lists = tuple(
            _CompiledList(
                found,
                compiler.truth(found.source.body),
                tuple(compiler.truth(conjunct) for conjunct in found.tag_conjuncts),
            )
            for found in analysis.lists
        )
        self._automata = None
        if optimize and analysis.driver is Driver.TREE and not query.tags:
            self._automata = _line_automata(compiler, query)
            if self._automata is not None:
                analysis = attrs.evolve(analysis, driver=Driver.LINES)
        self.analysis = analysis
        #: Driver.TREE for the straightforward evaluator (``optimize=False``).
        self.driver = analysis.driver if optimize else Driver.TREE
        #: What the tag section of a game that passes :meth:`prefilter` contains (see
        #: :mod:`~cqllegacy.evaluator.needles`); the runner rejects other games unparsed.
        self.tag_needles: Needles = analysis.tag_needles if optimize else ()
        self._identities = analysis.identities
        self._variations = analysis.variations
        self._live_tests = tuple(_live_test(compiled) for compiled in self._lists)
        self._gates = _gates(compiler, query) if self._snapshot else None

    @property
    def _snapshot(self) -> bool:
        """The tree driver reads the main line while python-chess reads the game."""
        return self.optimize and self.driver is Driver.TREE

    def __reduce__(self) -> tuple[Any, ...]:
        # Closures do not pickle; the query does, and compiling it again is cheap.
        return (_recompile, (self.query, self.optimize))

    # ---- rejecting games from their tags -------------------------------------------

    def _ordinal_ok(self, ordinal: int) -> bool:
        bounds = self.query.header.gamenumber
        return bounds is None or in_bounds(ordinal, bounds)

    def _tags_ok(self, ctx: Context) -> bool:
        return all(
            check(ctx, -1) for top in self._lists if top.needs_a_match for check in top.game_checks
        )

    def prefilter(self, headers: Mapping[str, str], ordinal: int) -> bool:
        """False when the game cannot match, judged from its tags and 1-based ordinal alone."""
        if not self._ordinal_ok(ordinal):
            return False
        return self._tags_ok(Context(None, GameInfo.from_headers(headers)))

    # ---- evaluating a game ------------------------------------------------------------

    def evaluate(
        self,
        game: chess.pgn.Game,
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatch:
        """Run the query on one game (``ordinal`` is its 1-based place in the input).

        ``skip_initial`` leaves the start position unexamined (L1's flag); ``variations``
        makes every list examine, and follow, the variations too.
        """
        info = GameInfo.from_headers(game.headers)
        if not self._ordinal_ok(ordinal) or not self._tags_ok(Context(None, info)):
            return GameMatch(False, ())
        table = PositionTable.build(
            game, variations=variations or self._variations, identities=self._identities
        )
        return self._game_match(self._verdict(table, info, skip_initial, variations), table.nodes)

    def stream(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameStream | None:
        """A visitor for ``chess.pgn.read_game`` that evaluates the game while it is read
        (``headers`` are the game's tags); None when this query is better evaluated on the
        game tree (:meth:`evaluate`).

        After a clean read (``stream.readable``) ``stream.verdict()`` says whether the game
        matched (None: it has variations this query examines; use :meth:`evaluate`), and
        :meth:`stream_match` turns a verdict into the :class:`GameMatch` of the game tree.
        """
        if not self.optimize or self.driver is Driver.TAGS:
            return None
        info = GameInfo.from_headers(headers)
        if not self._ordinal_ok(ordinal) or not self._tags_ok(Context(None, info)):
            return None
        leave = variations or self._variations
        if self.driver is Driver.LIVE:
            return LiveStream(
                self._live_tests,
                Context.streaming(info),
                judge=self._judge,
                skip_initial=skip_initial,
                leave_on_variation=leave,
            )
        if self.driver is Driver.LINES:
            assert self._automata is not None
            return LineStream(
                self._automata,
                Context.streaming(info),
                judge=self._judge,
                skip_initial=skip_initial,
                leave_on_variation=leave,
            )

        def evaluate_line(
            boards: list[chess.Board | None], moves: list[chess.Move], candidates: Candidates
        ) -> Verdict:
            table = PositionTable.from_main_line(boards, moves, identities=self._identities)
            return self._verdict(table, info, skip_initial, variations, candidates)

        gates = None
        if self._gates is not None:
            tests, horizon = self._gates
            gates = (tests, Context.streaming(info), horizon)
        return SnapshotStream(evaluate_line, gates=gates, leave_on_variation=leave)

    def stream_match(self, verdict: Verdict, game: chess.pgn.Game) -> GameMatch:
        """The :class:`GameMatch` of a streamed game, read again as a game tree."""
        return self._game_match(verdict, [game, *game.mainline()])

    def stream_keys(self, verdict: Verdict, main_moves: int) -> GameMatch:
        """The :class:`GameMatch` of a streamed game whose main line has ``main_moves``
        moves, positions named by their plies (0 the start) instead of game nodes: the
        game need not be read again.

        >>> from cqllegacy.core.tree import Header, Mark, TopList
        >>> from cqllegacy.evaluator.testing import pd
        >>> compiled = compile_query(Query(Header(), (TopList(pd("Q"), mark=Mark.FIRST),)))
        >>> compiled.stream_keys(Verdict(True, ((0, 1, 2),)), 5)
        GameMatch(matched=True, lists=(ListMatch(count=3, positions=(0, 1, 2), marked=(0,)),))
        """
        return self._game_match(verdict, range(main_moves + 1))

    # ---- queries the tags decide -------------------------------------------------------

    @property
    def decided_by_tags(self) -> bool:
        """Whether no list looks at the board: every list's body reads the tags alone (so
        it holds at every examined position of a game or at none) and no piece tag needs
        the game's pieces.  :meth:`tag_match` then evaluates a game without its moves.

        >>> from cqllegacy.core.tree import Header, Player, TopList
        >>> from cqllegacy.evaluator.testing import pd
        >>> compile_query(Query(Header(), (TopList(Player("Tal")),))).decided_by_tags
        True
        >>> compile_query(Query(Header(), (TopList(pd("Q")),))).decided_by_tags
        False
        """
        return self.optimize and self.driver is Driver.TAGS

    def tag_match(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        positions: Sequence[Any],
        mainline_length: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatch:
        """What :meth:`evaluate` gives for a query :attr:`decided_by_tags`, from the
        game's tags and its positions alone, named as the caller likes: ``positions``
        are every position in the evaluator's order (depth first, the main continuation
        before the variations: the main line, ``mainline_length`` positions, first).

        >>> from cqllegacy.core.tree import Header, Mark, Player, Scope, TopList
        >>> query = Query(Header(), (TopList(Player("Tal"), mark=Mark.ALL, scope=Scope.ALL),))
        >>> compiled = compile_query(query)
        >>> positions = ["start", "e4", "d4"]  # 1. e4 (1. d4)
        >>> found = compiled.tag_match({"White": "Tal"}, 1, positions, 2, skip_initial=True)
        >>> found.matched, found.lists[0].positions, found.lists[0].marked
        (True, ('e4', 'd4'), ('e4', 'd4'))
        >>> compiled.tag_match({"White": "Botvinnik"}, 1, ["start"], 1).matched
        False
        """
        if not self.decided_by_tags:
            raise ValueError("tag_match needs a query whose tags decide everything")
        ctx = Context(None, GameInfo.from_headers(headers))
        if not self._ordinal_ok(ordinal) or not self._tags_ok(ctx):
            return GameMatch(False, ())
        first = 1 if skip_initial else 0
        hits = []
        for compiled in self._lists:
            scope = Scope.ALL if variations else compiled.source.scope
            end = len(positions) if scope is Scope.ALL else mainline_length
            found = tuple(range(first, end)) if compiled.body(ctx, -1) else ()
            if not compiled.satisfied(len(found)):
                return GameMatch(False, ())
            hits.append(found)
        return self._game_match(Verdict(True, tuple(hits)), positions)

    def _judge(self, hits: Hits) -> bool:
        return all(
            compiled.satisfied(len(found))
            for compiled, found in zip(self._lists, hits, strict=True)
        )

    def _verdict(
        self,
        table: PositionTable,
        info: GameInfo,
        skip_initial: bool,
        variations: bool,
        candidates: Candidates = None,
    ) -> Verdict:
        """The hits of the first binding of the tags that satisfies every list (only
        ``candidates[i]`` are examined for list i, when given)."""
        ctx = Context(table, info)
        cache: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}
        for binding in self._bindings(table):
            for name, identity in binding.items():
                ctx.bind(name, identity)
            found = []
            for index, compiled in enumerate(self._lists):
                key = (index, tuple(binding[name] for name in compiled.tags))
                if key not in cache:
                    only = None if candidates is None else candidates[index]
                    cache[key] = self._list_hits(ctx, compiled, skip_initial, variations, only)
                if not compiled.satisfied(len(cache[key])):
                    break
                found.append(cache[key])
            else:
                return Verdict(True, tuple(found))
        return Verdict(False, ())

    def _game_match(self, verdict: Verdict, nodes: Sequence[Any]) -> GameMatch:
        if not verdict.matched:
            return GameMatch(False, ())
        lists = []
        for compiled, hits in zip(self._lists, verdict.hits, strict=True):
            positions = tuple(nodes[p] for p in hits)
            marked = {Mark.ALL: positions, Mark.FIRST: positions[:1], Mark.NONE: ()}
            lists.append(ListMatch(len(hits), positions, marked[compiled.source.mark]))
        return GameMatch(True, tuple(lists))

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

    def _list_hits(
        self,
        ctx: Context,
        compiled: _CompiledList,
        skip_initial: bool,
        variations: bool,
        only: Sequence[int] | None = None,
    ) -> tuple[int, ...]:
        scope = Scope.ALL if variations else compiled.source.scope
        ctx.set_scope(scope)
        end = len(ctx.table) if scope is Scope.ALL else ctx.table.mainline_length
        body = compiled.body
        first = 1 if skip_initial else 0
        examined = range(first, end) if only is None else (p for p in only if first <= p < end)
        return tuple(p for p in examined if body(ctx, p))


def _live_test(compiled: _CompiledList) -> ListTest:
    """How a live stream tests a list: on the board alone when the body is piece
    designators, counts of them and counts of attacks (:mod:`~cqllegacy.evaluator.board_tests`)."""
    check = board_tests.board_test(compiled.source.body)
    if check is not None:
        return (True, check)
    return (False, compiled.body)


def _local(node: Filter) -> bool:
    """Whether ``node`` reads only the current position, its next move and the tags."""
    return node.reads() <= Reads.NEXT_MOVE


def _gate(node: Filter) -> Filter | None:
    """A filter on the current position alone that matches wherever ``node`` matches
    (None when there is none worth having)."""
    if _local(node):
        return node
    if isinstance(node, Line):
        first = node.steps[0] if node.steps else None
        return _gate(first.filter) if first is not None and first.lo >= 1 else None
    if isinstance(node, LegacyOnly):
        return _gate(node.filter)
    if isinstance(node, Compound | And):
        found = [g for item in node.items if (g := _gate(item)) is not None]
        return Compound(tuple(found)) if found else None
    members: Sequence[Filter]
    if isinstance(node, Or | Union):
        members = node.items
    elif isinstance(node, Transform) and not node.count:
        members = orbit(node.kind, node.arg)
    else:
        return None
    gates = [_gate(member) for member in members if not isinstance(member, Comment)]
    if any(g is None for g in gates):
        return None
    return Or(tuple(dict.fromkeys(g for g in gates if g is not None)))


def _line_automata(compiler: Compiler, query: Query) -> tuple[LineAutomaton, ...] | None:
    """Per list, its body as lines of local steps followed while the game is read; None
    when some body is no OR of such lines (or the query has tags, which need the pieces'
    identities)."""
    if query.tags:
        return None
    automata = []
    for top in query.lists:
        members = line_members(top.body, _local)
        if members is None:
            return None
        automata.append(LineAutomaton(compiler, members))
    return tuple(automata)


def _horizon(node: Filter) -> int | None:
    """How many positions after the current one ``node`` may look at (None: unbounded,
    or earlier positions too)."""
    if node.reads_itself() is Reads.GAME and not isinstance(node, Line):
        # Earlier positions, pieces followed through the game, or unbounded search.
        return None
    below = [_horizon(child) for child in node.children()]
    if any(h is None for h in below):
        return None
    deepest = max((h for h in below if h is not None), default=0)
    if isinstance(node, Line):
        if any(step.hi is None for step in node.steps):
            return None
        return sum(step.hi or 0 for step in node.steps) - 1 + deepest
    return deepest


def _gates(compiler: Compiler, query: Query) -> tuple[tuple[Fn, ...], int] | None:
    """Per list, a test on the position being read that its body needs, and how far
    ahead the bodies look; None when some list has no such bound."""
    if query.tags:
        return None
    tests = []
    horizon = 0
    for top in query.lists:
        ahead = _horizon(top.body)
        gate = None if ahead is None else _gate(top.body)
        if gate is None or ahead is None:
            return None
        tests.append(compiler.truth(gate))
        horizon = max(horizon, ahead)
    return tuple(tests), horizon


@functools.lru_cache(maxsize=4)
def _recompile(query: Query, optimize: bool) -> CompiledQuery:
    # A worker process that is sent the query with every task compiles it once.
    return CompiledQuery(query, optimize=optimize)


def compile_query(query: Query, *, optimize: bool = True) -> CompiledQuery:
    """Compile ``query`` once; raises ``ValueError`` for a tree the evaluator cannot run
    (a logical filter used as a number, an unbound piece variable, …).

    ``optimize=False`` gives the straightforward evaluator (every orbit member evaluated
    on its own, a game tree for every game): slow, and the reference the optimised one is
    tested against.
    """
    return CompiledQuery(query, optimize=optimize)


def evaluate_filter(
    filter: Filter,
    node: chess.pgn.GameNode,
    *,
    scope: Scope = Scope.MAINLINE,
    optimize: bool = True,
) -> int | bool | None:
    """The value of ``filter`` at the position of ``node``: an ``int`` bitboard for a set
    filter, an ``int`` or None for a numeric one, a ``bool`` for a logical one.

    ``scope`` says which continuations ``move``, ``line`` and ``find`` follow.
    """
    free = free_variables(filter)
    if free:
        raise QueryError(f"piece variable {sorted(free)[0]!r} is never bound")
    compiled = Compiler(FAST_RULES if optimize else RULES).compile(filter)
    identities = filter.find(PieceVariable, PieceLoop) is not None
    table = PositionTable.build(node.game(), variations=True, identities=identities)
    ctx = Context(table, GameInfo.from_headers(node.game().headers))
    ctx.set_scope(scope)
    return compiled.fn(ctx, table.index_of(node))
