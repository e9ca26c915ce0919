"""Legacy position-list items → core filters: one rule per legacy construct.

A position list becomes a tuple of core *constituents* whose conjunction is its
meaning.  Without transform keywords each item gives its constituents in place
(comments included); with transform keywords the list stands for the OR of its
legacy orbit (:mod:`translator.orbits`), written compactly only where a modern
transform provably means the same (T2).

>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import parse_squares
>>> from cqllegacy.legacy.tree import PieceCount, Range
>>> ctx = TranslationContext()
>>> list_parts(PositionList((PieceCount(Designator(types_of("P"), parse_squares("b2-7")),
...                                     Range(4)),)), ctx)
(InRange(value=Count(arg=PieceSet(types=1, squares=565157600297472)), lo=4, hi=4),)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeAlias, TypeGuard, TypeVar

import attrs
from cqllegacy.translator.echo import relation_echo
from cqllegacy.translator.errors import translation_error
from cqllegacy.translator.orbits import (
    MAX_ABS_POWER,
    Budget,
    choose_compact,
    legacy_orbit,
    live_orbit,
    single_layer_count,
    transform_keywords,
)

from cqllegacy.core import tree as core
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.tree import (
    Designator,
    FlagKeyword,
    PositionItem,
    PositionList,
    Range,
)
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    EMPTY_BIT,
    WHITE_PIECES,
    TypeSet,
    color_swap,
    types_of,
)
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import BB_FILES, FULL, Direction, iter_squares, popcount

__all__ = ["ITEM_RULES", "TranslationContext", "list_parts", "nested_filter"]

TRUE = core.Simple(core.Keyword.TRUE)
FALSE = core.Simple(core.Keyword.FALSE)

Parts: TypeAlias = tuple[core.Filter, ...]


@attrs.define
class TranslationContext:
    """What rewriting one top-level list needs besides the legacy tree.

    ``scope`` is the scope of the enclosing top-level list: with ``Scope.ALL`` a
    position has several continuations, which ``:noenpassant`` must account for.
    """

    scope: core.Scope = core.Scope.MAINLINE
    budget: Budget = attrs.field(factory=Budget)
    path: str | None = None
    memo: dict[PositionList, core.Filter] = attrs.field(factory=dict)
    nested: dict[PositionList, core.Filter] = attrs.field(factory=dict)
    #: ``memo`` and ``nested`` asked by the identity of a list first: the members of an
    #: orbit share their nested lists (``orbits.transform_list``), and a legacy list's
    #: hash is computed afresh at every lookup.  Each entry keeps its list.
    by_identity: dict[tuple[int, bool], tuple[PositionList, core.Filter]] = attrs.field(
        factory=dict
    )
    #: Write what CQL 6.1 text says (``translate``) instead of the faster legacy-only
    #: nodes ``run`` evaluates (``:relation`` as ``echo``).
    modern: bool = False
    #: The top-level list examines main-line positions only.
    sources_on_mainline: bool = True

    def error(self, message: str, span: Span, hint: str = "") -> Exception:
        return translation_error(message, span, path=self.path, hint=hint)


# --------------------------------------------------------------------------------------
# Small builders
# --------------------------------------------------------------------------------------


def conjunction(parts: Sequence[core.Filter]) -> core.Filter:
    """One filter for constituents: ``true`` for none, ``{…}`` otherwise."""
    if all(isinstance(p, core.Comment) for p in parts):
        return core.Compound((*parts, TRUE)) if parts else TRUE
    if _is_false_parts(parts):
        return FALSE
    if len(parts) == 1 and isinstance(parts[0], core.Compound):
        return parts[0]
    return core.Compound(tuple(parts))


def _is_false_parts(parts: Sequence[core.Filter]) -> bool:
    return any(p == FALSE for p in parts)


def simplify_parts(parts: Sequence[core.Filter]) -> Parts:
    """Drop ``true`` constituents; a ``false`` one makes the whole list false (its
    comments stay, so that they still appear in the translation)."""
    if _is_false_parts(parts):
        return (*(p for p in parts if isinstance(p, core.Comment)), FALSE)
    return tuple(p for p in parts if p != TRUE)


def sum_of(terms: Sequence[core.Filter]) -> core.Filter:
    """``t1 + t2 + …`` (left-associated); ``0`` for no terms."""
    if not terms:
        return core.Number(0)
    total = terms[0]
    for term in terms[1:]:
        total = core.Arith(core.ArithOp.ADD, total, term)
    return total


def in_range(value: core.Filter, r: Range) -> core.Filter:
    return core.InRange(value, r.lo, r.hi)


def constant_in_range(value: int, r: Range) -> core.Filter:
    return TRUE if value in r else FALSE


def piece_filter(d: Designator) -> core.Filter | None:
    """The set of squares a designator stands for; None when it can never hold a
    square (``[]``, or emptied by a shift: decision L5)."""
    if d.squares == 0 or (d.tag is None and d.types == 0):
        return None
    if d.tag is not None:
        variable = core.PieceVariable(d.tag)
        if d.squares == FULL:
            return variable
        return core.Intersection((variable, core.PieceSet(ANYTHING, d.squares)))
    return core.PieceSet(d.types, d.squares)


def restrict(f: core.Filter | None, types: TypeSet, squares: int = FULL) -> core.Filter | None:
    """``f`` restricted to contents ``types`` on ``squares``; None when provably empty."""
    if f is None or types == 0 or squares == 0:
        return None
    if isinstance(f, core.PieceSet):
        t, s = f.types & types, f.squares & squares
        return None if t == 0 or s == 0 else core.PieceSet(t, s)
    if types == ANYTHING and squares == FULL:
        return f
    return core.Intersection((f, core.PieceSet(types, squares)))


def meet(a: core.Filter | None, b: core.Filter | None) -> core.Filter | None:
    """Intersection of two optional square filters (None = no constraint)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(b, core.PieceSet):
        return restrict(a, b.types, b.squares) or _EMPTY
    if isinstance(a, core.PieceSet):
        return restrict(b, a.types, a.squares) or _EMPTY
    return core.Intersection((a, b))


# A square filter that never matches; only used to mark "no square can qualify".
_EMPTY = core.PieceSet(0, 0)


def last_line(node: object) -> int:
    """The last line a legacy node (with everything inside it) starts anything on."""
    line = 0
    if attrs.has(cls := type(node)):
        for field in attrs.fields(cls):
            value = getattr(node, field.name)
            if isinstance(value, Span):
                line = max(line, value.line)
            elif isinstance(value, tuple):
                line = max([line, *(last_line(v) for v in value)])
            elif attrs.has(type(value)):
                line = max(line, last_line(value))
    return line


# --------------------------------------------------------------------------------------
# Item rules
# --------------------------------------------------------------------------------------


@attrs.frozen
class ListView:
    """The base list an item belongs to (for rules that look at its neighbours)."""

    items: tuple[PositionItem, ...]
    #: The line of the list's ``(position``: a comment there annotates the opening.
    opening_line: int = 0


_I = TypeVar("_I")
ItemRule: TypeAlias = Callable[[_I, ListView, TranslationContext], Parts]
#: The translator rule of each legacy position item class; it takes items of that class,
#: which the table cannot say.  The items that shape a whole list (its transform set and
#: accumulators) are declared absent: the list's translation reads them itself.
ITEM_RULES: Dispatcher[Callable[..., Parts]] = Dispatcher("translator item rules")


def rule(cls: type[_I]) -> Callable[[ItemRule[_I]], ItemRule[_I]]:
    return ITEM_RULES.register(cls)


@rule(lt.Comment)
def _comment(item: lt.Comment, view: ListView, ctx: TranslationContext) -> Parts:
    if _absorbed(item, view):
        return ()  # written among the lists it annotates
    return (comment(item.text, trailing=_follows_on_its_line(item, view)),)


def _follows_on_its_line(item: lt.Comment, view: ListView) -> bool:
    """Does ``item`` stand on the line where the item before it (or the list) ends?

    Such a comment annotates that item and trails its translation (T3); a comment on a
    line of its own annotates what follows.
    """
    if item.span.line <= 0:
        return False  # a comment made without a source place
    index = next(i for i, other in enumerate(view.items) if other is item)
    # Comments that an `:and` writes among its lists are not in the way.
    before = next(
        (
            other
            for other in reversed(view.items[:index])
            if not isinstance(other, lt.Comment) or not _absorbed(other, view)
        ),
        None,
    )
    if before is None:
        return item.span.line == view.opening_line
    return not isinstance(before, lt.Comment) and last_line(before) == item.span.line


def comment(text: str, *, trailing: bool = False) -> core.Comment:
    """A ``//`` comment; a leading ``/`` gets a space so the text never reads ``///``."""
    return core.Comment(" " + text if text.startswith("/") else text, trailing)


def own_line(item: core.Filter) -> core.Filter:
    """``item``, a comment made one of its own line (any other filter unchanged)."""
    return attrs.evolve(item, trailing=False) if isinstance(item, core.Comment) else item


def untrailed(parts: Sequence[core.Filter]) -> list[core.Filter]:
    """``parts`` with a comment at their start made one of its own line: what is put
    before ``parts`` is not what that comment annotates."""
    return [own_line(parts[0]), *parts[1:]] if parts else []


@rule(Designator)
def _designator(item: Designator, view: ListView, ctx: TranslationContext) -> Parts:
    f = piece_filter(item)
    return (FALSE,) if f is None else (f,)


_SIMPLE_FLAGS = {
    FlagKeyword.MATE: core.Keyword.MATE,
    FlagKeyword.STALEMATE: core.Keyword.STALEMATE,
    FlagKeyword.CHECK: core.Keyword.CHECK,
    FlagKeyword.WTM: core.Keyword.WTM,
    FlagKeyword.BTM: core.Keyword.BTM,
    FlagKeyword.INITIAL: core.Keyword.INITIAL,
}
_MOVE_FLAGS = frozenset({FlagKeyword.ENPASSANT, FlagKeyword.NOENPASSANT})
#: Flags that only a top-level list may carry; list_parts never passes them to rules.
TOP_LEVEL_FLAGS = frozenset(
    {
        FlagKeyword.VARIATIONS,
        FlagKeyword.VARIATIONSONLY,
        FlagKeyword.MARKALL,
        FlagKeyword.NOANNOTATE,
    }
)


@rule(lt.Flag)
def _flag(item: lt.Flag, view: ListView, ctx: TranslationContext) -> Parts:
    keyword = item.keyword
    if keyword in _SIMPLE_FLAGS:
        return (core.Simple(_SIMPLE_FLAGS[keyword]),)
    if keyword is FlagKeyword.NOCHECK:
        return (core.Not(core.Simple(core.Keyword.CHECK)),)
    if keyword in _MOVE_FLAGS:
        return _move_parts_once(item, view, ctx)
    raise AssertionError(f"flag {keyword} is handled by the list")  # pragma: no cover


@rule(lt.PieceCount)
def _piece_count(item: lt.PieceCount, view: ListView, ctx: TranslationContext) -> Parts:
    f = piece_filter(item.designator)
    if f is None:
        return (constant_in_range(0, item.range),)
    return (in_range(core.Count(f), item.range),)


@rule(lt.Power)
def _power(item: lt.Power, view: ListView, ctx: TranslationContext) -> Parts:
    f = piece_filter(item.designator)
    if f is None:
        return (constant_in_range(0, item.range),)
    return (in_range(core.Power(f), item.range),)


@rule(lt.PowerDifference)
def _power_difference(item: lt.PowerDifference, view: ListView, ctx: TranslationContext) -> Parts:
    f = piece_filter(item.designator)
    white = core.Power(w) if (w := restrict(f, WHITE_PIECES)) else None
    black = core.Power(b) if (b := restrict(f, BLACK_PIECES)) else None
    if white is None and black is None:
        return (constant_in_range(0, item.range),)
    if black is None:
        assert white is not None
        value: core.Filter = white
    elif white is None:
        value = core.Negate(black)
    else:
        value = core.Arith(core.ArithOp.SUB, white, black)
    # No board has a difference beyond ±MAX_ABS_POWER: such bounds say nothing.
    lo = None if item.range.lo <= -MAX_ABS_POWER else item.range.lo
    hi = item.range.hi
    if hi is not None and hi >= MAX_ABS_POWER:
        hi = None
    if lo is None and hi is None:
        return ()
    return (core.InRange(value, lo, hi),)


# --- :attackcount (ordered attacker/target pairs, decision L6) -------------------------

_KINGS = (types_of("K"), types_of("k"))


def _at_most_one_square(d: Designator) -> bool:
    """At most one square can match: a tag, one square, or a single king type (a game
    has one king of each colour)."""
    return d.tag is not None or popcount(d.squares) <= 1 or d.types in _KINGS


def _split(d: Designator) -> list[core.Filter]:
    """Parts of ``d`` that each match at most one square, whose union is ``d``."""
    if _at_most_one_square(d):
        f = piece_filter(d)
        return [] if f is None else [f]
    parts: list[core.Filter] = [core.PieceSet(king, d.squares) for king in _KINGS if d.types & king]
    rest = d.types & ~(_KINGS[0] | _KINGS[1])
    if rest:
        parts.extend(core.PieceSet(rest, 1 << sq) for sq in iter_squares(d.squares))
    return parts


def attack_pairs(attackers: Designator, targets: Designator) -> core.Filter | None:
    """The number of (attacker square, target square) pairs as a core number; None for 0.

    ``#(X attacks Y)`` counts attackers, so it is exact when Y matches at most one
    square; ``#(Y attackedby X)`` likewise when X does.  Otherwise the shorter exact sum
    over the single-square parts of Y (or of X) is used.
    """
    if attackers.tag is None:
        # An empty square attacks nothing.
        attackers = attrs.evolve(attackers, types=attackers.types & ANY_PIECE)
    x, y = piece_filter(attackers), piece_filter(targets)
    if x is None or y is None:
        return None
    if _at_most_one_square(targets):
        return core.Count(core.Attacks(x, y))
    if _at_most_one_square(attackers):
        return core.Count(core.AttackedBy(y, x))
    by_target = _split(targets)
    by_attacker = _split(attackers)
    if len(by_target) <= len(by_attacker):
        return sum_of([core.Count(core.Attacks(x, part)) for part in by_target])
    return sum_of([core.Count(core.AttackedBy(y, part)) for part in by_attacker])


@rule(lt.AttackCount)
def _attack_count(item: lt.AttackCount, view: ListView, ctx: TranslationContext) -> Parts:
    value = attack_pairs(item.attackers, item.targets)
    if value is None:
        return (constant_in_range(0, item.range),)
    return (in_range(value, item.range),)


# --- the :ray family (decisions L13, L20) ---------------------------------------------

_RAY_DIRECTIONS = {
    lt.RayKeyword.RAY: Direction.ANYDIRECTION,
    lt.RayKeyword.RAYATTACK: Direction.ANYDIRECTION,
    lt.RayKeyword.RAYDIAGONAL: Direction.DIAGONAL,
    lt.RayKeyword.RAYORTHOGONAL: Direction.ORTHOGONAL,
    lt.RayKeyword.RAYHORIZONTAL: Direction.HORIZONTAL,
    lt.RayKeyword.RAYVERTICAL: Direction.VERTICAL,
}
_BASIC_ORDER = (
    Direction.UP,
    Direction.DOWN,
    Direction.RIGHT,
    Direction.LEFT,
    Direction.NORTHEAST,
    Direction.NORTHWEST,
    Direction.SOUTHEAST,
    Direction.SOUTHWEST,
)
_ORTHOGONAL_LINE_PIECES = types_of("RrQq")
_DIAGONAL_LINE_PIECES = types_of("BbQq")


def _basic_directions(direction: Direction) -> tuple[Direction, ...]:
    return tuple(d for d in _BASIC_ORDER if d.vectors <= direction.vectors)


def _ray_args(
    args: tuple[core.Filter, ...], direction: Direction, attack: bool
) -> tuple[core.Filter, ...] | None:
    """The ray's designators in ``direction``; with ``attack`` the first square must hold
    a line piece moving that way (either colour).  None when no ray can exist."""
    if not attack:
        return args
    line_pieces = (
        _ORTHOGONAL_LINE_PIECES
        if direction.vectors <= Direction.ORTHOGONAL.vectors
        else _DIAGONAL_LINE_PIECES
    )
    first = restrict(args[0], line_pieces)
    return None if first is None else (first, *args[1:])


def _ray_exists(args: tuple[core.Filter, ...], direction: Direction, attack: bool) -> core.Filter:
    if not attack:
        return core.Ray(args, direction)
    rays = [
        core.Ray(a, group)
        for group in (Direction.ORTHOGONAL, Direction.DIAGONAL)
        if (group.vectors & direction.vectors) and (a := _ray_args(args, group, attack)) is not None
    ]
    if not rays:
        return FALSE
    return rays[0] if len(rays) == 1 else core.Or(tuple(rays))


def _ray_pairs(
    designators: Sequence[Designator],
    args: tuple[core.Filter, ...],
    direction: Direction,
    attack: bool,
) -> core.Filter | None:
    """The legacy ray count (L20) when a designator admits empty squares: the number of
    (start, end, direction) triples.  CQL 6.1 ``ray`` gives the set of end squares, so
    the count is split where that set is the count: from one start square, rays in
    different directions or to different ends are different rays.  None for 0.

    When the start designator holds at most one square, ``#ray (…)`` is the count; when
    the end designator does, ``#ray`` of the reversed designators (every legacy ray
    direction set is symmetric); otherwise a sum over the start (or end) squares.
    """
    groups = [direction]
    if attack:
        both = (Direction.ORTHOGONAL, Direction.DIAGONAL)
        groups = [g for g in both if g.vectors & direction.vectors]
    terms: list[core.Filter] = []
    for group in groups:
        restricted = _ray_args(args, group, attack)
        if restricted is not None:
            terms += _ray_pair_terms(designators, restricted, group)
    return sum_of(terms) if terms else None


def _ray_pair_terms(
    designators: Sequence[Designator], args: tuple[core.Filter, ...], direction: Direction
) -> list[core.Filter]:
    first, last = designators[0], designators[-1]
    if _at_most_one_square(first):
        return [core.Count(core.Ray(args, direction))]
    if _at_most_one_square(last):
        return [core.Count(core.Ray(args[::-1], direction))]
    if popcount(last.squares) < popcount(first.squares):
        args, first = args[::-1], last
    terms: list[core.Filter] = []
    for square in iter_squares(first.squares):
        start = restrict(args[0], ANYTHING, 1 << square)
        if start is not None:
            terms.append(core.Count(core.Ray((start, *args[1:]), direction)))
    return terms


@rule(lt.Ray)
def _ray(item: lt.Ray, view: ListView, ctx: TranslationContext) -> Parts:
    if len(item.designators) < 2:
        raise ctx.error(f":{item.keyword.value} needs at least two designators", item.span)
    r = item.range if item.range is not None else Range(1, None)
    maybe_args = [piece_filter(d) for d in item.designators]
    if any(a is None for a in maybe_args):
        return (constant_in_range(0, r),)
    args = tuple(a for a in maybe_args if a is not None)
    direction = _RAY_DIRECTIONS[item.keyword]
    attack = item.keyword is lt.RayKeyword.RAYATTACK
    if r.lo <= 0 and r.hi is None:
        return ()
    # Whether some ray exists is exactly what the modern ray filter tests.
    if r.lo == 1 and r.hi is None:
        return (_ray_exists(args, direction, attack),)
    if r.lo <= 0 and r.hi == 0:
        return (core.Not(_ray_exists(args, direction, attack)),)
    admits_empty = any(d.tag is None and d.types & EMPTY_BIT for d in item.designators)
    basics = _basic_directions(direction)
    if admits_empty:
        value = _ray_pairs(item.designators, args, direction, attack)
    else:
        # No designator admits an empty square, so a ray is fixed by its direction and
        # end square: the count is the sum over directions of the end squares.
        terms = [
            core.Count(core.Ray(a, d))
            for d in basics
            if (a := _ray_args(args, d, attack)) is not None
        ]
        value = sum_of(terms) if terms else None
    if value is None:
        return (constant_in_range(0, r),)
    return (in_range(value, r),)


# --- the next move (decision L7) --------------------------------------------------------

_PAWNS = types_of("Pp")
_PROMOTABLE = types_of("QRBNqrbn")
_OCCUPIED = ANY_PIECE


def _is_move_item(item: PositionItem) -> TypeGuard[lt.MoveTest | lt.Flag]:
    return isinstance(item, lt.MoveTest) or (
        isinstance(item, lt.Flag) and item.keyword in _MOVE_FLAGS
    )


@rule(lt.MoveTest)
def _move_test(item: lt.MoveTest, view: ListView, ctx: TranslationContext) -> Parts:
    return _move_parts_once(item, view, ctx)


def _move_parts_once(item: PositionItem, view: ListView, ctx: TranslationContext) -> Parts:
    """All move keywords of a list describe one and the same move: they become one
    ``move`` filter, placed where the first of them stands."""
    first = next(i for i in view.items if _is_move_item(i))
    if item is not first:
        return ()
    return move_parts([i for i in view.items if _is_move_item(i)], ctx)


@attrs.frozen
class _MoveSpec:
    from_: core.Filter | None = None
    to: core.Filter | None = None
    promote: TypeSet | None = None
    enpassant: bool = False
    impossible: bool = False
    origin: core.Origin | None = None

    def move(self, *, from_: core.Filter | None = None, to: core.Filter | None = None) -> core.Move:
        """The move of this spec, with ``from_`` and ``to`` where given instead of its own."""
        return core.Move(
            from_=self.from_ if from_ is None else from_,
            to=self.to if to is None else to,
            promote=self.promote,
            enpassant=self.enpassant,
            origin=self.origin,
        )

    def by_promotion_colour(self) -> list[_MoveSpec]:
        """A promotion to pieces of both colours, but not the same pieces, as two specs:
        CQL 6 ``promote`` has no colour, only the moving pawn's colour says it."""
        if self.promote is None:
            return [self]
        white, black = self.promote & WHITE_PIECES, self.promote & BLACK_PIECES
        if not white or not black or color_swap(black) == white:
            return [self]
        return [attrs.evolve(self, promote=white), attrs.evolve(self, promote=black)]


def _add_move_item(spec: _MoveSpec, item: lt.MoveTest | lt.Flag) -> _MoveSpec:
    if isinstance(item, lt.Flag):
        return attrs.evolve(spec, enpassant=spec.enpassant or item.keyword is FlagKeyword.ENPASSANT)
    assert isinstance(item, lt.MoveTest)
    d = item.designator
    f = piece_filter(d)
    if f is None:
        return attrs.evolve(spec, impossible=True)
    if item.keyword is lt.MoveKeyword.MOVEFROM:
        return attrs.evolve(spec, from_=meet(spec.from_, f))
    if item.keyword is lt.MoveKeyword.MOVETO:
        return attrs.evolve(spec, to=meet(spec.to, f))
    # :promote — the promoted piece and its square (the move's destination).
    if d.tag is not None:
        promote = _PROMOTABLE
        from_ = meet(spec.from_, core.PieceVariable(d.tag))
    else:
        promote = d.types & _PROMOTABLE
        from_ = spec.from_
    if spec.promote is not None:
        promote &= spec.promote
    to = spec.to if d.squares == FULL else meet(spec.to, core.PieceSet(ANYTHING, d.squares))
    impossible = spec.impossible or promote == 0
    return attrs.evolve(spec, from_=from_, to=to, promote=promote, impossible=impossible)


def move_parts(items: Sequence[lt.MoveTest | lt.Flag], ctx: TranslationContext) -> Parts:
    first = items[0]
    keyword = first.keyword.value
    spec = _MoveSpec(origin=core.Origin(f":{keyword}", first.span))
    for item in items:
        spec = _add_move_item(spec, item)
    no_ep = any(isinstance(i, lt.Flag) and i.keyword is FlagKeyword.NOENPASSANT for i in items)
    if spec.impossible or _EMPTY in (spec.from_, spec.to) or (no_ep and spec.enpassant):
        return (FALSE,)
    specs = spec.by_promotion_colour()
    if not no_ep:
        return (_any_of([s.move() for s in specs]),)
    if ctx.scope is core.Scope.MAINLINE:
        # One continuation: "this move, and it is not en passant".
        return (_any_of([s.move() for s in specs]), core.Not(core.Move(enpassant=True)))
    return (_any_of([_non_en_passant_moves(s) for s in specs]),)


def _any_of(options: Sequence[core.Filter]) -> core.Filter:
    live = [o for o in options if o != FALSE]
    if not live:
        return FALSE
    return live[0] if len(live) == 1 else core.Or(tuple(live))


def _non_en_passant_moves(spec: _MoveSpec) -> core.Filter:
    """Some continuation fits ``spec`` and is not en passant, for any number of
    continuations: en passant is exactly a pawn move to an empty square of another file,
    so split by the moving piece and, for pawns, by file."""
    options: list[core.Filter] = []
    from_ = spec.from_ if spec.from_ is not None else core.PieceSet(ANYTHING, FULL)
    to = spec.to if spec.to is not None else core.PieceSet(ANYTHING, FULL)
    # Only pawns promote, so a promotion leaves out the other pieces.
    if spec.promote is None and (f := restrict(from_, ANYTHING & ~_PAWNS)) is not None:
        options.append(spec.move(from_=f))
    pawns = restrict(from_, _PAWNS)
    if pawns is not None and (t := restrict(to, _OCCUPIED)) is not None:
        options.append(spec.move(from_=pawns, to=t))
    for file_squares in BB_FILES:
        f = restrict(from_, _PAWNS, file_squares)
        t = restrict(to, EMPTY_BIT, file_squares)
        if f is not None and t is not None:
            options.append(spec.move(from_=f, to=t))
    return _any_of(options)


# --- ranges, results, tags ----------------------------------------------------------------


@rule(lt.RangeTest)
def _range_test(item: lt.RangeTest, view: ListView, ctx: TranslationContext) -> Parts:
    keyword = item.keyword
    r = item.range
    if keyword is lt.RangeKeyword.MOVENUMBER:
        return (in_range(core.NumericValue(core.NumericKeyword.MOVENUMBER), r),)
    if keyword is lt.RangeKeyword.WHITEELO:
        return (in_range(core.Elo(core.Color.WHITE), r),)
    if keyword is lt.RangeKeyword.BLACKELO:
        return (in_range(core.Elo(core.Color.BLACK), r),)
    if keyword is lt.RangeKeyword.ELO:
        # L9: some present rating lies in the range (modern ``elo`` is the larger one).
        return (
            core.Or(
                (in_range(core.Elo(core.Color.WHITE), r), in_range(core.Elo(core.Color.BLACK), r))
            ),
        )
    raise ctx.error(
        f":{keyword.value} may only stand in a position list of the match list", item.span
    )


@rule(lt.ResultTest)
def _result_test(item: lt.ResultTest, view: ListView, ctx: TranslationContext) -> Parts:
    return (core.Result(item.result),)


@rule(lt.TagMatch)
def _tag_match(item: lt.TagMatch, view: ListView, ctx: TranslationContext) -> Parts:
    # The tagged piece's square, if its current content and square fit the designator.
    described = piece_filter(item.designator)
    f = meet(core.PieceVariable(item.name), described) if described is not None else None
    return (FALSE,) if f is None or f == _EMPTY else (f,)


# --- nested lists -----------------------------------------------------------------------

_GAP = core.LineStep(TRUE, 0, None)


def _comments_among_lists(item: lt.ListOfLists, view: ListView) -> dict[int, list[lt.Comment]]:
    """Comments the reader placed after an ``:and`` that stand among its lists, by where
    they go: ``2*i`` before list i (a comment on a line of its own annotates what
    follows), ``2*i + 1`` after it (a comment on the line where list i ends annotates it;
    T3).  Only ``:and`` becomes a conjunction that can hold comments between its lists."""
    found: dict[int, list[lt.Comment]] = {}
    if item.keyword is not lt.ListKeyword.AND:
        return found
    index = next((i for i, other in enumerate(view.items) if other is item), None)
    if index is None:
        return found
    following_items = view.items[index + 1 :]
    if not following_items or not isinstance(following_items[0], lt.Comment):
        # Walking the lists for their last lines costs more than all the rest.
        return found
    starts = [(pl.span.line, pl.span.column) for pl in item.lists]
    last_lines = [last_line(pl) for pl in item.lists]
    for other in following_items:
        if not isinstance(other, lt.Comment):
            break
        place = (other.span.line, other.span.column)
        following = next((i for i, start in enumerate(starts) if place < start), None)
        if following is None:
            break
        if following > 0 and other.span.line == last_lines[following - 1]:
            found.setdefault(2 * (following - 1) + 1, []).append(other)
        else:
            found.setdefault(2 * following, []).append(other)
    return found


def _absorbed(comment_item: lt.Comment, view: ListView) -> bool:
    """Whether an ``:and`` before ``comment_item`` writes it among its lists."""
    index = next(i for i, other in enumerate(view.items) if other is comment_item)
    for other in reversed(view.items[:index]):
        if isinstance(other, lt.ListOfLists):
            placed = _comments_among_lists(other, view).values()
            return any(c is comment_item for group in placed for c in group)
        if not isinstance(other, lt.Comment):
            return False
    return False


@rule(lt.ListOfLists)
def _list_of_lists(item: lt.ListOfLists, view: ListView, ctx: TranslationContext) -> Parts:
    filters = [nested_filter(pl, ctx) for pl in item.lists]
    keyword = item.keyword
    if keyword is lt.ListKeyword.AND:
        among = _comments_among_lists(item, view)
        if len(filters) == 1 and not among:
            return (filters[0],)
        parts: list[core.Filter] = []
        for i, f in enumerate(filters):
            parts += [*(comment(c.text) for c in among.get(2 * i, ())), f]
            parts += [comment(c.text, trailing=True) for c in among.get(2 * i + 1, ())]
        return simplify_parts(parts)
    if keyword is lt.ListKeyword.OR:
        options = [f for f in filters if f != FALSE]
        if TRUE in options:
            return ()
        if not options:
            return (FALSE,)
        return (options[0] if len(options) == 1 else core.Or(tuple(options)),)
    return _sequence_parts(keyword, filters)


def _sequence_parts(keyword: lt.ListKeyword, filters: list[core.Filter]) -> Parts:
    if FALSE in filters:
        return (FALSE,)
    if not filters:
        return ()
    if keyword is lt.ListKeyword.SEQUENCE:
        if len(filters) == 1:
            return (filters[0],)
        return (core.Line(tuple(core.LineStep(f) for f in filters)),)
    # :gappedsequence: the first list here or later, each next one strictly later (L21).
    if len(filters) == 1:
        return (core.Find(filters[0]),)
    steps: list[core.LineStep] = []
    for f in filters:
        steps += [_GAP, core.LineStep(f)]
    return (core.Line(tuple(steps)),)


# --- :relation (legacy only, decision L18) ----------------------------------------------


def _relation_count(
    item: lt.RelationPieceCount, ctx: TranslationContext
) -> tuple[TypeSet, int, int | None]:
    d = item.designator
    if d.tag is not None or d.squares != FULL:
        raise ctx.error(
            f":{item.keyword.value} with a square designator or a tag is not supported",
            item.span,
            hint="give only piece types, e.g. :missingpiececount [Aa] 1 3",
        )
    return (d.types, item.range.lo, item.range.hi)


_SIDE = {
    lt.RelationFlagKeyword.SAMESIDETOMOVE: core.RelationSideToMove.SAME,
    lt.RelationFlagKeyword.CHANGESIDETOMOVE: core.RelationSideToMove.CHANGE,
    lt.RelationFlagKeyword.IGNORESIDETOMOVE: core.RelationSideToMove.IGNORE,
}
_RELATION_SCOPE = {
    lt.RelationFlagKeyword.VARIATIONS: core.RelationScope.ALL,
    lt.RelationFlagKeyword.VARIATIONSONLY: core.RelationScope.VARIATIONS,
}


@rule(lt.Relation)
def _relation(item: lt.Relation, view: ListView, ctx: TranslationContext) -> Parts:
    fields: dict[str, object] = {}
    comments: list[core.Filter] = []
    for part in item.items:
        if isinstance(part, lt.Comment):
            comments.append(comment(part.text))
        elif isinstance(part, lt.RelationFlag):
            keyword = part.keyword
            if keyword is lt.RelationFlagKeyword.PATTERN:
                allowable = 0
                for other in view.items:
                    if isinstance(other, Designator):
                        allowable |= other.squares
                fields["allowable"] = allowable
            elif keyword is lt.RelationFlagKeyword.SHIFT:
                fields["shift"] = True
            elif keyword is lt.RelationFlagKeyword.FLIP:
                fields["flip"] = True
            elif keyword in _SIDE:
                fields["side_to_move"] = _SIDE[keyword]
            else:
                fields["scope"] = _RELATION_SCOPE[keyword]
        elif isinstance(part, lt.RelationPieceCount):
            name = "missing" if part.keyword is lt.RelationCountKeyword.MISSINGPIECECOUNT else "new"
            fields[name] = _relation_count(part, ctx)
        else:
            is_different = part.keyword is lt.RelationRangeKeyword.ORIGINALDIFFERENTCOUNT
            name = "original_different" if is_different else "original_same"
            fields[name] = (part.range.lo, part.range.hi)
    relation = core.Relation(origin=core.Origin(":relation", item.span)).replace(**fields)
    if ctx.modern:
        designators = [d for d in view.items if isinstance(d, Designator)]
        rendered = relation_echo(
            relation, designators, sources_on_mainline=ctx.sources_on_mainline, path=ctx.path
        )
        return (*comments, rendered)
    return (*comments, relation)


# --------------------------------------------------------------------------------------
# Position lists
# --------------------------------------------------------------------------------------


#: Items that shape a list as a whole instead of testing the position.
def _is_list_setting(item: PositionItem) -> bool:
    if isinstance(item, lt.Flag):
        return item.keyword in TOP_LEVEL_FLAGS or item.keyword is FlagKeyword.NOT
    if isinstance(item, lt.RangeTest):
        return item.keyword in (
            lt.RangeKeyword.MATCHCOUNT,
            lt.RangeKeyword.PRETRANSFORMMATCHCOUNT,
        )
    return isinstance(item, lt.Transform | lt.Accumulate | lt.SumRange)


def base_list(pl: PositionList) -> PositionList:
    """The list without transform keywords, ``:not``, accumulators and list settings:
    what every member of its orbit tests (``base`` in semantics: S-list-evaluation)."""
    return attrs.evolve(pl, items=tuple(i for i in pl.items if not _is_list_setting(i)))


def strip_comments(pl: PositionList) -> tuple[tuple[lt.Comment, ...], PositionList]:
    """All comments of a list and of its nested lists (in order), and the list without
    them: a transformed list shows its comments once, before the transform (T3)."""
    found: list[lt.Comment] = []
    stripped = _strip(pl, found)
    return tuple(found), stripped


def _strip(pl: PositionList, found: list[lt.Comment]) -> PositionList:
    items: list[PositionItem] = []
    for item in pl.items:
        if isinstance(item, lt.Comment):
            found.append(item)
        elif isinstance(item, lt.ListOfLists):
            items.append(attrs.evolve(item, lists=tuple(_strip(n, found) for n in item.lists)))
        elif isinstance(item, lt.Relation):
            found.extend(p for p in item.items if isinstance(p, lt.Comment))
            kept = tuple(p for p in item.items if not isinstance(p, lt.Comment))
            items.append(attrs.evolve(item, items=kept))
        else:
            items.append(item)
    return attrs.evolve(pl, items=tuple(items))


def _check_nested_settings(pl: PositionList, ctx: TranslationContext) -> None:
    for item in pl.items:
        if isinstance(item, lt.Flag) and item.keyword in TOP_LEVEL_FLAGS:
            raise ctx.error(
                f":{item.keyword.value} has a meaning only in a top-level position list",
                item.span,
            )
        if isinstance(item, lt.RangeTest) and _is_list_setting(item):
            raise ctx.error(
                f":{item.keyword.value} may only stand in a position list of the match list",
                item.span,
            )


def item_parts(pl: PositionList, ctx: TranslationContext) -> Parts:
    """The constituents of a list without list settings, item by item in source order."""
    view = ListView(pl.items, pl.span.line)
    parts: list[core.Filter] = []
    for item in pl.items:
        parts.extend(ITEM_RULES[type(item)](item, view, ctx))
    return simplify_parts(parts)


def member_filter(member: PositionList, ctx: TranslationContext) -> core.Filter:
    """One orbit member (a list without transform keywords of its own) as one filter."""
    return _once(ctx, ctx.memo, member, lambda: conjunction(item_parts(member, ctx)))


def _once(
    ctx: TranslationContext,
    memo: dict[PositionList, core.Filter],
    pl: PositionList,
    make: Callable[[], core.Filter],
) -> core.Filter:
    """``memo[pl]``, made by ``make`` when no equal list was made before; asked by the
    identity of ``pl`` first (``ctx.by_identity``)."""
    key = (id(pl), memo is ctx.nested)
    known = ctx.by_identity.get(key)
    if known is not None and known[0] is pl:
        return known[1]
    made = memo.get(pl)
    if made is None:
        made = memo[pl] = make()
    ctx.by_identity[key] = (pl, made)
    return made


def orbit_filters(
    base: PositionList,
    keywords: tuple[lt.TransformKeyword, ...],
    ctx: TranslationContext,
    span: Span,
) -> list[core.Filter]:
    """The rewritten members of a legacy orbit, false ones left out, repeats removed."""
    members = live_orbit(base, keywords, ctx.budget, span)
    if members is None:
        members = legacy_orbit(base, keywords, ctx.budget, span)
    filters = dict.fromkeys(member_filter(m, ctx) for m in members)
    filters.pop(FALSE, None)
    return list(filters)


def transformed_filter(pl: PositionList, ctx: TranslationContext) -> tuple[Parts, core.Filter]:
    """Hoisted comments and the OR of the orbit of a list with transform keywords."""
    keywords = transform_keywords(pl)
    comments, base = strip_comments(base_list(pl))
    members = orbit_filters(base, keywords, ctx, pl.span)
    hoisted = tuple(comment(c.text) for c in comments)
    if not members:
        return hoisted, FALSE
    if len(members) == 1:
        return hoisted, members[0]

    def inner(kws: tuple[lt.TransformKeyword, ...]) -> list[core.Filter]:
        return orbit_filters(base, kws, ctx, pl.span)

    compact = choose_compact(keywords, members, inner)
    if compact is None:
        return hoisted, core.Or(tuple(members))
    # The modern transform writes the untransformed list once: its comments can stay at
    # their places in it, next to what they annotate (T3).
    plain = member_filter(base, ctx)
    commented = _innermost_replaced(compact, plain, member_filter(base_list(pl), ctx))
    return ((), commented) if commented is not None else (hoisted, compact)


def _innermost_replaced(
    node: core.Filter, old: core.Filter, new: core.Filter
) -> core.Filter | None:
    """``node`` (nested transforms around ``old``) around ``new`` instead; None when the
    innermost filter is not ``old``."""
    if node == old:
        return new
    if isinstance(node, core.Transform):
        inner = _innermost_replaced(node.arg, old, new)
        return None if inner is None else attrs.evolve(node, arg=inner)
    return None


def list_parts(pl: PositionList, ctx: TranslationContext, *, top: bool = False) -> Parts:
    """The constituents whose conjunction is the meaning of ``pl`` (semantics: S-list-evaluation).

    ``top`` says that ``pl`` is a top-level list, whose settings (scope, marks, match
    counts) the caller has taken care of.
    """
    if not top:
        _check_nested_settings(pl, ctx)
    negated = any(isinstance(i, lt.Flag) and i.keyword is FlagKeyword.NOT for i in pl.items)
    if transform_keywords(pl):
        shared = tuple(i for i in pl.items if _shared_relation(i, transformed=True))
        rest = _without_shared_relations(pl, transformed=True)
        hoisted, core_filter = transformed_filter(rest, ctx)
        parts: Parts = hoisted
        # An orbit of one member is that member: its constituents join the list's.
        body: Parts = (
            core_filter.items if isinstance(core_filter, core.Compound) else (core_filter,)
        )
        # OR over T of (T's items and R) is (OR over T of T's items) and R.
        view = ListView(base_list(rest).items)
        for relation in shared:
            body += ITEM_RULES[lt.Relation](relation, view, ctx)
    else:
        parts = ()
        body = item_parts(base_list(pl), ctx)
    if negated:
        body = _negated(body)
    sums = tuple(_sumrange_parts(pl, ctx))
    return simplify_parts((*parts, *body, *sums))


def _negated(body: Parts) -> Parts:
    """``:not`` of the constituents ``body``; comments alone test nothing, so they stay
    before the ``false`` that the negation of an empty list is."""
    if all(isinstance(p, core.Comment) for p in body):
        return (*(own_line(p) for p in body), FALSE)
    return (_negate(body[0] if len(body) == 1 else conjunction(body)),)


def _negate(f: core.Filter) -> core.Filter:
    if f == TRUE:
        return FALSE
    if f == FALSE:
        return TRUE
    return core.Not(f)


def nested_filter(pl: PositionList, ctx: TranslationContext) -> core.Filter:
    """A nested list (argument of ``:and``, ``:or``, ``:sequence``…) as one filter.

    The members of a transformed list often share nested lists: each is rewritten once.
    """
    return _once(ctx, ctx.nested, pl, lambda: conjunction(list_parts(pl, ctx)))


# --------------------------------------------------------------------------------------
# Accumulators (semantics: S-accumulators)
# --------------------------------------------------------------------------------------


def _accumulates(pl: PositionList, name: str) -> bool:
    return any(isinstance(i, lt.Accumulate) and i.name == name for i in pl.items)


def _nested_via_and_or(pl: PositionList) -> Iterator[PositionList]:
    for item in pl.items:
        if isinstance(item, lt.ListOfLists) and item.keyword in (
            lt.ListKeyword.AND,
            lt.ListKeyword.OR,
        ):
            yield from item.lists


def _shared_relation(item: PositionItem, *, transformed: bool) -> TypeGuard[lt.Relation]:
    """Whether ``item`` is a ``:relation`` that every transformed list of its list has
    alike: one without ``:pattern`` (its counts never follow the list's transforms, L18),
    or any relation of a list without transform keywords."""
    if not isinstance(item, lt.Relation):
        return False
    pattern = any(
        isinstance(p, lt.RelationFlag) and p.keyword is lt.RelationFlagKeyword.PATTERN
        for p in item.items
    )
    return not (transformed and pattern)


def _without_shared_relations(pl: PositionList, *, transformed: bool) -> PositionList:
    kept = tuple(i for i in pl.items if not _shared_relation(i, transformed=transformed))
    return attrs.evolve(pl, items=kept)


def _sumrange_parts(pl: PositionList, ctx: TranslationContext) -> Iterator[core.Filter]:
    negated = any(isinstance(i, lt.Flag) and i.keyword is FlagKeyword.NOT for i in pl.items)
    for item in pl.items:
        if isinstance(item, lt.SumRange):
            # The :sumrange is a conjunct of its list, which (unless negated) holds its
            # shared relations: its own members count without them.
            terms = accumulated_terms(pl, item.name, ctx, relations_hold=not negated)
            if all(isinstance(t, core.Number) for t in terms):
                total = sum(t.value for t in terms if isinstance(t, core.Number))
                yield constant_in_range(total, item.range)
            else:
                yield in_range(sum_of(terms), item.range)


def accumulated_terms(
    pl: PositionList, name: str, ctx: TranslationContext, *, relations_hold: bool = False
) -> list[core.Filter]:
    """Numeric terms whose sum is the value ``name`` reaches while ``pl`` is evaluated
    once: every orbit member of every accumulating list counts when it matches.

    A member's ``:relation`` is part of the member, as the transformed list has it (with
    ``:pattern``, its own transformed squares: L18), so a list with a relation counts
    like any other.  ``relations_hold`` says that the terms are read where ``pl``'s
    shared relations hold (``pl``'s own ``:sumrange``): its members are then counted
    without them, which changes no count (they are the same in every member).
    """
    keywords = transform_keywords(pl)
    _, base = strip_comments(base_list(pl))
    members = legacy_orbit(base, keywords, ctx.budget, pl.span)
    terms: list[core.Filter] = []
    if _accumulates(pl, name):
        transformed = bool(keywords)
        counted = [
            _without_shared_relations(m, transformed=transformed) if relations_hold else m
            for m in members
        ]
        terms += _count_terms(keywords, [member_filter(m, ctx) for m in counted], pl.span, ctx)
    for member in members:
        for nested in _nested_via_and_or(member):
            terms += accumulated_terms(nested, name, ctx)
    return terms


#: Two always-true designators (any content on the a-file / h-file) that make every
#: horizontally shifted copy of a filter invalid: ``shifthorizontal count {a1-8 h1-8 F}``
#: is 1 when F matches and 0 otherwise (M1, M2).
_INDICATOR_ANCHORS = (core.PieceSet(ANYTHING, BB_FILES[0]), core.PieceSet(ANYTHING, BB_FILES[7]))


def indicator(f: core.Filter) -> core.Filter:
    """A number that is 1 when ``f`` matches and 0 otherwise.

    ``f`` may hold a relation (a ``Relation`` node for ``run``, ``echo`` in the CQL 6.1
    form): every image but the identity loses an anchor, which comes first, so no
    transform ever reaches the relation (see :mod:`cqllegacy.core.transforms`).
    """
    items = f.items if isinstance(f, core.Compound) else (f,)
    body = core.Compound((*_INDICATOR_ANCHORS, *items))
    return core.Transform(core.TransformKind.SHIFTHORIZONTAL, body, count=True)


def _count_terms(
    keywords: tuple[lt.TransformKeyword, ...],
    members: Sequence[core.Filter],
    span: Span,
    ctx: TranslationContext,
) -> list[core.Filter]:
    live = [m for m in members if m != FALSE]
    if not live:
        return []
    counted = single_layer_count(keywords, live) if keywords else None
    if counted is not None:
        return [counted]
    # A member that always matches (its shared relation taken out) counts 1.
    return [core.Number(1) if m == TRUE else indicator(m) for m in live]


ITEM_RULES.absent(
    lt.Transform,
    lt.Accumulate,
    lt.SumRange,
    reason="it shapes the whole list (its transforms, its accumulators): the list reads it",
)
