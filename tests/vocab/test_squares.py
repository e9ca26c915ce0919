"""The shared square and piece tables against the worked examples of docs/semantics.md."""

import functools
import operator

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.vocab.pieces import (
    ANYTHING,
    EMPTY_BIT,
    color_swap,
    format_legacy_types,
    format_modern_types,
    legacy_types,
    types_of,
)
from cqllegacy.vocab.squares import (
    Dihedral,
    Direction,
    color_swap_set,
    format_squares,
    modern_shift,
    modern_shift_by_square,
    parse_squares,
    step,
    step_by_square,
)


def sq(text: str) -> int:
    return parse_squares(text)


@pytest.mark.parametrize(
    ("dihedral", "source", "image"),
    [
        (Dihedral.REFLECT_A1H8, "[a-h1-2,f6,h7]", "[a-b1-8,f6,g8]"),
        (Dihedral.REFLECT_A1H8, "[c3,g3]", "[c3,c7]"),
        (Dihedral.REFLECT_H1A8, "a8", "a8"),
        (Dihedral.REFLECT_H1A8, "a1-8", "a-h8"),
        (Dihedral.REFLECT_V, "f6", "c6"),
        (Dihedral.REFLECT_H, "f6", "f3"),
        (Dihedral.REFLECT_H, "[c3,g3]", "[c6,g6]"),
        (Dihedral.ROT90, "a1", "h1"),
    ],
)
def test_dihedral_maps_match_the_legacy_examples(dihedral, source, image):
    assert dihedral.map_set(sq(source)) == sq(image)


def test_dihedral_orbit_of_c2():
    assert Dihedral.orbit_of_set(sq("c2")) == sq("[c2,b3,b6,c7,f7,g6,g3,f2]")


def test_composition_table_agrees_with_applying_twice():
    for outer in Dihedral:
        for inner in Dihedral:
            composed = outer.compose(inner)
            for square in chess.SQUARES:
                assert composed.map_square(square) == outer.map_square(inner.map_square(square))


def test_direction_vectors_follow_the_square_maps():
    for dihedral in Dihedral:
        for direction in Direction:
            image = direction.mapped(dihedral.map_vector)
            assert len(image.vectors) == len(direction.vectors)
    assert Direction.UP.mapped(Dihedral.ROT90.map_vector) is Direction.LEFT
    assert Direction.VERTICAL.mapped(Dihedral.REFLECT_A1H8.map_vector) is Direction.HORIZONTAL
    assert Direction.NORTHEAST.mapped(Dihedral.REFLECT_H.map_vector) is Direction.SOUTHEAST


@pytest.mark.parametrize(
    ("source", "dx", "dy", "image"),
    [
        ("[a1,d3]", 2, 3, "[c4,f6]"),
        ("[a-h2,c4]", 2, 3, "[a-h5,e7]"),
        ("[a-h2,c4]", 7, 7, "[]"),
        ("a1", 0, 3, "a4"),
        ("[a1-8,c4]", 0, 3, "[a1-8,c7]"),
        ("[a-h2,c4]", 0, 7, "[]"),
        ("a1", 3, 0, "d1"),
        ("[a-h2,c4]", 3, 0, "[a-h2,f4]"),
        ("[d2,c4]", 7, 0, "[]"),
        ("h2-7", 0, 2, "h4-8"),
    ],
)
def test_modern_shift_examples(source, dx, dy, image):
    assert modern_shift(sq(source), dx, dy) == sq(image)


#: Square sets, dense ones included (full ranks and files, the whole board).
_SETS = st.one_of(
    st.integers(min_value=0, max_value=(1 << 64) - 1),
    st.sets(st.integers(min_value=0, max_value=63), max_size=7).map(
        lambda s: sum(1 << q for q in s)
    ),
    st.sets(st.sampled_from([*chess.BB_RANKS, *chess.BB_FILES]), max_size=3).map(
        lambda lines: functools.reduce(operator.or_, lines, 0)
    ),
)


@settings(max_examples=500, deadline=None)
@given(
    bb=_SETS, dx=st.integers(min_value=-8, max_value=8), dy=st.integers(min_value=-8, max_value=8)
)
def test_whole_board_shifts_move_each_square_as_their_definitions(bb, dx, dy):
    # step and modern_shift move whole bitboards at once; the definitions move one
    # square at a time (a file shift must not wrap into the next rank).
    assert step(bb, dx, dy) == step_by_square(bb, dx, dy)
    assert modern_shift(bb, dx, dy) == modern_shift_by_square(bb, dx, dy)


def test_full_board_never_shifts():
    assert modern_shift(chess.BB_ALL, 3, -2) == chess.BB_ALL


def test_color_swap():
    assert color_swap_set(sq("[a2,c2]")) == sq("[a7,c7]")
    assert color_swap(legacy_types("[Rbp]")) == legacy_types("[rBP]")
    assert color_swap(legacy_types("U")) == legacy_types("U")
    assert color_swap(EMPTY_BIT) == EMPTY_BIT


@pytest.mark.parametrize(
    ("text", "letters"),
    [("M", "QR"), ("m", "qr"), ("I", "BN"), ("i", "bn"), ("A", "KQRBNP"), ("a", "kqrbnp")],
)
def test_legacy_group_letters(text, letters):
    assert legacy_types(text) == types_of(letters)


def test_type_spellings():
    assert legacy_types("?") == ANYTHING
    assert format_legacy_types(legacy_types("[aQBNPK.]")) == "[aKQBNP.]"
    assert format_modern_types(legacy_types("[aQBNPK.]")) == "[aKQBNP_]"
    assert format_modern_types(legacy_types("U")) == "[Aa]"


def test_square_text_round_trip_and_spellings():
    assert sq("?8") == chess.BB_RANK_8
    assert sq("a?") == chess.BB_FILE_A
    assert sq("??") == chess.BB_ALL
    assert sq("b-h2") == sq("[h-b2]")
    assert format_squares(sq("[a1,h1,a8,h8]")) == "[a1,a8,h1,h8]"
    for bits in (0, 1, 0x8100000000000081, 0xFFFF, 0x0F0F0F0F, chess.BB_ALL):
        assert parse_squares(format_squares(bits)) == bits
