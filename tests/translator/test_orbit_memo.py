"""The transformed lists ``orbits.transform_list`` remembers, against lists made afresh.

``transform_list`` files each list's image under the list's identity and the
transform's effect on it (the flip of colours, whether ranks and files swap, the images
of the list's square sets); transforms with one effect share the image.  The
comparison is with the same function whose memo stores nothing, on generated lists with
nested lists, colour keywords, rays and moves, under the transform sets of every family.
"""

from __future__ import annotations

from typing import Any

from cqllegacy.translator import orbits
from cqllegacy.translator.orbits import Budget, legacy_orbit, live_orbit, transform_list
from cqllegacy.translator.shifts import LegacyTransform, transform_set
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.legacy import read_script
from cqllegacy.legacy.tree import PositionList, TransformKeyword

K = TransformKeyword


class Forgetful(dict[Any, Any]):
    """A memo that keeps nothing: every list is made afresh."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def position(text: str) -> PositionList:
    return read_script(f"(match (position {text}))").match.position_lists()[0]


def afresh(t: LegacyTransform, pl: PositionList) -> PositionList:
    remembered = orbits._LIST_IMAGES
    orbits._LIST_IMAGES = Forgetful()
    try:
        return transform_list(t, pl)
    finally:
        orbits._LIST_IMAGES = remembered


DESIGNATOR = st.sampled_from(
    ["Ka1", "kh8", "Qa2", "q[a4,a5]", "R[a-h1]", "Pe4", "p[d5,e4]", "N[b1,g1]", "A[a-d4-5]", "."]
)
ITEM = st.one_of(
    DESIGNATOR,
    st.sampled_from([":wtm", ":btm", ":check", ":result 1-0", ":whiteelo 2000 3000"]),
    DESIGNATOR.map(":movefrom {}".format),
    DESIGNATOR.map(":attackcount {} k 1 2".format),
    st.tuples(DESIGNATOR, DESIGNATOR).map(lambda ds: f":rayvertical ({ds[0]} {ds[1]})"),
    DESIGNATOR.map(":powerdifference {} 1 5".format),
)
INNER = st.lists(ITEM, min_size=1, max_size=3).map(lambda items: f"(position {' '.join(items)})")
NESTED = st.tuples(
    st.sampled_from([":sequence", ":or", ":and"]), st.lists(INNER, min_size=1, max_size=4)
)
LIST = st.tuples(
    st.lists(ITEM, max_size=2), st.lists(NESTED, max_size=2, unique_by=lambda n: n[0])
).map(
    lambda parts: " ".join(
        [*parts[0], *(f"{keyword} ({' '.join(lists)})" for keyword, lists in parts[1])]
    )
)
KEYWORDS = st.sampled_from(
    [
        (K.SHIFT, K.FLIP, K.FLIPCOLOR),
        (K.SHIFTHORIZONTAL, K.FLIPCOLOR),
        (K.SHIFTVERTICAL, K.FLIPVERTICAL),
        (K.SHIFTDIAGONAL, K.FLIPDIAGONAL),
        (K.FLIPDIHEDRAL,),
    ]
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(LIST, KEYWORDS, st.data())
def test_remembered_lists_are_the_lists_made_afresh(
    text: str, keywords: tuple[TransformKeyword, ...], data: st.DataObject
) -> None:
    pl = position(text)
    transforms = transform_set(keywords)
    chosen = data.draw(st.lists(st.sampled_from(transforms), min_size=1, max_size=40))
    # Every transform of the set first, so that the chosen ones read the memo.
    for t in transforms:
        transform_list(t, pl)
    for t in chosen:
        assert transform_list(t, pl) == afresh(t, pl)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LIST, KEYWORDS)
def test_orbits_are_the_lists_every_transform_makes_afresh(
    text: str, keywords: tuple[TransformKeyword, ...]
) -> None:
    # The orbits build one list per effect, with the images of the list's square sets
    # made once per transform (LegacyTransform.images); afresh, every transform maps
    # every designator itself.
    pl = position(text)
    expected = tuple(dict.fromkeys(afresh(t, pl) for t in transform_set(keywords)))
    assert legacy_orbit(pl, keywords, Budget(), pl.span) == expected
    live = live_orbit(pl, keywords, Budget(), pl.span)
    if live is not None:
        # Without the members a transform makes false by emptying a designator item.
        assert live == tuple(m for m in expected if m in set(live))
        for member in set(expected) - set(live):
            emptied = [i for i in member.items if getattr(i, "squares", None) == 0]
            assert emptied and type(emptied[0]).__name__ == "Designator"


def test_a_colour_flip_that_keeps_the_squares_is_another_effect() -> None:
    # q[a4,a5] is its own image under the colour flip's squares; its type and :wtm are not.
    pl = position(":sequence ((position q[a4,a5] :wtm) (position :check))")
    flipped = transform_list(LegacyTransform(swap_colors=True), pl)
    assert transform_list(LegacyTransform(), pl) is pl
    assert flipped == position(":sequence ((position Q[a4,a5] :btm) (position :check))")


def test_members_share_their_nested_lists() -> None:
    pl = position(":sequence ((position :movefrom Qa2) (position :check) (position :movefrom Qb2))")
    shifts = transform_set((K.SHIFTHORIZONTAL,))[1:]  # the identity's list is the list
    members = [transform_list(t, pl) for t in shifts]
    checks = {id(m.items[0].lists[1]) for m in members}  # type: ignore[union-attr]
    assert len(members) == 14
    assert len(checks) == 1
