"""The CQL 6.1 printer's machinery: printed fragments, the context, the dispatch table,
and the layout of items and comments.

A node's printer (:mod:`cqllegacy.modern.node_printers`) returns a :class:`Printed`:
its lines and the precedence level of its outer form, so that the one that holds it
can parenthesise it where its place needs more.

>>> joined([fragment("a"), "==", fragment("1")], 80).lines
('a == 1',)
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
    is_commentary,
    trails_on_one_line,
)
from cqllegacy.modern.errors import NotExpressible
from cqllegacy.modern.vocabulary import (
    ATOM,
    BARE_WORDS,
    DIRECTION,
    MOVE,
    PRAGMA_PREFIX,
    STRING_PATTERN,
    is_pragma_text,
)
from cqllegacy.records import Record

INLINE_WIDTH = 72
INDENT = "  "

# --------------------------------------------------------------------------------------
# Printed fragments
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class Printed(Record):
    """Lines of CQL text for one filter and the precedence level of its outer form.

    A ``//`` comment is a line of its own, or ends the line of the filter (or of the
    ``{``) it annotates; joining fragments never puts code after a ``//``.
    """

    lines: tuple[str, ...]
    level: int


def fragment(text: str, level: int = ATOM) -> Printed:
    return Printed((text,), level)


def is_comment_line(line: str) -> bool:
    return line.lstrip().startswith("//")


_STRING_OR_COMMENT = re.compile(f"{STRING_PATTERN}|//")


def code_part(line: str) -> str:
    """``line`` without the ``//`` comment that ends it (a string may hold ``//``).

    >>> code_part('Nd4  // the knight'), code_part('"a//b" in player')
    ('Nd4', '"a//b" in player')
    """
    for match in _STRING_OR_COMMENT.finditer(line):
        if match.group() == "//":
            return line[: match.start()].rstrip()
    return line


def _ends_in_comment(line: str) -> bool:
    return code_part(line) != line


def _join(first: Printed, second: Printed, sep: str = " ", level: int = ATOM) -> Printed:
    """``first`` and ``second`` on one line where no comment is in the way."""
    if not first.lines:
        return Printed(second.lines, level)
    if not second.lines:
        return Printed(first.lines, level)
    if _ends_in_comment(first.lines[-1]) or is_comment_line(second.lines[0]):
        return Printed(first.lines + second.lines, level)
    merged = first.lines[-1] + sep + second.lines[0]
    return Printed((*first.lines[:-1], merged, *second.lines[1:]), level)


def joined(parts: Sequence[Printed | str], level: int, sep: str = " ") -> Printed:
    out = Printed((), level)
    for part in parts:
        out = _join(out, fragment(part) if isinstance(part, str) else part, sep, level)
    return out


def parenthesised(printed: Printed) -> Printed:
    return joined(["(", printed, ")"], ATOM, sep="")


def noted(note: str | None, printed: Printed) -> Printed:
    if note is None:
        return printed
    return Printed((note, *printed.lines), printed.level)


def _indented(lines: Iterable[str]) -> tuple[str, ...]:
    return tuple(INDENT + line for line in lines)


# --------------------------------------------------------------------------------------
# Context and dispatch
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class Context(Record):
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

    def binding(self, name: str) -> Context:
        return attrs.evolve(self, bound=self.bound | {name})

    def binding_square(self, name: str) -> Context:
        return attrs.evolve(self, bound=self.bound | {name}, squares=self.squares | {name})


F = TypeVar("F", bound=ct.Filter)
_Printer = Callable[[F, Context], Printed]
#: Each class's printer; it takes nodes of that class, which the table cannot say.  The
#: node classes CQL 6.1 cannot express (``MODERN = False``) have an entry too: one that
#: refuses them, naming the legacy construct (T1).
PRINTERS: Dispatcher[Callable[..., Printed]] = Dispatcher("CQL 6 printers")
#: The node classes the printer has an entry for (the same read-only mapping).
PRINTED: Mapping[type, Callable[..., Printed]] = PRINTERS


def printer_for(cls: type[F]) -> Callable[[_Printer[F]], _Printer[F]]:
    return PRINTERS.register(cls)


#: A bare word's text (the inverse of the reader's table, vocabulary.BARE_WORDS).
_SPELLING: Mapping[ct.Filter, str] = {node: word for word, node in BARE_WORDS.items()}


def _bare_word(node: ct.Filter, ctx: Context) -> Printed:
    return fragment(_SPELLING[node])


# Every class declaring SYNTAX = Syntax.WORD prints as its word: no entry of its own.
PRINTERS.register(*{type(node) for node in BARE_WORDS.values()})(_bare_word)


def print_node(node: ct.Filter, ctx: Context) -> Printed:
    printer = PRINTERS.get(type(node))
    if printer is None:
        raise NotExpressible(type(node).__name__, "the CQL 6.1 printer does not know this node")
    return printer(node, ctx)


def print_operand(node: ct.Filter, ctx: Context, min_level: int) -> Printed:
    """``node`` printed for a place that needs at least ``min_level``."""
    printed = print_node(node, ctx)
    return printed if printed.level >= min_level else parenthesised(printed)


def print_closed(node: ct.Filter, ctx: Context) -> Printed:
    """An argument that must be a single token or a prefix form over one (``#X``, ``~X``)."""
    printed = print_node(node, ctx)
    if printed.level < DIRECTION or isinstance(node, ct.Number):
        return parenthesised(printed)
    return printed


def print_argument(node: ct.Filter, ctx: Context) -> Printed:
    """The argument of a transform, ``find`` or piece loop: braces, never a bare chain
    (semantics: S-modern-syntax)."""
    printed = print_node(node, ctx)
    # A loop (declared `SYNTAX = Loop(...)`) ends with its body, as these do.
    self_delimiting = isinstance(node.SYNTAX, ct.Loop) or isinstance(
        node, ct.Compound | ct.Transform | ct.Find | ct.Echo | ct.DirectionSet
    )
    if self_delimiting or (printed.level >= MOVE and not isinstance(node, ct.Number)):
        return printed
    return parenthesised(printed)


# --------------------------------------------------------------------------------------
# Items: compound constituents and the top-level body
# --------------------------------------------------------------------------------------


def comment_line(text: str, ctx: Context) -> str:
    if "\n" in text or "\r" in text:
        note = ctx.refuse("comment", "a // comment cannot span lines")
        return note + "\n//" + " ".join(text.split())
    if is_pragma_text(text):
        note = ctx.refuse("comment", f"text starting with {PRAGMA_PREFIX!r} reads as a pragma")
        return note + "\n// " + text.strip().replace(PRAGMA_PREFIX, "cqllegacy -", 1)
    # `///` is a comment *filter* in CQL 6.2: keep two slashes and a space.
    return "// " + text if text.startswith("/") else "//" + text


def _item(node: ct.Filter, ctx: Context) -> Printed:
    if isinstance(node, ct.Comment):
        return Printed(tuple(comment_line(node.text, ctx).split("\n")), node.precedence())
    if isinstance(node, Pragma):
        return fragment("//" + node.comment())
    return print_node(node, ctx)


def first_code(printed: Printed) -> str:
    return next((code_part(line) for line in printed.lines if not is_comment_line(line)), "")


def _extends(previous: Printed, following: Printed) -> bool:
    """Would ``following`` read as the continuation of the constituent ``previous``?

    A leading ``-`` reads as subtraction, a number as a range of the word before
    (``elo 2000``; chessql also after ``find {…}``), a string after ``in player`` as
    the player's search text.
    """
    start, end = first_code(following)[:1], code_part(previous.lines[-1]).rstrip()[-1:]
    return start == "-" or start.isdigit() or (start == '"' and end.isalpha())


def _line_runs_on(line: ct.Line, following: Printed) -> bool:
    """Would the next constituent read as part of ``line``'s last one?

    A ``{`` reads as a repetition, and after a ``+`` or ``*`` repetition the next
    constituent reads as the other operand of addition or multiplication.
    """
    last = line.steps[-1] if line.steps else None
    ends_in_operator = last is not None and last.hi is None and last.lo in (0, 1)
    return ends_in_operator or first_code(following).startswith("{")


def print_items(items: Sequence[ct.Filter], ctx: Context) -> list[Printed]:
    """Constituents printed so that each one reads back as one constituent."""
    printed = [_item(item, ctx) for item in items]
    previous: Printed | None = None
    for i, item in enumerate(items):
        if not is_commentary(item):
            if previous is not None and _extends(previous, printed[i]):
                printed[i] = parenthesised(printed[i])
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
                printed[i] = parenthesised(printed[i])
    return printed


def braced(items: Sequence[ct.Filter], ctx: Context) -> Printed:
    printed = print_items(items, ctx)
    inline = " ".join(p.lines[0] for p in printed)
    fits = all(len(p.lines) == 1 for p in printed) and len(inline) + 2 <= INLINE_WIDTH
    if fits and not any(is_commentary(item) for item in items):
        return fragment("{" + inline + "}")
    opening, laid_out = lay_out(items, printed)
    body = tuple(line for p in laid_out for line in _indented(p.lines))
    return Printed((with_comment("{", opening), *body, "}"), ATOM)


# --------------------------------------------------------------------------------------
# Trailing comments: on the line of what they annotate
# --------------------------------------------------------------------------------------

#: Between code and the trailing comment after it (the least; comments of
#: consecutive filters are aligned).
_TRAILING_GAP = "  "


def with_comment(line: str, comment: str | None) -> str:
    return line if comment is None else line + _TRAILING_GAP + comment


def lay_out(
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
            out[i] = attrs.evolve(out[i], lines=(*out[i].lines[:-1], with_comment(last, notes[i])))
        index = end
    return out


def with_a_filter(items: tuple[ct.Filter, ...]) -> tuple[ct.Filter, ...]:
    # CQL wants a filter in every { }; `true` changes nothing next to comments.
    if all(is_commentary(item) for item in items):
        return (*items, ct.Simple(ct.Keyword.TRUE))
    return items
