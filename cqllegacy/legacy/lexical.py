"""The lexical level of legacy scripts: white space, tokens and the small grammars of atoms.

A script is a sequence of ``(``, ``)``, ``;`` comments (to the end of the line) and
atoms (runs of any other characters but white space), (semantics: S-lexical).  The
grammar of :mod:`cqllegacy.legacy.grammar` builds its terminals from the patterns
here; the meaning of one atom (a piece designator, an integer) is read by the
functions here, which report a mistake by its index inside the atom.  Nothing here
loads pyparsing.

>>> parse_designator("$rook[a1]").tag
'rook'
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterator

import attrs

from cqllegacy.errors import LINE_BREAKS as LINE_BREAKS  # the legacy grammar imports it from here
from cqllegacy.legacy import tree as t
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import legacy_types
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import SquareSet, SquareSyntaxError, parse_squares

#: Longest integer accepted in a range (digits); longer ones are refused, not truncated.
MAX_DIGITS = 18

# The line ends of ``str.splitlines``, so that line numbers agree with the caret excerpt.
WHITESPACE = " \t" + LINE_BREAKS

COMMENT_PATTERN = ";[^" + re.escape(LINE_BREAKS) + "]*"
ATOM_CHARACTER = "[^" + re.escape(WHITESPACE) + "();]"
#: A bracketed part of an atom may hold white space and line breaks (Scidb prints square
#: lists broken across lines: ``[a1,a3,\n e1]``); no parenthesis, comment or keyword.
BRACKETED = r"\[[^][();:]*\]"  # no "[" inside: each scan stops at the next one
ATOM_PATTERN = f"(?:{BRACKETED}|{ATOM_CHARACTER})+"
#: Succeeds where an atom ends: a pattern for a whole atom ends with it.
ATOM_END = f"(?!{ATOM_CHARACTER})"
#: One token.  No token starts with white space and every other character starts one, so
#: ``finditer`` skips exactly the white space between tokens.
TOKEN = re.compile(f"[()]|{COMMENT_PATTERN}|{ATOM_PATTERN}")

#: The minus signs of published dialect scripts: ASCII, U+2212 and the en dash (Scidb's
#: help rendered ``-`` as either); ``+`` is Scidb's explicit sign.
MINUS_SIGNS = "-\u2212\u2013"
INTEGER_PATTERN = f"[{MINUS_SIGNS}+]?[0-9]+"  # "-" first: a literal, not a range
#: Scidb's half-open ranges: ``<n``, ``<=n``, ``>n``, ``>=n`` (one atom).
OPEN_RANGE_PATTERN = f"(?:<=|>=|<|>){INTEGER_PATTERN}"
NAME_PATTERN = "[A-Za-z0-9_]+"
_INT_RE = re.compile(INTEGER_PATTERN)
_NAME_RE = re.compile(NAME_PATTERN)

UNLIMITED = "unlimited"
QUOTE = '"'

RESULTS: dict[str, GameResult] = {
    "1-0": GameResult.WHITE_WINS,
    "0-1": GameResult.BLACK_WINS,
    "1/2-1/2": GameResult.DRAW,
    "1/2": GameResult.DRAW,
}

_PIECE_TYPES_EXPECTED = (
    "a piece type (K Q R B N P k q r b n p A a M m I i U . ?), a union such as [Qq], or $tag"
)
_SQUARES_EXPECTED = "squares such as d4, a-h1-2, ?8, [a1,h8] or []"


class TokenKind(enum.Enum):
    OPEN = "("
    CLOSE = ")"
    COMMENT = ";"
    ATOM = "atom"
    END = "end of script"


_KIND_BY_FIRST = {"(": TokenKind.OPEN, ")": TokenKind.CLOSE, ";": TokenKind.COMMENT}


@attrs.frozen(repr=False, slots=True)
class Token(Record):
    kind: TokenKind
    text: str
    offset: int

    @classmethod
    def at(cls, text: str, offset: int) -> Token:
        """The token spelled ``text`` (never empty) that starts at ``offset``."""
        return cls(_KIND_BY_FIRST.get(text[0], TokenKind.ATOM), text, offset)

    @classmethod
    def end(cls, offset: int) -> Token:
        return cls(TokenKind.END, "", offset)

    @property
    def is_keyword(self) -> bool:
        return self.kind is TokenKind.ATOM and self.text.startswith((":", "!:"))

    def is_atom(self, text: str) -> bool:
        return self.kind is TokenKind.ATOM and self.text == text

    def describe(self) -> str:
        """The token as a message shows it."""
        if self.kind is TokenKind.END:
            return "the end of the script"
        shown = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return repr(shown)


def tokens(text: str) -> Iterator[Token]:
    """The tokens of ``text``, lazily.

    >>> [token.text for token in tokens("(match;c\\n(position Ra3))")]
    ['(', 'match', ';c', '(', 'position', 'Ra3', ')', ')']
    """
    for found in TOKEN.finditer(text):
        yield Token.at(found.group(), found.start())


# --------------------------------------------------------------------------------------
# Atom sub-grammars: integers, designators, names
# --------------------------------------------------------------------------------------


class AtomError(ValueError):
    """A malformed atom; ``index`` is the offending character's position in the atom."""

    def __init__(self, message: str, index: int, expected: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.index = index
        self.expected = expected
        self.hint = hint


def integer_value(text: str) -> int:
    """The value of an integer atom, with any of the minus signs.

    >>> integer_value("\u22122"), integer_value("+3"), integer_value("-4")
    (-2, 3, -4)
    """
    if text[:1] in MINUS_SIGNS:
        return -int(text[1:])
    return int(text)


def digit_count(text: str) -> int:
    """The digits of an integer atom, its sign left out."""
    return len(text.lstrip("+" + MINUS_SIGNS))


def is_integer(text: str) -> bool:
    return _INT_RE.fullmatch(text) is not None


def is_name(text: str) -> bool:
    return _NAME_RE.fullmatch(text) is not None


@functools.lru_cache(maxsize=4096)
def parse_designator(text: str) -> t.Designator:
    """The piece designator spelled by one atom (span left unset; scripts repeat them).

    >>> from cqllegacy.vocab.squares import format_squares
    >>> d = parse_designator("[Ar][a-h1-2,a8,h8]")
    >>> format_squares(d.squares)
    '[a-h1-2,a8,h8]'
    >>> parse_designator("$rook[a1]").tag
    'rook'
    >>> parse_designator("Ri9")
    Traceback (most recent call last):
      ...
    cqllegacy.legacy.lexical.AtomError: bad square designator 'i9': expected a file a-h, found 'i'
    """
    if any(space in text for space in WHITESPACE):
        # white space only ever stands inside brackets (ATOM_PATTERN); it separates nothing
        text = "".join(text.split())
    if text.startswith("$"):
        return _tag_designator(text)
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise AtomError(
                "missing ']' after the piece types", len(text), expected="a union such as [Qq]"
            )
        if close == 1:
            raise AtomError("empty piece-type list '[]'", 0, expected=_PIECE_TYPES_EXPECTED)
        end = close + 1
    else:
        end = 1
    types = _piece_types(text[:end])
    return t.Designator(types, _squares(text[end:], end))


def _piece_types(text: str) -> int:
    try:
        return legacy_types(text)
    except KeyError as exc:
        letter = str(exc.args[0])
        index = text.index(letter, 1 if text.startswith("[") else 0)
        hint = ""
        if letter == "_":
            hint = "'_' is the CQL 6 empty square; legacy CQL writes '.'"
        elif letter in "abcdefgh12345678" and index == 0:
            hint = "a designator starts with its piece type; write ?d4 for 'square d4, any content'"
        raise AtomError(
            f"bad piece letter {letter!r}", index, expected=_PIECE_TYPES_EXPECTED, hint=hint
        ) from None


_FILE_PART = r"\[[a-h,-]+\]|[a-h?](?:-[a-h])?"
_RANK_PART = r"\[[1-8,-]+\]|[1-8?](?:-[1-8])?"
_CLASSED_SQUARE = re.compile(f"(?P<files>{_FILE_PART})(?P<ranks>{_RANK_PART})")


def _class_members(part: str) -> list[str]:
    """The file or rank designators a bracket class stands for (``[ac]`` → a, c;
    ``[1-7]`` → 1-7); a plain part stands for itself."""
    if not part.startswith("["):
        return [part]
    members: list[str] = []
    for piece in part[1:-1].split(","):
        if len(piece) == 3 and piece[1] == "-":
            members.append(piece)
        else:
            members.extend(piece.replace("-", ""))
    return members


def expand_bracket_classes(text: str) -> str:
    """Scidb's bracket classes inside a square designator written as a standard square
    list: ``?[27]`` (any file, rank 2 or 7), ``[ac]3``, ``?[1-7]``.

    >>> expand_bracket_classes("?[27]"), expand_bracket_classes("[ac]3")
    ('[?2,?7]', '[a3,c3]')
    >>> expand_bracket_classes("[a1,[ac]3]"), expand_bracket_classes("[a-h1-2,a8]")
    ('[a1,a3,c3]', '[a-h1-2,a8]')
    """

    def expand(found: re.Match[str]) -> str:
        files, ranks = found.group("files"), found.group("ranks")
        if not (files.startswith("[") or ranks.startswith("[")):
            return found.group()
        return ",".join(f + r for f in _class_members(files) for r in _class_members(ranks))

    expanded = _CLASSED_SQUARE.sub(expand, text)
    if expanded != text and "," in expanded and not expanded.startswith("["):
        return f"[{expanded}]"
    return expanded


def uses_bracket_class(text: str) -> bool:
    """Does the designator atom ``text`` use a Scidb bracket class in its squares?"""
    return expand_bracket_classes(text) != text


def _squares(text: str, base: int) -> SquareSet:
    """Parse the square part ``text`` that starts at ``base`` within its atom."""
    written = text
    text = expand_bracket_classes(text)
    base_only = text != written  # an expanded text's offsets are not the atom's
    if "," in text and not text.startswith("["):
        raise AtomError("a list of squares must be in brackets", base, hint=f"write [{text}]")
    try:
        return parse_squares(text)
    except SquareSyntaxError as exc:
        offset = base if base_only else base + exc.offset
        raise AtomError(
            f"bad square designator {written!r}: {exc}", offset, expected=_SQUARES_EXPECTED
        ) from None


def _tag_designator(text: str) -> t.Designator:
    found = _NAME_RE.match(text, 1)
    if found is None:
        raise AtomError(
            "missing tag name after '$'", 1, expected="a tag name (letters, digits, _) as in $rook"
        )
    name, end = found.group(), found.end()
    rest = text[end:]
    if rest and not rest.startswith("["):
        raise AtomError(
            f"unexpected {rest[0]!r} after the tag ${name}",
            end,
            hint=f"a tag's squares go in brackets: ${name}[a1,h1]",
        )
    return t.Designator(0, _squares(rest, end), tag=name)
