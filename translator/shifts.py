"""Legacy (CQL 3) transforms: edge-inclusive unit shifts and the transform sets
(semantics: S-legacy-transforms).

A legacy unit shift moves every square one step, drops the squares pushed over the
edge it moves towards, and *keeps* the squares on the edge it moves away from (their
image is added as well).  Longer shifts are repeated unit shifts, so a designator on
the trailing edge smears out (semantics: S-unit-shifts):

>>> from cqllegacy.vocab.squares import format_squares, parse_squares
>>> format_squares(legacy_shift(parse_squares("[a2,c2,h2]"), 1, 0))
'[a-b2,d2]'
>>> format_squares(legacy_shift(parse_squares("a4"), 3, 0))
'a-d4'

A :class:`LegacyTransform` is one element of a list's transform set: the dihedral map
G, then the optional colour flip C, then the shift S (decision L4: S ∘ C ∘ G).

>>> t = LegacyTransform(Dihedral.REFLECT_H, True, -1, 0)
>>> format_squares(t.map_squares(parse_squares("b2")))
'a2'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

import attrs

from cqllegacy.legacy.tree import TransformKeyword
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import TypeSet, color_swap
from cqllegacy.vocab.squares import (
    BB_FILES,
    BB_RANKS,
    Dihedral,
    SquareSet,
    color_swap_set,
)

__all__ = [
    "COLOR_KEYWORDS",
    "FLIP_KEYWORDS",
    "SHIFT_KEYWORDS",
    "LegacyTransform",
    "legacy_shift",
    "transform_set",
    "unit_shift",
]

# --------------------------------------------------------------------------------------
# Unit shifts
# --------------------------------------------------------------------------------------

_NOT_FILE_H = ~BB_FILES[7] & 0xFFFF_FFFF_FFFF_FFFF
_NOT_FILE_A = ~BB_FILES[0] & 0xFFFF_FFFF_FFFF_FFFF


def _unit_right(bb: SquareSet) -> SquareSet:
    # h-file squares fall off; a-file squares stay and also move to the b-file.
    return ((bb & _NOT_FILE_H) << 1) | (bb & BB_FILES[0])


def _unit_left(bb: SquareSet) -> SquareSet:
    return ((bb & _NOT_FILE_A) >> 1) | (bb & BB_FILES[7])


def _unit_up(bb: SquareSet) -> SquareSet:
    return ((bb << 8) & 0xFFFF_FFFF_FFFF_FFFF) | (bb & BB_RANKS[0])


def _unit_down(bb: SquareSet) -> SquareSet:
    return (bb >> 8) | (bb & BB_RANKS[7])


_UNIT = {
    (1, 0): _unit_right,
    (-1, 0): _unit_left,
    (0, 1): _unit_up,
    (0, -1): _unit_down,
}


def unit_shift(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    """One edge-inclusive unit step right/left (``dx`` = ±1) or up/down (``dy`` = ±1).

    >>> from cqllegacy.vocab.squares import format_squares, parse_squares
    >>> format_squares(unit_shift(parse_squares("[c2,h2]"), 1, 0))
    'd2'
    >>> format_squares(unit_shift(parse_squares("[a1,a8,h1,h8]"), 0, 1))
    '[a1-2,h1-2]'
    """
    return _UNIT[(dx, dy)](bb)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def legacy_shift(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    """``|dx|`` horizontal and ``|dy|`` vertical unit shifts; they commute
    (semantics: S-unit-shifts).

    >>> from cqllegacy.vocab.squares import format_squares, parse_squares
    >>> format_squares(legacy_shift(parse_squares("d4"), 3, 0))
    'g4'
    >>> format_squares(legacy_shift(parse_squares("[c2,h8]"), -1, 0))
    '[b2,g-h8]'
    """
    return _legacy_shift(bb, dx, dy)


@functools.lru_cache(maxsize=1 << 14)
def _legacy_shift(bb: SquareSet, dx: int, dy: int) -> SquareSet:
    # One unit step from the shift one step shorter: a transform set's shifts of one
    # designator share their first steps (225 shifts cost 225 unit steps, not 1,680).
    if dy:
        return unit_shift(_legacy_shift(bb, dx, dy - _sign(dy)), 0, _sign(dy))
    if dx:
        return unit_shift(_legacy_shift(bb, dx - _sign(dx), 0), _sign(dx), 0)
    return bb


# --------------------------------------------------------------------------------------
# One element of a transform set
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False, slots=True)
class LegacyTransform(Record):
    """``dihedral``, then the colour flip when ``swap_colors``, then the legacy shift.

    ``dx``/``dy`` count unit shifts right/up (negative: left/down).
    """

    dihedral: Dihedral = Dihedral.IDENTITY
    swap_colors: bool = False
    dx: int = 0
    dy: int = 0
    #: Images of square sets already made (by the orbit that chose this transform for
    #: them): :meth:`map_squares` looks there first.  Not part of the transform's identity.
    images: Mapping[SquareSet, SquareSet] | None = attrs.field(
        default=None, eq=False, repr=False, kw_only=True
    )

    @property
    def is_identity(self) -> bool:
        return self == _IDENTITY

    def map_squares(self, squares: SquareSet) -> SquareSet:
        """The image of a square set; may be empty (decision L5 keeps such designators)."""
        if self.images is not None:
            known = self.images.get(squares)
            if known is not None:
                return known
        return legacy_shift(self.unshifted(squares), self.dx, self.dy)

    def unshifted(self, squares: SquareSet) -> SquareSet:
        """The image of a square set before the shift: the dihedral map, then the colour
        flip (the same for every shift of a transform set)."""
        image = self.dihedral.map_set(squares)
        return color_swap_set(image) if self.swap_colors else image

    def map_types(self, types: TypeSet) -> TypeSet:
        return color_swap(types) if self.swap_colors else types

    @property
    def swaps_ranks_and_files(self) -> bool:
        return self.dihedral.swaps_ranks_and_files()


_IDENTITY = LegacyTransform()

# --------------------------------------------------------------------------------------
# Transform sets (semantics: S-shift-sets, S-combining-transforms; decision L4)
# --------------------------------------------------------------------------------------

K = TransformKeyword

_ALL_DIHEDRAL = frozenset(Dihedral)
_FLIP_SETS: dict[TransformKeyword, frozenset[Dihedral]] = {
    K.FLIP: _ALL_DIHEDRAL,
    K.FLIPDIHEDRAL: _ALL_DIHEDRAL,
    K.FLIPDIAGONAL: frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_A1H8}),
    K.FLIPOFFDIAGONAL: frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_H1A8}),
    K.FLIPHORIZONTAL: frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_H}),
    K.FLIPVERTICAL: frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_V}),
}

_STEPS = range(-7, 8)
_SHIFT_FAMILIES: dict[TransformKeyword, frozenset[tuple[int, int]]] = {
    K.SHIFT: frozenset((i, j) for i in _STEPS for j in _STEPS),
    K.SHIFTHORIZONTAL: frozenset((k, 0) for k in _STEPS),
    K.SHIFTVERTICAL: frozenset((0, k) for k in _STEPS),
    K.SHIFTMAINDIAGONAL: frozenset((k, k) for k in _STEPS),
    K.SHIFTOFFDIAGONAL: frozenset((k, -k) for k in _STEPS),
}
_SHIFT_FAMILIES[K.SHIFTDIAGONAL] = (
    _SHIFT_FAMILIES[K.SHIFTMAINDIAGONAL] | _SHIFT_FAMILIES[K.SHIFTOFFDIAGONAL]
)

FLIP_KEYWORDS = frozenset(_FLIP_SETS)
SHIFT_KEYWORDS = frozenset(_SHIFT_FAMILIES)
COLOR_KEYWORDS = frozenset({K.FLIPCOLOR})


def flip_set(keywords: Sequence[TransformKeyword]) -> frozenset[Dihedral]:
    """Every composition g1 ∘ g2 ∘ … with g_i from the i-th flip keyword (L4).

    >>> sorted(d.label for d in flip_set([K.FLIPHORIZONTAL, K.FLIPDIAGONAL]))
    ['identity', 'reflect_a1h8', 'reflect_h', 'rot270']
    """
    result = frozenset({Dihedral.IDENTITY})
    for keyword in keywords:
        # g1 ∘ … ∘ g_{i-1} is already in ``result``; the new keyword's map goes innermost.
        result = frozenset(
            outer.compose(inner) for outer in result for inner in _FLIP_SETS[keyword]
        )
    return result


def shift_set(keywords: Iterable[TransformKeyword]) -> frozenset[tuple[int, int]]:
    """The shift offsets of the shift keywords of one list (L4).

    >>> len(shift_set([K.SHIFTHORIZONTAL, K.SHIFTVERTICAL]))
    225
    >>> len(shift_set([K.SHIFTMAINDIAGONAL, K.SHIFTOFFDIAGONAL]))
    29
    """
    present = set(keywords)
    if K.SHIFT in present or {K.SHIFTHORIZONTAL, K.SHIFTVERTICAL} <= present:
        return _SHIFT_FAMILIES[K.SHIFT]
    result: frozenset[tuple[int, int]] = frozenset({(0, 0)})
    for keyword in present:
        result |= _SHIFT_FAMILIES[keyword]
    return result


@functools.cache
def transform_set(keywords: tuple[TransformKeyword, ...]) -> tuple[LegacyTransform, ...]:
    """The transform set of a list with these transform keywords, identity first.

    Ordered by shift, then colour, then dihedral map, so that the result does not depend
    on set iteration order.

    >>> len(transform_set((K.SHIFT, K.FLIP, K.FLIPCOLOR)))
    3600
    >>> [t.is_identity for t in transform_set(())]
    [True]
    """
    flips = flip_set([k for k in keywords if k in FLIP_KEYWORDS])
    shifts = shift_set(k for k in keywords if k in SHIFT_KEYWORDS)
    colors = (False, True) if K.FLIPCOLOR in keywords else (False,)
    dihedral_order = list(Dihedral)
    transforms = [
        LegacyTransform(g, c, dx, dy)
        for dx, dy in sorted(shifts, key=lambda s: (s != (0, 0), abs(s[0]) + abs(s[1]), s))
        for c in colors
        for g in sorted(flips, key=dihedral_order.index)
    ]
    return tuple(transforms)
