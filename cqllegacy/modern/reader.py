"""The CQL 6.1 reader's parser: a precedence-climbing (Pratt) parser over the lexer's
tokens, driven by the tables :mod:`cqllegacy.modern.grammar` builds.

The parser keeps what every form needs: where it stands, the variables bound around it,
how deep it nests, and each filter's operands kind-checked as the filter is made.  The
forms of single constructs are functions in :mod:`cqllegacy.modern.forms`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NoReturn

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.modern.encoding import Encoded, EncodingError, is_commentary, pragma_of
from cqllegacy.modern.kinds import Kind, kind_of, misplaced
from cqllegacy.modern.lexer import (
    DESIGNATOR_PARTS,
    FILE_NAME,
    NAME_TEXT,
    RESULT,
    WORD_AT,
    Lexer,
    Token,
    TokenKind,
)
from cqllegacy.modern.vocabulary import (
    ARITH,
    ATTACK,
    DESIGNATOR_PATTERN,
    DIRECTION_WORDS,
    OR,
    RESERVED_WORDS,
    SUPPORTED_WORDS,
    UNSUPPORTED_WORDS,
    is_variable_name,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANYTHING,
    MODERN_LETTERS,
    TypeSet,
)
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import FULL, Direction, parse_squares

#: Deepest bracket nesting the reader accepts (a guard against stack exhaustion).
MAX_NESTING = 100
#: Deepest filter tree the reader returns (prefix chains such as ``not not …`` too).
MAX_DEPTH = 200

#: What declares a variable, in the order messages name them: (as "names both … and …"
#: says it, as "… is unbound here" says it).
VARIABLE_KINDS = {
    "piece": ("a piece variable", "piece variable"),
    "square": ("a square variable", "square variable"),
    "position": ("an echo position", "position"),
}


# --------------------------------------------------------------------------------------
# What the parser holds while it reads
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class StringValue(Record):
    text: str


@attrs.frozen(repr=False)
class TagValue(Record):
    """``player [white|black]``, ``event``, ``site`` without a string (a string value)."""

    tag: str
    color: ct.Color | None = None
    lowercase: bool = False
    #: The tag ``tag "Name"`` reads.
    name: str | None = None


Value = ct.Filter | StringValue | TagValue


@attrs.frozen(repr=False, slots=True)
class Read(Record):
    """A value read, where it starts, and whether it was parenthesised (a parenthesised
    filter is never part of a relation chain, never a literal)."""

    value: Value
    loc: int
    paren: bool = False


@attrs.frozen(repr=False, slots=True)
class Infix(Record):
    """A binary operator: its precedence level and how its operands are combined."""

    level: int
    combine: Callable[[Parser, list[Read], list[str]], ct.Filter]  # see Combine
    once: bool = False


class ReadError(Exception):
    """A mistake found while reading: the message and where (an offset)."""

    def __init__(self, message: str, loc: int, text: str = "", expected: str = "") -> None:
        super().__init__(message)
        self.message, self.loc, self.text, self.expected = message, loc, text, expected
        self.hint = ""


HEADER_PARAMETERS = ("input", "output", "gamenumber", "matchcount", "result", "variations")


def types_of_letters(letters: str) -> TypeSet:
    out = 0
    for ch in letters.strip("[]"):
        out |= MODERN_LETTERS[ch]
    return out


def designator(text: str) -> ct.PieceSet:
    parts = DESIGNATOR_PARTS.fullmatch(text)
    assert parts is not None  # the token pattern guarantees the shape
    letters, squares = parts.group("types"), parts.group("squares")
    types = types_of_letters(letters) if letters else ANYTHING
    return ct.PieceSet(types, parse_squares(squares, False) if squares else FULL)


DIRECTIONS = frozenset(DIRECTION_WORDS)
Form = Callable[["Parser", Token], Read]
Combine = Callable[["Parser", list[Read], list[str]], ct.Filter]


class Tables:
    """What the parser reads by: which word or symbol starts which form, and the binary
    operators with their levels."""

    def __init__(
        self, words: dict[str, Form], symbols: dict[str, Form], infix: dict[str, Infix]
    ) -> None:
        self.words, self.symbols, self.infix = words, symbols, infix
        self.levels = sorted({op.level for op in infix.values()})
        self.tightest = self.levels[-1]


# --------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------


class Parser:
    """One reading of one script."""

    def __init__(self, text: str, tables: Tables) -> None:
        self.text = text
        self.tables = tables
        self.lex = Lexer(text)
        #: The variables bound around the place being read: name → "piece"/"square"/"position".
        self.bound: dict[str, str] = {}
        self.nesting = 0
        self.depth = 0
        self._declared: dict[str, frozenset[str]] | None = None

    # -- tokens ----------------------------------------------------------------

    def fail(self, message: str, loc: int, text: str = "") -> NoReturn:
        raise ReadError(message, loc, text)

    def unexpected(self, token: Token, expected: str) -> NoReturn:
        """The message for ``token`` where ``expected`` was wanted."""
        if token.kind is TokenKind.END:
            raise ReadError("unexpected end of script", len(self.text.rstrip()), "", expected)
        word = WORD_AT.match(self.text, token.start)
        if word is not None and token.kind is not TokenKind.STRING:
            text = word.group()
            if text in UNSUPPORTED_WORDS:
                message = f"{text!r} is CQL 6 but not in the subset cqllegacy reads"
                raise ReadError(message, token.start, text)
            if text not in SUPPORTED_WORDS and not re.fullmatch(DESIGNATOR_PATTERN, text):
                error = ReadError(f"unknown word {text!r}", token.start, text, expected)
                import difflib  # a mistake's suggestion: not on every run's path

                close = difflib.get_close_matches(text, sorted(SUPPORTED_WORDS), n=1)
                error.hint = f"did you mean {close[0]!r}?" if close else ""
                raise error
        rest = self.text[token.start :].split(None, 1)
        shown = rest[0] if rest else ""
        raise ReadError(f"unexpected {shown!r}", token.start, shown, expected)

    def expect(self, *texts: str) -> Token:
        token = self.lex.peek()
        if not token.is_(*texts):
            self.unexpected(token, ", ".join(f"'{text}'" for text in texts))
        return self.lex.take()

    def accept(self, *texts: str) -> Token | None:
        return self.lex.take() if self.lex.peek().is_(*texts) else None

    def open(self, text: str) -> Token:
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
        if token.kind is TokenKind.NUMBER:
            return int(self.lex.take().text)
        if signed and token.is_("-") and self.text[token.end : token.end + 1].isdigit():
            self.lex.take()
            return -int(self.lex.take().text)
        return None

    # -- values ----------------------------------------------------------------

    def node(self, read: Read) -> ct.Filter:
        """A value used as a filter: strings and tag values refused where they stand."""
        value = read.value
        if isinstance(value, StringValue):
            self.fail(
                "a string can only stand before `in player`, `in event` or `in site`", read.loc
            )
        if isinstance(value, TagValue) and value.name is not None and not value.lowercase:
            return ct.TagSearch(value.name)  # a bare `tag "Name"`: the tag is present
        if isinstance(value, TagValue):
            self.fail(f'`{value.tag}` without a string can only follow `"text" in`', read.loc)
        return value

    def made(self, node: ct.Filter, loc: int, operands: Sequence[Read] = ()) -> Read:
        """``node`` read at ``loc``, once its operands have the kinds it needs (its
        operands' own operands were checked when those were made)."""
        if kind_of(node) is not Kind.POSITION:
            problem = misplaced(node)
            if problem is not None:
                blamed, message = problem
                where = next((r.loc for r in operands if r.value is blamed), loc)
                self.fail(message, where)
        return Read(node, loc)

    def not_a_position(self, read: Read) -> None:
        """A filter that stands by itself (an item of the body) cannot be a position."""
        node = self.node(read)
        problem = misplaced(node) if kind_of(node) is Kind.POSITION else None
        if problem is not None:
            self.fail(problem[1], read.loc)

    # -- variables -------------------------------------------------------------

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

    def variable(self, token: Token) -> Read:
        name = token.text
        declared = [what for what in VARIABLE_KINDS if what in self.declared().get(name, ())]
        if len(declared) > 1:
            first, second = (VARIABLE_KINDS[what][0] for what in declared[:2])
            self.fail(f"{name!r} names both {first} and {second}", token.start)
        what = self.bound.get(name)
        if what is None:
            if declared:
                kind = VARIABLE_KINDS[declared[0]][1]
                self.fail(f"{kind} {name!r} is unbound here", token.start)
            self.unexpected(token, "a filter")
        if what == "piece":
            return Read(ct.PieceVariable(name), token.start)
        if what == "square":
            return Read(ct.SquareVariable(name), token.start)
        return Read(ct.PositionVariable(name), token.start)

    def name(self) -> Token:
        token = self.lex.peek()
        if token.kind not in (TokenKind.WORD, TokenKind.DESIGNATOR) or not re.fullmatch(
            NAME_TEXT, token.text
        ):
            self.unexpected(token, "a name")
        return self.lex.take()

    def check_name(self, name: str, loc: int) -> None:
        if not is_variable_name(name):
            why = "a CQL word" if name in RESERVED_WORDS else "a piece designator"
            self.fail(f"{name!r} cannot name a variable: it is {why}", loc)

    def bound_body(self, names: dict[str, str], loc: int) -> Read:
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

    # -- expressions -----------------------------------------------------------

    def expression(self, level: int) -> Read:
        """A filter of ``level``: operators at least as tight as ``level`` combine."""
        self.depth += 1
        if self.depth > MAX_DEPTH + MAX_NESTING:
            self.fail(f"the script nests filters more than {MAX_DEPTH} deep", 0)
        try:
            return self.infix(self.prefix(), level)
        finally:
            self.depth -= 1

    def infix(self, left: Read, level: int) -> Read:
        """``left`` and the operators after it at ``level`` or tighter; after an operator's
        run only looser ones follow (``a in b in c`` is no filter)."""
        ceiling = self.tables.tightest + 1
        infix = self.tables.infix
        while True:
            token = self.lex.peek()
            op = infix.get(token.text) if token.kind in (TokenKind.WORD, TokenKind.SYMBOL) else None
            if op is None or not level <= op.level < ceiling or not self.operand_follows(token):
                return left
            reads, words = [left], list[str]()
            while (token := self.lex.peek()).text in infix and infix[token.text] is op:
                if not self.operand_follows(token) or (op.once and words):
                    break
                words.append(self.lex.take().text)
                reads.append(self.operand(op.level))
            left = self.made(op.combine(self, reads, words), left.loc, reads)
            ceiling = op.level

    def operand_follows(self, token: Token) -> bool:
        """After ``+``, does an operand follow? (Otherwise it is a line repetition.)"""
        if not token.is_("+"):
            return True
        following = Lexer(self.text)
        following.pos = token.end
        return self.starts_a_filter(following.peek())

    def operand(self, level: int) -> Read:
        tighter = [other for other in self.tables.levels if other > level]
        if not tighter:
            return self.prefix_read()
        return self.expression(min(tighter))

    def prefix_read(self) -> Read:
        self.depth += 1
        try:
            return self.prefix()
        finally:
            self.depth -= 1

    def argument(self, level: int) -> Read:
        """The argument of a prefix form at ``level``: everything that binds tighter."""
        return self.operand(level)

    def prefix(self) -> Read:
        token = self.lex.peek()
        kind = token.kind
        if kind is TokenKind.NUMBER:
            return Read(ct.Number(int(self.lex.take().text)), token.start)
        if kind is TokenKind.STRING:
            return Read(StringValue(self.lex.take().text[1:-1]), token.start)
        if kind is TokenKind.WORD:
            form = self.tables.words.get(token.text)
            if form is not None:
                return form(self, self.lex.take())
            if token.text in DIRECTIONS:
                return self.direction(self.lex.take())
            return self.variable(self.lex.take()) if token.text in self.bound else self.free(token)
        if kind is TokenKind.DESIGNATOR:
            return Read(designator(self.lex.take().text), token.start)
        if kind is TokenKind.SYMBOL:
            form = self.tables.symbols.get(token.text)
            if form is not None:
                return form(self, token)
        self.unexpected(token, "a filter")

    def free(self, token: Token) -> Read:
        """A word no filter starts with and no filter around binds."""
        if token.text in SUPPORTED_WORDS or token.text in UNSUPPORTED_WORDS:
            self.unexpected(token, "a filter")
        return self.variable(token)

    # -- prefix forms ----------------------------------------------------------

    def paren(self, token: Token) -> Read:
        self.open("(")
        inner = self.node(self.expression(OR))
        self.close(")")
        return Read(inner, token.start, paren=True)

    def compound(self, token: Token) -> Read:
        self.open("{")
        items = self.items("}")
        self.close("}")
        if all(is_commentary(item.value) for item in items):  # type: ignore[arg-type]
            self.fail("a { } needs at least one filter", token.start)
        return self.made(ct.Compound(tuple(self.node(i) for i in items)), token.start, items)

    def items(self, closing: str) -> list[Read]:
        """The constituents of a ``{ }`` or of the body, comments among them."""
        items: list[Read] = []
        while True:
            token = self.lex.peek(comments=True)
            if token.kind is TokenKind.END or token.is_(closing):
                return items
            if token.kind is TokenKind.COMMENT:
                items.append(self.comment(self.lex.take(comments=True)))
            elif self.starts_a_filter(token):
                item = self.expression(OR)
                self.not_a_position(item)
                items.append(item)
            else:
                self.unexpected(token, f"a filter, '{closing}'" if closing else "a filter")

    def comment(self, token: Token) -> Read:
        text = token.text[2:].rstrip("\r")
        try:
            pragma = pragma_of(text, token.start)
        except EncodingError as exc:
            self.fail(exc.message, token.start)
        if pragma is not None:
            return Read(pragma, token.start)
        return Read(ct.Comment(text, trailing=self.lex.after_code(token.start)), token.start)

    def minus(self, token: Token) -> Read:
        self.lex.take()
        if self.text[token.end : token.end + 1].isdigit():
            return Read(ct.Number(-int(self.lex.take().text)), token.start)
        # As chessql reads it: the argument binds tighter than `+ -` (module docstring).
        arg = self.argument(ARITH)
        return self.made(ct.Negate(self.node(arg)), token.start, [arg])

    def direction(self, token: Token) -> Read:
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

    # -- the script ------------------------------------------------------------

    def script(self) -> Encoded:
        leading: list[str] = []
        while (token := self.lex.peek(comments=True)).kind is TokenKind.COMMENT:
            leading.append(self.lex.take(comments=True).text[2:].rstrip("\r"))
        self.expect("cql")
        self.open("(")
        seen: dict[str, list[object]] = {}
        while (token := self.lex.peek()).is_(*HEADER_PARAMETERS) and token.kind is TokenKind.WORD:
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
            name = self.lex.raw(FILE_NAME)
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
            value = self.lex.raw(RESULT)
            if value is None:
                self.unexpected(self.lex.peek(), "1-0, 0-1 or 1/2-1/2")
            return [value.text]
        return []

    def starts_a_filter(self, token: Token) -> bool:
        if token.kind in (TokenKind.NUMBER, TokenKind.STRING, TokenKind.DESIGNATOR, TokenKind.WORD):
            return True
        return token.kind is TokenKind.SYMBOL and token.text in self.tables.symbols
