"""Necessary conditions: what they say, and where they must say nothing."""

from __future__ import annotations

import chess

from cqllegacy.core.tree import (
    Compound,
    Header,
    Keyword,
    Line,
    LineStep,
    Not,
    Or,
    Query,
    Scope,
    Simple,
    TopList,
    Transform,
    TransformKind,
)
from cqllegacy.evaluator.necessary import Alternative, necessity
from cqllegacy.evaluator.operators import Atom
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import types_of


def one(body: object, **top: object) -> Query:
    return Query(Header(), (TopList(body, **top),))  # type: ignore[arg-type]


def test_piece_atoms_and_flags_of_a_conjunction() -> None:
    need = necessity(one(Compound((pd("Qd1"), Simple(Keyword.MATE), Simple(Keyword.BTM)))))
    assert need is not None
    assert need.lists[0].alternatives == (
        Alternative((Atom(types_of("Q"), chess.BB_D1),), frozenset({"mate", "btm"})),
    )


def test_an_orbit_is_one_alternative_per_member() -> None:
    need = necessity(one(Transform(TransformKind.FLIP, pd("Ka1"))))
    assert need is not None
    squares = {alt.atoms[0].squares for alt in need.lists[0].alternatives}
    assert squares == {chess.BB_A1, chess.BB_H1, chess.BB_A8, chess.BB_H8}


def test_a_disjunction_with_a_member_that_says_nothing_says_nothing() -> None:
    assert necessity(one(Or((pd("Ka1"), Not(Simple(Keyword.CHECK)))))) is None


def test_negations_and_counts_of_zero_are_not_presence() -> None:
    need = necessity(one(Compound((pd("Ka1"), Not(pd("Q"))))))
    assert need is not None
    (alt,) = need.lists[0].alternatives
    assert Atom(types_of("Q"), (1 << 64) - 1, 0, 0) in alt.atoms


def test_a_line_says_what_its_first_step_says() -> None:
    line = Line((LineStep(Simple(Keyword.CHECK)), LineStep(pd("Qa1"))))
    need = necessity(one(line))
    assert need is not None
    assert need.lists[0].alternatives == (Alternative((), frozenset({"check"})),)


def test_variations_and_lists_that_need_no_match_give_nothing() -> None:
    assert necessity(one(pd("Ka1")), variations=True) is None
    assert necessity(one(pd("Ka1"), scope=Scope.ALL)) is None
    assert necessity(one(pd("Ka1"), matchcount=(0, 0))) is None


def test_the_game_number_alone_narrows() -> None:
    query = Query(Header(gamenumber=(3, 5)), (TopList(Not(Simple(Keyword.CHECK))),))
    need = necessity(query)
    assert need is not None and need.lists == () and need.gamenumber == (3, 5)
