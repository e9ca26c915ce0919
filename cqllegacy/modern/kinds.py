"""What kind of value each CQL 6.1 filter has, and what kind each operand needs
(semantics: S-modern-model, S-echo).

The reader checks a query with :func:`misplaced` before it returns it, so a script it
accepts is one the evaluator can run: ``check`` and ``run`` agree.  The kinds are the
evaluator's (a set filter, a numeric filter, a logical filter) plus *positions*, the
values of ``echo`` variables, which only ``:``, positional ``&``, comparisons with another
position and ``ancestor`` take.

>>> from cqllegacy.vocab.pieces import types_of
>>> queen = ct.PieceSet(types_of("Q"))
>>> kind_of(ct.Count(queen)), kind_of(ct.Transform(ct.TransformKind.FLIP, queen))
(<Kind.NUMBER: 'numeric'>, <Kind.SET: 'set'>)
>>> problem = misplaced(ct.Count(ct.Not(queen)))
>>> problem is not None and problem[1]
'`#` needs a set of squares, and `not` gives no set'
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

from cqllegacy.core import tree as ct

__all__ = ["Kind", "chain_value", "kind_of", "misplaced"]


class Kind(enum.Enum):
    SET = "set"
    NUMBER = "numeric"
    LOGICAL = "logical"
    POSITION = "position"


_SETS = (
    ct.PieceSet,
    ct.Union,
    ct.Intersection,
    ct.Complement,
    ct.Attacks,
    ct.AttackedBy,
    ct.DirectionSet,
    ct.Ray,
    ct.XRay,
    ct.Between,
    ct.PieceVariable,
    ct.PositionIntersection,
)
_NUMBERS = (
    ct.Number,
    ct.Count,
    ct.Power,
    ct.Arith,
    ct.Negate,
    ct.NumericValue,
    ct.Elo,
    ct.SideToMove,
    ct.RayCount,
)


def chain_value(node: ct.Filter) -> ct.Filter:
    """What a comparison compares with when ``node`` is its right operand: the left value
    of a comparison that continues the chain, or ``node`` itself.

    >>> chain_value(ct.InRange(ct.Number(3), None, 5))
    Number(value=3)
    """
    if isinstance(node, ct.InRange):
        return node.value
    if isinstance(node, ct.Compare):
        return node.left
    return node


def kind_of(node: ct.Filter) -> Kind:
    """The kind of value ``node`` has when it matches (as the evaluator computes it)."""
    if isinstance(node, _SETS):
        return Kind.SET
    if isinstance(node, _NUMBERS):
        return Kind.NUMBER
    if isinstance(node, ct.PositionVariable):
        return Kind.POSITION
    if isinstance(node, ct.PieceLoop):
        return Kind.LOGICAL if node.all else Kind.SET
    if isinstance(node, ct.Find):
        return Kind.NUMBER if node.all else Kind.LOGICAL
    if isinstance(node, ct.Transform):
        return Kind.NUMBER if node.count else kind_of(node.arg)
    if isinstance(node, ct.Compound):
        items = [item for item in node.items if not isinstance(item, ct.Comment)]
        return kind_of(items[-1]) if items else Kind.LOGICAL
    if isinstance(node, ct.Echo):
        return Kind.NUMBER if kind_of(node.body) is Kind.NUMBER else Kind.LOGICAL
    if isinstance(node, ct.AtPosition):
        return kind_of(node.arg)
    if isinstance(node, ct.LegacyOnly):
        return kind_of(node.filter)
    return Kind.LOGICAL


_SET = frozenset({Kind.SET})
#: A number, or a set standing for its size.
_NUMERIC = frozenset({Kind.NUMBER, Kind.SET})
_FILTER = frozenset({Kind.SET, Kind.NUMBER, Kind.LOGICAL})
_POSITION = frozenset({Kind.POSITION})


def _word(node: ct.Filter) -> str:
    """How a filter is named in a message: its CQL word or operator."""
    words: dict[type[ct.Filter], str] = {
        ct.Count: "`#`",
        ct.Power: "`power`",
        ct.Complement: "`~`",
        ct.Union: "`|`",
        ct.Intersection: "`&`",
        ct.Attacks: "`attacks`",
        ct.AttackedBy: "`attackedby`",
        ct.Ray: "`ray`",
        ct.XRay: "`xray`",
        ct.Between: "`between`",
        ct.Move: "`move`",
        ct.InSet: "`in`",
        ct.Arith: "`+`/`-`",
        ct.Negate: "unary `-`",
        ct.InRange: "a comparison",
        ct.Compare: "a comparison",
        ct.Not: "`not`",
        ct.And: "`and`",
        ct.Or: "`or`",
        ct.Compound: "`{ }`",
        ct.Find: "`find`",
        ct.Line: "`line`",
        ct.LineGroup: "`line`",
        ct.Echo: "`echo`",
        ct.AtPosition: "`:`",
        ct.PositionIntersection: "`&`",
        ct.Ancestor: "`ancestor`",
        ct.SideToMove: "`sidetomove`",
        ct.PieceVariable: "a piece variable",
        ct.PositionVariable: "a position variable",
        ct.Number: "a number",
        ct.PieceSet: "a piece designator",
        ct.NumericValue: "a numeric filter",
        ct.Elo: "`elo`",
        ct.Result: "`result`",
        ct.Player: "`player`",
        ct.TagContains: "a tag filter",
    }
    if isinstance(node, ct.PieceLoop):
        return "`piece all`" if node.all else "`piece`"
    if isinstance(node, ct.Transform):
        return f"`{node.kind.value}`"
    if isinstance(node, ct.DirectionSet):
        return f"`{node.direction.word}`"
    if isinstance(node, ct.Simple):
        return f"`{node.keyword.value}`"
    return words.get(type(node), f"`{type(node).__name__}`")


def _operands(node: ct.Filter) -> Iterator[tuple[ct.Filter, frozenset[Kind]]]:
    """Each operand of ``node`` with the kinds it may have."""
    if isinstance(
        node,
        ct.Union
        | ct.Intersection
        | ct.Complement
        | ct.Attacks
        | ct.AttackedBy
        | ct.DirectionSet
        | ct.Ray
        | ct.XRay
        | ct.Between
        | ct.Move
        | ct.InSet
        | ct.Count
        | ct.Power,
    ):
        for child in node.children():
            yield child, _SET
    elif isinstance(node, ct.PieceLoop):
        yield node.domain, _SET
        yield node.body, _FILTER
    elif isinstance(node, ct.Arith | ct.Negate | ct.InRange):
        for child in node.children():
            yield child, _NUMERIC
    elif isinstance(node, ct.Compare):
        # In a chain (`2 < P <= 5`) the right operand is the next comparison; this one
        # compares with that one's left value.
        right = chain_value(node.right)
        positions = Kind.POSITION in (kind_of(node.left), kind_of(right))
        for child in (node.left, right):
            yield child, _POSITION if positions else _NUMERIC
    elif isinstance(node, ct.PositionIntersection | ct.Ancestor):
        for child in node.children():
            yield child, _POSITION
    elif isinstance(node, ct.AtPosition):
        yield node.position, _POSITION
        yield node.arg, _FILTER
    else:
        for child in node.children():
            yield child, _FILTER


def _positions_unequal(node: ct.Filter) -> bool:
    return (
        isinstance(node, ct.Compare)
        and node.op is ct.CompareOp.NE
        and Kind.POSITION in (kind_of(node.left), kind_of(chain_value(node.right)))
    )


def _article(kind: Kind) -> str:
    return {
        Kind.SET: "a set of squares",
        Kind.NUMBER: "a number",
        Kind.LOGICAL: "a match without a value",
        Kind.POSITION: "a position",
    }[kind]


def _problem(node: ct.Filter, operand: ct.Filter, wanted: frozenset[Kind]) -> str:
    got = kind_of(operand)
    if wanted == _POSITION:
        return f"{_word(node)} needs a position here, and {_word(operand)} gives {_article(got)}"
    if got is Kind.POSITION:
        return (
            f"{_word(operand)} is a position: it can only stand before `:`, beside another"
            " position in `&` or a comparison, or in `ancestor`"
        )
    if wanted == _SET:
        return f"{_word(node)} needs a set of squares, and {_word(operand)} gives no set"
    return f"{_word(node)} needs a number or a set, and {_word(operand)} gives {_article(got)}"


def misplaced(node: ct.Filter) -> tuple[ct.Filter, str] | None:
    """The first misplaced filter in ``node`` (depth first) and why, or None when every
    operand fits.  The filter blamed is the operator whose operand does not fit, or the
    position where a position cannot stand.  A top-level filter may be of any kind but a
    position."""
    if kind_of(node) is Kind.POSITION:
        return node, _problem(node, node, _FILTER)
    stack = [node]
    while stack:
        current = stack.pop()
        if _positions_unequal(current):
            return current, (
                "`!=` between two positions is not read (the independent CQL 6 parser"
                " refuses it): write `not S == T`"
            )
        for operand, wanted in _operands(current):
            if kind_of(operand) not in wanted:
                blamed = operand if kind_of(operand) is Kind.POSITION else current
                return blamed, _problem(current, operand, wanted)
        stack.extend(reversed(current.children()))
    return None
