"""What a query needs before any game is read: its analysis, and the driver it runs on.

Everything here is read off the tree through the node API: each node class declares how
far it looks (:class:`~cqllegacy.core.tree.Reads`), and a tree looks as far as its
farthest node.  The driver follows from that alone, so a node class added later that
declares nothing is run on the full game tree: slower, never wrong.

======================  ================================================================
driver                  when
======================  ================================================================
``Driver.TAGS``         every list reads the tags alone and no piece tag needs the pieces:
                        a game matches at every examined position or at none; its moves
                        are not replayed
``Driver.LIVE``         every list reads at most the current position and its next move:
                        evaluated on python-chess's own board while the game is read
``Driver.TREE``         anything else (``find``, ``move previous``, relations, piece
                        identities, lines), and a query of more than one form
                        (``Query.forms``): a table of the game's positions
======================  ================================================================

:func:`analyse` chooses among these three from ``READS`` alone.  The lowering
(:func:`~cqllegacy.evaluator.lowering.lower_query`) then settles how a ``TREE`` query
runs: ``Driver.LINES`` when every list is an OR of lines whose steps read no more than
the next move (the lines are followed forward while the game is read), else
``Driver.SNAPSHOT`` (the main line's boards copied while the game is read, behind gates
where it can; the game tree for a game with variations the query examines).  ``TREE``
itself is the reference evaluation (``optimize=False``).

>>> from cqllegacy.core.tree import Find, Header, Player, TopList
>>> from cqllegacy.evaluator.testing import pd
>>> def driver(*bodies):
...     return analyse(Query(Header(), tuple(TopList(b) for b in bodies))).driver.name
>>> driver(Player("Tal")), driver(pd("Q"), Player("Tal")), driver(Find(pd("Q")))
('TAGS', 'LIVE', 'TREE')
"""

from __future__ import annotations

import enum

import attrs

from cqllegacy.core.tree import (
    Filter,
    Keyword,
    Or,
    PieceLoop,
    PieceVariable,
    Query,
    Reads,
    Relation,
    RelationScope,
    Scope,
    Simple,
    TopList,
    Transform,
)
from cqllegacy.errors import CqlLegacyError
from cqllegacy.evaluator.needles import Needles, needles_of
from cqllegacy.evaluator.trees import free_variables, meaningful
from cqllegacy.records import Record

__all__ = [
    "Driver",
    "ListAnalysis",
    "QueryAnalysis",
    "QueryError",
    "analyse",
    "reads_tags_only",
]


class QueryError(CqlLegacyError, ValueError):
    """A query the evaluator cannot run: a filter of the wrong kind where a set or a number
    is needed, an unbound piece variable, a node without a rule.  The readers check these
    first; this is the last line, so the user still gets a message and no traceback."""

    def render(self) -> str:
        return f"error: cannot run the query: {self}"


class Driver(enum.Enum):
    """How games are evaluated for a query (see the module's table)."""

    TAGS = "tags"
    LIVE = "live"
    #: Chosen by the lowering, never by :func:`analyse`.
    LINES = "lines"
    #: Chosen by the lowering, never by :func:`analyse`.
    SNAPSHOT = "snapshot"
    TREE = "tree"


def reads_tags_only(node: Filter) -> bool:
    """Whether ``node`` reads the game's tags and nothing else (result, player, year …)."""
    return node.reads() is Reads.TAGS


@attrs.frozen(repr=False)
class ListAnalysis(Record):
    """One top-level list: how far its body looks, the piece tags it reads, and the
    conjuncts of its body that read the tags alone (tested before the game is read)."""

    source: TopList
    reads: Reads
    tags: tuple[str, ...]
    tag_conjuncts: tuple[Filter, ...]
    #: The body holds at the start position only (it requires ``initial``).
    start_only: bool = False

    @property
    def needs_a_match(self) -> bool:
        return self.source.matchcount is None or self.source.matchcount[0] >= 1


@attrs.frozen(repr=False)
class QueryAnalysis(Record):
    """What the drivers need to know about a query, computed once."""

    query: Query
    lists: tuple[ListAnalysis, ...]
    #: The game tree must follow pieces (piece tags, piece variables).
    identities: bool
    #: Some list examines variations, or a relation looks into them.
    variations: bool
    #: Texts a game's tag section must contain (see :mod:`~cqllegacy.evaluator.needles`).
    tag_needles: Needles
    driver: Driver


def _list_analysis(top: TopList, tag_names: set[str]) -> ListAnalysis:
    free = free_variables(top.body)
    unknown = free - tag_names
    if unknown:
        raise QueryError(f"piece variable {sorted(unknown)[0]!r} is never bound")
    checks = tuple(c for c in top.body.conjuncts() if reads_tags_only(c))
    return ListAnalysis(
        top, top.body.reads(), tuple(sorted(free)), checks, requires_initial(top.body)
    )


def requires_initial(node: Filter) -> bool:
    """Whether ``node`` holds at the start position only: ``initial`` is one of its
    conjuncts, of every member of a disjunction, or of what a transform turns (no
    transform changes ``initial``).

    >>> from cqllegacy.core.tree import Compound, Keyword, Not, Simple, Transform, TransformKind
    >>> from cqllegacy.evaluator.testing import pd
    >>> start = Simple(Keyword.INITIAL)
    >>> requires_initial(Transform(TransformKind.FLIPCOLOR, Compound((start, pd("K")))))
    True
    >>> requires_initial(Or((start, pd("K")))), requires_initial(Not(start))
    (False, False)
    """
    for part in node.conjuncts():
        if isinstance(part, Simple) and part.keyword is Keyword.INITIAL:
            return True
        if isinstance(part, Or):
            items = meaningful(part.items)
            if items and all(requires_initial(item) for item in items):
                return True
        if isinstance(part, Transform) and not part.count and requires_initial(part.arg):
            return True
    return False


def _needles(lists: tuple[ListAnalysis, ...]) -> Needles:
    clauses = (
        clause
        for analysis in lists
        if analysis.needs_a_match
        for conjunct in analysis.tag_conjuncts
        for clause in needles_of(conjunct)
    )
    return tuple(dict.fromkeys(clauses))


def _looks_into_variations(node: Filter) -> bool:
    return any(
        isinstance(n, Relation) and n.scope is not RelationScope.MAINLINE for n in node.walk()
    )


def _driver(query: Query, lists: tuple[ListAnalysis, ...]) -> Driver:
    if query.tags:
        # Piece tags follow pieces through the game: only the game tree knows them.
        return Driver.TREE
    if query.forms > 1:
        # One form's lists, then another's: the game tree tries them in turn.
        return Driver.TREE
    farthest = max((analysis.reads for analysis in lists), default=Reads.TAGS)
    if farthest is Reads.TAGS:
        return Driver.TAGS
    if farthest <= Reads.NEXT_MOVE:
        return Driver.LIVE
    # The lowering settles how: LINES or SNAPSHOT (see the module's docstring).
    return Driver.TREE


def analyse(query: Query) -> QueryAnalysis:
    """The analysis of ``query``; raises :class:`QueryError` for one that cannot run."""
    tag_names = {tag.name for tag in query.tags}
    if len(tag_names) != len(query.tags):
        raise QueryError("two tags have the same name")
    lists = tuple(_list_analysis(top, tag_names) for top in query.lists)
    identities = bool(query.tags) or any(
        analysis.source.body.find(PieceVariable, PieceLoop) is not None for analysis in lists
    )
    variations = any(top.scope is Scope.ALL for top in query.lists) or any(
        _looks_into_variations(top.body) for top in query.lists
    )
    return QueryAnalysis(
        query=query,
        lists=lists,
        identities=identities,
        variations=variations,
        # A form's needles do not bind a game another form may match.
        tag_needles=_needles(lists) if query.forms == 1 else (),
        driver=_driver(query, lists),
    )
