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

from collections.abc import Iterator

from cqllegacy.core import tree as ct

__all__ = ["Kind", "chain_value", "kind_of", "misplaced"]


#: The one kind enum, declared in the core (each node class declares its own kind).
Kind = ct.Kind
chain_value = ct.chain_value


def kind_of(node: ct.Filter) -> Kind:
    """The kind of value ``node`` has when it matches (its class's declaration)."""
    return node.value_kind()


_SET = ct.SETS
_FILTER = ct.ANY_FILTER
_POSITION = ct.POSITIONS


def _word(node: ct.Filter) -> str:
    """How a filter is named in a message: its CQL word or operator."""
    return node.word()


def _operands(node: ct.Filter) -> Iterator[tuple[ct.Filter, frozenset[Kind]]]:
    """Each operand of ``node`` with the kinds it may have (its class's declaration)."""
    return node.operand_kinds()


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
