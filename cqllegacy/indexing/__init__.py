"""The position index: per PGN file, what a query can ask without replaying the games.

:mod:`~cqllegacy.indexing.records` reads games into columns,
:mod:`~cqllegacy.indexing.store` writes and opens an index file and asks it for
candidate games (:mod:`~cqllegacy.indexing.sql` writes the question,
:mod:`~cqllegacy.indexing.freshness` proves the file unchanged),
:mod:`~cqllegacy.indexing.build` builds one (spread over processes), and
:mod:`~cqllegacy.indexing.scan` chooses the inputs answered from their index and hands
each index to the runner's scan as a source of candidate games.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The index file's suffix after the PGN file's own name.
SUFFIX = ".cqlidx"


def default_index_path(pgn: str | os.PathLike[str]) -> Path:
    """Where the index of ``pgn`` is looked for: beside it, its name and ``.cqlidx``
    (here, not in :mod:`~cqllegacy.indexing.store`: a run asks it before it imports any
    of the index's modules, which it needs only when an index is there).

    >>> default_index_path("db/games.pgn.bz2").as_posix()
    'db/games.pgn.bz2.cqlidx'
    """
    path = Path(pgn)
    return path.with_name(path.name + SUFFIX)
