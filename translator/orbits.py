"""Legacy orbits of position lists, and when a modern transform says the same (T2).

The *legacy orbit* of a position list is the tuple of distinct lists T(L) for T in the
list's transform set (transform keywords removed, duplicates dropped by structural
equality, decision L4).  A transform reaches into nested lists, whose own transform
keywords stay and apply on top (semantics: S-combining-transforms); designators a shift
empties are kept (L5).

The translator writes the OR of the orbit either explicitly or, when CQL 6 transforms
produce the same set of filters, as nested modern ``Transform`` nodes.  The second is
only chosen after computing both sets (:func:`modern_atoms`) and comparing them.

>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import format_squares, parse_squares
>>> from cqllegacy.legacy.tree import Designator, PositionList, TransformKeyword
>>> rook = PositionList((Designator(types_of("R"), parse_squares("[a1,c1]")),))
>>> [format_squares(m.items[0].squares) for m in legacy_orbit(
...     rook, (TransformKeyword.SHIFTHORIZONTAL,), Budget(), rook.span)][:4]
['[a1,c1]', 'b1', '[a-b1,d1]', 'a1']
"""

from __future__ import annotations

import functools
import itertools
import typing
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

import attrs
import chess
from cqllegacy.translator.errors import translation_error
from cqllegacy.translator.shifts import (
    FLIP_KEYWORDS,
    SHIFT_KEYWORDS,
    LegacyTransform,
    flip_set,
    legacy_shift,
    shift_set,
    transform_set,
)

from cqllegacy.core import transforms as modern
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import (
    And,
    Arith,
    ArithOp,
    Filter,
    LineStep,
    Or,
    TransformKind,
)
from cqllegacy.core.tree import Transform as CoreTransform
from cqllegacy.legacy.tree import (
    Accumulate,
    AccumulateEach,
    BoardTest,
    CastlingMove,
    CastlingRightsTest,
    Comment,
    Designator,
    FenPosition,
    Flag,
    FlagKeyword,
    HalfmoveClockRange,
    HypotheticalMoves,
    LineMove,
    ListOfLists,
    PositionItem,
    PositionList,
    PowerDifference,
    Range,
    RangeKeyword,
    RangeTest,
    Ray,
    RayKeyword,
    Relation,
    ResultTest,
    SumRange,
    Transform,
    Transformed,
    TransformKeyword,
    TransposedLine,
    designators,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import color_swap
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import Dihedral

__all__ = [
    "ITEM_MAPS",
    "MAX_ORBIT_MEMBERS",
    "MAX_TRANSFORMED_LISTS",
    "Budget",
    "Layering",
    "forget_transformed_lists",
    "legacy_orbit",
    "legacy_orbit_by_colour",
    "live_orbit",
    "modern_atoms",
    "modern_layerings",
    "normalize",
    "transform_list",
]

#: At most this many distinct transformed lists in one list's legacy orbit.
MAX_ORBIT_MEMBERS = 4096
#: At most this many transformed lists built for a whole script (nested transforms
#: multiply: a ``:shift`` list inside a ``:shift :flip :flipcolor`` list needs
#: 225 lists for every distinct outer member).
MAX_TRANSFORMED_LISTS = 20_000

#: No board gives a power difference beyond this (64 squares × a queen's 9 points), so
#: a range bound past it is as good as no bound.
MAX_ABS_POWER = 64 * 9


# --------------------------------------------------------------------------------------
# Applying one legacy transform to a legacy list (semantics: S-applying-transforms)
# --------------------------------------------------------------------------------------


def transform_designator(t: LegacyTransform, d: Designator) -> Designator:
    """The squares move (and may empty, L5); types swap colour under the colour flip.

    A ``$tag`` designator keeps its piece: only its squares move (L12).
    """
    types = d.types if d.tag is not None else t.map_types(d.types)
    if type(d) is Designator:
        # attrs.evolve, without its look-ups: a designator is made for every member.
        # Every field is given (_DESIGNATOR_FIELDS, checked against the class below).
        return Designator(types, t.map_squares(d.squares), d.tag, span=d.span)
    return attrs.evolve(d, types=types, squares=t.map_squares(d.squares))


#: The fields :func:`transform_designator` gives when it makes a ``Designator`` itself.
#: A field added to the class with a default would otherwise be dropped from every
#: transformed designator without a word: the import fails instead.
_DESIGNATOR_FIELDS = ("types", "squares", "tag", "span")
if tuple(f.name for f in attrs.fields(Designator)) != _DESIGNATOR_FIELDS:
    raise TypeError(
        "translator.orbits.transform_designator builds a Designator from the fields "
        f"{_DESIGNATOR_FIELDS}; the class now has others: give them there too"
    )


def negated_range(r: Range) -> Range:
    """``-hi .. -lo``; an unlimited ``hi`` becomes a bound no power difference reaches."""
    lo = -r.hi if r.hi is not None else -MAX_ABS_POWER
    return Range(lo, -r.lo, span=r.span)


#: How one legacy transform maps a position item, by item class.
ITEM_MAPS: Dispatcher[Callable[[Any, LegacyTransform], PositionItem]] = Dispatcher(
    "legacy transform item maps"
)


def _map_item(item: PositionItem, t: LegacyTransform) -> PositionItem:
    return ITEM_MAPS[type(item)](item, t)


@ITEM_MAPS.register(
    Comment, Relation, Accumulate, AccumulateEach, SumRange, Transform, BoardTest,
    HalfmoveClockRange,
)
def _same_in_every_member(item: PositionItem, t: LegacyTransform) -> PositionItem:
    # Comments, :relation (its counts are never transformed, L18), accumulators,
    # transform keywords themselves and Scidb's board tests (no colour, no square) are
    # the same in every member.
    return item


@ITEM_MAPS.register(Designator)
def _(item: Designator, t: LegacyTransform) -> PositionItem:
    return transform_designator(t, item)


@ITEM_MAPS.register(CastlingRightsTest)
def _(item: CastlingRightsTest, t: LegacyTransform) -> PositionItem:
    # Its designator names rights, not squares: only the colour flip changes them.
    if not t.swap_colors:
        return item
    d = item.designator
    return attrs.evolve(item, designator=attrs.evolve(d, types=color_swap(d.types)))


@ITEM_MAPS.register(TransposedLine)
def _(item: TransposedLine, t: LegacyTransform) -> PositionItem:
    # The help forbids transform keywords beside :line* (X3).
    raise translation_error(
        "Scidb extension `:line*` under a transform keyword: the help does not allow it",
        item.span,
    )


@ITEM_MAPS.register(FenPosition)
def _(item: FenPosition, t: LegacyTransform) -> PositionItem:
    # A FEN names whole squares and rights: only the colour flip maps it (python-chess's
    # mirror: ranks mirrored, colours, side to move and rights swapped).
    if t.dihedral is not Dihedral.IDENTITY or t.dx or t.dy:
        raise translation_error(
            "Scidb's :fen under a flip or shift: the help gives no image of castling rights",
            item.span,
        )
    if not t.swap_colors:
        return item
    return attrs.evolve(item, fen=chess.Board(item.fen).mirror().fen())


@ITEM_MAPS.register(CastlingMove)
def _(item: CastlingMove, t: LegacyTransform) -> PositionItem:
    # Its designator names castlings, not squares: the colour flip swaps White's and
    # Black's; flips and shifts leave a castling what it is (semantics: S-dialects).
    d = item.designator
    if d is None or not t.swap_colors:
        return item
    return attrs.evolve(item, designator=attrs.evolve(d, types=color_swap(d.types)))


_COLOR_FLAGS = {FlagKeyword.WTM: FlagKeyword.BTM, FlagKeyword.BTM: FlagKeyword.WTM}


@ITEM_MAPS.register(Flag)
def _(item: Flag, t: LegacyTransform) -> PositionItem:
    if t.swap_colors and item.keyword in _COLOR_FLAGS:
        return attrs.evolve(item, keyword=_COLOR_FLAGS[item.keyword])
    return item


def designator_fields(cls: type) -> tuple[str, ...]:
    """The fields of an item class that hold one designator, in order: what a legacy
    transform maps in an item that declares ``TRANSFORMED = Transformed.DESIGNATOR``
    (one field or several; a class that declares it and has none is refused here).

    >>> from cqllegacy.legacy.tree import MoveTest, PieceCount
    >>> designator_fields(PieceCount), designator_fields(MoveTest)
    (('designator',), ('designator',))
    """
    hints = typing.get_type_hints(cls)
    fields = tuple(f.name for f in attrs.fields(cls) if hints.get(f.name) is Designator)
    if not fields:
        raise TypeError(
            f"{cls.__name__} declares TRANSFORMED = Transformed.DESIGNATOR but has no"
            " designator field"
        )
    return fields


def designators_mapped(cls: type) -> Callable[[Any, LegacyTransform], PositionItem]:
    """The map of an item class whose designator fields alone change under a transform."""
    fields = designator_fields(cls)

    def mapped(item: Any, t: LegacyTransform) -> PositionItem:
        images = {name: transform_designator(t, getattr(item, name)) for name in fields}
        image: PositionItem = attrs.evolve(item, **images)
        return image

    return mapped


# Derived: every item that declares TRANSFORMED maps its designator fields alone.
for _item_class in typing.get_args(PositionItem):
    if getattr(_item_class, "TRANSFORMED", None) is Transformed.DESIGNATOR:
        ITEM_MAPS.add(_item_class, designators_mapped(_item_class))


@ITEM_MAPS.register(PowerDifference)
def _(item: PowerDifference, t: LegacyTransform) -> PositionItem:
    r = negated_range(item.range) if t.swap_colors else item.range
    return attrs.evolve(item, designator=transform_designator(t, item.designator), range=r)


def _line_move(move: LineMove, t: LegacyTransform) -> LineMove:
    promotion = move.promotion
    return attrs.evolve(
        move,
        origin=transform_designator(t, move.origin),
        target=transform_designator(t, move.target),
        promotion=None if promotion is None else transform_designator(t, promotion),
    )


@ITEM_MAPS.register(HypotheticalMoves)
def _(item: HypotheticalMoves, t: LegacyTransform) -> PositionItem:
    # Each move's designators map as a :movefrom's and :moveto's (the colour flip of X3).
    return attrs.evolve(item, moves=tuple(_line_move(move, t) for move in item.moves))


_ELO_SWAP = {
    RangeKeyword.WHITEELO: RangeKeyword.BLACKELO,
    RangeKeyword.BLACKELO: RangeKeyword.WHITEELO,
}


@ITEM_MAPS.register(RangeTest)
def _(item: RangeTest, t: LegacyTransform) -> PositionItem:
    if t.swap_colors and item.keyword in _ELO_SWAP:
        return attrs.evolve(item, keyword=_ELO_SWAP[item.keyword])
    return item


@ITEM_MAPS.register(ResultTest)
def _(item: ResultTest, t: LegacyTransform) -> PositionItem:
    return attrs.evolve(item, result=item.result.color_swapped()) if t.swap_colors else item


_RAY_SWAP = {
    RayKeyword.RAYHORIZONTAL: RayKeyword.RAYVERTICAL,
    RayKeyword.RAYVERTICAL: RayKeyword.RAYHORIZONTAL,
}


@ITEM_MAPS.register(Ray)
def _(item: Ray, t: LegacyTransform) -> PositionItem:
    keyword = item.keyword
    if t.swaps_ranks_and_files:
        keyword = _RAY_SWAP.get(keyword, keyword)  # decision L13
    designators = tuple(transform_designator(t, d) for d in item.designators)
    return attrs.evolve(item, keyword=keyword, designators=designators)


@ITEM_MAPS.register(ListOfLists)
def _(item: ListOfLists, t: LegacyTransform) -> PositionItem:
    return attrs.evolve(item, lists=tuple(_nested_image(t, pl) for pl in item.lists))


def transform_list(t: LegacyTransform, pl: PositionList) -> PositionList:
    """T(L): T applied to every designator and colour keyword, nested lists included.

    >>> from cqllegacy.legacy.tree import Flag, FlagKeyword
    >>> from cqllegacy.vocab.pieces import types_of
    >>> from cqllegacy.vocab.squares import format_squares, parse_squares
    >>> pl = PositionList((Designator(types_of("R"), parse_squares("b2")), Flag(FlagKeyword.WTM)))
    >>> flipped = transform_list(LegacyTransform(swap_colors=True), pl)
    >>> flipped.items[1].keyword, format_squares(flipped.items[0].squares)
    (<FlagKeyword.BTM: 'btm'>, 'b7')
    """
    if t.is_identity:
        return pl
    return attrs.evolve(pl, items=tuple(_map_item(item, t) for item in pl.items))


def _nested_image(t: LegacyTransform, pl: PositionList) -> PositionList:
    """``transform_list(t, pl)`` for a nested list, made once per effect of ``t`` on it
    (``_LIST_IMAGES``)."""
    if t.is_identity:
        return pl
    key = (id(pl), *_effect(t, _own_square_sets(pl)))
    known = _LIST_IMAGES.get(key)
    if known is not None and known[0] is pl:
        return known[1]
    image = transform_list(t, pl)
    _remember(_LIST_IMAGES, key, (pl, image))
    return image


#: The transformed nested lists built so far: by the identity of a list and the effect
#: of the transform on it (:func:`_effect`), the list itself (kept, so that its identity
#: is never another list's) and its image.  The members of an orbit share their nested
#: lists' images (a ``:sequence`` of nine lists under 3,600 transforms has some 130
#: distinct images of its nested lists, not 12,000), and the members share their nodes.
#: A list's own image is not remembered: each transform of an orbit has its own effect.
_LIST_IMAGES: dict[tuple[Any, ...], tuple[PositionList, PositionList]] = {}
#: The distinct square sets of a list's designators, by the identity of the list.
_SQUARE_SETS: dict[int, tuple[PositionList, tuple[int, ...]]] = {}
#: At most this many lists are remembered in each (all forgotten when there would be more).
MAX_REMEMBERED_LISTS = 1 << 16


def forget_transformed_lists() -> None:
    """Forget the lists :func:`transform_list` remembers (``to_core`` does, at the end
    of a script: its lists are no other script's, and what a process keeps alive every
    garbage collection walks)."""
    _LIST_IMAGES.clear()
    _SQUARE_SETS.clear()


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    if len(memo) >= MAX_REMEMBERED_LISTS:
        memo.clear()
    memo[key] = value


def _own_square_sets(pl: PositionList) -> tuple[int, ...]:
    known = _SQUARE_SETS.get(id(pl))
    if known is not None and known[0] is pl:
        return known[1]
    squares = _square_sets(pl)
    _remember(_SQUARE_SETS, id(pl), (pl, squares))
    return squares


def _effect(t: LegacyTransform, squares: tuple[int, ...]) -> tuple[Any, ...]:
    """What :func:`transform_list` reads of ``t`` for a list whose designators hold
    ``squares`` (:func:`_distinct_effects`): transforms with the same effect on a list
    give equal lists."""
    return (t.swap_colors, t.swaps_ranks_and_files, *(t.map_squares(s) for s in squares))


# --------------------------------------------------------------------------------------
# The orbit of one list, with a guard against blow-up
# --------------------------------------------------------------------------------------


class Budget:
    """Counts the transformed lists built for one script; raises past the limits."""

    def __init__(
        self,
        limit: int = MAX_TRANSFORMED_LISTS,
        orbit_limit: int = MAX_ORBIT_MEMBERS,
        path: str | None = None,
    ) -> None:
        self.limit = limit
        self.orbit_limit = orbit_limit
        self.path = path
        self.used = 0

    def spend(self, count: int, span: Span) -> None:
        self.used += count
        if self.used > self.limit:
            # The count is the whole script's: lists side by side add up, nested ones
            # multiply; the message must not blame nesting where there is none.
            raise translation_error(
                f"the transforms of the position list at {span} bring the script to "
                f"{self.used} transformed lists, more than the {self.limit} a script may "
                "have (the transformed lists of all the script's lists add up, and "
                "nested transforms multiply)",
                span,
                path=self.path,
                hint="split the script, or use fewer transform keywords",
            )

    def check_orbit(self, size: int, span: Span) -> None:
        if size > self.orbit_limit:
            raise translation_error(
                f"the position list at {span} has {size} distinct transformed lists "
                f"(the limit is {self.orbit_limit})",
                span,
                path=self.path,
            )


def legacy_orbit(
    base: PositionList,
    keywords: tuple[TransformKeyword, ...],
    budget: Budget,
    span: Span,
) -> tuple[PositionList, ...]:
    """The distinct T(base) for T in the transform set of ``keywords``, identity first."""
    transforms = transform_set(keywords)
    budget.spend(len(transforms), span)
    members = dict.fromkeys(transform_list(t, base) for t in _distinct_effects(transforms, base))
    budget.check_orbit(len(members), span)
    return tuple(members)


def legacy_orbit_by_colour(
    base: PositionList,
    keywords: tuple[TransformKeyword, ...],
    budget: Budget,
    span: Span,
) -> tuple[tuple[PositionList, ...], tuple[PositionList, ...]]:
    """The orbit in two parts, each without repeats: the T(base) whose T keeps the
    colours, then those whose T swaps them (Scidb's ``:accumulate*`` counts each part
    apart, so a list equal in both parts is in both)."""
    transforms = transform_set(keywords)
    budget.spend(len(transforms), span)
    parts = []
    for swapped in (False, True):
        chosen = [t for t in transforms if t.swap_colors == swapped]
        members = dict.fromkeys(transform_list(t, base) for t in _distinct_effects(chosen, base))
        budget.check_orbit(len(members), span)
        parts.append(tuple(members))
    return parts[0], parts[1]


def _distinct_effects(
    transforms: Sequence[LegacyTransform], base: PositionList
) -> list[LegacyTransform]:
    """The first of ``transforms`` for each different effect on ``base``.

    ``transform_list`` reads a transform only through the images of the designators'
    squares, the colour flip and whether ranks and files swap: transforms that agree on
    these give equal lists (edge-inclusive shifts often do), and the first of them gives
    that list first.  Building each list once saves most of the work for ``:shift``.
    """
    squares = _square_sets(base)
    return [_tabled(t, effect, squares) for effect, t in _effects(transforms, squares).items()]


def _square_sets(base: PositionList) -> tuple[int, ...]:
    """The distinct square sets of the designators of ``base``, however deep."""
    return tuple(dict.fromkeys(d.squares for d in designators(base)))


def _tabled(
    t: LegacyTransform, effect: tuple[Any, ...], squares: tuple[int, ...]
) -> LegacyTransform:
    """``t`` with the images of ``squares`` its ``effect`` holds (after its two flags) at
    hand: every designator of the list has one of them, and each nested list's key
    (:func:`_nested_image`) asks for them again."""
    return attrs.evolve(t, images=dict(zip(squares, effect[2:], strict=True)))


def _effects(
    transforms: Sequence[LegacyTransform], squares: tuple[int, ...]
) -> dict[tuple[Any, ...], LegacyTransform]:
    """The first of ``transforms`` for each effect: the colour flip, whether ranks and
    files swap, and the image of each of ``squares`` (:func:`_distinct_effects`)."""
    chosen: dict[tuple[Any, ...], LegacyTransform] = {}
    # A transform set is every shift of every turn: each turn maps the squares once.
    turned: dict[tuple[Dihedral, bool], tuple[int, ...]] = {}
    for t in transforms:
        images = turned.get((t.dihedral, t.swap_colors))
        if images is None:
            images = turned[(t.dihedral, t.swap_colors)] = tuple(t.unshifted(s) for s in squares)
        dx, dy = t.dx, t.dy
        shifted = (legacy_shift(i, dx, dy) for i in images)
        effect = (t.swap_colors, t.swaps_ranks_and_files, *shifted)
        chosen.setdefault(effect, t)
    return chosen


def live_orbit(
    base: PositionList,
    keywords: tuple[TransformKeyword, ...],
    budget: Budget,
    span: Span,
) -> tuple[PositionList, ...] | None:
    """The members of :func:`legacy_orbit` that are not known to be false, in its order
    (identity first), or None when that cannot be told without building them all.

    A member where a transform empties a designator that is an item of the list itself
    is false (an emptied designator never holds, L5; a false constituent makes the list
    false): under ``:shift`` most members of a list that places a piece are.  They are
    not built.  Told only for a list without nested transform keywords or relations,
    whose members can neither spend the budget nor be refused by their squares (every
    other refusal is one of the identity's, which is always built), and with at most the
    orbit limit of effects (else :func:`legacy_orbit` counts the distinct lists).
    """
    if _builds_more(base.items):
        return None
    transforms = transform_set(keywords)
    squares = _square_sets(base)
    chosen = _effects(transforms, squares)
    if len(chosen) > budget.orbit_limit:
        return None
    budget.spend(len(transforms), span)
    # The effect holds the images of ``squares`` after the two flags.
    placed = [2 + squares.index(i.squares) for i in base.items if type(i) is Designator]
    kept = [
        _tabled(t, effect, squares)
        for n, (effect, t) in enumerate(chosen.items())
        if n == 0 or all(effect[k] for k in placed)
    ]
    return tuple(dict.fromkeys(transform_list(t, base) for t in kept))


def _builds_more(node: object) -> bool:
    """Whether ``node`` holds a transform keyword or a relation (a legacy node, or a
    tuple of them), however deep."""
    if isinstance(node, Transform | Relation):
        return True
    if isinstance(node, tuple):
        return any(_builds_more(item) for item in node)
    if attrs.has(cls := type(node)) and not isinstance(node, Designator):
        return any(_builds_more(getattr(node, f.name)) for f in attrs.fields(cls))
    return False


def transform_keywords(pl: PositionList) -> tuple[TransformKeyword, ...]:
    return tuple(item.keyword for item in pl.items if isinstance(item, Transform))


# --------------------------------------------------------------------------------------
# Modern transforms that may stand for a legacy transform set
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class Layering(Record):
    """A candidate modern wrapper: ``layers`` (outermost first) around the OR of the
    orbit of ``inner_keywords`` (the legacy keywords the layers do not cover)."""

    layers: tuple[TransformKind, ...]
    inner_keywords: tuple[TransformKeyword, ...]
    covered: int


_FLIP_LAYERS: dict[frozenset[Dihedral], tuple[TransformKind, ...]] = {
    frozenset(Dihedral): (TransformKind.FLIP,),
    frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_H}): (TransformKind.FLIPHORIZONTAL,),
    frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_V}): (TransformKind.FLIPVERTICAL,),
    frozenset({Dihedral.IDENTITY, Dihedral.ROT90, Dihedral.ROT180, Dihedral.ROT270}): (
        TransformKind.ROTATE90,
    ),
    frozenset({Dihedral.IDENTITY, Dihedral.REFLECT_H, Dihedral.REFLECT_V, Dihedral.ROT180}): (
        TransformKind.FLIPHORIZONTAL,
        TransformKind.FLIPVERTICAL,
    ),
}

_SHIFT_LAYERS: dict[frozenset[tuple[int, int]], tuple[TransformKind, ...]] = {
    shift_set([TransformKeyword.SHIFT]): (TransformKind.SHIFT,),
    shift_set([TransformKeyword.SHIFTHORIZONTAL]): (TransformKind.SHIFTHORIZONTAL,),
    shift_set([TransformKeyword.SHIFTVERTICAL]): (TransformKind.SHIFTVERTICAL,),
}


@attrs.frozen(repr=False)
class _Option(Record):
    """One way to treat a factor: these layers stand for ``covered`` legacy keywords, the
    ``remaining`` keywords stay explicit inside (``size`` maps covered)."""

    layers: tuple[TransformKind, ...]
    covered: tuple[TransformKeyword, ...]
    remaining: tuple[TransformKeyword, ...]
    size: int


def _factor_options(keywords: tuple[TransformKeyword, ...]) -> list[list[_Option]]:
    flips = tuple(k for k in keywords if k in FLIP_KEYWORDS)
    shifts = tuple(k for k in keywords if k in SHIFT_KEYWORDS)
    colors = tuple(k for k in keywords if k is TransformKeyword.FLIPCOLOR)
    factors: list[list[_Option]] = []
    if colors:
        factors.append([_Option((TransformKind.FLIPCOLOR,), colors, (), 2)])
    if flips and (group := flip_set(flips)) in _FLIP_LAYERS:
        factors.append([_Option(_FLIP_LAYERS[group], flips, (), len(group))])
    if shifts and (offsets := shift_set(shifts)) in _SHIFT_LAYERS:
        options = [_Option(_SHIFT_LAYERS[offsets], shifts, (), len(offsets))]
        if _SHIFT_LAYERS[offsets] == (TransformKind.SHIFT,):
            # Horizontal and vertical legacy shifts commute: one direction may be modern
            # while the other stays explicit (an edge smears only one way).
            options += [
                _Option(
                    (TransformKind.SHIFTVERTICAL,), shifts, (TransformKeyword.SHIFTHORIZONTAL,), 15
                ),
                _Option(
                    (TransformKind.SHIFTHORIZONTAL,), shifts, (TransformKeyword.SHIFTVERTICAL,), 15
                ),
            ]
        factors.append(options)
    return factors


def modern_layerings(keywords: tuple[TransformKeyword, ...]) -> list[Layering]:
    """Candidate wrappers for a list with these transform keywords, largest first.

    Each factor of the legacy set S ∘ C ∘ G (colour, flips, shifts) that a modern
    transform has the same maps for may become a layer; the rest stays explicit.  The
    candidates still have to be checked (:func:`modern_atoms`): edges, emptied
    designators and full ranks make the two meanings differ.

    >>> [c.layers for c in modern_layerings((TransformKeyword.FLIPCOLOR,))]
    [(<TransformKind.FLIPCOLOR: 'flipcolor'>,), ()]
    """
    skip = _Option((), (), (), 1)
    candidates = []
    for chosen in itertools.product(*([skip, *options] for options in _factor_options(keywords))):
        layers = tuple(kind for option in chosen for kind in option.layers)
        covered = {k for option in chosen for k in option.covered}
        inner = tuple(k for k in keywords if k not in covered)
        inner += tuple(k for option in chosen for k in option.remaining)
        size = 1
        for option in chosen:
            size *= option.size
        candidates.append(Layering(layers, inner, size))
    candidates.sort(key=lambda c: -c.covered)
    return candidates


def modern_atoms(
    layers: Sequence[TransformKind], inner: Filter, disjuncts: bool
) -> frozenset[Hashable] | None:
    """The normalised filters whose OR ``layers`` around ``inner`` means in CQL 6.

    Nested transforms act as every composition of their basic transforms, outermost
    first, each member dropped when a shift empties a designator (M1, M4).  With
    ``disjuncts`` the inner filter is an explicit ``Or`` and each member contributes its
    disjuncts.  None when a node cannot stand under a modern transform.
    """
    try:
        return frozenset(_modern_atoms(layers, inner, disjuncts))
    except ValueError:
        return None


def _modern_atoms(
    layers: Sequence[TransformKind], inner: Filter, disjuncts: bool
) -> Iterator[Hashable]:
    """The atoms of :func:`modern_atoms` (repeats included), made lazily: the normal
    forms of :func:`_modern_parts`.  Raises ``ValueError`` when a node cannot stand under
    a transform."""
    return (normalize(part) for part in _modern_parts(layers, inner, disjuncts))


def _modern_parts(
    layers: Sequence[TransformKind], inner: Filter, disjuncts: bool
) -> Iterator[Filter]:
    """The filters whose normal forms are the atoms of :func:`modern_atoms`, made lazily,
    depth first (the innermost layer's orbit of one member at a time): :func:`_same_atoms`
    gives a candidate up at its first filter outside the target, before the images of the
    other members are made.  Raises ``ValueError`` when a node cannot stand under a
    transform.

    The images of one layer are the distinct images of every member of the layer outside
    it, as the evaluator expands nested transforms (``core.transforms.orbit``); a member
    met again through another composition is not expanded again.
    """
    seen: list[set[Filter]] = [set() for _ in layers]
    for image in _images(layers, 0, inner, seen):
        yield from image.items if disjuncts and isinstance(image, Or) else (image,)


def _images(
    layers: Sequence[TransformKind], depth: int, member: Filter, seen: list[set[Filter]]
) -> Iterator[Filter]:
    """The distinct images of ``member`` under the layers from ``depth`` inwards, each
    layer's images not yet met at that depth (``seen``)."""
    if depth == len(layers):
        yield member
        return
    met = seen[depth]
    if depth == len(layers) - 1:
        # The innermost layer's images of a member are those the evaluator expands the
        # written transform into (core.transforms.orbit, remembered): asked here first,
        # they are not made again when the translation runs.
        images: Iterable[Filter | None] = modern.orbit(layers[depth], member)
    else:
        images = (modern.apply(tau, member) for tau in modern.basic_transforms(layers[depth]))
    for image in images:
        if image is not None and image not in met:
            met.add(image)
            yield from _images(layers, depth + 1, image, seen)


class _Target:
    """The members a candidate's modern orbit must mean: a filter equal to one of them
    has its normal form among theirs, so their normal forms are made only when a filter
    is not one of them (most candidates that hold give the members themselves)."""

    def __init__(self, members: Sequence[Filter]) -> None:
        self.members = frozenset(members)
        self._normalized: frozenset[Hashable] | None = None

    @property
    def normalized(self) -> frozenset[Hashable]:
        if self._normalized is None:
            self._normalized = frozenset(normalize(m) for m in self.members)
        return self._normalized


def _same_atoms(
    layers: Sequence[TransformKind], inner: Filter, disjuncts: bool, target: _Target
) -> bool:
    """``modern_atoms(layers, inner, disjuncts) == target.normalized``, given up at the
    first atom outside it (most candidates of :func:`choose_compact` fail early)."""
    exact: set[Filter] = set()
    other: set[Hashable] = set()
    try:
        for part in _modern_parts(layers, inner, disjuncts):
            if part in target.members:
                exact.add(part)
                continue
            atom = normalize(part)
            if atom not in target.normalized:
                return False
            other.add(atom)
    except ValueError:
        return False
    if not other and len(exact) == len(target.members):
        # Every member is met as it is: the two sets of normal forms are the same.
        return True
    return len(other | {normalize(part) for part in exact}) == len(target.normalized)


def wrap(layers: Sequence[TransformKind], inner: Filter) -> Filter:
    """``layers`` (outermost first) as nested core ``Transform`` nodes around ``inner``."""
    for kind in reversed(layers):
        inner = CoreTransform(kind, inner)
    return inner


def choose_compact(
    keywords: tuple[TransformKeyword, ...],
    members: Sequence[Filter],
    inner_members: Callable[[tuple[TransformKeyword, ...]], Sequence[Filter]],
) -> Filter | None:
    """The largest modern wrapper whose meaning is the OR of ``members``, or None.

    ``inner_members(keywords)`` gives the rewritten (non-false) members of the orbit of
    the keywords a wrapper leaves explicit.
    """
    target = _Target(members)
    for candidate in modern_layerings(keywords):
        if not candidate.layers:
            continue
        inner = list(inner_members(candidate.inner_keywords))
        if not inner:
            continue
        body = inner[0] if len(inner) == 1 else Or(tuple(inner))
        if _same_atoms(candidate.layers, body, len(inner) > 1, target):
            return wrap(candidate.layers, body)
    return None


def single_layer_count(
    keywords: tuple[TransformKeyword, ...], members: Sequence[Filter]
) -> Filter | None:
    """``T count F`` counting exactly the legacy members, when one modern layer does.

    Counting needs more than the same OR: the modern orbit must be the members one to
    one (no two members written alike, none dropped or added).
    """
    normalized = [normalize(m) for m in members]
    if not members or len(set(normalized)) != len(members):
        return None
    for candidate in modern_layerings(keywords):
        if len(candidate.layers) != 1 or candidate.inner_keywords:
            continue
        kind = candidate.layers[0]
        try:
            images = modern.orbit(kind, members[0])
        except ValueError:
            return None
        if len(images) == len(members) and {normalize(i) for i in images} == set(normalized):
            return CoreTransform(kind, members[0], count=True)
    return None


# --------------------------------------------------------------------------------------
# Structural normal form used only to compare two sets of filters
# --------------------------------------------------------------------------------------


def normalize(node: object) -> Hashable:
    """A hashable form equal for filters that differ only in the order of ``or``/``and``
    operands or of the terms of a sum (both commute); used to compare orbits."""
    if isinstance(node, Filter | LineStep):
        return _normalized_node(node)
    return _normalized(node)


@functools.lru_cache(maxsize=1 << 16)
def _normalized_node(node: Filter | LineStep) -> Hashable:
    # Orbit members share many equal subtrees (and equal steps of lines): each is put in
    # normal form once.
    return _normalized(node)


def _normalized(node: object) -> Hashable:
    if isinstance(node, (Or, And)):
        return (type(node).__name__, frozenset(Counter(normalize(i) for i in node.items).items()))
    if isinstance(node, Arith) and node.op is ArithOp.ADD:
        terms = Counter(normalize(t) for t in node.sum_terms())
        return ("sum", frozenset(terms.items()))
    if isinstance(node, tuple):
        return tuple(normalize(i) for i in node)
    if attrs.has(cls := type(node)):
        fields = attrs.fields(cls)
        return (type(node).__name__, *(normalize(getattr(node, f.name)) for f in fields if f.eq))
    assert isinstance(node, Hashable)
    return node
