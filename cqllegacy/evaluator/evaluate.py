"""Compile a core :class:`Query` once and evaluate it on games.

A query goes through one pipeline once: analysed (:mod:`~cqllegacy.evaluator.analysis`:
tag checks, needles, the driver its reach allows), then lowered into a typed plan
(:func:`~cqllegacy.evaluator.lowering.lower_query`, :mod:`~cqllegacy.evaluator.plan`): every
node compiles to a closure ``fn(context, position) -> value``, a physical operator where
the lowering recognises its pattern, else by its reference rule
(:mod:`~cqllegacy.evaluator.position_rules`, :mod:`~cqllegacy.evaluator.line_rules`,
:mod:`~cqllegacy.evaluator.legacy_rules`), and the plan names the driver; the drivers
(:mod:`~cqllegacy.evaluator.drivers`) run the compiled lists on a game tree
(:class:`~cqllegacy.evaluator.gametree.PositionTable`, boards built incrementally), on
python-chess's board while a game is read, or on its tags alone.
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
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs
import chess
import chess.pgn

from cqllegacy.core.tree import (
    Filter,
    Mark,
    PieceLoop,
    PieceVariable,
    Query,
    Scope,
)
from cqllegacy.evaluator import legacy_rules, line_rules, lowering, position_rules
from cqllegacy.evaluator.analysis import (
    Driver,
    QueryAnalysis,
    QueryError,
    analyse,
)
from cqllegacy.evaluator.compiler import (
    REFERENCE_RULES,
    Compiler,
    Context,
    Lowering,
    in_bounds,
)
from cqllegacy.evaluator.drivers import (
    LinesDriver,
    LiveDriver,
    SnapshotDriver,
    StreamDriver,
    TagsDriver,
    TreeDriver,
)
from cqllegacy.evaluator.gametree import GameInfo, PositionTable
from cqllegacy.evaluator.needles import Needles
from cqllegacy.evaluator.plan import QueryPlan
from cqllegacy.evaluator.stream import GameStream, Verdict, main_line_only
from cqllegacy.evaluator.trees import free_variables
from cqllegacy.records import Record
from cqllegacy.recursion import room_for_deep_trees

if TYPE_CHECKING:
    from cqllegacy.evaluator.arrays import ListArrays

__all__ = [
    "REFERENCE_RULES",
    "CompiledQuery",
    "GameMatch",
    "ListMatch",
    "QueryError",
    "compile_query",
    "context_at",
    "evaluate_filter",
]

#: The reference rules: every node evaluated as the language defines it (the three rule
#: modules, imported above, have registered theirs).
assert position_rules and line_rules and legacy_rules

_NO_LOWERING: Mapping[type[Filter], Lowering] = MappingProxyType({})


def _compiler(optimize: bool) -> Compiler:
    return Compiler(REFERENCE_RULES, lowering.LOWERING if optimize else _NO_LOWERING)


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class ListMatch(Record):
    """How one top-level list fared on a game.

    Positions are game nodes (:meth:`CompiledQuery.evaluate`, :meth:`~CompiledQuery.stream_match`)
    or whatever names the caller gave them (:meth:`~CompiledQuery.stream_keys`,
    :meth:`~CompiledQuery.tag_match`).
    """

    count: int
    positions: tuple[Any, ...]
    marked: tuple[Any, ...]


@attrs.frozen(repr=False)
class GameMatch(Record):
    """Whether a game matched, with one :class:`ListMatch` per top-level list.

    ``lists`` is filled for a matching game (for the tag binding that matched); a game
    that does not match has ``lists == ()``.
    """

    matched: bool
    lists: tuple[ListMatch, ...]


# --------------------------------------------------------------------------------------
# The compiled query
# --------------------------------------------------------------------------------------


def _next_ply(p: int) -> int:
    return p + 1


class CompiledQuery:
    """A query ready to run on many games; build it with :func:`compile_query`.

    Every compiled query offers the whole interface the runner uses: :meth:`prefilter`,
    :meth:`evaluate` on a game tree, :meth:`stream` (a python-chess visitor that
    evaluates the game while it is read, or None when the query needs the game tree),
    :meth:`stream_keys`, :attr:`decided_by_tags` and :meth:`tag_match`, and
    :attr:`tag_needles`; all give the results :meth:`evaluate` gives.
    """

    def __init__(self, query: Query, *, optimize: bool = True) -> None:
        with room_for_deep_trees():
            self._build(query, optimize)

    def _build(self, query: Query, optimize: bool) -> None:
        self.query = query
        self.optimize = optimize
        compiler = _compiler(optimize)
        compiler.extras[lowering.TAG_BOUNDS] = lowering.tag_bounds(query.tags)
        plan = lowering.lower_query(compiler, analyse(query))
        self.plan: QueryPlan = plan
        self._lists = plan.lists
        self._tree = TreeDriver(query, self._lists)
        self._streams: StreamDriver | None = None
        if plan.driver is Driver.LIVE:
            self._streams = LiveDriver(self._lists)
        elif plan.driver is Driver.LINES:
            self._streams = LinesDriver(self._lists, plan.tries)
        elif plan.driver is Driver.SNAPSHOT:
            self._streams = SnapshotDriver(self._tree, plan.analysis.identities, plan.gates)
        if plan.driver is not Driver.LINES:
            # Compiled now, so that a query the evaluator cannot run is refused before any
            # game.  The tries of a LINES query compiled every step already; its body (a
            # keyed index of hundreds of lines, for a game with variations) waits.
            for compiled in self._lists:
                compiled.compile()
        self._tags = TagsDriver(self._lists) if plan.driver is Driver.TAGS else None
        self.analysis: QueryAnalysis = plan.analysis

    @property
    def driver(self) -> Driver:
        """How games are evaluated, as the plan says (Driver.TREE for the reference
        evaluator, ``optimize=False``)."""
        return self.plan.driver

    @property
    def tag_needles(self) -> Needles:
        """What the tag section of a game that passes :meth:`prefilter` contains (see
        :mod:`~cqllegacy.evaluator.needles`); the runner rejects other games unparsed."""
        return self.analysis.tag_needles

    def __reduce__(self) -> tuple[Any, ...]:
        # Closures do not pickle; the query does, and compiling it again is cheap (an
        # engine sends the compiled query to each worker once, see cqllegacy.runner).  A
        # worker gets the one compiled query of its process for the query: its scan and
        # the report entries it makes (present.witness) share one plan.
        return (_compiled, (self.query, self.optimize))

    # ---- rejecting games from their tags -------------------------------------------

    def _ordinal_ok(self, ordinal: int) -> bool:
        bounds = self.query.header.gamenumber
        return bounds is None or in_bounds(ordinal, bounds)

    def _tags_ok(self, ctx: Context) -> bool:
        """Whether the tags let some form of the query match (every list of it that
        needs a match passes its checks of the tags)."""
        size = len(self._lists) // self.query.forms
        return any(
            all(
                check(ctx, -1)
                for top in self._lists[first : first + size]
                if top.analysis.needs_a_match
                for check in top.game_checks
            )
            for first in (range(0, len(self._lists), size) if size else (0,))
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
        self._follows_variations(variations)
        info = GameInfo.from_headers(game.headers)
        if not self._ordinal_ok(ordinal) or not self._tags_ok(Context(None, info)):
            return GameMatch(False, ())
        table = PositionTable.build(
            game,
            variations=variations or self.analysis.variations,
            identities=self.analysis.identities,
        )
        verdict = self._tree.verdict(table, info, skip_initial, variations)
        return self._game_match(verdict, table.nodes, table.main_child.__getitem__)

    def stream(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameStream | None:
        """A visitor for ``chess.pgn.read_game`` that evaluates the game while it is read
        (``headers`` are the game's tags); None when this query is evaluated on the game
        tree (:meth:`evaluate`), or the game cannot match.

        After a clean read (``stream.readable``) ``stream.verdict()`` says whether the game
        matched (None: it has variations this query examines; use :meth:`evaluate`), and
        :meth:`stream_match` turns a verdict into the :class:`GameMatch` of the game tree.
        """
        self._follows_variations(variations)
        if self._streams is None:
            return None
        info = GameInfo.from_headers(headers)
        if not self._ordinal_ok(ordinal) or not self._tags_ok(Context(None, info)):
            return None
        return self._streams.stream(
            info,
            skip_initial=skip_initial,
            variations=variations,
            leave_on_variation=variations or self.analysis.variations,
        )

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

    @functools.cached_property
    def arrays(self) -> tuple[ListArrays, ...] | None:
        """Per list, its body's array forms (:mod:`~cqllegacy.evaluator.arrays`): what an
        index's stored positions answer column by column (for a query that binds piece
        tags, only what every binding needs).  None for the reference evaluator; numpy is
        imported only when this is first asked.  None also for a query of several forms
        (its games are read and evaluated on the game tree)."""
        if not self.optimize or self.query.forms > 1:
            return None
        from cqllegacy.evaluator.arrays import list_arrays

        with room_for_deep_trees():
            return tuple(
                attrs.evolve(
                    list_arrays(compiled.source.body, tags=self.query.tags),
                    least=1 if bounds is None else bounds[0],
                    satisfied=compiled.satisfied,
                    start_only=compiled.analysis.start_only,
                )
                for compiled in self._lists
                for bounds in (compiled.source.matchcount,)
            )

    @functools.cached_property
    def main_line_stream(self) -> bool:
        """Whether :meth:`stream` gives, for every game it does not reject, a stream that
        reads nothing of the game but its main line's boards and moves (see
        :func:`~cqllegacy.evaluator.stream.main_line_only`), so that an index's stored
        positions can feed it instead of the game's text; False when the query examines
        variations (its stream gives up on one, which only the text shows) or offers no
        stream.

        >>> from cqllegacy.core.tree import Header, TopList
        >>> from cqllegacy.evaluator.testing import pd
        >>> compile_query(Query(Header(), (TopList(pd("Q")),))).main_line_stream
        True
        """
        if self._streams is None or self.analysis.variations:
            return False
        probe = self._streams.stream(
            GameInfo(), skip_initial=False, variations=False, leave_on_variation=False
        )
        return main_line_only(type(probe))

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
        return self._tags is not None

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
        if self._tags is None:
            raise ValueError("tag_match needs a query whose tags decide everything")
        info = GameInfo.from_headers(headers)
        if not self._ordinal_ok(ordinal) or not self._tags_ok(Context(None, info)):
            return GameMatch(False, ())
        hits = self._tags.hits(
            info,
            len(positions),
            mainline_length,
            skip_initial=skip_initial,
            variations=variations,
        )
        if hits is None:
            return GameMatch(False, ())
        return self._game_match(Verdict(True, hits), positions)

    def _follows_variations(self, variations: bool) -> None:
        """Refuse to follow every variation with a list whose mark a ``:line`` moves: its
        played moves may end in several continuations (X3)."""
        if not variations:
            return
        for top in self.query.lists:
            if top.mark_end is not None:
                raise QueryError(
                    f"{top.mark_end.origin or '`:line`'} marks where its played moves end,"
                    " which with variations followed may be several positions: run without"
                    " --variations, or mark nothing with :noannotate"
                )

    def _game_match(
        self, verdict: Verdict, nodes: Sequence[Any], after: Callable[[int], int] = _next_ply
    ) -> GameMatch:
        """The match of a verdict, positions named by ``nodes`` (by the verdict's position
        numbers); ``after`` gives the position the line followed reaches from a position
        (-1 at its end): the main continuation, one half-move on.  A list whose mark a
        ``:line`` moves (X3) names, and marks, where the line's played moves end."""
        if not verdict.matched:
            return GameMatch(False, ())
        lists = []
        for compiled, hits in zip(self._lists, verdict.hits, strict=True):
            end = compiled.source.mark_end
            if end is not None:
                hits = tuple(_line_end(p, end.plies, after) for p in hits)
            positions = tuple(nodes[p] for p in hits)
            marked = {Mark.ALL: positions, Mark.FIRST: positions[:1], Mark.NONE: ()}
            lists.append(ListMatch(len(hits), positions, marked[compiled.source.mark]))
        return GameMatch(True, tuple(lists))


def _line_end(p: int, plies: int, after: Callable[[int], int]) -> int:
    """The position ``plies`` half-moves on from ``p`` along the main continuations: where
    a ``:line`` that matched at ``p`` ends its played moves, which the game holds."""
    for _ in range(plies):
        p = after(p)
        if p < 0:
            raise AssertionError("a :line matched past the end of its line")
    return p


@functools.lru_cache(maxsize=8)
def _compiled(query: Query, optimize: bool) -> CompiledQuery:
    return CompiledQuery(query, optimize=optimize)


def compile_query(query: Query, *, optimize: bool = True) -> CompiledQuery:
    """Compile ``query`` once; raises ``ValueError`` for a tree the evaluator cannot run
    (a logical filter used as a number, an unbound piece variable, …).

    Once per process: an equal query gets the same compiled query (the last few are
    kept), so what shows a run's results (:mod:`cqllegacy.present.witness`) reads the
    plan the run ran, lowered once.

    ``optimize=False`` gives the reference evaluator (every node compiled by its
    reference rule, every orbit member evaluated on its own, a game tree for every game):
    slow, and what the lowered one is tested against.
    """
    return _compiled(query, optimize)


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
    with room_for_deep_trees():
        free = free_variables(filter)
        if free:
            raise QueryError(f"piece variable {sorted(free)[0]!r} is never bound")
        compiled = _compiler(optimize).compile(filter)
    identities = filter.find(PieceVariable, PieceLoop) is not None
    ctx, p = context_at(node, scope=scope, identities=identities)
    value: int | bool | None = compiled.fn(ctx, p)
    return value


def context_at(node: chess.pgn.GameNode, *, scope: Scope, identities: bool) -> tuple[Context, int]:
    """A context for the game of ``node`` (every variation laid out, pieces followed when
    ``identities``) with ``scope``'s continuations, and the position of ``node`` in it."""
    game = node.game()
    table = PositionTable.build(game, variations=True, identities=identities)
    ctx = Context(table, GameInfo.from_headers(game.headers))
    ctx.set_scope(scope)
    return ctx, table.index_of(node)
