"""Core :class:`~cqllegacy.core.tree.Query` → CQL 6.1 ASCII text (decision M5).

:func:`print_query` writes the ``cql( … )`` header and the body, one printer function
per core node class (a dispatch table), with the fewest parentheses that are safe
under the CQL 6.1 precedence table *and* the ``chessql`` parser: where the two
sources differ (unary minus, ``#``) the operand is always parenthesised.  Transform
and ``find`` arguments are braces (a compound), a single self-delimiting filter, or
parenthesised.  :mod:`cqllegacy.modern.grammar` reads the text back into the same
tree (``read_query(print_query(q)) == q`` for canonical trees, see below).

>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import parse_squares
>>> from cqllegacy.core.tree import Compound, Header, PieceSet, Query, TopList
>>> from cqllegacy.core.tree import Transform, TransformKind as T
>>> body = Compound((PieceSet(types_of("N"), parse_squares("d4")),
...                  PieceSet(types_of("k"), parse_squares("f3"))))
>>> body = Transform(T.FLIPCOLOR, Transform(T.FLIP, Transform(T.SHIFT, body)))
>>> print(print_query(Query(Header(inputs=("in.pgn",)), (TopList(body),))), end="")
cql(input in.pgn)
flipcolor flip shift {Nd4 kf3}

Pragmas: what CQL 6 cannot say about a query
--------------------------------------------

What a core query says beyond one CQL 6 list of filters (a list that marks only its
first position or none, several top-level lists, legacy tags) the printer writes as
:func:`cqllegacy.modern.encoding.encode` lays it out: CQL 6 items with
``// cqllegacy: …`` *pragma* comments, which the modern reader turns back into the
same query and every other CQL tool ignores.  The ``find`` items of the `lists` form
are written with the parentheses chessql wants (``(lo <= (find all {…}) <= hi)``,
``not (find {…})``); the reader also takes them without.

Every list shares the header's ``variations``; lists with different scopes are
refused.  A user comment whose text starts with ``cqllegacy:`` is refused, so that it
is never mistaken for a pragma.

Spellings chosen for the chessql parser
---------------------------------------

The empty square set is written ``([])`` (chessql misreads a bare ``[]`` next to
another filter), a constituent that starts with ``-``, a digit, or (after a word) a
string is parenthesised, ``[Aa]x ==`` becomes ``([Aa]x) ==`` (chessql takes it for a
piece assignment), and ``up -3 -1 X`` becomes ``down 1 3 X``.  Line repetitions are
written ``{m,n}`` as in chessql's tests; the CQL 6.1 documentation writes ``{m n}``, which
chessql reads as a compound (semantics: S-modern-syntax).

Canonical trees
---------------

Some trees have a shorter twin that means the same; the printer writes the meaning
exactly, but the reader returns the twin.  Canonical trees avoid them: a compound
holds at least one filter that is not a comment; ``Union``, ``Intersection``, ``And``
and ``Or`` hold at least two items; a ``PieceSet`` with no squares has every type
(``[]``) and a type set is never empty; an ``InRange`` has a bound; a direction range
is not wholly negative (``up -3 -1`` is written ``down 1 3``); a ``promote`` set
holds only Q, R, B, N and is either colour-symmetric or of one colour (then ``from``
is not ``P``/``p`` nor ``X & P``/``X & p``; when symmetric ``from`` is none of those
either); a case-insensitive ``Player`` text is lowercase ASCII; a comment never
starts with ``/``; a trailing comment (:attr:`~cqllegacy.core.tree.Comment.trailing`)
follows a filter that is not a comment, or opens a compound, or opens the body of a
list with no ``// cqllegacy: mark`` pragma (:func:`settle_comments` makes any tree so).

Comment layout (decision T3)
----------------------------

A comment is written on a line of its own, or, when it trails, at the end of the last
line of the filter before it, two spaces after it; the comments ending consecutive
one-line filters start in one column.  A trailing comment that opens a compound goes on
the line of its ``{``, one that opens the body on the header line (``cql()  // …``).
Nothing is ever written after a ``//`` on its line.  The reader takes a ``//`` comment
with code before it on its line as trailing, so the layout reads back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.modern.encoding import (
    Pragma,
    encode,
    is_commentary,
    settle_comments,
    trails_on_one_line,
)
from cqllegacy.modern.errors import NotExpressible
from cqllegacy.modern.vocabulary import (
    AND,
    ARITH,
    ATOM,
    ATTACK,
    BARE_WORDS,
    BLACK_PAWN,
    COLON,
    COMPLEMENT,
    COUNT,
    DIRECTION,
    IN,
    INTERSECTION,
    LINE,
    MOVE,
    NOT,
    OR,
    POWER,
    PRAGMA_PREFIX,
    PROMOTABLE,
    RANGE_OPS,
    RELATION,
    REPETITIONS,
    STRING_PATTERN,
    TRANSFORM,
    UNARY,
    UNION,
    WHITE_PAWN,
    implicit_search_ok,
    is_pragma_text,
    is_variable_name,
)
from cqllegacy.recursion import room_for_deep_trees
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

_SAFE_FILE_NAME = re.compile(r"[A-Za-z0-9_.\-/\\:+~]+\Z")

_INLINE_WIDTH = 72
_INDENT = "  "

# --------------------------------------------------------------------------------------
# Printed fragments
# --------------------------------------------------------------------------------------


@attrs.frozen
class Printed:
    """Lines of CQL text for one filter and the precedence level of its outer form.

    A ``//`` comment is a line of its own, or ends the line of the filter (or of the
    ``{``) it annotates; joining fragments never puts code after a ``//``.
    """

    lines: tuple[str, ...]
    level: int


def _text(text: str, level: int = ATOM) -> Printed:
    return Printed((text,), level)


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("//")


_STRING_OR_COMMENT = re.compile(f"{STRING_PATTERN}|//")


def _code(line: str) -> str:
    """``line`` without the ``//`` comment that ends it (a string may hold ``//``).

    >>> _code('Nd4  // the knight'), _code('"a//b" in player')
    ('Nd4', '"a//b" in player')
    """
    for match in _STRING_OR_COMMENT.finditer(line):
        if match.group() == "//":
            return line[: match.start()].rstrip()
    return line


def _ends_in_comment(line: str) -> bool:
    return _code(line) != line


def _join(first: Printed, second: Printed, sep: str = " ", level: int = ATOM) -> Printed:
    """``first`` and ``second`` on one line where no comment is in the way."""
    if not first.lines:
        return Printed(second.lines, level)
    if not second.lines:
        return Printed(first.lines, level)
    if _ends_in_comment(first.lines[-1]) or _is_comment(second.lines[0]):
        return Printed(first.lines + second.lines, level)
    merged = first.lines[-1] + sep + second.lines[0]
    return Printed((*first.lines[:-1], merged, *second.lines[1:]), level)


def _joined(parts: Sequence[Printed | str], level: int, sep: str = " ") -> Printed:
    out = Printed((), level)
    for part in parts:
        out = _join(out, _text(part) if isinstance(part, str) else part, sep, level)
    return out


def _parenthesised(printed: Printed) -> Printed:
    return _joined(["(", printed, ")"], ATOM, sep="")


def _noted(note: str | None, printed: Printed) -> Printed:
    if note is None:
        return printed
    return Printed((note, *printed.lines), printed.level)


def _indented(lines: Iterable[str]) -> tuple[str, ...]:
    return tuple(_INDENT + line for line in lines)


# --------------------------------------------------------------------------------------
# Context and dispatch
# --------------------------------------------------------------------------------------


@attrs.frozen
class _Context:
    """What the printer needs besides the node: the approximate switch, bound names."""

    approximate: bool
    bound: frozenset[str] = frozenset()
    #: The names among ``bound`` that a square loop binds (the others name pieces or
    #: positions): a variable of another kind under such a name would read back as it.
    squares: frozenset[str] = frozenset()

    def refuse(
        self,
        construct: str,
        reason: str,
        origin: ct.Origin | None = None,
        *,
        written_as: str = "",
    ) -> str:
        """Raise :class:`NotExpressible`, or (approximating) return the note to print.

        ``written_as`` says what the approximation prints; only the note mentions it.
        """
        if not self.approximate:
            raise NotExpressible(construct, reason, origin)
        where = f" at {origin.span}" if origin is not None and origin.span.line else ""
        instead = f"; written as {written_as}" if written_as else ""
        return f"// approximate: {construct}{where}: {reason}{instead}"

    def binding(self, name: str) -> _Context:
        return attrs.evolve(self, bound=self.bound | {name})

    def binding_square(self, name: str) -> _Context:
        return attrs.evolve(self, bound=self.bound | {name}, squares=self.squares | {name})


F = TypeVar("F", bound=ct.Filter)
_Printer = Callable[[F, _Context], Printed]
#: Each class's printer; it takes nodes of that class, which the table cannot say.  The
#: node classes CQL 6.1 cannot express (``MODERN = False``) have an entry too: one that
#: refuses them, naming the legacy construct (T1).
PRINTERS: Dispatcher[Callable[..., Printed]] = Dispatcher("CQL 6 printers")
#: The node classes the printer has an entry for (the same read-only mapping).
PRINTED: Mapping[type, Callable[..., Printed]] = PRINTERS


def _printer(cls: type[F]) -> Callable[[_Printer[F]], _Printer[F]]:
    return PRINTERS.register(cls)


#: A bare word's text (the inverse of the reader's table, vocabulary.BARE_WORDS).
_SPELLING: Mapping[ct.Filter, str] = {node: word for word, node in BARE_WORDS.items()}


def _bare_word(node: ct.Filter, ctx: _Context) -> Printed:
    return _text(_SPELLING[node])


# Every class declaring SYNTAX = Syntax.WORD prints as its word: no entry of its own.
PRINTERS.register(*{type(node) for node in BARE_WORDS.values()})(_bare_word)


def _print(node: ct.Filter, ctx: _Context) -> Printed:
    printer = PRINTERS.get(type(node))
    if printer is None:
        raise NotExpressible(type(node).__name__, "the CQL 6.1 printer does not know this node")
    return printer(node, ctx)


def _operand(node: ct.Filter, ctx: _Context, min_level: int) -> Printed:
    """``node`` printed for a place that needs at least ``min_level``."""
    printed = _print(node, ctx)
    return printed if printed.level >= min_level else _parenthesised(printed)


def _closed(node: ct.Filter, ctx: _Context) -> Printed:
    """An argument that must be a single token or a prefix form over one (``#X``, ``~X``)."""
    printed = _print(node, ctx)
    if printed.level < DIRECTION or isinstance(node, ct.Number):
        return _parenthesised(printed)
    return printed


def _argument(node: ct.Filter, ctx: _Context) -> Printed:
    """The argument of a transform, ``find`` or piece loop: braces, never a bare chain
    (semantics: S-modern-syntax)."""
    printed = _print(node, ctx)
    self_delimiting = isinstance(
        node,
        ct.Compound
        | ct.Transform
        | ct.Find
        | ct.PieceLoop
        | ct.SquareLoop
        | ct.Echo
        | ct.DirectionSet,
    )
    if self_delimiting or (printed.level >= MOVE and not isinstance(node, ct.Number)):
        return printed
    return _parenthesised(printed)


# --------------------------------------------------------------------------------------
# Items: compound constituents and the top-level body
# --------------------------------------------------------------------------------------


def _comment_line(text: str, ctx: _Context) -> str:
    if "\n" in text or "\r" in text:
        note = ctx.refuse("comment", "a // comment cannot span lines")
        return note + "\n//" + " ".join(text.split())
    if is_pragma_text(text):
        note = ctx.refuse("comment", f"text starting with {PRAGMA_PREFIX!r} reads as a pragma")
        return note + "\n// " + text.strip().replace(PRAGMA_PREFIX, "cqllegacy -", 1)
    # `///` is a comment *filter* in CQL 6.2: keep two slashes and a space.
    return "// " + text if text.startswith("/") else "//" + text


def _item(node: ct.Filter, ctx: _Context) -> Printed:
    if isinstance(node, ct.Comment):
        return Printed(tuple(_comment_line(node.text, ctx).split("\n")), ATOM)
    if isinstance(node, Pragma):
        return _text("//" + node.comment())
    return _print(node, ctx)


def _first_code(printed: Printed) -> str:
    return next((_code(line) for line in printed.lines if not _is_comment(line)), "")


def _extends(previous: Printed, following: Printed) -> bool:
    """Would ``following`` read as the continuation of the constituent ``previous``?

    A leading ``-`` reads as subtraction, a number as a range of the word before
    (``elo 2000``; chessql also after ``find {…}``), a string after ``in player`` as
    the player's search text.
    """
    start, end = _first_code(following)[:1], _code(previous.lines[-1]).rstrip()[-1:]
    return start == "-" or start.isdigit() or (start == '"' and end.isalpha())


def _line_runs_on(line: ct.Line, following: Printed) -> bool:
    """Would the next constituent read as part of ``line``'s last one?

    A ``{`` reads as a repetition, and after a ``+`` or ``*`` repetition the next
    constituent reads as the other operand of addition or multiplication.
    """
    last = line.steps[-1] if line.steps else None
    ends_in_operator = last is not None and last.hi is None and last.lo in (0, 1)
    return ends_in_operator or _first_code(following).startswith("{")


def _items(items: Sequence[ct.Filter], ctx: _Context) -> list[Printed]:
    """Constituents printed so that each one reads back as one constituent."""
    printed = [_item(item, ctx) for item in items]
    previous: Printed | None = None
    for i, item in enumerate(items):
        if not is_commentary(item):
            if previous is not None and _extends(previous, printed[i]):
                printed[i] = _parenthesised(printed[i])
            previous = printed[i]
    for i, item in enumerate(items):
        if isinstance(item, ct.Line):
            following = next(
                (
                    p
                    for p, it in zip(printed[i + 1 :], items[i + 1 :], strict=True)
                    if not is_commentary(it)
                ),
                None,
            )
            if following is not None and _line_runs_on(item, following):
                printed[i] = _parenthesised(printed[i])
    return printed


def _braced(items: Sequence[ct.Filter], ctx: _Context) -> Printed:
    printed = _items(items, ctx)
    inline = " ".join(p.lines[0] for p in printed)
    fits = all(len(p.lines) == 1 for p in printed) and len(inline) + 2 <= _INLINE_WIDTH
    if fits and not any(is_commentary(item) for item in items):
        return _text("{" + inline + "}")
    opening, laid_out = _laid_out(items, printed)
    body = tuple(line for p in laid_out for line in _indented(p.lines))
    return Printed((_with_comment("{", opening), *body, "}"), ATOM)


# --------------------------------------------------------------------------------------
# Trailing comments: on the line of what they annotate
# --------------------------------------------------------------------------------------

#: Between code and the trailing comment after it (the least; comments of
#: consecutive filters are aligned).
_TRAILING_GAP = "  "


def _with_comment(line: str, comment: str | None) -> str:
    return line if comment is None else line + _TRAILING_GAP + comment


def _laid_out(
    items: Sequence[ct.Filter], printed: Sequence[Printed]
) -> tuple[str | None, list[Printed]]:
    """The comment for the opening line (``{`` or the header), and the items with each
    trailing comment moved to the end of the last line of the filter before it.

    Comments that end consecutive one-line filters are aligned, as people align them
    in the margin of a legacy script.  A trailing comment with no code line before
    it stays on a line of its own (:func:`settle_comments` makes such trees canonical).
    """
    opening: str | None = None
    out: list[Printed] = []
    notes: list[str | None] = []
    for index, (item, p) in enumerate(zip(items, printed, strict=True)):
        if trails_on_one_line(item):
            if index == 0:
                opening = p.lines[0]
                continue
            if notes and notes[-1] is None and not _ends_in_comment(out[-1].lines[-1]):
                notes[-1] = p.lines[0]
                continue
        out.append(p)
        notes.append(None)
    return opening, _aligned(out, notes)


def _aligned(printed: Sequence[Printed], notes: Sequence[str | None]) -> list[Printed]:
    """Each note at the end of its item's last line; the notes of a run of one-line items
    start in one column."""
    out = list(printed)
    index = 0
    while index < len(out):
        if notes[index] is None:
            index += 1
            continue
        end = index + 1
        if len(out[index].lines) == 1:
            while end < len(out) and notes[end] is not None and len(out[end].lines) == 1:
                end += 1
        width = max(len(out[i].lines[-1]) for i in range(index, end))
        for i in range(index, end):
            last = out[i].lines[-1].ljust(width)
            out[i] = attrs.evolve(out[i], lines=(*out[i].lines[:-1], _with_comment(last, notes[i])))
        index = end
    return out


def _with_a_filter(items: tuple[ct.Filter, ...]) -> tuple[ct.Filter, ...]:
    # CQL wants a filter in every { }; `true` changes nothing next to comments.
    if all(is_commentary(item) for item in items):
        return (*items, ct.Simple(ct.Keyword.TRUE))
    return items


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


@_printer(ct.PieceSet)
def _piece_set(node: ct.PieceSet, ctx: _Context) -> Printed:
    if node.types & ~ANYTHING or node.squares & ~FULL or node.types < 0 or node.squares < 0:
        raise NotExpressible("piece designator", f"{node!r} is not a valid piece designator")
    text = designator_text(node.types, node.squares)
    # chessql misreads a bare `[]` after or before another filter (as an index).
    return _text("([])" if text == "[]" else text)


def _infix(items: Sequence[ct.Filter], word: str, level: int, ctx: _Context, empty: str) -> Printed:
    """An n-ary operator; nested ones of the same kind keep their parentheses."""
    if not items:
        return _text(empty)
    if len(items) == 1:
        return _print(items[0], ctx)
    operands = [_operand(item, ctx, level + 1) for item in items]
    for i, item in enumerate(items[:-1]):
        if _ends_with_a_flag(item) and operands[i].level >= level + 1:
            operands[i] = _parenthesised(operands[i])
    parts: list[Printed | str] = []
    for i, operand in enumerate(operands):
        if i:
            parts.append(word)
        parts.append(operand)
    inline = _joined(parts, level)
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
    return len(printed.lines) > 1 or len(printed.lines[0]) > _INLINE_WIDTH


def _one_per_line(operands: Sequence[Printed], word: str, level: int) -> Printed:
    """A long disjunction with one member per line, each after the first led by ``word``."""
    lines = list(operands[0].lines)
    for operand in operands[1:]:
        if _is_comment(operand.lines[0]):
            lines += [word, *operand.lines]  # a note line: the word cannot go before it
        else:
            lines += [f"{word} {operand.lines[0]}", *operand.lines[1:]]
    return Printed(tuple(lines), level)


@_printer(ct.Union)
def _union(node: ct.Union, ctx: _Context) -> Printed:
    return _infix(node.items, "|", UNION, ctx, empty="([])")


@_printer(ct.Intersection)
def _intersection(node: ct.Intersection, ctx: _Context) -> Printed:
    return _infix(node.items, "&", INTERSECTION, ctx, empty=".")


@_printer(ct.Complement)
def _complement(node: ct.Complement, ctx: _Context) -> Printed:
    # `~~` is the regex-match operator: a nested complement is always parenthesised.
    return _joined(["~", _closed(node.arg, ctx)], COMPLEMENT, sep="")


def _attack(left: ct.Filter, word: str, right: ct.Filter, ctx: _Context) -> Printed:
    return _joined([_operand(left, ctx, ATTACK), word, _operand(right, ctx, ATTACK + 1)], ATTACK)


@_printer(ct.Attacks)
def _attacks(node: ct.Attacks, ctx: _Context) -> Printed:
    return _attack(node.left, "attacks", node.right, ctx)


@_printer(ct.AttackedBy)
def _attacked_by(node: ct.AttackedBy, ctx: _Context) -> Printed:
    return _attack(node.left, "attackedby", node.right, ctx)


@_printer(ct.DirectionSet)
def _direction_set(node: ct.DirectionSet, ctx: _Context) -> Printed:
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
    arg = _print(node.arg, ctx)
    nested = isinstance(node.arg, ct.DirectionSet)  # its own argument is closed
    if (arg.level != ATOM and not nested) or isinstance(node.arg, ct.Number):
        arg = _parenthesised(arg)
    return _joined([direction.word + steps, arg], COMPLEMENT)


def _argument_list(args: Sequence[ct.Filter], ctx: _Context) -> Printed:
    parts = [_closed(arg, ctx) for arg in args]
    inner = _joined(parts, ATOM)
    return _joined(["(", inner, ")"], ATOM, sep="")


def _ray_like(keyword: str, args: tuple[ct.Filter, ...], ctx: _Context) -> Printed:
    if len(args) < 2:
        raise NotExpressible(keyword, "it needs at least two square sets")
    return _joined([keyword, _argument_list(args, ctx)], ATOM)


@_printer(ct.Ray)
def _ray(node: ct.Ray, ctx: _Context) -> Printed:
    word = "ray" if node.direction is Direction.ANYDIRECTION else f"ray {node.direction.word}"
    return _ray_like(word, node.args, ctx)


@_printer(ct.XRay)
def _xray(node: ct.XRay, ctx: _Context) -> Printed:
    return _ray_like("xray", node.args, ctx)


@_printer(ct.SquareColor)
def _square_color(node: ct.SquareColor, ctx: _Context) -> Printed:
    # As a direction's argument: one token or parenthesised, the form below `attacks`.
    arg = _print(node.arg, ctx)
    if arg.level != ATOM or isinstance(node.arg, ct.Number):
        arg = _parenthesised(arg)
    return _joined(["dark" if node.dark else "light", arg], COMPLEMENT)


@_printer(ct.Between)
def _between(node: ct.Between, ctx: _Context) -> Printed:
    return _joined(["between", _argument_list((node.left, node.right), ctx)], ATOM)


def _promotion(node: ct.Move, ctx: _Context) -> tuple[ct.Filter | None, str | None, str | None]:
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


@_printer(ct.Move)
def _move(node: ct.Move, ctx: _Context) -> Printed:
    from_, letters, note = _promotion(node, ctx)
    parts: list[Printed | str] = ["move"]
    if node.previous:
        parts.append("previous")
    if node.castle is not None:
        parts.append(node.castle.value)
    for word, arg in (("from", from_), ("to", node.to), ("capture", node.capture)):
        if arg is not None:
            parts += [word, _closed(arg, ctx)]
    if letters is not None:
        parts += ["promote", letters]
    if node.enpassant:
        parts.append("enpassant")
    return _noted(note, _joined(parts, MOVE))


@_printer(ct.PieceVariable)
def _piece_variable(node: ct.PieceVariable, ctx: _Context) -> Printed:
    if node.name not in ctx.bound or node.name in ctx.squares:
        raise NotExpressible(f"piece variable {node.name}", "no enclosing piece loop binds it")
    return _text(node.name)


def _variable_name(name: str, what: str, ctx: _Context) -> None:
    if not is_variable_name(name):
        raise NotExpressible(f"{what} {name!r}", "not a valid CQL variable name")
    if name in ctx.bound:
        raise NotExpressible(f"{what} {name!r}", "an enclosing filter already binds this name")


@_printer(ct.PieceLoop)
def _piece_loop(node: ct.PieceLoop, ctx: _Context) -> Printed:
    _variable_name(node.name, "piece variable", ctx)
    domain = _closed(node.domain, ctx)
    body = _argument(node.body, ctx.binding(node.name))
    word = "piece all" if node.all else "piece"
    return _joined([f"{word} {node.name} in", domain, body], TRANSFORM)


@_printer(ct.SquareVariable)
def _square_variable(node: ct.SquareVariable, ctx: _Context) -> Printed:
    if node.name not in ctx.squares:
        raise NotExpressible(f"square variable {node.name}", "no enclosing square loop binds it")
    return _text(node.name)


@_printer(ct.SquareLoop)
def _square_loop(node: ct.SquareLoop, ctx: _Context) -> Printed:
    # Written as a piece loop is: the domain closed, the body braced or tight.
    _variable_name(node.name, "square variable", ctx)
    domain = _closed(node.domain, ctx)
    body = _argument(node.body, ctx.binding_square(node.name))
    word = "square all" if node.all else "square"
    return _joined([f"{word} {node.name} in", domain, body], TRANSFORM)


@_printer(ct.InSet)
def _in_set(node: ct.InSet, ctx: _Context) -> Printed:
    left, right = _operand(node.left, ctx, IN + 1), _operand(node.right, ctx, IN + 1)
    return _joined([left, "in", right], IN)


# --------------------------------------------------------------------------------------
# Numeric filters
# --------------------------------------------------------------------------------------


@_printer(ct.Number)
def _number(node: ct.Number, ctx: _Context) -> Printed:
    return _text(str(node.value), ATOM if node.value >= 0 else UNARY)


@_printer(ct.Count)
def _count(node: ct.Count, ctx: _Context) -> Printed:
    return _joined(["#", _closed(node.arg, ctx)], COUNT, sep="")


@_printer(ct.Power)
def _power(node: ct.Power, ctx: _Context) -> Printed:
    return _joined(["power", _closed(node.arg, ctx)], POWER)


@_printer(ct.Arith)
def _arith(node: ct.Arith, ctx: _Context) -> Printed:
    left = _print(node.left, ctx)
    # chessql reads `power (A | K) - 1` as `power` of `(A | K) - 1`.
    power_of_group = isinstance(node.left, ct.Power) and left.lines[-1].endswith(")")
    if left.level < ARITH or power_of_group:
        left = _parenthesised(left)
    right = _operand(node.right, ctx, ARITH + 1)
    inline = _joined([left, node.op.value, right], ARITH)
    if node.op is ct.ArithOp.ADD and _too_long(inline):
        # A long sum (a legacy count split into parts): one term per line.
        terms = [_operand(t, ctx, ARITH + 1) for t in node.sum_terms(regroup=False)]
        if all(len(t.lines) == 1 and not _is_comment(t.lines[0]) for t in terms):
            return _one_per_line(terms, node.op.value, ARITH)
    return inline


@_printer(ct.Negate)
def _negate(node: ct.Negate, ctx: _Context) -> Printed:
    # `_closed` parenthesises every number: `-(3)` is not the number -3.
    return _joined(["-", _closed(node.arg, ctx)], UNARY, sep="")


@_printer(ct.Elo)
def _elo(node: ct.Elo, ctx: _Context) -> Printed:
    return _text("elo" if node.color is None else f"elo {node.color.value}")


_ANY_PIECE_WORD = re.compile(r"\[Aa\][\w$]+$")


def _relation_left(node: ct.Filter, ctx: _Context, op: str = "") -> Printed:
    printed = _operand(node, ctx, RELATION + 1)
    if op == "==" and _ANY_PIECE_WORD.search(printed.lines[-1]):
        # chessql reads `[Aa]a1 ==` as the piece assignment `[Aa]x = …`.
        return _parenthesised(printed)
    return printed


@_printer(ct.InRange)
def _in_range(node: ct.InRange, ctx: _Context) -> Printed:
    if node.lo is None and node.hi is None:
        raise NotExpressible("range", f"{node!r} has no bound")
    value = _relation_left(node.value, ctx, "==" if node.lo == node.hi else "")
    if node.lo == node.hi:
        return _joined([value, f"== {node.lo}"], RELATION)
    if node.hi is None:
        return _joined([value, f">= {node.lo}"], RELATION)
    if node.lo is None:
        return _joined([value, f"<= {node.hi}"], RELATION)
    return _joined([f"{node.lo} <=", value, f"<= {node.hi}"], RELATION)


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


@_printer(ct.Compare)
def _compare(node: ct.Compare, ctx: _Context) -> Printed:
    if node.op is ct.CompareOp.NE and isinstance(node.left, ct.PositionVariable):
        raise NotExpressible(
            "!=", "chessql reads no `!=` between two positions; write not (S == T)"
        )
    left = _relation_left(node.left, ctx, node.op.value)
    right = _operand(node.right, ctx, RELATION)
    if _reads_as_range(node):
        right = _parenthesised(right)
    return _joined([left, node.op.value, right], RELATION)


# --------------------------------------------------------------------------------------
# Logical, position and game filters
# --------------------------------------------------------------------------------------


@_printer(ct.Compound)
def _compound(node: ct.Compound, ctx: _Context) -> Printed:
    if not node.items:
        return _text("true")  # `{}` is not CQL; an empty conjunction always matches
    return _braced(_with_a_filter(node.items), ctx)


@_printer(ct.And)
def _and(node: ct.And, ctx: _Context) -> Printed:
    return _infix(node.items, "and", AND, ctx, empty="true")


@_printer(ct.Or)
def _or(node: ct.Or, ctx: _Context) -> Printed:
    return _infix(node.items, "or", OR, ctx, empty="false")


@_printer(ct.Not)
def _not(node: ct.Not, ctx: _Context) -> Printed:
    return _joined(["not", _operand(node.arg, ctx, NOT)], NOT)


@_printer(ct.Result)
def _result(node: ct.Result, ctx: _Context) -> Printed:
    return _text(f"result {node.result.value}")


def _string(
    text: str, construct: str, ctx: _Context, origin: ct.Origin | None = None
) -> tuple[str, str | None]:
    """A CQL string literal; CQL strings have no escapes for quotes or line ends."""
    unwritable = '"\\\n\r'
    if not any(ch in unwritable for ch in text):
        return f'"{text}"', None
    note = ctx.refuse(construct, f"the text {text!r} cannot be a CQL string", origin)
    return '"' + "".join(ch for ch in text if ch not in unwritable) + '"', note


def _tag_search(
    tag: str, text: str, construct: str, ctx: _Context, origin: ct.Origin | None = None
) -> Printed:
    literal, note = _string(text, construct, ctx, origin)
    if implicit_search_ok(text):
        return _noted(note, _text(f"{tag} {literal}"))
    return _noted(note, _text(f"{literal} in {tag}", IN))


@_printer(ct.Player)
def _player(node: ct.Player, ctx: _Context) -> Printed:
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
        return _noted(note, _tag_search(tag, node.text, ":player", ctx, node.origin))
    literal, string_note = _string(node.text.lower(), ":player", ctx, node.origin)
    return _noted(string_note, _text(f"{literal} in lowercase {tag}", IN))


@_printer(ct.TagContains)
def _tag_contains(node: ct.TagContains, ctx: _Context) -> Printed:
    return _tag_search(node.tag.value, node.text, f":{node.tag.value}", ctx)


def _misplaced_comment(node: ct.Comment | Pragma, ctx: _Context) -> Printed:
    raise NotExpressible(
        "comment", "a // comment can only stand among the constituents of { } or the body"
    )


_printer(ct.Comment)(_misplaced_comment)
_printer(Pragma)(_misplaced_comment)


# --------------------------------------------------------------------------------------
# Filters over several positions
# --------------------------------------------------------------------------------------


def _quantifier(step: ct.LineStep, ctx: _Context) -> str:
    lo, hi = step.lo, step.hi
    if lo < 0 or (hi is not None and hi < lo):
        raise NotExpressible("line", f"repetition {lo}..{hi} is empty or negative")
    shorthand = {(1, 1): "", **{bounds: text for text, bounds in REPETITIONS.items()}}
    if (lo, hi) in shorthand:
        return shorthand[(lo, hi)]
    return f"{{{lo},}}" if hi is None else f"{{{lo},{hi}}}"


def _one_group(printed: Printed) -> bool:
    """Is the code one parenthesised group, ``( … )`` from its first to its last character?"""
    code = " ".join(_code(line) for line in printed.lines if not _is_comment(line))
    depth = 0
    for match in re.finditer(r'"[^"]*"|[()]', code):
        depth += {"(": 1, ")": -1}.get(match.group(), 0)
        if depth == 0:
            return match.end() == len(code)
    return False


def _constituent(step: ct.LineStep, ctx: _Context, closes_group: bool = False) -> Printed:
    quantifier = _quantifier(step, ctx)
    if closes_group and quantifier in ("*", "+"):
        # chessql reads `((ply)*)` as a product missing its right operand.
        quantifier = "{0,}" if quantifier == "*" else "{1,}"
    if isinstance(step.filter, ct.LineGroup):
        return _joined([_group(step.filter, ctx), quantifier], ATOM, sep="")
    printed = _operand(step.filter, ctx, TRANSFORM)
    plain_token = printed.level == ATOM and not isinstance(step.filter, ct.Number)
    # In a line a leading `(` opens a group of constituents, which must span it all.
    opens_group = _first_code(printed).startswith("(")
    if (quantifier and not plain_token) or (opens_group and not _one_group(printed)):
        printed = _parenthesised(printed)
    return _joined([printed, quantifier], ATOM, sep="")


@_printer(ct.Line)
def _line(node: ct.Line, ctx: _Context) -> Printed:
    if not node.steps:
        raise NotExpressible("line", "it needs at least one constituent")
    parts: list[Printed | str] = ["line"]
    for step in node.steps:
        parts += ["-->", _constituent(step, ctx)]
    return _joined(parts, LINE)


def _group(node: ct.LineGroup, ctx: _Context) -> Printed:
    """``(C1 --> C2 …)``: constituents of a line that repeat together."""
    if not node.steps:
        raise NotExpressible("line", "a group of constituents needs at least one")
    parts: list[Printed | str] = []
    for i, step in enumerate(node.steps):
        if i:
            parts.append("-->")
        parts.append(_constituent(step, ctx, closes_group=i == len(node.steps) - 1))
    return _parenthesised(_joined(parts, ATOM))


@_printer(ct.LineGroup)
def _line_group(node: ct.LineGroup, ctx: _Context) -> Printed:
    raise NotExpressible("line", "a group of constituents can only stand in a line")


@_printer(ct.Find)
def _find(node: ct.Find, ctx: _Context) -> Printed:
    return _joined(["find all" if node.all else "find", _argument(node.arg, ctx)], TRANSFORM)


@_printer(ct.Transform)
def _transform(node: ct.Transform, ctx: _Context) -> Printed:
    if node.count and node.kind is ct.TransformKind.REVERSECOLOR:
        raise NotExpressible("reversecolor count", "CQL 6.1 reversecolor takes no count")
    word = node.kind.value + (" count" if node.count else "")
    return _joined([word, _argument(node.arg, ctx)], TRANSFORM)


# --------------------------------------------------------------------------------------
# Comparing positions (semantics: S-echo)
# --------------------------------------------------------------------------------------


@_printer(ct.Echo)
def _echo(node: ct.Echo, ctx: _Context) -> Printed:
    _variable_name(node.source, "position variable", ctx)
    _variable_name(node.target, "position variable", ctx)
    if node.source == node.target:
        raise NotExpressible("echo", "its source and target need two names")
    inner = ctx.binding(node.source).binding(node.target)
    word = "echo quiet" if node.quiet else "echo"
    parts: list[Printed | str] = [f"{word} ({node.source} {node.target})"]
    if node.in_all:
        parts.append("in all")
    parts.append(_argument(node.body, inner))
    return _joined(parts, TRANSFORM)


@_printer(ct.PositionVariable)
def _position_variable(node: ct.PositionVariable, ctx: _Context) -> Printed:
    if node.name not in ctx.bound or node.name in ctx.squares:
        raise NotExpressible(f"position variable {node.name}", "no enclosing echo binds it")
    return _text(node.name)


@_printer(ct.AtPosition)
def _at_position(node: ct.AtPosition, ctx: _Context) -> Printed:
    # `:` binds tighter than everything: both sides are single tokens or parenthesised.
    position = _print(node.position, ctx)
    if position.level != ATOM:
        position = _parenthesised(position)
    arg = _print(node.arg, ctx)
    if arg.level != ATOM or isinstance(node.arg, ct.Number):
        arg = _parenthesised(arg)
    return _joined([position, ":", arg], COLON, sep="")


@_printer(ct.PositionIntersection)
def _position_intersection(node: ct.PositionIntersection, ctx: _Context) -> Printed:
    return _infix((node.left, node.right), "&", INTERSECTION, ctx, empty=".")


@_printer(ct.Ancestor)
def _ancestor(node: ct.Ancestor, ctx: _Context) -> Printed:
    return _joined(["ancestor", _argument_list((node.left, node.right), ctx)], ATOM, sep="")


# --------------------------------------------------------------------------------------
# Legacy-only nodes: refused, or their nearest CQL 6.1 form
# --------------------------------------------------------------------------------------


def _construct(origin: ct.Origin | None, fallback: str) -> str:
    return origin.construct if origin is not None else fallback


@_printer(ct.Relation)
def _relation(node: ct.Relation, ctx: _Context) -> Printed:
    note = ctx.refuse(
        _construct(node.origin, ":relation"),
        # The translator writes every relation CQL 6.1 can say as echo; what reaches the
        # printer is one it cannot (its refusal says why).
        "this comparison with a later position has no exact echo form",
        node.origin,
        written_as="true",
    )
    return _noted(note, _text("true"))


@_printer(ct.RayCount)
def _ray_count(node: ct.RayCount, ctx: _Context) -> Printed:
    note = ctx.refuse(
        _construct(node.origin, ":ray"),
        "it counts rays (L20); CQL 6.1 ray gives the set of end squares, counted here",
        node.origin,
    )
    if node.attack:
        ray = _ray_like("xray", node.args, ctx)
    else:
        vectors = frozenset(v for d in node.directions for v in d.vectors)
        try:
            direction = Direction.from_vectors(vectors)
        except KeyError:
            direction = Direction.ANYDIRECTION
        ray = _print(ct.Ray(node.args, direction), ctx)
    return _noted(note, _joined(["#", ray], COUNT, sep=""))


@_printer(ct.LegacyOnly)
def _legacy_only(node: ct.LegacyOnly, ctx: _Context) -> Printed:
    note = ctx.refuse(
        _construct(node.origin, "legacy construct"),
        "its legacy meaning differs from every CQL 6.1 filter; the nearest one follows",
        node.origin,
    )
    return _noted(note, _print(node.filter, ctx))


# --------------------------------------------------------------------------------------
# The query: header, plain body or the `lists` form
# --------------------------------------------------------------------------------------

_LARGEST_GAME_NUMBER = 2**31 - 1


def file_name_text(name: str) -> str:
    """A header file name, quoted only when CQL would otherwise misread it.

    >>> file_name_text("in.pgn"), file_name_text("my games.pgn")
    ('in.pgn', '"my games.pgn"')
    """
    if _SAFE_FILE_NAME.match(name) and "//" not in name and "/*" not in name:
        return name
    return f'"{name}"'


def _file_parameter(word: str, construct: str, name: str, ctx: _Context) -> tuple[str, list[str]]:
    notes = []
    if any(ch in name for ch in '"\n\r'):
        notes.append(ctx.refuse(construct, f"the file name {name!r} cannot be written in CQL"))
        name = "".join(ch for ch in name if ch not in '"\n\r')
    return f"{word} {file_name_text(name)}", notes


def _header(
    query: ct.Query, matchcount: tuple[int, int] | None, variations: bool, ctx: _Context
) -> tuple[str, list[str]]:
    header = query.header
    params: list[str] = []
    notes: list[str] = []
    inputs = header.inputs
    if len(inputs) > 1:
        notes.append(ctx.refuse(":pgn", "CQL 6.1 reads one input file; the first is kept"))
        inputs = inputs[:1]
    for name in inputs:
        param, extra = _file_parameter("input", ":pgn", name, ctx)
        params.append(param)
        notes += extra
    if header.output is not None:
        output = header.output
        if not output.endswith(".pgn"):
            notes.append(
                ctx.refuse(":output", "CQL 6.1 needs an output file ending in .pgn; added")
            )
            output += ".pgn"
        param, extra = _file_parameter("output", ":output", output, ctx)
        params.append(param)
        notes += extra
    if header.gamenumber is not None:
        lo, hi = header.gamenumber
        if hi is None:
            notes.append(ctx.refuse(":gamenumber", "CQL 6.1 needs an upper game number"))
            hi = _LARGEST_GAME_NUMBER
        if lo < 0 or hi < lo:
            raise NotExpressible(":gamenumber", f"the range {lo}..{hi} selects no game")
        params.append(f"gamenumber {lo} {hi}")
    if matchcount is not None:
        params.append(f"matchcount {matchcount[0]} {matchcount[1]}")
    if variations:
        params.append("variations")
    return "cql(" + " ".join(params) + ")", notes


def _scope_is_all(query: ct.Query, ctx: _Context) -> tuple[bool, list[str]]:
    scopes = {top.scope for top in query.lists}
    if len(scopes) <= 1:
        return scopes == {ct.Scope.ALL}, []
    mainline_only = next(top for top in query.lists if top.scope is ct.Scope.MAINLINE)
    note = ctx.refuse(
        _construct(mainline_only.origin, "position list"),
        "this list follows only the main line while another examines variations, but CQL 6.1"
        " has one variations setting and would also follow variation moves here",
        mainline_only.origin,
    )
    return True, [note]


def print_query(query: ct.Query, *, approximate: bool = False) -> str:
    """CQL 6.1 text of ``query``; raises :class:`NotExpressible` unless ``approximate``.

    With ``approximate`` a construct without an exact CQL 6.1 form is written in its
    nearest form, after a ``// approximate: …`` line saying what and why.
    """
    with room_for_deep_trees():
        try:
            return _print_query(settle_comments(query), _Context(approximate))
        except RecursionError:
            raise NotExpressible("query", "its filters nest too deeply to print") from None


def _print_query(query: ct.Query, ctx: _Context) -> str:
    if not query.lists:
        raise NotExpressible("query", "it has no top-level list")
    variations, notes = _scope_is_all(query, ctx)
    encoded = encode(query)
    header, header_notes = _header(query, encoded.matchcount, variations, ctx)
    lines = [_comment_line(text, ctx) for text in encoded.leading_comments]
    body = _with_a_filter(encoded.items)
    opening, laid_out = _laid_out(body, _items(body, ctx))
    lines += [*header_notes, *notes, _with_comment(header, opening)]
    for printed in laid_out:
        lines += printed.lines
    return "\n".join(lines) + "\n"
