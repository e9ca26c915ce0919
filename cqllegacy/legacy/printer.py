"""Canonical legacy text: one item per line, two-space indent, comments kept in place.

Designators are spelled canonically (:func:`~cqllegacy.vocab.pieces.format_legacy_types`,
:func:`~cqllegacy.vocab.squares.format_squares`), so two spellings of one script print
the same.  ``read_script(print_script(s)) == s`` holds for every script the reader
accepts.  A comment that followed an item on the same source line stays on that line.

>>> from cqllegacy.legacy.grammar import read_script
>>> print(print_script(read_script(
...     "(match :result 1/2 (position R[a1,b1,c1,d1,e1,f1,g1,h1] ?d4 :markall ; each\\n"
...     " :and ((position :mate) (position :check)) :ray (Q k) 1 unlimited))"
... )), end="")
(match
  :result 1/2-1/2
  (position
    Ra-h1
    ?d4
    :markall ; each
    :and (
      (position
        :mate)
      (position
        :check))
    :ray (Q k) 1 unlimited))
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence

import attrs

from cqllegacy.legacy import tree as t
from cqllegacy.vocab.pieces import EMPTY_BIT, format_legacy_types
from cqllegacy.vocab.spans import NO_SPAN, Span
from cqllegacy.vocab.squares import FULL, format_squares

INDENT = "  "


def print_script(script: t.Script) -> str:
    """The canonical text of ``script``, ending with a line break."""
    lines = [_comment_text(comment) for comment in script.leading]
    lines += _block("(match", script.match.span, script.match.items, "")
    lines += [_comment_text(comment) for comment in script.trailing]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------------------


def _block(head: str, span: Span, items: Sequence[object], indent: str) -> list[str]:
    """``head`` then one item per line; the closing ')' ends the last line unless that
    line ends with a comment."""
    if not items:
        return [indent + head + ")"]
    lines = [indent + head]
    inner = indent + INDENT
    previous_span: Span | None = span
    for item in items:
        if isinstance(item, t.Comment) and _same_line(previous_span, item.span):
            lines[-1] += " " + _comment_text(item)
            previous_span = None
            continue
        lines += _lines(item, inner)
        previous_span = _single_line_span(item)
    if isinstance(items[-1], t.Comment):
        lines.append(indent + ")")
    else:
        lines[-1] += ")"
    return lines


def _same_line(previous: Span | None, current: Span) -> bool:
    return previous is not None and previous != NO_SPAN and previous.line == current.line


def _single_line_span(item: object) -> Span | None:
    """The span of an item printed on one line (a comment may follow it there)."""
    if isinstance(item, t.Comment) or _multi_line(item):
        return None
    span = getattr(item, "span", None)
    return span if isinstance(span, Span) else None


def _multi_line(item: object) -> bool:
    if isinstance(item, t.PositionList | t.Relation):
        return bool(item.items)
    return isinstance(item, t.ListOfLists) and bool(item.lists) and item.line is None


@functools.singledispatch
def _lines(item: object, indent: str) -> list[str]:
    return [indent + _text(item)]


@_lines.register
def _(item: t.PositionList, indent: str) -> list[str]:
    return _block("(position", item.span, item.items, indent)


@_lines.register
def _(item: t.ListOfLists, indent: str) -> list[str]:
    if item.line is not None:  # Scidb's :line, read back as the same item
        return [f"{indent}:line ({item.line})"]
    head = f":{item.keyword.value} ("
    if not item.lists:
        return [indent + head + ")"]
    lines = [indent + head]
    for position_list in item.lists:
        lines += _block("(position", position_list.span, position_list.items, indent + INDENT)
    lines[-1] += ")"
    return lines


@_lines.register
def _(item: t.Relation, indent: str) -> list[str]:
    return _block(":relation (", item.span, item.items, indent)


# --------------------------------------------------------------------------------------
# Items printed on one line
# --------------------------------------------------------------------------------------


@functools.singledispatch
def _text(item: object) -> str:
    """A keyword item: its keyword, then its parameters in field order (``KEYWORD``)."""
    cls = type(item)
    declared = getattr(cls, "KEYWORD", None)
    if not isinstance(declared, t.KeywordDeclaration) or not attrs.has(cls):
        raise TypeError(f"not a legacy tree item: {item!r}")
    fields = [f.name for f in attrs.fields(cls) if f.name != "span"]
    if declared.keyed is not None:
        head, *fields = fields  # the first field holds the keyword
        name = str(getattr(item, head).value)
    else:
        (name,) = declared.names()
    parameters = (_parameter_text(getattr(item, field)) for field in fields)
    return " ".join([":" + name, *(text for text in parameters if text)])


@_text.register
def _(item: t.HypotheticalMoves) -> str:
    # Read back as the same item: ``|`` with no played move before it.
    return ":line (| " + " ".join(_line_move_text(move) for move in item.moves) + ")"


@_text.register
def _(item: t.TransposedLine) -> str:
    return f":line* ({item.text})"


_SUFFIXES = {
    ("check", False): "+",
    ("doublecheck", False): "++",
    ("contactcheck", False): "+++",
    ("mate", False): "#",
    ("check", True): "-",
    ("doublecheck", True): "--",
    ("contactcheck", True): "---",
    ("mate", True): "*",
}


def _line_squares(squares: int) -> str:
    return "??" if squares == FULL else format_squares(squares)


def _line_move_text(move: t.LineMove) -> str:
    """A move of ``:line`` in its full form: origin, separator, destination, suffixes."""
    origin = format_legacy_types(move.origin.types) + _line_squares(move.origin.squares)
    pieces = move.target.types & ~EMPTY_BIT
    if move.enpassant or not move.target.types & EMPTY_BIT:
        separator = "x"
    else:
        separator = ":" if pieces else "-"
    captured = format_legacy_types(pieces) if pieces and not move.enpassant else ""
    text = origin + separator + captured + _line_squares(move.target.squares)
    if move.promotion is not None:
        text += "=" + format_legacy_types(move.promotion.types)
    for check in move.checks:  # in the reader's order: a check suffix, then `*`
        text += _SUFFIXES[check]
    text += "!" * move.forced
    return text + " ep" * move.enpassant


@_text.register
def _(item: t.NegatedMatchItem) -> str:
    return "!" + _text(item.item)


def _parameter_text(value: object) -> str:
    """One parameter of a keyword item ("" for an optional one left out)."""
    if value is None:
        return ""
    if isinstance(value, tuple):  # a ray's designators
        return "(" + " ".join(_parameter_text(item) for item in value) + ")"
    if isinstance(value, t.Designator):
        return designator_text(value)
    if isinstance(value, t.Range):
        return range_text(value)
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


def designator_text(designator: t.Designator) -> str:
    """Canonical spelling of a designator; squares of a tag are always bracketed.

    >>> from cqllegacy.vocab.squares import parse_squares
    >>> designator_text(t.Designator(0, parse_squares("d4"), tag="rook"))
    '$rook[d4]'
    """
    squares = format_squares(designator.squares)
    if designator.tag is None:
        return format_legacy_types(designator.types) + squares
    if designator.squares != FULL and not squares.startswith("["):
        squares = f"[{squares}]"
    return f"${designator.tag}{squares}"


def range_text(value: t.Range) -> str:
    """``3``, ``1 3`` or ``1 unlimited``."""
    if value.hi == value.lo:
        return str(value.lo)
    return f"{value.lo} {'unlimited' if value.hi is None else value.hi}"


def _comment_text(comment: t.Comment) -> str:
    return ";" + comment.text


_text.register(t.Designator, designator_text)
_text.register(t.Comment, _comment_text)
