"""Modern transforms and orbits against docs/semantics.md (S-orbits and the sections after it)
and the worked examples of S-examples.

Expected orbits and images are written from docs/semantics.md, not from the code.
"""

from __future__ import annotations

import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import BasicTransform, apply, basic_transforms, orbit
from cqllegacy.core.tree import (
    Attacks,
    Color,
    Compare,
    CompareOp,
    Compound,
    Count,
    DirectionSet,
    Elo,
    Filter,
    Find,
    Keyword,
    LegacyOnly,
    Line,
    LineStep,
    Move,
    Number,
    PieceVariable,
    Player,
    Power,
    Ray,
    RayCount,
    Relation,
    Result,
    Simple,
    Transform,
    TransformKind,
    Union,
)
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import ANYTHING, types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Dihedral, Direction, parse_squares

K = TransformKind


def block(*items: Filter) -> Compound:
    return Compound(items)


def designators(text: str) -> Compound:
    """``{Ka1 kh8}`` written as ``"Ka1 kh8"``."""
    return Compound(tuple(pd(word) for word in text.split()))


def squares_union(members: tuple[Filter, ...]) -> int:
    out = 0
    for member in members:
        assert isinstance(member, type(pd("a1")))
        out |= member.squares
    return out


# --------------------------------------------------------------------------------------
# S-basic-transforms: the basic transform sets
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "size"),
    [
        (K.FLIPCOLOR, 2),
        (K.REVERSECOLOR, 1),
        (K.FLIP, 8),
        (K.FLIPHORIZONTAL, 2),
        (K.FLIPVERTICAL, 2),
        (K.ROTATE90, 4),
        (K.SHIFT, 225),
        (K.SHIFTHORIZONTAL, 15),
        (K.SHIFTVERTICAL, 15),
    ],
)
def test_basic_transform_set_sizes(kind: TransformKind, size: int) -> None:
    taus = basic_transforms(kind)
    assert len(taus) == size
    assert len(set(taus)) == size


def test_every_transform_but_reversecolor_contains_the_identity() -> None:
    for kind in TransformKind:
        has_identity = BasicTransform() in basic_transforms(kind)
        assert has_identity == (kind is not K.REVERSECOLOR)


def test_shift_family_offsets() -> None:
    offsets = {(t.dx, t.dy) for t in basic_transforms(K.SHIFT)}
    assert offsets == {(i, j) for i in range(-7, 8) for j in range(-7, 8)}
    assert {(t.dx, t.dy) for t in basic_transforms(K.SHIFTVERTICAL)} == {
        (0, j) for j in range(-7, 8)
    }
    assert all(t.dihedral is Dihedral.IDENTITY for t in basic_transforms(K.SHIFT))


# --------------------------------------------------------------------------------------
# S-examples E11-E15: basic shifts of square designators
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dx", "dy", "source", "image"),
    [
        (2, 3, "[a1,d3]", "[c4,f6]"),  # 11
        (2, 3, "[a-h2,c4]", "[a-h5,e7]"),  # 12: full-rank rule
        (0, 3, "a1", "a4"),  # 14
        (0, 3, "[a1-8,c4]", "[a1-8,c7]"),  # 14: full-file rule
        (3, 0, "a1", "d1"),  # 15
        (3, 0, "[a-h2,c4]", "[a-h2,f4]"),  # 15
        (0, 2, "h2-7", "h4-8"),  # 19: partly off-board, survivors kept
    ],
)
def test_shift_images(dx: int, dy: int, source: str, image: str) -> None:
    tau = BasicTransform(dx=dx, dy=dy)
    assert tau.map_squares(parse_squares(source)) == parse_squares(image)
    assert apply(tau, pd("R" + source)) == pd("R" + image)


@pytest.mark.parametrize(
    ("dx", "dy", "source"),
    [(7, 7, "[a-h2,c4]"), (0, 7, "[a-h2,c4]"), (7, 0, "[d2,c4]")],  # 13, 14, 15
)
def test_shift_that_empties_a_designator_drops_the_member(dx: int, dy: int, source: str) -> None:
    tau = BasicTransform(dx=dx, dy=dy)
    assert apply(tau, pd("Q" + source)) is None
    # One emptied designator anywhere invalidates the whole filter.
    assert apply(tau, block(Simple(Keyword.CHECK), Count(pd("Q" + source)))) is None


def test_the_empty_designator_is_not_emptied_by_a_shift() -> None:
    empty = pd("[]")
    assert apply(BasicTransform(dx=3), empty) == empty


def test_all_squares_designators_never_move() -> None:
    for text in ("K", "A", "a", "_", ".", "[Kk]"):
        assert orbit(K.SHIFT, pd(text)) == (pd(text),)


# --------------------------------------------------------------------------------------
# S-examples E16-E20, S-repeats: shift orbits
# --------------------------------------------------------------------------------------


def test_shift_orbit_of_one_king_has_64_members() -> None:  # 16
    members = orbit(K.SHIFT, pd("Ka1"))
    assert len(members) == 64
    assert squares_union(members) == parse_squares("a-h1-8")


def test_shift_orbit_of_kings_on_a1_a8() -> None:  # 16
    expected = {designators(f"K{f}1 k{f}8") for f in "abcdefgh"}
    assert set(orbit(K.SHIFT, designators("Ka1 ka8"))) == expected
    assert len(orbit(K.SHIFT, designators("Ka1 ka8"))) == 8


def test_shiftvertical_orbits() -> None:  # 17
    assert len(orbit(K.SHIFTVERTICAL, pd("Ka1"))) == 8
    assert set(orbit(K.SHIFTVERTICAL, designators("Ka1 ka7"))) == {
        designators("Ka1 ka7"),
        designators("Ka2 ka8"),
    }


def test_shifthorizontal_orbit() -> None:  # 18
    assert set(orbit(K.SHIFTHORIZONTAL, designators("Ka1 kg1"))) == {
        designators("Ka1 kg1"),
        designators("Kb1 kh1"),
    }


def test_shiftvertical_rook_behind_pawns_is_the_cqli_expansion() -> None:  # 19
    expected = [
        "Rh1 Ph2-7",
        "Rh2 Ph3-8",
        "Rh3 Ph4-8",
        "Rh4 Ph5-8",
        "Rh5 Ph6-8",
        "Rh6 Ph7-8",
        "Rh7 Ph8",
    ]
    members = orbit(K.SHIFTVERTICAL, designators("Rh1 Ph2-7"))
    assert set(members) == {designators(text) for text in expected}
    assert len(members) == 7
    assert members[0] == designators("Rh1 Ph2-7")


def test_shift_never_moves_a_whole_board_designator() -> None:  # 20
    members = orbit(K.SHIFT, designators("K Ra1"))
    assert set(members) == {block(pd("K"), rook) for rook in orbit(K.SHIFT, pd("Ra1"))}
    assert len(members) == 64


def test_shift_of_a_boardless_filter_has_one_member() -> None:  # S-repeats
    assert orbit(K.SHIFT, Simple(Keyword.CHECK)) == (Simple(Keyword.CHECK),)


# --------------------------------------------------------------------------------------
# S-examples E21-E26: dihedral transforms
# --------------------------------------------------------------------------------------


def test_flip_kings_in_opposite_corners_has_four_members() -> None:  # E21, S-repeats
    members = orbit(K.FLIP, designators("Ka1 kh8"))
    assert set(members) == {
        designators("Ka1 kh8"),
        designators("Kh1 ka8"),
        designators("Ka8 kh1"),
        designators("Kh8 ka1"),
    }
    assert len(members) == 4


@pytest.mark.parametrize(
    ("kind", "source", "image"),
    [
        (K.FLIP, "a1", "[a1,h1,a8,h8]"),  # 22
        (K.FLIPVERTICAL, "a1", "[a1,h1]"),  # 23
        (K.FLIPHORIZONTAL, "a1", "[a1,a8]"),  # 24
        (K.FLIP, "c2", "[c2,b3,b6,c7,f7,g6,g3,f2]"),  # 25
        (K.ROTATE90, "b1", "[b1,h2,g8,a7]"),
    ],
)
def test_dihedral_square_orbits(kind: TransformKind, source: str, image: str) -> None:
    assert squares_union(orbit(kind, pd(source))) == parse_squares(image)


def test_flipvertical_and_fliphorizontal_of_kings() -> None:  # 23, 24
    assert set(orbit(K.FLIPVERTICAL, designators("Ka1 kh8"))) == {
        designators("Ka1 kh8"),
        designators("Kh1 ka8"),
    }
    assert set(orbit(K.FLIPHORIZONTAL, designators("Ka1 kh8"))) == {
        designators("Ka1 kh8"),
        designators("Ka8 kh1"),
    }


def test_flip_of_direction_filters_is_the_cqli_knight_expansion() -> None:  # 26
    def steps(outer: Direction, inner: Direction) -> DirectionSet:
        return DirectionSet(outer, DirectionSet(inner, pd("Q"), 1, 1), 1, 1)

    d = Direction
    expected = {
        steps(d.NORTHEAST, d.RIGHT),
        steps(d.NORTHEAST, d.UP),
        steps(d.NORTHWEST, d.LEFT),
        steps(d.NORTHWEST, d.UP),
        steps(d.SOUTHEAST, d.DOWN),
        steps(d.SOUTHEAST, d.RIGHT),
        steps(d.SOUTHWEST, d.DOWN),
        steps(d.SOUTHWEST, d.LEFT),
    }
    assert set(orbit(K.FLIP, steps(d.NORTHEAST, d.UP))) == expected


def test_quarter_turn_swaps_vertical_and_horizontal() -> None:  # S-transform-action item 3
    rot = BasicTransform(Dihedral.ROT90)
    assert apply(rot, Ray((pd("R"), pd("k")), Direction.VERTICAL)) == Ray(
        (pd("R"), pd("k")), Direction.HORIZONTAL
    )
    assert apply(rot, DirectionSet(Direction.DIAGONAL, pd("Q"))) == DirectionSet(
        Direction.DIAGONAL, pd("Q")
    )


def test_flip_count_of_rooks_in_corners_has_four_members() -> None:  # 28
    assert len(orbit(K.FLIP, pd("[Rr]a1"))) == 4


# --------------------------------------------------------------------------------------
# S-examples E30-E37: colour transforms
# --------------------------------------------------------------------------------------


def test_flipcolor_pawn() -> None:  # 30
    assert orbit(K.FLIPCOLOR, pd("Pa2")) == (pd("Pa2"), pd("pa7"))


def test_reversecolor_king() -> None:  # 31
    assert orbit(K.REVERSECOLOR, pd("Ke1")) == (pd("ke8"),)


def test_reversecolor_double_check() -> None:  # 32
    source = Compare(CompareOp.EQ, Number(2), Attacks(pd("A"), pd("k")))
    assert orbit(K.REVERSECOLOR, source) == (
        Compare(CompareOp.EQ, Number(2), Attacks(pd("a"), pd("K"))),
    )


def test_reversecolor_game_filters() -> None:  # 33
    source = block(Player("Kasparov", Color.WHITE), Result(GameResult.WHITE_WINS))
    assert orbit(K.REVERSECOLOR, source) == (
        block(Player("Kasparov", Color.BLACK), Result(GameResult.BLACK_WINS)),
    )


def test_colour_swap_keeps_draws_elo_without_colour_and_case_flag() -> None:
    swap = BasicTransform(swap_colors=True)
    assert apply(swap, Result(GameResult.DRAW)) == Result(GameResult.DRAW)
    assert apply(swap, Elo()) == Elo()
    assert apply(swap, Elo(Color.WHITE)) == Elo(Color.BLACK)
    assert apply(swap, Player("x", None, True)) == Player("x", None, True)


def test_symmetric_kings_have_a_one_member_flipcolor_orbit() -> None:  # E34, S-repeats
    assert orbit(K.REVERSECOLOR, pd("[Kk]h1-8")) == (pd("[Kk]h1-8"),)
    assert orbit(K.FLIPCOLOR, pd("[Kk]h1-8")) == (pd("[Kk]h1-8"),)


def test_flipcolor_stalemate_with_side_to_move() -> None:  # 35
    source = block(pd("[Rnq]a3"), Simple(Keyword.WTM), Simple(Keyword.STALEMATE))
    assert orbit(K.FLIPCOLOR, source) == (
        source,
        block(pd("[rNQ]a6"), Simple(Keyword.BTM), Simple(Keyword.STALEMATE)),
    )


def test_flipcolor_attacks_and_power() -> None:  # 36, 37
    assert orbit(K.FLIPCOLOR, Attacks(pd("A"), pd("q"))) == (
        Attacks(pd("A"), pd("q")),
        Attacks(pd("a"), pd("Q")),
    )
    assert orbit(K.FLIPCOLOR, Power(pd("A"))) == (Power(pd("A")), Power(pd("a")))


def test_colour_swap_maps_up_to_down() -> None:  # M3
    doubled = block(pd("P"), DirectionSet(Direction.UP, pd("P"), 1, 1))
    assert orbit(K.FLIPCOLOR, doubled)[1] == block(
        pd("p"), DirectionSet(Direction.DOWN, pd("p"), 1, 1)
    )


def test_colour_swap_changes_promotion_colour_and_move_squares() -> None:
    move = Move(from_=pd("Pb7"), to=pd("b8"), promote=types_of("Q"))
    assert apply(BasicTransform(swap_colors=True), move) == Move(
        from_=pd("pb2"), to=pd("b1"), promote=types_of("q")
    )


def test_quadrupled_pawns_orbit() -> None:  # 52, the modern statement
    body = block(Compare(CompareOp.EQ, Count(pd("P[b2-7]")), Number(4)))
    inner = orbit(K.SHIFTHORIZONTAL, body)
    files = {f"{chr(ord('a') + i)}2-7" for i in range(8)}
    assert {m.items[0].left.arg for m in inner} == {pd("P" + f) for f in files}
    outer = orbit(K.FLIPCOLOR, Transform(K.SHIFTHORIZONTAL, body))
    assert outer == (
        Transform(K.SHIFTHORIZONTAL, body),
        Transform(K.SHIFTHORIZONTAL, block(Compare(CompareOp.EQ, Count(pd("p[b2-7]")), Number(4)))),
    )


# --------------------------------------------------------------------------------------
# Nesting (M4, S-nested-transforms) and the remaining node kinds
# --------------------------------------------------------------------------------------


def test_outer_transform_reaches_into_a_nested_transform() -> None:  # M4
    inner = Transform(K.SHIFT, pd("Ka1"))
    assert apply(BasicTransform(Dihedral.ROT90), inner) == Transform(K.SHIFT, pd("Kh1"))
    assert apply(BasicTransform(dx=7), Transform(K.FLIP, pd("Kb1"))) is None


def test_flip_count_shift_counts_four_different_inner_filters() -> None:  # S-nested-transforms
    members = orbit(K.FLIP, Transform(K.SHIFT, pd("Ka1"), count=True))
    assert {m.arg for m in members} == {pd("Ka1"), pd("Kh1"), pd("Ka8"), pd("Kh8")}


def test_lines_finds_and_variables_are_rewritten_inside() -> None:
    source = block(
        Line((LineStep(pd("Ka1")), LineStep(Simple(Keyword.WTM), 0, None))),
        Find(Union((pd("Qd1"), PieceVariable("x")))),
    )
    assert apply(BasicTransform(Dihedral.REFLECT_V, True), source) == block(
        Line((LineStep(pd("kh8")), LineStep(Simple(Keyword.BTM), 0, None))),
        Find(Union((pd("qe8"), PieceVariable("x")))),
    )


def test_legacy_ray_count_directions_follow_the_map() -> None:
    source = RayCount((pd("R"), pd("k")), (Direction.UP, Direction.NORTHEAST))
    assert apply(BasicTransform(Dihedral.ROT90), source) == RayCount(
        (pd("R"), pd("k")), (Direction.LEFT, Direction.NORTHWEST)
    )
    wrapped = LegacyOnly(pd("Ra1"))
    assert apply(BasicTransform(dx=1), wrapped) == LegacyOnly(pd("Rb1"))


def test_relation_under_a_transform_is_refused() -> None:
    with pytest.raises(ValueError, match="relation"):
        apply(BasicTransform(dx=1), block(pd("Ka1"), Relation()))


def test_identity_returns_the_filter_itself() -> None:
    source = block(pd("Ka1"), Relation())
    assert apply(BasicTransform(), source) is source


# --------------------------------------------------------------------------------------
# Positions and echo (semantics: S-echo, M9)
# --------------------------------------------------------------------------------------


def test_transforms_reach_into_echo_bodies_and_leave_positions_alone() -> None:
    s, t = ct.PositionVariable("s"), ct.PositionVariable("t")
    body = ct.Compound(
        (
            ct.Compare(CompareOp.EQ, ct.SideToMove(), ct.AtPosition(s, ct.SideToMove())),
            ct.Intersection((ct.PositionIntersection(s, t), pd("Ka1"))),
            ct.Ancestor(s, t),
            ct.InSet(pd("Ka1"), ct.AttackedBy(pd("."), pd("q"))),
        )
    )
    swap = BasicTransform(swap_colors=True)
    image = apply(swap, ct.Echo("s", "t", body, in_all=True))
    expected = ct.Compound(
        (
            body.items[0],  # sidetomove and positions unchanged (M9)
            ct.Intersection((ct.PositionIntersection(s, t), pd("ka8"))),
            body.items[2],
            ct.InSet(pd("ka8"), ct.AttackedBy(pd("."), pd("Q"))),
        )
    )
    assert image == ct.Echo("s", "t", expected, in_all=True)
    # A colour flip of a filter that names no colour and no square has one member.
    assert len(orbit(TransformKind.FLIPCOLOR, body.items[0])) == 1


def test_transforms_reach_into_line_groups_and_piece_all() -> None:
    group = ct.LineGroup((LineStep(Move(from_=pd("Qa1"))), LineStep(pd("Qa2"), 0, 1)))
    line = Line((LineStep(group, 1, None),))
    mirrored = apply(BasicTransform(Dihedral.REFLECT_V), line)
    assert mirrored == Line(
        (
            LineStep(
                ct.LineGroup((LineStep(Move(from_=pd("Qh1"))), LineStep(pd("Qh2"), 0, 1))),
                1,
                None,
            ),
        )
    )
    loop = ct.PieceLoop(
        "x", pd("Pa2"), Find(ct.Intersection((PieceVariable("x"), pd("a8")))), all=True
    )
    assert apply(BasicTransform(dx=1), loop) == ct.PieceLoop(
        "x", pd("Pb2"), Find(ct.Intersection((PieceVariable("x"), pd("b8")))), all=True
    )


def test_a_relation_under_file_anchors_keeps_only_the_identity() -> None:
    # The translator's indicator of an accumulated list with a :relation: the anchors,
    # first, drop every shifted image before the relation (which refuses transforms).
    anchors = (
        ct.PieceSet(ANYTHING, parse_squares("a1-8")),
        ct.PieceSet(ANYTHING, parse_squares("h1-8")),
    )
    relation = Relation(allowable=parse_squares("g1"))
    body = ct.Compound((*anchors, pd("Kg1"), relation))
    assert orbit(TransformKind.SHIFTHORIZONTAL, body) == (body,)
    with pytest.raises(ValueError, match="relation"):
        orbit(TransformKind.SHIFTHORIZONTAL, ct.Compound((pd("Kg1"), relation)))
