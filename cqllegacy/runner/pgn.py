"""PGN files game by game: open (plain or compressed), split, decode, parse.

Reading is split in three steps so that a game rejected by its tags costs no move
replay: :func:`split_games` cuts the text into :class:`GameText` pieces, :func:`read_tags`
reads the tag pairs from the tag lines alone, and :func:`read_game` parses the moves only
when the caller asks for them.

Game boundaries follow python-chess (a blank line outside a ``{…}`` comment ends the
movetext), with two tolerances: any number of blank lines may separate the tags from the
moves, and a tag line where moves are expected starts a new game even without a blank
line in between.

>>> games = list(split_games(['[White "Tal"]\\n', '\\n', '1. e4 {a\\n', '\\n', 'b} e5 *\\n']))
>>> len(games), games[0].tag_lines, games[0].movetext
(1, ('[White "Tal"]\\n',), '1. e4 {a\\n\\nb} e5 *\\n')
>>> read_tags(games[0].tag_lines)[0]["White"]
'Tal'
>>> read_game(games[0]).next().comment
'a\\n\\nb'
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import enum
import gzip
import io
import lzma
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

import attrs
import chess
import chess.pgn

from cqllegacy.errors import printable
from cqllegacy.records import Record
from cqllegacy.vocab import san

# --------------------------------------------------------------------------------------
# Opening: compression by magic bytes
# --------------------------------------------------------------------------------------


class Compression(enum.Enum):
    PLAIN = "plain"
    GZIP = "gzip"
    BZIP2 = "bzip2"
    XZ = "xz"


_MAGIC: tuple[tuple[bytes, Compression], ...] = (
    (b"\x1f\x8b", Compression.GZIP),
    (b"\xfd7zXZ\x00", Compression.XZ),
)

#: A PGN file's bytes, decompressed.
_ByteStream = io.BufferedReader | gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile

_OPENERS: dict[Compression, Callable[[io.BufferedReader], _ByteStream]] = {
    Compression.PLAIN: lambda raw: raw,
    Compression.GZIP: lambda raw: gzip.GzipFile(fileobj=raw, mode="rb"),
    Compression.BZIP2: lambda raw: bz2.BZ2File(raw, mode="rb"),
    Compression.XZ: lambda raw: lzma.LZMAFile(raw, mode="rb"),  # noqa: SIM115 (open_pgn closes it)
}

#: What a damaged compressed stream raises while being read (and what text that is not
#: in its announced encoding raises: UnicodeDecodeError is a ValueError).
DECOMPRESSION_ERRORS = (EOFError, OSError, lzma.LZMAError, zlib.error, ValueError)

#: Byte-order marks of the encodings whose text is not one byte per ASCII character
#: (longest first: UTF-32's little-endian mark begins with UTF-16's).
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def wide_encoding(head: bytes) -> str | None:
    """The encoding a UTF-16 or UTF-32 byte-order mark at the start of a file announces.

    >>> wide_encoding(b"\\xff\\xfe[\\x00"), wide_encoding(b"\\xef\\xbb\\xbf["), wide_encoding(b"[E")
    ('utf-16', None, None)
    """
    for bom, encoding in _WIDE_BOMS:
        if head.startswith(bom):
            return encoding
    return None


def detect_compression(head: bytes) -> Compression:
    """The compression the first bytes of a file announce (plain when none does).

    The file name's extension is not consulted: the bytes cannot lie, a name can.

    >>> detect_compression(b"BZh91AY&SY"), detect_compression(b"[Event")
    (<Compression.BZIP2: 'bzip2'>, <Compression.PLAIN: 'plain'>)
    """
    for magic, compression in _MAGIC:
        if head.startswith(magic):
            return compression
    if len(head) >= 4 and head.startswith(b"BZh") and head[3:4].isdigit():
        return Compression.BZIP2
    return Compression.PLAIN


class DamagedInput(Exception):
    """A file whose bytes stop making sense part-way (truncated or corrupt compression)."""


# --------------------------------------------------------------------------------------
# Limits: what hostile input cannot make the reader hold in memory
# --------------------------------------------------------------------------------------

#: The longest line read, in bytes (characters, for UTF-16 and UTF-32): a longer line
#: (a file of spaces or NUL bytes without a line end) is skipped to its end and the game
#: it belongs to is reported and skipped.  ``CQLLEGACY_MAX_LINE_BYTES`` changes it.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: The longest game text (tags and movetext) kept: a longer game is reported and
#: skipped, and the scan goes on at the next game.  ``CQLLEGACY_MAX_GAME_BYTES``.
MAX_GAME_BYTES = 64 * 1024 * 1024
#: The deepest nesting of variations read: python-chess's reader takes time and memory
#: that grow with the square of the depth, so a game nested deeper is reported and
#: skipped.  ``CQLLEGACY_MAX_VARIATION_DEPTH``.
MAX_VARIATION_DEPTH = 200


def _limit(name: str, default: int) -> int:
    """A limit from the environment variable ``name`` (a whole number of at least 1),
    else ``default``."""
    text = os.environ.get(name, "")
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else default


def max_line_bytes() -> int:
    return _limit("CQLLEGACY_MAX_LINE_BYTES", MAX_LINE_BYTES)


def max_game_bytes() -> int:
    return _limit("CQLLEGACY_MAX_GAME_BYTES", MAX_GAME_BYTES)


def max_variation_depth() -> int:
    return _limit("CQLLEGACY_MAX_VARIATION_DEPTH", MAX_VARIATION_DEPTH)


def _megabytes(size: int) -> str:
    """
    >>> _megabytes(16 * 1024 * 1024), _megabytes(1000)
    ('16 MB', '1000 bytes')
    """
    if size % (1024 * 1024) == 0:
        return f"{size // (1024 * 1024)} MB"
    return f"{size} bytes"


#: What :func:`bounded_lines` yields for a line longer than the limit (identity tells
#: it from any line of a file).  Split into games it is a movetext line.
LONG_LINE = "".join(["\x00", "\n"])


def bounded_lines(text: io.TextIOBase, limit: int | None = None) -> Iterator[str]:
    """The lines of ``text``, each at most ``limit`` characters (line end included): a
    longer line is read to its end in pieces, never whole, and given as
    :data:`LONG_LINE`."""
    limit = limit or max_line_bytes()
    readline = text.readline
    while True:
        line = readline(limit + 1)
        if len(line) <= limit:
            if not line:
                return
            yield line
            continue
        while not line.endswith("\n"):
            line = readline(1 << 20)
            if not line:
                break
        yield LONG_LINE


@attrs.define(repr=False)
class PgnSource(Record):
    """An open PGN file: its lines as text and how far into the file reading has got."""

    path: Path
    compression: Compression
    size: int
    _raw: BinaryIO
    _text: io.TextIOWrapper
    #: UTF-16 or UTF-32 when a byte-order mark says so, else None (bytes as characters).
    wide: str | None = None

    def bytes_read(self) -> int:
        """Bytes of the file (compressed bytes for a compressed file) consumed so far."""
        try:
            return min(self._raw.tell(), self.size)
        except (OSError, ValueError):
            return self.size

    def lines(self) -> Iterator[str]:
        """The file's lines, one character per byte (see :func:`decode_game`).

        Raises :class:`DamagedInput` when decompression fails part-way.
        """
        try:
            if self.wide is not None:
                # Wide text is read as what it says, then handed on as the UTF-8 bytes
                # it is, one character per byte, as other files are.
                for line in bounded_lines(self._text):
                    yield line if line is LONG_LINE else line.encode("utf-8").decode("latin-1")
                return
            # Not ``yield from``: closing this generator early would then close the
            # file under open_pgn.
            for line in bounded_lines(self._text):
                yield line
        except UnicodeDecodeError as exc:
            raise DamagedInput(f"not valid {exc.encoding.upper()} text: {exc.reason}") from exc
        except DECOMPRESSION_ERRORS as exc:
            raise DamagedInput(f"damaged {self.compression.value} data: {exc}") from exc


@contextlib.contextmanager
def open_pgn(path: str | os.PathLike[str]) -> Iterator[PgnSource]:
    """Open a PGN file for :func:`split_games`, decompressing as its magic bytes say.

    Lines are decoded as Latin-1, which maps every byte to one character and so loses
    nothing; :func:`decode_game` later re-reads each game as UTF-8 where it is valid.
    A file that begins with a UTF-16 or UTF-32 byte-order mark is read in that encoding.
    Universal newlines make CRLF and CR files read like LF files.
    """
    path = Path(path)
    with open(path, "rb") as raw:
        size = os.fstat(raw.fileno()).st_size
        compression = detect_compression(raw.read(6))
        raw.seek(0)
        stream = _OPENERS[compression](raw)
        try:
            wide = wide_encoding(stream.peek(4)[:4])
        except DECOMPRESSION_ERRORS:
            wide = None  # the damage shows, and is reported, when the lines are read
        text = io.TextIOWrapper(stream, encoding=wide or "latin-1", newline=None)
        try:
            yield PgnSource(path, compression, size, raw, text, wide)
        finally:
            text.detach()
            if stream is not raw:
                stream.close()


# --------------------------------------------------------------------------------------
# Splitting the text into games
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class GameText(Record):
    """One game's text: tag lines and movetext, decoded (see :func:`decode_game`).

    ``line`` is the 1-based line of the file where the game starts; ``problems`` are
    what splitting found wrong (an unterminated comment).
    """

    file_ordinal: int
    line: int
    tag_lines: tuple[str, ...]
    movetext: str
    encoding: str = "utf-8"
    problems: tuple[str, ...] = ()

    def pgn(self) -> str:
        """The text python-chess is given: tags, a blank line, the movetext."""
        return "".join(self.tag_lines) + "\n" + self.movetext


_UTF8_BOM_AS_LATIN1 = "\xef\xbb\xbf"


def _latin1_bytes(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the bytes that are not UTF-8, each read as Latin-1."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return error.object[error.start : error.end].decode("latin-1"), error.end


_LATIN1_BYTES = "cqllegacy-latin1-bytes"
codecs.register_error(_LATIN1_BYTES, _latin1_bytes)


def decode_game(raw_tags: str, raw_movetext: str) -> tuple[str, str, str]:
    """Decode one game whose characters stand for bytes: UTF-8 if valid, else each byte
    that is not part of valid UTF-8 read as Latin-1, the rest staying UTF-8 (a Latin-1
    game stays as it was; one stray byte in a UTF-8 game does not turn its UTF-8 letters
    into two Latin-1 characters each).

    Returns ``(tags, movetext, encoding)``, the encoding ``"latin-1"`` when any byte was
    read as Latin-1.

    >>> decode_game('[White "J\\xc3\\xb6rg"]\\n', "")[0], decode_game('[White "J\\xf6rg"]\\n', "")
    ('[White "Jörg"]\\n', ('[White "Jörg"]\\n', '', 'latin-1'))
    >>> decode_game('[White "M\\xc3\\xbcller"]\\n[Black "J\\xf6rg"]\\n', "")[0]
    '[White "Müller"]\\n[Black "Jörg"]\\n'
    """
    try:
        tags = raw_tags.encode("latin-1").decode("utf-8")
        movetext = raw_movetext.encode("latin-1").decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        tags = raw_tags.encode("latin-1").decode("utf-8", _LATIN1_BYTES)
        movetext = raw_movetext.encode("latin-1").decode("utf-8", _LATIN1_BYTES)
        encoding = "latin-1"
    return tags.lstrip("\ufeff"), movetext, encoding


def pgn_lines(text: str) -> tuple[str, ...]:
    """``text`` cut into lines at ``\\n`` alone, each keeping its end, as python-chess
    reads a game (``str.splitlines`` would also cut at vertical tab, form feed,
    ``\\x1c``-``\\x1e``, NEL, U+2028 and U+2029, which may stand in a tag value).

    >>> pgn_lines('[Event "a\\x0bb"]\\n[White "c"]\\n')
    ('[Event "a\\x0bb"]\\n', '[White "c"]\\n')
    >>> pgn_lines("x\\ny"), pgn_lines("")
    (('x\\n', 'y'), ())
    """
    lines = [f"{line}\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return tuple(lines) if lines[-1] else tuple(lines[:-1])


def _is_blank(line: str) -> bool:
    return not line.strip()


def _is_skipped_line(line: str) -> bool:
    """``%`` escape lines and ``;`` comment lines, which python-chess ignores at a line start."""
    return line.startswith(("%", ";"))


def _is_tag_pair(line: str) -> bool:
    return line.startswith("[") and chess.pgn.TAG_REGEX.match(line) is not None


def _comment_open_after(line: str, in_comment: bool) -> bool:
    """Whether a ``{…}`` comment is still open after ``line``.

    Outside a brace comment ``;`` hides the rest of the line; inside one, only ``}``
    means anything.

    >>> _comment_open_after("1. e4 {best", False), _comment_open_after("e5 ; {", False)
    (True, False)
    """
    if not in_comment and "{" not in line:
        return False
    if in_comment and "}" not in line:
        return True
    for char in line:
        if in_comment:
            in_comment = char != "}"
        elif char == "{":
            in_comment = True
        elif char == ";":
            break
    return in_comment


UNTERMINATED_COMMENT = "unterminated { comment"


def long_line_problem() -> str:
    return f"a line longer than {_megabytes(max_line_bytes())} (the limit): not read"


def long_game_problem() -> str:
    return f"the game's text is longer than {_megabytes(max_game_bytes())} (the limit): not read"


@attrs.define(repr=False)
class _Splitter(Record):
    """The state of :func:`split_games` between lines."""

    ordinal: int
    start_line: int = 0
    tags: list[str] = attrs.Factory(list)
    moves: list[str] = attrs.Factory(list)
    blank_lines_after_tag: int = 0
    in_comment: bool = False
    previous_blank: bool = False
    #: Characters the game's text may still grow by (see :data:`MAX_GAME_BYTES`); below
    #: zero the game's text is no longer kept.
    room: int = attrs.field(factory=max_game_bytes)
    long_line: bool = False

    def feed(self, number: int, line: str) -> GameText | None:
        """Take one line; the game it completes, if any (one line never completes two)."""
        if line is LONG_LINE:
            # A movetext line: it belongs to the game under way or starts one, which is
            # reported (its end is found as for any game).
            self.previous_blank = False
            if self.in_comment or self.moves:
                self._add_move_line(line)
                self.long_line = True
                return None
            done = self._finish() if self.moves else None
            self._start_at(number)
            self._add_move_line(line)
            self.long_line = True
            return done
        blank = not line.strip()
        previous_blank, self.previous_blank = self.previous_blank, blank
        done = None
        if self.in_comment:
            if not (previous_blank and _is_tag_pair(line)):
                self._add_move_line(line)
                return None
            # A blank line and a tag pair inside a comment: the comment was never
            # closed, and the rest of the file must not vanish into it.
            done = self._finish(UNTERMINATED_COMMENT)
        elif self.moves:
            if not blank and not _is_tag_pair(line):
                self._add_move_line(line)
                return None
            done = self._finish()
        return self._feed_outside_movetext(number, line, blank) or done

    def _feed_outside_movetext(self, number: int, line: str, blank: bool) -> GameText | None:
        done = None
        if blank:
            self.blank_lines_after_tag += 1
        elif _is_skipped_line(line):
            pass
        elif line.startswith("["):
            if self.tags and self.blank_lines_after_tag > 1:
                # python-chess allows one blank line inside the tag section; after
                # more, a tag line starts the next game (this one has no moves).
                done = self._finish()
            self._start_at(number)
            self.tags.append(line)
            self.room -= len(line)
            if self.room < 0:
                self.overflow()
            self.blank_lines_after_tag = 0
        else:
            self._start_at(number)
            self._add_move_line(line)
        return done

    def _start_at(self, number: int) -> None:
        if not self.tags and not self.moves:
            self.start_line = number

    def _add_move_line(self, line: str) -> None:
        self.moves.append(line)
        self.room -= len(line)
        if self.room < 0:
            self.overflow()
        if self.in_comment or ("{" in line and not _is_skipped_line(line)):
            self.in_comment = _comment_open_after(line, self.in_comment)

    def overflow(self) -> None:
        """The game's text is over the limit: keep only its last line (what is kept
        decides nothing but whether the game goes on), so that memory stays bounded."""
        self.moves[:-1] = []
        self.tags[:-1] = []
        self.room = -1

    def close(self) -> Iterator[GameText]:
        if self.tags or self.moves:
            yield self._finish(UNTERMINATED_COMMENT if self.in_comment else None)

    def _finish(self, problem: str | None = None) -> GameText:
        problems = [problem] if problem else []
        if self.room < 0:
            problems.append(long_game_problem())
            self.tags, self.moves = [], []
        elif self.long_line:
            problems.append(long_line_problem())
        tags, movetext, encoding = decode_game("".join(self.tags), "".join(self.moves))
        # Found here, so that no reader of the game's text (python-chess, the movetext
        # scanner of a query decided by tags) meets a game nested deeper than the limit.
        too_deep = variation_depth_problem(movetext)
        if too_deep:
            problems.append(too_deep)
        game = GameText(
            file_ordinal=self.ordinal,
            line=self.start_line,
            tag_lines=pgn_lines(tags),
            movetext=movetext,
            encoding=encoding,
            problems=tuple(problems),
        )
        self.ordinal += 1
        self.tags, self.moves = [], []
        self.blank_lines_after_tag = 0
        self.in_comment = False
        self.room = max_game_bytes()
        self.long_line = False
        return game


def split_games(
    lines: Iterable[str], *, first_ordinal: int = 1, first_line: int = 1
) -> Iterator[GameText]:
    """Cut a PGN file's lines into games, numbered from ``first_ordinal``; the first line
    is line ``first_line`` of the file (a part of a file is split like the whole when it
    starts at a game boundary, see :func:`game_boundaries`).

    >>> [g.movetext for g in split_games(["1. e4 *\\n", "[Event \\"b\\"]\\n", "1. d4 *\\n"])]
    ['1. e4 *\\n', '1. d4 *\\n']
    """
    splitter = _Splitter(ordinal=first_ordinal)
    feed = splitter.feed
    for number, line in enumerate(lines, start=first_line):
        first = line[:1]
        # The usual lines, handled here as _Splitter.feed would (tested equal): a
        # movetext line going on with a game's movetext or starting it, an empty line,
        # and a tag line.
        if first not in _UNUSUAL_FIRST:
            if splitter.in_comment:
                pass
            elif splitter.moves:
                splitter.moves.append(line)
                splitter.room -= len(line)
                if splitter.room < 0:
                    splitter.overflow()
                splitter.previous_blank = False
                if "{" in line and first not in "%;":
                    splitter.in_comment = _comment_open_after(line, False)
                continue
            elif first not in "%;":
                if not splitter.tags:
                    splitter.start_line = number
                splitter._add_move_line(line)
                splitter.previous_blank = False
                continue
        elif line == "\n" and not splitter.in_comment:
            if splitter.moves:
                yield splitter._finish()
            splitter.blank_lines_after_tag += 1
            splitter.previous_blank = True
            continue
        elif first == "[" and not splitter.moves and not splitter.in_comment:
            tags = splitter.tags
            if not tags or splitter.blank_lines_after_tag <= 1:
                if not tags:
                    splitter.start_line = number
                tags.append(line)
                splitter.room -= len(line)
                if splitter.room < 0:
                    splitter.overflow()
                splitter.blank_lines_after_tag = 0
                splitter.previous_blank = False
                continue
        # A byte-order mark opens the file, or a game where files were concatenated.
        done = feed(number, line.removeprefix(_UTF8_BOM_AS_LATIN1))
        if done is not None:
            yield done
    yield from splitter.close()


#: First characters of lines :func:`split_games` leaves to :meth:`_Splitter.feed`: tag
#: lines, possibly blank lines (whitespace first: every character up to \xff that
#: ``str.isspace`` accepts), the byte-order mark, the empty string.
_UNUSUAL_FIRST = frozenset("[ \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\xef\x00") | {""}


# --------------------------------------------------------------------------------------
# Tags and moves
# --------------------------------------------------------------------------------------


class UnreadableGame(Exception):
    """A game python-chess cannot read completely; the message says why."""


def read_tags(tag_lines: Iterable[str]) -> tuple[chess.pgn.Headers, tuple[str, ...]]:
    """The game's tags, as python-chess would give them, and the problems found.

    The mapping starts from python-chess's seven-tag roster defaults, so it equals
    ``game.headers`` of the parsed game.  A tag line python-chess would silently drop
    is a problem, and so is a chess variant other than standard chess or Chess960.

    >>> headers, problems = read_tags(['[White "Tal"]\\n', '[Black Botvinnik]\\n'])
    >>> headers["White"], headers["Result"], problems
    ('Tal', '*', ('malformed tag line: [Black Botvinnik]',))
    """
    headers = chess.pgn.Headers()
    problems: list[str] = []
    for line in tag_lines:
        match = chess.pgn.TAG_REGEX.match(line)
        if match is None:
            problems.append(f"malformed tag line: {printable(line.strip())}")
        else:
            headers[match.group(1)] = match.group(2)
    problems.extend(_variant_problems(headers))
    return headers, tuple(problems)


def _variant_problems(headers: chess.pgn.Headers) -> list[str]:
    try:
        board_class = headers.variant()
    except ValueError as exc:
        return [str(exc)]
    if board_class is not chess.Board:
        return [f"chess variant {headers.get('Variant')!r} is not supported"]
    return []


#: Tag lines as most files write them: ``[Name "value"]``, one space, the value printable
#: ASCII without ``"``.  Each such line matches python-chess's ``TAG_REGEX`` with the value
#: as written (TAG_REGEX also takes other spacing and any value without ``\r``).
_PLAIN_TAG_LINES = re.compile(r'(?:\[[A-Za-z0-9][A-Za-z0-9_+#=:-]* "[ !#-~]*"\]\n)*')


def plainly_clean(tags: str) -> bool:
    """True only when :func:`read_tags` finds no problem in these tag lines (joined):
    every line a plain tag pair and no ``Variant`` tag.  False says nothing.

    >>> plainly_clean('[White "Tal"]\\n[Black "Botvinnik"]\\n'), plainly_clean("")
    (True, True)
    >>> plainly_clean('[White "Tal"]\\n[Variant "Atomic"]\\n'), plainly_clean('[White "Tal"]')
    (False, False)
    """
    return _PLAIN_TAG_LINES.fullmatch(tags) is not None and "[Variant " not in tags


NOT_A_GAME = "neither tags nor moves: not a game"


def start_position_problem(headers: chess.pgn.Headers) -> str | None:
    """What python-chess finds wrong with a game's start position before reading its
    moves (an invalid ``FEN`` tag), in its words; None when nothing.

    >>> headers, _ = read_tags(['[FEN "not a position"]\\n'])
    >>> start_position_problem(headers)
    "expected 'w' or 'b' for turn part of fen: 'not a position'"
    """
    board_class = headers.variant()  # read_tags has refused every other variant
    try:
        board_class(headers.get("FEN", board_class.starting_fen), chess960=headers.is_chess960())
    except ValueError as exc:
        return str(exc)
    return None


class _RecordingBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's game builder without its log message: problems are reported once,
    by the runner, from ``game.errors``; moves are read by the fast SAN reader."""

    parse_san = staticmethod(san.parse_san)

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


class StreamVisitor(Protocol):
    """What :func:`read_stream` needs from a visitor that evaluates while reading, besides
    being a python-chess visitor (a ``chess.pgn.BaseVisitor``)."""

    errors: list[Exception]
    main_moves: int

    @property
    def readable(self) -> bool: ...


#: What python-chess's reader takes as the parts of movetext that matter to nesting:
#: ``{…}`` comments and ``;`` comments (parentheses in them do not count), parentheses.
_NESTING_TOKENS = re.compile(r"\{[^}]*\}?|;[^\n]*|[()]")


def variation_depth_problem(movetext: str) -> str | None:
    """Why a game's variations are not read: nested deeper than
    :data:`MAX_VARIATION_DEPTH` (python-chess would take time and memory growing with
    the square of the depth); None for every other game (most cost one count).

    >>> variation_depth_problem("1. e4 (1. d4 (1. c4)) *") is None
    True
    >>> variation_depth_problem("1. e4 " + "(1. d4 " * 300 + ")" * 300)
    'variations nested 300 deep, more than 200 (the limit): not read'
    """
    limit = max_variation_depth()
    if movetext.count("(") <= limit:
        return None
    depth = deepest = 0
    for token in _NESTING_TOKENS.findall(movetext):
        if token == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif token == ")":
            depth = max(depth - 1, 0)
    if deepest <= limit:
        return None
    return f"variations nested {deepest} deep, more than {limit} (the limit): not read"


#: Whether a visitor class takes nothing from python-chess's reader but the main line's
#: boards and moves (:func:`~cqllegacy.evaluator.stream.main_line_only`), per class.
_MAIN_LINE_ONLY: dict[type, bool] = {}


def _reads_main_line_only(kind: type[chess.pgn.BaseVisitor[object]]) -> bool:
    known = _MAIN_LINE_ONLY.get(kind)
    if known is None:
        from cqllegacy.evaluator.stream import main_line_only  # the evaluator's own rule

        known = _MAIN_LINE_ONLY[kind] = main_line_only(kind)
    return known


#: What keeps a game's text off :func:`_read_plain`: in the movetext, anything that opens
#: or closes a comment or a variation, an escape line's ``%``, a ``[`` (python-chess may
#: read a line starting with it as a tag), a blank line (the game's end) and a line break
#: other than ``\n`` (python-chess reads lines split at ``\n`` alone); in the tags, a
#: line that does not start with ``[`` and a tag that may set the start position
#: (``FEN``, ``Variant``: read as python-chess reads them, on its own path).
_NOT_PLAIN_MOVETEXT = re.compile(r"[{};()%\[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]|^\s*\n|\n\s*\n")
_NOT_PLAIN_TAGS = re.compile(
    r"(?im)^\[(?:fen|variant)(?![A-Za-z0-9_+#=:-])|[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]|\n[^\[]"
)

#: The tokens python-chess's reader takes as annotations (a NAG) and results: a visitor
#: reading the main line only is told nothing of them.
_ANNOTATIONS = frozenset(("?", "??", "!", "!!", "!?", "?!", "*", "1-0", "0-1", "1/2-1/2"))


def plain_game(text: GameText) -> bool:
    """Whether python-chess's reader would read ``text`` as :func:`_read_plain` does: a
    tag section of tag lines alone that leaves the standard start position, and a
    movetext of moves, move numbers, NAGs and results only.

    >>> plain_game(GameText(1, 1, ('[White "Tal"]\\n',), "1. e4 $1 e5?! 2. Nf3 1-0\\n"))
    True
    >>> plain_game(GameText(1, 1, ('[White "Tal"]\\n',), "1. e4 {best} e5 1-0\\n"))
    False
    >>> plain_game(GameText(1, 1, ('[FEN "8/8/8/8/8/8/8/K1k5 w - - 0 1"]\\n',), "*\\n"))
    False
    """
    if not text.tag_lines or _NOT_PLAIN_MOVETEXT.search(text.movetext):
        return False
    tags = "".join(text.tag_lines)
    return (
        tags.startswith("[") and tags.endswith("\n") and _NOT_PLAIN_TAGS.search(tags[:-1]) is None
    )


def _read_plain(movetext: str, visitor: chess.pgn.BaseVisitor[object]) -> object:
    """What ``chess.pgn.read_game`` gives a visitor that reads the main line only
    (:func:`_reads_main_line_only`) on a game :func:`plain_game` accepts: the same calls
    of ``visit_board``, ``visit_move``, ``handle_error`` and ``end_game`` in the same
    order, on the same board, and its ``result()``; without python-chess's line-by-line
    reading and its calls that such a visitor ignores.  python-chess's tokens: its own
    pattern, over the whole movetext at once (no token spans a line break).  After a move
    it cannot read, python-chess reads none of the rest of the line (it skips to the end
    of the variation, which here is the game's)."""
    board = chess.Board()
    visit_board, visit_move, parse_san = visitor.visit_board, visitor.visit_move, visitor.parse_san
    play = san.play  # python-chess's push, inline for the usual move
    visit_board(board)
    for match in chess.pgn.MOVETEXT_REGEX.finditer(movetext):
        token = match.group(0)
        if token in _ANNOTATIONS:
            continue
        if token[0] == "$":
            int(token[1:])  # python-chess reads the NAG's number (and fails on too many digits)
            continue
        try:
            move = parse_san(board, token)
        except ValueError as error:
            visitor.handle_error(error)
            visit_board(board)
            break
        visit_move(board, move)
        play(board, move)
        visit_board(board)
    visitor.end_game()
    return visitor.result()


def read_stream(text: GameText, visitor: StreamVisitor) -> bool:
    """Let python-chess read a game into ``visitor`` (no game tree is built).

    True when the game was read cleanly: exactly the games :func:`read_game` reads
    without raising.  On False the caller uses :func:`read_game`, which says why the game
    is unreadable (or reads it after all), so every message comes from one place.

    >>> import chess.pgn
    >>> class Counter(chess.pgn.BaseVisitor):
    ...     errors, main_moves, readable = [], 0, True
    ...     def visit_move(self, board, move): self.main_moves += 1
    ...     def result(self): return self
    >>> read_stream(GameText(1, 1, (), "1. e4 e5 *"), Counter())
    True
    """
    if not isinstance(visitor, chess.pgn.BaseVisitor):
        raise TypeError(f"not a python-chess visitor: {visitor!r}")
    if text.problems or variation_depth_problem(text.movetext):
        return False
    try:
        if _reads_main_line_only(type(visitor)) and plain_game(text):
            result = _read_plain(text.movetext, visitor)
        else:
            result = chess.pgn.read_game(io.StringIO(text.pgn()), Visitor=lambda: visitor)
    except Exception:
        return False
    if result is None or not visitor.readable:
        return False
    return bool(text.tag_lines) or visitor.main_moves > 0


def read_game(text: GameText) -> chess.pgn.Game:
    """Parse a game's moves; raise :class:`UnreadableGame` when python-chess cannot.

    python-chess records most problems in ``game.errors`` and skips the rest of the
    line; such a game is incomplete, so it counts as unreadable too.

    >>> read_game(GameText(1, 1, (), "1. e4 Kf3 *"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cqllegacy.runner.pgn.UnreadableGame: illegal san: 'Kf3' in rnbqkbnr/pppppppp/8/8/4P3/...
    """
    if text.problems:
        raise UnreadableGame("; ".join(text.problems))
    too_deep = variation_depth_problem(text.movetext)
    if too_deep:
        raise UnreadableGame(too_deep)
    builder = _RecordingBuilder()
    try:
        game = chess.pgn.read_game(io.StringIO(text.pgn()), Visitor=lambda: builder)
    except Exception as exc:
        # python-chess 1.11 has internal errors on some bad inputs (IndexError after an
        # illegal move in one of several sibling variations); any of them means the
        # game cannot be read, and the scan must go on.
        # Its own words ("IndexError: list index out of range") tell a user nothing.
        crash = "python-chess stopped reading it (an error inside python-chess)"
        raise UnreadableGame("; ".join([*map(str, builder.game.errors), crash])) from exc
    if game is None:
        raise UnreadableGame("no game text")
    if game.errors:
        raise UnreadableGame("; ".join(str(error) for error in game.errors))
    if not text.tag_lines and not game.variations:
        raise UnreadableGame(NOT_A_GAME)
    return game
