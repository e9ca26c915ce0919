"""Progress on standard error: a one-line bar on a terminal, nothing elsewhere.

Messages (skipped games) go through the same object, so they never end up in the
middle of the bar's line.

>>> import io
>>> bar = ProgressBar(io.StringIO(), total_bytes=1000, clock=iter([0.0, 2.0]).__next__)
>>> bar.render(games=300, matched=4, bytes_done=250)
'300 games  150 games/s  4 matched  25%  ETA 0:00:06'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from cqllegacy.errors import printable


def format_duration(seconds: float) -> str:
    """``H:MM:SS``.

    >>> format_duration(3725.4)
    '1:02:05'
    """
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class Messages:
    """Progress that shows nothing but the messages (stderr is not a terminal, or ``-q``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def update(self, games: int, matched: int, bytes_done: int) -> None:
        """Nothing to show."""

    def message(self, text: str) -> None:
        print(printable(text, limit=None), file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to clear."""


class ProgressBar(Messages):
    """A bar redrawn in place (carriage return) at most every ``interval`` seconds."""

    def __init__(
        self,
        stream: TextIO,
        *,
        total_bytes: int | None,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(stream)
        self.total_bytes = total_bytes or None
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.last_draw: float | None = None
        self.width = 0

    def render(self, games: int, matched: int, bytes_done: int) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        parts = [f"{games} games", f"{games / elapsed:.0f} games/s", f"{matched} matched"]
        if self.total_bytes:
            fraction = min(bytes_done / self.total_bytes, 1.0)
            parts.append(f"{fraction:.0%}")
            if fraction > 0:
                parts.append("ETA " + format_duration(elapsed * (1 - fraction) / fraction))
        return "  ".join(parts)

    def update(self, games: int, matched: int, bytes_done: int) -> None:
        now = self.clock()
        if self.last_draw is not None and now - self.last_draw < self.interval:
            return
        self.last_draw = now
        self._draw(self.render(games, matched, bytes_done))

    def _draw(self, line: str) -> None:
        padding = " " * max(self.width - len(line), 0)
        self.stream.write("\r" + line + padding)
        self.stream.flush()
        self.width = len(line)

    def _clear(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0

    def message(self, text: str) -> None:
        self._clear()
        super().message(text)
        self.last_draw = None

    def close(self) -> None:
        self._clear()
        self.stream.flush()


def make_progress(stream: TextIO, *, quiet: bool, total_bytes: int | None) -> Messages:
    """A bar when ``stream`` is a terminal and ``quiet`` is off, else messages only."""
    isatty = getattr(stream, "isatty", None)
    if not quiet and isatty is not None and isatty():
        return ProgressBar(stream, total_bytes=total_bytes)
    return Messages(stream)
