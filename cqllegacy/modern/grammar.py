"""CQL 6.1 text → core :class:`~cqllegacy.core.tree.Query`: a tokenizer and a
precedence-climbing (Pratt) parser.

The reader accepts the subset of CQL 6.1 (semantics: S-modern-syntax) that
:mod:`cqllegacy.modern.printer` writes, in whatever layout a person writes it, with the
CQL 6.1 precedence table:
``or`` < ``and`` < ``not`` < ``in`` < relations (right-associative chains) < ``#`` <
``+ -`` < ``power`` < ``|`` < ``&`` < ``~`` < ``attacks``/``attackedby`` < ``move``
parameters < directions < ``:``.  Unary minus takes a ``|``-level argument, as chessql
does (the 6.1 table puts it below ``#``; the printer always parenthesises around it).
Prefix forms (transforms, ``find``, ``not``, ``#``, ``-``, ``power``, ``~``,
directions, ``line``, ``piece``, ``square``) may stand wherever an operand may and take
as their argument everything that binds tighter than themselves, so
``4 == flip count [Rr]a1`` reads as ``4 == (flip count [Rr]a1)``.

Comparisons with an integer literal on the right, ``X == n``, ``X >= n``, ``X <= n``,
and the chain ``a <= X <= b`` read as :class:`~cqllegacy.core.tree.InRange`; every other
comparison is a :class:`~cqllegacy.core.tree.Compare` (a parenthesised number is not a
literal: ``X == (5)`` is a ``Compare``).  A ``//`` comment that stands where a filter
of a ``{ }`` or of the body could start becomes a :class:`~cqllegacy.core.tree.Comment`
there, trailing when code (a filter, the ``{`` or the header) stands before it on its
line; other comments are white space.  ``// cqllegacy: …`` pragmas are read as
:class:`~cqllegacy.modern.encoding.Pragma` items, and
:func:`~cqllegacy.modern.encoding.decode` makes the query of the header and the items.

The reader is one pass over the text: a name is a variable exactly where a ``piece``,
``square`` or ``echo`` around it binds it (comments and strings are never names), and
each filter's operands are kind-checked as it is built, so every message points at the
place it is about.  Time is linear in the script's length.

>>> query = read_query("cql(input in.pgn)\\nflipcolor flip shift {Nd4 kf3}\\n")
>>> query.header.inputs, type(query.lists[0].body).__name__
(('in.pgn',), 'Transform')
>>> read_query("cql() 2 < P <= 5").lists[0].body
Compare(op=<CompareOp.LT: '<'>, left=Number(value=2), right=InRange(value=PieceSet(types=1, \
squares=18446744073709551615), lo=None, hi=5))
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.errors import SourceText, refuse_too_many_words
from cqllegacy.modern.encoding import Encoded, EncodingError, decode, is_commentary, pragma_of
from cqllegacy.modern.errors import ModernSyntaxError
from cqllegacy.modern.kinds import Kind, kind_of, misplaced
from cqllegacy.modern.vocabulary import (
    AND,
    ARITH,
    ATTACK,
    BARE_WORDS,
    BLACK_PAWN,
    COLON,
    COMPLEMENT,
    COUNT,
    DESIGNATOR_PATTERN,
    DIRECTION,
    DIRECTION_WORDS,
    FILE_NAME_PATTERN,
    IN,
    INTERSECTION,
    MOVE,
    NOT,
    OR,
    POWER,
    PROMOTABLE,
    RANGE_OPS,
    RELATION,
    REPETITION_PATTERN,
    REPETITIONS,
    RESERVED_WORDS,
    RESULT_PATTERN,
    SQUARES_PATTERN,
    STRING_PATTERN,
    SUPPORTED_WORDS,
    TRANSFORM_WORDS,
    TYPE_PATTERN,
    UNION,
    UNSUPPORTED_WORDS,
    WHITE_PAWN,
    is_variable_name,
)
from cqllegacy.recursion import room_for_deep_trees
from cqllegacy.vocab.pieces import (
    ANYTHING,
    BLACK_PIECES,
    MODERN_LETTERS,
    WHITE_PIECES,
    TypeSet,
    color_swap,
)
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import EMPTY, FULL, Direction, parse_squares

#: Deepest bracket nesting the reader accepts (a guard against stack exhaustion).
MAX_NESTING = 100
#: Deepest filter tree the reader returns (prefix chains such as ``not not …`` too).
MAX_DEPTH = 200

# --------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------


class _Kind(enum.Enum):
    WORD = "a word"
    DESIGNATOR = "a piece designator"
    NUMBER = "a number"
    STRING = "a string"
    COMMENT = "a comment"
    SYMBOL = "a symbol"
    OTHER = "a character"
    END = "end of text"


@attrs.frozen(slots=True)
class _Token:
    kind: _Kind
    text: str
    start: int
    end: int

    def is_(self, *texts: str) -> bool:
        """A word or symbol spelled as one of ``texts`` (never a string or comment)."""
        return self.kind in (_Kind.WORD, _Kind.SYMBOL) and self.text in texts


_NAME_TEXT = r"[A-Za-z_$][\w$]*"
# `o-o` and `o-o-o` (the move parameters) are words with hyphens, as CQL reads them.
_CASTLING_TEXT = r"o-o(?:-o)?(?![\w$])"
# Longer symbols first; `~~`, `&&` and `||` are chessql operators outside the subset,
# `<-` starts no relation (`<--` is a mistake, not `<` and a negative number).
_SYMBOLS = r"-->|<=|>=|==|!=|~~|&&|\|\||<-+|\[\]|[-+#~&|(){}:<>]|\.(?![\w$])"
_TOKEN = re.compile(
    rf"(?P<COMMENT>//[^\n]*)|(?P<STRING>{STRING_PATTERN})|(?P<DESIGNATOR>{DESIGNATOR_PATTERN})"
    rf"|(?P<WORD>{_CASTLING_TEXT}|{_NAME_TEXT})|(?P<NUMBER>\d+)|(?P<SYMBOL>{_SYMBOLS})|(?P<OTHER>\S)"
)
#: White space and ``/* */`` comments; with ``//`` comments too where those are space.
_SPACE = re.compile(r"(?:\s+|/\*.*?\*/)*", re.DOTALL)
_SPACE_AND_COMMENTS = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.DOTALL)
_NAME = re.compile(_NAME_TEXT)
#: What declares a variable, in the order messages name them: (as "names both … and …"
#: says it, as "… is unbound here" says it).
_VARIABLE_KINDS = {
    "piece": ("a piece variable", "piece variable"),
    "square": ("a square variable", "square variable"),
    "position": ("an echo position", "position"),
}
_WORD_AT = re.compile(r"[A-Za-z_$][\w$-]*")
_DESIGNATOR_PARTS = re.compile(rf"(?P<types>{TYPE_PATTERN})?(?P<squares>{SQUARES_PATTERN})?")
_TYPES_ONLY = re.compile(TYPE_PATTERN)
_FILE_NAME = re.compile(FILE_NAME_PATTERN)
_RESULT = re.compile(RESULT_PATTERN)
_REPETITION = re.compile(REPETITION_PATTERN)


def _end_of(space: re.Pattern[str], text: str, pos: int) -> int:
    found = space.match(text, pos)
    assert found is not None  # the pattern matches the empty string
    return found.end()


def _glued_keyword(text: str, pos: int) -> bool:
    """Does a CQL word start right at ``pos``, with no space after a number?  (``3shift``
    is no number and a transform: a keyword needs a boundary before it.)"""
    word = _NAME.match(text, pos)
    return word is not None and word.group() in RESERVED_WORDS


class _Lexer:
    """The text as tokens, read on demand from a cursor (``pos``: the end of the last
    token taken).  ``//`` comments are tokens where the parser asks for them, and white
    space elsewhere."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        #: Where the last token that is not a comment ends (a comment after it on its
        #: line trails it).
        self.code_end = -1
        self._peeked: tuple[int, bool, _Token] | None = None

    def peek(self, comments: bool = False) -> _Token:
        cached = self._peeked
        if cached is not None and cached[0] == self.pos and cached[1] == comments:
            return cached[2]
        space = _SPACE if comments else _SPACE_AND_COMMENTS
        start = _end_of(space, self.text, self.pos)
        found = _TOKEN.match(self.text, start)
        if found is None:
            token = _Token(_Kind.END, "", len(self.text), len(self.text))
        else:
            kind = found.lastgroup
            assert kind is not None
            token = _Token(_Kind[kind], found.group(), start, found.end())
            if kind == "NUMBER" and _glued_keyword(self.text, found.end()):
                token = attrs.evolve(token, kind=_Kind.OTHER)
        self._peeked = (self.pos, comments, token)
        return token

    def take(self, comments: bool = False) -> _Token:
        token = self.peek(comments)
        self.pos = token.end
        if token.kind is not _Kind.COMMENT:
            self.code_end = token.end
        return token

    def raw(self, pattern: re.Pattern[str]) -> _Token | None:
        """The text ``pattern`` matches after the space, taken; None if it does not."""
        start = _end_of(_SPACE_AND_COMMENTS, self.text, self.pos)
        found = pattern.match(self.text, start)
        if found is None or found.end() == start:
            return None
        self.pos = self.code_end = found.end()
        return _Token(_Kind.OTHER, found.group(), start, found.end())

    def after_code(self, loc: int) -> bool:
        """Does code stand before ``loc`` on its line?"""
        return self.code_end > self.text.rfind("\n", 0, loc)

    def tokens(self) -> Iterator[_Token]:
        """Every token from the start, comments as space (for a look at the whole script)."""
        lexer = _Lexer(self.text)
        while (token := lexer.take()).kind is not _Kind.END:
            yield token


# --------------------------------------------------------------------------------------
# What the parser holds while it reads
# --------------------------------------------------------------------------------------


@attrs.frozen
class _String:
    text: str


@attrs.frozen
class _TagValue:
    """``player [white|black]``, ``event``, ``site`` without a string (a string value)."""

    tag: str
    color: ct.Color | None = None
    lowercase: bool = False


_Value = ct.Filter | _String | _TagValue


@attrs.frozen(slots=True)
class _Read:
    """A value read, where it starts, and whether it was parenthesised (a parenthesised
    filter is never part of a relation chain, never a literal)."""

    value: _Value
    loc: int
    paren: bool = False


@attrs.frozen(slots=True)
class _Infix:
    """A binary operator: its precedence level and how its operands are combined."""

    level: int
    combine: Callable[[_Parser, list[_Read], list[str]], ct.Filter]  # see _Combine
    once: bool = False


class _Syntax(Exception):
    """A mistake found while reading: the message and where (an offset)."""

    def __init__(self, message: str, loc: int, text: str = "", expected: str = "") -> None:
        super().__init__(message)
        self.message, self.loc, self.text, self.expected = message, loc, text, expected
        self.hint = ""


COLORS = {"white": ct.Color.WHITE, "black": ct.Color.BLACK}
_COMPARE_OPS = {op.value: op for op in ct.CompareOp}
_CASTLING = {side.value: side for side in ct.Castling}
_MOVE_PARAMETERS = ("from", "to", "capture", "promote", "previous", "enpassant", *_CASTLING)
_HEADER_PARAMETERS = ("input", "output", "gamenumber", "matchcount", "result", "variations")


def _types(letters: str) -> TypeSet:
    out = 0
    for ch in letters.strip("[]"):
        out |= MODERN_LETTERS[ch]
    return out


def _designator(text: str) -> ct.PieceSet:
    parts = _DESIGNATOR_PARTS.fullmatch(text)
    assert parts is not None  # the token pattern guarantees the shape
    letters, squares = parts.group("types"), parts.group("squares")
    types = _types(letters) if letters else ANYTHING
    return ct.PieceSet(types, parse_squares(squares, False) if squares else FULL)


def _quantifier(text: str) -> tuple[int, int | None]:
    text = re.sub(r"\s", "", text)
    shorthand = text[1:-1] if text in ("{*}", "{+}") else text
    if shorthand in REPETITIONS:
        return REPETITIONS[shorthand]
    lo_text, comma, hi_text = text.strip("{}").partition(",")
    lo = int(lo_text) if lo_text else 0
    hi = (int(hi_text) if hi_text else None) if comma else lo
    return lo, hi


def _pawn_side(from_: ct.Filter | None) -> tuple[ct.Filter | None, TypeSet | None]:
    """Split a ``from`` that names the promoting pawn's colour (see the printer)."""
    pawns = {ct.PieceSet(WHITE_PAWN): WHITE_PIECES, ct.PieceSet(BLACK_PAWN): BLACK_PIECES}
    if from_ in pawns:
        return None, pawns[from_]
    if isinstance(from_, ct.Intersection) and from_.items[-1] in pawns:
        rest = from_.items[:-1]
        return (rest[0] if len(rest) == 1 else ct.Intersection(rest)), pawns[from_.items[-1]]
    return from_, None


def _promotion(promote: TypeSet, from_: ct.Filter | None) -> tuple[TypeSet, ct.Filter | None]:
    folded = (promote & WHITE_PIECES) | color_swap(promote & BLACK_PIECES)
    white = folded & PROMOTABLE & WHITE_PIECES
    if not white:
        raise _Syntax("promote needs Q, R, B or N", -1)
    from_, side = _pawn_side(from_)
    if side == WHITE_PIECES:
        return white, from_
    if side == BLACK_PIECES:
        return color_swap(white), from_
    return white | color_swap(white), from_


def _filter_word(token: _Token) -> str:
    return token.text if token.kind in (_Kind.WORD, _Kind.DESIGNATOR) else ""


# --------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------


class _Parser:
    """One reading of one script."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lex = _Lexer(text)
        #: The variables bound around the place being read: name → "piece"/"square"/"position".
        self.bound: dict[str, str] = {}
        self.nesting = 0
        self.depth = 0
        self._declared: dict[str, frozenset[str]] | None = None

    # -- tokens ------------------------------------------------------------------------

    def fail(self, message: str, loc: int, text: str = "") -> NoReturn:
        raise _Syntax(message, loc, text)

    def unexpected(self, token: _Token, expected: str) -> NoReturn:
        """The message for ``token`` where ``expected`` was wanted."""
        if token.kind is _Kind.END:
            raise _Syntax("unexpected end of script", len(self.text.rstrip()), "", expected)
        word = _WORD_AT.match(self.text, token.start)
        if word is not None and token.kind is not _Kind.STRING:
            text = word.group()
            if text in UNSUPPORTED_WORDS:
                message = f"{text!r} is CQL 6 but not in the subset cqllegacy reads"
                raise _Syntax(message, token.start, text)
            if text not in SUPPORTED_WORDS and not re.fullmatch(DESIGNATOR_PATTERN, text):
                error = _Syntax(f"unknown word {text!r}", token.start, text, expected)
                import difflib  # a mistake's suggestion: not on every run's path

                close = difflib.get_close_matches(text, sorted(SUPPORTED_WORDS), n=1)
                error.hint = f"did you mean {close[0]!r}?" if close else ""
                raise error
        rest = self.text[token.start :].split(None, 1)
        shown = rest[0] if rest else ""
        raise _Syntax(f"unexpected {shown!r}", token.start, shown, expected)

    def expect(self, *texts: str) -> _Token:
        token = self.lex.peek()
        if not token.is_(*texts):
            self.unexpected(token, ", ".join(f"'{text}'" for text in texts))
        return self.lex.take()

    def accept(self, *texts: str) -> _Token | None:
        return self.lex.take() if self.lex.peek().is_(*texts) else None

    def open(self, text: str) -> _Token:
        token = self.expect(text)
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            self.fail(f"brackets nest deeper than {MAX_NESTING} levels", token.start)
        return token

    def close(self, text: str) -> None:
        self.expect(text)
        self.nesting -= 1

    def integer(self, signed: bool = False) -> int | None:
        """A number token taken (``-n`` written together too when ``signed``), or None."""
        token = self.lex.peek()
        if token.kind is _Kind.NUMBER:
            return int(self.lex.take().text)
        if signed and token.is_("-") and self.text[token.end : token.end + 1].isdigit():
            self.lex.take()
            return -int(self.lex.take().text)
        return None

    # -- values ------------------------------------------------------------------------

    def node(self, read: _Read) -> ct.Filter:
        """A value used as a filter: strings and tag values refused where they stand."""
        value = read.value
        if isinstance(value, _String):
            self.fail(
                "a string can only stand before `in player`, `in event` or `in site`", read.loc
            )
        if isinstance(value, _TagValue):
            self.fail(f'`{value.tag}` without a string can only follow `"text" in`', read.loc)
        return value

    def made(self, node: ct.Filter, loc: int, operands: Sequence[_Read] = ()) -> _Read:
        """``node`` read at ``loc``, once its operands have the kinds it needs (its
        operands' own operands were checked when those were made)."""
        if kind_of(node) is not Kind.POSITION:
            problem = misplaced(node)
            if problem is not None:
                blamed, message = problem
                where = next((r.loc for r in operands if r.value is blamed), loc)
                self.fail(message, where)
        return _Read(node, loc)

    def not_a_position(self, read: _Read) -> None:
        """A filter that stands by itself (an item of the body) cannot be a position."""
        node = self.node(read)
        problem = misplaced(node) if kind_of(node) is Kind.POSITION else None
        if problem is not None:
            self.fail(problem[1], read.loc)

    # -- variables ---------------------------------------------------------------------

    def declared(self) -> dict[str, frozenset[str]]:
        """The names some ``piece … in``, ``square … in`` and ``echo ( … )`` declare in the
        script, each with what declares it ("piece", "square", "position"; read from its
        tokens: never from a comment or a string)."""
        if self._declared is None:
            found: dict[str, set[str]] = {}
            tokens = list(self.lex.tokens())
            for i, token in enumerate(tokens):
                following = [t.text for t in tokens[i + 1 : i + 6]]
                if token.is_("piece", "square"):
                    names = following[1:3] if following[:1] == ["all"] else following[:2]
                    if len(names) == 2 and names[1] == "in":
                        found.setdefault(names[0], set()).add(token.text)
                elif token.is_("echo"):
                    words = following[1:] if following[:1] == ["quiet"] else following
                    if len(words) >= 4 and words[0] == "(" and words[3] == ")":
                        for name in words[1:3]:
                            found.setdefault(name, set()).add("position")
            self._declared = {name: frozenset(what) for name, what in found.items()}
        return self._declared

    def variable(self, token: _Token) -> _Read:
        name = token.text
        declared = [what for what in _VARIABLE_KINDS if what in self.declared().get(name, ())]
        if len(declared) > 1:
            first, second = (_VARIABLE_KINDS[what][0] for what in declared[:2])
            self.fail(f"{name!r} names both {first} and {second}", token.start)
        what = self.bound.get(name)
        if what is None:
            if declared:
                kind = _VARIABLE_KINDS[declared[0]][1]
                self.fail(f"{kind} {name!r} is unbound here", token.start)
            self.unexpected(token, "a filter")
        if what == "piece":
            return _Read(ct.PieceVariable(name), token.start)
        if what == "square":
            return _Read(ct.SquareVariable(name), token.start)
        return _Read(ct.PositionVariable(name), token.start)

    def name(self) -> _Token:
        token = self.lex.peek()
        if token.kind not in (_Kind.WORD, _Kind.DESIGNATOR) or not re.fullmatch(
            _NAME_TEXT, token.text
        ):
            self.unexpected(token, "a name")
        return self.lex.take()

    def check_name(self, name: str, loc: int) -> None:
        if not is_variable_name(name):
            why = "a CQL word" if name in RESERVED_WORDS else "a piece designator"
            self.fail(f"{name!r} cannot name a variable: it is {why}", loc)

    def bound_body(self, names: dict[str, str], loc: int) -> _Read:
        """A filter read with ``names`` bound (name → "piece"/"position")."""
        for name in names:
            if name in self.bound:
                self.fail(f"{name!r} is already bound by an enclosing filter", loc)
        self.bound.update(names)
        try:
            return self.expression(OR)
        finally:
            for name in names:
                del self.bound[name]

    # -- expressions -------------------------------------------------------------------

    def expression(self, level: int) -> _Read:
        """A filter of ``level``: operators at least as tight as ``level`` combine."""
        self.depth += 1
        if self.depth > MAX_DEPTH + MAX_NESTING:
            self.fail(f"the script nests filters more than {MAX_DEPTH} deep", 0)
        try:
            return self.infix(self.prefix(), level)
        finally:
            self.depth -= 1

    def infix(self, left: _Read, level: int) -> _Read:
        """``left`` and the operators after it at ``level`` or tighter; after an operator's
        run only looser ones follow (``a in b in c`` is no filter)."""
        ceiling = _TIGHTEST + 1
        while True:
            token = self.lex.peek()
            op = _INFIX.get(token.text) if token.kind in (_Kind.WORD, _Kind.SYMBOL) else None
            if op is None or not level <= op.level < ceiling or not self.operand_follows(token):
                return left
            reads, words = [left], list[str]()
            while (token := self.lex.peek()).text in _INFIX and _INFIX[token.text] is op:
                if not self.operand_follows(token) or (op.once and words):
                    break
                words.append(self.lex.take().text)
                reads.append(self.operand(op.level))
            left = self.made(op.combine(self, reads, words), left.loc, reads)
            ceiling = op.level

    def operand_follows(self, token: _Token) -> bool:
        """After ``+``, does an operand follow? (Otherwise it is a line repetition.)"""
        if not token.is_("+"):
            return True
        following = _Lexer(self.text)
        following.pos = token.end
        return _starts_a_filter(following.peek())

    def operand(self, level: int) -> _Read:
        tighter = [other for other in _LEVELS if other > level]
        if not tighter:
            return self.prefix_read()
        return self.expression(min(tighter))

    def prefix_read(self) -> _Read:
        self.depth += 1
        try:
            return self.prefix()
        finally:
            self.depth -= 1

    def argument(self, level: int) -> _Read:
        """The argument of a prefix form at ``level``: everything that binds tighter."""
        return self.operand(level)

    def prefix(self) -> _Read:
        token = self.lex.peek()
        kind = token.kind
        if kind is _Kind.NUMBER:
            return _Read(ct.Number(int(self.lex.take().text)), token.start)
        if kind is _Kind.STRING:
            return _Read(_String(self.lex.take().text[1:-1]), token.start)
        if kind is _Kind.WORD:
            form = _PREFIX_WORDS.get(token.text)
            if form is not None:
                return form(self, self.lex.take())
            if token.text in _DIRECTIONS:
                return self.direction(self.lex.take())
            return self.variable(self.lex.take()) if token.text in self.bound else self.free(token)
        if kind is _Kind.DESIGNATOR:
            return _Read(_designator(self.lex.take().text), token.start)
        if kind is _Kind.SYMBOL:
            form = _PREFIX_SYMBOLS.get(token.text)
            if form is not None:
                return form(self, token)
        self.unexpected(token, "a filter")

    def free(self, token: _Token) -> _Read:
        """A word no filter starts with and no filter around binds."""
        if token.text in SUPPORTED_WORDS or token.text in UNSUPPORTED_WORDS:
            self.unexpected(token, "a filter")
        return self.variable(token)

    # -- prefix forms ------------------------------------------------------------------

    def paren(self, token: _Token) -> _Read:
        self.open("(")
        inner = self.node(self.expression(OR))
        self.close(")")
        return _Read(inner, token.start, paren=True)

    def compound(self, token: _Token) -> _Read:
        self.open("{")
        items = self.items("}")
        self.close("}")
        if all(is_commentary(item.value) for item in items):  # type: ignore[arg-type]
            self.fail("a { } needs at least one filter", token.start)
        return self.made(ct.Compound(tuple(self.node(i) for i in items)), token.start, items)

    def items(self, closing: str) -> list[_Read]:
        """The constituents of a ``{ }`` or of the body, comments among them."""
        items: list[_Read] = []
        while True:
            token = self.lex.peek(comments=True)
            if token.kind is _Kind.END or token.is_(closing):
                return items
            if token.kind is _Kind.COMMENT:
                items.append(self.comment(self.lex.take(comments=True)))
            elif _starts_a_filter(token):
                item = self.expression(OR)
                self.not_a_position(item)
                items.append(item)
            else:
                self.unexpected(token, f"a filter, '{closing}'" if closing else "a filter")

    def comment(self, token: _Token) -> _Read:
        text = token.text[2:].rstrip("\r")
        try:
            pragma = pragma_of(text, token.start)
        except EncodingError as exc:
            self.fail(exc.message, token.start)
        if pragma is not None:
            return _Read(pragma, token.start)
        return _Read(ct.Comment(text, trailing=self.lex.after_code(token.start)), token.start)

    def minus(self, token: _Token) -> _Read:
        self.lex.take()
        if self.text[token.end : token.end + 1].isdigit():
            return _Read(ct.Number(-int(self.lex.take().text)), token.start)
        # As chessql reads it: the argument binds tighter than `+ -` (module docstring).
        arg = self.argument(ARITH)
        return self.made(ct.Negate(self.node(arg)), token.start, [arg])

    def direction(self, token: _Token) -> _Read:
        steps = []
        first = self.integer(signed=True)
        if first is not None:
            steps.append(first)
            second = self.integer(signed=True)
            if second is not None:
                steps.append(second)
        lo, hi = (1, 7) if not steps else (steps[0], steps[-1])
        # A direction's argument reaches over `attacks`/`attackedby` (decision M10).
        arg = self.expression(ATTACK)
        node = ct.DirectionSet(Direction.from_word(token.text), self.node(arg), lo, hi)
        return self.made(node, token.start, [arg])

    def ray(self, token: _Token) -> _Read:
        words = []
        while self.lex.peek().text in _DIRECTIONS and self.lex.peek().kind is _Kind.WORD:
            words.append(self.lex.take().text)
        args = self.sets("ray", token)
        nodes = tuple(self.node(arg) for arg in args)
        if not words:
            return self.made(ct.Ray(nodes), token.start, args)
        vectors = frozenset(v for word in words for v in Direction.from_word(word).vectors)
        try:
            direction = Direction.from_vectors(vectors)
        except KeyError:
            self.fail(f"cqllegacy has no single direction for {' '.join(words)}", token.start)
        return self.made(ct.Ray(nodes, direction), token.start, args)

    def sets(self, what: str, token: _Token) -> list[_Read]:
        self.open("(")
        args = [self.expression(UNION)]
        while not self.lex.peek().is_(")"):
            args.append(self.expression(UNION))
        self.close(")")
        if len(args) < 2:
            self.fail(f"{what} needs at least two square sets in its ( )", token.start)
        return args

    def xray(self, token: _Token) -> _Read:
        args = self.sets("xray", token)
        return self.made(ct.XRay(tuple(self.node(a) for a in args)), token.start, args)

    def move(self, token: _Token) -> _Read:
        params: dict[str, object] = {}
        operands: list[_Read] = []
        while (word := self.lex.peek()).is_(*_MOVE_PARAMETERS) and word.kind is _Kind.WORD:
            self.lex.take()
            if word.text in params:
                self.fail(f"move has two {word.text} parameters", word.start)
            if word.text in ("from", "to", "capture"):
                read = self.argument(MOVE)
                operands.append(read)
                params[word.text] = self.node(read)
            elif word.text == "promote":
                params["promote"] = self.promote_types()
            elif word.text in _CASTLING:
                if "castle" in params:
                    twice = params["castle"] is _CASTLING[word.text]
                    both = "a move castles to one side: o-o and o-o-o never both"
                    self.fail(f"move has two {word.text} parameters" if twice else both, word.start)
                params["castle"] = _CASTLING[word.text]
            else:
                params[word.text] = True
        from_ = params.get("from")
        promote = params.get("promote")
        assert from_ is None or isinstance(from_, ct.Filter)
        assert promote is None or isinstance(promote, int)
        if promote is not None:
            try:
                promote, from_ = _promotion(promote, from_)
            except _Syntax as exc:
                self.fail(exc.message, token.start)
        to, capture, castle = params.get("to"), params.get("capture"), params.get("castle")
        assert castle is None or isinstance(castle, ct.Castling)
        assert to is None or isinstance(to, ct.Filter)
        assert capture is None or isinstance(capture, ct.Filter)
        node = ct.Move(
            from_=from_,
            to=to,
            capture=capture,
            promote=promote,
            enpassant="enpassant" in params,
            previous="previous" in params,
            castle=castle,
        )
        return self.made(node, token.start, operands)

    def promote_types(self) -> TypeSet:
        token = self.lex.peek()
        after = self.text[token.end : token.end + 1]
        if (
            token.kind is not _Kind.DESIGNATOR
            or not _TYPES_ONLY.fullmatch(token.text)
            or after == "["
        ):
            self.unexpected(token, "piece types")
        return _types(self.lex.take().text)

    def line(self, token: _Token) -> _Read:
        if not self.lex.peek().is_("-->"):
            self.unexpected(self.lex.peek(), "'-->'")
        steps: list[ct.LineStep] = []
        while self.accept("-->"):
            steps += self.step()
        return self.made(ct.Line(tuple(steps)), token.start)

    def step(self) -> list[ct.LineStep]:
        """One constituent of a line: a filter or a ``( … --> … )`` group, and its
        repetition; an unrepeated group is its constituents written in place."""
        read = self.group_or_filter() if self.lex.peek().is_("(") else self.expression(OR)
        node = self.node(read)
        repetition = self.lex.raw(_REPETITION)
        lo, hi = _quantifier(repetition.text) if repetition is not None else (1, 1)
        if isinstance(node, ct.LineGroup) and (lo, hi) == (1, 1):
            return list(node.steps)
        return [ct.LineStep(node, lo, hi)]

    def group_or_filter(self) -> _Read:
        """A ``(`` opening a constituent: a group when it holds ``-->`` or a repetition,
        else a parenthesised filter, which may be the operand of what follows."""
        opening = self.open("(")
        steps = self.step()
        grouped = (
            self.lex.peek().is_("-->")
            or len(steps) != 1
            or (steps[0].lo, steps[0].hi)
            != (
                1,
                1,
            )
        )
        while self.accept("-->"):
            steps += self.step()
        self.close(")")
        if not grouped:
            return self.infix(_Read(steps[0].filter, opening.start, paren=True), OR)
        if any(isinstance(step.filter, ct.LineGroup) for step in steps):
            self.fail("cqllegacy reads groups of line constituents one level deep", opening.start)
        return _Read(ct.LineGroup(tuple(steps)), opening.start)

    def find(self, token: _Token) -> _Read:
        every = self.accept("all") is not None
        arg = self.expression(OR)
        return self.made(ct.Find(self.node(arg), all=every), token.start, [arg])

    def transform(self, token: _Token) -> _Read:
        count = self.accept("count") is not None
        arg = self.expression(OR)
        node = ct.Transform(ct.TransformKind(token.text), self.node(arg), count=count)
        return self.made(node, token.start, [arg])

    def piece_loop(self, token: _Token) -> _Read:
        every = self.accept("all") is not None
        name = self.name().text
        self.expect("in")
        self.check_name(name, token.start)
        domain = self.expression(UNION)
        body = self.bound_body({name: "piece"}, token.start)
        node = ct.PieceLoop(name, self.node(domain), self.node(body), all=every)
        return self.made(node, token.start, [domain, body])

    def square_loop(self, token: _Token) -> _Read:
        """``square [all] x in DOMAIN BODY``: read as a piece loop is, x a square variable."""
        every = self.accept("all") is not None
        name = self.name().text
        self.expect("in")
        self.check_name(name, token.start)
        domain = self.expression(UNION)
        body = self.bound_body({name: "square"}, token.start)
        node = ct.SquareLoop(name, self.node(domain), self.node(body), all=every)
        return self.made(node, token.start, [domain, body])

    def echo(self, token: _Token) -> _Read:
        quiet = self.accept("quiet") is not None
        self.open("(")
        source, target = self.name().text, self.name().text
        self.close(")")
        in_all = self.accept("in") is not None
        if in_all:
            self.expect("all")
        for name in (source, target):
            self.check_name(name, token.start)
        if source == target:
            self.fail("echo needs two different names for its source and target", token.start)
        body = self.bound_body({source: "position", target: "position"}, token.start)
        node = ct.Echo(source, target, self.node(body), in_all=in_all, quiet=quiet)
        return self.made(node, token.start, [body])

    def result(self, token: _Token) -> _Read:
        value = self.lex.raw(_RESULT)
        if value is None:
            self.unexpected(self.lex.peek(), "1-0, 0-1 or 1/2-1/2")
        return _Read(ct.Result(GameResult(value.text)), token.start)

    def color(self) -> ct.Color | None:
        word = self.accept("white", "black")
        return COLORS[word.text] if word is not None else None

    def string(self) -> str | None:
        token = self.lex.peek()
        return self.lex.take().text[1:-1] if token.kind is _Kind.STRING else None

    def player(self, token: _Token) -> _Read:
        color = self.color()
        text = self.string()
        if text is not None:
            return _Read(ct.Player(text, color), token.start)
        return _Read(_TagValue("player", color), token.start)

    def tag(self, token: _Token) -> _Read:
        text = self.string()
        if text is not None:
            return _Read(ct.TagContains(ct.TagName(token.text), text), token.start)
        return _Read(_TagValue(token.text), token.start)

    def lowercase(self, token: _Token) -> _Read:
        value = self.prefix_read().value
        if not isinstance(value, _TagValue) or value.lowercase:
            self.fail(
                'cqllegacy reads `lowercase` only as `"text" in lowercase player`', token.start
            )
        return _Read(attrs.evolve(value, lowercase=True), token.start)

    def elo(self, token: _Token) -> _Read:
        return _Read(ct.Elo(self.color()), token.start)

    # -- binary operators --------------------------------------------------------------

    def in_(self, reads: list[_Read], words: list[str]) -> ct.Filter:
        text, tag = reads[0].value, reads[1].value
        markers = _String | _TagValue
        if not isinstance(text, markers) and not isinstance(tag, markers):
            # Two filters: square-set inclusion (their kinds are checked as it is made).
            return ct.InSet(text, tag)
        if not isinstance(text, _String) or not isinstance(tag, _TagValue):
            self.fail(
                'cqllegacy reads `in` with a string only as `"text" in player|event|site`',
                reads[0].loc,
            )
        if tag.tag == "player":
            if tag.lowercase and (text.text != text.text.lower() or not text.text.isascii()):
                self.fail(
                    "a string compared with `lowercase` must be lowercase ASCII", reads[0].loc
                )
            return ct.Player(text.text, tag.color, tag.lowercase)
        if tag.lowercase:
            self.fail(f"cqllegacy does not read `lowercase {tag.tag}`", reads[1].loc)
        return ct.TagContains(ct.TagName(tag.tag), text.text)

    def relations(self, reads: list[_Read], words: list[str]) -> ct.Filter:
        """A right-associative chain; ``X op n`` with a literal n is a range, and
        ``a <= X <= b`` one range."""
        left, right = reads[-2], reads[-1]
        out = self.relation(left, words[-1], right)
        for i in range(len(words) - 2, -1, -1):
            out = self.chained(reads[i], words[i], out)
        return out

    def relation(self, left: _Read, op: str, right: _Read) -> ct.Filter:
        value, bound = self.node(left), self.node(right)
        if isinstance(bound, ct.Number) and not right.paren and _COMPARE_OPS[op] in RANGE_OPS:
            lo = None if op == "<=" else bound.value
            hi = None if op == ">=" else bound.value
            return ct.InRange(value, lo, hi)
        return ct.Compare(_COMPARE_OPS[op], value, bound)

    def chained(self, left: _Read, op: str, inner: ct.Filter) -> ct.Filter:
        value = self.node(left)
        if (
            op == "<="
            and isinstance(value, ct.Number)
            and not left.paren
            and isinstance(inner, ct.InRange)
            and inner.lo is None
            and inner.hi is not None
        ):
            return ct.InRange(inner.value, value.value, inner.hi)
        return ct.Compare(_COMPARE_OPS[op], value, inner)

    def intersection(self, reads: list[_Read], words: list[str]) -> ct.Filter:
        """``a & b & c`` → one n-ary node; ``S & T`` of two positions is their positional
        intersection (semantics: S-echo), which may head a longer chain of sets."""
        nodes = [self.node(read) for read in reads]
        if all(kind_of(node) is Kind.POSITION for node in nodes[:2]):
            first = self.made(ct.PositionIntersection(nodes[0], nodes[1]), reads[0].loc, reads)
            assert isinstance(first.value, ct.Filter)
            if len(nodes) == 2:
                return first.value
            return ct.Intersection((first.value, *nodes[2:]))
        return ct.Intersection(tuple(nodes))

    def colon(self, reads: list[_Read], words: list[str]) -> ct.Filter:
        """``X : F`` (right-associative, the tightest operator)."""
        out = self.node(reads[-1])
        for read in reversed(reads[:-1]):
            out = ct.AtPosition(self.node(read), out)
        return out

    # -- the script --------------------------------------------------------------------

    def script(self) -> Encoded:
        leading: list[str] = []
        while (token := self.lex.peek(comments=True)).kind is _Kind.COMMENT:
            leading.append(self.lex.take(comments=True).text[2:].rstrip("\r"))
        self.expect("cql")
        self.open("(")
        seen: dict[str, list[object]] = {}
        while (token := self.lex.peek()).is_(*_HEADER_PARAMETERS) and token.kind is _Kind.WORD:
            self.lex.take()
            if token.text in seen:
                self.fail(f"the header has two {token.text} parameters", token.start)
            seen[token.text] = self.header_values(token.text)
        self.close(")")
        items = self.items("")
        gamenumber = seen.get("gamenumber")
        count = seen.get("matchcount")
        header = ct.Header(
            inputs=tuple(str(name) for name in seen.get("input", ())),
            output=str(seen["output"][0]) if "output" in seen else None,
            gamenumber=(int(gamenumber[0]), int(gamenumber[-1])) if gamenumber else None,  # type: ignore[call-overload]
        )
        return Encoded(
            header,
            tuple(self.node(item) for item in items),
            variations="variations" in seen,
            matchcount=(int(count[0]), int(count[-1])) if count else None,  # type: ignore[call-overload]
            result=GameResult(seen["result"][0]) if "result" in seen else None,
            leading_comments=tuple(leading),
        )

    def header_values(self, word: str) -> list[object]:
        if word in ("input", "output"):
            name = self.lex.raw(_FILE_NAME)
            if name is None:
                self.unexpected(self.lex.peek(), "a file name")
            return [name.text[1:-1] if name.text.startswith('"') else name.text]
        if word in ("gamenumber", "matchcount"):
            first = self.integer()
            if first is None:
                self.unexpected(self.lex.peek(), "a number")
            second = self.integer()
            return [first] if second is None else [first, second]
        if word == "result":
            value = self.lex.raw(_RESULT)
            if value is None:
                self.unexpected(self.lex.peek(), "1-0, 0-1 or 1/2-1/2")
            return [value.text]
        return []


def _starts_a_filter(token: _Token) -> bool:
    if token.kind in (_Kind.NUMBER, _Kind.STRING, _Kind.DESIGNATOR, _Kind.WORD):
        return True
    return token.kind is _Kind.SYMBOL and token.text in _PREFIX_SYMBOLS


# --------------------------------------------------------------------------------------
# The tables: which word or symbol starts which form, and the binary operators
# --------------------------------------------------------------------------------------

_DIRECTIONS = frozenset(DIRECTION_WORDS)
_Form = Callable[[_Parser, _Token], _Read]
_Combine = Callable[[_Parser, list[_Read], list[str]], ct.Filter]


def _unary(make: Callable[[ct.Filter], ct.Filter], level: int) -> _Form:
    """A prefix word or symbol whose argument is everything tighter than ``level``."""

    def form(parser: _Parser, token: _Token) -> _Read:
        if token.kind is _Kind.SYMBOL:
            parser.lex.take()
        arg = parser.argument(level)
        return parser.made(make(parser.node(arg)), token.start, [arg])

    return form


def _leaf(value: ct.Filter) -> _Form:
    def form(parser: _Parser, token: _Token) -> _Read:
        if token.kind is _Kind.SYMBOL:
            parser.lex.take()
        return _Read(value, token.start)

    return form


def _pair(make: Callable[[ct.Filter, ct.Filter], ct.Filter]) -> _Form:
    """``word ( S T )``: exactly two ``|``-level filters."""

    def form(parser: _Parser, token: _Token) -> _Read:
        parser.open("(")
        first = parser.expression(UNION)
        second = parser.expression(UNION)
        parser.close(")")
        return parser.made(
            make(parser.node(first), parser.node(second)), token.start, [first, second]
        )

    return form


def _flat(cls: Callable[[tuple[ct.Filter, ...]], ct.Filter]) -> _Combine:
    """``a op b op c`` → one n-ary node; a parenthesised operand stays one item."""
    return lambda parser, reads, words: cls(tuple(parser.node(r) for r in reads))


def _square_color(parser: _Parser, token: _Token) -> _Read:
    """``light X``, ``dark X``: X is what binds tighter (the CQL 6.1 table puts them with
    the direction filters)."""
    arg = parser.argument(DIRECTION)
    node = ct.SquareColor(token.text == "dark", parser.node(arg))
    return parser.made(node, token.start, [arg])


def _castling_alone(parser: _Parser, token: _Token) -> _Read:
    """``o-o`` alone is a CQL 6.2 filter (the move just played); in CQL 6.1 it is a
    parameter of ``move`` only (semantics: S-castling)."""
    parser.fail(
        f"`{token.text}` is a parameter of `move` in CQL 6.1: write `move {token.text}` (the"
        f" next move) or `move previous {token.text}` (the move just played)",
        token.start,
    )


_PREFIX_WORDS: dict[str, _Form] = {
    "line": _Parser.line,
    "find": _Parser.find,
    **dict.fromkeys(TRANSFORM_WORDS, _Parser.transform),
    "piece": _Parser.piece_loop,
    "square": _Parser.square_loop,
    "echo": _Parser.echo,
    "ancestor": _pair(ct.Ancestor),
    "not": _unary(ct.Not, NOT),
    "power": _unary(ct.Power, POWER),
    "ray": _Parser.ray,
    "xray": _Parser.xray,
    "between": _pair(ct.Between),
    "move": _Parser.move,
    "result": _Parser.result,
    "player": _Parser.player,
    "event": _Parser.tag,
    "site": _Parser.tag,
    "lowercase": _Parser.lowercase,
    "elo": _Parser.elo,
    "light": _square_color,
    "dark": _square_color,
    **dict.fromkeys(_CASTLING, _castling_alone),
}


def _with_bare_words(written: dict[str, _Form]) -> dict[str, _Form]:
    """The written forms and, for every class declaring ``SYNTAX = Syntax.WORD``, each of
    its words alone as one node (a word with both is a declaration error, not a choice)."""
    both = sorted(set(written) & set(BARE_WORDS))
    if both:
        raise ct.DeclarationError(f"bare words that also have a written form: {both}")
    return {**written, **{word: _leaf(node) for word, node in BARE_WORDS.items()}}


_PREFIX_WORDS = _with_bare_words(_PREFIX_WORDS)

_PREFIX_SYMBOLS: dict[str, _Form] = {
    "(": _Parser.paren,
    "{": _Parser.compound,
    "-": _Parser.minus,
    "#": _unary(ct.Count, COUNT),
    "~": _unary(ct.Complement, COMPLEMENT),
    "[]": _leaf(ct.PieceSet(ANYTHING, EMPTY)),
    ".": _leaf(ct.PieceSet(ANYTHING, FULL)),
}


def _fold_left(make: Callable[[str, ct.Filter, ct.Filter], ct.Filter]) -> _Combine:
    """``a op b op c`` → ``(a op b) op c``."""

    def combine(parser: _Parser, reads: list[_Read], words: list[str]) -> ct.Filter:
        out = parser.node(reads[0])
        for word, read in zip(words, reads[1:], strict=True):
            out = make(word, out, parser.node(read))
        return out

    return combine


def _attack(word: str, left: ct.Filter, right: ct.Filter) -> ct.Filter:
    return ct.Attacks(left, right) if word == "attacks" else ct.AttackedBy(left, right)


def _arith(word: str, left: ct.Filter, right: ct.Filter) -> ct.Filter:
    return ct.Arith(ct.ArithOp(word), left, right)


def _operators() -> dict[str, _Infix]:
    attack = _Infix(ATTACK, _fold_left(_attack))
    arith = _Infix(ARITH, _fold_left(_arith))
    relation = _Infix(RELATION, _Parser.relations)
    return {
        "attacks": attack,
        "attackedby": attack,
        ":": _Infix(COLON, _Parser.colon),
        "&": _Infix(INTERSECTION, _Parser.intersection),
        "|": _Infix(UNION, _flat(ct.Union)),
        "+": arith,
        "-": arith,
        **dict.fromkeys(("<=", ">=", "==", "!=", "<", ">"), relation),
        "in": _Infix(IN, _Parser.in_, once=True),
        "and": _Infix(AND, _flat(ct.And)),
        "or": _Infix(OR, _flat(ct.Or)),
    }


_INFIX = _operators()
_LEVELS = sorted({op.level for op in _INFIX.values()})
_TIGHTEST = _LEVELS[-1]


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------


def _depth_exceeds(query: ct.Query, limit: int) -> bool:
    """Is some filter of ``query`` more than ``limit`` levels below its list's top?"""
    stack = [(top.body, 0) for top in query.lists]
    while stack:
        node, depth = stack.pop()
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in node.children())
    return False


def read_query(text: str, path: str | None = None) -> ct.Query:
    """Read a CQL 6.1 script; raises :class:`ModernSyntaxError` with a located message.

    >>> read_query("cql() Ka1 kh8").lists[0].body == ct.Compound(
    ...     (ct.PieceSet(MODERN_LETTERS["K"], 1), ct.PieceSet(MODERN_LETTERS["k"], 1 << 63)))
    True
    """
    refuse_too_many_words(text, path, r"//[^\n]*|/\*.*?\*/", ModernSyntaxError)
    source = SourceText(text, path)
    parser = _Parser(text)
    try:
        # The parser recurses a few frames per nesting level; MAX_NESTING and MAX_DEPTH
        # bound it.
        with room_for_deep_trees():
            encoded = parser.script()
        query = decode(encoded)
    except _Syntax as exc:
        raise source.error(
            ModernSyntaxError, exc.message, max(exc.loc, 0), exc.text, exc.expected, exc.hint
        ) from None
    except EncodingError as exc:
        place = len(text.rstrip()) if exc.place is None else exc.place
        raise source.error(ModernSyntaxError, exc.message, place) from None
    except RecursionError:
        raise source.error(ModernSyntaxError, "the script nests too deeply to read", 0) from None
    if _depth_exceeds(query, MAX_DEPTH):
        message = f"the script nests filters more than {MAX_DEPTH} deep"
        raise source.error(ModernSyntaxError, message, 0)
    return query
