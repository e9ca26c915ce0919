"""Compile a core :class:`Query` once and evaluate it on games.

Every node compiles to a closure ``fn(context, position) -> value`` through dispatch
tables keyed by node class (:mod:`~cqllegacy.core.position_rules`,
:mod:`~cqllegacy.core.line_rules`, :mod:`~cqllegacy.core.legacy_rules`); orbits, masks
and piece sets are computed at compile time.  A game is laid out once
(:class:`~cqllegacy.core.gametree.PositionTable`, boards built incrementally).
Values follow CQL: a set filter gives an ``int`` bitboard (it matches when non-zero, a
failing one gives 0, the empty set), a numeric filter an ``int`` (``None`` when it
fails), a logical filter a ``bool``.

Decisions where modern-cql.md leaves the value open (§8, §9, §5):

- ``move`` and ``line`` are logical filters (the translator uses them as conditions);
  ``piece x in S body`` is a set filter: the squares of S whose piece makes the body match.
- ``move previous from/to/capture X``: X is evaluated at the position the move was
  played from, as it is for the next move.
- Two sets compared with ``<``, ``<=``, ``>``, ``>=`` compare their sizes; ``==`` and
  ``!=`` compare the sets themselves.

>>> from cqllegacy.core.testing import pd, position
>>> from cqllegacy.core.tree import Count
>>> evaluate_filter(Count(pd("P")), position())
8
>>> evaluate_filter(pd("Ke1"), position()) == 1 << 4
True
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping

import attrs
import chess
import chess.pgn

from cqllegacy.core import legacy_rules, line_rules, position_rules
from cqllegacy.core.compiler import Compiler, Context, Fn, QueryError, Rule, in_bounds
from cqllegacy.core.gametree import GameInfo, PositionTable
from cqllegacy.core.tree import (
    And,
    Arith,
    Comment,
    Compare,
    Compound,
    Elo,
    Filter,
    InRange,
    Keyword,
    LegacyOnly,
    LineStep,
    Mark,
    Negate,
    Not,
    Number,
    NumericKeyword,
    NumericValue,
    Or,
    PieceLoop,
    PieceVariable,
    Player,
    Query,
    Relation,
    RelationScope,
    Result,
    Scope,
    Simple,
    TagContains,
    TopList,
    Transform,
)

__all__ = [
    "CompiledQuery",
    "GameMatch",
    "ListMatch",
    "QueryError",
    "compile_query",
    "evaluate_filter",
]

RULES: Mapping[type[Filter], Rule] = {
    **position_rules.RULES,
    **line_rules.RULES,
    **legacy_rules.RULES,
}


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@attrs.frozen
class ListMatch:
    """How one top-level list fared on a game."""

    count: int
    positions: tuple[chess.pgn.GameNode, ...]
    marked: tuple[chess.pgn.GameNode, ...]


@attrs.frozen
class GameMatch:
    """Whether a game matched, with one :class:`ListMatch` per top-level list.

    ``lists`` is filled for a matching game (for the tag binding that matched); a game
    that does not match has ``lists == ()``.
    """

    matched: bool
    lists: tuple[ListMatch, ...]


# --------------------------------------------------------------------------------------
# Tree walks used at compile time
# --------------------------------------------------------------------------------------


def _children(node: Filter) -> Iterator[Filter]:
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, Filter):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Filter):
                    yield item
                elif isinstance(item, LineStep):
                    yield item.filter


def _walk(node: Filter) -> Iterator[Filter]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(_children(current))


def _free_variables(node: Filter, bound: frozenset[str] = frozenset()) -> set[str]:
    if isinstance(node, PieceVariable):
        return set() if node.name in bound else {node.name}
    if isinstance(node, PieceLoop):
        return _free_variables(node.domain, bound) | _free_variables(node.body, bound | {node.name})
    out: set[str] = set()
    for child in _children(node):
        out |= _free_variables(child, bound)
    return out


_GAME_LEAVES = (Result, Player, TagContains, Elo, Number, Comment)
_GAME_COMPOSITES = (And, Or, Not, Compound, InRange, Compare, Arith, Negate, Transform, LegacyOnly)


def _depends_on_game_only(node: Filter) -> bool:
    """True for filters that read the tags alone (result, player, year, elo, event, site)."""
    if isinstance(node, _GAME_LEAVES):
        return True
    if isinstance(node, NumericValue):
        return node.keyword is NumericKeyword.YEAR
    if isinstance(node, Simple):
        return node.keyword in (Keyword.TRUE, Keyword.FALSE)
    if isinstance(node, _GAME_COMPOSITES):
        return all(_depends_on_game_only(child) for child in _children(node))
    return False


def _conjuncts(node: Filter) -> Iterator[Filter]:
    """The filters that must all match wherever ``node`` matches."""
    if isinstance(node, Compound | And):
        for item in node.items:
            yield from _conjuncts(item)
    elif isinstance(node, LegacyOnly):
        yield from _conjuncts(node.filter)
    else:
        yield node


# --------------------------------------------------------------------------------------
# The compiled query
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class _CompiledList:
    source: TopList
    body: Fn
    tags: tuple[str, ...]
    game_checks: tuple[Fn, ...]

    @property
    def needs_a_match(self) -> bool:
        return self.source.matchcount is None or self.source.matchcount[0] >= 1

    def satisfied(self, count: int) -> bool:
        if self.source.matchcount is None:
            return count >= 1
        return in_bounds(count, self.source.matchcount)


class CompiledQuery:
    """A query ready to run on many games; build it with :func:`compile_query`."""

    def __init__(self, query: Query) -> None:
        self.query = query
        compiler = Compiler(RULES)
        tag_names = {tag.name for tag in query.tags}
        if len(tag_names) != len(query.tags):
            raise QueryError("two tags have the same name")
        lists = []
        for top in query.lists:
            free = _free_variables(top.body)
            unknown = free - tag_names
            if unknown:
                raise QueryError(f"piece variable {sorted(unknown)[0]!r} is never bound")
            checks = tuple(
                compiler.truth(conjunct)
                for conjunct in _conjuncts(top.body)
                if _depends_on_game_only(conjunct)
            )
            lists.append(_CompiledList(top, compiler.truth(top.body), tuple(sorted(free)), checks))
        self._lists = tuple(lists)
        nodes = [n for top in query.lists for n in _walk(top.body)]
        self._identities = bool(query.tags) or any(
            isinstance(n, PieceVariable | PieceLoop) for n in nodes
        )
        self._variations = any(top.scope is Scope.ALL for top in query.lists) or any(
            isinstance(n, Relation) and n.scope is not RelationScope.MAINLINE for n in nodes
        )

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
        ctx = Context(table, info)
        cache: dict[tuple[int, tuple[int, ...]], ListMatch] = {}
        for binding in self._bindings(table):
            for name, identity in binding.items():
                ctx.bind(name, identity)
            lists = []
            for index, compiled in enumerate(self._lists):
                key = (index, tuple(binding[name] for name in compiled.tags))
                if key not in cache:
                    cache[key] = self._run_list(ctx, compiled, skip_initial, variations)
                if not compiled.satisfied(cache[key].count):
                    break
                lists.append(cache[key])
            else:
                return GameMatch(True, tuple(lists))
        return GameMatch(False, ())

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

    def _run_list(
        self, ctx: Context, compiled: _CompiledList, skip_initial: bool, variations: bool
    ) -> ListMatch:
        source = compiled.source
        scope = Scope.ALL if variations else source.scope
        ctx.set_scope(scope)
        end = len(ctx.table) if scope is Scope.ALL else ctx.table.mainline_length
        body = compiled.body
        hits = tuple(p for p in range(1 if skip_initial else 0, end) if body(ctx, p))
        nodes = tuple(ctx.nodes[p] for p in hits)
        marked = {Mark.ALL: nodes, Mark.FIRST: nodes[:1], Mark.NONE: ()}[source.mark]
        return ListMatch(len(hits), nodes, marked)


def compile_query(query: Query) -> CompiledQuery:
    """Compile ``query`` once; raises ``ValueError`` for a tree the evaluator cannot run
    (a logical filter used as a number, an unbound piece variable, …)."""
    return CompiledQuery(query)


def evaluate_filter(
    filter: Filter, node: chess.pgn.GameNode, *, scope: Scope = Scope.MAINLINE
) -> int | bool | None:
    """The value of ``filter`` at the position of ``node``: an ``int`` bitboard for a set
    filter, an ``int`` or None for a numeric one, a ``bool`` for a logical one.

    ``scope`` says which continuations ``move``, ``line`` and ``find`` follow.
    """
    free = _free_variables(filter)
    if free:
        raise QueryError(f"piece variable {sorted(free)[0]!r} is never bound")
    compiled = Compiler(RULES).compile(filter)
    identities = any(isinstance(n, PieceVariable | PieceLoop) for n in _walk(filter))
    table = PositionTable.build(node.game(), variations=True, identities=identities)
    ctx = Context(table, GameInfo.from_headers(node.game().headers))
    ctx.set_scope(scope)
    return compiled.fn(ctx, table.index_of(node))
