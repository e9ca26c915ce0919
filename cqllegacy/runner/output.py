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
import errno
import io
import os
import re
import stat
import sys
from collections.abc import Collection, Container, Iterator, Sequence
from pathlib import Path
from typing import TextIO

import attrs

from cqllegacy.errors import CqlLegacyError, UsageError, WriteError, display_path
from cqllegacy.records import Record
from cqllegacy.runner.movetext import START, PositionKey, plain_word_ends, scan_movetext
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
    plies = [key for key in marked if isinstance(key, int)]
    main_line = len(plies) == len(marked)
    through = max(plies, default=0) if main_line else None
    ends = plain_word_ends(movetext, through) if main_line else None
    keys: Container[PositionKey]
    if ends is not None:
        # A plain movetext: a move's annotations end with its word; the start has none.
        keys, start_end = range(len(ends) + 1), 0
        inserts = {ends[int(key) - 1]: _MARK for key in marked if key in keys and key}
    else:
        moves = scan_movetext(movetext, through)
        keys, start_end = {START, *(move.key for move in moves.moves)}, moves.start_annotated_end
        inserts = {move.annotated_end: _MARK for move in moves.moves if move.key in marked}
    missing = [key for key in marked if key not in keys]
    if missing:
        names = ", ".join(sorted(map(str, missing)))
        raise ValueError(f"marked positions not in the movetext: {names}")
    head = _note_comment(note)
    if START in marked:
        if start_end == 0:
            head += _MARK
        else:
            inserts[start_end] = _MARK
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


@attrs.frozen(repr=False)
class PgnRenderer(Record):
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


#: Names of standard streams and open descriptors: written to the descriptor itself.
_DESCRIPTOR_NAMES = re.compile(
    r"/dev/(?:std(?P<std>in|out|err)|fd/(?P<fd>\d+))|/proc/self/fd/(?P<pfd>\d+)"
)
_STANDARD = {"in": 0, "out": 1, "err": 2}


def stream_descriptor(path: str) -> int | None:
    """The open descriptor a name such as ``/dev/stdout`` or ``/dev/fd/3`` stands for.

    >>> stream_descriptor("/dev/stdout"), stream_descriptor("/proc/self/fd/4")
    (1, 4)
    >>> stream_descriptor("out.pgn") is None
    True
    """
    match = _DESCRIPTOR_NAMES.fullmatch(path)
    if match is None:
        return None
    if match["std"]:
        return _STANDARD[match["std"]]
    return int(match["fd"] or match["pfd"])


@attrs.frozen(repr=False)
class Destination(Record):
    """Where a result goes and how it is written there.

    ``how`` is ``"stdout"`` (``-``), ``"descriptor"`` (a standard stream or open
    descriptor named as a file, written to that descriptor), ``"through"`` (a device, a
    FIFO or a socket: opened and written, never replaced) or ``"replace"`` (a regular file
    or a new one: written under a temporary name and renamed over ``target``, the real
    path once symbolic links are followed).
    """

    name: str
    how: str
    target: Path
    descriptor: int = -1

    @property
    def replaced(self) -> bool:
        return self.how == "replace"


def destination(name: str | os.PathLike[str], what: str = "file") -> Destination:
    """How ``name`` is written (see :class:`Destination`); a folder, or a path whose
    folder is missing or not a folder, is a :class:`~cqllegacy.errors.UsageError` that
    calls it ``what``.

    >>> destination("-").how, destination("/dev/stdout").how
    ('stdout', 'descriptor')
    """
    text = os.fspath(name)
    if text == STDOUT:
        return Destination(text, "stdout", Path(text))
    descriptor = stream_descriptor(text)
    if descriptor is not None:
        return Destination(text, "descriptor", Path(text), descriptor)
    target = Path(os.path.realpath(text))
    try:
        mode = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):
        _check_folder(f"the {what} {text}", target.parent, Path(text).parent)
        return Destination(text, "replace", target)
    except OSError as exc:
        raise UsageError(f"cannot write the {what} {text}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise UsageError(f"the {what} {text} is a folder, not a file")
    return Destination(text, "replace" if stat.S_ISREG(mode) else "through", target)


def _check_folder(label: str, folder: Path, written: Path) -> None:
    """The folder a new file goes into must be there and be a folder; ``written`` is
    that folder as the user wrote it (shown when no symbolic link leads elsewhere)."""
    shown = written if os.path.abspath(written) == str(folder) else folder
    # A relative ``shown`` has fewer parents, the last one the current folder, which exists.
    chain = zip((folder, *folder.parents), (shown, *shown.parents), strict=False)
    for parent, parent_shown in chain:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"cannot write {label}: {parent_shown} is a file, not a folder")
            break
    if not folder.is_dir():
        raise UsageError(f"cannot write {label}: folder {shown} does not exist")


def make_folder(folder: Path, what: str) -> None:
    """Create ``folder`` and its parents; a :class:`~cqllegacy.errors.UsageError` that
    says why not (a file in the way, no permission ...), naming it ``what``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"cannot create {what}: a file is in the way") from None
    except OSError as error:
        raise UsageError(f"cannot create {what}: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write in {what}: permission denied")


def check_destinations(
    destinations: Sequence[tuple[str, str]], protected: Sequence[tuple[str, Path]]
) -> None:
    """Refuse destinations that would overwrite an input, the script or each other.

    ``destinations`` are ``(what, path)`` pairs (``"-"`` is standard output),
    ``protected`` are ``(what, path)`` pairs of files that must survive the run.  Only
    files that would be replaced are compared: a device or a FIFO is written through.

    >>> check_destinations([("output", "x.pgn")], [("input", Path("x.pgn"))])
    Traceback (most recent call last):
    ...
    cqllegacy.errors.UsageError: refusing to write the output x.pgn over the input x.pgn
    """
    files: list[tuple[str, Path]] = []
    streams: list[str] = []
    for what, path in destinations:
        where = destination(path, what)
        if where.how == "stdout" or (where.how == "descriptor" and where.descriptor == 1):
            streams.append(what)
        if not where.replaced:
            continue
        for other_what, other in [*protected, *files]:
            if _same_file(where.target, other):
                raise UsageError(
                    f"refusing to write the {what} {path} over the {other_what} {other}"
                )
        files.append((what, where.target))
    if len(streams) > 1:
        raise UsageError(f"only one of {' and '.join(streams)} can go to standard output")


def _file_mode(target: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return None


#: The longest file name most file systems take, in bytes.
NAME_MAX = 255
#: How temporary names begin and end (``.`` + name + ``.`` + 8 hex digits + ``.tmp``).
_TEMP_EXTRA = len("." + "." + "0" * 8 + ".tmp")


def temporary_name(target: Path) -> Path:
    """A fresh temporary name next to ``target`` that fits in :data:`NAME_MAX` bytes
    whatever ``target``'s name (its name is shortened, never the folder).

    >>> len(os.fsencode(temporary_name(Path("d") / ("x" * 255)).name)) <= NAME_MAX
    True
    """
    name = os.fsencode(target.name)
    room = NAME_MAX - _TEMP_EXTRA
    if len(name) > room:
        name = name[:room]
    return target.with_name(
        # os.urandom is what secrets.token_hex reads, without secrets' imports (hmac,
        # hashlib) at every run's start.
        os.fsdecode(b"." + name + b"." + os.urandom(4).hex().encode() + b".tmp")
    )


@attrs.define(repr=False)
class _Pending(Record):
    """A temporary file written in full, waiting to be renamed over ``target``."""

    temp: Path
    target: Path
    name: str


class Replacement:
    """Files replaced all together or not at all.

    Each file is written under a temporary name in its destination folder
    (:meth:`open`, :meth:`write`); :meth:`commit` then flushes every one of them to the
    disk and only when all are there renames them into place.  When anything fails
    before (a full disk, an I/O error, an interrupt), :meth:`discard` removes the
    temporary files and every previous file stays as it was.

    Used as a context manager: commit when the block ends normally, discard otherwise.
    A file that is not replaced (standard output, a device, a FIFO: see
    :func:`destination`) is written as it goes.
    """

    def __init__(self) -> None:
        self._pending: list[_Pending] = []
        self._temps: list[Path] = []
        self._names: list[str] = []
        self._removals: list[Path] = []

    def __enter__(self) -> Replacement:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        if exc is None:
            self.commit()
            return
        self.discard()
        if isinstance(exc, KeyboardInterrupt | BrokenPipeError):
            for name in self._names:
                # A file that was not there before is not there now either.
                kept = "left as it was" if os.path.lexists(name) else "not written"
                exc.add_note(f"{display_path(name)} {kept}")

    @contextlib.contextmanager
    def open(self, path: str | os.PathLike[str]) -> Iterator[TextIO]:
        """A UTF-8 text file for ``path`` (see :func:`open_destination`); a regular or new
        file is renamed into place by :meth:`commit`."""
        where = destination(os.fspath(path))
        if not where.replaced:
            with _open_unreplaced(where) as handle:
                yield handle
            return
        with self._temporary(where.target, os.fspath(path)) as handle:
            yield handle

    def write(self, path: str | os.PathLike[str], text: str) -> None:
        """Write ``text`` for ``path`` (renamed into place by :meth:`commit`)."""
        with self.open(path) as handle:
            handle.write(text)

    @contextlib.contextmanager
    def _temporary(self, target: Path, name: str) -> Iterator[TextIO]:
        temp = temporary_name(target)
        # Listed before it is made: a signal can arrive between any two steps, right
        # after the file is made included, and the file must still be removed.
        self._temps.append(temp)
        self._names.append(name)
        try:
            # O_EXCL: never reuse a file someone else created; mode 0o666 lets the umask
            # decide the permissions, as for any new file.
            descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as exc:
            self._temps.remove(temp)  # not made, or someone else's: not ours to remove
            self._names.remove(name)
            raise _not_created(name, exc) from exc
        handle = _NamedOutput(open(descriptor, "wb"), name)  # noqa: SIM115 (closed below)
        try:
            yield handle
            # What fails from here on failed in writing this file (what the block
            # raises is for its caller to say).
            with _write_errors(name):
                handle.flush()
                os.fsync(handle.fileno())
        finally:
            # After a failure, closing tries to write what is still buffered, and fails
            # again (a full disk): that must not hide what failed first.  The descriptor
            # is closed all the same.
            with contextlib.suppress(OSError):
                handle.close()
        self._pending.append(_Pending(temp, target, name))

    def remove(self, path: Path) -> None:
        """Remove ``path`` (if there) once the files are in place."""
        self._removals.append(path)

    def commit(self) -> None:
        """Rename every file written into place (each one is already on the disk), then
        remove the files :meth:`remove` named."""
        try:
            for pending in self._pending:
                _put_in_place(pending.temp, pending.target, pending.name)
                self._temps.remove(pending.temp)
            for path in self._removals:
                with _write_errors(str(path)):
                    path.unlink(missing_ok=True)
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the temporary files not renamed; the files they were for stay as they were."""
        for temp in self._temps:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        self._temps.clear()


class _NamedOutput(io.TextIOWrapper):
    """A UTF-8 text file whose failed writes (a full disk while the data is written, not
    only when it is flushed) are a :class:`~cqllegacy.errors.WriteError` naming it:
    whatever writes to it, the message says which output failed."""

    def __init__(self, raw: io.BufferedWriter, name: str) -> None:
        super().__init__(raw, encoding="utf-8", newline="\n")
        self.shown = name

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            reason = exc.strerror or exc
            raise WriteError(f"cannot write {display_path(self.shown)}: {reason}") from exc


def _not_created(name: str, exc: OSError) -> CqlLegacyError:
    """The temporary file of ``name`` could not be made: a full disk is a failed write
    (status 4), a folder that refuses new files a command that cannot be carried out."""
    message = f"cannot write {display_path(name)}: {exc.strerror or exc}"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG):
        return WriteError(message)
    return UsageError(message)


@contextlib.contextmanager
def atomic_text_file(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A UTF-8 text file written under a temporary name in the destination folder and
    renamed into place only when the block ends normally; on any exception (an
    interrupt included) the temporary file is removed and the old file is untouched.

    ``path`` may be a symbolic link: the file it leads to is replaced, the link stays.
    A new file gets the permissions the umask allows, a replaced one keeps its own.
    """
    target = Path(os.path.realpath(path))
    with Replacement() as replacement, replacement._temporary(target, os.fspath(path)) as handle:
        yield handle


def _put_in_place(temp: Path, target: Path, name: str) -> None:
    """Rename ``temp`` over ``target``, with ``target``'s permissions when it exists."""
    try:
        mode = _file_mode(target)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except OSError as exc:
        raise WriteError(f"cannot write {display_path(name)}: {exc.strerror or exc}") from exc


@contextlib.contextmanager
def written_through(target: Path, name: str) -> Iterator[TextIO]:
    """A device, FIFO or socket opened for writing (a FIFO waits for its reader)."""
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_NOCTTY)
    except OSError as exc:
        raise UsageError(f"cannot write {name}: {exc.strerror or exc}") from exc
    with _write_errors(name), open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
        yield handle


@contextlib.contextmanager
def descriptor_output(descriptor: int, name: str) -> Iterator[TextIO]:
    """An open descriptor (``/dev/stdout``, ``/dev/fd/3``) written to, left open."""
    if descriptor == 1 and sys.stdout is not None:
        sys.stdout.flush()
    try:
        copy = os.dup(descriptor)
    except OSError as exc:
        raise UsageError(f"cannot write {name}: descriptor {descriptor} is not open") from exc
    with _write_errors(name), open(copy, "w", encoding="utf-8", newline="\n") as handle:
        yield handle


@contextlib.contextmanager
def _write_errors(name: str) -> Iterator[None]:
    """An OSError while writing (but a broken pipe, which ends the command as such) as a
    :class:`~cqllegacy.errors.WriteError`."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise WriteError(f"cannot write {name}: {exc.strerror or exc}") from exc


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` as :func:`open_destination` says: a regular or new file
    is replaced atomically, a device or FIFO written through."""
    with open_destination(os.fspath(path)) as handle:
        handle.write(text)


@contextlib.contextmanager
def standard_output() -> Iterator[TextIO]:
    """Standard output as UTF-8 text, whatever the locale says."""
    stream = sys.stdout
    if stream is None or not _open_descriptor(stream):
        raise UsageError("standard output is closed: name a file to write to instead of -")
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        yield stream
        return
    stream.flush()
    wrapper = io.TextIOWrapper(buffer, encoding="utf-8", newline="\n", write_through=True)
    try:
        yield wrapper
    finally:
        try:
            wrapper.flush()
        finally:
            wrapper.detach()


def _open_descriptor(stream: TextIO) -> bool:
    """Whether the stream's descriptor is open (a stream without one counts as open)."""
    try:
        os.fstat(stream.fileno())
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return True
    except OSError:
        return False
    return True


def open_destination(path: str) -> contextlib.AbstractContextManager[TextIO]:
    """Standard output for ``"-"``, the descriptor for ``/dev/stdout`` and the like, a
    device or FIFO written through, else an :func:`atomic_text_file` (see
    :func:`destination`)."""
    where = destination(path)
    if not where.replaced:
        return _open_unreplaced(where)
    return atomic_text_file(where.target)


def _open_unreplaced(where: Destination) -> contextlib.AbstractContextManager[TextIO]:
    """Standard output, an open descriptor, or a device or FIFO written through."""
    if where.how == "stdout":
        return standard_output()
    if where.how == "descriptor":
        return descriptor_output(where.descriptor, where.name)
    return written_through(where.target, where.name)
