"""Recursion room for deep trees.

Reading, printing and compiling walk trees recursively; a legacy list with a large
orbit becomes a sum of thousands of terms, and pyparsing recurses a few dozen frames per
nesting level.  The readers bound the nesting they accept, so a raised limit is enough.

The recursion limit is one setting for the whole process, and ``api.search`` compiles on
a thread of its own while the caller's thread may read or print: the room is shared.
The first user raises the limit (never lowers it), later users find it raised, and only
the last one to leave puts the old limit back, under a lock; a limit someone else set
meanwhile is left alone.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

__all__ = ["room_for_deep_trees"]

#: The recursion limit while a deep tree is read, printed or compiled.
DEEP_LIMIT = 20_000


class _Room:
    """Who is inside, and the limit to put back when the last one leaves."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.restore_to: int | None = None

    def enter(self) -> None:
        with self.lock:
            if self.users == 0:
                limit = sys.getrecursionlimit()
                self.restore_to = limit if limit < DEEP_LIMIT else None
                sys.setrecursionlimit(max(limit, DEEP_LIMIT))
            self.users += 1

    def leave(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users == 0 and self.restore_to is not None:
                if sys.getrecursionlimit() == DEEP_LIMIT:
                    sys.setrecursionlimit(self.restore_to)
                self.restore_to = None


_ROOM = _Room()


@contextlib.contextmanager
def room_for_deep_trees() -> Iterator[None]:
    """Raise the recursion limit to :data:`DEEP_LIMIT` (never lower it) for the block;
    safe on several threads at once (the limit goes back when the last block ends).

    >>> import sys
    >>> before = sys.getrecursionlimit()
    >>> with room_for_deep_trees():
    ...     sys.getrecursionlimit() >= DEEP_LIMIT
    True
    >>> sys.getrecursionlimit() == before
    True
    """
    _ROOM.enter()
    try:
        yield
    finally:
        _ROOM.leave()
