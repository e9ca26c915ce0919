"""The CQL 6.1 reader's tokens: a lexer that reads them on demand from a cursor.

``//`` comments are tokens where the parser asks for them and white space elsewhere;
``/* */`` comments are always white space.

>>> lexer = Lexer("cql() Nd4 // knight")
>>> [lexer.take().text for _ in range(4)]
['cql', '(', ')', 'Nd4']
>>> lexer.peek(comments=True).kind
<TokenKind.COMMENT: 'a comment'>
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator

import attrs

from cqllegacy.modern.vocabulary import (
    DESIGNATOR_PATTERN,
    FILE_NAME_PATTERN,
    REPETITION_PATTERN,
    RESERVED_WORDS,
    RESULT_PATTERN,
    SQUARES_PATTERN,
    STRING_PATTERN,
    TYPE_PATTERN,
)
from cqllegacy.records import Record


class TokenKind(enum.Enum):
    WORD = "a word"
    DESIGNATOR = "a piece designator"
    NUMBER = "a number"
    STRING = "a string"
    COMMENT = "a comment"
    SYMBOL = "a symbol"
    OTHER = "a character"
    END = "end of text"


@attrs.frozen(repr=False, slots=True)
class Token(Record):
    kind: TokenKind
    text: str
    start: int
    end: int

    def is_(self, *texts: str) -> bool:
        """A word or symbol spelled as one of ``texts`` (never a string or comment)."""
        return self.kind in (TokenKind.WORD, TokenKind.SYMBOL) and self.text in texts


NAME_TEXT = r"[A-Za-z_$][\w$]*"
# `o-o` and `o-o-o` (the move parameters) are words with hyphens, as CQL reads them.
_CASTLING_TEXT = r"o-o(?:-o)?(?![\w$])"
# Longer symbols first; `~~`, `&&` and `||` are chessql operators outside the subset,
# `<-` starts no relation (`<--` is a mistake, not `<` and a negative number).
_SYMBOLS = r"-->|<=|>=|==|!=|~~|&&|\|\||<-+|\[\]|[-+#~&|(){}:<>]|\.(?![\w$])"
_TOKEN = re.compile(
    rf"(?P<COMMENT>//[^\n]*)|(?P<STRING>{STRING_PATTERN})|(?P<DESIGNATOR>{DESIGNATOR_PATTERN})"
    rf"|(?P<WORD>{_CASTLING_TEXT}|{NAME_TEXT})|(?P<NUMBER>\d+)|(?P<SYMBOL>{_SYMBOLS})|(?P<OTHER>\S)"
)
#: White space and ``/* */`` comments; with ``//`` comments too where those are space.
_SPACE = re.compile(r"(?:\s+|/\*.*?\*/)*", re.DOTALL)
_SPACE_AND_COMMENTS = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.DOTALL)
_NAME = re.compile(NAME_TEXT)
WORD_AT = re.compile(r"[A-Za-z_$][\w$-]*")
DESIGNATOR_PARTS = re.compile(rf"(?P<types>{TYPE_PATTERN})?(?P<squares>{SQUARES_PATTERN})?")
TYPES_ONLY = re.compile(TYPE_PATTERN)
FILE_NAME = re.compile(FILE_NAME_PATTERN)
RESULT = re.compile(RESULT_PATTERN)
REPETITION = re.compile(REPETITION_PATTERN)


def _end_of(space: re.Pattern[str], text: str, pos: int) -> int:
    found = space.match(text, pos)
    assert found is not None  # the pattern matches the empty string
    return found.end()


def _glued_keyword(text: str, pos: int) -> bool:
    """Does a CQL word start right at ``pos``, with no space after a number?  (``3shift``
    is no number and a transform: a keyword needs a boundary before it.)"""
    word = _NAME.match(text, pos)
    return word is not None and word.group() in RESERVED_WORDS


class Lexer:
    """The text as tokens, read on demand from a cursor (``pos``: the end of the last
    token taken).  ``//`` comments are tokens where the parser asks for them, and white
    space elsewhere."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        #: Where the last token that is not a comment ends (a comment after it on its
        #: line trails it).
        self.code_end = -1
        self._peeked: tuple[int, bool, Token] | None = None

    def peek(self, comments: bool = False) -> Token:
        cached = self._peeked
        if cached is not None and cached[0] == self.pos and cached[1] == comments:
            return cached[2]
        space = _SPACE if comments else _SPACE_AND_COMMENTS
        start = _end_of(space, self.text, self.pos)
        found = _TOKEN.match(self.text, start)
        if found is None:
            token = Token(TokenKind.END, "", len(self.text), len(self.text))
        else:
            kind = found.lastgroup
            assert kind is not None
            token = Token(TokenKind[kind], found.group(), start, found.end())
            if kind == "NUMBER" and _glued_keyword(self.text, found.end()):
                token = attrs.evolve(token, kind=TokenKind.OTHER)
        self._peeked = (self.pos, comments, token)
        return token

    def take(self, comments: bool = False) -> Token:
        token = self.peek(comments)
        self.pos = token.end
        if token.kind is not TokenKind.COMMENT:
            self.code_end = token.end
        return token

    def raw(self, pattern: re.Pattern[str]) -> Token | None:
        """The text ``pattern`` matches after the space, taken; None if it does not."""
        start = _end_of(_SPACE_AND_COMMENTS, self.text, self.pos)
        found = pattern.match(self.text, start)
        if found is None or found.end() == start:
            return None
        self.pos = self.code_end = found.end()
        return Token(TokenKind.OTHER, found.group(), start, found.end())

    def after_code(self, loc: int) -> bool:
        """Does code stand before ``loc`` on its line?"""
        return self.code_end > self.text.rfind("\n", 0, loc)

    def tokens(self) -> Iterator[Token]:
        """Every token from the start, comments as space (for a look at the whole script)."""
        lexer = Lexer(self.text)
        while (token := lexer.take()).kind is not TokenKind.END:
            yield token
