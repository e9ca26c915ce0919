"""The pieces of the legacy grammar: terminals, quick choices among alternatives, ranges.

What :mod:`.grammar` builds its keyword parameters and lists from (see its docstring).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from typing import Any

import pyparsing as pp

from cqllegacy.legacy import dialects
from cqllegacy.legacy import tree as t
from cqllegacy.legacy.diagnostics import OpenList, Reading
from cqllegacy.legacy.errors import LegacySyntaxError
from cqllegacy.legacy.keywords import (
    KeywordSpec,
)
from cqllegacy.legacy.lexical import (
    ATOM_CHARACTER,
    ATOM_END,
    INTEGER_PATTERN,
    MAX_DIGITS,
    NAME_PATTERN,
    OPEN_RANGE_PATTERN,
    RESULTS,
    TOKEN,
    UNLIMITED,
    AtomError,
    Token,
    digit_count,
    integer_value,
    parse_designator,
    uses_bracket_class,
)
from cqllegacy.legacy.lexical import ATOM_PATTERN as _ATOM_PATTERN
from cqllegacy.legacy.lexical import COMMENT_PATTERN as _COMMENT_PATTERN
from cqllegacy.legacy.lexical import WHITESPACE as _SPACES
from cqllegacy.vocab.results import GameResult

# _ATOM_PATTERN, _COMMENT_PATTERN and _WHITESPACE keep the names they had when this module
# defined them: tests/runner imports them from here.

#: Deepest nesting of parentheses a script may use (about 30 levels of nested lists).
MAX_DEPTH = 64

ParseAction = Callable[[str, int, pp.ParseResults], Any]
#: The error for a mistake found at a token.
Diagnose = Callable[[Reading, Token], LegacySyntaxError]
#: An alternative and the characters it may start with (``None``: any character).
Alternative = tuple[str | None, pp.ParserElement]


class _Source(str):
    """The script text as pyparsing parses it, carrying the :class:`Reading` of this call.

    pyparsing hands each parse action the string being parsed, so the reading's
    bookkeeping travels with it instead of living in module-level state.
    """

    reading: Reading


def _reading(source: str) -> Reading:
    if not isinstance(source, _Source):
        raise TypeError("the legacy grammar parses only the text read_script gives it")
    return source.reading


# --------------------------------------------------------------------------------------
# Choosing among alternatives without trying each
# --------------------------------------------------------------------------------------


class _Switch(pp.ParseExpression):
    """A MatchFirst that tries only the alternatives filed under a key read from the text.

    It matches what the MatchFirst of its alternatives would, provided every alternative
    is filed under each key of the texts it can match; it saves the failed attempts on
    the others, which are most of pyparsing's work on a script.  An ``optional`` switch
    matches nothing where no alternative matches; a ``repeated`` one, ``ZeroOrMore`` of
    itself, matches alternatives for as long as one matches.
    """

    def __init__(
        self,
        key: Callable[[str, int], str],
        cases: Mapping[str, Sequence[pp.ParserElement]],
        default: Sequence[pp.ParserElement],
        name: str,
        *,
        optional: bool = False,
        repeated: bool = False,
    ) -> None:
        every = {id(element): element for element in [*default, *chain(*cases.values())]}
        super().__init__(list(every.values()))
        self._key = key
        self._cases = {case: tuple(elements) for case, elements in cases.items()}
        self._default = tuple(default)
        self._optional = optional
        self._repeated = repeated
        self.callPreparse = True
        self.set_name(name)

    def parseImpl(
        self, instring: str, loc: int, do_actions: bool = True
    ) -> tuple[int, pp.ParseResults]:
        if self._repeated:
            return self._all(instring, loc, do_actions)
        found = self._first(instring, loc, do_actions)
        if found is not None:
            return found
        if self._optional:
            return loc, pp.ParseResults([])
        raise pp.ParseException(instring, loc, self.errmsg, self)

    def _first(
        self, instring: str, loc: int, do_actions: bool
    ) -> tuple[int, pp.ParseResults] | None:
        for alternative in self._cases.get(self._key(instring, loc), self._default):
            try:
                return alternative._parse(instring, loc, do_actions)
            except pp.ParseException:
                pass
        return None

    def _all(self, instring: str, loc: int, do_actions: bool) -> tuple[int, pp.ParseResults]:
        tokens = pp.ParseResults([])
        while True:
            found = self._first(instring, self.preParse(instring, loc), do_actions)
            # An alternative that matched no text would match again forever.
            if found is None or found[0] <= loc:
                return loc, tokens
            loc, more = found
            tokens += more


def _first_character(text: str, loc: int) -> str:
    return text[loc : loc + 1]


_KEYWORD_TEXT = re.compile(f":{ATOM_CHARACTER}*")


def _keyword_or_first_character(keywords: frozenset[str], text: str, loc: int) -> str:
    """The ``:name`` at ``loc`` if it is one of ``keywords``, else the character there."""
    if text.startswith(":", loc):
        found = _KEYWORD_TEXT.match(text, loc)
        if found is not None and found.group() in keywords:
            return found.group()
    return text[loc : loc + 1]


def _choice(
    name: str,
    *alternatives: Alternative,
    keywords: Mapping[str, pp.ParserElement] | None = None,
    nothing_at: Sequence[str] = (),
    optional: bool = False,
    repeated: bool = False,
) -> pp.ParserElement:
    """The first alternative that matches, of those that may start with the next character.

    A ``:name`` of ``keywords`` (a table of keyword expressions) goes straight to its
    expression.  ``nothing_at`` lists characters (``""``: the end of the script) that
    start no alternative.  ``optional`` and ``repeated`` are those of :class:`_Switch`.
    """
    characters = set().union(*(first for first, _ in alternatives if first is not None))
    cases = {
        character: [each for first, each in alternatives if first is None or character in first]
        for character in characters
    }
    cases.update((character, []) for character in nothing_at)
    default = [element for first, element in alternatives if first is None]
    key: Callable[[str, int], str] = _first_character
    if keywords:
        cases.update((f":{keyword}", [expression]) for keyword, expression in keywords.items())
        names = frozenset(f":{keyword}" for keyword in keywords)
        key = functools.partial(_keyword_or_first_character, names)
    return _Switch(key, cases, default, name, optional=optional, repeated=repeated)


def _items(
    name: str, *alternatives: Alternative, keywords: Mapping[str, pp.ParserElement] | None = None
) -> pp.ParserElement:
    """The items of a list, up to its ``)`` or the end of an unclosed list."""
    return _choice(name, *alternatives, keywords=keywords, nothing_at=(")", ""), repeated=True)


# --------------------------------------------------------------------------------------
# Terminals
# --------------------------------------------------------------------------------------

_DIGITS = "-+\u2212\u20130123456789"
#: The first characters of Scidb's half-open ranges (``<=3``, ``>1``).
_COMPARISONS = "<>"
_KEYWORD_START = ":!"


def _terminal(pattern: str, name: str) -> pp.ParserElement:
    return pp.Regex(pattern).set_name(name)


def _whole_atom(pattern: str, name: str) -> pp.ParserElement:
    return _terminal(f"(?:{pattern}){ATOM_END}", name)


def _keyword_literal(spec: KeywordSpec) -> pp.ParserElement:
    # A keyword expression is entered only through its list's switch, which has seen
    # that the whole atom is the keyword; the literal text is all there is left to check.
    return pp.Literal(spec.text)


def _found(loc: int, tokens: pp.ParseResults) -> Token:
    """The token a mistake was matched at (the empty text at the end of the script)."""
    return Token.at(tokens[0], loc) if tokens[0] else Token.end(loc)


def _refused(element: pp.ParserElement, diagnose: Diagnose) -> pp.ParserElement:
    """``element`` as a mistake: where it matches, reading stops with ``diagnose``'s error."""

    def refuse(source: str, loc: int, tokens: pp.ParseResults) -> None:
        raise diagnose(_reading(source), _found(loc, tokens))

    return element.copy().add_parse_action(refuse)


def _comment(source: str, loc: int, tokens: pp.ParseResults) -> t.Comment:
    return t.Comment(tokens[0].lstrip(";").rstrip(), span=_reading(source).span(loc))


def _open_list(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
    reading = _reading(source)
    if len(reading.open_lists) >= MAX_DEPTH:
        raise reading.too_deep(loc, MAX_DEPTH)
    reading.open_lists.append(OpenList(loc))
    return []


def _no_token(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
    return []


def _checked_integer(source: str, loc: int, tokens: pp.ParseResults) -> None:
    if digit_count(tokens[0]) > MAX_DIGITS:
        raise _reading(source).number_too_large(Token.at(tokens[0], loc))


def _result(source: str, loc: int, tokens: pp.ParseResults) -> GameResult:
    return RESULTS[tokens[0]]


def _designator(source: str, loc: int, tokens: pp.ParseResults) -> t.Designator:
    reading = _reading(source)
    text = tokens[0]
    try:
        found = parse_designator(text)
    except AtomError as exc:
        raise reading.bad_atom(Token.at(text, loc), exc) from None
    if found.tag is not None:
        reading.tag_uses.append((found.tag, loc))
    if any(space in text for space in _SPACES):
        reading.dialect_form("a line break or space inside a square list", loc)
    elif uses_bracket_class(text):
        reading.dialect_form(f"`{text}`", loc)
    return t.Designator(found.types, found.squares, found.tag, span=reading.span(loc))


_COMMENT = _terminal(_COMMENT_PATTERN, "comment").add_parse_action(_comment)
_COMMENTS = pp.ZeroOrMore(_COMMENT)
#: A ``(`` that opens a list and the ``)`` that closes it.
_OPEN = _terminal(r"\(", "'('").add_parse_action(_open_list)
#: A ``(`` where no list may open (only ever refused).
_PAREN = _terminal(r"\(", "'('")
_END = pp.StringEnd().set_name("the end of the script")
#: Any token or the end of the script (only ever refused).
_NEXT_TOKEN = _terminal(TOKEN.pattern + r"|\Z", "a token")
_ANY_ATOM = _terminal(_ATOM_PATTERN, "atom")
_KEYWORD = _terminal(f"!?:{ATOM_CHARACTER}*", "keyword")
_PLAIN_ATOM = _terminal("(?!!?:)" + _ATOM_PATTERN, "atom")
_MATCH_HEAD = _whole_atom("match", "'match'")
_POSITION_HEAD = _whole_atom("position", "'position'")

_INTEGER = _whole_atom(INTEGER_PATTERN, "integer").add_parse_action(_checked_integer)
_UNLIMITED = _whole_atom(UNLIMITED, UNLIMITED)
_RESULT = _whole_atom(
    "|".join(re.escape(text) for text in sorted(RESULTS, key=len, reverse=True)), "game result"
).add_parse_action(_result)
_NAME = _whole_atom(NAME_PATTERN, "name")


def _fen_text(source: str, loc: int, tokens: pp.ParseResults) -> str:
    text: str = tokens[0][1:-1]
    key = dialects.fen_key(text)
    if isinstance(key, str):
        # Keyword and FEN are one mistake: `check` blanks both and reads on.
        start = source.rfind(":fen", 0, loc)
        item = source[start : loc + len(tokens[0])]
        raise _reading(source).error_at(Token.at(item, start), f"`:fen`: {key}")
    return text


#: Scidb's ``:fen "…"``: a FEN in double quotes, describing a legal position.
_FEN = _terminal(r'"[^"\n]*"', "a FEN in double quotes").add_parse_action(_fen_text)
#: Any atom but a keyword, a number or a list head.
_DESIGNATOR = _terminal(
    f"(?!!?:|(?:{INTEGER_PATTERN}|{UNLIMITED}|match|position){ATOM_END}){_ATOM_PATTERN}",
    "piece designator",
).add_parse_action(_designator)
_UNLIMITED_AS_DESIGNATOR = _refused(_UNLIMITED, Reading.number_as_designator)
_INTEGER_AS_DESIGNATOR = _refused(
    _whole_atom(INTEGER_PATTERN, "integer"), Reading.number_as_designator
)
_HEAD_AS_DESIGNATOR = _refused(
    _whole_atom("match|position", "list head"), Reading.head_as_designator
)
#: The atoms that stand where a piece designator may, after the designator itself.
_NOT_DESIGNATORS: tuple[Alternative, ...] = (
    (_DIGITS, _INTEGER_AS_DESIGNATOR),
    ("u", _UNLIMITED_AS_DESIGNATOR),
    ("mp", _HEAD_AS_DESIGNATOR),
)


def _closing(what: str) -> pp.ParserElement:
    """The ``)`` of a list, or the end of the script, which leaves the ``what`` unclosed."""

    def close(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
        reading = _reading(source)
        if not tokens[0]:
            raise reading.unclosed(reading.innermost.offset, what)
        reading.open_lists.pop()
        return []

    return _terminal(r"\)|\Z", "')'").add_parse_action(close)


def _after_comments(value: pp.ParserElement, *otherwise: pp.ParserElement) -> pp.ParserElement:
    """``value``, or else one of ``otherwise`` (its mistakes), after any comments.

    The same as ``ZeroOrMore(comment) + (value | otherwise…)``, without trying a comment
    first where (nearly always) there is none.
    """
    after = pp.OneOrMore(_COMMENT) + pp.MatchFirst([value, *otherwise])
    return pp.MatchFirst([value, after, *otherwise])


# --------------------------------------------------------------------------------------
# Ranges
# --------------------------------------------------------------------------------------


def _note_signs(reading: Reading, texts: Sequence[str], loc: int) -> None:
    for text in texts:
        if text[:1] in "+\u2212\u2013":
            reading.dialect_form(f"`{text}`", loc)


def _range(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
    """``lo [comments] [hi | unlimited]``: the range, then the comments inside it."""
    reading = _reading(source)
    first, *rest = tokens
    _note_signs(reading, [first, *(each for each in rest if isinstance(each, str))], loc)
    lo = integer_value(first)
    hi: int | None = lo
    if rest:
        last = rest.pop()
        hi = None if last == UNLIMITED else integer_value(last)
        if hi is not None and hi < lo:
            raise reading.empty_range(Token.at(first, loc), lo, hi)
    return [t.Range(lo, hi, span=reading.span(loc)), *rest]


_UPPER_BOUND = _choice(
    "upper bound",
    (_DIGITS, _INTEGER),
    ("u", _UNLIMITED),
    (";", pp.OneOrMore(_COMMENT) + (_INTEGER | _UNLIMITED)),
    optional=True,
)
_CLOSED_RANGE = (_INTEGER + _UPPER_BOUND).add_parse_action(_range)
_UNLIMITED_FIRST = _refused(_UNLIMITED, Reading.unlimited_first)


def _open_range(floor: int) -> pp.ParserElement:
    """Scidb's ``<n``, ``<=n``, ``>n``, ``>=n``: a range open at one end.  The open lower
    end is ``floor``, the least value the keyword's quantity takes, so the range is
    exact and a standard one (``<=3`` of a count is ``0 3``)."""

    def action(source: str, loc: int, tokens: pp.ParseResults) -> t.Range:
        reading = _reading(source)
        text = tokens[0]
        operator = text[:2] if text[1] == "=" else text[:1]
        number = text[len(operator) :]
        token = Token.at(text, loc)
        if digit_count(number) > MAX_DIGITS:
            raise reading.number_too_large(token)
        value = integer_value(number)
        lo, hi = {
            "<": (floor, value - 1),
            "<=": (floor, value),
            ">": (value + 1, None),
            ">=": (value, None),
        }[operator]
        if hi is not None and hi < lo:
            raise reading.empty_open_range(token, floor)
        reading.dialect_form(f"`{text}`", loc)
        return t.Range(lo, hi, span=reading.span(loc))

    return _whole_atom(OPEN_RANGE_PATTERN, "range").add_parse_action(action)


def _any_range(floor: int) -> pp.ParserElement:
    """A standard range or a half-open one (whose lower end is ``floor``)."""
    return _choice(
        "range",
        (_DIGITS, _CLOSED_RANGE),
        (_COMPARISONS, _open_range(floor)),
    )


#: The least value a count, a move number, a year or an Elo takes.
COUNT_FLOOR = 0
_RANGE = _any_range(COUNT_FLOOR)
_OPTIONAL_RANGE = _choice(
    "range",
    (_DIGITS + _COMPARISONS, _RANGE),
    ("u", _UNLIMITED_FIRST),
    (";", pp.OneOrMore(_COMMENT) + (_RANGE | _UNLIMITED_FIRST)),
    optional=True,
)
