"""The legacy script reader: text in, :class:`~cqllegacy.legacy.tree.Script` out.

Two layers keep error positions exact and the running time linear.  A regular
expression splits the text into ``(``, ``)``, ``;`` comments and atoms (the lexical
structure of legacy-cql.md §1.1).  A recursive-descent reader then walks
the tokens, dispatching on the parameter shape of each keyword (the tables of
:mod:`cqllegacy.legacy.keywords`); atoms are parsed with small sub-grammars built
on the shared square and piece tables.  Nesting is capped at :data:`MAX_DEPTH`
parentheses, so no input reaches Python's recursion limit.

>>> script = read_script("(match :result 1/2 (position Ra3 :piececount [Rr][a1-8] 1 3))")
>>> script.match.items[0]
MatchResult(result=<GameResult.DRAW: '1/2-1/2'>)
>>> script.match.position_lists()[0].items[1].range
Range(lo=1, hi=3)
>>> try:
...     read_script("(match (position :Mate))", "mate.cql")
... except LegacySyntaxError as error:
...     print(error.render())
mate.cql:1:18: error: keywords are lowercase: did you mean :mate?
    (match (position :Mate))
                     ^
"""

from __future__ import annotations

import bisect
import difflib
import enum
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from cqllegacy.legacy import tree as t
from cqllegacy.legacy.errors import LegacySyntaxError
from cqllegacy.legacy.keywords import (
    KEYWORDS,
    LIST_HEADS,
    SHAPE_EXAMPLES,
    STANDARD_NAMES,
    KeywordSpec,
    ListKind,
    Shape,
    homes_of,
    is_extension,
)
from cqllegacy.vocab.pieces import legacy_types
from cqllegacy.vocab.squares import SquareSet, SquareSyntaxError, parse_squares

#: Deepest nesting of parentheses a script may use (about 30 levels of nested lists).
MAX_DEPTH = 64

#: Longest integer accepted in a range (digits); longer ones are refused, not truncated.
MAX_DIGITS = 18

# The line ends of ``str.splitlines``, so that line numbers agree with the caret excerpt.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_WHITESPACE = " \t" + LINE_BREAKS
_BREAK_RE = re.compile("\r\n|[" + re.escape(LINE_BREAKS) + "]")

# --------------------------------------------------------------------------------------
# Tokens: one regular expression with three alternatives, classified by their first
# character.  No token starts with whitespace and every other character starts one, so
# ``finditer`` skips exactly the whitespace between tokens (as pyparsing's scan_string of
# this expression with these whitespace characters did, without loading pyparsing).
# --------------------------------------------------------------------------------------

_COMMENT_PATTERN = ";[^" + re.escape(LINE_BREAKS) + "]*"
_ATOM_PATTERN = "[^" + re.escape(_WHITESPACE) + "();]+"
TOKEN = re.compile(f"[()]|{_COMMENT_PATTERN}|{_ATOM_PATTERN}")

_INT_RE = re.compile(r"-?[0-9]+")
_NAME_RE = re.compile(r"[A-Za-z0-9_]+")
_KEYWORD_NAME_RE = re.compile(r"[a-z]+")

UNLIMITED = "unlimited"
QUOTE = '"'

RESULTS: dict[str, t.GameResult] = {
    "1-0": t.GameResult.WHITE_WINS,
    "0-1": t.GameResult.BLACK_WINS,
    "1/2-1/2": t.GameResult.DRAW,
    "1/2": t.GameResult.DRAW,
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


@attrs.frozen(slots=True)
class Token:
    kind: TokenKind
    text: str
    offset: int

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
    """The tokens of ``text``, lazily (an early error never tokenises the rest).

    >>> [tok.text for tok in tokens("(match;c\\n(position Ra3))")]
    ['(', 'match', ';c', '(', 'position', 'Ra3', ')', ')']
    """
    for found in TOKEN.finditer(text):
        lexeme = found.group()
        yield Token(_KIND_BY_FIRST.get(lexeme[0], TokenKind.ATOM), lexeme, found.start())


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


def is_integer(text: str) -> bool:
    return _INT_RE.fullmatch(text) is not None


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
    cqllegacy.legacy.grammar.AtomError: bad square designator 'i9': expected a file a-h, found 'i'
    """
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


def _squares(text: str, base: int) -> SquareSet:
    """Parse the square part ``text`` that starts at ``base`` within its atom."""
    if "," in text and not text.startswith("["):
        raise AtomError("a list of squares must be in brackets", base, hint=f"write [{text}]")
    try:
        return parse_squares(text)
    except SquareSyntaxError as exc:
        raise AtomError(
            f"bad square designator {text!r}: {exc}", base + exc.offset, expected=_SQUARES_EXPECTED
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


# --------------------------------------------------------------------------------------
# The reader
# --------------------------------------------------------------------------------------

_LIST_NAMES = {
    ListKind.MATCH: "the match list",
    ListKind.POSITION: "a position list",
    ListKind.RELATION: "a :relation list",
}
_SEQUENCES = ("sequence", "gappedsequence")
_MATCH_COUNTS = ("matchcount", "pretransformmatchcount")
_RELATION_ONCE = ("missingpiececount", "newpiececount")
_LISTS_USAGE = "lists appear only as parameters: :and ((position …) …), :ray (Q k), :relation (…)"


class _Reader:
    """One pass over the tokens of one script; every method consumes what it reads."""

    def __init__(self, text: str, path: str | None) -> None:
        self.text = text
        self.path = path
        self._line_starts = [0, *(m.end() for m in _BREAK_RE.finditer(text))]
        self._stream = tokens(text)
        self._buffer: list[Token] = []
        self._end = Token(TokenKind.END, "", len(text))
        self._depth = 0
        self._tag_uses: list[tuple[str, int]] = []
        self._foranys: dict[str, Token] = {}
        self._first_relation: Token | None = None

    # -- token access ------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        while len(self._buffer) <= ahead:
            token = next(self._stream, None)
            if token is None:
                return self._end
            self._buffer.append(token)
        return self._buffer[ahead]

    def advance(self) -> Token:
        token = self.peek()
        if self._buffer:
            del self._buffer[0]
        return token

    def peek_past_comments(self) -> Token:
        ahead = 0
        while self.peek(ahead).kind is TokenKind.COMMENT:
            ahead += 1
        return self.peek(ahead)

    def next_significant(self, comments: list[t.Comment]) -> Token:
        """Peek at the next non-comment token, moving comments before it to ``comments``."""
        while self.peek().kind is TokenKind.COMMENT:
            comments.append(self.comment(self.advance()))
        return self.peek()

    # -- positions and errors ----------------------------------------------------------

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def span(self, token: Token) -> t.Span:
        return t.Span(*self.position(token.offset))

    def error(
        self, message: str, offset: int, text: str = "", expected: str = "", hint: str = ""
    ) -> LegacySyntaxError:
        line, column = self.position(offset)
        return LegacySyntaxError(
            message,
            line=line,
            column=column,
            file=self.path,
            source=self.text,
            text=text,
            expected=expected,
            hint=hint,
        )

    def error_at(
        self, token: Token, message: str, expected: str = "", hint: str = ""
    ) -> LegacySyntaxError:
        return self.error(message, token.offset, token.text, expected, hint)

    def where(self, token: Token) -> str:
        line, column = self.position(token.offset)
        return f"{line}:{column}"

    # -- lists -------------------------------------------------------------------------

    def open(self, token: Token) -> None:
        if self._depth >= MAX_DEPTH:
            raise self.error_at(
                token,
                f"nested too deeply (limit {MAX_DEPTH} parentheses)",
                hint="split the query into simpler lists",
            )
        self._depth += 1

    def close(self) -> None:
        self.advance()
        self._depth -= 1

    def unclosed(self, opener: Token, what: str) -> LegacySyntaxError:
        return self.error_at(
            opener,
            f"unclosed '(': the {what} opened here is never closed",
            expected="')'",
            hint="add the missing ')'",
        )

    def head(self, opener: Token, expected: str) -> list[t.Comment]:
        """Read the head word after ``opener``; comments before it are returned."""
        comments: list[t.Comment] = []
        token = self.next_significant(comments)
        if token.is_atom(expected):
            self.advance()
            return comments
        raise self.bad_head(opener, token, expected)

    def bad_head(self, opener: Token, token: Token, expected: str) -> LegacySyntaxError:
        if token.kind is TokenKind.END:
            return self.unclosed(opener, "list")
        word = token.text if token.kind is TokenKind.ATOM else ""
        if word.lower() in LIST_HEADS and word.lower() != word:
            return self.error_at(token, f"list heads are lowercase: did you mean ({word.lower()}?")
        if expected == "match" and word == "position":
            return self.error_at(
                token,
                "a script is one match list: expected '(match', found '(position'",
                hint="wrap the position lists in a match list: (match (position …))",
            )
        if word == "match":
            return self.error_at(
                token,
                "a match list cannot be nested: a script holds exactly one match list",
                hint="put the position lists directly into the one match list",
            )
        close = difflib.get_close_matches(word, [expected], n=1)
        hint = f"did you mean ({close[0]}?" if close else ""
        return self.error_at(
            token, f"expected '{expected}' after '(', found {token.describe()}", hint=hint
        )

    # -- the script --------------------------------------------------------------------

    def script(self) -> t.Script:
        leading = self.comments()
        token = self.peek()
        if token.kind is not TokenKind.OPEN:
            raise self.no_match_list(token)
        match = self.match_list(self.advance())
        trailing = self.comments()
        extra = self.peek()
        if extra.kind is not TokenKind.END:
            raise self.after_match_list(extra, match)
        self.check_tags()
        return t.Script(match, tuple(leading), tuple(trailing), path=self.path)

    def comments(self) -> list[t.Comment]:
        found: list[t.Comment] = []
        while self.peek().kind is TokenKind.COMMENT:
            found.append(self.comment(self.advance()))
        return found

    def comment(self, token: Token) -> t.Comment:
        return t.Comment(token.text.lstrip(";").rstrip(), span=self.span(token))

    def no_match_list(self, token: Token) -> LegacySyntaxError:
        if token.kind is TokenKind.END:
            return self.error(
                "empty script: no match list",
                0,
                expected="a match list such as (match (position Ra3))",
            )
        if token.kind is TokenKind.CLOSE:
            return self.error_at(token, "unmatched ')'", hint="remove it")
        hint = ""
        if token.text.startswith("cql"):
            hint = "this looks like a CQL 6 script; legacy scripts start with (match"
        return self.error_at(
            token,
            f"expected '(match' at the start of the script, found {token.describe()}",
            expected="a match list such as (match (position Ra3))",
            hint=hint,
        )

    def after_match_list(self, token: Token, match: t.MatchList) -> LegacySyntaxError:
        if token.kind is TokenKind.CLOSE:
            return self.error_at(token, "unmatched ')'", hint="remove it")
        if token.kind is TokenKind.OPEN and self.peek_past_comments_after(token).is_atom("match"):
            return self.error_at(
                token,
                "a script holds exactly one match list; a second one starts here",
                hint="merge the two match lists or put them into separate files",
            )
        return self.error_at(
            token,
            f"text after the end of the match list: {token.describe()}",
            hint="the match list that starts at "
            f"{match.span} is already closed; is there an extra ')' before this?",
        )

    def peek_past_comments_after(self, token: Token) -> Token:
        ahead = 1
        while self.peek(ahead).kind is TokenKind.COMMENT:
            ahead += 1
        return self.peek(ahead)

    # -- match list --------------------------------------------------------------------

    def match_list(self, opener: Token) -> t.MatchList:
        self.open(opener)
        items: list[t.MatchItem] = list(self.head(opener, "match"))
        while True:
            token = self.peek()
            if token.kind is TokenKind.COMMENT:
                items.append(self.comment(self.advance()))
            elif token.kind is TokenKind.CLOSE:
                self.close()
                break
            elif token.kind is TokenKind.END:
                raise self.unclosed(opener, "match list")
            elif token.kind is TokenKind.OPEN:
                items.append(self.position_list(self.advance(), top_level=True))
            elif token.is_keyword:
                spec = self.keyword(token, ListKind.MATCH)
                self.check_match_keyword(spec, token)
                items.extend(self.keyword_item(spec, self.advance()))
            else:
                raise self.stray_atom(token, ListKind.MATCH)
        match = t.MatchList(tuple(items), span=self.span(opener))
        if not match.position_lists():
            raise self.error_at(
                opener,
                "the match list holds no position list",
                expected="at least one position list",
                hint="(match (position)) selects every game",
            )
        return match

    def check_match_keyword(self, spec: KeywordSpec, token: Token) -> None:
        if spec.name != "forany":
            return
        if len(self._foranys) >= 2:
            raise self.error_at(token, "at most two :forany are allowed in a match list")
        name_token = self.peek_past_comments_after(token)
        if name_token.kind is TokenKind.ATOM and name_token.text in self._foranys:
            first = self._foranys[name_token.text]
            raise self.error_at(
                name_token,
                f"tag {name_token.text} is declared twice (first at {self.where(first)})",
            )

    # -- position list -----------------------------------------------------------------

    def position_list(self, opener: Token, top_level: bool) -> t.PositionList:
        self.open(opener)
        items: list[t.Comment] = list(self.head(opener, "position"))
        first_sequence: Token | None = None
        while True:
            token = self.peek()
            if token.kind is TokenKind.COMMENT:
                items.append(self.comment(self.advance()))
            elif token.kind is TokenKind.CLOSE:
                self.close()
                break
            elif token.kind is TokenKind.END:
                raise self.unclosed(opener, "position list")
            elif token.kind is TokenKind.OPEN:
                raise self.list_in_position_list(token, opener)
            elif token.is_keyword:
                spec = self.keyword(token, ListKind.POSITION)
                if spec.name in _SEQUENCES:
                    if first_sequence is not None:
                        raise self.second_sequence(token, first_sequence)
                    first_sequence = token
                self.check_position_keyword(spec, token, top_level)
                items.extend(self.keyword_item(spec, self.advance()))
            else:
                items.append(self.designator(self.advance(), ListKind.POSITION))
        return t.PositionList(tuple(items), span=self.span(opener))

    def check_position_keyword(self, spec: KeywordSpec, token: Token, top_level: bool) -> None:
        if spec.name in _MATCH_COUNTS and not top_level:
            raise self.error_at(
                token,
                f"{spec.text} is only allowed in a position list directly inside the match list",
                hint="move it to the top-level position list",
            )
        if spec.name == "not" and self.peek_past_comments_after(token).kind is TokenKind.OPEN:
            raise self.error_at(
                token,
                "extension not supported: :not (…) with a list argument (Scidb)",
                hint="in standard CQL :not is a flag that negates its whole position list: "
                "(position :not …)",
            )
        if spec.name == "relation" and self._first_relation is None:
            self._first_relation = token

    def second_sequence(self, token: Token, first: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"a position list may hold only one :sequence or :gappedsequence "
            f"(the first is at {self.where(first)})",
            hint="combine them with :and ((position :sequence (…)) (position :sequence (…)))",
        )

    def list_in_position_list(self, token: Token, opener: Token) -> LegacySyntaxError:
        if self.peek_past_comments_after(token).is_atom("position"):
            return self.error_at(
                token,
                "a position list cannot stand directly inside another position list",
                hint=f"did you forget the ')' of the position list at {self.where(opener)}? "
                "To combine position lists use :and ((position …) (position …))",
            )
        return self.error_at(token, "unexpected '(' in a position list", hint=_LISTS_USAGE)

    def designator(self, token: Token, kind: ListKind) -> t.Designator:
        if is_integer(token.text) or token.text == UNLIMITED:
            raise self.error_at(
                token,
                f"unexpected number {token.describe()} in {_LIST_NAMES[kind]}",
                hint="a range has at most two numbers",
            )
        if token.text in LIST_HEADS:
            raise self.error_at(
                token, f"{token.text!r} must follow '(' to start a list", hint=_LISTS_USAGE
            )
        try:
            designator = parse_designator(token.text)
        except AtomError as exc:
            raise self.error(
                exc.message,
                token.offset + exc.index,
                token.text,
                exc.expected,
                exc.hint,
            ) from None
        if designator.tag is not None:
            self._tag_uses.append((designator.tag, token.offset))
        return t.Designator(
            designator.types, designator.squares, designator.tag, span=self.span(token)
        )

    def stray_atom(self, token: Token, kind: ListKind) -> LegacySyntaxError:
        if kind is ListKind.MATCH:
            return self.error_at(
                token,
                f"unexpected {token.describe()} in the match list",
                expected="a match-list keyword (:pgn, :result, :forany …) or a position list",
                hint="piece designators belong in a position list: (match (position Ra3))",
            )
        return self.error_at(
            token,
            f"unexpected {token.describe()} in a :relation list",
            expected="a relation keyword such as :pattern or :missingpiececount",
        )

    # -- keywords ----------------------------------------------------------------------

    def keyword(self, token: Token, kind: ListKind) -> KeywordSpec:
        spec = KEYWORDS[kind].get(token.text[1:])
        if spec is None:
            raise self.bad_keyword(token, kind)
        return spec

    def bad_keyword(self, token: Token, kind: ListKind) -> LegacySyntaxError:
        text = token.text
        if text.startswith("!:"):
            return self.error_at(
                token,
                f"extension not supported: {text} (the Scidb negation)",
                hint=f"standard CQL negates a whole position list: (position :not {text[1:]})",
            )
        name = text[1:]
        if not name:
            return self.error_at(token, "':' without a keyword name")
        lower = name.lower()
        if lower != name and (lower in STANDARD_NAMES or is_extension(lower)):
            return self.error_at(token, f"keywords are lowercase: did you mean :{lower}?")
        homes = homes_of(name)
        if homes:
            return self.wrong_list(token, kind, homes)
        if is_extension(name):
            return self.error_at(
                token,
                f"extension not supported: {text}",
                hint="Scidb / Chess Assistant extensions are recognised but not supported; "
                "use standard CQL 3 keywords",
            )
        return self.error_at(token, f"unknown keyword {text}", hint=self.suggestion(name, kind))

    def wrong_list(self, token: Token, kind: ListKind, homes: set[ListKind]) -> LegacySyntaxError:
        places = " or ".join(_LIST_NAMES[home] for home in ListKind if home in homes)
        hint = ""
        if kind is ListKind.MATCH and is_extension(token.text[1:]):
            hint = f"the match-list {token.text} is a Scidb extension, not supported"
        return self.error_at(
            token, f"{token.text} belongs in {places}, not in {_LIST_NAMES[kind]}", hint=hint
        )

    @staticmethod
    def suggestion(name: str, kind: ListKind) -> str:
        if _KEYWORD_NAME_RE.fullmatch(name) is None and ":" in name:
            return "separate keywords with spaces"
        for candidates in (KEYWORDS[kind], STANDARD_NAMES):
            close = difflib.get_close_matches(name, list(candidates), n=1)
            if close:
                return f"did you mean :{close[0]}?"
        return ""

    def keyword_item(self, spec: KeywordSpec, token: Token) -> list[Any]:
        """The node of keyword ``token`` followed by the comments among its parameters."""
        comments: list[t.Comment] = []
        parameters = _SHAPE_READERS[spec.shape](self, spec, comments)
        return [spec.build(*parameters, span=self.span(token)), *comments]

    # -- parameters --------------------------------------------------------------------

    def missing(self, spec: KeywordSpec, found: Token, what: str) -> LegacySyntaxError:
        return self.error_at(
            found,
            f"expected {what} after {spec.text}, found {found.describe()}",
            expected=f"{spec.shape.value}, as in {spec.text} {SHAPE_EXAMPLES[spec.shape]}",
        )

    def plain_atom(self, spec: KeywordSpec, comments: list[t.Comment], what: str) -> Token:
        token = self.next_significant(comments)
        if token.kind is not TokenKind.ATOM or token.is_keyword:
            raise self.missing(spec, token, what)
        return self.advance()

    def designator_parameter(self, spec: KeywordSpec, comments: list[t.Comment]) -> t.Designator:
        token = self.next_significant(comments)
        if token.kind is not TokenKind.ATOM or token.is_keyword or is_integer(token.text):
            raise self.missing(spec, token, "a piece designator")
        return self.designator(self.advance(), ListKind.POSITION)

    def range_parameter(self, spec: KeywordSpec, comments: list[t.Comment]) -> t.Range:
        token = self.next_significant(comments)
        if token.kind is not TokenKind.ATOM or not is_integer(token.text):
            raise self.bad_range(spec, token)
        return self.range_from(self.advance(), comments)

    def range_from(self, first: Token, comments: list[t.Comment]) -> t.Range:
        """The range starting with integer ``first``; takes a second integer if one follows."""
        lo = self.integer(first)
        hi: int | None = lo
        following = self.peek_past_comments()
        if following.kind is TokenKind.ATOM and (
            is_integer(following.text) or following.text == UNLIMITED
        ):
            self.next_significant(comments)
            second = self.advance()
            hi = None if second.text == UNLIMITED else self.integer(second)
            if hi is not None and hi < lo:
                raise self.error_at(
                    first,
                    f"empty range {lo} {hi}: the lower bound is above the upper bound",
                    hint=f"write {hi} {lo}",
                )
        return t.Range(lo, hi, span=self.span(first))

    def integer(self, token: Token) -> int:
        digits = token.text.lstrip("-")
        if len(digits) > MAX_DIGITS:
            raise self.error_at(token, f"number too large (more than {MAX_DIGITS} digits)")
        return int(token.text)

    def bad_range(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        error = self.missing(spec, token, "a range")
        if token.text == UNLIMITED:
            error.hint = "unlimited can only be the upper bound: write 1 unlimited"
        elif token.kind is TokenKind.ATOM and token.text[:1] in "<>*+–":
            error.hint = "Scidb range forms (>=n, <n, *, +n) are not supported: write n unlimited"
        return error

    def optional_range(self, comments: list[t.Comment]) -> t.Range | None:
        following = self.peek_past_comments()
        if following.is_atom(UNLIMITED):
            raise self.error_at(
                following, "unlimited can only be the upper bound", hint="write 1 unlimited"
            )
        if following.kind is TokenKind.ATOM and is_integer(following.text):
            self.next_significant(comments)
            return self.range_from(self.advance(), comments)
        return None

    def result_parameter(self, spec: KeywordSpec, comments: list[t.Comment]) -> t.GameResult:
        token = self.next_significant(comments)
        if token.kind is TokenKind.ATOM and token.text in RESULTS:
            self.advance()
            return RESULTS[token.text]
        raise self.missing(spec, token, "a game result (1-0, 0-1, 1/2-1/2 or 1/2)")

    def name_parameter(self, spec: KeywordSpec, comments: list[t.Comment]) -> str:
        token = self.next_significant(comments)
        if token.kind is TokenKind.ATOM and _NAME_RE.fullmatch(token.text):
            self.advance()
            if spec.name == "forany":
                self._foranys[token.text] = token
            elif spec.name == "tagmatch":
                self._tag_uses.append((token.text, token.offset))
            return token.text
        raise self.missing(spec, token, "a name (letters, digits and _)")

    def word_parameter(self, spec: KeywordSpec, comments: list[t.Comment], what: str) -> str:
        token = self.plain_atom(spec, comments, what)
        if '"' in token.text:
            raise self.error_at(
                token,
                "extension not supported: quoted strings (Scidb)",
                hint=f"write the word without quotes: {spec.text} {token.text.strip(QUOTE)}",
            )
        return token.text

    def opening(self, spec: KeywordSpec, comments: list[t.Comment], what: str) -> Token:
        token = self.next_significant(comments)
        if token.kind is not TokenKind.OPEN:
            raise self.missing(spec, token, what)
        opener = self.advance()
        self.open(opener)
        return opener

    def ray_parameters(
        self, spec: KeywordSpec, comments: list[t.Comment]
    ) -> tuple[tuple[t.Designator, ...], t.Range | None]:
        opener = self.opening(spec, comments, "a ray specifier list such as (Q k)")
        designators: list[t.Designator] = []
        while True:
            token = self.next_significant(comments)
            if token.kind is TokenKind.CLOSE:
                self.close()
                break
            if token.kind is TokenKind.END:
                raise self.unclosed(opener, f"{spec.text} list")
            if token.kind is TokenKind.OPEN or token.is_keyword:
                raise self.error_at(
                    token,
                    f"unexpected {token.describe()} in the {spec.text} list",
                    expected="piece designators, as in :ray (Q n k)",
                )
            designators.append(self.designator(self.advance(), ListKind.POSITION))
        if len(designators) < 2:
            raise self.error_at(
                opener,
                f"a {spec.text} list needs at least two piece designators",
                expected="a ray specifier such as (Q k) or (Q n k)",
            )
        return tuple(designators), self.optional_range(comments)

    def position_lists(
        self, spec: KeywordSpec, comments: list[t.Comment]
    ) -> tuple[t.PositionList, ...]:
        usage = f"{spec.text} ((position …) (position …))"
        opener = self.opening(spec, comments, f"a list of position lists: {usage}")
        lists: list[t.PositionList] = []
        while True:
            token = self.next_significant(comments)
            if token.kind is TokenKind.CLOSE:
                self.close()
                return tuple(lists)
            if token.kind is TokenKind.END:
                raise self.unclosed(opener, f"{spec.text} list")
            if token.kind is TokenKind.OPEN:
                lists.append(self.position_list(self.advance(), top_level=False))
            elif token.is_atom("position"):
                raise self.error_at(
                    token,
                    f"each position list of {spec.text} needs its own parentheses",
                    hint=f"write {usage}",
                )
            else:
                raise self.error_at(
                    token,
                    f"expected a position list in the {spec.text} list, found {token.describe()}",
                    expected="(position …)",
                    hint=f"wrap it in a position list: {spec.text} ((position {token.text}))",
                )

    def relation_items(
        self, spec: KeywordSpec, comments: list[t.Comment]
    ) -> tuple[t.RelationItem, ...]:
        opener = self.opening(spec, comments, "a relation list such as (:pattern :shift)")
        items: list[t.RelationItem] = []
        seen: dict[str, Token] = {}
        while True:
            token = self.peek()
            if token.kind is TokenKind.COMMENT:
                items.append(self.comment(self.advance()))
            elif token.kind is TokenKind.CLOSE:
                self.close()
                return tuple(items)
            elif token.kind is TokenKind.END:
                raise self.unclosed(opener, ":relation list")
            elif token.kind is TokenKind.OPEN:
                raise self.error_at(
                    token,
                    "unexpected '(' in a :relation list",
                    expected="relation keywords such as :pattern",
                )
            elif token.is_keyword:
                inner = self.keyword(token, ListKind.RELATION)
                if inner.name in _RELATION_ONCE:
                    if inner.name in seen:
                        raise self.error_at(
                            token,
                            f"{inner.text} may appear only once in a :relation list "
                            f"(the first is at {self.where(seen[inner.name])})",
                        )
                    seen[inner.name] = token
                items.extend(self.keyword_item(inner, self.advance()))
            else:
                raise self.stray_atom(token, ListKind.RELATION)

    # -- tags (checked once the whole match list is known) -----------------------------

    def check_tags(self) -> None:
        declared = self._foranys
        uses = self._tag_uses
        if self._first_relation is not None and (declared or uses):
            offsets = [token.offset for token in declared.values()] + [o for _, o in uses]
            raise self.error(
                "tags (:forany, $name, :tagmatch) cannot be used in a match list that holds "
                f"a :relation (at {self.where(self._first_relation)})",
                min(offsets),
            )
        for name, offset in uses:
            if name not in declared:
                names = ", ".join(sorted(declared))
                hint = (
                    f"declared tags: {names}"
                    if names
                    else f"no tag is declared; declare it in the match list: :forany {name} U"
                )
                raise self.error(f"tag {name} is not declared by :forany", offset, name, hint=hint)


# --------------------------------------------------------------------------------------
# Parameter readers by shape
# --------------------------------------------------------------------------------------

_ParameterReader = Callable[[_Reader, KeywordSpec, list[t.Comment]], tuple]


def _none(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return ()


def _pd(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.designator_parameter(spec, comments),)


def _pd_range(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    designator = reader.designator_parameter(spec, comments)
    return designator, reader.range_parameter(spec, comments)


def _pd_pd_range(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    attackers = reader.designator_parameter(spec, comments)
    targets = reader.designator_parameter(spec, comments)
    return attackers, targets, reader.range_parameter(spec, comments)


def _range(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.range_parameter(spec, comments),)


def _result(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.result_parameter(spec, comments),)


def _ray(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return reader.ray_parameters(spec, comments)


def _lists(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.position_lists(spec, comments),)


def _relation(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.relation_items(spec, comments),)


def _name(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.name_parameter(spec, comments),)


def _name_range(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    name = reader.name_parameter(spec, comments)
    return name, reader.range_parameter(spec, comments)


def _name_pd(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    name = reader.name_parameter(spec, comments)
    return name, reader.designator_parameter(spec, comments)


def _file(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.word_parameter(spec, comments, "a file name"),)


def _word(reader: _Reader, spec: KeywordSpec, comments: list[t.Comment]) -> tuple:
    return (reader.word_parameter(spec, comments, "a word"),)


_SHAPE_READERS: dict[Shape, _ParameterReader] = {
    Shape.NONE: _none,
    Shape.PD: _pd,
    Shape.PD_RANGE: _pd_range,
    Shape.PD_PD_RANGE: _pd_pd_range,
    Shape.RANGE: _range,
    Shape.RESULT: _result,
    Shape.RAY: _ray,
    Shape.LISTS: _lists,
    Shape.RELATION: _relation,
    Shape.NAME: _name,
    Shape.NAME_RANGE: _name_range,
    Shape.NAME_PD: _name_pd,
    Shape.FILE: _file,
    Shape.WORD: _word,
}


def read_script(text: str, path: str | None = None) -> t.Script:
    """Parse a legacy script; raise :class:`LegacySyntaxError` at the first mistake.

    ``path`` names the file in messages and becomes ``Script.path``.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return _Reader(text, path).script()
