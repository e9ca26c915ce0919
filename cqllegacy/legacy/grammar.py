"""The legacy script reader: a pyparsing grammar, text in, :class:`~.tree.Script` out.

The grammar follows the legacy syntax (semantics: S-legacy-grammar): a script is
comments, one ``(match …)`` list and comments; position lists nest through the list
parameters of :and, :or, :sequence and :gappedsequence (a ``pp.Forward``).
Each list kind has a keyword table
(:data:`~cqllegacy.legacy.keywords.KEYWORDS`); every keyword in it becomes the
expression ``:name`` followed by the rules for the parameters of its shape
(:data:`~cqllegacy.legacy.keywords.SHAPE_PARAMETERS`), so a keyword added to a table is
read with no change here.  Parse actions build the frozen tree with its spans;
comments keep their place (those among a keyword's parameters follow its node).  What
one atom means (a piece designator, an integer) comes from :mod:`.lexical`.

The grammar is total: wherever a script can go wrong, an alternative matches the
mistake and its parse action raises the :class:`LegacySyntaxError` that
:mod:`.diagnostics` words for it, at the offending token.  So the first mistake in
reading order is the one reported, and no pyparsing exception leaves :func:`read_script`.
The actions keep the bookkeeping of one reading (the lists still open, the tags
declared and used) in a :class:`~.diagnostics.Reading` that travels with the text;
the grammar is built once, at import, and never changes.

Where a MatchFirst would try alternative after alternative, a ``_Switch`` looks at the
next character (or the ``:keyword`` there) and tries only the alternatives that can
start with it: failed attempts are most of what pyparsing spends time on.  Nesting is
capped at :data:`MAX_DEPTH` parentheses, checked as each ``(`` is read; at the cap
pyparsing's recursion (about 20 frames per nested list) stays well below Python's
default limit.

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

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pyparsing as pp

from cqllegacy.errors import refuse_too_many_words
from cqllegacy.legacy import dialects, line_moves, line_star
from cqllegacy.legacy import tree as t
from cqllegacy.legacy.diagnostics import Reading, lists_usage
from cqllegacy.legacy.errors import LegacySyntaxError
from cqllegacy.legacy.grammar_parts import (
    _ANY_ATOM,
    _COMMENT,
    _COMMENTS,
    _COMPARISONS,
    _DESIGNATOR,
    _DIGITS,
    _END,
    _FEN,
    _HEAD_AS_DESIGNATOR,
    _KEYWORD,
    _KEYWORD_START,
    _KEYWORD_TEXT,
    _MATCH_HEAD,
    _NAME,
    _NEXT_TOKEN,
    _NOT_DESIGNATORS,
    _OPEN,
    _OPTIONAL_RANGE,
    _PAREN,
    _PLAIN_ATOM,
    _POSITION_HEAD,
    _RANGE,
    _RESULT,
    _UNLIMITED_AS_DESIGNATOR,
    MAX_DEPTH,
    ParseAction,
    _after_comments,
    _any_range,
    _choice,
    _closing,
    _items,
    _keyword_literal,
    _no_token,
    _reading,
    _refused,
    _Source,
    _terminal,
    _whole_atom,
)
from cqllegacy.legacy.keywords import (
    DIALECT_MATCH_KEYWORDS,
    DIALECT_POSITION_KEYWORDS,
    KEYWORDS,
    SHAPE_PARAMETERS,
    KeywordSpec,
    ListKind,
    Parameter,
)
from cqllegacy.legacy.lexical import ATOM_CHARACTER as _ATOM_CHARACTER
from cqllegacy.legacy.lexical import BRACKETED as _BRACKETED
from cqllegacy.legacy.lexical import COMMENT_PATTERN as _COMMENT_PATTERN
from cqllegacy.legacy.lexical import (
    LINE_BREAKS,
    QUOTE,
    TOKEN,
    Token,
    parse_designator,
    tokens,
)
from cqllegacy.legacy.lexical import WHITESPACE as _WHITESPACE
from cqllegacy.legacy.script_checks import check_script
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import types_of

# _ATOM_PATTERN, _COMMENT_PATTERN and _WHITESPACE keep the names they had when this module
# defined them: tests/runner imports them from here.
__all__ = [
    "LINE_BREAKS",
    "MAX_DEPTH",
    "TOKEN",
    "LegacySyntaxError",
    "parse_designator",
    "read_script",
    "tokens",
]

# --------------------------------------------------------------------------------------
# Keyword parameters, by shape
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class _Lists(Record):
    """The rules a keyword's parameters may hold; defined once every keyword table is."""

    position_list: pp.Forward
    relation_items: pp.Forward


ParameterRule = Callable[[KeywordSpec, _Lists], pp.ParserElement]

#: A ``*`` standing alone where a name is expected.
_NEXT_TOKEN_STAR = pp.Regex(r"\*(?![^\s();])")


def _missing(spec: KeywordSpec, what: str) -> pp.ParserElement:
    return _refused(_NEXT_TOKEN, lambda reading, token: reading.missing(spec, token, what))


def _designator_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    return _after_comments(
        _DESIGNATOR,
        _UNLIMITED_AS_DESIGNATOR,
        _HEAD_AS_DESIGNATOR,
        _missing(spec, "a piece designator"),
    )


#: No board has a power difference beyond ± this (64 queens; translator.orbits names the
#: same bound MAX_ABS_POWER and reads a bound beyond it as none).
POWER_BOUND = 64 * 9
#: Keywords whose quantity may be negative: the open lower end of ``<n`` is their least
#: value.
_RANGE_FLOORS: Mapping[str, int] = {"powerdifference": -POWER_BOUND}


def _range_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    bad_range = _refused(_NEXT_TOKEN, lambda reading, token: reading.bad_range(spec, token))
    floor = _RANGE_FLOORS.get(spec.name)
    every_range = _RANGE if floor is None else _any_range(floor)
    return _after_comments(every_range, bad_range)


def _result_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    return _after_comments(_RESULT, _missing(spec, "a game result (1-0, 0-1, 1/2-1/2 or 1/2)"))


def _declare_tag(source: str, loc: int, tokens: pp.ParseResults) -> None:
    reading = _reading(source)
    if tokens[0] in reading.foranys:
        raise reading.declared_twice(Token.at(tokens[0], loc))
    reading.foranys[tokens[0]] = loc


def _use_tag(source: str, loc: int, tokens: pp.ParseResults) -> None:
    _reading(source).tag_uses.append((tokens[0], loc))


#: What the name parameter of these keywords does to the tags.
_NAME_ROLES: Mapping[str, ParseAction] = {"forany": _declare_tag, "tagmatch": _use_tag}


def _any_tag(reading: Reading, token: Token) -> LegacySyntaxError:
    return reading.error_at(token, dialects.ANY_TAG_REFUSAL)


def _name_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    name = _NAME
    role = _NAME_ROLES.get(spec.name)
    if role is not None:
        name = _NAME.copy().add_parse_action(role)
    missing = _missing(spec, "a name (letters, digits and _)")
    if spec.name == "tag":  # Scidb's `:tag *`: any tag
        return _after_comments(name, _refused(_NEXT_TOKEN_STAR, _any_tag), missing)
    return _after_comments(name, missing)


def _word(spec: KeywordSpec, what: str) -> pp.ParserElement:
    def unquoted(source: str, loc: int, tokens: pp.ParseResults) -> None:
        if QUOTE in tokens[0]:
            raise _reading(source).quoted(spec, Token.at(tokens[0], loc))

    word = _PLAIN_ATOM.copy().add_parse_action(unquoted)
    return _after_comments(word, _missing(spec, what))


def _optional_word_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    def unquoted(source: str, loc: int, tokens: pp.ParseResults) -> None:
        if QUOTE in tokens[0]:
            raise _reading(source).quoted(spec, Token.at(tokens[0], loc))

    return pp.Optional(_PLAIN_ATOM.copy().add_parse_action(unquoted))


def _optional_designator_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    # A designator right after the keyword is its argument (Scidb), never one of its own.
    return _choice(
        "an optional piece designator",
        (_KEYWORD_START + "();" + _DIGITS + _COMPARISONS, pp.Empty()),
        ("", pp.Empty()),
        (None, _DESIGNATOR),
    )


def _normalized_dates(source: str, loc: int, tokens: pp.ParseResults) -> str:
    return " ".join(tokens[0].split())


def _date_range_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    dates = _whole_atom(dialects.DATE_RANGE, "a date range").add_parse_action(_normalized_dates)
    return _after_comments(dates, _missing(spec, "a date range such as 2010-10-01 2010-10-31"))


def _file_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    return _word(spec, "a file name")


def _word_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    return _word(spec, "a word")


def _ray_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    def designators(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
        found = tuple(token for token in tokens if isinstance(token, t.Designator))
        if len(found) < 2:
            raise _reading(source).short_ray(spec, loc)
        return [found, *(token for token in tokens if isinstance(token, t.Comment))]

    def unexpected(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.unexpected_in_ray(spec, token)

    items = _items(
        f"{spec.text} items",
        (";", _COMMENT),
        (None, _DESIGNATOR),
        *_NOT_DESIGNATORS,
        ("(" + _KEYWORD_START, _refused(_NEXT_TOKEN, unexpected)),
    )
    ray = (_OPEN + items + _closing(f"{spec.text} list")).add_parse_action(designators)
    return _after_comments(ray, _missing(spec, "a ray specifier list such as (Q k)"))


def _position_lists(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
    found = tuple(token for token in tokens if isinstance(token, t.PositionList))
    return [found, *(token for token in tokens if isinstance(token, t.Comment))]


def _lists_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    def without_parentheses(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.position_list_without_parentheses(spec, token)

    def not_a_list(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.not_a_position_list(spec, token)

    items = _items(
        f"{spec.text} items",
        ("(", lists.position_list),
        (";", _COMMENT),
        ("p", _refused(_POSITION_HEAD, without_parentheses)),
        (None, _refused(_ANY_ATOM, not_a_list)),
    )
    body = (_OPEN + items + _closing(f"{spec.text} list")).add_parse_action(_position_lists)
    return _after_comments(body, _missing(spec, f"a list of position lists: {lists_usage(spec)}"))


def _relation_node_items(source: str, loc: int, tokens: pp.ParseResults) -> tuple[Any, ...]:
    return tuple(tokens)


def _relation_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    body = (_OPEN + lists.relation_items + _closing(":relation list")).add_parse_action(
        _relation_node_items
    )
    return _after_comments(body, _missing(spec, "a relation list such as (:pattern :shift)"))


def _optional_range_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    return _OPTIONAL_RANGE


def _pawn_chain_parameter(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    """Scidb's attribute chain (``passed-!inside``), each attribute checked by name."""

    def chain(source: str, loc: int, tokens: pp.ParseResults) -> t.PawnChain:
        found = dialects.read_pawn_chain(tokens[0])
        if isinstance(found, dialects.PawnChainFault):
            raise _reading(source).error(
                found.message, loc + found.offset, found.text, hint=found.hint
            )
        return found

    word = _PAWN_CHAIN_WORD.copy().add_parse_action(chain)
    return _after_comments(word, _missing(spec, "pawn attributes such as passed-!inside"))


#: An attribute chain: an atom whose links may end in a count, ``consecutive(3)``.
_PAWN_CHAIN_WORD = _terminal(
    rf"(?!!?:)(?:{_BRACKETED}|{_ATOM_CHARACTER}|\([^();\s]*\))+", "pawn attributes"
)


#: How each parameter of a keyword (:data:`~.keywords.SHAPE_PARAMETERS`) is read.
_PARAMETERS: Mapping[Parameter, ParameterRule] = {
    Parameter.DESIGNATOR: _designator_parameter,
    Parameter.RANGE: _range_parameter,
    Parameter.OPTIONAL_RANGE: _optional_range_parameter,
    Parameter.RESULT: _result_parameter,
    Parameter.RAY: _ray_parameter,
    Parameter.LISTS: _lists_parameter,
    Parameter.RELATION: _relation_parameter,
    Parameter.NAME: _name_parameter,
    Parameter.FILE: _file_parameter,
    Parameter.WORD: _word_parameter,
    Parameter.PAWN_CHAIN: _pawn_chain_parameter,
    Parameter.OPTIONAL_WORD: _optional_word_parameter,
    Parameter.OPTIONAL_DESIGNATOR: _optional_designator_parameter,
    Parameter.DATE_RANGE: _date_range_parameter,
    Parameter.FEN: lambda spec, lists: _after_comments(_FEN, _missing(spec, Parameter.FEN.value)),
}


# --------------------------------------------------------------------------------------
# Keywords
# --------------------------------------------------------------------------------------


def _at_most_two_foranys(spec: KeywordSpec) -> ParseAction:
    def check(source: str, loc: int, tokens: pp.ParseResults) -> None:
        reading = _reading(source)
        if len(reading.foranys) >= 2:
            raise reading.too_many_foranys(Token.at(tokens[0], loc))

    return check


def _one_sequence_per_list(spec: KeywordSpec) -> ParseAction:
    def check(source: str, loc: int, tokens: pp.ParseResults) -> None:
        reading = _reading(source)
        position_list = reading.innermost
        if position_list.sequence is not None:
            raise reading.second_sequence(Token.at(tokens[0], loc), position_list.sequence)
        position_list.sequence = loc

    return check


def _note_first_relation(spec: KeywordSpec) -> ParseAction:
    def note(source: str, loc: int, tokens: pp.ParseResults) -> None:
        reading = _reading(source)
        if reading.first_relation is None:
            reading.first_relation = loc

    return note


def _once_per_relation(spec: KeywordSpec) -> ParseAction:
    def check(source: str, loc: int, tokens: pp.ParseResults) -> None:
        reading = _reading(source)
        seen = reading.innermost.once
        if spec.name in seen:
            raise reading.twice_in_relation(spec, Token.at(tokens[0], loc), seen[spec.name])
        seen[spec.name] = loc

    return check


#: Rules about a keyword that its parameters do not express, checked as it is read.
_KEYWORD_CHECKS: Mapping[tuple[ListKind, str], Callable[[KeywordSpec], ParseAction]] = {
    (ListKind.MATCH, "forany"): _at_most_two_foranys,
    (ListKind.POSITION, "sequence"): _one_sequence_per_list,
    (ListKind.POSITION, "gappedsequence"): _one_sequence_per_list,
    (ListKind.POSITION, "relation"): _note_first_relation,
    (ListKind.RELATION, "missingpiececount"): _once_per_relation,
    (ListKind.RELATION, "newpiececount"): _once_per_relation,
}


def _node(spec: KeywordSpec) -> ParseAction:
    """Build ``spec``'s node from its parameters; comments among them follow it."""

    def build(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
        values = tokens[1:]
        parameters = [value for value in values if not isinstance(value, t.Comment)]
        comments = [value for value in values if isinstance(value, t.Comment)]
        return [spec.build(*parameters, span=_reading(source).span(loc)), *comments]

    return build


def _keyword(spec: KeywordSpec, kind: ListKind, lists: _Lists) -> pp.ParserElement:
    keyword = _keyword_literal(spec)
    check = _KEYWORD_CHECKS.get((kind, spec.name))
    if check is not None:
        keyword.add_parse_action(check(spec))
    parameters = [_PARAMETERS[each](spec, lists) for each in SHAPE_PARAMETERS[spec.shape]]
    expression = pp.And([keyword, *parameters]) if parameters else keyword
    return expression.add_parse_action(_node(spec)).set_name(spec.text)


def _keyword_table(kind: ListKind, lists: _Lists) -> dict[str, pp.ParserElement]:
    return {name: _keyword(spec, kind, lists) for name, spec in KEYWORDS[kind].items()}


def _refused_keyword(kind: ListKind) -> pp.ParserElement:
    return _refused(_KEYWORD, lambda reading, token: reading.bad_keyword(token, kind))


def _not_flag(spec: KeywordSpec, lists: _Lists) -> pp.ParserElement:
    """The flag ``spec`` (``:not``), or Scidb's ``:not (position …)``: that list does not
    match here."""
    list_argument = _choice(
        "list argument",
        ("(", lists.position_list),
        (";", pp.OneOrMore(_COMMENT) + lists.position_list),
        optional=True,
    )

    def flag(source: str, loc: int, tokens: pp.ParseResults) -> Any:
        reading = _reading(source)
        span = reading.span(loc)
        inner = [each for each in tokens[1:] if isinstance(each, t.PositionList)]
        if not inner:
            return spec.build(span=span)
        reading.dialect_form("`:not (position …)`", loc)
        comments = [each for each in tokens[1:] if isinstance(each, t.Comment)]
        return [dialects.not_list(inner[0], span), *comments]

    return (_keyword_literal(spec) + list_argument).add_parse_action(flag)


# --------------------------------------------------------------------------------------
# Dialect keywords (X1): read as their standard equivalents (cqllegacy.legacy.dialects)
# --------------------------------------------------------------------------------------


def _noted(spec: KeywordSpec, element: pp.ParserElement) -> pp.ParserElement:
    def note(source: str, loc: int, tokens: pp.ParseResults) -> None:
        _reading(source).dialect_form(f"`{spec.text}`", loc)

    return element.add_parse_action(note)


def _macro_spec(name: str) -> KeywordSpec:
    make = dialects.POSITION_MACROS[name]

    def build(*, span: t.Span) -> t.PositionItem:
        return make(span)

    return KeywordSpec(name, t.Shape.NONE, build)


def _list_macro_spec(name: str) -> KeywordSpec:
    make = dialects.LIST_MACROS[name]

    def build(lists: tuple[t.PositionList, ...], *, span: t.Span) -> t.PositionItem:
        return attrs.evolve(make(lists), span=span)

    return KeywordSpec(name, t.Shape.LISTS, build)


def _range_macro_spec(name: str) -> KeywordSpec:
    make = dialects.RANGE_MACROS[name]

    def build(r: t.Range, *, span: t.Span) -> t.PositionItem:
        return dialects.placed(make(r), span)

    return KeywordSpec(name, t.Shape.RANGE, build)


def _refused_optional_designator(spec: KeywordSpec) -> pp.ParserElement:
    """Nothing, or a mistake where a piece designator follows ``spec``: Scidb reads it as
    the keyword's optional argument, whose meaning its help leaves open (X5), where
    standard CQL would read a designator of its own."""

    def refuse(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.optional_designator(spec, token)

    return _choice(
        "no designator",
        (_KEYWORD_START + "();" + _DIGITS + _COMPARISONS, pp.Empty()),
        ("", pp.Empty()),
        (None, _refused(_DESIGNATOR.copy().set_parse_action(), refuse)),
    )


def _refused_optional_range(spec: KeywordSpec) -> pp.ParserElement:
    """Nothing, or a mistake where a range follows ``spec``: Scidb's count of checks,
    which belongs to the three-check variant (X5)."""

    def refuse(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.optional_range(spec, token)

    return _choice(
        "no range",
        (_DIGITS + _COMPARISONS, _refused(_NEXT_TOKEN, refuse)),
        (None, pp.Empty()),
    )


def _check_list_count(spec: KeywordSpec) -> ParseAction:
    def check(source: str, loc: int, tokens: pp.ParseResults) -> None:
        lists = [each for each in tokens[1:] if isinstance(each, tuple)]
        count = len(lists[0]) if lists else 0
        if spec.name == "matchconsecutive" and count > dialects.MAX_CONSECUTIVE:
            raise _reading(source).too_many_consecutive(Token.at(tokens[0], loc), count)
        if count == 0:
            raise _reading(source).no_lists(Token.at(tokens[0], loc), spec)

    return check


_PAWNS = types_of("Pp")


def _pawns_only(source: str, loc: int, tokens: pp.ParseResults) -> None:
    """``:pawncount`` counts pawns: its designator names pawns alone (the help's rule)."""
    item = tokens[0]
    if not isinstance(item, t.PawnCount):
        return
    designator = item.designator
    if designator.tag is None and designator.types & ~_PAWNS == 0 and designator.types:
        return
    reading = _reading(source)
    span = designator.span
    offset = reading.source.line_starts[span.line - 1] + span.column - 1
    raise reading.error(
        "Scidb extension `:pawncount` counts pawns: its designator names pawns alone",
        offset,
        hint="write P, p or [Pp], with squares if need be (P[a-d?])",
    )


def _dialect_table(lists: _Lists) -> dict[str, pp.ParserElement]:
    """The dialect keywords of a position list: what each is read as."""
    table: dict[str, pp.ParserElement] = {}
    for name in dialects.POSITION_MACROS:
        spec = _macro_spec(name)
        element = _keyword(spec, ListKind.POSITION, lists)
        if name in dialects.OPTIONAL_DESIGNATOR:
            element = element + _refused_optional_designator(spec)
        if name in dialects.OPTIONAL_RANGE:
            element = element + _refused_optional_range(spec)
        table[name] = _noted(spec, element)
    for name in dialects.RANGE_MACROS:
        spec = _range_macro_spec(name)
        table[name] = _noted(spec, _keyword(spec, ListKind.POSITION, lists))
    for name, spec in DIALECT_POSITION_KEYWORDS.items():
        # Every dialect keyword's item; the check reads :pawncount's alone.
        element = _keyword(spec, ListKind.POSITION, lists).add_parse_action(_pawns_only)
        table[name] = _noted(spec, element)
    for name in dialects.LIST_MACROS:
        spec = _list_macro_spec(name)
        keyword = _keyword_literal(spec)
        parameter = _lists_parameter(spec, lists)
        element = (keyword + parameter).add_parse_action(_check_list_count(spec))
        element = element.add_parse_action(_node(spec)).set_name(spec.text)
        table[name] = _noted(spec, element)
    table["line"] = _line_keyword(lists)
    table["line*"] = _line_keyword(lists, star=True)
    return table


@attrs.frozen(repr=False)
class _MovesText(Record):
    text: str
    offset: int


def _moves_text(source: str, loc: int, tokens: pp.ParseResults) -> _MovesText:
    return _MovesText(tokens[0][1:-1], loc + 1)


#: The argument of Scidb's ``:line``: its move tokens up to the closing parenthesis.
_LINE_MOVES = _terminal(r"\([^();]*\)", "a parenthesised list of moves").add_parse_action(
    _moves_text
)


def _line_keyword(lists: _Lists, star: bool = False) -> pp.ParserElement:
    """Scidb's ``:line (M1 … | C1 …)`` (X3), read by :mod:`.line_moves`, and its
    ``:line* (M1 …)``, read by :mod:`.line_star`."""
    name = ":line*" if star else ":line"

    def build(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
        reading = _reading(source)
        (argument,) = [each for each in tokens[1:] if isinstance(each, _MovesText)]
        comments = [each for each in tokens[1:] if isinstance(each, t.Comment)]
        item: t.PositionItem
        numbered = False
        try:
            if star:
                item = line_star.read_star_moves(argument.text, argument.offset)
            else:
                moves = line_moves.read_moves(argument.text, argument.offset)
                item, numbered = line_moves.line_item(moves), moves.numbered
        except line_moves.MoveError as error:
            raise reading.error(error.message, error.offset, error.text, hint=error.hint) from None
        reading.dialect_form(f"`{name}`", loc)
        if numbered:
            reading.line_with_numbers.append(reading.span(loc))
        return [dialects.placed(item, reading.span(loc)), *comments]

    def unreadable(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.error_at(
            token,
            f"Scidb extension `{name}` needs its moves in parentheses, found {token.describe()}",
            expected="moves such as (Nxe5 bxQ Bxf7+), without nested parentheses or comments",
        )

    argument = _after_comments(_LINE_MOVES, _refused(_NEXT_TOKEN, unreadable))
    return (pp.Literal(name) + argument).add_parse_action(build).set_name(name)


_BANG = _terminal("!(?=:)", "'!'")


def _negations(keywords: Mapping[str, pp.ParserElement]) -> pp.ParserElement:
    """Scidb's ``!:keyword …``: that one keyword does not hold here."""
    negatable = {
        name: element for name, element in keywords.items() if name not in dialects.NOT_NEGATABLE
    }

    def refuse(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.not_negatable(token)

    keyword = _choice(
        "negated keyword",
        (":", _refused(_KEYWORD, refuse)),
        (None, _refused(_NEXT_TOKEN, refuse)),
        keywords=negatable,
    )

    def negate(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
        reading = _reading(source)
        item, *comments = tokens[1:]
        found = _KEYWORD_TEXT.match(source, loc + 1)
        name = found.group() if found else ""
        reading.dialect_form(f"`!{name}`", loc)
        return [dialects.negated(item, reading.span(loc)), *comments]

    return (_BANG + keyword).add_parse_action(negate)


def _match_negations(keywords: Mapping[str, pp.ParserElement]) -> pp.ParserElement:
    """Scidb's ``!:keyword …`` in the match list: the game fails that one condition."""
    negatable = {
        name: element
        for name, element in keywords.items()
        if name not in dialects.NOT_NEGATABLE_MATCH
    }

    def refuse(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.not_negatable(token)

    keyword = _choice(
        "negated keyword",
        (":", _refused(_KEYWORD, refuse)),
        (None, _refused(_NEXT_TOKEN, refuse)),
        keywords=negatable,
    )

    def negate(source: str, loc: int, tokens: pp.ParseResults) -> list[Any]:
        reading = _reading(source)
        item, *comments = tokens[1:]
        found = _KEYWORD_TEXT.match(source, loc + 1)
        reading.dialect_form(f"`!{found.group() if found else ''}`", loc)
        return [t.NegatedMatchItem(item, span=reading.span(loc)), *comments]

    return (_BANG + keyword).add_parse_action(negate)


def _only_at_top_level(spec: KeywordSpec) -> pp.ParserElement:
    def diagnose(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.only_at_top_level(spec, token)

    return _refused(_keyword_literal(spec), diagnose)


_MATCH_COUNTS = ("matchcount", "pretransformmatchcount")


# --------------------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------------------


def _head(word: str) -> pp.ParserElement:
    """The word after ``(`` (it leaves no token); comments before it are the list's first items."""
    head = _whole_atom(word, repr(word)).add_parse_action(_no_token)
    bad_head = _refused(_NEXT_TOKEN, lambda reading, token: reading.bad_head(token, word))
    return _after_comments(head, bad_head)


def _position_list_node(source: str, loc: int, tokens: pp.ParseResults) -> t.PositionList:
    return t.PositionList(tuple(tokens), span=_reading(source).span(loc))


def _position_list(keywords: Mapping[str, pp.ParserElement]) -> pp.ParserElement:
    list_inside = _PAREN + pp.FollowedBy(_COMMENTS + _POSITION_HEAD)
    items = _items(
        "position-list items",
        (";", _COMMENT),
        (None, _DESIGNATOR),
        ("!", _negations(keywords)),
        (_KEYWORD_START, _refused_keyword(ListKind.POSITION)),
        ("(", _refused(list_inside, Reading.position_list_inside_position_list)),
        ("(", _refused(_PAREN, Reading.list_in_position_list)),
        *_NOT_DESIGNATORS,
        keywords=keywords,
    )
    return (_OPEN + _head("position") + items + _closing("position list")).add_parse_action(
        _position_list_node
    )


def _relation_items(keywords: Mapping[str, pp.ParserElement]) -> pp.ParserElement:
    def stray(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.stray_atom(token, ListKind.RELATION)

    return _items(
        "relation items",
        (";", _COMMENT),
        (_KEYWORD_START, _refused_keyword(ListKind.RELATION)),
        ("(", _refused(_PAREN, Reading.list_in_relation)),
        (None, _refused(_PLAIN_ATOM, stray)),
        keywords=keywords,
    )


def _match_list_node(source: str, loc: int, tokens: pp.ParseResults) -> t.MatchList:
    reading = _reading(source)
    match = t.MatchList(tuple(tokens), span=reading.span(loc))
    if not match.position_lists():
        raise reading.no_position_list(loc)
    reading.match_list = match.span
    return match


def _bare_position_list(source: str, loc: int, tokens: pp.ParseResults) -> t.MatchList:
    reading = _reading(source)
    (position_list,) = tokens
    reading.dialect_form(dialects.BARE_POSITION_LIST, loc)
    match = t.MatchList((position_list,), span=position_list.span)
    reading.match_list = match.span
    return match


def _match_list(
    keywords: Mapping[str, pp.ParserElement], position_list: pp.ParserElement
) -> pp.ParserElement:
    def stray(reading: Reading, token: Token) -> LegacySyntaxError:
        return reading.stray_atom(token, ListKind.MATCH)

    items = _items(
        "match-list items",
        ("(", position_list),
        (";", _COMMENT),
        ("!", _match_negations(keywords)),
        (_KEYWORD_START, _refused_keyword(ListKind.MATCH)),
        (None, _refused(_PLAIN_ATOM, stray)),
        keywords=keywords,
    )
    return (_OPEN + _head("match") + items + _closing("match list")).add_parse_action(
        _match_list_node
    )


# --------------------------------------------------------------------------------------
# The script
# --------------------------------------------------------------------------------------


def _whole_item(source: str, loc: int, value: str) -> Token:
    """A match-list item whose value is wrong, keyword and value together: ``check``
    mends the mistake by blanking the whole item, so no keyword is left without its value
    to make a second, false mistake."""
    start = loc
    while source[start].isspace():
        start += 1
    words = value.split()
    end = start
    for word in words:  # the value's words, each after the last (a date range has several)
        found = source.find(word, end)
        end = found + len(word) if found >= 0 else end
    return Token.at(source[start:end], start)


def _valid_eco_codes(source: str, loc: int, tokens: pp.ParseResults) -> None:
    """Scidb's ``:eco`` takes ECO codes and ranges (``A00``, ``B00-99``), ``*`` or ``-``."""
    item = tokens[0]
    assert isinstance(item, t.EcoCodes)
    if item.codes in dialects.NO_VALUE or dialects.eco_ranges(item.codes) is not None:
        return
    raise _reading(source).error_at(
        _whole_item(source, loc, item.codes),
        f"`:eco {item.codes}`: not a list of ECO codes",
        expected="codes and ranges separated by commas, as in A00,B00-99, or * or -",
    )


def _valid_terminations(source: str, loc: int, tokens: pp.ParseResults) -> None:
    """Scidb's ``:termination`` takes ways a game ends, separated by commas."""
    item = tokens[0]
    assert isinstance(item, t.Terminations)
    values = dialects.termination_values(item.words)
    if isinstance(values, str):
        raise _reading(source).error_at(_whole_item(source, loc, item.words), values)


def _no_word_but_languages(source: str, loc: int, tokens: pp.ParseResults) -> None:
    """Only ``:hascomments`` takes a word (languages, refused); the others take none."""
    item = tokens[0]
    assert isinstance(item, t.GameFeature)
    if item.languages is not None:
        refusal = dialects.COMMENT_LANGUAGES_REFUSAL
        if item.keyword is not t.GameFeatureKeyword.HASCOMMENTS:
            refusal = f"`:{item.keyword.value}` takes no word"
        raise _reading(source).error_at(_whole_item(source, loc, item.languages), refusal)


def _valid_dates(source: str, loc: int, tokens: pp.ParseResults) -> None:
    """Scidb's ``:date`` names existing days and a range that is not empty."""
    item = tokens[0]
    assert isinstance(item, t.DateRange)
    if item.text == "*" or item.text in dialects.NO_VALUE:
        return
    bounds = dialects.date_range(item.text)
    if isinstance(bounds, str):
        raise _reading(source).error_at(_whole_item(source, loc, item.text), f"`:date`: {bounds}")


def _script_node(source: str, loc: int, tokens: pp.ParseResults) -> t.Script:
    reading = _reading(source)
    reading.check_tags()
    (where,) = [index for index, token in enumerate(tokens) if isinstance(token, t.MatchList)]
    check_script(reading, tokens[where])
    return t.Script(
        tokens[where],
        tuple(tokens[:where]),
        tuple(tokens[where + 1 :]),
        path=reading.path,
        dialect_forms=tuple(reading.dialect),
    )


def _script() -> pp.ParserElement:
    nested_list = pp.Forward()
    nested_list.set_name("position list")
    relation_items = pp.Forward()
    relation_items.set_name("relation items")
    lists = _Lists(nested_list, relation_items)
    relation_items <<= _relation_items(_keyword_table(ListKind.RELATION, lists))
    top_level = _keyword_table(ListKind.POSITION, lists)
    top_level["not"] = _not_flag(KEYWORDS[ListKind.POSITION]["not"], lists)
    top_level.update(_dialect_table(lists))
    # A position list inside another (in :and, :sequence …) refuses the match counts.
    nested = dict(top_level)
    for name in _MATCH_COUNTS:
        nested[name] = _only_at_top_level(KEYWORDS[ListKind.POSITION][name])
    nested_list <<= _position_list(nested)
    match_keywords = _keyword_table(ListKind.MATCH, lists)
    for name, spec in DIALECT_MATCH_KEYWORDS.items():
        match_keywords[name] = _noted(spec, _keyword(spec, ListKind.MATCH, lists))
    match_keywords["eco"].add_parse_action(_valid_eco_codes)
    match_keywords["termination"].add_parse_action(_valid_terminations)
    match_keywords["date"].add_parse_action(_valid_dates)
    for feature in t.GameFeatureKeyword:
        match_keywords[feature.value].add_parse_action(_no_word_but_languages)
    match_list = _match_list(match_keywords, _position_list(top_level))
    second_match_list = _PAREN + pp.FollowedBy(_COMMENTS + _MATCH_HEAD)
    after_match_list = pp.MatchFirst(
        [
            _END,
            _refused(second_match_list, Reading.second_match_list),
            _refused(_NEXT_TOKEN, Reading.after_match_list),
        ]
    )
    # Chess Assistant's bare (position …) as the whole script: (match (position …)).
    bare_list = (
        pp.FollowedBy(_PAREN + _COMMENTS + _POSITION_HEAD) + _position_list(top_level)
    ).add_parse_action(_bare_position_list)
    script = (
        _COMMENTS
        + (bare_list | match_list | _refused(_NEXT_TOKEN, Reading.no_match_list))
        + _COMMENTS
        + after_match_list
    ).add_parse_action(_script_node)
    return _finished(script)


def _finished(grammar: pp.ParserElement) -> pp.ParserElement:
    """Every element skips the legacy white space (and only that) and sees tabs as they are."""
    seen: set[int] = set()
    waiting = [grammar]
    while waiting:
        element = waiting.pop()
        if id(element) not in seen:
            seen.add(id(element))
            element.set_whitespace_chars(_WHITESPACE, copy_defaults=False)
            waiting.extend(element.recurse())
    return grammar.parse_with_tabs().streamline()


_SCRIPT = _script()


def read_script(text: str, path: str | None = None) -> t.Script:
    """Parse a legacy script; raise :class:`LegacySyntaxError` at the first mistake.

    ``path`` names the file in messages and becomes ``Script.path``.
    """
    text = text.removeprefix("\ufeff")
    refuse_too_many_words(text, path, _COMMENT_PATTERN, LegacySyntaxError)
    source = _Source(text)
    source.reading = reading = Reading.of(text, path)
    try:
        script: t.Script = _SCRIPT.parse_string(source)[0]
    except RecursionError:
        innermost = reading.open_lists[-1].offset if reading.open_lists else 0
        raise reading.out_of_stack(innermost) from None
    except pp.ParseBaseException as exc:
        raise reading.unreadable(exc.loc) from None
    return script
