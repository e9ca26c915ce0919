"""The CQL 6.1 printer's entries: one printer function per core node class.

Each registers itself in :data:`cqllegacy.modern.layout.PRINTERS` for its class;
a class declaring ``SYNTAX = Syntax.WORD`` has the table's bare-word entry instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from cqllegacy.core import tree as ct
from cqllegacy.modern.encoding import (
    Pragma,
)
from cqllegacy.modern.errors import NotExpressible
from cqllegacy.modern.layout import (
    INLINE_WIDTH,
    PRINTERS,
    Context,
    Printed,
    braced,
    code_part,
    first_code,
    fragment,
    is_comment_line,
    joined,
    noted,
    parenthesised,
    print_argument,
    print_closed,
    print_node,
    print_operand,
    printer_for,
    with_a_filter,
)
from cqllegacy.modern.vocabulary import (
    ATOM,
    BLACK_PAWN,
    PROMOTABLE,
    RANGE_OPS,
    REPETITIONS,
    TRANSFORM,
    WHITE_PAWN,
    implicit_search_ok,
    is_variable_name,
)
from cqllegacy.vocab.pieces import (
    ANYTHING,
    BLACK_PIECES,
    NOTHING,
    WHITE_PIECES,
    TypeSet,
    color_swap,
    format_modern_types,
)
from cqllegacy.vocab.squares import EMPTY, FULL, Direction, format_squares

# --------------------------------------------------------------------------------------
# Set filters
# --------------------------------------------------------------------------------------


def designator_text(types: TypeSet, squares: int) -> str:
    """CQL 6 text of a piece designator.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> from cqllegacy.vocab.squares import parse_squares
    >>> designator_text(types_of("K"), parse_squares("a1")), designator_text(ANYTHING, FULL)
    ('Ka1', '.')
    >>> designator_text(ANYTHING, parse_squares("d4")), designator_text(WHITE_PIECES, FULL)
    ('d4', 'A')
    """
    if squares == EMPTY or types == NOTHING:
        return "[]"
    if types == ANYTHING and squares == FULL:
        return "."
    return format_modern_types(types) + format_squares(squares)


@printer_for(ct.PieceSet)
def _piece_set(node: ct.PieceSet, ctx: Context) -> Printed:
    if node.types & ~ANYTHING or node.squares & ~FULL or node.types < 0 or node.squares < 0:
        raise NotExpressible("piece designator", f"{node!r} is not a valid piece designator")
    text = designator_text(node.types, node.squares)
    # chessql misreads a bare `[]` after or before another filter (as an index).
    return fragment("([])" if text == "[]" else text)


def _infix(items: Sequence[ct.Filter], word: str, level: int, ctx: Context, empty: str) -> Printed:
    """An n-ary operator; nested ones of the same kind keep their parentheses."""
    if not items:
        return fragment(empty)
    if len(items) == 1:
        return print_node(items[0], ctx)
    operands = [print_operand(item, ctx, level + 1) for item in items]
    for i, item in enumerate(items[:-1]):
        if _ends_with_a_flag(item) and operands[i].level >= level + 1:
            operands[i] = parenthesised(operands[i])
    parts: list[Printed | str] = []
    for i, operand in enumerate(operands):
        if i:
            parts.append(word)
        parts.append(operand)
    inline = joined(parts, level)
    if word == "or" and _too_long(inline):
        return _one_per_line(operands, word, level)
    return inline


def _ends_with_a_flag(node: ct.Filter) -> bool:
    """A ``move`` printed with ``previous``, ``o-o``/``o-o-o`` or ``enpassant`` last:
    chessql fails on such a move followed by ``and``/``or`` inside parentheses or braces
    (``(move previous and K)``), so it is parenthesised there."""
    if not isinstance(node, ct.Move):
        return False
    arguments = (node.from_, node.to, node.capture, node.promote)
    flag_last = node.previous or node.castle is not None
    return node.enpassant or (flag_last and all(arg is None for arg in arguments))


def _too_long(printed: Printed) -> bool:
    return len(printed.lines) > 1 or len(printed.lines[0]) > INLINE_WIDTH


def _one_per_line(operands: Sequence[Printed], word: str, level: int) -> Printed:
    """A long disjunction with one member per line, each after the first led by ``word``."""
    lines = list(operands[0].lines)
    for operand in operands[1:]:
        if is_comment_line(operand.lines[0]):
            lines += [word, *operand.lines]  # a note line: the word cannot go before it
        else:
            lines += [f"{word} {operand.lines[0]}", *operand.lines[1:]]
    return Printed(tuple(lines), level)


@printer_for(ct.Union)
def _union(node: ct.Union, ctx: Context) -> Printed:
    return _infix(node.items, "|", node.precedence(), ctx, empty="([])")


@printer_for(ct.Intersection)
def _intersection(node: ct.Intersection, ctx: Context) -> Printed:
    return _infix(node.items, "&", node.precedence(), ctx, empty=".")


@printer_for(ct.Complement)
def _complement(node: ct.Complement, ctx: Context) -> Printed:
    # `~~` is the regex-match operator: a nested complement is always parenthesised.
    return joined(["~", print_closed(node.arg, ctx)], node.precedence(), sep="")


def _attack(node: ct.Attacks | ct.AttackedBy, word: str, ctx: Context) -> Printed:
    level = node.precedence()
    left, right = print_operand(node.left, ctx, level), print_operand(node.right, ctx, level + 1)
    return joined([left, word, right], level)


@printer_for(ct.Attacks)
def _attacks(node: ct.Attacks, ctx: Context) -> Printed:
    return _attack(node, "attacks", ctx)


@printer_for(ct.AttackedBy)
def _attacked_by(node: ct.AttackedBy, ctx: Context) -> Printed:
    return _attack(node, "attackedby", ctx)


@printer_for(ct.DirectionSet)
def _direction_set(node: ct.DirectionSet, ctx: Context) -> Printed:
    direction, lo, hi = node.direction, node.lo, node.hi
    if lo < hi < 0:
        # `up -3 -1` reads as `up -3` minus 1 in chessql; `down 1 3` is the same set.
        direction, lo, hi = direction.mapped(lambda dx, dy: (-dx, -dy)), -hi, -lo
    if (lo, hi) == (1, 7):
        steps = ""
    elif lo == hi:
        steps = f" {lo}"
    else:
        steps = f" {lo} {hi}"
    # The argument is one token or parenthesised, and the whole form sits below
    # `attacks`, so the text means the same whether a direction's argument reaches over
    # `attacks` (the direction page) or not (the 6.1 precedence table; decision M10).
    arg = print_node(node.arg, ctx)
    nested = isinstance(node.arg, ct.DirectionSet)  # its own argument is closed
    if (arg.level != ATOM and not nested) or isinstance(node.arg, ct.Number):
        arg = parenthesised(arg)
    return joined([direction.word + steps, arg], node.precedence())


def _argument_list(args: Sequence[ct.Filter], ctx: Context) -> Printed:
    parts = [print_closed(arg, ctx) for arg in args]
    inner = joined(parts, ATOM)
    return joined(["(", inner, ")"], ATOM, sep="")


def _ray_like(
    keyword: str, args: tuple[ct.Filter, ...], ctx: Context, level: ct.Precedence
) -> Printed:
    if len(args) < 2:
        raise NotExpressible(keyword, "it needs at least two square sets")
    return joined([keyword, _argument_list(args, ctx)], level)


@printer_for(ct.Ray)
def _ray(node: ct.Ray, ctx: Context) -> Printed:
    word = "ray" if node.direction is Direction.ANYDIRECTION else f"ray {node.direction.word}"
    return _ray_like(word, node.args, ctx, node.precedence())


@printer_for(ct.XRay)
def _xray(node: ct.XRay, ctx: Context) -> Printed:
    return _ray_like("xray", node.args, ctx, node.precedence())


def _promotion(node: ct.Move, ctx: Context) -> tuple[ct.Filter | None, str | None, str | None]:
    """``from`` argument, ``promote`` letters and an approximation note for a move.

    CQL 6.1 ignores colour in ``promote`` (``move promote N captures A`` is a black
    promotion in the manual), so one colour is said by the promoting pawn: ``from P``.
    """
    if node.promote is None:
        return node.from_, None, None
    promotable = node.promote & PROMOTABLE
    white = promotable & WHITE_PIECES
    black = color_swap(promotable & BLACK_PIECES)
    note = None
    if not promotable:
        note = ctx.refuse(":promote", "no piece a pawn can promote to", node.origin)
        white = black = PROMOTABLE & WHITE_PIECES
    if white and black and white != black:
        note = ctx.refuse(
            ":promote", "CQL 6.1 promote has no colour; these sets differ by colour", node.origin
        )
        white = black = white | black
    letters = format_modern_types(white | black)
    if white == black:
        return node.from_, letters, note
    pawn = ct.PieceSet(WHITE_PAWN if white else BLACK_PAWN)
    origin_side = pawn if node.from_ is None else ct.Intersection((node.from_, pawn))
    return origin_side, letters, note


@printer_for(ct.Move)
def _move(node: ct.Move, ctx: Context) -> Printed:
    from_, letters, note = _promotion(node, ctx)
    parts: list[Printed | str] = ["move"]
    if node.previous:
        parts.append("previous")
    if node.castle is not None:
        parts.append(node.castle.value)
    for word, arg in (("from", from_), ("to", node.to), ("capture", node.capture)):
        if arg is not None:
            parts += [word, print_closed(arg, ctx)]
    if letters is not None:
        parts += ["promote", letters]
    if node.enpassant:
        parts.append("enpassant")
    return noted(note, joined(parts, node.precedence()))


@printer_for(ct.PieceVariable)
def _piece_variable(node: ct.PieceVariable, ctx: Context) -> Printed:
    if node.name not in ctx.bound or node.name in ctx.squares:
        raise NotExpressible(f"piece variable {node.name}", "no enclosing piece loop binds it")
    return fragment(node.name)


def _variable_name(name: str, what: str, ctx: Context) -> None:
    if not is_variable_name(name):
        raise NotExpressible(f"{what} {name!r}", "not a valid CQL variable name")
    if name in ctx.bound:
        raise NotExpressible(f"{what} {name!r}", "an enclosing filter already binds this name")


@printer_for(ct.SquareVariable)
def _square_variable(node: ct.SquareVariable, ctx: Context) -> Printed:
    if node.name not in ctx.squares:
        raise NotExpressible(f"square variable {node.name}", "no enclosing square loop binds it")
    return fragment(node.name)


@printer_for(ct.InSet)
def _in_set(node: ct.InSet, ctx: Context) -> Printed:
    level = node.precedence()
    left, right = (
        print_operand(node.left, ctx, level + 1),
        print_operand(node.right, ctx, level + 1),
    )
    return joined([left, "in", right], level)


# --------------------------------------------------------------------------------------
# Numeric filters
# --------------------------------------------------------------------------------------


@printer_for(ct.Number)
def _number(node: ct.Number, ctx: Context) -> Printed:
    return fragment(str(node.value), node.precedence())


@printer_for(ct.Count)
def _count(node: ct.Count, ctx: Context) -> Printed:
    return joined(["#", print_closed(node.arg, ctx)], node.precedence(), sep="")


@printer_for(ct.Arith)
def _arith(node: ct.Arith, ctx: Context) -> Printed:
    left = print_node(node.left, ctx)
    # chessql reads `power (A | K) - 1` as `power` of `(A | K) - 1`.
    power_of_group = isinstance(node.left, ct.Power) and left.lines[-1].endswith(")")
    level = node.precedence()
    if left.level < level or power_of_group:
        left = parenthesised(left)
    right = print_operand(node.right, ctx, level + 1)
    inline = joined([left, node.op.value, right], level)
    if node.op is ct.ArithOp.ADD and _too_long(inline):
        # A long sum (a legacy count split into parts): one term per line.
        terms = [print_operand(t, ctx, level + 1) for t in node.sum_terms(regroup=False)]
        if all(len(t.lines) == 1 and not is_comment_line(t.lines[0]) for t in terms):
            return _one_per_line(terms, node.op.value, level)
    return inline


@printer_for(ct.Negate)
def _negate(node: ct.Negate, ctx: Context) -> Printed:
    # `print_closed` parenthesises every number: `-(3)` is not the number -3.
    return joined(["-", print_closed(node.arg, ctx)], node.precedence(), sep="")


@printer_for(ct.Elo)
def _elo(node: ct.Elo, ctx: Context) -> Printed:
    return fragment("elo" if node.color is None else f"elo {node.color.value}")


_ANY_PIECE_WORD = re.compile(r"\[Aa\][\w$]+$")


def _relation_left(node: ct.Filter, level: int, ctx: Context, op: str = "") -> Printed:
    """The left operand of a comparison at ``level``."""
    printed = print_operand(node, ctx, level + 1)
    if op == "==" and _ANY_PIECE_WORD.search(printed.lines[-1]):
        # chessql reads `[Aa]a1 ==` as the piece assignment `[Aa]x = …`.
        return parenthesised(printed)
    return printed


@printer_for(ct.InRange)
def _in_range(node: ct.InRange, ctx: Context) -> Printed:
    if node.lo is None and node.hi is None:
        raise NotExpressible("range", f"{node!r} has no bound")
    level = node.precedence()
    value = _relation_left(node.value, level, ctx, "==" if node.lo == node.hi else "")
    if node.lo == node.hi:
        return joined([value, f"== {node.lo}"], level)
    if node.hi is None:
        return joined([value, f">= {node.lo}"], level)
    if node.lo is None:
        return joined([value, f"<= {node.hi}"], level)
    return joined([f"{node.lo} <=", value, f"<= {node.hi}"], level)


def _reads_as_range(node: ct.Compare) -> bool:
    """Would ``left op right`` read back as an :class:`~cqllegacy.core.tree.InRange`?"""
    right = node.right
    if isinstance(right, ct.Number):
        return node.op in RANGE_OPS
    return (
        node.op is ct.CompareOp.LE
        and isinstance(node.left, ct.Number)
        and isinstance(right, ct.InRange)
        and right.lo is None
        and right.hi is not None
    )


@printer_for(ct.Compare)
def _compare(node: ct.Compare, ctx: Context) -> Printed:
    if node.op is ct.CompareOp.NE and isinstance(node.left, ct.PositionVariable):
        raise NotExpressible(
            "!=", "chessql reads no `!=` between two positions; write not (S == T)"
        )
    level = node.precedence()
    left = _relation_left(node.left, level, ctx, node.op.value)
    right = print_operand(node.right, ctx, level)
    if _reads_as_range(node):
        right = parenthesised(right)
    return joined([left, node.op.value, right], level)


# --------------------------------------------------------------------------------------
# Logical, position and game filters
# --------------------------------------------------------------------------------------


@printer_for(ct.Compound)
def _compound(node: ct.Compound, ctx: Context) -> Printed:
    if not node.items:
        return fragment("true")  # `{}` is not CQL; an empty conjunction always matches
    return braced(with_a_filter(node.items), ctx)


@printer_for(ct.And)
def _and(node: ct.And, ctx: Context) -> Printed:
    return _infix(node.items, "and", node.precedence(), ctx, empty="true")


@printer_for(ct.Or)
def _or(node: ct.Or, ctx: Context) -> Printed:
    return _infix(node.items, "or", node.precedence(), ctx, empty="false")


@printer_for(ct.Result)
def _result(node: ct.Result, ctx: Context) -> Printed:
    return fragment(f"result {node.result.value}")


def _string(
    text: str, construct: str, ctx: Context, origin: ct.Origin | None = None
) -> tuple[str, str | None]:
    """A CQL string literal; CQL strings have no escapes for quotes or line ends."""
    unwritable = '"\\\n\r'
    if not any(ch in unwritable for ch in text):
        return f'"{text}"', None
    note = ctx.refuse(construct, f"the text {text!r} cannot be a CQL string", origin)
    return '"' + "".join(ch for ch in text if ch not in unwritable) + '"', note


def _tag_search(
    tag: str, text: str, construct: str, ctx: Context, origin: ct.Origin | None = None
) -> Printed:
    literal, note = _string(text, construct, ctx, origin)
    if implicit_search_ok(text):
        return noted(note, fragment(f"{tag} {literal}"))
    return noted(note, fragment(f"{literal} in {tag}", ct.InSet.PRECEDENCE))


@printer_for(ct.Player)
def _player(node: ct.Player, ctx: Context) -> Printed:
    tag = "player" if node.color is None else f"player {node.color.value}"
    if not node.ignore_case:
        return _tag_search(tag, node.text, ":player", ctx, node.origin)
    if not node.text.isascii():
        note = ctx.refuse(
            ":player",
            "ignoring case is exact only for ASCII text; CQL 6.1 lowercase of other letters"
            " is undocumented",
            node.origin,
        )
        return noted(note, _tag_search(tag, node.text, ":player", ctx, node.origin))
    literal, string_note = _string(node.text.lower(), ":player", ctx, node.origin)
    return noted(string_note, fragment(f"{literal} in lowercase {tag}", ct.InSet.PRECEDENCE))


@printer_for(ct.TagContains)
def _tag_contains(node: ct.TagContains, ctx: Context) -> Printed:
    return _tag_search(node.tag.value, node.text, f":{node.tag.value}", ctx)


#: The seven-tag roster: python-chess reads a missing one as its default (``?``), where
#: CQL 6.1's ``tag`` fails.
_ROSTER = frozenset({"Event", "Site", "Date", "Round", "White", "Black", "Result"})
#: Tags CQL 6.1's ``tag`` cannot read (its documentation), besides White…/Black… ones.
_UNREADABLE_TAGS = frozenset({"FEN", "Round", "Result"})
#: The tags CQL 6.1 reads with a word of their own.
_TAG_WORDS = {"Event": "event", "Site": "site"}


def _tag_words(node: ct.TagSearch, construct: str, ctx: Context) -> tuple[str, str | None]:
    """The CQL 6.1 words for the tag ``node`` reads, and a note when they approximate."""
    name = node.name
    if name in _TAG_WORDS:
        return _TAG_WORDS[name], None
    if any(ch in '"\\\n\r' for ch in name):
        raise NotExpressible(construct, f"the tag name {name!r} cannot be a CQL string")
    note = None
    if name in _UNREADABLE_TAGS or (
        name.startswith(("White", "Black")) and name not in ("White", "Black")
    ):
        note = ctx.refuse(construct, f"CQL 6.1's tag cannot read the tag {name}", node.origin)
    return f'tag "{name}"', note


@printer_for(ct.TagSearch)
def _named_tag_search(node: ct.TagSearch, ctx: Context) -> Printed:
    construct = construct_of(node.origin, ":tag")
    words, words_note = _tag_words(node, construct, ctx)
    return noted(words_note, _tag_search_of(node, construct, words, ctx))


def _tag_search_of(node: ct.TagSearch, construct: str, words: str, ctx: Context) -> Printed:
    text = node.text
    if node.name in _ROSTER and (text is None or text.casefold() in "?"):
        roster_note = ctx.refuse(
            construct,
            f"a game without a {node.name} tag has python-chess's default for it, where"
            " CQL 6.1 sees no tag",
            node.origin,
        )
        return noted(roster_note, fragment(words))
    if text is None:
        return fragment(words)
    if not node.ignore_case:
        literal, string_note = _string(text, construct, ctx, node.origin)
        return noted(string_note, fragment(f"{literal} in {words}", ct.InSet.PRECEDENCE))
    note: str | None = None
    if not text.isascii():
        note = ctx.refuse(
            construct,
            "ignoring case is exact only for ASCII text; CQL 6.1 lowercase of other letters"
            " is undocumented",
            node.origin,
        )
    literal, string_note = _string(text.lower(), construct, ctx, node.origin)
    printed = fragment(f"{literal} in lowercase {words}", ct.InSet.PRECEDENCE)
    return noted(note, noted(string_note, printed))


@printer_for(ct.RoundNumber)
def _round_number(node: ct.RoundNumber, ctx: Context) -> Printed:
    return refused_as(
        node.origin,
        ctx,
        f":{node.part.value}",
        "CQL 6.1 has no round number, and its tag cannot read the Round tag",
        "gamenumber",
    )


@printer_for(ct.EcoRange)
def _eco_range(node: ct.EcoRange, ctx: Context) -> Printed:
    prefix = "".join(a for a, b in zip(node.lo, node.hi, strict=True) if a == b)
    return refused_as(
        node.origin,
        ctx,
        ":eco",
        "CQL 6.1 documents no comparison of ECO codes",
        f'"{prefix}" in eco',
        ct.InSet.PRECEDENCE,
    )


@printer_for(ct.ScidbBoardTest)
def _scidb_board_test(node: ct.ScidbBoardTest, ctx: Context) -> Printed:
    return refused_as(
        node.origin, ctx, f":{node.fact.value}", "CQL 6.1 has no filter for it", "true"
    )


@printer_for(ct.CastlingRights)
def _castling_rights(node: ct.CastlingRights, ctx: Context) -> Printed:
    return refused_as(node.origin, ctx, ":castling", "CQL 6.1 has no castling rights", "true")


@printer_for(ct.DateIn)
def _date_in(node: ct.DateIn, ctx: Context) -> Printed:
    return refused_as(
        node.origin,
        ctx,
        ":date",
        "CQL 6.1 documents no comparison of dates, and a PGN date may be partial",
        "date",
    )


@printer_for(ct.PlyCount)
def _ply_count(node: ct.PlyCount, ctx: Context) -> Printed:
    return refused_as(node.origin, ctx, ":plycount", "CQL 6.1 has no length of the game", "ply")


@printer_for(ct.TagValueIn)
def _tag_value_in(node: ct.TagValueIn, ctx: Context) -> Printed:
    return refused_as(
        node.origin,
        ctx,
        f"the {node.name} tag",
        "CQL 6.1 documents no comparison of a tag with a list of values",
        f'tag "{node.name}"',
    )


@printer_for(ct.GameHas)
def _game_has(node: ct.GameHas, ctx: Context) -> Printed:
    return refused_as(
        node.origin,
        ctx,
        f"the game's {node.feature.value}",
        f"CQL 6.1 has no test of a whole game's {node.feature.value}",
        "true",
    )


@printer_for(ct.FenIs)
def _fen_is(node: ct.FenIs, ctx: Context) -> Printed:
    return refused_as(
        node.origin, ctx, ":fen", "CQL 6.1 has no castling rights and no en passant square", "true"
    )


@printer_for(ct.LineReached)
def _line_reached(node: ct.LineReached, ctx: Context) -> Printed:
    return refused_as(
        node.origin,
        ctx,
        ":line*",
        "the position it names depends on each game's start, and CQL 6.1 has no castling rights",
        "true",
    )


@printer_for(ct.HalfmoveClock)
def _halfmove_clock(node: ct.HalfmoveClock, ctx: Context) -> Printed:
    return refused_as(node.origin, ctx, ":halfmoveclock", "CQL 6.1 has no half-move clock", "ply")


def _misplaced_comment(node: ct.Comment | Pragma, ctx: Context) -> Printed:
    raise NotExpressible(
        "comment", "a // comment can only stand among the constituents of { } or the body"
    )


printer_for(ct.Comment)(_misplaced_comment)
printer_for(Pragma)(_misplaced_comment)


# --------------------------------------------------------------------------------------
# Filters over several positions
# --------------------------------------------------------------------------------------


def _quantifier(step: ct.LineStep, ctx: Context) -> str:
    lo, hi = step.lo, step.hi
    if lo < 0 or (hi is not None and hi < lo):
        raise NotExpressible("line", f"repetition {lo}..{hi} is empty or negative")
    shorthand = {(1, 1): "", **{bounds: text for text, bounds in REPETITIONS.items()}}
    if (lo, hi) in shorthand:
        return shorthand[(lo, hi)]
    return f"{{{lo},}}" if hi is None else f"{{{lo},{hi}}}"


def _one_group(printed: Printed) -> bool:
    """Is the code one parenthesised group, ``( … )`` from its first to its last character?"""
    code = " ".join(code_part(line) for line in printed.lines if not is_comment_line(line))
    depth = 0
    for match in re.finditer(r'"[^"]*"|[()]', code):
        depth += {"(": 1, ")": -1}.get(match.group(), 0)
        if depth == 0:
            return match.end() == len(code)
    return False


def _constituent(step: ct.LineStep, ctx: Context, closes_group: bool = False) -> Printed:
    quantifier = _quantifier(step, ctx)
    if closes_group and quantifier in ("*", "+"):
        # chessql reads `((ply)*)` as a product missing its right operand.
        quantifier = "{0,}" if quantifier == "*" else "{1,}"
    if isinstance(step.filter, ct.LineGroup):
        return joined([_group(step.filter, ctx), quantifier], ATOM, sep="")
    printed = print_operand(step.filter, ctx, TRANSFORM)
    plain_token = printed.level == ATOM and not isinstance(step.filter, ct.Number)
    # In a line a leading `(` opens a group of constituents, which must span it all.
    opens_group = first_code(printed).startswith("(")
    if (quantifier and not plain_token) or (opens_group and not _one_group(printed)):
        printed = parenthesised(printed)
    return joined([printed, quantifier], ATOM, sep="")


@printer_for(ct.Line)
def _line(node: ct.Line, ctx: Context) -> Printed:
    if not node.steps:
        raise NotExpressible("line", "it needs at least one constituent")
    parts: list[Printed | str] = ["line"]
    for step in node.steps:
        parts += ["-->", _constituent(step, ctx)]
    return joined(parts, node.precedence())


def _group(node: ct.LineGroup, ctx: Context) -> Printed:
    """``(C1 --> C2 …)``: constituents of a line that repeat together."""
    if not node.steps:
        raise NotExpressible("line", "a group of constituents needs at least one")
    parts: list[Printed | str] = []
    for i, step in enumerate(node.steps):
        if i:
            parts.append("-->")
        parts.append(_constituent(step, ctx, closes_group=i == len(node.steps) - 1))
    return parenthesised(joined(parts, ATOM))


@printer_for(ct.LineGroup)
def _line_group(node: ct.LineGroup, ctx: Context) -> Printed:
    raise NotExpressible("line", "a group of constituents can only stand in a line")


@printer_for(ct.Find)
def _find(node: ct.Find, ctx: Context) -> Printed:
    word = "find all" if node.all else "find"
    return joined([word, print_argument(node.arg, ctx)], node.precedence())


@printer_for(ct.Transform)
def _transform(node: ct.Transform, ctx: Context) -> Printed:
    if node.count and node.kind is ct.TransformKind.REVERSECOLOR:
        raise NotExpressible("reversecolor count", "CQL 6.1 reversecolor takes no count")
    word = node.kind.value + (" count" if node.count else "")
    return joined([word, print_argument(node.arg, ctx)], node.precedence())


# --------------------------------------------------------------------------------------
# Comparing positions (semantics: S-echo)
# --------------------------------------------------------------------------------------


@printer_for(ct.Echo)
def _echo(node: ct.Echo, ctx: Context) -> Printed:
    _variable_name(node.source, "position variable", ctx)
    _variable_name(node.target, "position variable", ctx)
    if node.source == node.target:
        raise NotExpressible("echo", "its source and target need two names")
    inner = ctx.binding(node.source).binding(node.target)
    word = "echo quiet" if node.quiet else "echo"
    parts: list[Printed | str] = [f"{word} ({node.source} {node.target})"]
    if node.in_all:
        parts.append("in all")
    parts.append(print_argument(node.body, inner))
    return joined(parts, node.precedence())


@printer_for(ct.PositionVariable)
def _position_variable(node: ct.PositionVariable, ctx: Context) -> Printed:
    if node.name not in ctx.bound or node.name in ctx.squares:
        raise NotExpressible(f"position variable {node.name}", "no enclosing echo binds it")
    return fragment(node.name)


@printer_for(ct.AtPosition)
def _at_position(node: ct.AtPosition, ctx: Context) -> Printed:
    # `:` binds tighter than everything: both sides are single tokens or parenthesised.
    position = print_node(node.position, ctx)
    if position.level != ATOM:
        position = parenthesised(position)
    arg = print_node(node.arg, ctx)
    if arg.level != ATOM or isinstance(node.arg, ct.Number):
        arg = parenthesised(arg)
    return joined([position, ":", arg], node.precedence(), sep="")


@printer_for(ct.PositionIntersection)
def _position_intersection(node: ct.PositionIntersection, ctx: Context) -> Printed:
    return _infix((node.left, node.right), "&", node.precedence(), ctx, empty=".")


# --------------------------------------------------------------------------------------
# Legacy-only nodes: refused, or their nearest CQL 6.1 form
# --------------------------------------------------------------------------------------


def construct_of(origin: ct.Origin | None, fallback: str) -> str:
    return origin.construct if origin is not None else fallback


def refused_as(
    origin: ct.Origin | None,
    ctx: Context,
    fallback: str,
    reason: str,
    written: str,
    level: int = ATOM,
) -> Printed:
    """A legacy-only construct: refused with ``reason``, or written as ``written`` (its
    nearest CQL 6.1 text, at precedence ``level``) when approximating."""
    note = ctx.refuse(construct_of(origin, fallback), reason, origin, written_as=written)
    return noted(note, fragment(written, level))


@printer_for(ct.Relation)
def _relation(node: ct.Relation, ctx: Context) -> Printed:
    # The translator writes every relation CQL 6.1 can say as echo; what reaches the
    # printer is one it cannot (its refusal says why).
    return refused_as(
        node.origin,
        ctx,
        ":relation",
        "this comparison with a later position has no exact echo form",
        "true",
    )


@printer_for(ct.HypotheticalLine)
def _hypothetical_line(node: ct.HypotheticalLine, ctx: Context) -> Printed:
    return refused_as(
        node.origin, ctx, ":line", "it asks hypothetical moves, which CQL 6.1 cannot say", "true"
    )


@printer_for(ct.RayCount)
def _ray_count(node: ct.RayCount, ctx: Context) -> Printed:
    note = ctx.refuse(
        construct_of(node.origin, ":ray"),
        "it counts rays (L20); CQL 6.1 ray gives the set of end squares, counted here",
        node.origin,
    )
    if node.attack:
        ray = _ray_like("xray", node.args, ctx, ct.XRay.PRECEDENCE)
    else:
        vectors = frozenset(v for d in node.directions for v in d.vectors)
        try:
            direction = Direction.from_vectors(vectors)
        except KeyError:
            direction = Direction.ANYDIRECTION
        ray = print_node(ct.Ray(node.args, direction), ctx)
    return noted(note, joined(["#", ray], node.precedence(), sep=""))


@printer_for(ct.LegacyOnly)
def _legacy_only(node: ct.LegacyOnly, ctx: Context) -> Printed:
    note = ctx.refuse(
        construct_of(node.origin, "legacy construct"),
        "its legacy meaning differs from every CQL 6.1 filter; the nearest one follows",
        node.origin,
    )
    return noted(note, print_node(node.filter, ctx))


# --------------------------------------------------------------------------------------
# Printers derived from a class's declared SYNTAX (core.declarations: Prefix, Arguments,
# Loop): no entry is written for such a class
# --------------------------------------------------------------------------------------


def derived_printer(cls: type[ct.Filter]) -> Callable[[ct.Filter, Context], Printed]:
    """The printer of a class that declares its syntax (``SYNTAX``)."""
    syntax, shape = cls.SYNTAX, ct.derived_shape(cls)
    if isinstance(syntax, ct.Prefix):
        return _prefix_printer(syntax, shape)
    if isinstance(syntax, ct.Arguments):
        return _arguments_printer(syntax, shape)
    assert isinstance(syntax, ct.Loop)  # derived_shape refuses anything else
    return _loop_printer(syntax, shape)


def _placed(node: ct.Filter, place: ct.Place, level: int, ctx: Context) -> Printed:
    if place is ct.Place.LEVEL:
        return print_operand(node, ctx, level)
    if place is ct.Place.CLOSED:
        return print_closed(node, ctx)
    printed = print_node(node, ctx)
    if printed.level != ATOM or isinstance(node, ct.Number):
        return parenthesised(printed)
    return printed


def _prefix_printer(syntax: ct.Prefix, shape: ct.Shape) -> Callable[[ct.Filter, Context], Printed]:
    (operand,) = shape.operands

    def write(node: ct.Filter, ctx: Context) -> Printed:
        flagged = syntax.flag is not None and getattr(node, syntax.flag)
        level = node.precedence()
        arg = _placed(getattr(node, operand), syntax.place, level, ctx)
        return joined([shape.words[1 if flagged else 0], arg], level)

    return write


def _arguments_printer(
    syntax: ct.Arguments, shape: ct.Shape
) -> Callable[[ct.Filter, Context], Printed]:
    def write(node: ct.Filter, ctx: Context) -> Printed:
        arguments = _argument_list([getattr(node, name) for name in shape.operands], ctx)
        return joined([shape.words[0], arguments], node.precedence(), sep=syntax.gap)

    return write


def _loop_printer(syntax: ct.Loop, shape: ct.Shape) -> Callable[[ct.Filter, Context], Printed]:
    def write(node: ct.Filter, ctx: Context) -> Printed:
        name, domain, body, every = (getattr(node, f) for f in _LOOP_FIELDS)
        _variable_name(name, f"{syntax.binds} variable", ctx)
        inner = ctx.binding_square(name) if syntax.binds == "square" else ctx.binding(name)
        word = f"{shape.words[0]} all" if every else shape.words[0]
        parts: list[Printed | str] = [f"{word} {name} in", print_closed(domain, ctx)]
        parts.append(print_argument(body, inner))
        return joined(parts, node.precedence())

    return write


_LOOP_FIELDS = ("name", "domain", "body", "all")


for _cls in ct.node_classes():
    if isinstance(_cls.SYNTAX, ct.Prefix | ct.Arguments | ct.Loop):
        PRINTERS.add(_cls, derived_printer(_cls))


def check_printers(classes: tuple[type[ct.Filter], ...]) -> None:
    """Each class of ``classes`` has a printer: written here, or derived from its
    ``SYNTAX`` (a legacy-only class has one that refuses it, naming the construct).

    >>> check_printers((type("Newcomer", (), {}),))
    Traceback (most recent call last):
    ...
    cqllegacy.core.declarations.DeclarationError: the CQL 6.1 printer has no entry for \
Newcomer: declare its SYNTAX, or write its printer in modern/node_printers.py
    """
    missing = ", ".join(cls.__name__ for cls in PRINTERS.missing(classes))
    if missing:
        raise ct.DeclarationError(
            f"the CQL 6.1 printer has no entry for {missing}: declare its SYNTAX, or write"
            " its printer in modern/node_printers.py"
        )


check_printers(ct.node_classes())
