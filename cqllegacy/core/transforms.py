"""Basic transforms and modern (CQL 6) transform orbits (semantics: S-orbits).

A :class:`BasicTransform` rewrites a whole core filter tree: square designators,
piece types, directions and colour-dependent keywords.  A transform filter
``T F`` stands for the *orbit* of F: every basic transform of T applied to F,
members with an emptied designator dropped (decision M1), repeats removed.

>>> from cqllegacy.core.tree import Compound
>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import parse_squares
>>> kings = Compound((PieceSet(types_of("K"), parse_squares("a1")),
...                   PieceSet(types_of("k"), parse_squares("h8"))))
>>> len(orbit(TransformKind.FLIP, kings))
4
>>> len(orbit(TransformKind.SHIFT, PieceSet(types_of("K"), parse_squares("a1"))))
64

Legacy-only nodes: :class:`RayCount` and :class:`LegacyOnly` are rewritten like any
other node (arguments transformed, ray directions mapped), because their meaning is
geometric and the same under every basic transform.  :class:`Relation` is refused
with ``ValueError``: its missing/new counts are defined as untouched by the list's
transforms while its allowable squares follow them (L18), so no single rule fits.
The translator puts it under a transform only in an indicator of an accumulated list,
``shifthorizontal count {a1-8 h1-8 … relation}``: the two file anchors stand first and
drop every image but the identity (M1) before the rewrite reaches the relation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import attrs

from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.core.tree import (
    Color,
    DirectionSet,
    Elo,
    Filter,
    HypotheticalLine,
    Keyword,
    Move,
    PieceSet,
    Player,
    Ray,
    RayCount,
    Relation,
    Result,
    Simple,
    SquareColor,
    TransformKind,
    Transforms,
    node_classes,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import TypeSet, color_swap
from cqllegacy.vocab.squares import (
    LIGHT_SQUARES,
    Dihedral,
    Direction,
    SquareSet,
    color_swap_set,
    iter_squares,
    modern_shift,
)

__all__ = [
    "REWRITE",
    "BasicTransform",
    "apply",
    "apply_unremembered",
    "basic_transforms",
    "forget_images",
    "orbit",
]


@attrs.frozen(repr=False, slots=True, cache_hash=True)
class BasicTransform(Record):
    """Apply ``dihedral``, then the colour swap (if ``swap_colors``), then shift by ``(dx, dy)``.

    ``dx`` counts files to the right, ``dy`` ranks up; both lie in -7..7.

    >>> from cqllegacy.vocab.squares import format_squares, parse_squares
    >>> tau = BasicTransform(Dihedral.ROT90, True, 0, 0)
    >>> format_squares(tau.map_squares(parse_squares("a1")))
    'h8'
    >>> BasicTransform(dx=7).map_squares(parse_squares("[d2,c4]")) is None
    True
    """

    dihedral: Dihedral = Dihedral.IDENTITY
    swap_colors: bool = False
    dx: int = 0
    dy: int = 0

    @property
    def is_identity(self) -> bool:
        return (
            self.dihedral is Dihedral.IDENTITY
            and not self.swap_colors
            and self.dx == 0
            and self.dy == 0
        )

    def map_squares(self, squares: SquareSet) -> SquareSet | None:
        """The image of one square designator; None when a shift pushes all of it off the board.

        A designator that was empty to begin with (``[]``) loses nothing and stays valid.
        """
        image = self.dihedral.map_set(squares)
        if self.swap_colors:
            image = color_swap_set(image)
        image = modern_shift(image, self.dx, self.dy)
        if image == 0 and squares != 0:
            return None
        return image

    def keeps_all(self, squares: Iterable[SquareSet]) -> bool:
        """Whether :meth:`map_squares` of every one of ``squares`` is a designator."""
        return all(self.map_squares(s) is not None for s in squares)

    def map_types(self, types: TypeSet) -> TypeSet:
        return color_swap(types) if self.swap_colors else types

    def map_direction(self, direction: Direction) -> Direction:
        # Shifts move squares, not vectors; the colour swap maps vectors as the
        # horizontal-bisector mirror does (decision M3).
        image = direction.mapped(self.dihedral.map_vector)
        if self.swap_colors:
            image = image.mapped(Dihedral.REFLECT_H.map_vector)
        return image

    def map_color(self, color: Color | None) -> Color | None:
        if color is None or not self.swap_colors:
            return color
        return color.swapped()


def _build_basic_transforms() -> dict[TransformKind, tuple[BasicTransform, ...]]:
    identity = BasicTransform()
    offsets = [(dx, dy) for dy in range(-7, 8) for dx in range(-7, 8) if (dx, dy) != (0, 0)]
    return {
        TransformKind.FLIPCOLOR: (identity, BasicTransform(swap_colors=True)),
        TransformKind.REVERSECOLOR: (BasicTransform(swap_colors=True),),
        TransformKind.FLIP: tuple(BasicTransform(d) for d in Dihedral),
        TransformKind.FLIPHORIZONTAL: (identity, BasicTransform(Dihedral.REFLECT_H)),
        TransformKind.FLIPVERTICAL: (identity, BasicTransform(Dihedral.REFLECT_V)),
        TransformKind.ROTATE90: tuple(
            BasicTransform(d)
            for d in (Dihedral.IDENTITY, Dihedral.ROT90, Dihedral.ROT180, Dihedral.ROT270)
        ),
        TransformKind.SHIFT: (identity, *(BasicTransform(dx=dx, dy=dy) for dx, dy in offsets)),
        TransformKind.SHIFTHORIZONTAL: (
            identity,
            *(BasicTransform(dx=dx) for dx in range(-7, 8) if dx != 0),
        ),
        TransformKind.SHIFTVERTICAL: (
            identity,
            *(BasicTransform(dy=dy) for dy in range(-7, 8) if dy != 0),
        ),
    }


_BASIC_TRANSFORMS = _build_basic_transforms()


def basic_transforms(kind: TransformKind) -> tuple[BasicTransform, ...]:
    """B(T) (semantics: S-basic-transforms); the identity (when present) comes first.

    >>> [len(basic_transforms(k)) for k in TransformKind]
    [2, 1, 8, 2, 2, 4, 225, 15, 15]
    """
    return _BASIC_TRANSFORMS[kind]


class _InvalidMember(Exception):
    """A shift emptied a square designator: the transformed filter leaves the orbit."""


def apply(tau: BasicTransform, filter: Filter) -> Filter | None:
    """``filter`` rewritten by ``tau`` (semantics: S-transform-action), or None when the
    result is an invalid member.

    >>> from cqllegacy.core.tree import Compound
    >>> from cqllegacy.vocab.pieces import types_of
    >>> from cqllegacy.vocab.squares import parse_squares
    >>> tau = BasicTransform(swap_colors=True)
    >>> pawn = PieceSet(types_of("P"), parse_squares("a2"))
    >>> apply(tau, Compound((Simple(Keyword.WTM), pawn))) == Compound(
    ...     (Simple(Keyword.BTM), PieceSet(types_of("p"), parse_squares("a7"))))
    True
    """
    if tau.is_identity:
        return filter
    try:
        return _rewrite(filter, tau)
    except _InvalidMember:
        return None


def apply_unremembered(tau: BasicTransform, filter: Filter) -> Filter | None:
    """:func:`apply` computed afresh, every node rewritten by its rule (what the memo of
    images must always agree with; the tests compare the two)."""
    global _remember
    _remember = False
    try:
        return apply(tau, filter)
    finally:
        _remember = True


@functools.lru_cache(maxsize=256)
def orbit(kind: TransformKind, filter: Filter) -> tuple[Filter, ...]:
    """The distinct valid images of ``filter`` under B(kind), in first-seen order
    (semantics: S-repeats).

    Remembered: the compiler asks for the same orbit several times (index, gates,
    pure tests), and a nested orbit has thousands of members.

    >>> orbit(TransformKind.SHIFT, Simple(Keyword.CHECK))
    (Simple(keyword=<Keyword.CHECK: 'check'>),)
    """
    if kind in _SHIFT_KINDS:
        return _shift_orbit(kind, filter)
    images = (apply(tau, filter) for tau in basic_transforms(kind))
    return tuple(dict.fromkeys(image for image in images if image is not None))


#: The kinds whose basic transforms are shifts: most of their images are invalid.
_SHIFT_KINDS = frozenset(
    {TransformKind.SHIFT, TransformKind.SHIFTHORIZONTAL, TransformKind.SHIFTVERTICAL}
)


def _shift_orbit(kind: TransformKind, filter: Filter) -> tuple[Filter, ...]:
    """:func:`orbit` for a kind of shifts, read off the orbit of the same pattern placed
    elsewhere where one was made (:func:`_placement`)."""
    placement = _placement(kind, filter)
    if placement is not None:
        known = _EDGE_IMAGES.get((kind, placement[0]))
        if known is not None:
            # Each valid image of the edge is a basic transform's image of ``filter``
            # (a square it keeps lies within seven files and ranks of where it stands);
            # the one equal to ``filter`` is the identity's, which comes first.
            return tuple(dict.fromkeys((filter, *(image for _, image in known))))
    squares = _reached_squares(filter)
    shifted: list[tuple[tuple[int, int], Filter]] = []
    for tau in basic_transforms(kind):
        if squares is not None and not tau.keeps_all(squares):
            continue  # apply would give None: a designator it reaches leaves the board
        image = apply(tau, filter)
        if image is not None:
            shifted.append(((tau.dx, tau.dy), image))
    if placement is not None:
        edge, dx, dy = placement
        if len(_EDGE_IMAGES) >= MAX_REMEMBERED_EDGES:
            _EDGE_IMAGES.clear()
        # The edge's images by its own shifts, ranks then files upwards: the order of
        # basic_transforms but for the identity, which a translation keeps.
        moved = (((x + dx, y + dy), image) for (x, y), image in shifted)
        _EDGE_IMAGES[(kind, edge)] = tuple(sorted(moved, key=lambda m: m[0][::-1]))
    return tuple(dict.fromkeys(image for _, image in shifted))


#: The valid images of a pattern at the edge of the board (:func:`_placement`) under
#: the shifts of a kind, each with its shift, ranks then files upwards.  At most
#: ``MAX_REMEMBERED_EDGES`` patterns (a nested orbit's turns need eight), as many as the
#: orbits :func:`orbit` keeps, so that a long process keeps no more alive.
MAX_REMEMBERED_EDGES = 64
_EDGE_IMAGES: dict[tuple[TransformKind, Filter], tuple[tuple[tuple[int, int], Filter], ...]] = {}


def _placement(kind: TransformKind, filter: Filter) -> tuple[Filter, int, int] | None:
    """``filter`` as a pattern W0 at the edge of the board moved by ``(dx, dy)``, both
    as far as ``kind`` shifts (W0 touches the a-file and the first rank); None where its
    shifts might not be W0's shifts moved (:func:`_shift_orbit`).

    A shift moves every square of a designator with fewer than eight squares the same
    way and drops those it takes off the board (no full rank or file to keep, M2), and
    changes nothing else in the tree but a square's colour, which follows the distance's
    parity.  W0 moved by ``(dx, dy)`` loses no square, so the image of ``filter`` under
    the shift ``s`` is W0's under ``s + (dx, dy)``, valid exactly when that one is.
    The CQL 6.1 text of a shifted relation holds an inner ``flip shift`` orbit in each
    of the 240 members of its outer one, each the same pattern moved: all of them are
    read off eight orbits (one for each turn of the pattern), not made image by image.
    """
    squares = _reached_squares(filter)
    if not squares or any(s.bit_count() >= 8 for s in squares):
        return None
    union = 0
    for s in squares:
        union |= s
    if not union:
        return None  # nothing moves: every image but a colour's is the tree itself
    dx = min(sq & 7 for sq in iter_squares(union)) if kind is not _VERTICAL else 0
    dy = (union & -union).bit_length() - 1 >> 3 if kind is not _HORIZONTAL else 0
    edge = apply(BasicTransform(dx=-dx, dy=-dy), filter)
    assert edge is not None  # moving towards a1 by the least file and rank loses nothing
    return edge, dx, dy


_HORIZONTAL, _VERTICAL = TransformKind.SHIFTHORIZONTAL, TransformKind.SHIFTVERTICAL


def _reached_squares(filter: Filter) -> frozenset[SquareSet] | None:
    """The square sets the rewrite of ``filter`` maps, those of its piece designators and
    of the moves of a hypothetical line (every one: each rule rewrites every sub-filter,
    and nothing stands below a node that transforms leave alone), or None when the tree
    holds a node the rewrite refuses (it must still be refused where a designator would
    leave the board after it).

    ``apply(tau, filter)`` is None exactly when ``tau.map_squares`` is None for one of
    them: :func:`orbit` skips those transforms without rewriting anything.  Remembered
    by node (``_SQUARES``): orbit members share their subtrees."""
    how = type(filter).TRANSFORMS
    if how is Transforms.REFUSED:
        return None
    if isinstance(filter, PieceSet):
        return frozenset((filter.squares,))
    if isinstance(filter, HypotheticalLine):
        # Its moves' squares map as a designator's do; nothing stands below it.
        return frozenset(s for m in filter.moves for s in (m.from_squares, m.to_squares))
    if how is Transforms.NOTHING:
        return frozenset()
    known = _SQUARES.get(id(filter))
    if known is not None and known[0] is filter:
        return known[1]
    found: frozenset[SquareSet] | None = frozenset()
    for child in filter.children():
        below = _reached_squares(child)
        if below is None:
            found = None
            break
        found = found | below if found else below
    if len(_SQUARES) >= MAX_REMEMBERED_IMAGES:
        _SQUARES.clear()
    _SQUARES[id(filter)] = (filter, found)
    return found


#: What :func:`_reached_squares` found, by the identity of a node (the node kept, so
#: that its identity is never another node's).
_SQUARES: dict[int, tuple[Filter, frozenset[SquareSet] | None]] = {}


# --------------------------------------------------------------------------------------
# The rewrite, one rule per node class
# --------------------------------------------------------------------------------------


#: How a basic transform rewrites a node, by class.  Classes that declare
#: ``TRANSFORMS = CHILDREN`` or ``NOTHING`` get their rule from the declaration; those
#: that declare ``OWN`` or ``REFUSED`` have one written below (the completeness test
#: checks every node class is served).
REWRITE: Dispatcher[Callable[[Filter, BasicTransform], Filter]] = Dispatcher("transform rules")


#: The images made so far under each basic transform: by the identity of a node, the node
#: itself (kept, so that its identity is never another node's) and its image, or None when
#: the transform empties one of its designators.  Keyed by identity, not equality: equal
#: nodes may differ in what equality ignores (the ``origin`` of a construct), and an image
#: keeps its own node's.  The translator's nested lists and orbit members share their
#: nodes (a ``check`` step is one node in every member), so a tree's shared subtrees are
#: rewritten once per transform, however many members and candidate layers hold them.
_IMAGES: dict[BasicTransform, dict[int, tuple[Filter, Filter | None]]] = {}
#: At most this many images are kept (all are forgotten when there would be more): the
#: 20,000 of a large orbit's translation and compilation, not every script's that a long
#: process translates (what it keeps alive, every garbage collection walks).
MAX_REMEMBERED_IMAGES = 1 << 15
_remembered = 0
#: False while :func:`apply_unremembered` runs: every node rewritten by its rule.
_remember = True
#: Classes without operands (piece designators, keywords, numbers): rewritten afresh,
#: their rule costs less than the memo (a knight's orbit of 3,600 small members shares
#: nothing).
_LEAVES = frozenset(cls for cls in node_classes() if not cls.OPERANDS)


def forget_images() -> None:
    """Forget every image :func:`apply` remembers."""
    global _remembered
    _IMAGES.clear()
    _SQUARES.clear()
    _remembered = 0


def _rewrite(node: Filter, tau: BasicTransform) -> Filter:
    """``node``'s image under ``tau``, made once per node and transform (``_IMAGES``)."""
    global _remembered
    if not _remember or type(node) in _LEAVES:
        return REWRITE[type(node)](node, tau)
    images = _IMAGES.get(tau)
    if images is None:
        images = _IMAGES[tau] = {}
    known = images.get(id(node))
    if known is not None and known[0] is node:
        if known[1] is None:
            raise _InvalidMember
        return known[1]
    if _remembered >= MAX_REMEMBERED_IMAGES:
        _IMAGES.clear()
        _remembered = 0
        images = _IMAGES[tau] = {}
    try:
        image: Filter | None = REWRITE[type(node)](node, tau)
    except _InvalidMember:
        image = None
    images[id(node)] = (node, image)
    _remembered += 1
    if image is None:
        raise _InvalidMember
    return image


def _rewrite_fields(node: Filter, tau: BasicTransform) -> Filter:
    """Rewrite every sub-filter of a node whose own fields do not change under transforms."""
    return node.map_children(lambda child: _rewrite(child, tau))


def _unchanged(node: Filter, tau: BasicTransform) -> Filter:
    return node


_DERIVED = {Transforms.CHILDREN: _rewrite_fields, Transforms.NOTHING: _unchanged}
for _cls in node_classes():
    if _cls.TRANSFORMS in _DERIVED:
        REWRITE.add(_cls, _DERIVED[_cls.TRANSFORMS])


@REWRITE.register(PieceSet)
def _(node: PieceSet, tau: BasicTransform) -> Filter:
    squares = tau.map_squares(node.squares)
    if squares is None:
        raise _InvalidMember
    return PieceSet(tau.map_types(node.types), squares)


@REWRITE.register(DirectionSet)
def _(node: DirectionSet, tau: BasicTransform) -> Filter:
    arg = _rewrite(node.arg, tau)
    return DirectionSet(tau.map_direction(node.direction), arg, node.lo, node.hi)


@REWRITE.register(SquareColor)
def _(node: SquareColor, tau: BasicTransform) -> Filter:
    # The image of "the light squares of X" is "the image squares of X that are images
    # of light squares": the colour changes when tau maps light squares onto dark ones
    # (the colour swap, a reflection, a quarter turn, a shift by an odd distance).
    image = tau.dihedral.map_set(LIGHT_SQUARES)
    if tau.swap_colors:
        image = color_swap_set(image)
    swapped = (image != LIGHT_SQUARES) != ((tau.dx + tau.dy) % 2 == 1)
    return SquareColor(node.dark != swapped, _rewrite(node.arg, tau))


@REWRITE.register(Ray)
def _(node: Ray, tau: BasicTransform) -> Filter:
    return Ray(tuple(_rewrite(a, tau) for a in node.args), tau.map_direction(node.direction))


@REWRITE.register(RayCount)
def _(node: RayCount, tau: BasicTransform) -> Filter:
    return attrs.evolve(
        node,
        args=tuple(_rewrite(a, tau) for a in node.args),
        directions=tuple(tau.map_direction(d) for d in node.directions),
    )


def _mapped_squares(squares: SquareSet, tau: BasicTransform) -> SquareSet:
    image = tau.map_squares(squares)
    if image is None:
        raise _InvalidMember
    return image


@REWRITE.register(HypotheticalLine)
def _(node: HypotheticalLine, tau: BasicTransform) -> Filter:
    # Each move's squares and piece types map as a designator's; checks, en passant and
    # "the only move" are the same in every image.
    moves = tuple(
        attrs.evolve(
            move,
            from_types=tau.map_types(move.from_types),
            from_squares=_mapped_squares(move.from_squares, tau),
            to_types=tau.map_types(move.to_types),
            to_squares=_mapped_squares(move.to_squares, tau),
            promote_types=None
            if move.promote_types is None
            else tau.map_types(move.promote_types),
        )
        for move in node.moves
    )
    return attrs.evolve(node, moves=moves)


def _rewrite_optional(node: Filter | None, tau: BasicTransform) -> Filter | None:
    return None if node is None else _rewrite(node, tau)


@REWRITE.register(Move)
def _(node: Move, tau: BasicTransform) -> Filter:
    # Its other fields (enpassant, previous, castle) are the same in every image: `o-o` is
    # no square designator, so CQL's transforms leave it as it is (semantics: S-castling).
    return attrs.evolve(
        node,
        from_=_rewrite_optional(node.from_, tau),
        to=_rewrite_optional(node.to, tau),
        capture=_rewrite_optional(node.capture, tau),
        promote=None if node.promote is None else tau.map_types(node.promote),
    )


_COLOR_KEYWORDS = {Keyword.WTM: Keyword.BTM, Keyword.BTM: Keyword.WTM}


@REWRITE.register(Simple)
def _(node: Simple, tau: BasicTransform) -> Filter:
    if tau.swap_colors and node.keyword in _COLOR_KEYWORDS:
        return Simple(_COLOR_KEYWORDS[node.keyword])
    return node


@REWRITE.register(Elo)
def _(node: Elo, tau: BasicTransform) -> Filter:
    return Elo(tau.map_color(node.color))


@REWRITE.register(Player)
def _(node: Player, tau: BasicTransform) -> Filter:
    return attrs.evolve(node, color=tau.map_color(node.color))


@REWRITE.register(Result)
def _(node: Result, tau: BasicTransform) -> Filter:
    return Result(node.result.color_swapped()) if tau.swap_colors else node


@REWRITE.register(Relation)
def _(node: Relation, tau: BasicTransform) -> Filter:
    raise ValueError(
        "a legacy :relation cannot stand under a modern transform: its counts ignore the "
        "list's transforms while its allowable squares follow them"
    )
