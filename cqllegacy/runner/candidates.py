"""Indexed files as the scan reads them: a :class:`Candidates` is a source of an input
file's candidate games (their numbers, their texts, their stored positions) that the
scan drives, here (:func:`~cqllegacy.runner.scanner.scan_indexed_file`) or on an engine's workers
(:mod:`~cqllegacy.runner.parallel`).  The games left out cannot match and read cleanly,
so the scan would neither write nor report them: the output, the report and the messages
are the scan's, and the summary counts every game.

Where the query allows it (:func:`~cqllegacy.runner.stored.feeds`), the clean
candidates are evaluated from their stored positions, the others from their text.
Otherwise few candidates are read by their byte ranges (:meth:`Candidates.texts`; the
rest of the file is never touched); many (more than :data:`FROM_THE_FILE` of the games)
from the file itself, split as the scan splits it, the others left unread: a split costs
little beside a replay.  A source that fails while it is asked
(:class:`~cqllegacy.errors.IndexFailed`) is said once, and the games it had not answered
are scanned.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cqllegacy.errors import IncompleteInput
from cqllegacy.runner.pgn import DamagedInput, GameText, open_pgn, split_games

if TYPE_CHECKING:
    from cqllegacy.runner.stored import StoredUnit

__all__ = ["FROM_THE_FILE", "Candidates", "from_the_file"]

#: Beyond this share of a file's games as candidates, they are read from the file.
FROM_THE_FILE = 0.5


class Candidates(Protocol):
    """The candidate games of one input file with a fresh index."""

    @property
    def games(self) -> int:
        """The games of the file."""
        ...

    @property
    def every_game(self) -> bool:
        """Whether every game is a candidate (nothing narrowed them)."""
        ...

    def numbers(self, games_before: int) -> Sequence[int]:
        """The candidates' numbers in the file, ascending (the file's games are numbered
        ``games_before + 1`` on in the whole input)."""
        ...

    def texts(self, numbers: Sequence[int]) -> Iterator[GameText]:
        """The texts of the games ``numbers`` (ascending), as the scan splits them."""
        ...

    def positions_pay(self, candidates: int) -> bool:
        """Whether evaluating this many candidates from their stored positions (where the
        query allows it) repays loading what the positions are read with."""
        ...

    def unit(self, numbers: Sequence[int]) -> tuple[GameText, ...] | StoredUnit:
        """What a worker gets of the games ``numbers`` (ascending): their texts, or
        their stored positions (:class:`~cqllegacy.runner.stored.StoredUnit`)."""
        ...

    def game_facts(
        self, numbers: Sequence[int], tags: bool = True
    ) -> list[tuple[int, bool, str | None]]:
        """Per game of ``numbers``: its number, whether it reads cleanly, its tags (JSON;
        None unless ``tags``)."""
        ...

    def main_line_sizes(self, numbers: Sequence[int]) -> list[int]:
        """Per game of ``numbers``: how many main-line positions are stored of it (none
        of a game that does not read cleanly)."""
        ...

    def main_lines(
        self, numbers: Sequence[int], names: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """The stored main lines of the clean games ``numbers``, one array per column
        (``game``, ``ply`` and ``names``, by default every stored one)."""
        ...


def from_the_file(path: Path, numbers: Sequence[int]) -> Iterator[GameText]:
    """The games ``numbers`` (ascending) of the file, split from it as the scan does.
    The index is fresh (built from these very bytes), so the split gives the games the
    index numbers."""
    wanted = set(numbers)
    try:
        with open_pgn(path) as pgn:
            for text in split_games(pgn.lines()):
                if text.file_ordinal in wanted:
                    yield text
    except (OSError, DamagedInput) as exc:
        # Only a file changed or lost since its index was checked gets here.
        raise IncompleteInput(f"{path} changed while it was read ({exc}); run again") from exc
