"""CQL 6.1 text → core :class:`~cqllegacy.core.tree.Query` (pyparsing).

The reader accepts the subset of CQL 6.1 (semantics: S-modern-syntax) that
:mod:`cqllegacy.modern.printer` writes, in whatever layout a person writes it, with the
CQL 6.1 precedence table:
``or`` < ``and`` < ``not`` < ``in`` < relations (right-associative chains) < ``#`` <
``+ -`` < ``power`` < ``|`` < ``&`` < ``~`` < ``attacks``/``attackedby`` < ``move``
parameters < directions.  Unary minus takes a ``|``-level argument, as chessql does
(the 6.1 table puts it below ``#``; the printer always parenthesises around it).
Prefix forms (transforms, ``find``, ``not``, ``#``, ``-``, ``power``, ``~``,
directions, ``line``, ``piece``) may stand wherever an operand may and take as their
argument everything that binds tighter than themselves, so ``4 == flip count [Rr]a1``
reads as ``4 == (flip count [Rr]a1)``.

Comparisons with an integer literal on the right, ``X == n``, ``X >= n``, ``X <= n``,
and the chain ``a <= X <= b`` read as :class:`~cqllegacy.core.tree.InRange`; every other
comparison is a :class:`~cqllegacy.core.tree.Compare` (a parenthesised number is not a
literal: ``X == (5)`` is a ``Compare``).  A ``//`` comment that stands where a filter
of a ``{ }`` or of the body could start becomes a :class:`~cqllegacy.core.tree.Comment`
there, trailing when code (a filter, the ``{`` or the header) stands before it on its
line; other comments are white space.  ``// cqllegacy: …`` pragmas are explained in
:mod:`cqllegacy.modern.printer`.

>>> query = read_query("cql(input in.pgn)\\nflipcolor flip shift {Nd4 kf3}\\n")
>>> query.header.inputs, type(query.lists[0].body).__name__
(('in.pgn',), 'Transform')
>>> read_query("cql() 2 < P <= 5").lists[0].body
Compare(op=<CompareOp.LT: '<'>, left=Number(value=2), right=InRange(value=PieceSet(types=1, \
squares=18446744073709551615), lo=None, hi=5))
"""

from __future__ import annotations

import contextvars
import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from typing import NoReturn, TypeGuard, TypeVar

import attrs
import pyparsing as pp

from cqllegacy.core import tree as ct
from cqllegacy.modern.errors import ModernSyntaxError
from cqllegacy.modern.kinds import Kind, kind_of, misplaced
from cqllegacy.modern.vocabulary import (
    AND,
    ARITH,
    ATTACK,
    BLACK_PAWN,
    BLOCK_COMMENT_PATTERN,
    COLON,
    COMPLEMENT,
    COUNT,
    DESIGNATOR_PATTERN,
    DIRECTION_WORDS,
    FILE_NAME_PATTERN,
    IN,
    INTERSECTION,
    LINE_COMMENT_PATTERN,
    MOVE,
    NAME_PATTERN,
    NOT,
    NUMERIC_WORDS,
    OR,
    POWER,
    PRAGMA_LISTS,
    PRAGMA_MARK,
    PRAGMA_PREFIX,
    PROMOTABLE,
    RANGE_OPS,
    RELATION,
    REPETITION_PATTERN,
    REPETITIONS,
    RESERVED_WORDS,
    RESULT_PATTERN,
    SIMPLE_WORDS,
    SQUARES_PATTERN,
    STRING_PATTERN,
    SUPPORTED_WORDS,
    TRANSFORM_WORDS,
    TYPE_PATTERN,
    UNION,
    UNSUPPORTED_WORDS,
    WHITE_PAWN,
    is_pragma_text,
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
# Values that exist only while parsing
# --------------------------------------------------------------------------------------


@attrs.frozen
class _Paren:
    """A parenthesised filter: never part of a relation chain, never a literal."""

    node: ct.Filter


@attrs.frozen
class _Marker:
    """A piece of text that is not a filter by itself (a string, a tag value)."""

    loc: int

    def what(self) -> str:
        raise NotImplementedError


@attrs.frozen
class _String(_Marker):
    text: str

    def what(self) -> str:
        return "a string can only stand before `in player`, `in event` or `in site`"


@attrs.frozen
class _TagValue(_Marker):
    """``player [white|black]``, ``event``, ``site`` without a string (a string value)."""

    tag: str
    color: ct.Color | None = None
    lowercase: bool = False

    def what(self) -> str:
        return f'`{self.tag}` without a string can only follow `"text" in`'


class _Fatal(pp.ParseFatalException):
    """A definite mistake found by a parse action; parsing stops here."""


def _fail(s: str, loc: int, message: str) -> NoReturn:
    raise _Fatal(s, loc, message)


def _filter(s: str, value: object) -> ct.Filter:
    """A value used as a filter operand: parentheses dropped, markers refused."""
    if isinstance(value, _Paren):
        return value.node
    if isinstance(value, _Marker):
        _fail(s, value.loc, value.what())
    assert isinstance(value, ct.Filter), value
    return value


_T = TypeVar("_T")


def _all(kind: type[_T], values: Iterable[object]) -> list[_T]:
    """Token values the grammar only reads as ``kind``, typed as such."""
    items = list(values)
    typed = [value for value in items if isinstance(value, kind)]
    assert len(typed) == len(items), items
    return typed


def _optional(kind: type[_T], value: object) -> _T | None:
    """A token value the grammar only reads as ``kind``, or None."""
    assert value is None or isinstance(value, kind), value
    return value


# --------------------------------------------------------------------------------------
# Tokens (leaves) record where they failed; comments are set up by _ignore_comments
# --------------------------------------------------------------------------------------


@attrs.define
class _Failures:
    """The furthest place any token failed, and what would have been accepted there."""

    loc: int = -1
    expected: set[str] = attrs.Factory(set)

    def note(self, loc: int, name: str) -> None:
        if loc > self.loc:
            self.loc, self.expected = loc, {name}
        elif loc == self.loc:
            self.expected.add(name)


@attrs.define
class _ParseState:
    """What one call of :func:`read_query` collects while pyparsing runs."""

    failures: _Failures = attrs.Factory(_Failures)
    #: Names declared by some ``piece NAME in`` (scopes are checked afterwards).
    declared: frozenset[str] = frozenset()
    #: Names declared by some ``echo (S T)``.
    positions: frozenset[str] = frozenset()
    #: Where each filter node was read, by ``id`` (the last node made with an id wins).
    places: dict[int, int] = attrs.Factory(dict)
    #: Where each pragma comment was read, by ``id``.
    pragma_places: dict[int, int] = attrs.Factory(dict)


_STATE: contextvars.ContextVar[_ParseState] = contextvars.ContextVar("_STATE")

_LINE_COMMENT = pp.Regex(LINE_COMMENT_PATTERN)
_BLOCK_COMMENT = pp.Regex(BLOCK_COMMENT_PATTERN)


def _note_failure(s: str, loc: int, expr: pp.ParserElement, err: Exception) -> None:
    state = _STATE.get(None)
    if state is not None:
        state.failures.note(loc, expr.customName or str(expr))


def _leaf(expr: pp.ParserElement, name: str) -> pp.ParserElement:
    expr = expr.set_name(name)
    expr.set_fail_action(_note_failure)
    return expr


class _Many(pp.ParseElementEnhance):
    """``ZeroOrMore`` that leaves white space and comments alone when nothing matches.

    pyparsing's own skips them before trying, which would swallow a ``//`` comment
    that belongs to the next constituent.
    """

    def __init__(self, expr: pp.ParserElement) -> None:
        super().__init__(expr)
        self.mayReturnEmpty = True
        self.skipWhitespace = False

    def parseImpl(
        self, instring: str, loc: int, do_actions: bool = True
    ) -> tuple[int, pp.ParseResults]:
        assert self.expr is not None
        tokens = pp.ParseResults([])
        while True:
            try:
                end, more = self.expr._parse(instring, loc, do_actions)
            except (pp.ParseException, IndexError):
                return loc, tokens
            if end == loc:
                return loc, tokens
            loc, tokens = end, tokens + more


class _Maybe(pp.ParseElementEnhance):
    """``Optional`` that leaves white space and comments alone when nothing matches."""

    def __init__(self, expr: pp.ParserElement) -> None:
        super().__init__(expr)
        self.mayReturnEmpty = True
        self.skipWhitespace = False

    def parseImpl(
        self, instring: str, loc: int, do_actions: bool = True
    ) -> tuple[int, pp.ParseResults]:
        assert self.expr is not None
        try:
            return self.expr._parse(instring, loc, do_actions)
        except (pp.ParseException, IndexError):
            return loc, pp.ParseResults([])


def _ignore_comments(top: pp.ParserElement, item_places: list[pp.ParserElement]) -> None:
    """Comments are white space everywhere except where a constituent may start.

    At those places (``item_places``: the constituent lists and the comment token)
    only ``/* */`` is skipped, so a ``//`` comment there is read as a constituent.
    ``ParserElement.ignore`` would reach into the children; this sets each element.
    """
    protected = {id(element) for element in item_places}
    seen: set[int] = set()
    stack = [top]
    while stack:
        element = stack.pop()
        if id(element) in seen:
            continue
        seen.add(id(element))
        if id(element) in protected:
            element.ignoreExprs.append(pp.Suppress(_BLOCK_COMMENT))
        elif not isinstance(element, _Many | _Maybe):
            element.ignoreExprs += [pp.Suppress(_BLOCK_COMMENT), pp.Suppress(_LINE_COMMENT)]
        stack.extend(element.recurse())


def _kw(word: str) -> pp.ParserElement:
    return _leaf(pp.Keyword(word), f"'{word}'")


def _sym(text: str, pattern: str | None = None) -> pp.ParserElement:
    expr = pp.Regex(pattern) if pattern else pp.Literal(text)
    return _leaf(expr, f"'{text}'")


def _suppressed(expr: pp.ParserElement) -> pp.ParserElement:
    return pp.Suppress(expr)


LPAR, RPAR = _suppressed(_sym("(")), _suppressed(_sym(")"))
LBRACE, RBRACE = _suppressed(_sym("{")), _suppressed(_sym("}"))
ARROW = _suppressed(_sym("-->"))
INT = _leaf(pp.Regex(r"\d+"), "a number").set_parse_action(lambda t: int(t[0]))
NEG_INT = _leaf(pp.Regex(r"-\d+"), "a number").set_parse_action(lambda t: int(t[0]))
STRING_TOKEN = _leaf(pp.Regex(STRING_PATTERN), "a string")
DESIGNATOR = _leaf(pp.Regex(DESIGNATOR_PATTERN), "a piece designator")
PROMOTE_TYPES = _leaf(pp.Regex(TYPE_PATTERN + r"(?![\w$\[])"), "piece types")
NAME = _leaf(pp.Regex(NAME_PATTERN), "a name")
COMMENT_ITEM = _leaf(pp.Regex(LINE_COMMENT_PATTERN), "a comment")
RESULT_VALUE = _leaf(pp.Regex(RESULT_PATTERN), "1-0, 0-1 or 1/2-1/2")
FILE_NAME = _leaf(pp.Regex(FILE_NAME_PATTERN), "a file name")
RELOP = _leaf(pp.Regex(r"<=|>=|==|!=|<(?![-=])|>(?!=)"), "a comparison")
PLUS = _sym("+")
MINUS = _sym("-", r"-(?!->)")
COLORS = {"white": ct.Color.WHITE, "black": ct.Color.BLACK}
COLOR = _kw("white") | _kw("black")

# --------------------------------------------------------------------------------------
# Parse actions
# --------------------------------------------------------------------------------------

_Action = Callable[[str, int, pp.ParseResults], object]


_DESIGNATOR_PARTS = re.compile(rf"(?P<types>{TYPE_PATTERN})?(?P<squares>{SQUARES_PATTERN})?")


def _designator(s: str, loc: int, t: pp.ParseResults) -> ct.PieceSet:
    parts = _DESIGNATOR_PARTS.fullmatch(t[0])
    assert parts is not None  # the token pattern guarantees the shape
    letters, squares = parts.group("types"), parts.group("squares")
    types = _types(letters) if letters else ANYTHING
    return ct.PieceSet(types, parse_squares(squares, False) if squares else FULL)


def _types(letters: str) -> TypeSet:
    out = 0
    for ch in letters.strip("[]"):
        out |= MODERN_LETTERS[ch]
    return out


def _fold_left(make: Callable[[str, ct.Filter, ct.Filter], ct.Filter]) -> _Action:
    """``a op b op c`` → ``(a op b) op c``; tokens alternate operand, word, operand."""

    def action(s: str, loc: int, t: pp.ParseResults) -> object:
        if len(t) == 1:
            return t[0]
        out = _filter(s, t[0])
        for i in range(1, len(t), 2):
            out = make(t[i], out, _filter(s, t[i + 1]))
        return out

    return action


def _flat(cls: Callable[[tuple[ct.Filter, ...]], ct.Filter]) -> _Action:
    """``a | b | c`` → one n-ary node; a parenthesised operand stays one item."""

    def action(s: str, loc: int, t: pp.ParseResults) -> object:
        if len(t) == 1:
            return t[0]
        return cls(tuple(_filter(s, item) for item in t))

    return action


_COMPARE_OPS = {op.value: op for op in ct.CompareOp}


def _relation(s: str, left: object, op: str, right: object, chained: bool) -> ct.Filter:
    """One link of a right-associative comparison chain."""
    value = _filter(s, left)
    if chained:
        inner = _filter(s, right)
        if (
            op == "<="
            and type(left) is ct.Number
            and isinstance(inner, ct.InRange)
            and inner.lo is None
            and inner.hi is not None
        ):
            return ct.InRange(inner.value, left.value, inner.hi)
        return ct.Compare(_COMPARE_OPS[op], value, inner)
    bound = _filter(s, right)
    if type(right) is ct.Number and _COMPARE_OPS[op] in RANGE_OPS:
        lo = None if op == "<=" else right.value
        hi = None if op == ">=" else right.value
        return ct.InRange(value, lo, hi)
    return ct.Compare(_COMPARE_OPS[op], value, bound)


def _relations(s: str, loc: int, t: pp.ParseResults) -> object:
    if len(t) == 1:
        return t[0]
    operands, ops = list(t[0::2]), list(t[1::2])
    out = _relation(s, operands[-2], ops[-1], operands[-1], chained=False)
    for i in range(len(ops) - 2, -1, -1):
        out = _relation(s, operands[i], ops[i], out, chained=True)
    return out


def _in(s: str, loc: int, t: pp.ParseResults) -> object:
    if len(t) == 1:
        return t[0]
    text, tag = t[0], t[1]
    if not isinstance(text, _Marker) and not isinstance(tag, _Marker):
        # Two filters: square-set inclusion (their kinds are checked with the tree's).
        return ct.InSet(_filter(s, text), _filter(s, tag))
    if not isinstance(text, _String) or not isinstance(tag, _TagValue):
        _fail(s, loc, 'cqllegacy reads `in` with a string only as `"text" in player|event|site`')
    if tag.tag == "player":
        if tag.lowercase and (text.text != text.text.lower() or not text.text.isascii()):
            _fail(s, text.loc, "a string compared with `lowercase` must be lowercase ASCII")
        return ct.Player(text.text, tag.color, tag.lowercase)
    if tag.lowercase:
        _fail(s, tag.loc, f"cqllegacy does not read `lowercase {tag.tag}`")
    return ct.TagContains(ct.TagName(tag.tag), text.text)


def _paren(s: str, loc: int, t: pp.ParseResults) -> _Paren:
    return _Paren(_filter(s, t[0]))


def _items(s: str, t: pp.ParseResults) -> tuple[ct.Filter, ...]:
    return tuple(_filter(s, item) for item in t)


def _compound(s: str, loc: int, t: pp.ParseResults) -> ct.Compound:
    items = _items(s, t)
    if all(isinstance(item, ct.Comment) for item in items):
        _fail(s, loc, "a { } needs at least one filter")
    return ct.Compound(items)


def _comment(s: str, loc: int, t: pp.ParseResults) -> ct.Comment:
    """A ``//`` comment; a pragma is one too, found by :func:`_is_pragma` and placed
    (or refused) once the whole script is read."""
    node = ct.Comment(t[0][2:].rstrip("\r"), trailing=_after_code(s, loc))
    if _is_pragma(node):
        _STATE.get().pragma_places[id(node)] = loc
    return node


def _after_code(s: str, loc: int) -> bool:
    """Does something other than white space or ``/* */`` precede ``loc`` on its line?

    A ``//`` comment there trails the filter before it (or the ``{`` or header).
    """
    line = s[s.rfind("\n", 0, loc) + 1 : loc]
    return bool(_BLOCK_COMMENTS.sub("", line).strip())


_BLOCK_COMMENTS = re.compile(BLOCK_COMMENT_PATTERN)


def _is_pragma(node: ct.Filter | None) -> TypeGuard[ct.Comment]:
    return isinstance(node, ct.Comment) and is_pragma_text(node.text)


def _pragma_place(node: ct.Filter) -> int:
    return _STATE.get().pragma_places.get(id(node), 0)


def _transform(s: str, loc: int, t: pp.ParseResults) -> ct.Transform:
    kind = ct.TransformKind(t[0])
    count = len(t) == 3
    return ct.Transform(kind, _filter(s, t[-1]), count=count)


def _find(s: str, loc: int, t: pp.ParseResults) -> ct.Find:
    return ct.Find(_filter(s, t[-1]), all=len(t) == 3)


def _direction(s: str, loc: int, t: pp.ParseResults) -> ct.DirectionSet:
    direction = Direction.from_word(t[0])
    steps = [int(x) for x in t[1:-1]]
    lo, hi = (1, 7) if not steps else (steps[0], steps[-1])
    return ct.DirectionSet(direction, _filter(s, t[-1]), lo, hi)


def _ray(s: str, loc: int, t: pp.ParseResults) -> ct.Ray:
    words = [x for x in t if isinstance(x, str)]
    args = tuple(_filter(s, x) for x in t if not isinstance(x, str))
    if len(args) < 2:
        _fail(s, loc, "ray needs at least two square sets in its ( )")
    if not words:
        return ct.Ray(args)
    vectors = frozenset(v for word in words for v in Direction.from_word(word).vectors)
    try:
        return ct.Ray(args, Direction.from_vectors(vectors))
    except KeyError:
        _fail(s, loc, f"cqllegacy has no single direction for {' '.join(words)}")


def _xray(s: str, loc: int, t: pp.ParseResults) -> ct.XRay:
    args = tuple(_filter(s, x) for x in t)
    if len(args) < 2:
        _fail(s, loc, "xray needs at least two square sets in its ( )")
    return ct.XRay(args)


def _pawn_side(from_: ct.Filter | None) -> tuple[ct.Filter | None, TypeSet | None]:
    """Split a ``from`` that names the promoting pawn's colour (see the printer)."""
    pawns = {ct.PieceSet(WHITE_PAWN): WHITE_PIECES, ct.PieceSet(BLACK_PAWN): BLACK_PIECES}
    if from_ in pawns:
        return None, pawns[from_]
    if isinstance(from_, ct.Intersection) and from_.items[-1] in pawns:
        rest = from_.items[:-1]
        return (rest[0] if len(rest) == 1 else ct.Intersection(rest)), pawns[from_.items[-1]]
    return from_, None


def _move(s: str, loc: int, t: Sequence[tuple[str, object, int]]) -> ct.Move:
    params: dict[str, object] = {}
    for name, value, where in t:
        if name in params:
            _fail(s, where, f"move has two {name} parameters")
        params[name] = value
    from_ = _optional(ct.Filter, params.get("from"))
    promote = _optional(int, params.get("promote"))
    if promote is not None:
        folded = (promote & WHITE_PIECES) | color_swap(promote & BLACK_PIECES)
        white = folded & PROMOTABLE & WHITE_PIECES
        if not white:
            _fail(s, loc, "promote needs Q, R, B or N")
        from_, side = _pawn_side(from_)
        if side == WHITE_PIECES:
            promote = white
        elif side == BLACK_PIECES:
            promote = color_swap(white)
        else:
            promote = white | color_swap(white)
    return ct.Move(
        from_=from_,
        to=_optional(ct.Filter, params.get("to")),
        capture=_optional(ct.Filter, params.get("capture")),
        promote=promote,
        enpassant="enpassant" in params,
        previous="previous" in params,
    )


def _move_param(name: str) -> _Action:
    def action(s: str, loc: int, t: pp.ParseResults) -> list[tuple[str, object, int]]:
        value = _filter(s, t[1]) if len(t) > 1 else True
        return [(name, value, loc)]

    return action


def _player(s: str, loc: int, t: pp.ParseResults) -> ct.Player | _TagValue:
    color = COLORS.get(t[1]) if len(t) > 1 and t[1] in COLORS else None
    if isinstance(t[-1], _String):
        return ct.Player(t[-1].text, color)
    return _TagValue(loc, "player", color)


def _tag(s: str, loc: int, t: pp.ParseResults) -> ct.TagContains | _TagValue:
    if len(t) == 2:
        return ct.TagContains(ct.TagName(t[0]), t[1].text)
    return _TagValue(loc, t[0])


def _lowercase(s: str, loc: int, t: pp.ParseResults) -> _TagValue:
    value = t[0]
    if not isinstance(value, _TagValue) or value.lowercase:
        _fail(s, loc, 'cqllegacy reads `lowercase` only as `"text" in lowercase player`')
    return attrs.evolve(value, lowercase=True)


def _quantifier(s: str, loc: int, t: pp.ParseResults) -> tuple[int, int | None]:
    text = re.sub(r"\s", "", t[0])
    shorthand = text[1:-1] if text in ("{*}", "{+}") else text
    if shorthand in REPETITIONS:
        return REPETITIONS[shorthand]
    lo_text, comma, hi_text = text.strip("{}").partition(",")
    lo = int(lo_text) if lo_text else 0
    hi = (int(hi_text) if hi_text else None) if comma else lo
    return lo, hi


def _step(s: str, loc: int, t: pp.ParseResults) -> list[ct.LineStep]:
    lo, hi = t[1] if len(t) > 1 else (1, 1)
    node = _filter(s, t[0])
    if isinstance(node, ct.LineGroup) and (lo, hi) == (1, 1):
        # An unrepeated group is its constituents written in place.
        return list(node.steps)
    return [ct.LineStep(node, lo, hi)]


def _variable_name(s: str, loc: int, name: str) -> None:
    if not is_variable_name(name):
        why = "a CQL word" if name in RESERVED_WORDS else "a piece designator"
        _fail(s, loc, f"{name!r} cannot name a variable: it is {why}")


def _piece_loop(s: str, loc: int, t: pp.ParseResults) -> ct.PieceLoop:
    every = t[0] == "all"
    name, domain, body = t[1:] if every else t[:]
    _variable_name(s, loc, name)
    return ct.PieceLoop(name, _filter(s, domain), _filter(s, body), all=every)


def _echo(s: str, loc: int, t: pp.ParseResults) -> ct.Echo:
    words = list(t[:-1])
    quiet = words[:1] == ["quiet"]
    if quiet:
        words = words[1:]
    source, target = words[0], words[1]
    _variable_name(s, loc, source)
    _variable_name(s, loc, target)
    if source == target:
        _fail(s, loc, "echo needs two different names for its source and target")
    return ct.Echo(source, target, _filter(s, t[-1]), in_all=len(words) > 2, quiet=quiet)


def _is_position(value: object) -> bool:
    node = value.node if isinstance(value, _Paren) else value
    return isinstance(node, ct.Filter) and kind_of(node) is Kind.POSITION


def _intersection(s: str, loc: int, t: pp.ParseResults) -> object:
    """``a & b & c`` → one n-ary node; ``S & T`` of two positions is their positional
    intersection (semantics: S-echo), which may head a longer chain of sets."""
    if len(t) == 1:
        return t[0]
    items = list(t)
    if _is_position(items[0]) and _is_position(items[1]):
        first = ct.PositionIntersection(_filter(s, items[0]), _filter(s, items[1]))
        _STATE.get().places[id(first)] = loc
        rest = items[2:]
        if not rest:
            return first
        return ct.Intersection((first, *(_filter(s, item) for item in rest)))
    return ct.Intersection(tuple(_filter(s, item) for item in items))


def _colon(s: str, loc: int, t: pp.ParseResults) -> object:
    """``X : F`` (right-associative, the tightest operator)."""
    if len(t) == 1:
        return t[0]
    out = _filter(s, t[-1])
    for item in reversed(t[:-1]):
        out = ct.AtPosition(_filter(s, item), out)
    return out


def _group(s: str, loc: int, t: pp.ParseResults) -> object:
    """``( C1 --> C2 … )`` in a line: a group of constituents (one level deep)."""
    steps = _all(ct.LineStep, t)
    if any(isinstance(step.filter, ct.LineGroup) for step in steps):
        _fail(s, loc, "cqllegacy reads groups of line constituents one level deep")
    if len(steps) == 1 and (steps[0].lo, steps[0].hi) == (1, 1):
        return steps[0].filter
    return ct.LineGroup(tuple(steps))


_NAME_TEXT = r"[A-Za-z_$][\w$]*"
_PIECE_DECLARATION = re.compile(rf"\bpiece\s+(?:all\s+)?({_NAME_TEXT})\s+in\b")
_ECHO_DECLARATION = re.compile(rf"\becho\s+(?:quiet\s+)?\(\s*({_NAME_TEXT})\s+({_NAME_TEXT})\s*\)")


def _declared_pieces(text: str) -> frozenset[str]:
    return frozenset(_PIECE_DECLARATION.findall(text))


def _declared_positions(text: str) -> frozenset[str]:
    return frozenset(name for pair in _ECHO_DECLARATION.findall(text) for name in pair)


def _variable(s: str, loc: int, t: pp.ParseResults) -> ct.PieceVariable | ct.PositionVariable:
    state = _STATE.get()
    name = t[0]
    if name in state.declared and name in state.positions:
        _fail(s, loc, f"{name!r} names both a piece variable and an echo position")
    node: ct.PieceVariable | ct.PositionVariable
    if name in state.declared:
        node = ct.PieceVariable(name)
    elif name in state.positions:
        node = ct.PositionVariable(name)
    else:
        raise pp.ParseException(s, loc, f"unknown word {name!r}")
    state.places[id(node)] = loc
    return node


# --------------------------------------------------------------------------------------
# The grammar
# --------------------------------------------------------------------------------------


def _alternatives(words: list[str]) -> pp.ParserElement:
    return pp.MatchFirst([_kw(word) for word in sorted(words, key=len, reverse=True)])


def _attack(word: str, left: ct.Filter, right: ct.Filter) -> ct.Filter:
    return ct.Attacks(left, right) if word == "attacks" else ct.AttackedBy(left, right)


def _arith(word: str, left: ct.Filter, right: ct.Filter) -> ct.Filter:
    return ct.Arith(ct.ArithOp(word), left, right)


def _operators(primary: pp.ParserElement) -> dict[int, pp.ParserElement]:
    """The binary operators, one expression per precedence level of the vocabulary.

    Each level's operands are the expressions of the next tighter level (the tightest
    level's are ``primary``), so the levels' order is the vocabulary's.
    """
    infix: dict[int, tuple[pp.ParserElement, type[_Many | _Maybe], _Action]] = {
        ATTACK: (_kw("attacks") | _kw("attackedby"), _Many, _fold_left(_attack)),
        COLON: (_suppressed(_sym(":")), _Many, _colon),
        INTERSECTION: (_suppressed(_sym("&", r"&(?!&)")), _Many, _intersection),
        UNION: (_suppressed(_sym("|", r"\|(?!\|)")), _Many, _flat(ct.Union)),
        ARITH: (PLUS | MINUS, _Many, _fold_left(_arith)),
        RELATION: (RELOP, _Many, _relations),
        IN: (_suppressed(_kw("in")), _Maybe, _in),
        AND: (_suppressed(_kw("and")), _Many, _flat(ct.And)),
        OR: (_suppressed(_kw("or")), _Many, _flat(ct.Or)),
    }
    levels: dict[int, pp.ParserElement] = {}
    operand = primary
    for level in sorted(infix, reverse=True):
        word, repeat, action = infix[level]
        operand = levels[level] = (operand + repeat(word + operand)).set_parse_action(action)
        operand.add_parse_action(_record_place)
    return levels


def _record_place(s: str, loc: int, t: pp.ParseResults) -> None:
    """Remember where a filter was read, for the messages of the checks on the whole tree."""
    if len(t) == 1 and isinstance(t[0], ct.Filter):
        _STATE.get().places[id(t[0])] = loc


def _place(node: ct.Filter) -> int:
    return _STATE.get().places.get(id(node), 0)


def _build() -> tuple[pp.ParserElement, pp.ParserElement]:
    filter_, primary = pp.Forward(), pp.Forward()
    filter_.set_name("a filter")
    primary.set_name("a filter")
    levels = _operators(primary)

    def tighter_than(level: int) -> pp.ParserElement:
        """The argument of a prefix form at ``level``: everything that binds tighter."""
        tighter = [other for other in levels if other > level]
        return levels[min(tighter)] if tighter else primary

    comment_item = COMMENT_ITEM.copy().set_parse_action(_comment)
    item = comment_item | filter_
    items = _Many(item)
    compound = (LBRACE + items + RBRACE).set_parse_action(_compound)
    paren = (LPAR + filter_ + RPAR).set_parse_action(_paren)

    number = (NEG_INT | INT).copy().add_parse_action(lambda t: ct.Number(t[0]))
    string = STRING_TOKEN.copy().set_parse_action(lambda s, loc, t: _String(loc, t[0][1:-1]))
    empty_set = _sym("[]").set_parse_action(lambda: ct.PieceSet(ANYTHING, EMPTY))
    all_squares = _sym(".", r"\.(?![\w$])").set_parse_action(lambda: ct.PieceSet(ANYTHING, FULL))
    designator = DESIGNATOR.copy().set_parse_action(_designator)

    simple = _alternatives(list(SIMPLE_WORDS)).set_parse_action(
        lambda t: ct.Simple(SIMPLE_WORDS[t[0]])
    )
    numeric = _alternatives(list(NUMERIC_WORDS)).set_parse_action(
        lambda t: ct.NumericValue(NUMERIC_WORDS[t[0]])
    )
    elo = (_kw("elo") + _Maybe(COLOR)).set_parse_action(
        lambda t: ct.Elo(COLORS[t[1]] if len(t) > 1 else None)
    )
    result = (_kw("result") + RESULT_VALUE).set_parse_action(lambda t: ct.Result(GameResult(t[1])))
    player = (_kw("player") + _Maybe(COLOR) + _Maybe(string)).set_parse_action(_player)
    tag = ((_kw("event") | _kw("site")) + _Maybe(string)).set_parse_action(_tag)
    lowercase = (_suppressed(_kw("lowercase")) + primary).set_parse_action(_lowercase)

    directions = _alternatives(DIRECTION_WORDS)
    step_count = NEG_INT | INT
    # A direction's argument reaches over `attacks`/`attackedby` (decision M10).
    direction = directions + _Maybe(step_count + _Maybe(step_count)) + levels[ATTACK]
    direction.set_parse_action(_direction)
    ray_args = LPAR + pp.OneOrMore(levels[UNION]) + RPAR
    ray = (_suppressed(_kw("ray")) + _Many(directions) + ray_args).set_parse_action(_ray)
    xray = (_suppressed(_kw("xray")) + ray_args).set_parse_action(_xray)
    between = _suppressed(_kw("between")) + LPAR + levels[UNION] + levels[UNION] + RPAR
    between.set_parse_action(lambda s, loc, t: ct.Between(_filter(s, t[0]), _filter(s, t[1])))

    move_params = pp.MatchFirst(
        [
            (_kw(word) + tighter_than(MOVE)).set_parse_action(_move_param(word))
            for word in ("from", "to", "capture")
        ]
        + [
            (
                _kw("promote") + PROMOTE_TYPES.copy().set_parse_action(lambda t: _types(t[0]))
            ).set_parse_action(lambda s, loc, t: [("promote", t[1], loc)]),
            _kw("previous").set_parse_action(_move_param("previous")),
            _kw("enpassant").set_parse_action(_move_param("enpassant")),
        ]
    )
    move = (_suppressed(_kw("move")) + _Many(pp.Group(move_params))).set_parse_action(
        lambda s, loc, t: _move(s, loc, [tuple(g[0]) for g in t])
    )

    quantifier = _leaf(pp.Regex(REPETITION_PATTERN), "a repetition").set_parse_action(_quantifier)
    # A parenthesised constituent is a filter unless it holds `-->` or a repetition: then
    # it is a group of constituents.
    group = pp.Forward()
    step = ((filter_ | group) + _Maybe(quantifier)).set_parse_action(_step)
    group <<= (LPAR + step + _Many(ARROW + step) + RPAR).set_parse_action(_group)
    line = (_suppressed(_kw("line")) + pp.OneOrMore(ARROW + step)).set_parse_action(
        lambda t: ct.Line(tuple(t))
    )
    find = (_kw("find") + _Maybe(_kw("all")) + filter_).set_parse_action(_find)
    transform = (_alternatives(TRANSFORM_WORDS) + _Maybe(_kw("count")) + filter_).set_parse_action(
        _transform
    )
    piece_loop = (
        _suppressed(_kw("piece"))
        + _Maybe(_kw("all"))
        + NAME
        + _suppressed(_kw("in"))
        + levels[UNION]
        + filter_
    ).set_parse_action(_piece_loop)
    echo = (
        _suppressed(_kw("echo"))
        + _Maybe(_kw("quiet"))
        + LPAR
        + NAME
        + NAME
        + RPAR
        + _Maybe(_kw("in") + _suppressed(_kw("all")))
        + filter_
    ).set_parse_action(_echo)
    side_to_move = _kw("sidetomove").set_parse_action(lambda: ct.SideToMove())
    ancestor = _suppressed(_kw("ancestor")) + LPAR + levels[UNION] + levels[UNION] + RPAR
    ancestor.set_parse_action(lambda s, loc, t: ct.Ancestor(_filter(s, t[0]), _filter(s, t[1])))
    negation = (_suppressed(_kw("not")) + tighter_than(NOT)).set_parse_action(
        lambda s, loc, t: ct.Not(_filter(s, t[0]))
    )
    # As chessql reads it: the argument binds tighter than `+ -` (see the module docstring).
    minus = (_suppressed(MINUS) + tighter_than(ARITH)).set_parse_action(
        lambda s, loc, t: ct.Negate(_filter(s, t[0]))
    )
    count = (_suppressed(_sym("#")) + tighter_than(COUNT)).set_parse_action(
        lambda s, loc, t: ct.Count(_filter(s, t[0]))
    )
    power = (_suppressed(_kw("power")) + tighter_than(POWER)).set_parse_action(
        lambda s, loc, t: ct.Power(_filter(s, t[0]))
    )
    complement = (_suppressed(_sym("~", r"~(?!~)")) + tighter_than(COMPLEMENT)).set_parse_action(
        lambda s, loc, t: ct.Complement(_filter(s, t[0]))
    )
    variable = NAME.copy().set_parse_action(_variable)

    primary <<= pp.MatchFirst(
        [
            paren,
            compound,
            number,
            string,
            empty_set,
            all_squares,
            line,
            find,
            transform,
            piece_loop,
            echo,
            side_to_move,
            ancestor,
            negation,
            minus,
            count,
            power,
            complement,
            direction,
            ray,
            xray,
            between,
            move,
            result,
            player,
            tag,
            lowercase,
            elo,
            numeric,
            simple,
            designator,
            variable,
        ]
    ).add_parse_action(_record_place)

    filter_ <<= levels[OR]

    def parameter(word: str, value: pp.ParserElement | None = None) -> pp.ParserElement:
        expr = _kw(word) if value is None else _kw(word) + value
        return pp.Group(expr.set_parse_action(lambda s, loc, t: [(word, list(t[1:]), loc)]))

    file_name = FILE_NAME.copy().set_parse_action(
        lambda t: t[0][1:-1] if t[0].startswith('"') else t[0]
    )
    header_param = pp.MatchFirst(
        [
            parameter("input", file_name),
            parameter("output", file_name),
            parameter("gamenumber", INT + _Maybe(INT)),
            parameter("matchcount", INT + _Maybe(INT)),
            parameter("result", RESULT_VALUE),
            parameter("variations"),
        ]
    )
    header = (_suppressed(_kw("cql")) + LPAR + pp.Group(_Many(header_param)) + RPAR).set_name(
        "a cql( ) header"
    )
    leading_comment = COMMENT_ITEM.copy().set_parse_action(lambda t: t[0][2:].rstrip("\r"))
    leading_items = _Many(leading_comment)
    leading = pp.Group(leading_items)
    body = pp.Group(items)
    end = _leaf(pp.StringEnd(), "end of text")
    script = leading + header + body + end
    item_places = [comment_item, item, items, leading_comment, leading_items, leading, body]
    _ignore_comments(script, [*item_places, script])
    return script, filter_


_SCRIPT, _FILTER = _build()
_SCRIPT.parse_with_tabs()

# --------------------------------------------------------------------------------------
# From parse results to a Query
# --------------------------------------------------------------------------------------


def _pragma(s: str, item: ct.Comment) -> list[str]:
    words = item.text.strip()[len(PRAGMA_PREFIX) :].split()
    if words == [PRAGMA_LISTS] or (
        len(words) == 2 and words[0] == PRAGMA_MARK and words[1] in {m.value for m in ct.Mark}
    ):
        return words
    _fail(s, _pragma_place(item), f"unknown pragma {item.text.strip()!r}")


def _leading_mark(s: str, items: list[ct.Filter]) -> tuple[ct.Mark, list[ct.Filter]]:
    if items and _is_pragma(items[0]):
        words = _pragma(s, items[0])
        if words[0] == PRAGMA_MARK:
            return ct.Mark(words[1]), items[1:]
    return ct.Mark.ALL, items


def _body(s: str, items: list[ct.Filter], loc: int) -> ct.Filter:
    if all(isinstance(item, ct.Comment) for item in items):
        _fail(s, loc, "the body needs at least one filter")
    return items[0] if len(items) == 1 else ct.Compound(tuple(items))


def _list_of(s: str, node: ct.Filter, scope: ct.Scope, loc: int) -> ct.TopList:
    """One item of the `lists` form back to its top-level list."""
    matchcount: tuple[int, int | None] | None
    if isinstance(node, ct.Find) and not node.all:
        find, matchcount = node, None
    elif isinstance(node, ct.Not) and isinstance(node.arg, ct.Find) and not node.arg.all:
        find, matchcount = node.arg, (0, 0)
    elif isinstance(node, ct.InRange) and isinstance(node.value, ct.Find) and node.value.all:
        find, matchcount = node.value, (0 if node.lo is None else node.lo, node.hi)
    else:
        _fail(
            s,
            loc,
            "each list of the cqllegacy lists form is find {…}, a range of find all {…},"
            " or not find {…}",
        )
    mark = ct.Mark.ALL
    items: list[ct.Filter] = [find.arg]
    if isinstance(find.arg, ct.Compound):
        mark, items = _leading_mark(s, list(find.arg.items))
    return ct.TopList(_body(s, items, loc), matchcount, mark, scope)


def _tags_of(
    s: str, items: list[ct.Filter], loc: int
) -> tuple[tuple[ct.TagDeclaration, ...], list[ct.Filter]]:
    """Legacy tags written around the lists (the printer's ``tag_loops``): each a piece
    loop over the pieces that may be the tag's piece, whose body opens with
    ``find {NAME & TYPES}``; the innermost body holds the lists."""
    tags: list[ct.TagDeclaration] = []
    while len(items) == 1 and isinstance(items[0], ct.PieceLoop):
        loop = items[0]
        body = list(loop.body.items) if isinstance(loop.body, ct.Compound) else [loop.body]
        tag = _eligibility(body[0]) if body else None
        if tag is None or tag.name != loop.name:
            opening = f"find {{{loop.name} & TYPES}}"
            _fail(s, loc, f"the piece loop of tag {loop.name!r} opens with {opening}")
        expected: ct.Filter = ct.PieceSet(tag.start_types())
        outer = [ct.Complement(ct.PieceVariable(t.name)) for t in tags]
        if outer:
            expected = ct.Intersection((expected, *outer))
        if loop.domain != expected:
            _fail(s, loc, f"the piece loop of tag {loop.name!r} ranges over the wrong pieces")
        tags.append(tag)
        items = body[1:]
    return tuple(tags), items


def _eligibility(node: ct.Filter) -> ct.TagDeclaration | None:
    """The tag that ``find {NAME & TYPES}`` declares, or None for another filter."""
    if not isinstance(node, ct.Find) or node.all:
        return None
    arg = node.arg
    if isinstance(arg, ct.Compound) and len(arg.items) == 1:
        arg = arg.items[0]
    if not isinstance(arg, ct.Intersection) or len(arg.items) != 2:
        return None
    variable, types = arg.items
    if not isinstance(variable, ct.PieceVariable) or not isinstance(types, ct.PieceSet):
        return None
    if types.squares != FULL:
        return None
    return ct.TagDeclaration(variable.name, types.types)


def _header(s: str, params: pp.ParseResults) -> tuple[dict[str, list[object]], ct.Header]:
    seen: dict[str, list[object]] = {}
    for group in params:
        word, values, loc = group[0]
        if word in seen:
            _fail(s, loc, f"the header has two {word} parameters")
        seen[word] = values
    gamenumber = _all(int, seen.get("gamenumber", ()))
    header = ct.Header(
        inputs=tuple(_all(str, seen.get("input", ()))),
        output=_all(str, seen["output"])[0] if "output" in seen else None,
        gamenumber=(gamenumber[0], gamenumber[-1]) if gamenumber else None,
    )
    return seen, header


def _query(s: str, results: pp.ParseResults, body_loc: int) -> ct.Query:
    leading, params, body = results
    seen, header = _header(s, params)
    scope = ct.Scope.ALL if "variations" in seen else ct.Scope.MAINLINE
    items = list(_items(s, body))
    first = items[0] if items else None
    if _is_pragma(first) and _pragma(s, first) == [PRAGMA_LISTS]:
        place = _pragma_place(first)
        for word in ("matchcount", "result"):
            if word in seen:
                _fail(s, place, f"the lists form cannot have a {word} header parameter")
        rest = items[1:]
        if not rest or rest[0] != ct.Simple(ct.Keyword.INITIAL) or len(rest) < 2:
            _fail(s, place, "the cqllegacy lists form starts with initial and a find")
        tags, list_items = _tags_of(s, rest[1:], place)
        lists = tuple(_list_of(s, node, scope, place) for node in list_items)
        query = ct.Query(header, lists, tags, leading_comments=tuple(leading))
    else:
        mark, items = _leading_mark(s, items)
        if "result" in seen:
            items.insert(0, ct.Result(GameResult(seen["result"][0])))
        count = _all(int, seen.get("matchcount", ()))
        matchcount = (count[0], count[-1]) if count else None
        top = ct.TopList(_body(s, items, body_loc), matchcount, mark, scope)
        query = ct.Query(header, (top,), leading_comments=tuple(leading))
    _check_tree(s, query)
    return query


def _check_tree(s: str, query: ct.Query) -> None:
    """No pragma left out of place; every variable inside the filter that binds it, and no
    name bound twice there; every operand of the kind its filter needs (so that what the
    reader accepts, the evaluator runs)."""

    def bind(node: ct.Filter, names: tuple[str, ...], bound: frozenset[str]) -> frozenset[str]:
        for name in names:
            if name in bound:
                _fail(s, _place(node), f"{name!r} is already bound by an enclosing filter")
        return bound | set(names)

    def walk(node: ct.Filter, bound: frozenset[str], depth: int = 0) -> None:
        if _is_pragma(node):
            message = f"a {PRAGMA_PREFIX} pragma can only open the body or a list's find"
            _fail(s, _pragma_place(node), message)
        if isinstance(node, ct.PieceVariable | ct.PositionVariable) and node.name not in bound:
            what = "piece variable" if isinstance(node, ct.PieceVariable) else "position"
            _fail(s, _place(node), f"{what} {node.name!r} is unbound here")
        if depth >= MAX_DEPTH:
            # depth 0 is the first level: this filter is on level MAX_DEPTH + 1
            _fail(s, 0, f"the script nests filters more than {MAX_DEPTH} deep")
        if isinstance(node, ct.PieceLoop):
            walk(node.domain, bound, depth + 1)
            walk(node.body, bind(node, (node.name,), bound), depth + 1)
            return
        if isinstance(node, ct.Echo):
            walk(node.body, bind(node, (node.source, node.target), bound), depth + 1)
            return
        for child in node.children():
            walk(child, bound, depth + 1)

    tagged = frozenset(tag.name for tag in query.tags)
    for top in query.lists:
        walk(top.body, tagged)
        problem = misplaced(top.body)
        if problem is not None:
            _fail(s, _place(problem[0]), problem[1])


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z_$][\w$-]*")


def _syntax_error(s: str, loc: int, message: str, path: str | None, **extra: str) -> NoReturn:
    raise ModernSyntaxError(
        message,
        line=pp.lineno(loc, s),
        column=pp.col(loc, s),
        file=path,
        source=s,
        **extra,
    )


_OPERATOR_NAMES = frozenset(
    [
        "'&'", "'|'", "'+'", "'and'", "'or'", "'in'", "'attacks'", "'attackedby'",
        "a comparison", "':'",
    ]
)  # fmt: skip
_NOT_FILTER_STARTS = _OPERATOR_NAMES | {
    "')'", "'}'", "'-->'", "end of text", "a repetition", "a comment", "a file name",
    "piece types", "1-0, 0-1 or 1/2-1/2", "a cql( ) header", "'cql'",
    *(f"'{word}'" for word in ("white", "black", "all", "quiet", "count", "from", "to", "capture",
                               "promote", "previous", "enpassant", "input", "output",
                               "gamenumber", "matchcount", "variations")),
}  # fmt: skip


def _summary(expected: set[str]) -> str:
    """The expected tokens, with filter starts and operators named as groups."""
    out = set()
    for name in expected:
        if name in _OPERATOR_NAMES:
            out.add("an operator")
        elif name not in _NOT_FILTER_STARTS:
            out.add("a filter")
        else:
            out.add(name)
    return ", ".join(sorted(out))


def _explain(s: str, failures: _Failures, path: str | None) -> NoReturn:
    loc = max(failures.loc, 0)
    expected = _summary(failures.expected)
    if loc >= len(s.rstrip()):
        _syntax_error(s, len(s.rstrip()), "unexpected end of script", path, expected=expected)
    word = _WORD.match(s, loc)
    if word is not None:
        text = word.group()
        if text in UNSUPPORTED_WORDS:
            message = f"{text!r} is CQL 6 but not in the subset cqllegacy reads"
            _syntax_error(s, loc, message, path, text=text)
        if text not in SUPPORTED_WORDS and not re.fullmatch(DESIGNATOR_PATTERN, text):
            close = difflib.get_close_matches(text, sorted(SUPPORTED_WORDS), n=1)
            hint = f"did you mean {close[0]!r}?" if close else ""
            _syntax_error(
                s, loc, f"unknown word {text!r}", path, text=text, expected=expected, hint=hint
            )
    token = s[loc:].split(None, 1)[0] if s[loc:].strip() else ""
    _syntax_error(s, loc, f"unexpected {token!r}", path, text=token, expected=expected)


def _nesting_too_deep(s: str) -> int | None:
    """Where the bracket nesting first exceeds :data:`MAX_NESTING`, if it does."""
    depth = 0
    tokens = rf"{STRING_PATTERN}|{LINE_COMMENT_PATTERN}|{BLOCK_COMMENT_PATTERN}|[({{\[]|[)}}\]]"
    for match in re.finditer(tokens, s):
        token = match.group()
        if token in "({[":
            depth += 1
            if depth > MAX_NESTING:
                return match.start()
        elif token in ")}]":
            depth -= 1
    return None


def read_query(text: str, path: str | None = None) -> ct.Query:
    """Read a CQL 6.1 script; raises :class:`ModernSyntaxError` with a located message.

    >>> read_query("cql() Ka1 kh8").lists[0].body == ct.Compound(
    ...     (ct.PieceSet(MODERN_LETTERS["K"], 1), ct.PieceSet(MODERN_LETTERS["k"], 1 << 63)))
    True
    """
    deep = _nesting_too_deep(text)
    if deep is not None:
        _syntax_error(text, deep, f"brackets nest deeper than {MAX_NESTING} levels", path)
    state = _ParseState(declared=_declared_pieces(text), positions=_declared_positions(text))
    token = _STATE.set(state)
    # pyparsing recurses a few dozen frames per nesting level; MAX_NESTING bounds it.
    try:
        with room_for_deep_trees():
            results = _SCRIPT.parse_string(text, parse_all=True)
            return _query(text, results, body_loc=len(text.rstrip()))
    except pp.ParseFatalException as exc:
        _syntax_error(text, exc.loc, exc.msg, path)
    except pp.ParseException:
        _explain(text, state.failures, path)
    except RecursionError:
        _syntax_error(text, 0, "the script nests too deeply to read", path)
    finally:
        _STATE.reset(token)
