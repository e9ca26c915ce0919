"""The pragma and tag-loop encoding (modern/encoding.py) as an encode/decode pair, and
the reader's handling of the text around it: names come from code only, places from
the same line table as the legacy reader's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as ct
from cqllegacy.errors import SourceText
from cqllegacy.legacy import LegacySyntaxError, read_script
from cqllegacy.modern import ModernSyntaxError, print_query, read_query
from cqllegacy.modern.encoding import (
    Encoded,
    EncodingError,
    Pragma,
    decode,
    encode,
    settle_comments,
)
from tests.support.strategies import queries, type_sets

CHECK = ct.Simple(ct.Keyword.CHECK)


def tags() -> st.SearchStrategy[tuple[ct.TagDeclaration, ...]]:
    names = st.lists(st.sampled_from(["t", "rook", "u2"]), unique=True, max_size=2)
    return names.flatmap(
        lambda chosen: st.tuples(
            *(type_sets().map(lambda types, n=name: ct.TagDeclaration(n, types)) for name in chosen)
        )
    )


def _encodable(query: ct.Query) -> bool:
    # A body of comments only is no list of CQL (the printer adds `true` to it).
    return all(
        not all(
            isinstance(item, ct.Comment)
            for item in (top.body.items if isinstance(top.body, ct.Compound) else (top.body,))
        )
        for top in query.lists
    )


@settings(max_examples=300, deadline=None)
@given(queries(depth=2), tags())
def test_decode_undoes_encode(query: ct.Query, declared: tuple[ct.TagDeclaration, ...]) -> None:
    query = ct.Query(query.header, query.lists, declared, query.leading_comments)
    if not _encodable(query):
        return
    encoded = encode(query)
    assert decode(encoded) == query
    # The header says `variations` exactly when the lists examine them.
    assert encoded.variations is (query.lists[0].scope is ct.Scope.ALL)


def test_the_encoding_writes_pragmas_only_where_cql_has_no_words() -> None:
    plain = ct.Query(ct.Header(), (ct.TopList(CHECK),))
    assert encode(plain).items == (CHECK,)
    first = ct.Query(ct.Header(), (ct.TopList(CHECK, mark=ct.Mark.FIRST),))
    assert encode(first).items == (Pragma("mark first"), CHECK)
    counted = ct.Query(ct.Header(), (ct.TopList(CHECK, matchcount=(2, None)),))
    assert encode(counted).items == (
        Pragma("lists"),
        ct.Simple(ct.Keyword.INITIAL),
        ct.InRange(ct.Find(ct.Compound((CHECK,)), all=True), 2, None),
    )


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ((CHECK, Pragma("mark first", 9)), "can only open the body"),
        ((Pragma("lists", 4), CHECK), "starts with initial and a find"),
        ((Pragma("lists", 4), ct.Simple(ct.Keyword.INITIAL), CHECK), "each list of the cqllegacy"),
        ((Pragma("mark none", 1),), "the body needs at least one filter"),
    ],
)
def test_decode_refuses_what_encode_never_writes(
    items: tuple[ct.Filter, ...], message: str
) -> None:
    with pytest.raises(EncodingError, match=message) as info:
        decode(Encoded(ct.Header(), items))
    pragmas = [item for item in items if isinstance(item, Pragma)]
    expected = None if "body needs" in message else pragmas[-1 if "open" in message else 0].place
    assert info.value.place == expected


def test_settle_comments_is_what_reading_the_printed_text_gives() -> None:
    body = ct.Compound(
        (ct.Comment("opening", True), CHECK, ct.Comment("a", True), ct.Comment("b", True))
    )
    query = ct.Query(ct.Header(), (ct.TopList(body, mark=ct.Mark.FIRST),))
    settled = settle_comments(query)
    assert read_query(print_query(query)) == settled
    items = settled.lists[0].body.items  # type: ignore[attr-defined]
    # The mark pragma takes the opening line; `b` follows a comment: both on own lines.
    assert [item.trailing for item in items if isinstance(item, ct.Comment)] == [False, True, False]


# --------------------------------------------------------------------------------------
# The reader around the encoding
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("cql()\n// piece x in\nx\n", 3, 1),
        ("cql()\n/* echo (x y) */ x\n", 2, 18),
        ('cql()\n"piece x in" in player\nx\n', 3, 1),
    ],
)
def test_comments_and_strings_declare_no_names(text: str, line: int, column: int) -> None:
    with pytest.raises(ModernSyntaxError) as info:
        read_query(text)
    assert info.value.message == "unknown word 'x'"
    assert (info.value.line, info.value.column) == (line, column)


def test_a_name_declared_in_code_elsewhere_is_unbound_not_unknown() -> None:
    with pytest.raises(ModernSyntaxError, match="piece variable 'x' is unbound here"):
        read_query("cql()\nx\npiece x in A x\n")


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\x0b", "\u2028"])
def test_both_readers_count_lines_as_the_excerpt_shows_them(newline: str) -> None:
    modern = f"cql(){newline}flipcolour {{Ka1}}{newline}"
    with pytest.raises(ModernSyntaxError) as info:
        read_query(modern)
    assert (info.value.line, info.value.column) == (2, 1)
    assert info.value.excerpt.splitlines()[0].strip() == "flipcolour {Ka1}"
    legacy = f"(match{newline}(position Ri9))"
    with pytest.raises(LegacySyntaxError) as legacy_info:
        read_script(legacy)
    assert legacy_info.value.line == 2
    assert "(position Ri9))" in legacy_info.value.excerpt


def test_source_text_places_offsets_by_the_line_breaks_of_splitlines() -> None:
    text = "a\rb\r\nc\x85d\n"
    source = SourceText(text)
    lines = text.splitlines(keepends=True)
    starts = [sum(len(line) for line in lines[:i]) for i in range(len(lines))]
    for number, start in enumerate(starts, 1):
        assert source.position(start) == (number, 1)
