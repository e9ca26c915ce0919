"""What CQL 6 cannot say about a query, said in CQL 6: the pragma and tag-loop encoding.

A CQL 6 script marks every matching position and has one list of filters.  A core
query may mark only the first matching position or none (legacy ``:markall`` absent,
``:noannotate``), may hold several top-level lists that each must match at some
position of the game, and may bind legacy ``:forany`` tags.  :func:`encode` turns a
query into an :class:`Encoded` script (header facts and body items, with
:class:`Pragma` items where CQL 6 has no words); :func:`decode` turns one back.  The
printer (:mod:`cqllegacy.modern.printer`) writes the items, the reader
(:mod:`cqllegacy.modern.grammar`) reads them: neither knows the encoding.

``// cqllegacy: mark first`` / ``// cqllegacy: mark none`` (first line after the header)
    The single list marks only the first matching position, or none.  CQL 6 proper
    marks every matching position.

``// cqllegacy: lists`` (first line after the header)
    The body is ``initial`` followed by one item per top-level list:
    ``find {…}`` (the list matches somewhere), ``lo <= find all {…} <= hi``,
    ``find all {…} >= lo`` or ``find all {…} == n`` (its match count), or
    ``not find {…}`` (no match).  A ``// cqllegacy: mark first|none`` line may open
    each ``find`` body.  This form is also used for a single list whose match count
    the ``matchcount`` header cannot say (no upper bound, or zero), and for queries
    with tags: the lists then stand inside the tags' piece loops (:func:`tag_loops`).
    A query of several forms (``Query.forms``, Scidb's ``:eithercolor``) writes each
    form's items in braces, the forms joined by ``or``: ``{find {…} …} or {…}``.
    CQL 6 proper selects the same games but marks only their start position.

:func:`settle_comments` is the other half of the comment encoding: the trailing
comments the printer cannot write at the end of a line of code made comments of
their own lines (the tree that reading the printed text gives back).

>>> from cqllegacy.core.tree import Header, Keyword, Mark, Query, Simple, TopList
>>> query = Query(Header(), (TopList(Simple(Keyword.CHECK), mark=Mark.FIRST),))
>>> encoded = encode(query)
>>> [type(item).__name__ for item in encoded.items], encoded.items[0].text
(['Pragma', 'Simple'], 'mark first')
>>> decode(encoded) == query
True
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from cqllegacy.core import tree as ct
from cqllegacy.modern.vocabulary import PRAGMA_LISTS, PRAGMA_MARK, PRAGMA_PREFIX, is_pragma_text
from cqllegacy.records import Record
from cqllegacy.recursion import room_for_deep_trees
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import FULL

__all__ = [
    "Encoded",
    "EncodingError",
    "Pragma",
    "body_items",
    "decode",
    "encode",
    "header_matchcount",
    "is_commentary",
    "pragma_of",
    "settle_comments",
    "tag_loops",
]

_MARKS = frozenset(mark.value for mark in ct.Mark)


class EncodingError(Exception):
    """Text that reads as CQL 6 but not as an encoded query: the message, and where
    (the offset of the pragma concerned; None for the end of the body)."""

    def __init__(self, message: str, place: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.place = place


@attrs.frozen(repr=False, slots=True)
class Pragma(ct.Filter):
    """A ``// cqllegacy: TEXT`` line: ``TEXT`` is ``lists`` or ``mark first|none``.

    ``place`` is where the reader found it (offset in the script; 0 when the encoder
    made it), for the messages about it; it takes no part in equality.
    """

    WORD = "a pragma"
    CQL_WORDS = ()
    KIND = ct.Kind.LOGICAL
    OPERANDS = ct.NO_OPERANDS
    TRANSFORMS = ct.Transforms.NOTHING
    READS = ct.Reads.TAGS
    PRECEDENCE = ct.Precedence.ATOM

    text: str
    place: int = attrs.field(default=0, eq=False, repr=False)

    def comment(self) -> str:
        """The comment text as the printer writes it (after ``//``)."""
        return f" {PRAGMA_PREFIX} {self.text}"


def pragma_of(comment: str, place: int) -> Pragma | None:
    """The pragma a ``//`` comment's text (without ``//``) is, None for a user comment;
    raises :class:`EncodingError` for a ``cqllegacy:`` comment that is no pragma.

    >>> pragma_of(" cqllegacy:  mark   none", 7)
    Pragma(text='mark none')
    >>> pragma_of(" just a comment", 0) is None
    True
    """
    if not is_pragma_text(comment):
        return None
    words = comment.strip()[len(PRAGMA_PREFIX) :].split()
    if words == [PRAGMA_LISTS] or (
        len(words) == 2 and words[0] == PRAGMA_MARK and words[1] in _MARKS
    ):
        return Pragma(" ".join(words), place)
    raise EncodingError(f"unknown pragma {comment.strip()!r}", place)


def is_commentary(node: ct.Filter) -> bool:
    """A comment or a pragma: an item that matches nothing by itself."""
    return isinstance(node, ct.Comment | Pragma)


@attrs.frozen(repr=False)
class Encoded(Record):
    """A query as a CQL 6 script holds it: the header's facts and the body's items
    (one filter or a compound's items; pragmas among them where CQL 6 has no words).

    ``result`` is a header ``result`` parameter: the reader takes it (it means the
    filter ``result …`` opening the body); the encoder never writes one.
    """

    header: ct.Header
    items: tuple[ct.Filter, ...]
    variations: bool = False
    matchcount: tuple[int, int] | None = None
    result: GameResult | None = None
    leading_comments: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------


def header_matchcount(matchcount: tuple[int, int | None] | None) -> tuple[int, int] | None:
    """The list's match count as a header range, or None if the header cannot say it."""
    if matchcount is None:
        return None
    lo, hi = matchcount
    if hi is None or lo < 1 or hi < lo:
        return None
    return lo, hi


def body_items(body: ct.Filter) -> tuple[ct.Filter, ...]:
    """The constituents a body is written as (one filter, or a compound's items)."""
    if (
        isinstance(body, ct.Compound)
        and len(body.items) >= 2
        and not all(is_commentary(item) for item in body.items)
    ):
        return body.items
    return (body,)


def _mark_pragma(mark: ct.Mark) -> tuple[ct.Filter, ...]:
    return () if mark is ct.Mark.ALL else (Pragma(f"{PRAGMA_MARK} {mark.value}"),)


def _list_item(top: ct.TopList) -> ct.Filter:
    """One top-level list of the `lists` form as a CQL filter at the start position."""
    items = _mark_pragma(top.mark) + body_items(top.body)
    if top.matchcount is None:
        return ct.Find(ct.Compound(items))
    lo, hi = top.matchcount
    if (lo, hi) == (0, 0):
        return ct.Not(ct.Find(ct.Compound(items)))
    return ct.InRange(ct.Find(ct.Compound(items), all=True), lo, hi)


def tag_loops(query: ct.Query, items: Sequence[ct.Filter]) -> ct.Filter:
    """Legacy ``:forany`` tags around the items of the `lists` form, at the start position.

    Each tag is a piece loop over the pieces of the start position that may be its
    piece (:meth:`~cqllegacy.core.tree.TagDeclaration.start_types`, less the pieces of
    the tags bound outside it: distinct tags, distinct pieces), whose body first asks
    that the piece has one of the tag's types now or later (``find {t & TYPES}``), then
    holds the next tag's loop or the lists.  :func:`decode` reads exactly this shape
    back into the tags.
    """
    body: ct.Filter | None = None
    for index in reversed(range(len(query.tags))):
        tag = query.tags[index]
        variable = ct.PieceVariable(tag.name)
        eligible = ct.Find(ct.Compound((ct.Intersection((variable, ct.PieceSet(tag.types))),)))
        inner = list(items) if body is None else [body]
        body = ct.PieceLoop(
            tag.name, _tag_domain(query.tags, index), ct.Compound((eligible, *inner))
        )
    assert body is not None
    return body


def _tag_domain(tags: Sequence[ct.TagDeclaration], index: int) -> ct.Filter:
    domain: ct.Filter = ct.PieceSet(tags[index].start_types())
    outer = [ct.Complement(ct.PieceVariable(t.name)) for t in tags[:index]]
    return ct.Intersection((domain, *outer)) if outer else domain


def encode(query: ct.Query) -> Encoded:
    """``query`` as a CQL 6 script: a plain body when CQL 6 can say it, else the `lists`
    form (see the module's text).  The header says ``variations`` when some list
    examines variations (the printer refuses lists with different scopes)."""
    variations = any(top.scope is ct.Scope.ALL for top in query.lists)
    single = query.lists[0] if query.lists else None
    count = header_matchcount(single.matchcount) if single is not None else None
    if (
        single is not None
        and len(query.lists) == 1
        and not query.tags
        and (single.matchcount is None or count is not None)
    ):
        items = (*_mark_pragma(single.mark), *body_items(single.body))
        return Encoded(query.header, items, variations, count, None, query.leading_comments)
    lists: list[ct.Filter] = [_list_item(top) for top in query.lists]
    if query.forms > 1:
        size = len(lists) // query.forms
        forms = (ct.Compound(tuple(lists[i : i + size])) for i in range(0, len(lists), size))
        lists = [ct.Or(tuple(forms))]
    if query.tags:
        lists = [tag_loops(query, lists)]
    items = (Pragma(PRAGMA_LISTS), ct.Simple(ct.Keyword.INITIAL), *lists)
    return Encoded(query.header, items, variations, None, None, query.leading_comments)


# --------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------


def _is_pragma(node: ct.Filter | None, text: str | None = None) -> bool:
    return isinstance(node, Pragma) and (text is None or node.text == text)


def _leading_mark(items: Sequence[ct.Filter]) -> tuple[ct.Mark, list[ct.Filter]]:
    first = items[0] if items else None
    if isinstance(first, Pragma) and first.text.startswith(PRAGMA_MARK):
        return ct.Mark(first.text.split()[1]), list(items[1:])
    return ct.Mark.ALL, list(items)


def _body(items: Sequence[ct.Filter], place: int | None) -> ct.Filter:
    if all(is_commentary(item) for item in items):
        raise EncodingError("the body needs at least one filter", place)
    return items[0] if len(items) == 1 else ct.Compound(tuple(items))


def _list_of(node: ct.Filter, scope: ct.Scope, place: int) -> ct.TopList:
    """One item of the `lists` form back to its top-level list."""
    matchcount: tuple[int, int | None] | None
    if isinstance(node, ct.Find) and not node.all:
        find, matchcount = node, None
    elif isinstance(node, ct.Not) and isinstance(node.arg, ct.Find) and not node.arg.all:
        find, matchcount = node.arg, (0, 0)
    elif isinstance(node, ct.InRange) and isinstance(node.value, ct.Find) and node.value.all:
        find, matchcount = node.value, (0 if node.lo is None else node.lo, node.hi)
    else:
        raise EncodingError(
            "each list of the cqllegacy lists form is find {…}, a range of find all {…},"
            " or not find {…}",
            place,
        )
    mark = ct.Mark.ALL
    items: list[ct.Filter] = [find.arg]
    if isinstance(find.arg, ct.Compound):
        mark, items = _leading_mark(find.arg.items)
    return ct.TopList(_body(items, place), matchcount, mark, scope)


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


def _tags_of(
    items: list[ct.Filter], place: int
) -> tuple[tuple[ct.TagDeclaration, ...], list[ct.Filter]]:
    """The tags of :func:`tag_loops` around the lists, and the lists."""
    tags: list[ct.TagDeclaration] = []
    while len(items) == 1 and isinstance(items[0], ct.PieceLoop):
        loop = items[0]
        body = list(loop.body.items) if isinstance(loop.body, ct.Compound) else [loop.body]
        tag = _eligibility(body[0]) if body else None
        if tag is None or tag.name != loop.name:
            opening = f"find {{{loop.name} & TYPES}}"
            raise EncodingError(f"the piece loop of tag {loop.name!r} opens with {opening}", place)
        tags.append(tag)
        if loop.domain != _tag_domain(tags, len(tags) - 1):
            raise EncodingError(
                f"the piece loop of tag {loop.name!r} ranges over the wrong pieces", place
            )
        items = body[1:]
    return tuple(tags), items


def decode(encoded: Encoded) -> ct.Query:
    """The query ``encoded`` holds; raises :class:`EncodingError` for items that are not
    an encoding :func:`encode` writes, and for a pragma anywhere else than where it
    writes them."""
    scope = ct.Scope.ALL if encoded.variations else ct.Scope.MAINLINE
    items = list(encoded.items)
    first = items[0] if items else None
    if isinstance(first, Pragma) and first.text == PRAGMA_LISTS:
        query = _decode_lists(encoded, items[1:], scope, first.place)
    else:
        mark, items = _leading_mark(items)
        if encoded.result is not None:
            items.insert(0, ct.Result(encoded.result))
        top = ct.TopList(_body(items, None), encoded.matchcount, mark, scope)
        query = ct.Query(encoded.header, (top,), leading_comments=encoded.leading_comments)
    _no_pragma_left(query)
    return query


def _decode_lists(encoded: Encoded, rest: list[ct.Filter], scope: ct.Scope, place: int) -> ct.Query:
    for word, value in (("matchcount", encoded.matchcount), ("result", encoded.result)):
        if value is not None:
            raise EncodingError(f"the lists form cannot have a {word} header parameter", place)
    if len(rest) < 2 or rest[0] != ct.Simple(ct.Keyword.INITIAL):
        raise EncodingError("the cqllegacy lists form starts with initial and a find", place)
    tags, list_items = _tags_of(rest[1:], place)
    forms = 1
    if len(list_items) == 1 and isinstance(list_items[0], ct.Or):
        # The forms of the query, each in braces (see the module's text).
        members = list_items[0].items
        if len({len(_form_items(m, place)) for m in members}) != 1:
            raise EncodingError("the forms of the cqllegacy lists form differ in length", place)
        forms = len(members)
        list_items = [item for member in members for item in _form_items(member, place)]
    lists = tuple(_list_of(node, scope, place) for node in list_items)
    return ct.Query(
        encoded.header, lists, tags, leading_comments=encoded.leading_comments, forms=forms
    )


def _form_items(node: ct.Filter, place: int) -> tuple[ct.Filter, ...]:
    """The lists of one form of the `lists` form: the items of ``{…}``."""
    if not isinstance(node, ct.Compound) or not node.items:
        raise EncodingError("each form of the cqllegacy lists form is {…} of its lists", place)
    return node.items


def _no_pragma_left(query: ct.Query) -> None:
    for top in query.lists:
        stray = top.body.find(Pragma)
        if isinstance(stray, Pragma):
            message = f"a {PRAGMA_PREFIX} pragma can only open the body or a list's find"
            raise EncodingError(message, stray.place)


# --------------------------------------------------------------------------------------
# Comments the printer writes on lines of their own
# --------------------------------------------------------------------------------------


def comment_fits_a_line(text: str) -> bool:
    """Can a comment with this text end a line of code (one plain ``//`` line)?"""
    return "\n" not in text and "\r" not in text and not is_pragma_text(text)


def trails_on_one_line(node: ct.Filter) -> bool:
    """A trailing comment whose text prints as one plain ``//`` line."""
    return isinstance(node, ct.Comment) and node.trailing and comment_fits_a_line(node.text)


def settle_comments(query: ct.Query) -> ct.Query:
    """``query`` with every trailing comment the printer cannot write at the end of a
    line of code made a comment of its own line: the query that reading the printed
    text gives back.

    A trailing comment needs a filter before it in its compound, or the opening of the
    compound (``{``, or the header for the first filter of the body).  After another
    comment, after a ``// cqllegacy: mark …`` pragma (which opens a list that marks
    only its first position or none) and with a text that is not one plain ``//``
    line, it stands on a line of its own.

    >>> from cqllegacy.core.tree import Comment, Compound, Header, Keyword, Query, Simple, TopList
    >>> check = Simple(Keyword.CHECK)
    >>> body = Compound((check, Comment("a", True), Comment("b", True)))
    >>> settled = settle_comments(Query(Header(), (TopList(body),)))
    >>> [item.trailing for item in settled.lists[0].body.items[1:]]
    [True, False]
    """
    with room_for_deep_trees():
        return attrs.evolve(query, lists=tuple(_settled_list(top) for top in query.lists))


def _settled_list(top: ct.TopList) -> ct.TopList:
    body = top.body.transform(_settled_compound)
    items = body_items(body)
    if len(items) > 1 and top.mark is not ct.Mark.ALL and trails_on_one_line(items[0]):
        # The mark pragma takes the opening line of the list.
        assert isinstance(body, ct.Compound)
        body = ct.Compound((_untrailed(items[0]), *items[1:]))
    return attrs.evolve(top, body=body)


def _settled_compound(node: ct.Filter) -> ct.Filter:
    if not isinstance(node, ct.Compound):
        return node
    items = list(node.items)
    for index, item in enumerate(items):
        if not isinstance(item, ct.Comment) or not item.trailing:
            continue
        after_a_comment = index > 0 and isinstance(items[index - 1], ct.Comment)
        if after_a_comment or not comment_fits_a_line(item.text):
            items[index] = _untrailed(item)
    return attrs.evolve(node, items=tuple(items)) if items != list(node.items) else node


def _untrailed(item: ct.Filter) -> ct.Filter:
    return attrs.evolve(item, trailing=False) if isinstance(item, ct.Comment) else item
