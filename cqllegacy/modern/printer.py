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

from cqllegacy.core import tree as ct
from cqllegacy.modern.encoding import (
    encode,
    settle_comments,
)
from cqllegacy.modern.errors import NotExpressible
from cqllegacy.modern.layout import (
    PRINTED,
    PRINTERS,
    Context,
    comment_line,
    lay_out,
    print_items,
    with_a_filter,
    with_comment,
)
from cqllegacy.modern.node_printers import construct_of, designator_text
from cqllegacy.recursion import room_for_deep_trees

__all__ = ["PRINTED", "PRINTERS", "designator_text", "file_name_text", "print_query"]

_SAFE_FILE_NAME = re.compile(r"[A-Za-z0-9_.\-/\\:+~]+\Z")


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


def _file_parameter(word: str, construct: str, name: str, ctx: Context) -> tuple[str, list[str]]:
    notes = []
    if any(ch in name for ch in '"\n\r'):
        notes.append(ctx.refuse(construct, f"the file name {name!r} cannot be written in CQL"))
        name = "".join(ch for ch in name if ch not in '"\n\r')
    return f"{word} {file_name_text(name)}", notes


def _header(
    query: ct.Query, matchcount: tuple[int, int] | None, variations: bool, ctx: Context
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


def _scope_is_all(query: ct.Query, ctx: Context) -> tuple[bool, list[str]]:
    scopes = {top.scope for top in query.lists}
    if len(scopes) <= 1:
        return scopes == {ct.Scope.ALL}, []
    mainline_only = next(top for top in query.lists if top.scope is ct.Scope.MAINLINE)
    note = ctx.refuse(
        construct_of(mainline_only.origin, "position list"),
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
            return _print_query(settle_comments(query), Context(approximate))
        except RecursionError:
            raise NotExpressible("query", "its filters nest too deeply to print") from None


def _print_query(query: ct.Query, ctx: Context) -> str:
    if not query.lists:
        raise NotExpressible("query", "it has no top-level list")
    variations, notes = _scope_is_all(query, ctx)
    encoded = encode(query)
    header, header_notes = _header(query, encoded.matchcount, variations, ctx)
    lines = [comment_line(text, ctx) for text in encoded.leading_comments]
    body = with_a_filter(encoded.items)
    opening, laid_out = lay_out(body, print_items(body, ctx))
    lines += [*header_notes, *notes, with_comment(header, opening)]
    for printed in laid_out:
        lines += printed.lines
    return "\n".join(lines) + "\n"
