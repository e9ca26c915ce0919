"""What a scan takes and gives: its inputs and options, the games it finds and skips, its
summary, and the sinks that matching games go to.

A :class:`FoundGame` holds no game tree, only the game's text and the positions found,
named by their report keys: it pickles small (the workers of a parallel scan send what
they found to the main process), and the output and the report are written from it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import attrs
import chess.pgn

from cqllegacy.errors import INPUT_DAMAGED, QUOTED, display_path, plural, printable
from cqllegacy.records import Record
from cqllegacy.runner.movetext import PositionKey
from cqllegacy.runner.pgn import GameText, read_tags

# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class InputFile(Record):
    """A PGN file to scan and the name messages and the report call it by."""

    path: Path
    name: str

    @classmethod
    def of(cls, path: str | Path) -> InputFile:
        """The file at ``path``, called by its name with any byte that is not UTF-8
        written ``\\xNN`` (the report and the output are UTF-8 text).

        >>> InputFile.of("g\\udce9.pgn").name
        'g\\\\xe9.pgn'
        """
        return cls(Path(path), display_path(str(path)))


@attrs.frozen(repr=False)
class ScanOptions(Record):
    """``skip_initial``: do not examine start positions (L1); ``variations``: examine
    positions inside variations for every list (L14)."""

    skip_initial: bool = False
    variations: bool = False


# --------------------------------------------------------------------------------------
# Outcomes
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class FoundGameKey(Record):
    """Where a game comes from: its ordinal in the input, its file, its ordinal there."""

    ordinal: int
    file: str
    file_ordinal: int


@attrs.frozen(repr=False)
class ListFound(Record):
    """What one top-level list found in a matching game: the number of positions where
    it matched, those positions and the ones it marks, named by
    :func:`~cqllegacy.runner.report.position_key`."""

    count: int
    positions: tuple[PositionKey, ...]
    marked: tuple[PositionKey, ...]


@attrs.frozen(repr=False)
class FoundGame(Record):
    """A matching game: its text, its players and what each top-level list found.

    >>> text = GameText(1, 1, ('[Round "3"]\\n',), "1. e4 e5 *\\n")
    >>> found = FoundGame(4, "a.pgn", 1, text, "?", "?", (ListFound(2, (0, 2), (0, 2)),
    ...                                                   ListFound(1, (2,), (2,))))
    >>> found.marked(), found.headers["Round"]
    ((0, 2), '3')
    """

    ordinal: int
    file: str
    file_ordinal: int
    text: GameText
    white: str
    black: str
    lists: tuple[ListFound, ...]

    @property
    def headers(self) -> chess.pgn.Headers:
        """The game's tags, read again from its tag lines."""
        return read_tags(self.text.tag_lines)[0]

    def marked(self) -> tuple[PositionKey, ...]:
        """The positions any list marks, each once, in the order the lists give them."""
        return tuple(dict.fromkeys(key for found in self.lists for key in found.marked))


@attrs.frozen(repr=False)
class SkippedGame(Record):
    """A game that could not be read."""

    ordinal: int
    file: str
    file_ordinal: int
    line: int
    reason: str

    def describe(self) -> str:
        """
        >>> SkippedGame(9, "a.pgn", 9, 120, "illegal san: 'Kf3'").describe()
        "warning: a.pgn:120: game 9 skipped: illegal san: 'Kf3'"
        """
        where = f"{self.file}:{self.line}: game {self.file_ordinal}"
        if self.ordinal != self.file_ordinal:
            where += f" (game {self.ordinal} of the input)"
        # The reason may quote the game's text: a line of megabytes, control characters.
        return f"warning: {where} skipped: {printable(self.reason, 2 * QUOTED)}"


@attrs.define(repr=False)
class Summary(Record):
    """Counts of a finished scan."""

    games: int = 0
    matched: int = 0
    skipped: int = 0
    damaged_files: int = 0
    seconds: float = 0.0
    stopped: str | None = None
    #: Input files whose games were asked of their index (the rest were scanned).
    indexed: int = 0

    @property
    def exit_status(self) -> int:
        """0, or :data:`~cqllegacy.errors.INPUT_DAMAGED` when an input file was not read
        to its end (the results then miss its remaining games).

        >>> Summary(10).exit_status, Summary(10, damaged_files=1).exit_status
        (0, 3)
        """
        return INPUT_DAMAGED if self.damaged_files else 0

    def line(self) -> str:
        """The one-line summary printed at the end of a run.

        >>> Summary(685, 12, 1, 0, 3.25).line()
        'read 685 games: 12 matched, 1 skipped as unreadable, in 3.2 s'
        """
        text = f"read {plural(self.games, 'game')}: {self.matched} matched, "
        text += f"{self.skipped} skipped as unreadable"
        if self.damaged_files:
            text += f", {plural(self.damaged_files, 'input file')} not read to the end"
        if self.stopped:
            text += f", {self.stopped}"
        return text + f", in {self.seconds:.1f} s"


# --------------------------------------------------------------------------------------
# Sinks
# --------------------------------------------------------------------------------------


class StopScan(Exception):
    """Raised by a sink (or the scan itself) when nothing more is wanted from the
    input: the scan ends there as if the input ended, and the summary says so."""

    def __init__(self, reason: str, games: int, matched: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.games = games
        self.matched = matched


class MatchSink(Protocol):
    """Where a matching game goes (the PGN writer, the report writer …)."""

    def __call__(self, found: FoundGame, /) -> None: ...


#: The text a sink writes for a matching game.
Renderer = Callable[[FoundGame], str]


class RenderingSink(MatchSink, Protocol):
    """A sink whose text can be made elsewhere: ``renderer(found)`` (picklable) gives the
    text, ``write(text)`` writes it."""

    @property
    def renderer(self) -> Renderer: ...

    def write(self, text: str) -> None: ...
