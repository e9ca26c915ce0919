"""The cyclic garbage collector while a command starts.

A command's start-up (its imports, hundreds of ``attrs`` classes, the script read,
translated and compiled into many small frozen nodes) allocates far more than it frees,
so the collector's default first-generation threshold (700 allocations) makes it walk
every live object again and again for little garbage (measured, paired medians: a legacy
script's run on an empty input 0.43 s of CPU with the default, 0.33 s without those
collections). :func:`collector_for_start_up` raises that threshold for the start-up, and
a command calls :func:`games_begin` once its start-up is done and before it reads games:
the default threshold is restored, so that the games are collected as before and the
run's memory stays flat in the input's size, and, when the command is the process's own
(``main()`` called without words: the process ends with it), what exists then is moved
out of the collector's sight for good (``gc.freeze``: the modules, classes and the
compiled query live as long as the process; the collections during the games no longer
walk them). A caller that runs commands in its own
process (``main(words)``: the tests) keeps its collector as it was.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

#: The first generation's threshold while a command starts (the default is 700).
START_UP_THRESHOLD = 100_000


@contextlib.contextmanager
def collector_for_start_up(*, whole_process: bool) -> Iterator[None]:
    """Around a whole command: the raised threshold until :func:`games_begin` (or the
    command's end) restores the one found here; ``whole_process``: the process ends
    with the command, so :func:`games_begin` may freeze."""
    found = gc.get_threshold()
    gc.set_threshold(START_UP_THRESHOLD, *found[1:])
    _STATE.clear()
    _STATE.update(threshold=found, freeze=whole_process)
    try:
        yield
    finally:
        _STATE.clear()
        gc.set_threshold(*found)


def games_begin() -> None:
    """The start-up is done: restore the collector's threshold (and freeze what exists,
    in a process that ends with the command).  Outside a command, nothing."""
    if not _STATE:
        return
    if _STATE["freeze"]:
        gc.freeze()
    gc.set_threshold(*_STATE["threshold"])


#: What :func:`collector_for_start_up` found and decided (empty outside a command).
_STATE: dict[str, Any] = {}
