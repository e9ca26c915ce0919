"""Progress on standard error: a one-line bar (drawn by ``tqdm``) on a terminal,
nothing elsewhere.

Messages (skipped games) go through the same object, so they never end up in the
middle of the bar's line.

>>> import io
>>> bar = ProgressBar(io.StringIO(), total_bytes=1000, clock=iter([0.0, 2.0]).__next__)
>>> bar.render(games=300, matched=4, bytes_done=250)
'300 games  150 games/s  4 matched'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from cqllegacy.errors import one_line


class Messages:
    """Progress that shows nothing but the messages (stderr is not a terminal, or ``-q``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def update(self, games: int, matched: int, bytes_done: int) -> None:
        """Nothing to show."""

    def message(self, text: str) -> None:
        print(one_line(text, limit=None), file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to clear."""


class ProgressBar(Messages):
    """A ``tqdm`` bar, redrawn in place at most every ``interval`` seconds: games read,
    games/s, matches so far, the share of the input read, elapsed time and ETA.

    ``update`` is called for every game, so it does nothing but compare the clock
    until the next redraw is due; tqdm only sees those redraws.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        total_bytes: int | None,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from tqdm import tqdm

        super().__init__(stream)
        self.total_bytes = total_bytes or None
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.last_draw: float | None = None
        if self.total_bytes:
            layout = "{desc}  {percentage:3.0f}%|{bar:16}|  {elapsed} elapsed, ETA {remaining}"
        else:
            layout = "{desc}  {elapsed} elapsed"
        self.bar = tqdm(
            total=self.total_bytes,
            file=stream,
            bar_format=layout,
            mininterval=0,
            miniters=1,
            leave=False,
            dynamic_ncols=True,
            disable=False,
        )

    def render(self, games: int, matched: int, bytes_done: int) -> str:
        """The counts before the bar: games, games/s, matches."""
        elapsed = max(self.clock() - self.started, 1e-9)
        return f"{games} games  {games / elapsed:.0f} games/s  {matched} matched"

    def update(self, games: int, matched: int, bytes_done: int) -> None:
        now = self.clock()
        if self.last_draw is not None and now - self.last_draw < self.interval:
            return
        self.last_draw = now
        self.bar.set_description_str(self.render(games, matched, bytes_done), refresh=False)
        if self.total_bytes:
            self.bar.n = min(bytes_done, self.total_bytes)
        self.bar.refresh()

    def message(self, text: str) -> None:
        self.bar.clear()
        super().message(text)
        self.last_draw = None

    def close(self) -> None:
        self.bar.close()
        self.stream.flush()


def make_progress(stream: TextIO, *, quiet: bool, total_bytes: int | None) -> Messages:
    """A bar when ``stream`` is a terminal and ``quiet`` is off, else messages only."""
    isatty = getattr(stream, "isatty", None)
    if not quiet and isatty is not None and isatty():
        return ProgressBar(stream, total_bytes=total_bytes)
    return Messages(stream)
