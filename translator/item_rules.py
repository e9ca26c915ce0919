"""Legacy position items → core parts: one rule per legacy item class, in
:data:`ITEM_RULES`.

A rule takes the item, the list it stands in (:class:`ListView`, for rules that look at
its neighbours) and the context; the list's translation (:mod:`translator.rewrite`)
joins the parts of its items.  Nested lists (``:and``, ``:or``, sequences) have their
rule there: it translates whole lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias, TypeGuard, TypeVar

import attrs
from cqllegacy.translator.echo import relation_echo
from cqllegacy.translator.orbits import (
    MAX_ABS_POWER,
)
from cqllegacy.translator.parts import (
    EMPTY_SET,
    FALSE,
    Parts,
    TranslationContext,
    comment,
    constant_in_range,
    in_range,
    last_line,
    meet,
    piece_filter,
    restrict,
    sum_of,
)
from cqllegacy.translator.pawns import pawn_count

from cqllegacy.core import tree as core
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.legacy import dialects
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.line_moves import ONLY_MOVE
from cqllegacy.legacy.tree import (
    Designator,
    FlagKeyword,
    PositionItem,
    Range,
)
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    EMPTY_BIT,
    WHITE_PIECES,
    TypeSet,
    color_swap,
    legacy_types,
    types_of,
)
from cqllegacy.vocab.squares import BB_FILES, FULL, Direction, iter_squares, popcount

# --------------------------------------------------------------------------------------
# Item rules
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class ListView(Record):
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


@rule(lt.PawnCount)
def _pawn_count(item: lt.PawnCount, view: ListView, ctx: TranslationContext) -> Parts:
    return (pawn_count(item),)


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


_CHECK_KINDS = {kind.value: kind for kind in core.CheckKind}


def _hypothetical_move(move: lt.LineMove) -> core.HypotheticalMove:
    promotion = None if move.promotion is None else move.promotion.types
    return core.HypotheticalMove(
        move.origin.types,
        move.origin.squares,
        move.target.types,
        move.target.squares,
        promotion,
        move.enpassant,
        tuple((_CHECK_KINDS[name], negated) for name, negated in move.checks),
        move.forced,
    )


@rule(lt.HypotheticalMoves)
def _hypothetical_moves(
    item: lt.HypotheticalMoves, view: ListView, ctx: TranslationContext
) -> Parts:
    moves = tuple(_hypothetical_move(move) for move in item.moves)
    construct = ":line with !" if item == ONLY_MOVE else ":line with |"
    return (core.HypotheticalLine(moves, origin=core.Origin(construct, item.span)),)


@rule(lt.TransposedLine)
def _transposed_line(
    item: lt.TransposedLine, view: ListView, ctx: TranslationContext
) -> Parts:
    origin = core.Origin(":line*", item.span)
    return (core.LineReached(item.moves, item.checks, item.white_first, origin=origin),)


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


@attrs.frozen(repr=False)
class _MoveSpec(Record):
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
    if spec.impossible or EMPTY_SET in (spec.from_, spec.to) or (no_ep and spec.enpassant):
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


#: Scidb's castlings: the piece type that names one, its colour and side.
_CASTLINGS = (
    ("K", types_of("K"), core.Castling.KINGSIDE),
    ("Q", types_of("K"), core.Castling.QUEENSIDE),
    ("k", types_of("k"), core.Castling.KINGSIDE),
    ("q", types_of("k"), core.Castling.QUEENSIDE),
)


@rule(lt.CastlingMove)
def _castling_move(item: lt.CastlingMove, view: ListView, ctx: TranslationContext) -> Parts:
    # Scidb's :iscastling: the next move castles, as one of the castlings PD's types name
    # (a white king's castling from a white king on any square: the move's colour).
    origin = core.Origin(":iscastling", item.span)
    d = item.designator
    if d is None:
        moves = [core.Move(castle=side, origin=origin) for side in core.Castling]
        return (core.Or(tuple(moves)),)
    castlings = legacy_types("[KQkq]")
    if d.tag is not None or d.squares != FULL or d.types & ~castlings or not d.types:
        raise ctx.error(
            ":iscastling takes the castlings K, Q, k, q (as in [Kk]), on no squares",
            d.span,
        )
    moves = [
        core.Move(castle=side, from_=core.PieceSet(king, FULL), origin=origin)
        for letter, king, side in _CASTLINGS
        if d.types & legacy_types(letter)
    ]
    return (moves[0] if len(moves) == 1 else core.Or(tuple(moves)),)


@rule(lt.CastlingRightsTest)
def _castling_rights(
    item: lt.CastlingRightsTest, view: ListView, ctx: TranslationContext
) -> Parts:
    d = item.designator
    if d.tag is not None or d.squares != FULL or d.types & ~legacy_types("[KQkq]"):
        raise ctx.error(
            ":castling takes the castling rights K, Q, k, q (as in [KQ]), on no squares",
            d.span,
        )
    rights = "".join(letter for letter in "KQkq" if d.types & legacy_types(letter))
    return (core.CastlingRights(rights, origin=core.Origin(":castling", item.span)),)


_BOARD_FACTS = {
    lt.BoardTestKeyword.FORCED: core.BoardFact.FORCED,
    lt.BoardTestKeyword.THREEFOLDREPETITION: core.BoardFact.THREEFOLD,
}


@rule(lt.BoardTest)
def _board_test(item: lt.BoardTest, view: ListView, ctx: TranslationContext) -> Parts:
    origin = core.Origin(f":{item.keyword.value}", item.span)
    return (core.ScidbBoardTest(_BOARD_FACTS[item.keyword], origin=origin),)


@rule(lt.FenPosition)
def _fen_position(item: lt.FenPosition, view: ListView, ctx: TranslationContext) -> Parts:
    key = dialects.fen_key(item.fen)
    assert not isinstance(key, str), "the reader checks the FEN"
    return (core.FenIs(*key, origin=core.Origin(":fen", item.span)),)


@rule(lt.HalfmoveClockRange)
def _halfmove_clock(
    item: lt.HalfmoveClockRange, view: ListView, ctx: TranslationContext
) -> Parts:
    # Inside a variation Scidb's keyword always holds (its help).
    clock = core.HalfmoveClock(origin=core.Origin(":halfmoveclock", item.span))
    in_variation = core.Simple(core.Keyword.VARIATION)
    return (core.Or((in_variation, in_range(clock, item.range))),)


@rule(lt.TagMatch)
def _tag_match(item: lt.TagMatch, view: ListView, ctx: TranslationContext) -> Parts:
    # The tagged piece's square, if its current content and square fit the designator.
    described = piece_filter(item.designator)
    f = meet(core.PieceVariable(item.name), described) if described is not None else None
    return (FALSE,) if f is None or f == EMPTY_SET else (f,)


def comments_among_lists(item: lt.ListOfLists, view: ListView) -> dict[int, list[lt.Comment]]:
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
            placed = comments_among_lists(other, view).values()
            return any(c is comment_item for group in placed for c in group)
        if not isinstance(other, lt.Comment):
            return False
    return False


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
