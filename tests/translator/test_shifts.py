"""Legacy transforms against the worked examples of docs/semantics.md, Part 2, and decision L4.

Expected designators and lists are written as legacy text and read with the reader, so
the expectations come from the spelling in docs/semantics.md, not from the translator.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from cqllegacy.translator.orbits import (
    Budget,
    legacy_orbit,
    live_orbit,
    transform_keywords,
    transform_list,
)
from cqllegacy.translator.parts import (
    FALSE,
    TranslationContext,
)
from cqllegacy.translator.rewrite import (
    base_list,
    member_filter,
    orbit_filters,
    strip_comments,
)
from cqllegacy.translator.shifts import LegacyTransform, legacy_shift, shift_set, transform_set

from cqllegacy.legacy import read_script
from cqllegacy.legacy.tree import Designator, PositionList, TransformKeyword
from cqllegacy.vocab.squares import Dihedral, parse_squares

K = TransformKeyword
RIGHT, LEFT, UP = LegacyTransform(dx=1), LegacyTransform(dx=-1), LegacyTransform(dy=1)


def position(text: str) -> PositionList:
    """The single position list of ``(match (position …))``."""
    return read_script(f"(match (position {text}))").match.position_lists()[0]


def designator(text: str) -> Designator:
    (item,) = position(text).items
    assert isinstance(item, Designator)
    return item


def sq(text: str) -> int:
    return parse_squares(text)


# --- worked examples of the edge-inclusive unit shift (semantics: S-unit-shifts) ----------


@pytest.mark.parametrize(
    ("source", "dx", "dy", "image"),
    [
        ("Qd4", 1, 0, "Qe4"),
        ("Q[c2,h2]", 1, 0, "Qd2"),
        ("Q[a2,c2,h2]", 1, 0, "Q[a2,b2,d2]"),
        ("Qa4", 3, 0, "Q[a4,b4,c4,d4]"),
        ("Qd4", 3, 0, "Qg4"),
        ("R[a1,a8,h1,h8]", 0, 1, "R[a1,a2,h1,h2]"),
        # Two right shifts smear from the trailing edge (semantics: S-unit-shifts, S-differences).
        ("Q[a2,c2,h2]", 2, 0, "Q[a2,b2,c2,e2]"),
    ],
)
def test_unit_shift_examples(source: str, dx: int, dy: int, image: str) -> None:
    t = LegacyTransform(dx=dx, dy=dy)
    assert transform_list(t, position(source)) == position(image)


def test_l19_rook_and_bishop_shifted_left_keep_h8() -> None:
    # The source prints Bg8; decision L19: the edge rule wins and h8 stays.
    shifted = transform_list(LEFT, position("Rc2 Bh8 :wtm"))
    assert shifted == position("Rb2 B[g8,h8] :wtm")
    assert shifted != position("Rb2 Bg8 :wtm")


@pytest.mark.parametrize("dx,dy", [(dx, dy) for dx in range(-7, 8) for dy in (-7, -1, 0, 3, 7)])
def test_all_squares_are_invariant_under_every_shift(dx: int, dy: int) -> None:
    full = designator("R")
    assert transform_list(LegacyTransform(dx=dx, dy=dy), position("R")).items == (full,)


def test_mirror_shifts_keep_their_own_trailing_edge() -> None:
    # left: h-file squares stay, a-file squares drop; down: rank 8 stays, rank 1 drops.
    assert legacy_shift(sq("[a3,h3]"), -1, 0) == sq("[g3,h3]")
    assert legacy_shift(sq("[d1,d8]"), 0, -1) == sq("[d7,d8]")


def test_horizontal_and_vertical_unit_shifts_commute() -> None:
    squares = sq("[a1,c3,h8,a8,h1,e5]")
    for dx, dy in [(1, 1), (-1, 1), (2, -3), (-4, -2)]:
        horizontal_first = legacy_shift(legacy_shift(squares, dx, 0), 0, dy)
        vertical_first = legacy_shift(legacy_shift(squares, 0, dy), dx, 0)
        assert horizontal_first == vertical_first


# --- square maps and one transform applied (semantics: S-square-maps, S-applying-transforms)


@pytest.mark.parametrize(
    ("source", "dihedral", "image"),
    [
        ("[Aa][a-h1-2,f6,h7]", Dihedral.REFLECT_A1H8, "[Aa][a-b1-8,f6,g8]"),
        ("Rc3 qg3", Dihedral.REFLECT_A1H8, "Rc3 qc7"),
        ("Ra8", Dihedral.REFLECT_H1A8, "Ra8"),
        ("[Pp][a1-8]", Dihedral.REFLECT_H1A8, "[Pp][a-h8]"),
        ("Uf6", Dihedral.REFLECT_V, "Uc6"),
        ("Uf6", Dihedral.REFLECT_H, "Uf3"),
        ("Rc3 qg3", Dihedral.REFLECT_H, "Rc6 qg6"),
        ("Rb2 Bg8 :wtm", Dihedral.REFLECT_H, "Rb7 Bg1 :wtm"),
    ],
)
def test_flip_examples(source: str, dihedral: Dihedral, image: str) -> None:
    assert transform_list(LegacyTransform(dihedral), position(source)) == position(image)


def test_colour_flip_examples() -> None:
    swap = LegacyTransform(swap_colors=True)
    assert transform_list(swap, position("[Rbp][a2,c2]")) == position("[rBP][a7,c7]")
    # With Scidb's printed error corrected (semantics: S-applying-transforms, S-contradictions).
    assert transform_list(swap, position("Rb2 Bg8 :wtm")) == position("rb7 bg1 :btm")


def test_colour_flip_of_game_keywords_l12() -> None:
    swap = LegacyTransform(swap_colors=True)
    flipped = transform_list(swap, position(":result 1-0 :whiteelo 0 2300 :blackelo 2600 3000"))
    assert flipped == position(":result 0-1 :blackelo 0 2300 :whiteelo 2600 3000")
    assert transform_list(swap, position(":powerdifference [Rr] -5 10")) == position(
        ":powerdifference [Rr] -10 5"
    )
    # A tag keeps its piece; only its squares move.
    tagged = read_script("(match :forany t A (position $t[a2]))").match.position_lists()[0]
    (item,) = transform_list(swap, tagged).items
    assert isinstance(item, Designator)
    assert (item.tag, item.types, item.squares) == ("t", 0, sq("a7"))


def test_dihedral_orbit_of_c2() -> None:
    images = {transform_list(LegacyTransform(d), position("Qc2")) for d in Dihedral}
    expected = {position(f"Q{s}") for s in ("c2", "b3", "b6", "c7", "f7", "g6", "g3", "f2")}
    assert images == expected


def test_ray_directions_swap_under_rank_file_swaps_l13() -> None:
    pl = position(":rayhorizontal (R k)")
    assert transform_list(LegacyTransform(Dihedral.ROT90), pl) == position(":rayvertical (R k)")
    pinned = position(":rayhorizontal (Ra1 kh1)")
    rotated = transform_list(LegacyTransform(Dihedral.ROT90), pinned)
    assert rotated == position(":rayvertical (Rh1 kh8)")
    assert transform_list(LegacyTransform(Dihedral.REFLECT_H), pl) == pl


def test_transforms_reach_nested_lists_which_keep_their_own_keywords() -> None:
    # The ideal mirror mate (semantics: S-combining-transforms).
    mirror = position(
        ":and ((position :attackcount k . 8 :attackcount A k 1 :mate :btm)"
        " (position :not :attackcount k .e4 1 :attackcount A .e4 2 100 :shift))"
    )
    flipped = transform_list(LegacyTransform(swap_colors=True), mirror)
    assert flipped == position(
        ":and ((position :attackcount K . 8 :attackcount a K 1 :mate :wtm)"
        " (position :not :attackcount K .e5 1 :attackcount a .e5 2 100 :shift))"
    )


# --- transform sets (semantics: S-shift-sets) and L4 ---------------------------------------


@pytest.mark.parametrize(
    ("keywords", "size"),
    [
        ((K.SHIFTHORIZONTAL,), 15),
        ((K.SHIFTVERTICAL,), 15),
        ((K.SHIFT,), 225),
        ((K.SHIFTMAINDIAGONAL,), 15),
        ((K.SHIFTOFFDIAGONAL,), 15),
        ((K.SHIFTDIAGONAL,), 29),
        ((K.FLIP,), 8),
        ((K.FLIPDIHEDRAL,), 8),
        ((K.FLIPCOLOR,), 2),
        ((K.FLIPHORIZONTAL,), 2),
        ((K.FLIPVERTICAL,), 2),
        ((K.FLIPDIAGONAL,), 2),
        ((K.FLIPOFFDIAGONAL,), 2),
        ((K.SHIFT, K.FLIP, K.FLIPCOLOR), 3600),
    ],
)
def test_transform_set_sizes(keywords: tuple[TransformKeyword, ...], size: int) -> None:
    transforms = transform_set(keywords)
    assert len(transforms) == len(set(transforms)) == size
    assert transforms[0].is_identity


def test_diagonal_shift_families() -> None:
    main = shift_set([K.SHIFTMAINDIAGONAL])
    off = shift_set([K.SHIFTOFFDIAGONAL])
    assert main == {(k, k) for k in range(-7, 8)}
    assert off == {(k, -k) for k in range(-7, 8)}
    assert shift_set([K.SHIFTMAINDIAGONAL, K.SHIFTOFFDIAGONAL]) == shift_set([K.SHIFTDIAGONAL])
    assert shift_set([K.SHIFTHORIZONTAL, K.SHIFTVERTICAL]) == shift_set([K.SHIFT])
    # Without :shift the families simply unite.
    union = shift_set([K.SHIFTHORIZONTAL, K.SHIFTMAINDIAGONAL])
    assert union == {(k, 0) for k in range(-7, 8)} | main


def test_a_diagonal_unit_shift_is_one_right_and_one_up() -> None:
    t = LegacyTransform(dx=1, dy=1)
    assert transform_list(t, position("Qa1")) == position("Q[a1,a2,b1,b2]")
    assert transform_list(t, position("Qd4")) == position("Qe5")


def test_several_flip_keywords_compose_in_order_l4() -> None:
    # g1 ∘ g2 with g2 (the later keyword) applied first: a1 -> (diagonal) a1 -> (horizontal) a8,
    # b1 -> (diagonal) a2 -> (horizontal) a7.
    transforms = transform_set((K.FLIPHORIZONTAL, K.FLIPDIAGONAL))
    images = {transform_list(t, position("Qb1")) for t in transforms}
    assert images == {position(f"Q{s}") for s in ("b1", "b8", "a2", "a7")}


def test_composition_order_is_g_then_c_then_s() -> None:
    # S ∘ C ∘ G: reflect a2 to h2 first, then swap colours (h7), then shift one left: h7
    # is on the trailing edge of a left shift, so it stays and g7 joins it.  Shifting
    # first would have pushed a2 off the board.
    t = LegacyTransform(Dihedral.REFLECT_V, True, -1, 0)
    assert transform_list(t, position("Ra2 :wtm")) == position("r[g7,h7] :btm")


# --- orbits: consequences of the edge rule (semantics: S-unit-shifts) ---------------------


def orbit(text: str) -> set[PositionList]:
    pl = position(text)
    return set(legacy_orbit(base_list(pl), transform_keywords(pl), Budget(), pl.span))


def live(members: set[PositionList]) -> set[PositionList]:
    """Members that can match: no designator standing alone is empty (L5)."""
    return {
        m for m in members if not any(isinstance(i, Designator) and i.squares == 0 for i in m.items)
    }


def test_rook_and_queen_on_a_rank_four_files_apart() -> None:
    expected = {position(t) for t in ("Rc3 qg3", "Rb3 qf3", "Ra3 qe3", "Rd3 qh3")}
    assert live(orbit("Rc3 qg3 :shifthorizontal")) == expected


def test_pawn_at_least_three_files_left_of_the_knight() -> None:
    expected = {position("Pa4 Nd4")} | {
        position(f"P[a-{'abcdefgh'[k]}4] N{'defgh'[k]}4") for k in range(1, 5)
    }
    assert live(orbit("Pa4 Nd4 :shifthorizontal")) == expected


def test_pawn_exactly_three_files_left_of_the_knight() -> None:
    expected = {position(f"P{p}4 N{n}4") for p, n in zip("abcde", "defgh", strict=True)}
    assert live(orbit("Pb4 Ne4 :shifthorizontal")) == expected


def test_rook_anywhere_below_the_pawn_on_the_c_file() -> None:
    members = live(orbit("Pc2 Rc1 :shiftvertical"))
    assert position("Pc7 R[c1-6]") in members
    assert position("Pc8 R[c1-7]") in members
    assert position("Pc2 Rc1") in members
    # Up 0..6; up 7 pushes the pawn off, and any down shift drops the rook from rank 1.
    assert len(members) == 7


def test_kept_empty_designators_l5() -> None:
    members = orbit(":piececount R[g1] 0 :shifthorizontal")
    emptied = [m for m in members if m.items[0].designator.squares == 0]  # type: ignore[union-attr]
    assert len(emptied) == 1  # every right shift of g1 beyond h1 is the same empty designator


def test_flip_of_opposite_corner_kings_has_four_members() -> None:
    assert len(orbit("Ka1 kh8 :flip")) == 4


# --- the orbit and the compact form, against their definitions --------------------------

_ROOT = Path(__file__).resolve().parents[2]
_SCRIPTS = sorted(
    [
        *(_ROOT / "fixtures" / "migration").glob("*/legacy.cql"),
        *(_ROOT / "examples").glob("*.cql"),
        *(_ROOT / "benchmarks" / "queries").glob("*.cql"),
    ]
)


def _transformed_lists(node: object) -> Iterator[PositionList]:
    """Every position list with transform keywords in a legacy tree, nested ones too."""
    if isinstance(node, PositionList) and transform_keywords(node):
        yield node
    if isinstance(node, tuple):
        for item in node:
            yield from _transformed_lists(item)
    elif attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            yield from _transformed_lists(getattr(node, field.name))


_TRANSFORMED = [
    pl
    for path in _SCRIPTS
    for pl in _transformed_lists(read_script(path.read_text(encoding="utf-8")))
] + [
    position(text)
    for text in (
        "Ra2 :wtm :shift :flip :flipcolor",
        "Kb1 :rayhorizontal (Rc1 kh1) :attackcount N k 1 :flip :shifthorizontal",
        ":powerdifference U -3 5 :btm Q[a1,h8] :flipcolor :shiftvertical",
        ":sequence ((position :movefrom Nb1) (position Pe4 :flip)) :shift",
        # Transforms that leave every square in place and still change the list.
        "Q[d4,d5] :btm :flipcolor",
        ":rayhorizontal (Ra1 kh8) :flip",
    )
]


@pytest.mark.parametrize("pl", _TRANSFORMED, ids=lambda pl: str(pl.span))
def test_orbits_are_every_transformed_list_in_order(pl: PositionList) -> None:
    # The orbit builds one list per distinct effect of the transforms; the definition
    # builds them all.
    base, keywords = base_list(pl), transform_keywords(pl)
    expected = tuple(dict.fromkeys(transform_list(t, base) for t in transform_set(keywords)))
    assert legacy_orbit(base, keywords, Budget(), pl.span) == expected


_PLACING = [
    read_script(f"(match {'' if ':relation' in text else ':forany r [Rr]'} (position {text}))")
    .match.position_lists()[0]
    for text in (
        # A designator of the list itself that shifts empty (most members false), one of a
        # nested list (its members are built), both, a tag's squares.
        "Kg1 :and ((position :movefrom R[a1,h1])) :shift",
        "Kg1 Ra1 :flip :shiftvertical",
        "$r[b2] :gappedsequence ((position :movefrom $r :moveto ?e5)) :shift :flip",
        "Q[a1-8] :not Kh8 :shifthorizontal",
        # A nested designator that empties does not make the member false.
        "Kg1 :or ((position Ra1) (position Qh8)) :shift",
        # Nested transform keywords or a relation: every member is built.
        "Kg1 :and ((position Ra1 :shiftvertical)) :shift",
        "Kg1 :relation (:pattern :shift) :shift",
    )
]


@pytest.mark.parametrize("pl", _TRANSFORMED + _PLACING, ids=lambda pl: str(pl.span))
def test_an_orbits_rewritten_members_are_those_of_every_transformed_list(
    pl: PositionList,
) -> None:
    # Members known false (a designator of the list emptied by the transform) are not
    # built; the definition rewrites every transformed list and drops the false ones.
    _, base = strip_comments(base_list(pl))
    keywords = transform_keywords(pl)
    spent = Budget()
    every = legacy_orbit(base, keywords, spent, pl.span)
    ctx = TranslationContext(budget=spent)
    expected = dict.fromkeys(member_filter(m, ctx) for m in every)
    expected.pop(FALSE, None)
    fast = TranslationContext(budget=Budget())
    assert orbit_filters(base, keywords, fast, pl.span) == list(expected)
    # Nested transforms spend the budget as the definition does.
    assert fast.budget.used == spent.used
    live = live_orbit(base, keywords, Budget(), pl.span)
    if live is not None:
        assert live[0] == every[0]
        assert set(live) <= set(every)
        assert all(member_filter(m, ctx) == FALSE for m in set(every) - set(live))


def test_only_lists_that_build_nothing_more_skip_members() -> None:
    for pl, skips in zip(_PLACING, (True, True, True, True, True, False, False), strict=True):
        live = live_orbit(base_list(pl), transform_keywords(pl), Budget(), pl.span)
        assert (live is not None) is skips, pl
    first = base_list(_PLACING[0])
    live = live_orbit(first, (K.SHIFT,), Budget(), _PLACING[0].span)
    assert live is not None
    assert len(live) < len(legacy_orbit(first, (K.SHIFT,), Budget(), _PLACING[0].span))
