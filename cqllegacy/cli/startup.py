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

The command of the process's own also defers two modules of python-chess that no run
uses: ``chess.pgn`` imports ``chess.engine`` (which loads asyncio, subprocess, logging
and concurrent.futures) and ``chess.svg`` (xml.etree) for a few methods a run never
calls; loading them was about 5 % of a legacy script's start-up (measured,
instructions executed on an empty input, byte code cached: 0.08 G of 1.73 G).
:func:`defer_chess_extras` has them loaded on their first use instead
(``importlib.util.LazyLoader``): an ``--html`` page's diagrams, which draw with
``chess.svg``, load it then, and work as before.

It also asks numpy's OpenBLAS for one thread (:func:`one_blas_thread`).  No array form
multiplies matrices, but OpenBLAS starts a thread per core when numpy is imported:
that cost an indexed run a tenth of a second of CPU on a 2-core machine (measured,
paired medians of 10 runs of Appendix C #10 on the 6,605 puzzles: 0.90 s against
0.80 s), more where there are more cores.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType
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
    if whole_process:
        defer_chess_extras()
        one_blas_thread()
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
        keep_freed_memory()
    gc.set_threshold(*_STATE["threshold"])


#: Arrays up to this size come from the heap, not from a mapping of their own; up to
#: :data:`KEPT_FREE` bytes freed at the heap's top stay with the process.
MAPPED_FROM = 32 * 1024 * 1024
KEPT_FREE = 64 * 1024 * 1024


def keep_freed_memory() -> None:
    """Have glibc's allocator reuse freed memory rather than map and unmap it.  The
    array forms of an indexed run make and drop many arrays of a few hundred kilobytes:
    above glibc's default of 128 kB each was a mapping of its own, made, faulted in page
    by page and unmapped again (measured on 100,000 games: a fifth of a run's CPU time
    was the system's).  Elsewhere than glibc, nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return
    mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM)
    mallopt(_M_TRIM_THRESHOLD, KEPT_FREE)


#: glibc's ``mallopt`` parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


#: What :func:`collector_for_start_up` found and decided (empty outside a command).
_STATE: dict[str, Any] = {}


def one_blas_thread() -> None:
    """Have numpy's OpenBLAS start no thread of its own, unless the environment says how
    many (or numpy is loaded already, and its threads with it)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


#: python-chess's modules that ``chess.pgn`` imports for methods a run never calls.
DEFERRED = frozenset({"chess.engine", "chess.svg"})


class DeferringFinder:
    """A finder, first on ``sys.meta_path``, that hands out the :data:`DEFERRED` modules
    with a lazy loader: the module object exists at once, its code runs at the first
    access to one of its attributes."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in DEFERRED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


def defer_chess_extras() -> None:
    """Load the :data:`DEFERRED` modules at their first use, from now on in this process
    (once: a second call changes nothing).  Modules already loaded stay as they are."""
    if not any(isinstance(finder, DeferringFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, DeferringFinder())
