"""Recursion room for deep trees.

Reading, printing and compiling walk trees recursively; a legacy list with a large
orbit becomes a sum of thousands of terms, and pyparsing recurses a few dozen frames per
nesting level.  The readers bound the nesting they accept, so a raised limit is enough.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["room_for_deep_trees"]

#: The recursion limit while a deep tree is read, printed or compiled.
DEEP_LIMIT = 20_000


@contextlib.contextmanager
def room_for_deep_trees() -> Iterator[None]:
    """Raise the recursion limit to :data:`DEEP_LIMIT` (never lower it) for the block.

    >>> import sys
    >>> before = sys.getrecursionlimit()
    >>> with room_for_deep_trees():
    ...     sys.getrecursionlimit() >= DEEP_LIMIT
    True
    >>> sys.getrecursionlimit() == before
    True
    """
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, DEEP_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
