"""Why a position matched: the member of each union or transform orbit that matched there,
and the squares of its designators.

A list's body stands for an OR of many filters (the members of a transform's orbit, or
the disjuncts of the explicit union the translator wrote for a legacy transform set).
:func:`witness` keeps, at one position, the first member of each such OR that matches
there, so the result is the filter *as transformed*: ``Nd4 k[b3,…]`` shifted to
``Ne5 k[c4,…]``.  :func:`highlighted_squares` then gives the squares its designators
stand for on the board, which is what a diagram highlights.

Each member is judged by the evaluator (:func:`~cqllegacy.evaluator.evaluate.evaluate_filter`)
at the game node itself, so a member matches here exactly when the run would say so;
a cheap necessary test on the board (every designator standing directly in the
member's conjunction must find a square) spares most members that evaluation.

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

from cqllegacy.core.transforms import orbit
from cqllegacy.core.tree import (
    And,
    Comment,
    Compound,
    Filter,
    Find,
    Keyword,
    Line,
    Not,
    NumericKeyword,
    NumericValue,
    Or,
    PieceSet,
    Reads,
    Relation,
    Scope,
    Simple,
    Transform,
)
from cqllegacy.runner.movetext import PositionKey
from cqllegacy.vocab.pieces import EMPTY_BIT, format_legacy_types, piece_types_in
from cqllegacy.vocab.squares import SquareSet, format_squares

__all__ = [
    "designator_texts",
    "designators",
    "highlighted_squares",
    "node_at",
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
    """The squares of ``piece_set`` whose content it admits on ``board``.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> from cqllegacy.vocab.squares import parse_squares
    >>> format_squares(square_value(PieceSet(types_of("P"), parse_squares("a-h2")), chess.Board()))
    'a-h2'
    """
    found = 0
    for color, piece_type in piece_types_in(piece_set.types):
        found |= board.pieces_mask(piece_type, color)
    if piece_set.types & EMPTY_BIT:
        found |= ~board.occupied & chess.BB_ALL
    return found & piece_set.squares


def _may_match(member: Filter, board: chess.Board) -> bool:
    """False when a designator standing in the member's conjunction finds no square
    (then the member cannot match); True otherwise."""
    return all(
        square_value(part, board) != 0 for part in member.designators()
    )


#: Keywords that depend on where the position stands in the game, not on its board.
_PLACE_KEYWORDS = frozenset({Keyword.INITIAL, Keyword.MAINLINE, Keyword.VARIATION})


def _reads_the_board_alone(member: Filter) -> bool:
    """Whether ``member`` reads no more than the board, its next moves and the tags (not
    the ply, the move number or the position's place in the game)."""
    if member.reads() > Reads.NEXT_MOVE:
        return False
    for part in member.walk():
        if isinstance(part, NumericValue) and part.keyword is not NumericKeyword.YEAR:
            return False
        if isinstance(part, Simple) and part.keyword in _PLACE_KEYWORDS:
            return False
    return True


class _Place:
    """A position where members are judged: the game node itself, and a one-position
    game with the same board, tags and next moves, cheaper to evaluate on (the evaluator
    lays out the whole game for every filter) and used for members that read no more."""

    def __init__(self, node: chess.pgn.GameNode, board: chess.Board) -> None:
        self.node = node
        self.board = board
        self._small: chess.pgn.Game | None = None

    @property
    def small(self) -> chess.pgn.Game:
        if self._small is None:
            game = chess.pgn.Game(self.node.game().headers)
            game.setup(self.board.copy(stack=False))
            for continuation in self.node.variations:
                game.add_variation(continuation.move)
            self._small = game
        return self._small

    def matches(self, member: Filter, scope: Scope) -> bool:
        # Imported here: the evaluator is loaded only when a position is explained.
        from cqllegacy.evaluator.evaluate import evaluate_filter

        where = self.small if _reads_the_board_alone(member) else self.node
        try:
            value = evaluate_filter(member, where, scope=scope)
        except ValueError:
            # A member the evaluator cannot judge alone (a piece variable bound by the
            # query's tags, …): it is not shown to match, and the OR stays whole.
            return False
        return value is not None and value is not False and value != 0


def _members(node: Filter) -> tuple[Filter, ...] | None:
    """The alternatives of an OR-like node (None for any other node)."""
    if isinstance(node, Or):
        return node.items
    if isinstance(node, Transform) and not node.count:
        try:
            return orbit(node.kind, node.arg)
        except ValueError:
            return None
    return None


def witness(
    body: Filter,
    node: chess.pgn.GameNode,
    *,
    scope: Scope = Scope.MAINLINE,
    board: chess.Board | None = None,
) -> Filter:
    """``body`` with each OR and transform replaced by its first member that matches at
    ``node`` (conjunctions are followed into; other nodes stay as they are).  When no
    member can be shown to match, the OR stays whole.  ``board``: the node's board, when
    the caller has it."""
    return _witness(body, _Place(node, board or node.board()), scope)


def _witness(body: Filter, place: _Place, scope: Scope) -> Filter:
    found = _resolved(body, place, scope)
    return body if found is None else found


def _resolved(body: Filter, place: _Place, scope: Scope) -> Filter | None:
    """``body`` with its ORs resolved to a matching member; None when ``body`` is an OR
    none of whose members is shown to match."""
    if isinstance(body, Compound | And):
        return Compound(tuple(_witness(item, place, scope) for item in body.items))
    members = _members(body)
    if members is None:
        return body
    if len(members) > MAX_MEMBERS:
        return None
    for member in members:
        if isinstance(member, Comment) or not _may_match(member, place.board):
            continue
        if _members(member) is not None:
            # A nested OR (an orbit inside an orbit): its own members are tried one by
            # one instead of compiling the whole nested orbit.
            found = _resolved(member, place, scope)
            if found is not None:
                return found
        elif place.matches(member, scope):
            return _witness(member, place, scope)
    return None


def designators(found: Filter) -> Iterator[PieceSet]:
    """The piece designators that speak of this position: not under a negation, nor
    inside a line, a search or a relation (those look at other positions)."""
    if isinstance(found, PieceSet):
        yield found
        return
    if isinstance(found, Not | Line | Find | Relation) or _members(found) is not None:
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
