"""Writing results: annotated PGN, safe destinations, atomic replacement.

A matching game is written with python-chess's exporter, so its tags, moves,
comments, NAGs and variations come out as python-chess read them (``;`` rest-of-line
comments and ``%`` escape lines are not kept: python-chess drops them on reading).
Two things are added:

* a first comment ``{ Original game: N }`` where N is the game's 1-based ordinal in the
  whole input (the number ``:gamenumber`` and the report's ``ordinal`` use); when the
  run reads several files it continues ``(FILE, game M)`` with the file and the game's
  ordinal within it;
* ``MATCH`` at every marked position (decision L3): appended, after a space, to the
  comment that follows the move producing the position, or to the comment before the
  first move for the start position.  A position marked by several lists gets one
  ``MATCH``.

>>> import io, chess.pgn
>>> game = chess.pgn.read_game(io.StringIO("1. e4 {best} e5 *"))
>>> print(export_game(game, [game.next()], "Original game: 7", columns=None))
[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]
<BLANKLINE>
{ Original game: 7 } 1. e4 { best MATCH } 1... e5 *
>>> game.next().comment
'best'
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import shutil
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import attrs
import chess.pgn

from cqllegacy.errors import UsageError

if TYPE_CHECKING:
    from cqllegacy.runner.scanner import FoundGame

MATCH = "MATCH"

#: The destination name that means standard output.
STDOUT = "-"


def original_game_note(ordinal: int, file: str, file_ordinal: int, *, several_files: bool) -> str:
    """The first comment of an output game.

    >>> original_game_note(12, "b.pgn", 5, several_files=True)
    'Original game: 12 (b.pgn, game 5)'
    """
    note = f"Original game: {ordinal}"
    if several_files:
        note += f" ({Path(file).name}, game {file_ordinal})"
    return note


def with_match(comment: str) -> str:
    """A comment with the ``MATCH`` mark appended.

    >>> with_match(""), with_match("[%clk 0:03:00]")
    ('MATCH', '[%clk 0:03:00] MATCH')
    """
    return f"{comment} {MATCH}" if comment else MATCH


class _NotedExporter(chess.pgn.StringExporter):
    """python-chess's exporter with one extra comment right after the tags."""

    def __init__(self, note: str, *, columns: int | None) -> None:
        super().__init__(columns=columns, headers=True, comments=True, variations=True)
        self.note = note

    def end_headers(self) -> None:
        super().end_headers()
        if self.note:
            self.visit_comment(self.note)


def export_game(
    game: chess.pgn.Game,
    marked: Iterable[chess.pgn.GameNode],
    note: str,
    *,
    columns: int | None = 80,
) -> str:
    """The game as PGN text with ``MATCH`` at the marked positions and ``note`` first.

    The game itself is left as it was.
    """
    original = {node: node.comment for node in marked}
    try:
        for node in original:
            node.comment = with_match(node.comment)
        return game.accept(_NotedExporter(note, columns=columns))
    finally:
        for node, comment in original.items():
            node.comment = comment


def marked_positions(found: FoundGame) -> list[chess.pgn.GameNode]:
    """The positions any list marked, each once, in the order the lists give them."""
    seen: dict[chess.pgn.GameNode, None] = {}
    for list_match in found.match.lists:
        seen.update(dict.fromkeys(list_match.marked))
    return list(seen)


@attrs.frozen
class PgnRenderer:
    """The text :class:`PgnWriter` writes for a matching game (picklable, so that worker
    processes can produce it)."""

    several_files: bool
    columns: int | None = 80

    def __call__(self, found: FoundGame) -> str:
        note = original_game_note(
            found.ordinal, found.file, found.file_ordinal, several_files=self.several_files
        )
        text = export_game(found.game, marked_positions(found), note, columns=self.columns)
        return text + "\n\n"


class PgnWriter:
    """Writes each matching game it is given, annotated, to an open text file.

    ``renderer`` makes the text, ``write`` writes a text made elsewhere (by a worker
    process of a parallel scan).
    """

    def __init__(self, handle: TextIO, *, several_files: bool, columns: int | None = 80) -> None:
        self.handle = handle
        self.several_files = several_files
        self.columns = columns
        self.renderer = PgnRenderer(several_files, columns)

    def __call__(self, found: FoundGame) -> None:
        self.handle.write(self.renderer(found))

    def write(self, text: str) -> None:
        self.handle.write(text)


# --------------------------------------------------------------------------------------
# Destinations
# --------------------------------------------------------------------------------------


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def check_destinations(
    destinations: Sequence[tuple[str, str]], protected: Sequence[tuple[str, Path]]
) -> None:
    """Refuse destinations that would overwrite an input, the script or each other.

    ``destinations`` are ``(what, path)`` pairs (``"-"`` is standard output),
    ``protected`` are ``(what, path)`` pairs of files that must survive the run.

    >>> check_destinations([("output", "x.pgn")], [("input", Path("x.pgn"))])
    Traceback (most recent call last):
    ...
    cqllegacy.errors.UsageError: refusing to write the output x.pgn over the input x.pgn
    """
    files = [(what, Path(path)) for what, path in destinations if path != STDOUT]
    for index, (what, path) in enumerate(files):
        if path.is_dir():
            raise UsageError(f"the {what} {path} is a folder, not a file")
        if not path.parent.is_dir():
            raise UsageError(f"cannot write the {what} {path}: folder {path.parent} does not exist")
        for other_what, other in [*protected, *files[:index]]:
            if _same_file(path, other):
                raise UsageError(
                    f"refusing to write the {what} {path} over the {other_what} {other}"
                )
    streams = [what for what, path in destinations if path == STDOUT]
    if len(streams) > 1:
        raise UsageError(f"only one of {' and '.join(streams)} can go to standard output")


@contextlib.contextmanager
def atomic_text_file(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A UTF-8 text file written under a temporary name in the destination folder and
    renamed into place only when the block ends normally; on any exception (an
    interrupt included) the temporary file is removed and the old file is untouched."""
    target = Path(path)
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        # O_EXCL: never reuse a file someone else created; mode 0o666 lets the umask
        # decide the permissions, as for any new file.
        descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from exc
    try:
        with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
        if target.exists():
            shutil.copymode(target, temp)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


@contextlib.contextmanager
def standard_output() -> Iterator[TextIO]:
    """Standard output as UTF-8 text, whatever the locale says."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        yield stream
        return
    stream.flush()
    wrapper = io.TextIOWrapper(buffer, encoding="utf-8", newline="\n", write_through=True)
    try:
        yield wrapper
    finally:
        wrapper.flush()
        wrapper.detach()


def open_destination(path: str) -> contextlib.AbstractContextManager[TextIO]:
    """Standard output for ``"-"``, otherwise an :func:`atomic_text_file`."""
    return standard_output() if path == STDOUT else atomic_text_file(path)
