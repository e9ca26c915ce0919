"""Where each game of a plain PGN file lies in it, and the games read back from there.

The index keeps of a game of a plain file (uncompressed, one byte per character) not its
text but its byte range: from the first byte of the line where the game starts to the
first byte of the next game's first line (the last game: to the end of the file), and
a digest of those bytes.  The range holds the game's lines and the blank, ``%`` and
``;`` lines after it, which :func:`~cqllegacy.runner.pgn.split_games` passes over; split
from a fresh start (numbered from the game's number and first line) it gives exactly the
:class:`~cqllegacy.runner.pgn.GameText` the whole file's split gives, since the splitter
carries nothing over from one game to the next.  The build checks that of every game
(:func:`resplits_alike`), and keeps the text of a game whose range would not give it.

Lines are counted as :func:`~cqllegacy.runner.pgn.open_pgn` counts them (universal
newlines: ``\\r\\n``, ``\\r`` and ``\\n`` each end a line), so a game's first line number
gives its first byte (:func:`located`, one forward pass beside the build's own reading).

Reading a game back (:func:`read_ranges`) reads its range, compares the digest and
splits it; a file that changed after its index was checked gives
:class:`~cqllegacy.errors.IncompleteInput` (one line), never another game's text.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import attrs

from cqllegacy.errors import IncompleteInput
from cqllegacy.records import Record
from cqllegacy.runner.pgn import (
    Compression,
    DamagedInput,
    GameText,
    PgnSource,
    bounded_lines,
    max_line_bytes,
    split_games,
)

__all__ = [
    "GameRange",
    "LocatedText",
    "RangeMismatch",
    "digest",
    "located",
    "ranges_kept",
    "read_range",
    "read_ranges",
    "resplits_alike",
    "split_range",
]

#: A line end as universal newlines read it (as open_pgn reads plain files).
_LINE_END = re.compile(rb"\r\n?|\n")
#: Bytes read at once while finding line starts.
_CHUNK = 1 << 16


def digest(data: bytes | memoryview) -> int:
    """The digest the index keeps of a game's range: 64 bits of BLAKE2b."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


@attrs.frozen(repr=False)
class GameRange(Record):
    """A game of the file: its number and first line (as the split numbers them), and
    the bytes ``start`` to ``start + length`` of the file with their digest."""

    game: int
    line: int
    start: int
    length: int
    digest: int


@attrs.frozen(repr=False)
class LocatedText(GameText):
    """A game's text as the build's split gives it, with where it lies in the file
    ``path`` (see :class:`GameRange`)."""

    path: str = ""
    start: int = 0
    length: int = 0
    digest: int = 0

    def as_split(self) -> GameText:
        """The plain :class:`GameText` (what a scan's split gives)."""
        return GameText(
            self.file_ordinal, self.line, self.tag_lines, self.movetext, self.encoding,
            self.problems,
        )  # fmt: skip

    def range(self) -> GameRange:
        return GameRange(self.file_ordinal, self.line, self.start, self.length, self.digest)


def ranges_kept(pgn: PgnSource) -> bool:
    """Whether the games of ``pgn`` are kept as byte ranges: a plain file read one byte
    per character.  (A compressed file cannot be read at an offset, and a UTF-16 or
    UTF-32 file's lines are not its bytes; the index keeps their games' text.)"""
    return pgn.compression is Compression.PLAIN and pgn.wide is None


# --------------------------------------------------------------------------------------
# Finding the ranges while the file is split
# --------------------------------------------------------------------------------------


class _LineStarts:
    """The byte offsets of line starts of a file, asked for in ascending order of line
    number, and the digest of the bytes between one asked offset and the next.

    Memory holds one chunk (and a ``\\r`` whose line end the next chunk completes): while
    line ends are looked for up to the line asked, every byte passed belongs to the range
    that line ends, so it goes into the digest and is dropped (a long line costs no
    memory)."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.data = b""
        self.base = 0  # the file offset of data[0]
        self.pos = 0  # where the search for the next line end goes on, in data
        self.line = 1
        self.start = 0  # the file offset where line `line` begins
        self.mark = 0  # data[mark:] is not in the digest yet
        self.hash = hashlib.blake2b(digest_size=8)
        self.eof = False

    def cut(self, line: int) -> tuple[int, int]:
        """The offset where line ``line`` begins, and the digest of the bytes from the
        previous cut (the file's start for the first) to it."""
        while self.line < line:
            match = _LINE_END.search(self.data, self.pos)
            if match is None or (
                match.end() == len(self.data) and match.group() == b"\r" and not self.eof
            ):
                # No line end, or a "\r" that a "\n" in the next chunk may complete.
                kept = len(self.data) if match is None else match.start()
                if not self._read_more(kept):
                    raise DamagedInput(f"the file changed while it was indexed (no line {line})")
                continue
            self.pos = match.end()
            self.line += 1
            self.start = self.base + self.pos
        return self.start, self._digest_to(self.start - self.base)

    def end(self) -> tuple[int, int]:
        """The offset of the file's end, and the digest of the bytes from the previous
        cut to it."""
        while self._read_more(len(self.data)):
            pass
        return self.base + len(self.data), self._digest_to(len(self.data))

    def _digest_to(self, at: int) -> int:
        self.hash.update(memoryview(self.data)[self.mark : at])
        self.mark = at
        found = int.from_bytes(self.hash.digest(), "little")
        self.hash = hashlib.blake2b(digest_size=8)
        return found

    def _read_more(self, kept: int) -> bool:
        """Add ``data[mark:kept]`` to the digest, drop it and read the next chunk;
        False once the end of the file was seen."""
        if self.eof:
            return False
        self.hash.update(memoryview(self.data)[self.mark : kept])
        block = self.handle.read(_CHUNK)
        self.eof = not block
        self.data = self.data[kept:] + block
        self.base += kept
        self.pos = self.mark = 0
        return True


def located(pgn: PgnSource, texts: Iterable[GameText]) -> Iterator[GameText]:
    """``texts`` (the games split from ``pgn``, in order), each a :class:`LocatedText`
    when the file keeps ranges (:func:`ranges_kept`).  A game is given once the next
    one (or the file's end) shows where its range ends."""
    if not ranges_kept(pgn):
        yield from texts
        return
    path = str(pgn.path)
    with open(pgn.path, "rb") as handle:
        starts = _LineStarts(handle)
        pending: tuple[GameText, int] | None = None
        try:
            for text in texts:
                start, previous_digest = starts.cut(text.line)
                if pending is not None:
                    yield _locate(pending[0], path, pending[1], start, previous_digest)
                pending = (text, start)
        except GeneratorExit:
            raise  # closed by its reader (which stopped): nothing more to give
        except BaseException:
            # Reading stopped (a damaged file, an interrupt): the game under way keeps
            # its text, as the games of a file without ranges do.
            if pending is not None:
                yield pending[0]
            raise
        if pending is not None:
            end, last_digest = starts.end()
            yield _locate(pending[0], path, pending[1], end, last_digest)


def _locate(text: GameText, path: str, start: int, end: int, found: int) -> LocatedText:
    return LocatedText(
        text.file_ordinal, text.line, text.tag_lines, text.movetext, text.encoding,
        text.problems, path=path, start=start, length=end - start, digest=found,
    )  # fmt: skip


# --------------------------------------------------------------------------------------
# Reading games back
# --------------------------------------------------------------------------------------


def split_range(data: bytes, game: int, line: int) -> list[GameText]:
    """The games :func:`split_games` makes of ``data`` (a range's bytes), decoded as
    :func:`~cqllegacy.runner.pgn.open_pgn` decodes a plain file, numbered from ``game``
    and line ``line``."""
    return list(split_games(_lines(data), first_ordinal=game, first_line=line))


def _lines(data: bytes) -> list[str] | Iterator[str]:
    """The lines of ``data`` as :func:`~cqllegacy.runner.pgn.open_pgn` reads a plain
    file: Latin-1, universal newlines, each line over the limit as LONG_LINE."""
    text = data.decode("latin-1")
    if len(text) > max_line_bytes():
        # A line may be over the limit: read as the file is read.
        wrapper = io.TextIOWrapper(io.BytesIO(data), encoding="latin-1", newline=None)
        return bounded_lines(wrapper)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    last = lines.pop()
    lines = [line + "\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def read_range(descriptor: int, found: GameRange) -> GameText | None:
    """The game in ``found``'s range of the open file ``descriptor``; None when the
    bytes there are not those indexed or do not split into that one game."""
    data = os.pread(descriptor, found.length, found.start)
    if len(data) != found.length or digest(data) != found.digest:
        return None
    games = split_range(data, found.game, found.line)
    if len(games) != 1 or games[0].line != found.line:
        return None
    return games[0]


class RangeMismatch(IncompleteInput):
    """A range whose bytes are not those indexed (or do not split into its game)."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where  # which game, and where it was looked for


def _mismatch(path: Path, found: GameRange) -> RangeMismatch:
    where = (
        f"game {found.game} is not at bytes {found.start}-{found.start + found.length} as indexed"
    )
    return RangeMismatch(f"{path} changed while it was read ({where}); run again", where)


def read_ranges(path: Path, stored: Iterable[GameRange | GameText]) -> Iterator[GameText]:
    """The games ``stored`` (in the order given: ascending reads the file forward), each
    a range read from the file at ``path`` (opened at the first range) or a text kept
    in the index; :class:`IncompleteInput` when the file changed since it was indexed."""
    with contextlib.ExitStack() as stack:
        descriptor: int | None = None
        for found in stored:
            if isinstance(found, GameText):
                yield found
                continue
            try:
                if descriptor is None:
                    descriptor = stack.enter_context(open(path, "rb")).fileno()
                text = read_range(descriptor, found)
            except OSError as exc:
                raise IncompleteInput(
                    f"{path} cannot be read ({exc.strerror or exc}); run again"
                ) from exc
            if text is None:
                raise _mismatch(path, found)
            yield text


def resplits_alike(text: LocatedText, descriptor: int) -> bool:
    """Whether ``text``'s range, read from the open file, splits into exactly
    ``text`` (the build's check of every range it keeps)."""
    try:
        return read_range(descriptor, text.range()) == text.as_split()
    except OSError:
        return False
