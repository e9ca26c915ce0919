"""Necessary conditions: what they say, and where they must say nothing."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

import cqllegacy.evaluator.necessary as necessary
from cqllegacy.api import Query as ApiQuery
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
from cqllegacy.evaluator.necessary import Alternative, Attack, hull, necessity
from cqllegacy.evaluator.operators import Atom
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import EMPTY_BIT, piece_types_in, types_of
from tests.core.test_properties import _sample_boards
from tests.evaluator.test_equivalence import _holds, _plain_mask

ROOT = Path(__file__).resolve().parents[2]


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


def test_a_line_says_its_first_steps_at_the_position_and_the_next() -> None:
    line = Line((LineStep(Simple(Keyword.CHECK)), LineStep(pd("Qa1"))))
    need = necessity(one(line))
    assert need is not None
    qa1 = Alternative((Atom(types_of("Q"), chess.BB_A1),))
    expected = Alternative(flags=frozenset({"check"}), later=((1, qa1),))
    assert need.lists[0].alternatives == (expected,)


def test_variations_and_lists_that_need_no_match_give_nothing() -> None:
    assert necessity(one(pd("Ka1")), variations=True) is None
    assert necessity(one(pd("Ka1"), scope=Scope.ALL)) is None
    assert necessity(one(pd("Ka1"), matchcount=(0, 0))) is None


def test_the_game_number_alone_narrows() -> None:
    query = Query(Header(gamenumber=(3, 5)), (TopList(Not(Simple(Keyword.CHECK))),))
    need = necessity(query)
    assert need is not None and need.lists == () and need.gamenumber == (3, 5)


# ---- move facts -------------------------------------------------------------------------


def modern(text: str) -> Query:
    from cqllegacy.api import load

    return load(text).core


def test_a_move_from_and_to_is_a_move_fact_of_the_position() -> None:
    need = necessity(modern("cql() move from Qa2 to _[b2,b3] capture []"))
    assert need is not None
    (alt,) = need.lists[0].alternatives
    (fact,) = alt.moves
    assert (fact.pieces, fact.origin) == (types_of("Q"), chess.BB_A2)
    assert (fact.destination, fact.landing) == (chess.BB_B2 | chess.BB_B3, EMPTY_BIT)
    assert fact.taken is not None and fact.taken_squares == 0 and alt.later == ()


def test_the_legacy_move_keywords_are_move_facts_too() -> None:
    from cqllegacy.api import load

    need = necessity(load("(match (position :movefrom Qa2 :promote N))").core)
    assert need is not None
    facts = need.lists[0].alternatives[0].moves
    assert {fact.origin for fact in facts} >= {chess.BB_A2}
    assert any(fact.promote == types_of("N") for fact in facts)


def test_move_previous_is_a_move_fact_of_the_position_before() -> None:
    need = necessity(modern("cql() check move previous from N"))
    assert need is not None
    (alt,) = need.lists[0].alternatives
    assert alt.flags == {"check"} and alt.moves == ()
    ((offset, before),) = alt.later
    assert offset == -1 and before.moves[0].pieces == types_of("N")
    # The designator is evaluated before the move: its atom is of that position too.
    assert before.atoms == (Atom(types_of("N"), (1 << 64) - 1),)


def test_a_bare_move_says_nothing_a_null_move_also_matches_it() -> None:
    assert necessity(modern("cql() move")) is None
    need = necessity(modern("cql() move o-o-o"))
    assert need is not None and need.lists[0].alternatives[0].moves[0].castle


def test_find_is_said_of_some_position_of_the_game() -> None:
    need = necessity(modern("cql() initial find move promote N"))
    assert need is not None
    (alt,) = need.lists[0].alternatives
    assert alt.flags == {"initial"} and alt.moves == ()
    (somewhere,) = alt.elsewhere
    assert somewhere.moves[0].promote == types_of("N") | types_of("n")


def test_a_bare_find_all_says_nothing_as_a_count_of_none_matches() -> None:
    """Found by the generated equivalence test: ``find all Ka1`` matches every game (its
    count, 0 included, is its value), so the index may not ask for Ka1 somewhere."""
    assert necessity(modern("cql() find all Ka1")) is None
    need = necessity(modern("cql() initial find all Ka1"))
    assert need is not None and need.lists[0].alternatives[0].elsewhere == ()
    counted = necessity(modern("cql() (find all Ka1) >= 1"))
    assert counted is not None and counted.lists[0].alternatives[0].elsewhere != ()


def test_line_steps_after_a_repeated_one_are_said_of_some_position() -> None:
    line = Line(
        (LineStep(Simple(Keyword.CHECK)), LineStep(pd("Qa1"), 0, None), LineStep(pd("Rb1")))
    )
    need = necessity(one(line))
    assert need is not None
    (alt,) = need.lists[0].alternatives
    assert alt.flags == {"check"} and alt.later == ()
    assert alt.elsewhere == (Alternative((Atom(types_of("R"), chess.BB_B1),)),)


# ---- orbits over 512 members ------------------------------------------------------------


def test_a_large_orbit_is_widened_to_its_hull() -> None:
    """Nd4 kf3 under :shift :flip :flipcolor has over 512 members: they become one
    alternative per colour, the knight and the king each on the union of their squares."""
    pattern = Compound((pd("Nd4"), pd("kf3")))
    orbit = Transform(
        TransformKind.FLIPCOLOR,
        Transform(TransformKind.FLIP, Transform(TransformKind.SHIFT, pattern)),
    )
    need = necessity(one(orbit))
    assert need is not None
    alternatives = need.lists[0].alternatives
    assert len(alternatives) == 2
    white = next(alt for alt in alternatives if alt.atoms[0].types == types_of("N"))
    knight, king = white.atoms
    assert knight.squares & chess.BB_D4 and knight.squares & chess.BB_A1
    assert king.types == types_of("k") and king.squares & chess.BB_F3


def test_the_hull_keeps_only_what_every_member_asks() -> None:
    from cqllegacy.evaluator.necessary import hull

    quadrupled = [Alternative((Atom(types_of("P"), file, 4, 4),)) for file in chess.BB_FILES]
    (widened,) = hull(quadrupled)
    # Four pawns on one file: at least four on the union, perhaps more.
    assert widened.atoms == (Atom(types_of("P"), (1 << 64) - 1, 4, None),)
    # "No queen on the a-file" and "none on the b-file" would become "none on either":
    # kept apart.
    absent = [Alternative((Atom(types_of("Q"), file, 0, 0),)) for file in chess.BB_FILES[:2]]
    assert len(hull(absent)) == 2


# ---- attacks, match counts, piece tags --------------------------------------------------


def test_a_king_attacked_is_check_or_the_other_side_to_move_or_two_kings() -> None:
    need = necessity(modern("cql() btm A attacks k"))
    assert need is not None
    alternatives = need.lists[0].alternatives
    assert {alt.flags for alt in alternatives} == {frozenset({"btm", "check"}), frozenset({"btm"})}
    two_kings = Atom(types_of("k"), (1 << 64) - 1, 2, None)
    assert any(two_kings in alt.atoms for alt in alternatives)


def test_attacks_by_leapers_and_sums_of_attack_counts_are_attacks() -> None:
    from cqllegacy.api import load
    from cqllegacy.evaluator.necessary import Attack

    need = necessity(load("(match (position :attackcount N q 1))").core)
    assert need is not None
    (alt,) = need.lists[0].alternatives
    # The legacy count is a sum over the squares of q: one of them is attacked.
    assert alt.attacks == (Attack(types_of("N"), (1 << 64) - 1, types_of("q"), (1 << 64) - 1),)
    # A rook's attacks depend on the other pieces: not kept.
    need = necessity(modern("cql() R attacks q"))
    assert need is not None and need.lists[0].alternatives[0].attacks == ()


def test_a_match_count_asks_for_so_many_positions() -> None:
    from cqllegacy.api import load

    need = necessity(load("(match (position :check :matchcount 3 100))").core)
    assert need is not None and need.lists[0].at_least == 3


def test_a_piece_tag_is_a_piece_of_its_types_or_a_pawn_that_becomes_one() -> None:
    from cqllegacy.core.tree import TagDeclaration
    from cqllegacy.evaluator.necessary import piece_tag_bounds

    bounds = piece_tag_bounds(
        [TagDeclaration("r", types_of("Rr")), TagDeclaration("k", types_of("K"))]
    )
    assert bounds["r"].types == types_of("RrPp")
    assert bounds["k"].types == types_of("K")
    # A pawn keeps its identity when it promotes.
    assert piece_tag_bounds([TagDeclaration("p", types_of("P"))])["p"].types == types_of("PNBRQ")


# ---- a hull keeps what its members' squares say of leapers' attacks ----------------------

#: Orbits whose members each place a leaper a jump away from its targets.
LEAPING_ORBITS = [
    "(match (position Nd4 k[b3,b5,c2,c6,e2,e6,f3,f5] q[b3,b5,c2,c6,e2,e6,f3,f5]"
    " :shift :flipcolor))",
    "(match (position Pe4 k[d5,f5] :shift :flip))",
    "(match (position Kd4 q[c3,e5] r[d5] :shift :flipcolor))",
    "(match (position [KP]d4 r[c5,e5] :shift))",
]


def _alternative_holds(alternative: Alternative, board: chess.Board) -> bool:
    """``alternative``'s atoms and attacks read square by square on ``board``."""
    return all(_holds(atom, board) for atom in alternative.atoms) and all(
        _attack_holds(attack, board) for attack in alternative.attacks
    )


def _attack_holds(attack: Attack, board: chess.Board) -> bool:
    attackers = _plain_mask(board, attack.attacker_types) & attack.attacker_squares
    targets = _plain_mask(board, attack.target_types) & attack.target_squares
    return any(board.attacks_mask(square) & targets for square in chess.scan_forward(attackers))


def _boards(members: tuple[Alternative, ...]) -> list[chess.Board]:
    """Positions of some World Championship games, and boards where a member's pieces
    stand on its squares among a few others (so that members hold)."""
    boards = _sample_boards()
    rng = random.Random(31)
    for _ in range(1500):
        board = chess.Board(None)
        for symbol in rng.choices("NnKkPpQqRr", k=rng.randint(0, 4)):
            board.set_piece_at(rng.randrange(64), chess.Piece.from_symbol(symbol))
        for atom in rng.choice(members).atoms:
            if atom.lo >= 1:
                colour, kind = rng.choice(piece_types_in(atom.types))
                square = rng.choice(list(chess.scan_forward(atom.squares)))
                board.set_piece_at(square, chess.Piece(kind, colour))
        boards.append(board)
    return boards


@pytest.mark.parametrize("text", LEAPING_ORBITS)
def test_the_hull_of_leaping_members_keeps_their_attacks(text: str) -> None:
    """Wherever a member holds, its hull holds (read by definition on boards of real
    games and scattered pieces), and the hull says that a leaper attacks (what makes a
    fork's hull narrow: a knight near a king and a queen is common, its jump is not)."""
    need = necessity(ApiQuery.from_text(text).core)
    assert need is not None
    members = need.lists[0].alternatives
    widened = hull(members)
    assert len(widened) < len(members)
    assert all(alt.attacks for alt in widened)
    holding = 0
    for board in _boards(members):
        if any(_alternative_holds(member, board) for member in members):
            holding += 1
            assert any(_alternative_holds(alt, board) for alt in widened), board.fen()
    assert holding, "no board where a member holds would prove nothing"


@pytest.mark.parametrize(
    "path",
    ["examples/queen-staircase.cql", "examples/knight-fork.cql", "examples/many-checks.cql"],
)
def test_alternatives_are_found_once_per_node_and_the_same(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The alternatives of a node met again (an orbit's members share their steps) are
    the ones found the first time: the same as found afresh at every meeting, with
    fewer nodes looked into, and nothing is kept once the answer is given."""
    body = ApiQuery.from_text((ROOT / path).read_text()).core.lists[0].body
    looked: list[object] = []
    found_afresh = necessary._alternatives_of

    def counted(node: object, bounds: object) -> object:
        looked.append(node)
        return found_afresh(node, bounds)  # type: ignore[arg-type]

    monkeypatch.setattr(necessary, "_alternatives_of", counted)
    remembered = necessary.position_alternatives(body)
    assert necessary._KNOWN.get() is None
    once = len(looked)
    assert once == len(set(looked))
    looked.clear()
    afresh = necessary._bounded(necessary._alternatives(body, {}))  # nothing remembered
    assert remembered == afresh and remembered is not None
    assert len(looked) >= once
