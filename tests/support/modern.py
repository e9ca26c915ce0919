"""Helpers for the modern printer/reader tests: chessql checks and short constructors."""

from __future__ import annotations

from typing import Any

from chessql.core import parser

from cqllegacy.core import tree as ct
from cqllegacy.vocab.pieces import ANYTHING, types_of
from cqllegacy.vocab.squares import FULL, SquareSyntaxError, parse_squares


def assert_cql(text: str) -> Any:
    """``text`` parses with the independent chessql CQL 6 parser; returns its tree."""
    try:
        return parser.parse(text)
    except Exception as exc:  # chessql raises several unrelated exception classes
        raise AssertionError(f"chessql rejects:\n{text}\n{exc}") from exc


def chessql_shape(text: str) -> list[tuple]:
    """The body of ``text`` as chessql parses it: nested ``(class name, children)``.

    Grouping parentheses are dropped, so the shape shows precedence only.
    """
    trace: list[tuple[int, Any]] = []
    assert_cql(text).parse_tree_node(trace=trace)
    nodes = [(depth, type(node).__name__) for depth, node in trace]

    def build(i: int) -> tuple[list[tuple], int]:
        depth = nodes[i][0]
        out: list[tuple] = []
        while i < len(nodes) and nodes[i][0] >= depth:
            name = nodes[i][1]
            children: list[tuple] = []
            if i + 1 < len(nodes) and nodes[i + 1][0] > depth:
                children, nxt = build(i + 1)
            else:
                nxt = i + 1
            if name == "ParenthesisLeft":
                out.extend(children)
            else:
                out.append((name, tuple(children)))
            i = nxt
        return out, i

    top, _ = build(0)
    (container,) = top
    (cql,) = container[1]
    return list(cql[1])


def pd(text: str) -> ct.PieceSet:
    """A piece designator written as in CQL 6: ``pd("Ka1")``, ``pd("[Aa]")``, ``pd("d4")``."""
    if text in (".", "[]"):
        return ct.PieceSet(ANYTHING, FULL if text == "." else 0)
    try:
        return ct.PieceSet(ANYTHING, parse_squares(text, allow_any=False))
    except SquareSyntaxError:
        pass
    end = text.index("]") + 1 if text.startswith("[") else 1
    letters, squares = text[:end].strip("[]"), text[end:]
    types = 0
    for ch in letters:
        types |= _LETTERS[ch]
    return ct.PieceSet(types, parse_squares(squares, allow_any=False) if squares else FULL)


_LETTERS = {
    **{ch: types_of(ch) for ch in "KQRBNPkqrbnp"},
    "A": types_of("KQRBNP"),
    "a": types_of("kqrbnp"),
    "_": 1 << 12,
}


def one(body: ct.Filter, **top: Any) -> ct.Query:
    """A query with one top-level list and an empty header."""
    return ct.Query(ct.Header(), (ct.TopList(body, **top),))


def compound(*items: ct.Filter) -> ct.Compound:
    return ct.Compound(tuple(items))


N = ct.Number
