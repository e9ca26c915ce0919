"""What rewriting a legacy list needs: the translation's context and small builders of
core constituents (*parts*: a tuple of core filters whose conjunction is the meaning).

>>> sum_of([core.Number(1), core.Number(2)])
Arith(op=<ArithOp.ADD: '+'>, left=Number(value=1), right=Number(value=2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import attrs
from cqllegacy.translator.errors import translation_error
from cqllegacy.translator.orbits import (
    Budget,
)

from cqllegacy.core import tree as core
from cqllegacy.legacy.tree import (
    Designator,
    PositionList,
    Range,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANYTHING,
    TypeSet,
)
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import FULL

TRUE = core.Simple(core.Keyword.TRUE)
FALSE = core.Simple(core.Keyword.FALSE)

Parts: TypeAlias = tuple[core.Filter, ...]


@attrs.define(repr=False)
class TranslationContext(Record):
    """What rewriting one top-level list needs besides the legacy tree.

    ``scope`` is the scope of the enclosing top-level list: with ``Scope.ALL`` a
    position has several continuations, which ``:noenpassant`` must account for.
    """

    scope: core.Scope = core.Scope.MAINLINE
    budget: Budget = attrs.field(factory=Budget)
    path: str | None = None
    memo: dict[PositionList, core.Filter] = attrs.field(factory=dict)
    nested: dict[PositionList, core.Filter] = attrs.field(factory=dict)
    #: ``memo`` and ``nested`` asked by the identity of a list first: the members of an
    #: orbit share their nested lists (``orbits.transform_list``), and a legacy list's
    #: hash is computed afresh at every lookup.  Each entry keeps its list.
    by_identity: dict[tuple[int, bool], tuple[PositionList, core.Filter]] = attrs.field(
        factory=dict
    )
    #: Write what CQL 6.1 text says (``translate``) instead of the faster legacy-only
    #: nodes ``run`` evaluates (``:relation`` as ``echo``).
    modern: bool = False
    #: The top-level list examines main-line positions only.
    sources_on_mainline: bool = True

    def error(self, message: str, span: Span, hint: str = "") -> Exception:
        return translation_error(message, span, path=self.path, hint=hint)


# --------------------------------------------------------------------------------------
# Small builders
# --------------------------------------------------------------------------------------


def conjunction(parts: Sequence[core.Filter]) -> core.Filter:
    """One filter for constituents: ``true`` for none, ``{…}`` otherwise."""
    if all(isinstance(p, core.Comment) for p in parts):
        return core.Compound((*parts, TRUE)) if parts else TRUE
    if _is_false_parts(parts):
        return FALSE
    if len(parts) == 1 and isinstance(parts[0], core.Compound):
        return parts[0]
    return core.Compound(tuple(parts))


def _is_false_parts(parts: Sequence[core.Filter]) -> bool:
    return any(p == FALSE for p in parts)


def simplify_parts(parts: Sequence[core.Filter]) -> Parts:
    """Drop ``true`` constituents; a ``false`` one makes the whole list false (its
    comments stay, so that they still appear in the translation)."""
    if _is_false_parts(parts):
        return (*(p for p in parts if isinstance(p, core.Comment)), FALSE)
    return tuple(p for p in parts if p != TRUE)


def sum_of(terms: Sequence[core.Filter]) -> core.Filter:
    """``t1 + t2 + …`` (left-associated); ``0`` for no terms."""
    if not terms:
        return core.Number(0)
    total = terms[0]
    for term in terms[1:]:
        total = core.Arith(core.ArithOp.ADD, total, term)
    return total


def in_range(value: core.Filter, r: Range) -> core.Filter:
    return core.InRange(value, r.lo, r.hi)


def constant_in_range(value: int, r: Range) -> core.Filter:
    return TRUE if value in r else FALSE


def piece_filter(d: Designator) -> core.Filter | None:
    """The set of squares a designator stands for; None when it can never hold a
    square (``[]``, or emptied by a shift: decision L5)."""
    if d.squares == 0 or (d.tag is None and d.types == 0):
        return None
    if d.tag is not None:
        variable = core.PieceVariable(d.tag)
        if d.squares == FULL:
            return variable
        return core.Intersection((variable, core.PieceSet(ANYTHING, d.squares)))
    return core.PieceSet(d.types, d.squares)


def restrict(f: core.Filter | None, types: TypeSet, squares: int = FULL) -> core.Filter | None:
    """``f`` restricted to contents ``types`` on ``squares``; None when provably empty."""
    if f is None or types == 0 or squares == 0:
        return None
    if isinstance(f, core.PieceSet):
        t, s = f.types & types, f.squares & squares
        return None if t == 0 or s == 0 else core.PieceSet(t, s)
    if types == ANYTHING and squares == FULL:
        return f
    return core.Intersection((f, core.PieceSet(types, squares)))


def meet(a: core.Filter | None, b: core.Filter | None) -> core.Filter | None:
    """Intersection of two optional square filters (None = no constraint)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(b, core.PieceSet):
        return restrict(a, b.types, b.squares) or EMPTY_SET
    if isinstance(a, core.PieceSet):
        return restrict(b, a.types, a.squares) or EMPTY_SET
    return core.Intersection((a, b))


# A square filter that never matches; only used to mark "no square can qualify".
EMPTY_SET = core.PieceSet(0, 0)


def last_line(node: object) -> int:
    """The last line a legacy node (with everything inside it) starts anything on."""
    line = 0
    if attrs.has(cls := type(node)):
        for field in attrs.fields(cls):
            value = getattr(node, field.name)
            if isinstance(value, Span):
                line = max(line, value.line)
            elif isinstance(value, tuple):
                line = max([line, *(last_line(v) for v in value)])
            elif attrs.has(type(value)):
                line = max(line, last_line(value))
    return line


def comment(text: str, *, trailing: bool = False) -> core.Comment:
    """A ``//`` comment; a leading ``/`` gets a space so the text never reads ``///``."""
    return core.Comment(" " + text if text.startswith("/") else text, trailing)


def own_line(item: core.Filter) -> core.Filter:
    """``item``, a comment made one of its own line (any other filter unchanged)."""
    return attrs.evolve(item, trailing=False) if isinstance(item, core.Comment) else item


def untrailed(parts: Sequence[core.Filter]) -> list[core.Filter]:
    """``parts`` with a comment at their start made one of its own line: what is put
    before ``parts`` is not what that comment annotates."""
    return [own_line(parts[0]), *parts[1:]] if parts else []
