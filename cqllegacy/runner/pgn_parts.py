"""Cutting a plain PGN file into parts at game boundaries, for the workers of a parallel run
(:mod:`cqllegacy.runner.parallel`), and reading one part's lines."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from typing import BinaryIO

from cqllegacy.runner.pgn import (
    _UTF8_BOM_AS_LATIN1,
    LONG_LINE,
    DamagedInput,
    _is_blank,
    _is_tag_pair,
    bounded_lines,
    max_line_bytes,
)

# --------------------------------------------------------------------------------------
# Cutting a plain file into parts at game boundaries
# --------------------------------------------------------------------------------------

#: A line end, in universal newlines mode (as open_pgn reads files).
_LINE_END = re.compile(r"\r\n|\r|\n")


def _starts_a_game(previous_text: str | None, blank_before: bool, line: str) -> bool:
    """Whether :func:`split_games` starts a new game at ``line`` whatever came earlier.

    That is so for a tag pair after a blank line when the last non-blank line before it
    (``previous_text``) is movetext: then either that game's movetext ended at the blank
    line, or a comment was left open, and a blank line and a tag pair end it too.
    After tags without moves one blank line does not end a game, so tag lines do not
    qualify as ``previous_text``, nor do ``%`` and ``;`` lines, which split_games skips.
    """
    if not blank_before or previous_text is None or not _is_tag_pair(line):
        return False
    return not previous_text.startswith(("[", "%", ";"))


def game_boundaries(path: str | os.PathLike[str], part_bytes: int) -> list[int]:
    """Byte offsets, about ``part_bytes`` apart, where a plain PGN file can be cut so that
    :func:`split_games` reads each part (from a fresh start) exactly as it reads that
    stretch of the whole file.  The first offset is 0.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".pgn", delete=False) as f:
    ...     _ = f.write(b'[Event "a"]\\n\\n1. e4 *\\n\\n[Event "b"]\\n\\n1. d4 *\\n')
    >>> game_boundaries(f.name, 10)
    [0, 22]
    >>> os.unlink(f.name)
    """
    cuts = [0]
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        target = part_bytes
        while target < size:
            cut = _next_boundary(handle, max(target, cuts[-1] + 1))
            if cut is None:
                break
            cuts.append(cut)
            target = cut + part_bytes
    return cuts


def _lines_after(
    handle: BinaryIO, position: int, window: int, limit: int | None = None
) -> Iterator[tuple[int, str]]:
    """(offset, line) for the lines of the file from byte ``position`` on, the first one
    possibly a part of a line; line ends as universal newlines see them, and a line
    longer than ``limit`` (line end included, as :func:`bounded_lines` counts it) given
    as :data:`LONG_LINE`.  Time linear in the bytes read (each read is scanned once, a
    line kept in pieces), memory bounded by the limit."""
    limit = limit or max_line_bytes()
    handle.seek(position)
    pieces: list[str] = []  # the current line so far (nothing once it is too long)
    size = 0  # the current line's length so far
    start = read_to = position  # where the current line begins; the bytes read so far end
    carry = ""  # a "\r" ending the last read, which a "\n" in the next may complete
    while True:
        data = handle.read(window)
        final = not data
        if not carry and not final and b"\n" not in data and b"\r" not in data:
            # No line end (the middle of a long line): found by memchr, with nothing
            # decoded or scanned once the line is too long to keep.
            read_to += len(data)
            size += len(data)
            if size > limit:
                pieces = []
            else:
                pieces.append(data.decode("latin-1"))
            continue
        text = carry + data.decode("latin-1")
        base = read_to - len(carry)  # where `text` begins in the file
        read_to += len(data)
        carry = ""
        done = 0
        for match in _LINE_END.finditer(text):
            if not final and match.group() == "\r" and match.end() == len(text):
                carry = "\r"
                break
            piece = text[done : match.end()]
            total = size + len(piece) - (match.group() == "\r\n")
            yield start, LONG_LINE if total > limit else "".join([*pieces, piece])
            pieces, size, done = [], 0, match.end()
            start = base + done
        stop = len(text) - len(carry)
        if stop > done:
            size += stop - done
            if size > limit:
                pieces = []
            else:
                pieces.append(text[done:stop])
        if final:
            if size:
                yield start, LONG_LINE if size > limit else "".join(pieces)
            return


def _next_boundary(handle: BinaryIO, start: int, window: int = 1 << 16) -> int | None:
    """The first game boundary at or after ``start`` (see :func:`_starts_a_game`)."""
    previous_text: str | None = None
    blank_before = False
    # Begin one byte early and drop that first piece: what remains begins whole lines.
    lines = _lines_after(handle, start - 1, window)
    next(lines, None)
    for line_start, raw in lines:
        line = raw if raw is LONG_LINE else raw.removeprefix(_UTF8_BOM_AS_LATIN1)
        if _starts_a_game(previous_text, blank_before, line):
            return line_start
        blank_before = line is not LONG_LINE and _is_blank(line)
        if not blank_before:
            previous_text = line
    return None


class _FileRange(io.RawIOBase):
    """Bytes ``start`` to ``end`` of an open file, read in place (never all at once);
    :class:`DamagedInput` when the file ends before ``end`` (it changed since it was cut)."""

    def __init__(self, descriptor: int, start: int, end: int) -> None:
        super().__init__()
        self.descriptor, self.position, self.end = descriptor, start, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        wanted = min(len(buffer), self.end - self.position)
        if wanted <= 0:
            return 0
        data = os.pread(self.descriptor, wanted, self.position)
        if not data:
            raise DamagedInput(
                f"the file changed while it was read (it ends at byte {self.position})"
            )
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)


def range_lines(path: str | os.PathLike[str], start: int, end: int) -> Iterator[str]:
    """The lines of bytes ``start`` to ``end`` of a plain PGN file, decoded as
    :func:`open_pgn` decodes them (a line over the limit as :data:`LONG_LINE`)."""
    with open(path, "rb") as handle:
        raw = io.BufferedReader(_FileRange(handle.fileno(), start, end), 1 << 16)
        text = io.TextIOWrapper(raw, encoding="latin-1", newline=None)
        try:
            yield from bounded_lines(text)
        finally:
            text.detach()
