"""Writing results: annotated PGN, safe destinations, atomic replacement of any text file.

A matching game is written from its own text, as the input has it: its tag lines, a
blank line, then its movetext with nothing changed (comments, ``;`` comments, ``%``
escape lines, NAGs, variations, move numbers, line breaks: nothing is lost, and no move
is replayed) but for two kinds of comment inserted:

* ``{ Original game: N }`` at the very start, where N is the game's 1-based ordinal in
  the whole input (the number ``:gamenumber`` and the report's ``ordinal`` use); when
  the run reads several files it continues ``(FILE, game M)`` with the file and the
  game's ordinal within it;
* ``{ MATCH }`` at every marked position (decision L3): after the move that produced the
  position and the NAGs and ``{…}`` comments that directly follow it (python-chess reads
  them all as that move's comment, which so ends in ``MATCH``), or after the note and
  the comments before the first move for the start position.  A position marked by
  several lists gets one ``MATCH``.

Where the moves are is found by :mod:`cqllegacy.runner.movetext`, as python-chess finds
them.  A game without tag lines gets no blank line before its movetext; ``%`` and ``;``
lines between the tags and the movetext are no part of the game's text
(:func:`~cqllegacy.runner.pgn.split_games` skips them) and are not written.

>>> from cqllegacy.runner.pgn import GameText
>>> game = GameText(7, 1, ('[White "Tal"]\\n',), "1. e4 {best} e5 ; aside\\n% kept\\n2. Nf3 *\\n")
>>> print(annotated_game(game, [0, 1, 3], "Original game: 7"), end="")
[White "Tal"]
<BLANKLINE>
{ Original game: 7 } { MATCH } 1. e4 {best} { MATCH } e5 ; aside
% kept
2. Nf3 { MATCH } *
<BLANKLINE>
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import shutil
import sys
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TextIO

import attrs

from cqllegacy.errors import UsageError
from cqllegacy.runner.movetext import START, PositionKey, scan_movetext
from cqllegacy.runner.pgn import GameText
from cqllegacy.runner.results import FoundGame

MATCH = "MATCH"
_MARK = " { " + MATCH + " }"

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


def _note_comment(note: str) -> str:
    # A "}" (in a file name) would end the comment early; python-chess's exporter drops
    # it too.
    return "{ " + note.replace("}", "") + " }"


def _after_note(movetext: str) -> str:
    """What separates the note from the movetext: a line break where the movetext's first
    line means something only at the start of a line (a ``%`` or ``;`` line, a blank line)
    or there is no movetext, else a space.

    >>> _after_note("1. e4 *"), _after_note("% escape\\n1. e4 *"), _after_note("")
    (' ', '\\n', '\\n')
    """
    first_line = movetext.split("\n", 1)[0]
    if not movetext or not first_line.strip() or first_line.startswith(("%", ";")):
        return "\n"
    return " "


def annotate_movetext(movetext: str, marked: Collection[PositionKey], note: str) -> str:
    """``movetext`` with the ``note`` comment first and ``MATCH`` at the ``marked``
    positions (keys as :func:`~cqllegacy.runner.report.position_key` gives them).

    Raises ``ValueError`` for a marked position the movetext does not have.

    ``MATCH`` goes after the move and the comments right after it.  A comment written
    after a variation's ``)`` is, for python-chess, also the comment of the move before
    the variation; for such a move ``MATCH`` is read in the middle of its comment.

    >>> annotate_movetext("1. e4 (1. d4) *", ["1.1"], "N")
    '{ N } 1. e4 (1. d4 { MATCH }) *'
    """
    marked = set(marked)
    moves = scan_movetext(movetext)
    missing = marked - {START, *(move.key for move in moves.moves)}
    if missing:
        names = ", ".join(sorted(map(str, missing)))
        raise ValueError(f"marked positions not in the movetext: {names}")
    inserts = {move.annotated_end: _MARK for move in moves.moves if move.key in marked}
    head = _note_comment(note)
    if START in marked:
        if moves.start_annotated_end == 0:
            head += _MARK
        else:
            inserts[moves.start_annotated_end] = _MARK
    pieces = [head, _after_note(movetext)]
    done = 0
    for offset in sorted(inserts):
        pieces += [movetext[done:offset], inserts[offset]]
        done = offset
    pieces.append(movetext[done:])
    return "".join(pieces)


def annotated_game(text: GameText, marked: Collection[PositionKey], note: str) -> str:
    """The PGN text of a matching game: its tags, a blank line, its annotated movetext
    (see :func:`annotate_movetext`) and a blank line."""
    tags = "".join(line if line.endswith("\n") else line + "\n" for line in text.tag_lines)
    movetext = annotate_movetext(text.movetext, marked, note)
    if not movetext.endswith("\n"):
        movetext += "\n"
    return (tags + "\n" if tags else "") + movetext + "\n"


@attrs.frozen
class PgnRenderer:
    """The text :class:`PgnWriter` writes for a matching game (picklable, so that worker
    processes can produce it)."""

    several_files: bool

    def __call__(self, found: FoundGame) -> str:
        note = original_game_note(
            found.ordinal, found.file, found.file_ordinal, several_files=self.several_files
        )
        return annotated_game(found.text, found.marked(), note)


class PgnWriter:
    """Writes each matching game it is given, annotated, to an open text file.

    ``renderer`` makes the text, ``write`` writes a text made elsewhere (by a worker
    process of a parallel scan).
    """

    def __init__(self, handle: TextIO, *, several_files: bool) -> None:
        self.handle = handle
        self.several_files = several_files
        self.renderer = PgnRenderer(several_files)

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


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through an :func:`atomic_text_file`."""
    with atomic_text_file(path) as handle:
        handle.write(text)


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
