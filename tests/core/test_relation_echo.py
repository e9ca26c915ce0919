"""A relation's ``echo`` read back (``core.relation_echo``): every echo the translator
writes for an untransformed relation, and the text it prints, is known again; nothing
else is."""

from __future__ import annotations

import attrs
import pytest
from cqllegacy.translator import translate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy import api
from cqllegacy.core import tree as ct
from cqllegacy.core.relation_echo import (
    echo_of,
    relation_of,
    transformed_board,
    transformed_relation_of,
)
from cqllegacy.vocab.pieces import ANYTHING, types_of
from tests.evaluator.test_equivalence import _relations

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_UNTURNED = _relations().map(lambda r: attrs.evolve(r, shift=False, flip=False))


@SETTINGS
@given(_UNTURNED)
def test_an_untransformed_relations_echo_is_known_again(relation: ct.Relation) -> None:
    echo = echo_of(relation)
    found = relation_of(echo)
    if not isinstance(echo, ct.Echo):
        assert found is None  # ``false``: a relation that never holds
    else:
        assert found is not None
        assert found.scope is relation.scope
        assert echo_of(found) == echo


@SETTINGS
@given(_UNTURNED)
def test_the_names_of_the_two_positions_do_not_matter(relation: ct.Relation) -> None:
    echo = echo_of(attrs.evolve(relation, scope=ct.RelationScope.MAINLINE))
    if not isinstance(echo, ct.Echo):
        return
    names = {"source": "s", "target": "t"}

    def rename(node: ct.Filter) -> ct.Filter:
        if isinstance(node, ct.PositionVariable):
            return ct.PositionVariable(names[node.name])
        return node

    renamed = ct.Echo("s", "t", echo.body.transform(rename))
    swapped = ct.Echo("target", "source", echo.body)  # each name now means the other
    assert relation_of(renamed) == relation_of(echo)
    assert relation_of(swapped) is None


@pytest.mark.parametrize(
    "relation",
    [
        ":missingpiececount A 1 10",
        ":pattern :changesidetomove",
        ":ignoresidetomove :originalsamecount 20 64",
        ":originaldifferentcount 1 3 :newpiececount Q 1 1",
        ":missingpiececount [Pp] 1 2 :newpiececount A 0 0",
        ":newpiececount [Qq] 1 :missingpiececount [Pp] 1 :variationsonly",
        ":missingpiececount A 1 3 :variations",
    ],
)
def test_the_translated_text_read_back_is_known_again(relation: str) -> None:
    """The CQL 6.1 text of a legacy relation, read by the modern reader, holds an echo
    the evaluator runs as the relation."""
    legacy = f"(match (position Kg1 Rh1 :relation ({relation})))"
    query = api.Query.from_text(translate(legacy)).query
    echoes = [node for q in query.lists for node in q.body.walk() if isinstance(node, ct.Echo)]
    assert echoes
    assert all(relation_of(echo) is not None for echo in echoes)


#: Patterns of a shifted or turned relation: one piece a square.
_PATTERNS = st.dictionaries(
    st.integers(0, 63),
    st.sampled_from([types_of(c) for c in "KQRBNPkqrbnp"]),
    min_size=1,
    max_size=4,
)


@SETTINGS
@given(_relations(), _PATTERNS)
def test_a_transformed_relations_echo_is_known_again(
    relation: ct.Relation, pattern: dict[int, int]
) -> None:
    """The ``echo`` of a shifted or turned relation gives back its pattern and a relation
    with the same ``echo``: the same scope, transforms, side and original counts."""
    relation = attrs.evolve(
        relation,
        allowable=sum(1 << square for square in pattern),
        missing=(ANYTHING, 0, 0),
        new=(ANYTHING, 0, 0),
    )
    echo = echo_of(relation, [transformed_board(relation, pattern)])
    found = transformed_relation_of(echo)
    if not (relation.shift or relation.flip):
        assert found is None  # the untransformed relation's own text is another
        return
    assert isinstance(echo, ct.Echo) and found is not None
    read, read_pattern = found
    assert read_pattern == pattern
    assert (read.shift, read.flip, read.scope) == (relation.shift, relation.flip, relation.scope)
    # A count that admits anything is written as nothing: only the echo is the same.
    assert echo_of(read, [transformed_board(read, pattern)]) == echo


def test_an_echo_not_written_for_a_transformed_relation_is_not_read_as_one() -> None:
    relation = ct.Relation(allowable=1 << 6, shift=True, original_same=(0, 0))
    echo = echo_of(relation, [transformed_board(relation, {6: types_of("K")})])
    assert isinstance(echo, ct.Echo) and isinstance(echo.body, ct.Compound)
    *rest, board = echo.body.items
    assert isinstance(board, ct.Transform)
    others = [
        ct.Transform(board.kind, board.arg, count=True),  # counted, not some placement
        ct.Transform(ct.TransformKind.SHIFTHORIZONTAL, board.arg),
        ct.Transform(board.kind, ct.Compound((ct.PieceSet(types_of("K"), 3 << 6),))),
        # A king or a queen: P1's content on g1 is not known.
        ct.Transform(board.kind, ct.Compound((ct.PieceSet(types_of("KQ"), 1 << 6),))),
    ]
    for other in others:
        assert transformed_relation_of(echo.replace(body=ct.Compound((*rest, other)))) is None
    assert transformed_relation_of(echo.replace(body=ct.Compound((*rest[1:], board)))) is None
