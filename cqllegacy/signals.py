"""Signals that end a command, in the main process and in worker processes.

In the main process (:func:`interrupting_signals`) SIGINT, SIGTERM and SIGHUP raise
:class:`~cqllegacy.errors.Interrupted` in the main thread, so that the way out runs every
``finally``: temporary files are removed, the previous outputs stay as they were, worker
processes are stopped.  After the first such signal the others are ignored until the
process ends, so that a second Ctrl-C cannot break that clean-up half-way.

A worker process (:func:`worker_started`) ignores SIGINT: Ctrl-C on a terminal reaches
every process of the group, and the main process decides what happens to the workers.
Workers are started with these signals blocked (:func:`signals_blocked`), so that none
arrives before the worker has set its own handling.  On Linux a worker also dies with the
main process, whatever killed it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

from cqllegacy.errors import Interrupted

#: The signals that end a command cleanly.
ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: Linux's prctl option that sends a signal to a process when its parent dies.
_PR_SET_PDEATHSIG = 1


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


#: The ending signal that arrived in this process (0: none).
_received = 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = signum
    for other in ENDING:
        signal.signal(other, signal.SIG_IGN)
    raise Interrupted(signum)


def interrupted_inside(error: BaseException) -> Interrupted | None:
    """The :class:`~cqllegacy.errors.Interrupted` an ending signal raised inside a library
    that reported it as an error of its own (DuckDB: "Query interrupted"), or None when
    no such signal arrived: the error is the library's own."""
    return Interrupted(_received) if _received else None


@contextlib.contextmanager
def interrupting_signals() -> Iterator[None]:
    """While the block runs, an ending signal raises
    :class:`~cqllegacy.errors.Interrupted` (outside the main thread: nothing changes).

    >>> with interrupting_signals():
    ...     signal.getsignal(signal.SIGTERM) is _interrupt
    True
    >>> signal.getsignal(signal.SIGTERM) is _interrupt
    False
    """
    if not _in_main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in ENDING}
    for signum in ENDING:
        signal.signal(signum, _interrupt)
    try:
        yield
    finally:
        # Once interrupted, the signals stay ignored: the process is on its way out, and
        # a second Ctrl-C must not turn that into a KeyboardInterrupt at exit.
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            for signum, handler in previous.items():
                signal.signal(signum, signal.SIG_DFL if handler is None else handler)


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """The ending signals held back while the block runs (processes and threads started
    in it begin with them blocked); held signals arrive when it ends."""
    if not _in_main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def worker_started(parent: int) -> None:
    """A worker process's signal handling (its pool's initializer): SIGINT ignored,
    SIGTERM and SIGHUP end it at once, and it ends when ``parent`` (the main process)
    does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    _die_with_parent()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING)
    if os.getppid() != parent:  # the parent died before prctl could watch it
        os._exit(1)


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
