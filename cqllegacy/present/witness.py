"""Why a position matched: the member of each union or transform orbit that matched there,
and the squares of its designators.

A list's body stands for an OR of many filters (the members of a transform's orbit, or
the disjuncts of the explicit union the translator wrote for a legacy transform set).
:func:`witness` keeps, at one position, the first member of each such OR that matches
there, so the result is the filter *as transformed*: ``Nd4 k[b3,…]`` shifted to
``Ne5 k[c4,…]``.  :func:`highlighted_squares` then gives the squares its designators
stand for on the board, which is what a diagram highlights.

The members are those the lowering expands, each judged by the test the run's own plan
compiles of it (:class:`~cqllegacy.evaluator.plan.Members` of the query's
:class:`~cqllegacy.evaluator.plan.QueryPlan`, lowered once: ``compile_query`` gives the
run's compiled query again) on the game laid out once, so a member matches here exactly
when the run would say so.

>>> import io, chess.pgn
>>> from cqllegacy.core.tree import Compound, PieceSet, Transform, TransformKind
>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import format_squares, parse_squares
>>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Qh5 Nc6 *"))
>>> queen = Transform(TransformKind.SHIFT, PieceSet(types_of("Q"), parse_squares("d1")))
>>> found = witness(queen, game.end())
>>> designator_texts(found)
['Qh5']
>>> format_squares(highlighted_squares(found, game.end().board()))
'h5'
"""

from __future__ import annotations

from collections.abc import Iterator

import chess
import chess.pgn

from cqllegacy.core.tree import (
    And,
    Comment,
    Compound,
    Filter,
    Find,
    Header,
    Line,
    Not,
    PieceLoop,
    PieceSet,
    PieceVariable,
    Query,
    Relation,
    Scope,
    TopList,
)
from cqllegacy.evaluator.evaluate import compile_query, context_at
from cqllegacy.evaluator.masks import designator_squares
from cqllegacy.evaluator.plan import Members, QueryPlan
from cqllegacy.runner.movetext import PositionKey
from cqllegacy.vocab.pieces import format_legacy_types
from cqllegacy.vocab.squares import SquareSet, format_squares

__all__ = [
    "designator_texts",
    "designators",
    "highlighted_squares",
    "node_at",
    "plan_of",
    "witness",
]

#: Members of one OR examined at most (a nested orbit can have thousands; past this the
#: OR itself stands as its own witness).
MAX_MEMBERS = 20_000


def node_at(game: chess.pgn.Game, key: PositionKey) -> chess.pgn.GameNode:
    """The game node a report key names (:func:`cqllegacy.runner.report.position_key`).

    >>> import io
    >>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 *"))
    >>> node_at(game, 3).san(), node_at(game, "2.1").san(), node_at(game, "2.1/3.1").san()
    ('Nf3', 'c5', 'c3')
    >>> node_at(game, 9)
    Traceback (most recent call last):
    ...
    KeyError: 'no position 9 in the game'
    """
    node: chess.pgn.GameNode = game
    ply = 0
    steps = [key] if isinstance(key, int) else str(key).split("/")
    for step in steps:
        target, _, choice = str(step).partition(".")
        stop = int(target) - (1 if choice else 0)
        while ply < stop:
            if not node.variations:
                raise KeyError(f"no position {key} in the game")
            node = node.variations[0]
            ply += 1
        if choice:
            index = int(choice)
            if index >= len(node.variations):
                raise KeyError(f"no position {key} in the game")
            node = node.variations[index]
            ply += 1
    return node


def square_value(piece_set: PieceSet, board: chess.Board) -> SquareSet:
    """The squares of ``piece_set`` whose content it admits on ``board`` (the evaluator's
    one definition of a piece designator's squares).

    >>> from cqllegacy.vocab.pieces import types_of
    >>> from cqllegacy.vocab.squares import parse_squares
    >>> format_squares(square_value(PieceSet(types_of("P"), parse_squares("a-h2")), chess.Board()))
    'a-h2'
    """
    return designator_squares(piece_set.types, piece_set.squares)(board)


def plan_of(query: Query) -> QueryPlan:
    """The plan a run of ``query`` runs: the run's own compiled query (``compile_query``
    gives one per query in a process), not a second lowering."""
    return compile_query(query).plan


def _plan_of_body(body: Filter, scope: Scope) -> QueryPlan:
    """The plan of ``body`` run alone as a list (a witness asked of a bare filter)."""
    return plan_of(Query(Header(), (TopList(body, scope=scope),)))


class _Place:
    """The position where members are judged: a context of the game laid out once, and
    the position's index in it."""

    def __init__(
        self, node: chess.pgn.GameNode, body: Filter, scope: Scope, plan: QueryPlan
    ) -> None:
        identities = body.find(PieceVariable, PieceLoop) is not None
        self.ctx, self.p = context_at(node, scope=scope, identities=identities)
        self.members = plan.members

    def matches(self, member: Filter) -> bool:
        return self.members.holds(member, self.ctx, self.p)


def witness(
    body: Filter,
    node: chess.pgn.GameNode,
    *,
    scope: Scope = Scope.MAINLINE,
    board: chess.Board | None = None,
    plan: QueryPlan | None = None,
) -> Filter:
    """``body`` with each OR and transform replaced by its first member that matches at
    ``node`` (conjunctions are followed into; other nodes stay as they are).  When no
    member can be shown to match, the OR stays whole.  The members and whether they
    hold are ``plan``'s (:class:`~cqllegacy.evaluator.plan.Members`): the plan of the
    query whose list ``body`` is (:func:`plan_of`), or, without one, of ``body`` run
    alone; ``board`` (the node's board, when the caller has it) is accepted and not
    needed."""
    if plan is None:
        plan = _plan_of_body(body, scope)
    return _witness(body, _Place(node, body, scope, plan))


def _witness(body: Filter, place: _Place) -> Filter:
    found = _resolved(body, place)
    return body if found is None else found


def _resolved(body: Filter, place: _Place) -> Filter | None:
    """``body`` with its ORs resolved to a matching member; None when ``body`` is an OR
    none of whose members is shown to match."""
    if isinstance(body, Compound | And):
        return Compound(tuple(_witness(item, place) for item in body.items))
    members = Members.of(body)
    if members is None:
        return body
    if len(members) > MAX_MEMBERS:
        return None
    for member in members:
        if isinstance(member, Comment):
            continue
        if Members.of(member) is not None:
            # A nested OR (an orbit inside an orbit): its own members are tried one by
            # one instead of compiling the whole nested orbit.
            found = _resolved(member, place)
            if found is not None:
                return found
        elif place.matches(member):
            return _witness(member, place)
    return None


def designators(found: Filter) -> Iterator[PieceSet]:
    """The piece designators that speak of this position: not under a negation, nor
    inside a line, a search or a relation (those look at other positions)."""
    if isinstance(found, PieceSet):
        yield found
        return
    if isinstance(found, Not | Line | Find | Relation) or Members.of(found) is not None:
        return
    for child in found.children():
        yield from designators(child)


def designator_texts(found: Filter) -> list[str]:
    """The designators of :func:`designators` in legacy notation, each once."""
    texts = (
        format_legacy_types(d.types) + format_squares(d.squares)
        for d in designators(found)
        if d.types and d.squares
    )
    return list(dict.fromkeys(texts))


def highlighted_squares(found: Filter, board: chess.Board) -> SquareSet:
    """The squares the designators of ``found`` stand for on ``board``."""
    squares = 0
    for piece_set in designators(found):
        squares |= square_value(piece_set, board)
    return squares
