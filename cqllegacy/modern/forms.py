"""The forms of the CQL 6.1 reader: how each construct that is no bare word reads.

A prefix form takes the parser and the word or symbol that starts it; an infix
combiner takes the operands read and the operator words between them.
:mod:`cqllegacy.modern.grammar` lists which word starts which form.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.modern.kinds import Kind, kind_of
from cqllegacy.modern.lexer import REPETITION, RESULT, TYPES_ONLY, Token, TokenKind
from cqllegacy.modern.reader import (
    DIRECTIONS,
    Combine,
    Form,
    Parser,
    Read,
    ReadError,
    StringValue,
    TagValue,
    types_of_letters,
)
from cqllegacy.modern.vocabulary import (
    BLACK_PAWN,
    MOVE,
    OR,
    PROMOTABLE,
    RANGE_OPS,
    REPETITIONS,
    UNION,
    WHITE_PAWN,
)
from cqllegacy.vocab.pieces import (
    BLACK_PIECES,
    WHITE_PIECES,
    TypeSet,
    color_swap,
)
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction

COLORS = {"white": ct.Color.WHITE, "black": ct.Color.BLACK}
COMPARE_OPS = {op.value: op for op in ct.CompareOp}
CASTLING = {side.value: side for side in ct.Castling}
MOVE_PARAMETERS = ("from", "to", "capture", "promote", "previous", "enpassant", *CASTLING)


def quantifier(text: str) -> tuple[int, int | None]:
    text = re.sub(r"\s", "", text)
    shorthand = text[1:-1] if text in ("{*}", "{+}") else text
    if shorthand in REPETITIONS:
        return REPETITIONS[shorthand]
    lo_text, comma, hi_text = text.strip("{}").partition(",")
    lo = int(lo_text) if lo_text else 0
    hi = (int(hi_text) if hi_text else None) if comma else lo
    return lo, hi


def pawn_side(from_: ct.Filter | None) -> tuple[ct.Filter | None, TypeSet | None]:
    """Split a ``from`` that names the promoting pawn's colour (see the printer)."""
    pawns = {ct.PieceSet(WHITE_PAWN): WHITE_PIECES, ct.PieceSet(BLACK_PAWN): BLACK_PIECES}
    if from_ in pawns:
        return None, pawns[from_]
    if isinstance(from_, ct.Intersection) and from_.items[-1] in pawns:
        rest = from_.items[:-1]
        return (rest[0] if len(rest) == 1 else ct.Intersection(rest)), pawns[from_.items[-1]]
    return from_, None


def promotion(promote: TypeSet, from_: ct.Filter | None) -> tuple[TypeSet, ct.Filter | None]:
    folded = (promote & WHITE_PIECES) | color_swap(promote & BLACK_PIECES)
    white = folded & PROMOTABLE & WHITE_PIECES
    if not white:
        raise ReadError("promote needs Q, R, B or N", -1)
    from_, side = pawn_side(from_)
    if side == WHITE_PIECES:
        return white, from_
    if side == BLACK_PIECES:
        return color_swap(white), from_
    return white | color_swap(white), from_


def unary(make: Callable[[ct.Filter], ct.Filter], level: int) -> Form:
    """A prefix word or symbol whose argument is everything tighter than ``level``."""

    def form(parser: Parser, token: Token) -> Read:
        if token.kind is TokenKind.SYMBOL:
            parser.lex.take()
        arg = parser.argument(level)
        return parser.made(make(parser.node(arg)), token.start, [arg])

    return form


def leaf(value: ct.Filter) -> Form:
    def form(parser: Parser, token: Token) -> Read:
        if token.kind is TokenKind.SYMBOL:
            parser.lex.take()
        return Read(value, token.start)

    return form


def flat(cls: Callable[[tuple[ct.Filter, ...]], ct.Filter]) -> Combine:
    """``a op b op c`` → one n-ary node; a parenthesised operand stays one item."""
    return lambda parser, reads, words: cls(tuple(parser.node(r) for r in reads))


def castling_alone(parser: Parser, token: Token) -> Read:
    """``o-o`` alone is a CQL 6.2 filter (the move just played); in CQL 6.1 it is a
    parameter of ``move`` only (semantics: S-castling)."""
    parser.fail(
        f"`{token.text}` is a parameter of `move` in CQL 6.1: write `move {token.text}` (the"
        f" next move) or `move previous {token.text}` (the move just played)",
        token.start,
    )


def fold_left(make: Callable[[str, ct.Filter, ct.Filter], ct.Filter]) -> Combine:
    """``a op b op c`` → ``(a op b) op c``."""

    def combine(parser: Parser, reads: list[Read], words: list[str]) -> ct.Filter:
        out = parser.node(reads[0])
        for word, read in zip(words, reads[1:], strict=True):
            out = make(word, out, parser.node(read))
        return out

    return combine


def attack(word: str, left: ct.Filter, right: ct.Filter) -> ct.Filter:
    return ct.Attacks(left, right) if word == "attacks" else ct.AttackedBy(left, right)


def arith(word: str, left: ct.Filter, right: ct.Filter) -> ct.Filter:
    return ct.Arith(ct.ArithOp(word), left, right)


def read_ray(parser: Parser, token: Token) -> Read:
    words = []
    while parser.lex.peek().text in DIRECTIONS and parser.lex.peek().kind is TokenKind.WORD:
        words.append(parser.lex.take().text)
    args = _sets(parser, "ray", token)
    nodes = tuple(parser.node(arg) for arg in args)
    if not words:
        return parser.made(ct.Ray(nodes), token.start, args)
    vectors = frozenset(v for word in words for v in Direction.from_word(word).vectors)
    try:
        direction = Direction.from_vectors(vectors)
    except KeyError:
        parser.fail(f"cqllegacy has no single direction for {' '.join(words)}", token.start)
    return parser.made(ct.Ray(nodes, direction), token.start, args)


def _sets(parser: Parser, what: str, token: Token) -> list[Read]:
    parser.open("(")
    args = [parser.expression(UNION)]
    while not parser.lex.peek().is_(")"):
        args.append(parser.expression(UNION))
    parser.close(")")
    if len(args) < 2:
        parser.fail(f"{what} needs at least two square sets in its ( )", token.start)
    return args


def read_xray(parser: Parser, token: Token) -> Read:
    args = _sets(parser, "xray", token)
    return parser.made(ct.XRay(tuple(parser.node(a) for a in args)), token.start, args)


def read_move(parser: Parser, token: Token) -> Read:
    params: dict[str, object] = {}
    operands: list[Read] = []
    while (word := parser.lex.peek()).is_(*MOVE_PARAMETERS) and word.kind is TokenKind.WORD:
        parser.lex.take()
        if word.text in params:
            parser.fail(f"move has two {word.text} parameters", word.start)
        if word.text in ("from", "to", "capture"):
            read = parser.argument(MOVE)
            operands.append(read)
            params[word.text] = parser.node(read)
        elif word.text == "promote":
            params["promote"] = _promote_types(parser)
        elif word.text in CASTLING:
            if "castle" in params:
                twice = params["castle"] is CASTLING[word.text]
                both = "a move castles to one side: o-o and o-o-o never both"
                parser.fail(f"move has two {word.text} parameters" if twice else both, word.start)
            params["castle"] = CASTLING[word.text]
        else:
            params[word.text] = True
    from_ = params.get("from")
    promote = params.get("promote")
    assert from_ is None or isinstance(from_, ct.Filter)
    assert promote is None or isinstance(promote, int)
    if promote is not None:
        try:
            promote, from_ = promotion(promote, from_)
        except ReadError as exc:
            parser.fail(exc.message, token.start)
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
    return parser.made(node, token.start, operands)


def _promote_types(parser: Parser) -> TypeSet:
    token = parser.lex.peek()
    after = parser.text[token.end : token.end + 1]
    if (
        token.kind is not TokenKind.DESIGNATOR
        or not TYPES_ONLY.fullmatch(token.text)
        or after == "["
    ):
        parser.unexpected(token, "piece types")
    return types_of_letters(parser.lex.take().text)


def read_line(parser: Parser, token: Token) -> Read:
    if not parser.lex.peek().is_("-->"):
        parser.unexpected(parser.lex.peek(), "'-->'")
    steps: list[ct.LineStep] = []
    while parser.accept("-->"):
        steps += _step(parser)
    return parser.made(ct.Line(tuple(steps)), token.start)


def _step(parser: Parser) -> list[ct.LineStep]:
    """One constituent of a line: a filter or a ``( … --> … )`` group, and its
    repetition; an unrepeated group is its constituents written in place."""
    read = _group_or_filter(parser) if parser.lex.peek().is_("(") else parser.expression(OR)
    node = parser.node(read)
    repetition = parser.lex.raw(REPETITION)
    lo, hi = quantifier(repetition.text) if repetition is not None else (1, 1)
    if isinstance(node, ct.LineGroup) and (lo, hi) == (1, 1):
        return list(node.steps)
    return [ct.LineStep(node, lo, hi)]


def _group_or_filter(parser: Parser) -> Read:
    """A ``(`` opening a constituent: a group when it holds ``-->`` or a repetition,
    else a parenthesised filter, which may be the operand of what follows."""
    opening = parser.open("(")
    steps = _step(parser)
    grouped = (
        parser.lex.peek().is_("-->")
        or len(steps) != 1
        or (steps[0].lo, steps[0].hi)
        != (
            1,
            1,
        )
    )
    while parser.accept("-->"):
        steps += _step(parser)
    parser.close(")")
    if not grouped:
        return parser.infix(Read(steps[0].filter, opening.start, paren=True), OR)
    if any(isinstance(step.filter, ct.LineGroup) for step in steps):
        parser.fail("cqllegacy reads groups of line constituents one level deep", opening.start)
    return Read(ct.LineGroup(tuple(steps)), opening.start)


def read_find(parser: Parser, token: Token) -> Read:
    every = parser.accept("all") is not None
    arg = parser.expression(OR)
    return parser.made(ct.Find(parser.node(arg), all=every), token.start, [arg])


def read_transform(parser: Parser, token: Token) -> Read:
    count = parser.accept("count") is not None
    arg = parser.expression(OR)
    node = ct.Transform(ct.TransformKind(token.text), parser.node(arg), count=count)
    return parser.made(node, token.start, [arg])


def read_echo(parser: Parser, token: Token) -> Read:
    quiet = parser.accept("quiet") is not None
    parser.open("(")
    source, target = parser.name().text, parser.name().text
    parser.close(")")
    in_all = parser.accept("in") is not None
    if in_all:
        parser.expect("all")
    for name in (source, target):
        parser.check_name(name, token.start)
    if source == target:
        parser.fail("echo needs two different names for its source and target", token.start)
    body = parser.bound_body({source: "position", target: "position"}, token.start)
    node = ct.Echo(source, target, parser.node(body), in_all=in_all, quiet=quiet)
    return parser.made(node, token.start, [body])


def read_result(parser: Parser, token: Token) -> Read:
    value = parser.lex.raw(RESULT)
    if value is None:
        parser.unexpected(parser.lex.peek(), "1-0, 0-1 or 1/2-1/2")
    return Read(ct.Result(GameResult(value.text)), token.start)


def _color(parser: Parser) -> ct.Color | None:
    word = parser.accept("white", "black")
    return COLORS[word.text] if word is not None else None


def _string(parser: Parser) -> str | None:
    token = parser.lex.peek()
    return parser.lex.take().text[1:-1] if token.kind is TokenKind.STRING else None


def read_player(parser: Parser, token: Token) -> Read:
    color = _color(parser)
    text = _string(parser)
    if text is not None:
        return Read(ct.Player(text, color), token.start)
    return Read(TagValue("player", color), token.start)


def read_tag(parser: Parser, token: Token) -> Read:
    text = _string(parser)
    if text is not None:
        return Read(ct.TagContains(ct.TagName(token.text), text), token.start)
    return Read(TagValue(token.text), token.start)


def read_named_tag(parser: Parser, token: Token) -> Read:
    name = _string(parser)
    if not name:
        parser.fail('`tag` needs the name of a tag, as in tag "Annotator"', token.start)
    return Read(TagValue("tag", name=name), token.start)


def read_lowercase(parser: Parser, token: Token) -> Read:
    value = parser.prefix_read().value
    if not isinstance(value, TagValue) or value.lowercase:
        parser.fail('cqllegacy reads `lowercase` only as `"text" in lowercase player`', token.start)
    return Read(attrs.evolve(value, lowercase=True), token.start)


def read_elo(parser: Parser, token: Token) -> Read:
    return Read(ct.Elo(_color(parser)), token.start)


def combine_in(parser: Parser, reads: list[Read], words: list[str]) -> ct.Filter:
    text, tag = reads[0].value, reads[1].value
    markers = StringValue | TagValue
    if not isinstance(text, markers) and not isinstance(tag, markers):
        # Two filters: square-set inclusion (their kinds are checked as it is made).
        return ct.InSet(text, tag)
    if not isinstance(text, StringValue) or not isinstance(tag, TagValue):
        parser.fail(
            'cqllegacy reads `in` with a string only as `"text" in player|event|site`',
            reads[0].loc,
        )
    if tag.tag == "player":
        if tag.lowercase and (text.text != text.text.lower() or not text.text.isascii()):
            parser.fail("a string compared with `lowercase` must be lowercase ASCII", reads[0].loc)
        return ct.Player(text.text, tag.color, tag.lowercase)
    if tag.lowercase and (text.text != text.text.lower() or not text.text.isascii()):
        parser.fail("a string compared with `lowercase` must be lowercase ASCII", reads[0].loc)
    if tag.name is not None:
        return ct.TagSearch(tag.name, text.text, tag.lowercase)
    if tag.lowercase:
        return ct.TagSearch(tag.tag.capitalize(), text.text, True)
    return ct.TagContains(ct.TagName(tag.tag), text.text)


def combine_relations(parser: Parser, reads: list[Read], words: list[str]) -> ct.Filter:
    """A right-associative chain; ``X op n`` with a literal n is a range, and
    ``a <= X <= b`` one range."""
    left, right = reads[-2], reads[-1]
    out = _relation(parser, left, words[-1], right)
    for i in range(len(words) - 2, -1, -1):
        out = _chained(parser, reads[i], words[i], out)
    return out


def _relation(parser: Parser, left: Read, op: str, right: Read) -> ct.Filter:
    value, bound = parser.node(left), parser.node(right)
    if isinstance(bound, ct.Number) and not right.paren and COMPARE_OPS[op] in RANGE_OPS:
        lo = None if op == "<=" else bound.value
        hi = None if op == ">=" else bound.value
        return ct.InRange(value, lo, hi)
    return ct.Compare(COMPARE_OPS[op], value, bound)


def _chained(parser: Parser, left: Read, op: str, inner: ct.Filter) -> ct.Filter:
    value = parser.node(left)
    if (
        op == "<="
        and isinstance(value, ct.Number)
        and not left.paren
        and isinstance(inner, ct.InRange)
        and inner.lo is None
        and inner.hi is not None
    ):
        return ct.InRange(inner.value, value.value, inner.hi)
    return ct.Compare(COMPARE_OPS[op], value, inner)


def combine_intersection(parser: Parser, reads: list[Read], words: list[str]) -> ct.Filter:
    """``a & b & c`` → one n-ary node; ``S & T`` of two positions is their positional
    intersection (semantics: S-echo), which may head a longer chain of sets."""
    nodes = [parser.node(read) for read in reads]
    if all(kind_of(node) is Kind.POSITION for node in nodes[:2]):
        first = parser.made(ct.PositionIntersection(nodes[0], nodes[1]), reads[0].loc, reads)
        assert isinstance(first.value, ct.Filter)
        if len(nodes) == 2:
            return first.value
        return ct.Intersection((first.value, *nodes[2:]))
    return ct.Intersection(tuple(nodes))


def combine_colon(parser: Parser, reads: list[Read], words: list[str]) -> ct.Filter:
    """``X : F`` (right-associative, the tightest operator)."""
    out = parser.node(reads[-1])
    for read in reversed(reads[:-1]):
        out = ct.AtPosition(parser.node(read), out)
    return out


# --------------------------------------------------------------------------------------
# Forms derived from a class's declared SYNTAX (core.declarations: Prefix, Arguments, Loop)
# --------------------------------------------------------------------------------------


def derived(cls: type[ct.Filter]) -> Form:
    """The reader's form for a class that declares its syntax (``SYNTAX``): no form is
    written for it here."""
    syntax, shape = cls.SYNTAX, ct.derived_shape(cls)
    if isinstance(syntax, ct.Prefix):
        return _prefix(cls, syntax, shape)
    if isinstance(syntax, ct.Arguments):
        return _arguments(cls, shape)
    assert isinstance(syntax, ct.Loop)  # derived_shape refuses anything else
    return _loop(cls, syntax, shape)


def _prefix(cls: type[ct.Filter], syntax: ct.Prefix, shape: ct.Shape) -> Form:
    """``WORD X``: X is everything that binds tighter than the declared level."""
    level = syntax.reads_above or cls.PRECEDENCE
    assert level is not None  # derived_shape checks it
    (operand,) = shape.operands

    def form(parser: Parser, token: Token) -> Read:
        arg = parser.argument(level)
        fields: dict[str, object] = {operand: parser.node(arg)}
        if syntax.flag is not None:
            fields[syntax.flag] = token.text == shape.words[1]
        return parser.made(shape.make(cls, **fields), token.start, [arg])

    return form


def _arguments(cls: type[ct.Filter], shape: ct.Shape) -> Form:
    """``WORD ( X Y … )``: one ``|``-level filter per filter field."""

    def form(parser: Parser, token: Token) -> Read:
        parser.open("(")
        reads = [parser.expression(UNION) for _ in shape.operands]
        parser.close(")")
        fields = {name: parser.node(read) for name, read in zip(shape.operands, reads, strict=True)}
        return parser.made(shape.make(cls, **fields), token.start, reads)

    return form


def _loop(cls: type[ct.Filter], syntax: ct.Loop, shape: ct.Shape) -> Form:
    """``WORD [all] NAME in DOMAIN BODY``, NAME bound in BODY."""

    def form(parser: Parser, token: Token) -> Read:
        every = parser.accept("all") is not None
        name = parser.name().text
        parser.expect("in")
        parser.check_name(name, token.start)
        domain = parser.expression(UNION)
        body = parser.bound_body({name: syntax.binds}, token.start)
        fields = {"name": name, "domain": parser.node(domain), "body": parser.node(body)}
        node = shape.make(cls, **fields, all=every)
        return parser.made(node, token.start, [domain, body])

    return form
