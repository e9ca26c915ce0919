"""An index's main-line positions as numpy arrays, a chunk of whole games at a time.

:func:`read_chunks` reads the stored positions (see :mod:`~cqllegacy.indexing.records`)
of an index's clean games in chunks of at most ``max_positions`` positions, so that a
pass over a large file holds one chunk at a time.  A chunk never splits a game: a
question about the next ply, or about a whole game, is answered inside one chunk.

Each chunk is a :class:`~cqllegacy.evaluator.arrays.Positions`, what the array forms of
the plan read: a :class:`~cqllegacy.vocab.bitarrays.Placement` the kernels take as it
is, with helpers along a game and per game.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cqllegacy.errors import IndexFailed
from cqllegacy.evaluator.arrays import Positions
from cqllegacy.indexing.records import (
    BOARD_FIELDS,
    MOVE_FIELDS,
    STATE_FIELDS,
)
from cqllegacy.indexing.store import Index, games_condition
from cqllegacy.runner.stored import batches

__all__ = ["MAX_POSITIONS", "read_chunks"]

#: Positions per chunk by default: about 40 MB of arrays (a position's columns and the
#: coloured piece sets derived from them take some 200 bytes).
MAX_POSITIONS = 200_000

# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------

_COLUMNS = ("game", "ply", *BOARD_FIELDS, *STATE_FIELDS, *MOVE_FIELDS)


def read_chunks(
    index: Index, numbers: Sequence[int] | None = None, max_positions: int = MAX_POSITIONS
) -> Iterator[Positions]:
    """The main-line positions of the clean games among ``numbers`` (ascending; None:
    every game), in chunks of whole games of at most ``max_positions`` positions (a
    longer game alone).  :class:`~cqllegacy.errors.IndexFailed` when the index fails
    while it is read, or holds other positions than its games say."""
    if max_positions < 1:
        raise ValueError("max_positions must be at least 1")
    with index.failing():
        found = index.connection.execute(
            "SELECT game, plies FROM games WHERE clean ORDER BY game"
        ).fetchnumpy()
    clean = np.asarray(found["game"], dtype=np.int64)
    counts = np.asarray(found["plies"], dtype=np.int64) + 1
    wanted = np.ones(len(clean), dtype=bool)
    if numbers is not None:
        wanted = np.isin(clean, np.asarray(numbers, dtype=np.int64))
    games, counts = clean[wanted], counts[wanted]
    for first, last in batches(counts.tolist(), max_positions):
        part = games[first:last]
        # The games of the range that were left out must be named out.
        whole_range = np.count_nonzero((clean >= part[0]) & (clean <= part[-1])) == len(part)
        columns = _read(index, part, whole_range)
        if len(columns["game"]) != int(counts[first:last].sum()):
            raise IndexFailed(
                f"index {index.path} is damaged (games {int(part[0])}-{int(part[-1])} hold "
                f"{len(columns['game'])} positions, not {int(counts[first:last].sum())})"
            )
        yield Positions.of_columns(columns)


def _read(index: Index, games: NDArray[np.int64], whole_range: bool) -> dict[str, Any]:
    condition = "game BETWEEN ? AND ?"
    parameters: list[object] = [int(games[0]), int(games[-1])]
    if not whole_range:
        condition, parameters = games_condition(games.tolist())
    sql = f"SELECT {', '.join(_COLUMNS)} FROM positions WHERE {condition}"
    with index.failing():
        columns = dict(index.connection.execute(sql, parameters).fetchnumpy())
    game, ply = columns["game"], columns["ply"]
    # Sorted here, only where DuckDB did not keep the stored order (as Index.main_lines).
    if len(game) > 1 and not (
        (game[1:] >= game[:-1]).all()
        and ((game[1:] != game[:-1]) | (ply[1:].astype(np.int64) == ply[:-1] + 1)).all()
    ):
        order = np.lexsort((ply, game))
        columns = {name: values[order] for name, values in columns.items()}
    return columns
