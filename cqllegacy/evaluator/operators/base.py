"""What every operator family shares: the board's type, functions of the board lifted to
the context, and the per-game facts about positions that several families read (where the
positions reachable from one end, where a castling king lands)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import chess

from cqllegacy.evaluator.compiler import Context

__all__ = [
    "LANDINGS_ON_RANK",
    "Board",
    "BoardCount",
    "holds_always",
    "holds_never",
    "main_chain_ends",
    "on_board",
    "reachable_ends",
]

_V = TypeVar("_V")

Board = chess.Board
BoardCount = Callable[[Board], int]


def on_board(check: Callable[[Board], _V]) -> Callable[[Context, int], _V]:
    """A function of the board as a function of the context."""
    return lambda ctx, p: check(ctx.boards[p])


def holds_always(board: Board) -> bool:
    return True


def holds_never(board: Board) -> bool:
    return False


#: The squares a castling king lands on, by the rank it starts from (c and g files).
LANDINGS_ON_RANK = tuple((chess.BB_FILE_C | chess.BB_FILE_G) & chess.BB_RANKS[r] for r in range(8))


def main_chain_ends(table: Any) -> list[int]:
    """For every position, the last position of its main continuation chain (positions
    are numbered depth first with the main continuation first, so the chain from ``p``
    is ``p .. end``)."""
    n = len(table)
    ends = list(range(n))
    for q in range(n - 2, -1, -1):
        if table.main_child[q] == q + 1:
            ends[q] = ends[q + 1]
    return ends


def reachable_ends(ctx: Context) -> Sequence[int]:
    """Per position, the end of the positions reachable from it in scope (once per game
    and scope)."""
    key = (reachable_ends, ctx.all_scope)
    found: Sequence[int] | None = ctx.memo.get(key)
    if found is None:
        table = ctx.table
        found = table.subtree_end if ctx.all_scope else [e + 1 for e in main_chain_ends(table)]
        ctx.memo[key] = found
    return found
