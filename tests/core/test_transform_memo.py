"""The images ``core.transforms.apply`` remembers, against images made afresh.

``apply`` keeps each node's image per basic transform, filed under the node's identity
(``transforms._IMAGES``); ``apply_unremembered`` rewrites every node by its rule.  The
trees are generated (``tests/support/strategies.py``) and hold their subtrees several
times, as the members of an orbit share their steps, and equal copies of them, so that
the memo is read for shared nodes, for equal nodes that are not the same, across
transforms, and after a shift has emptied a designator (the member dropped).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.core.transforms import (
    BasicTransform,
    apply,
    apply_unremembered,
    basic_transforms,
    forget_images,
    orbit,
)
from cqllegacy.core.tree import (
    Compound,
    DirectionSet,
    Filter,
    HypotheticalLine,
    HypotheticalMove,
    Move,
    Not,
    Or,
    Origin,
    PieceSet,
    Relation,
    SquareColor,
    Transform,
    TransformKind,
)
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import EMPTY_BIT
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import Direction
from tests.support.strategies import filters

#: Every basic transform of every kind, each once.
TAUS = list(dict.fromkeys(tau for kind in TransformKind for tau in basic_transforms(kind)))


def image(make: object, tau: BasicTransform, node: Filter) -> object:
    """What ``make(tau, node)`` gives, or the refusal (a relation under a transform)."""
    assert callable(make)
    try:
        return make(tau, node)
    except ValueError as refusal:
        return ("refused", str(refusal))


def sharing(f: Filter) -> Filter:
    """``f`` three times over, and an equal copy of it made of other nodes (where a
    colour swap changes something)."""
    swap = BasicTransform(swap_colors=True)
    swapped = apply_unremembered(swap, f)
    assert swapped is not None  # a colour swap never empties a designator
    copy = apply_unremembered(swap, swapped)
    assert copy == f
    return Or((f, Compound((f, Not(f))), Compound((copy,))))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(filters(), st.lists(st.sampled_from(TAUS), min_size=1, max_size=8))
def test_remembered_images_are_the_images_made_afresh(
    f: Filter, taus: list[BasicTransform]
) -> None:
    tree = sharing(f)
    # Twice through the transforms: the second round reads what the first remembered.
    for tau in [*taus, *taus]:
        for node in (f, tree):
            assert image(apply, tau, node) == image(apply_unremembered, tau, node)


def test_a_dropped_member_stays_dropped_when_asked_again() -> None:
    rook = pd("Rh1")
    tree = Compound((rook, Not(rook)))
    right = BasicTransform(dx=1)
    assert apply(right, tree) is None
    assert apply(right, tree) is None  # from the memo
    assert apply(right, rook) is None
    assert apply(BasicTransform(dx=-1), tree) == Compound((pd("Rg1"), Not(pd("Rg1"))))


def test_equal_nodes_keep_their_own_origin() -> None:
    # Equality ignores a construct's origin; the memo goes by identity, so each image
    # keeps its own node's origin (what a refusal of the printer names).
    first = Move(from_=pd("Qa2"), origin=Origin(":movefrom", Span(3, 5)))
    second = Move(from_=pd("Qa2"), origin=Origin(":movefrom", Span(9, 1)))
    up = BasicTransform(dy=1)
    images = [apply(up, first), apply(up, second)]
    assert images[0] == images[1] == Move(from_=pd("Qa3"))
    assert [getattr(i, "origin", None) for i in images] == [first.origin, second.origin]


def test_shared_subtrees_are_rewritten_once_per_transform() -> None:
    step = Compound((pd("Qa2"),))
    tree = Or(tuple(Compound((step, pd(f"k{f}8"))) for f in "abcdefgh"))
    flip = basic_transforms(TransformKind.FLIP)[3]
    flipped = apply(flip, tree)
    assert isinstance(flipped, Or)
    images = {id(item.items[0]) for item in flipped.items if isinstance(item, Compound)}
    assert len(images) == 1


def orbit_afresh(kind: TransformKind, node: Filter) -> tuple[Filter, ...]:
    """The orbit by its definition: every basic transform's image made afresh, the
    invalid ones dropped, repeats removed."""
    images = (apply_unremembered(tau, node) for tau in basic_transforms(kind))
    return tuple(dict.fromkeys(image for image in images if image is not None))


def orbit_unremembered(kind: TransformKind, node: Filter) -> tuple[Filter, ...]:
    # orbit skips the shifts that empty a designator before rewriting anything, from the
    # square sets it finds in the tree (remembered by node, as the images are).
    return orbit.__wrapped__(kind, node)  # type: ignore[attr-defined,no-any-return]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(filters(), st.sampled_from(list(TransformKind)))
def test_orbits_are_the_images_made_afresh(f: Filter, kind: TransformKind) -> None:
    for node in (f, sharing(f), f):
        assert image(orbit_unremembered, kind, node) == image(orbit_afresh, kind, node)


#: Piece designators on a few squares: most shifts take some of them off the board.
SMALL = st.builds(
    lambda squares, white: pd(("K" if white else "n") + f"[{','.join(squares)}]"),
    st.lists(st.sampled_from(["a1", "b7", "d4", "e5", "h2", "g8", "c3-4"]), min_size=1, max_size=3),
    st.booleans(),
)
#: Trees of them: several designators, some below moves, negations and other orbits.
SHIFTED = st.lists(SMALL, min_size=1, max_size=4).flatmap(
    lambda sets: st.sampled_from(
        [
            Compound(tuple(sets)),
            Compound((Move(from_=sets[0], to=sets[-1]), Not(Compound(tuple(sets))))),
            Or((sets[0], Compound(tuple(sets[1:]) or (sets[0],)))),
        ]
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SHIFTED, st.sampled_from(list(TransformKind)))
def test_orbits_of_designators_that_shifts_empty_are_the_images_made_afresh(
    tree: Filter, kind: TransformKind
) -> None:
    assert orbit_unremembered(kind, tree) == orbit_afresh(kind, tree)


def test_an_orbit_with_a_relation_is_refused_though_shifts_empty_its_anchors() -> None:
    # Every shift but the identity's empties a file anchor, but the rewrite meets the
    # relation first: the orbit is refused, not left with the identity alone.
    forget_images()
    tree = Compound((Relation(), pd("[a1-8]"), pd("[h1-8]")))
    refused = image(orbit_afresh, TransformKind.SHIFTHORIZONTAL, tree)
    assert refused[0] == "refused"  # type: ignore[index]
    assert image(orbit_unremembered, TransformKind.SHIFTHORIZONTAL, tree) == refused


def _line_move(start: Filter, end: Filter) -> HypotheticalMove:
    """A move of a hypothetical line between the squares of two designators (its squares
    are its own, not a designator's)."""
    assert isinstance(start, PieceSet) and isinstance(end, PieceSet)
    return HypotheticalMove(start.types, start.squares, EMPTY_BIT, end.squares)


#: Patterns whose squares a shift moves as a whole (designators of one to three squares,
#: no full rank or file), under nodes with rules of their own: a square's colour, a
#: direction, a move, another orbit, a hypothetical line.
PATTERN = st.lists(
    st.builds(
        lambda squares, white: pd(("Q" if white else "b") + f"[{','.join(squares)}]"),
        st.lists(
            st.sampled_from(["a1", "b2", "c7", "d4", "e6", "f3", "h5", "g8"]),
            min_size=1,
            max_size=3,
        ),
        st.booleans(),
    ),
    min_size=1,
    max_size=4,
).flatmap(
    lambda sets: st.sampled_from(
        [
            Compound(tuple(sets)),
            Compound((SquareColor(True, sets[0]), *sets[1:])),
            Compound((DirectionSet(Direction.UP, sets[0], 1, 3), Not(sets[-1]))),
            Compound((Move(from_=sets[0], to=sets[-1]), *sets)),
            Compound((sets[0], Transform(TransformKind.FLIP, Compound(tuple(sets))))),
            # The line's move reaches squares that no designator holds.
            Compound((*(sets[:-1] or sets), HypotheticalLine((_line_move(sets[0], sets[-1]),)))),
        ]
    )
)
SHIFT_KINDS = [TransformKind.SHIFT, TransformKind.SHIFTHORIZONTAL, TransformKind.SHIFTVERTICAL]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATTERN, st.integers(-7, 7), st.integers(-7, 7), st.sampled_from(SHIFT_KINDS))
def test_the_orbit_of_a_moved_pattern_is_read_off_the_pattern_at_the_edge(
    pattern: Filter, dx: int, dy: int, kind: TransformKind
) -> None:
    # orbit reads a shift orbit off the images of the tree moved to the a-file and the
    # first rank (the table of that tree, shared by every copy of it placed elsewhere):
    # the same members, in the same order, as every basic transform made afresh; with
    # the square colour, the direction, the nested orbit, the squares shifted off.
    moved = apply_unremembered(BasicTransform(dx=dx, dy=dy), pattern)
    for tree in (pattern, moved):
        if tree is not None:
            assert orbit_unremembered(kind, tree) == orbit_afresh(kind, tree)
