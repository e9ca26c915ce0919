"""The marked positions of a matching game, ready to draw: the board, the move that led
there, the squares that made it match, and the designators of the transformed list that
matched (:mod:`~cqllegacy.present.witness`).

>>> import io, chess.pgn
>>> from cqllegacy.core.tree import Header, Mark, Query, TopList
>>> from cqllegacy.evaluator.testing import pd
>>> query = Query(Header(), (TopList(pd("Qh5"), mark=Mark.FIRST),))
>>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Qh5 Nc6 *"))
>>> [found] = marked_positions(game, query, [(3,)])
>>> found.ply, found.san, found.designators, chess.square_name(found.move.to_square)
(3, 'Qh5', ('Qh5',), 'h5')
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import chess
import chess.pgn

from cqllegacy.core.tree import Query, Scope
from cqllegacy.evaluator.plan import QueryPlan
from cqllegacy.present.witness import (
    designator_texts,
    highlighted_squares,
    node_at,
    plan_of,
    witness,
)
from cqllegacy.records import Record
from cqllegacy.runner.movetext import PositionKey
from cqllegacy.vocab.squares import SquareSet

__all__ = ["MarkedPosition", "marked_positions", "move_label", "ply_of"]


@attrs.frozen(repr=False)
class MarkedPosition(Record):
    """One marked position of a game.  ``lists`` are the 1-based numbers of the lists
    that mark it; ``designators`` the designators (legacy notation) of what matched."""

    key: PositionKey
    ply: int
    board: chess.Board
    move: chess.Move | None
    san: str | None
    move_text: str | None
    highlighted: SquareSet
    lists: tuple[int, ...]
    designators: tuple[str, ...]
    #: Where the variation that holds the position leaves the main line or the line it
    #: branches from (``12... Nf6 instead of 12... Nd7``); None on the main line.
    variation: str | None = None

    @property
    def label(self) -> str:
        """``ply 32, after 16... Nf3+`` (``start position`` for ply 0), and ``in the
        variation 12... Nf6 instead of 12... Nd7`` for a position inside a variation."""
        if self.move_text is None:
            return "start position"
        text = f"ply {self.ply}, after {self.move_text}"
        if self.variation is not None:
            text += f", in the variation {self.variation}"
        return text


def variation_of(node: chess.pgn.GameNode) -> str | None:
    """Where the innermost variation holding ``node`` branches off: its first move and
    the move it replaces; None on the main line.

    >>> import io
    >>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Qh5 Nc6 (2... Ke7 3. Qxe5#) *"))
    >>> variation_of(game.end()) is None
    True
    >>> print(variation_of(game.variations[0].variations[0].variations[0].variations[1].next()))
    2... Ke7 instead of 2... Nc6
    """
    while isinstance(node, chess.pgn.ChildNode):
        parent = node.parent
        if parent.variations[0] is not node:
            board = parent.board()
            first = move_label(board, board.san(node.move))
            main = move_label(board, board.san(parent.variations[0].move))
            return f"{first} instead of {main}"
        node = parent
    return None


def move_label(before: chess.Board, san: str) -> str:
    """A move with its number, as the board it is played from counts moves.

    >>> move_label(chess.Board(), "e4")
    '1. e4'
    >>> move_label(chess.Board("4k3/8/8/8/8/8/8/4K3 b - - 0 7"), "Kd7")
    '7... Kd7'
    """
    number = before.fullmove_number
    return f"{number}. {san}" if before.turn == chess.WHITE else f"{number}... {san}"


def ply_of(node: chess.pgn.GameNode) -> int:
    """Half-moves from the game's start position to ``node``."""
    ply = 0
    while node.parent is not None:
        node = node.parent
        ply += 1
    return ply


def scope_of(query: Query, index: int, variations: bool) -> Scope:
    return Scope.ALL if variations else query.lists[index].scope


def marked_positions(
    game: chess.pgn.Game,
    query: Query,
    marked: Sequence[Sequence[PositionKey]],
    *,
    variations: bool = False,
) -> list[MarkedPosition]:
    """Every position some list marks (``marked[i]``: the keys list i marks), each once,
    in the order the lists give them."""
    owners: dict[PositionKey, list[int]] = {}
    for index, keys in enumerate(marked):
        for key in keys:
            owners.setdefault(key, []).append(index)
    plan = plan_of(query)  # the run's own plan, lowered once
    return [_marked(game, query, plan, key, lists, variations) for key, lists in owners.items()]


def _marked(
    game: chess.pgn.Game,
    query: Query,
    plan: QueryPlan,
    key: PositionKey,
    lists: list[int],
    variations: bool,
) -> MarkedPosition:
    node = node_at(game, key)
    board = node.board()
    highlighted = 0
    texts: list[str] = []
    for index in lists:
        scope = scope_of(query, index, variations)
        top = query.lists[index]
        # A list whose mark a :line moves (X3) matched where the line's moves start.
        start = node
        for _ in range(0 if top.mark_end is None else top.mark_end.plies):
            assert start.parent is not None, "a :line marked before the game's start"
            start = start.parent
        at = board if start is node else start.board()
        found = witness(top.body, start, scope=scope, board=at, plan=plan)
        highlighted |= highlighted_squares(found, board)
        texts += designator_texts(found)
    move = san = move_text = None
    if isinstance(node, chess.pgn.ChildNode):
        move = node.move
        before = board.copy()
        before.pop()
        san = before.san(move)
        move_text = move_label(before, san)
    return MarkedPosition(
        key,
        ply_of(node),
        board,
        move,
        san,
        move_text,
        highlighted,
        tuple(i + 1 for i in lists),
        tuple(dict.fromkeys(texts)),
        variation_of(node),
    )
