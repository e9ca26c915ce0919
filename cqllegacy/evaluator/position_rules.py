"""Evaluator rules for the filters read at one position: square sets, numbers, logic,
game tags and transforms (semantics: S-modern-sets, S-directions, S-attacks, S-game-filters,
S-orbits).

>>> from cqllegacy.evaluator.evaluate import evaluate_filter
>>> from cqllegacy.evaluator.testing import pd, position
>>> from cqllegacy.core.tree import Count
>>> evaluate_filter(Count(AttackedBy(pd("P"), pd("K"))), position())
3
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import chess
import chess.pgn

from cqllegacy.core.tree import (
    Abs,
    And,
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Between,
    BoardFact,
    CastlingRights,
    Color,
    Comment,
    Compare,
    CompareOp,
    Complement,
    Compound,
    Count,
    DateIn,
    DirectionSet,
    EcoRange,
    Elo,
    FenIs,
    Filter,
    GameHas,
    HalfmoveClock,
    InRange,
    InSet,
    Intersection,
    Keyword,
    LegacyOnly,
    MovetextFeature,
    Negate,
    Not,
    Number,
    NumericKeyword,
    NumericValue,
    Or,
    PawnFeature,
    PawnStructure,
    PieceLoop,
    PieceSet,
    PieceVariable,
    Player,
    PlyCount,
    Power,
    Ray,
    Result,
    RoundNumber,
    RoundPart,
    ScidbBoardTest,
    SideToMove,
    Simple,
    SquareColor,
    SquareLoop,
    SquareVariable,
    TagContains,
    TagName,
    TagSearch,
    TagValueIn,
    Transform,
    Union,
    XRay,
)
from cqllegacy.evaluator.compiler import (
    FAIL,
    REFERENCE_RULES,
    Compiled,
    Compiler,
    Context,
    Fn,
    Kind,
    NumberFn,
    QueryError,
    SetFn,
    TruthFn,
    as_logical,
    as_number,
    as_set,
    logical_value,
    number_value,
    set_value,
    truth,
)
from cqllegacy.evaluator.gametree import (
    NO_PIECE,
    GameInfo,
    date_days,
    eco_code,
    round_numbers,
)
from cqllegacy.evaluator.masks import PIECE_ATTRS, designator_squares
from cqllegacy.evaluator.trees import closed_range, meaningful, orbit_members
from cqllegacy.vocab.fen import position_key
from cqllegacy.vocab.pieces import (
    ANYTHING,
    NOTHING,
    POWER_VALUES,
)
from cqllegacy.vocab.rays import BASIC_VECTORS, between_squares, is_diagonal, ray_ends, translate
from cqllegacy.vocab.squares import FULL, LIGHT_SQUARES, iter_squares

__all__ = ["sorted_vectors"]

#: Files a reference rule of this module under its node class.
_rule = REFERENCE_RULES.register


# --------------------------------------------------------------------------------------
# Set filters
# --------------------------------------------------------------------------------------

@_rule(PieceSet)
def _piece_set(c: Compiler, node: PieceSet) -> Compiled:
    squares = node.squares
    if node.types == ANYTHING or squares == 0 or node.types == NOTHING:
        constant = squares if node.types != NOTHING else 0
        return as_set(lambda ctx, p: constant)
    value = designator_squares(node.types, squares)
    return as_set(lambda ctx, p: value(ctx.boards[p]))


def _union_of(fns: tuple[SetFn, ...]) -> SetFn:
    def union(ctx: Context, p: int) -> int:
        out = 0
        for fn in fns:
            out |= fn(ctx, p)
        return out

    return union


def _maximum_of(fns: tuple[NumberFn, ...]) -> NumberFn:
    def maximum(ctx: Context, p: int) -> int | None:
        values = [v for v in (fn(ctx, p) for fn in fns) if v is not None]
        return max(values) if values else None

    return maximum


def _any_of(fns: tuple[TruthFn, ...]) -> TruthFn:
    return lambda ctx, p: any(fn(ctx, p) for fn in fns)


@_rule(Union)
def _union(c: Compiler, node: Union) -> Compiled:
    return as_set(_union_of(tuple(c.set_fn(item) for item in meaningful(node.items))))


@_rule(Intersection)
def _intersection(c: Compiler, node: Intersection) -> Compiled:
    fns = tuple(c.set_fn(item) for item in meaningful(node.items))

    def intersection(ctx: Context, p: int) -> int:
        out = FULL
        for fn in fns:
            out &= fn(ctx, p)
            if not out:
                return 0
        return out

    return as_set(intersection)


@_rule(Complement)
def _complement(c: Compiler, node: Complement) -> Compiled:
    fn = c.set_fn(node.arg)
    return as_set(lambda ctx, p: ~fn(ctx, p) & FULL)


@_rule(Attacks)
def _attacks(c: Compiler, node: Attacks) -> Compiled:
    left, right = c.set_fn(node.left), c.set_fn(node.right)

    def attacks(ctx: Context, p: int) -> int:
        board = ctx.boards[p]
        attackers = left(ctx, p) & board.occupied
        if not attackers:
            return 0
        targets = right(ctx, p)
        out = 0
        for sq in iter_squares(attackers):
            if board.attacks_mask(sq) & targets:
                out |= 1 << sq
        return out

    return as_set(attacks)


@_rule(AttackedBy)
def _attacked_by(c: Compiler, node: AttackedBy) -> Compiled:
    left, right = c.set_fn(node.left), c.set_fn(node.right)

    def attacked_by(ctx: Context, p: int) -> int:
        targets = left(ctx, p)
        if not targets:
            return 0
        board = ctx.boards[p]
        attacked = 0
        for sq in iter_squares(right(ctx, p) & board.occupied):
            attacked |= board.attacks_mask(sq)
        found: int = targets & attacked
        return found

    return as_set(attacked_by)


@_rule(DirectionSet)
def _direction_set(c: Compiler, node: DirectionSet) -> Compiled:
    fn = c.set_fn(node.arg)
    lo, hi = min(node.lo, node.hi), max(node.lo, node.hi)
    offsets = sorted(
        {(k * dx, k * dy) for dx, dy in node.direction.vectors for k in range(lo, hi + 1)}
    )

    def moved(ctx: Context, p: int) -> int:
        source = fn(ctx, p)
        if not source:
            return 0
        out = 0
        for dx, dy in offsets:
            out |= translate(source, dx, dy)
        return out

    return as_set(moved)


def sorted_vectors(vectors: frozenset[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    return tuple(v for v in BASIC_VECTORS if v in vectors)


@_rule(Ray)
def _ray(c: Compiler, node: Ray) -> Compiled:
    if len(node.args) < 2:
        raise QueryError("ray needs at least two arguments")
    fns = tuple(c.set_fn(arg) for arg in node.args)
    vectors = sorted_vectors(node.direction.vectors)

    def ray(ctx: Context, p: int) -> int:
        sets = [fn(ctx, p) for fn in fns]
        if not all(sets):
            return 0
        return ray_ends(ctx.boards[p].occupied, sets, vectors)

    return as_set(ray)


_ORTHOGONAL = tuple(v for v in BASIC_VECTORS if not is_diagonal(v))
_DIAGONAL = tuple(v for v in BASIC_VECTORS if is_diagonal(v))


@_rule(XRay)
def _xray(c: Compiler, node: XRay) -> Compiled:
    if len(node.args) < 2:
        raise QueryError("xray needs at least two arguments")
    fns = tuple(c.set_fn(arg) for arg in node.args)

    def xray(ctx: Context, p: int) -> int:
        # semantics: S-attacks: ray orthogonal ({x&[RrQq]} …) | ray diagonal ({x&[BbQq]} …)
        sets = [fn(ctx, p) for fn in fns]
        if not all(sets):
            return 0
        board = ctx.boards[p]
        first, rest = sets[0], sets[1:]
        straight = first & (board.rooks | board.queens)
        slanted = first & (board.bishops | board.queens)
        out = 0
        if straight:
            out |= ray_ends(board.occupied, [straight, *rest], _ORTHOGONAL)
        if slanted:
            out |= ray_ends(board.occupied, [slanted, *rest], _DIAGONAL)
        return out

    return as_set(xray)


@_rule(Between)
def _between(c: Compiler, node: Between) -> Compiled:
    left, right = c.set_fn(node.left), c.set_fn(node.right)
    return as_set(lambda ctx, p: between_squares(left(ctx, p), right(ctx, p)))


@_rule(SquareColor)
def _square_color(c: Compiler, node: SquareColor) -> Compiled:
    arg = c.set_fn(node.arg)
    mask = FULL & ~LIGHT_SQUARES if node.dark else LIGHT_SQUARES
    return as_set(lambda ctx, p: arg(ctx, p) & mask)


# Pawn structure (semantics: S-pawn-structure).  The masks are facts of the board that
# only this rule reads.

#: The files either side of each file (a and h have one neighbour).
_NEIGHBOUR_FILES = tuple(
    (chess.BB_FILES[f - 1] if f > 0 else 0) | (chess.BB_FILES[f + 1] if f < 7 else 0)
    for f in range(8)
)


def _ahead(color: chess.Color, square: int) -> int:
    """The squares of the file of ``square`` and its neighbours on the ranks a pawn of
    ``color`` on ``square`` has still to cross (towards rank 8 for White)."""
    rank = chess.square_rank(square)
    ranks = range(rank + 1, 8) if color == chess.WHITE else range(rank)
    files = chess.BB_FILES[chess.square_file(square)] | _NEIGHBOUR_FILES[chess.square_file(square)]
    return files & sum((chess.BB_RANKS[r] for r in ranks), 0)


#: ``_AHEAD[color][square]``: see :func:`_ahead`.
_AHEAD = {color: tuple(_ahead(color, sq) for sq in chess.SQUARES) for color in chess.COLORS}


def _pawns_with(feature: PawnFeature, own: int, enemy: int, color: chess.Color) -> int:
    """The pawns of ``own`` (of ``color``) that have ``feature``."""
    out = 0
    for sq in iter_squares(own):
        file = chess.square_file(sq)
        if feature is PawnFeature.PASSED:
            has = not _AHEAD[color][sq] & enemy
        elif feature is PawnFeature.DOUBLED:
            has = bool(own & chess.BB_FILES[file] & ~(1 << sq))
        else:
            neighbours = bool(own & _NEIGHBOUR_FILES[file])
            has = neighbours if feature is PawnFeature.CONNECTED else not neighbours
        if has:
            out |= 1 << sq
    return out


@_rule(PawnStructure)
def _pawn_structure(c: Compiler, node: PawnStructure) -> Compiled:
    feature = node.feature

    def pawns(ctx: Context, p: int) -> int:
        board = ctx.boards[p]
        white, black = (
            board.pawns & board.occupied_co[chess.WHITE],
            board.pawns & board.occupied_co[chess.BLACK],
        )
        return _pawns_with(feature, white, black, chess.WHITE) | _pawns_with(
            feature, black, white, chess.BLACK
        )

    return as_set(pawns)


def _squares_where(
    ctx: Context,
    p: int,
    squares: int,
    key: str,
    value: Callable[[int], int],
    body: TruthFn,
) -> int:
    """The squares of ``squares`` where ``body`` holds with ``key`` bound to ``value(sq)``
    (the binding restored after: loops nest and recurse)."""
    saved = ctx.bindings.get(key)
    out = 0
    try:
        for sq in iter_squares(squares):
            ctx.bind(key, value(sq))
            if body(ctx, p):
                out |= 1 << sq
    finally:
        ctx.bind(key, saved)
    return out


def _the_square(sq: int) -> int:
    return sq


@_rule(PieceVariable)
def _piece_variable(c: Compiler, node: PieceVariable) -> Compiled:
    name = node.name

    def variable(ctx: Context, p: int) -> int:
        sq = ctx.tracks[name][p]
        return 0 if sq == NO_PIECE else 1 << sq

    return as_set(variable)


@_rule(PieceLoop)
def _piece_loop(c: Compiler, node: PieceLoop) -> Compiled:
    domain, body, name = c.set_fn(node.domain), c.truth(node.body), node.name

    def piece_loop(ctx: Context, p: int) -> int:
        squares = domain(ctx, p) & ctx.boards[p].occupied
        if not squares:
            return 0
        return _squares_where(ctx, p, squares, name, ctx.who[p].__getitem__, body)

    if not node.all:
        return as_set(piece_loop)

    def every_piece(ctx: Context, p: int) -> bool:
        # semantics: S-piece-variables: every binding matches (no piece: vacuously true)
        squares: int = domain(ctx, p) & ctx.boards[p].occupied
        return piece_loop(ctx, p) == squares

    return as_logical(every_piece)


def _square_key(name: str) -> str:
    """The key of square variable ``name`` among the context's bindings (piece variables
    use their bare names, positions ``:name``: a square is no piece identity)."""
    return "@" + name


@_rule(SquareVariable)
def _square_variable(c: Compiler, node: SquareVariable) -> Compiled:
    key, name = _square_key(node.name), node.name

    def variable(ctx: Context, p: int) -> int:
        # The same square wherever the body looks (semantics: S-square-variables).
        sq = ctx.bindings.get(key)
        if sq is None:
            raise QueryError(f"square variable {name!r} is not bound here")
        return 1 << sq

    return as_set(variable)


@_rule(SquareLoop)
def _square_loop(c: Compiler, node: SquareLoop) -> Compiled:
    domain, body, key = c.set_fn(node.domain), c.truth(node.body), _square_key(node.name)

    def square_loop(ctx: Context, p: int) -> int:
        squares = domain(ctx, p)
        if not squares:
            return 0
        return _squares_where(ctx, p, squares, key, _the_square, body)

    if not node.all:
        return as_set(square_loop)

    def every_square(ctx: Context, p: int) -> bool:
        # CQL 6.1 square.html: matches when the body is never false (an empty domain too).
        squares = domain(ctx, p)
        if not squares:
            return True
        saved = ctx.bindings.get(key)
        try:
            for sq in iter_squares(squares):
                ctx.bind(key, sq)
                if not body(ctx, p):
                    return False
        finally:
            ctx.bind(key, saved)
        return True

    return as_logical(every_square)


@_rule(InSet)
def _in_set(c: Compiler, node: InSet) -> Compiled:
    left, right = c.set_fn(node.left), c.set_fn(node.right)
    return as_logical(lambda ctx, p: not left(ctx, p) & ~right(ctx, p))


# --------------------------------------------------------------------------------------
# Numeric filters
# --------------------------------------------------------------------------------------


@_rule(Number)
def _number_node(c: Compiler, node: Number) -> Compiled:
    value = node.value
    return as_number(lambda ctx, p: value)


@_rule(Count)
def _count(c: Compiler, node: Count) -> Compiled:
    fn = c.set_fn(node.arg)
    return as_number(lambda ctx, p: fn(ctx, p).bit_count())


_POWER_TERMS = tuple(
    (PIECE_ATTRS[piece_type], value) for piece_type, value in POWER_VALUES.items() if value
)


@_rule(Power)
def _power(c: Compiler, node: Power) -> Compiled:
    fn = c.set_fn(node.arg)

    def power(ctx: Context, p: int) -> int:
        squares = fn(ctx, p)
        if not squares:
            return 0
        board = ctx.boards[p]
        return sum(
            value * (getattr(board, name) & squares).bit_count() for name, value in _POWER_TERMS
        )

    return as_number(power)


_ARITH = {ArithOp.ADD: operator.add, ArithOp.SUB: operator.sub}


@_rule(Arith)
def _arith(c: Compiler, node: Arith) -> Compiled:
    # ``a + b - c …`` is a chain down the left operands: compiled and evaluated term by
    # term, without recursion (an accumulated list may sum thousands of terms).
    steps: list[tuple[Callable[[int, int], int], Filter]] = []
    first: Filter = node
    while isinstance(first, Arith):
        steps.append((_ARITH[first.op], first.right))
        first = first.left
    head = c.number_fn(first)
    rest = tuple((op, c.number_fn(term)) for op, term in reversed(steps))

    def arith(ctx: Context, p: int) -> int | None:
        total: int | None = head(ctx, p)
        for op, fn in rest:
            if total is None:
                return None
            value: int | None = fn(ctx, p)
            if value is None:
                return None
            total = op(total, value)
        return total

    return as_number(arith)


@_rule(Negate)
def _negate(c: Compiler, node: Negate) -> Compiled:
    fn = c.number_fn(node.arg)

    def negate(ctx: Context, p: int) -> int | None:
        value = fn(ctx, p)
        return None if value is None else -value

    return as_number(negate)


@_rule(Abs)
def _abs(c: Compiler, node: Abs) -> Compiled:
    fn = c.number_fn(node.arg)

    def absolute(ctx: Context, p: int) -> int | None:
        value = fn(ctx, p)
        return None if value is None else abs(value)

    return as_number(absolute)


def _movenumber(board: chess.Board) -> int:
    # Decision L8: the number of the move that produced the position.
    return board.fullmove_number - 1 if board.turn == chess.WHITE else board.fullmove_number


_NUMERIC_VALUES: dict[NumericKeyword, NumberFn] = {
    NumericKeyword.YEAR: lambda ctx, p: ctx.info.year,
    NumericKeyword.PLY: lambda ctx, p: ctx.ply[p],
    NumericKeyword.MOVENUMBER: lambda ctx, p: _movenumber(ctx.boards[p]),
}


@_rule(NumericValue)
def _numeric_value(c: Compiler, node: NumericValue) -> Compiled:
    return as_number(_NUMERIC_VALUES[node.keyword])


@_rule(SideToMove)
def _side_to_move(c: Compiler, node: SideToMove) -> Compiled:
    return as_number(lambda ctx, p: 1 if ctx.boards[p].turn == chess.WHITE else -1)


def _larger_elo(info: GameInfo) -> int | None:
    if info.white_elo is None or info.black_elo is None:
        return None
    return max(info.white_elo, info.black_elo)


_ELO: dict[Color | None, NumberFn] = {
    Color.WHITE: lambda ctx, p: ctx.info.white_elo,
    Color.BLACK: lambda ctx, p: ctx.info.black_elo,
    None: lambda ctx, p: _larger_elo(ctx.info),
}


@_rule(Elo)
def _elo(c: Compiler, node: Elo) -> Compiled:
    return as_number(_ELO[node.color])


@_rule(InRange)
def _in_range(c: Compiler, node: InRange) -> Compiled:
    fn = c.number_fn(node.value)
    lo, hi = closed_range(node.lo, node.hi)

    def in_range(ctx: Context, p: int) -> bool:
        value = fn(ctx, p)
        return value is not None and lo <= value <= hi

    return as_logical(in_range)


_COMPARE = {
    CompareOp.LT: operator.lt,
    CompareOp.LE: operator.le,
    CompareOp.EQ: operator.eq,
    CompareOp.GE: operator.ge,
    CompareOp.GT: operator.gt,
    CompareOp.NE: operator.ne,
}


def _chain_link(node: Filter) -> Filter | None:
    """The left value of a comparison standing as the right operand of another: ``2 < P <= 5``
    is ``2 < P`` and ``P <= 5`` (a comparison has no value of its own to compare)."""
    if isinstance(node, InRange):
        return node.value
    if isinstance(node, Compare):
        return node.left
    return None


@_rule(Compare)
def _compare(c: Compiler, node: Compare) -> Compiled:
    op = _COMPARE[node.op]
    link = _chain_link(node.right)
    rest = c.truth(node.right) if link is not None else None
    right_node = node.right if link is None else link
    both_sets = c.compile(node.left).kind is Kind.SET and c.compile(right_node).kind is Kind.SET
    if both_sets and node.op in (CompareOp.EQ, CompareOp.NE):
        left_set, right_set = c.set_fn(node.left), c.set_fn(right_node)
        if rest is None:
            return as_logical(lambda ctx, p: op(left_set(ctx, p), right_set(ctx, p)))
        then = rest
        return as_logical(
            lambda ctx, p: op(left_set(ctx, p), right_set(ctx, p)) and bool(then(ctx, p))
        )
    left, right = c.number_fn(node.left), c.number_fn(right_node)

    def compare(ctx: Context, p: int) -> bool:
        a = left(ctx, p)
        if a is None:
            return False
        b = right(ctx, p)
        if b is None or not op(a, b):
            return False
        return rest is None or bool(rest(ctx, p))

    return as_logical(compare)


# --------------------------------------------------------------------------------------
# Logical, position and game filters
# --------------------------------------------------------------------------------------


@_rule(Compound)
def _compound(c: Compiler, node: Compound) -> Compiled:
    items = meaningful(node.items)
    if not items:
        return as_logical(lambda ctx, p: True)
    *head, tail = items
    guards = tuple(c.truth(item) for item in head)
    last = c.compile(tail)
    last_fn, fail = last.fn, FAIL[last.kind]
    if not guards:
        return last

    def compound(ctx: Context, p: int) -> Any:
        for guard in guards:
            if not guard(ctx, p):
                return fail
        return last_fn(ctx, p)

    return Compiled(last.kind, compound)


@_rule(And)
def _and(c: Compiler, node: And) -> Compiled:
    fns = tuple(c.truth(item) for item in meaningful(node.items))
    return as_logical(lambda ctx, p: all(fn(ctx, p) for fn in fns))


@_rule(Or)
def _or(c: Compiler, node: Or) -> Compiled:
    fns = tuple(c.truth(item) for item in meaningful(node.items))
    return as_logical(lambda ctx, p: any(fn(ctx, p) for fn in fns))


@_rule(Not)
def _not(c: Compiler, node: Not) -> Compiled:
    fn = c.truth(node.arg)
    return as_logical(lambda ctx, p: not fn(ctx, p))


_SIMPLE: dict[Keyword, TruthFn] = {
    Keyword.TRUE: lambda ctx, p: True,
    Keyword.FALSE: lambda ctx, p: False,
    Keyword.WTM: lambda ctx, p: ctx.boards[p].turn == chess.WHITE,
    Keyword.BTM: lambda ctx, p: ctx.boards[p].turn == chess.BLACK,
    Keyword.CHECK: lambda ctx, p: ctx.boards[p].is_check(),
    Keyword.MATE: lambda ctx, p: ctx.boards[p].is_checkmate(),
    Keyword.STALEMATE: lambda ctx, p: ctx.boards[p].is_stalemate(),
    Keyword.INITIAL: lambda ctx, p: p == 0,
    Keyword.TERMINAL: lambda ctx, p: not ctx.children[p],
    Keyword.MAINLINE: lambda ctx, p: p < ctx.mainline_end,
    Keyword.VARIATION: lambda ctx, p: p >= ctx.mainline_end,
}


@_rule(Simple)
def _simple(c: Compiler, node: Simple) -> Compiled:
    return as_logical(_SIMPLE[node.keyword])


@_rule(Result)
def _result(c: Compiler, node: Result) -> Compiled:
    wanted = node.result.value
    return as_logical(lambda ctx, p: ctx.info.result == wanted)


@_rule(Player)
def _player(c: Compiler, node: Player) -> Compiled:
    fold: Callable[[str], str] = str.casefold if node.ignore_case else str
    text = fold(node.text)
    color = node.color

    def player(ctx: Context, p: int) -> bool:
        info = ctx.info
        if color is not Color.BLACK and text in fold(info.white):
            return True
        return color is not Color.WHITE and text in fold(info.black)

    return as_logical(player)


_TAGS: dict[TagName, Callable[[GameInfo], str]] = {
    TagName.EVENT: lambda info: info.event,
    TagName.SITE: lambda info: info.site,
}


@_rule(TagContains)
def _tag_contains(c: Compiler, node: TagContains) -> Compiled:
    tag, text = _TAGS[node.tag], node.text
    return as_logical(lambda ctx, p: text in tag(ctx.info))


@_rule(TagSearch)
def _tag_search(c: Compiler, node: TagSearch) -> Compiled:
    name, text = node.name, node.text
    if text is None:
        return as_logical(lambda ctx, p: name in ctx.info.tags)
    fold: Callable[[str], str] = str.casefold if node.ignore_case else str
    wanted = fold(text)

    def contains(ctx: Context, p: int) -> bool:
        value = ctx.info.tags.get(name)
        return value is not None and wanted in fold(value)

    return as_logical(contains)


@_rule(RoundNumber)
def _round_number(c: Compiler, node: RoundNumber) -> Compiled:
    part = 0 if node.part is RoundPart.ROUND else 1
    return as_number(lambda ctx, p: round_numbers(ctx.info.tags.get("Round"))[part])


@_rule(EcoRange)
def _eco_range(c: Compiler, node: EcoRange) -> Compiled:
    lo, hi = node.lo, node.hi

    def within(ctx: Context, p: int) -> bool:
        code = eco_code(ctx.info.tags.get("ECO"))
        return code is not None and lo <= code <= hi

    return as_logical(within)


def repetition_key(board: chess.Board) -> tuple[object, ...]:
    """python-chess's identity of a position for repetitions: the placement, the side to
    move, the castling rights, and the en passant square when a capture there is legal."""
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.clean_castling_rights(), ep)


def _first_threefold(ctx: Context) -> int | None:
    """The first main-line position that occurs for the third time (memoised per game)."""
    key = ("threefold", None)
    if key not in ctx.memo:
        seen: dict[tuple[object, ...], int] = {}
        found = None
        for p in range(ctx.mainline_end):
            identity = repetition_key(ctx.boards[p])
            seen[identity] = seen.get(identity, 0) + 1
            if seen[identity] == 3:
                found = p
                break
        ctx.memo[key] = found
    first: int | None = ctx.memo[key]
    return first


_BOARD_FACTS: dict[BoardFact, TruthFn] = {
    BoardFact.FORCED: lambda ctx, p: bool(ctx.children[p])
    and ctx.boards[p].legal_moves.count() == 1,
    BoardFact.THREEFOLD: lambda ctx, p: p < ctx.mainline_end and p == _first_threefold(ctx),
}


@_rule(ScidbBoardTest)
def _scidb_board_test(c: Compiler, node: ScidbBoardTest) -> Compiled:
    return as_logical(_BOARD_FACTS[node.fact])


_RIGHTS: dict[str, Callable[[chess.Board], bool]] = {
    "K": lambda board: board.has_kingside_castling_rights(chess.WHITE),
    "Q": lambda board: board.has_queenside_castling_rights(chess.WHITE),
    "k": lambda board: board.has_kingside_castling_rights(chess.BLACK),
    "q": lambda board: board.has_queenside_castling_rights(chess.BLACK),
}


@_rule(CastlingRights)
def _castling_rights(c: Compiler, node: CastlingRights) -> Compiled:
    tests = tuple(_RIGHTS[letter] for letter in node.rights)

    def exactly_one(ctx: Context, p: int) -> bool:
        board = ctx.boards[p]
        return sum(1 for test in tests if test(board)) == 1

    return as_logical(exactly_one)


@_rule(DateIn)
def _date_in(c: Compiler, node: DateIn) -> Compiled:
    lo, hi = node.lo, node.hi

    def within(ctx: Context, p: int) -> bool:
        days = date_days(ctx.info.tags.get("Date"))
        if days is None:
            return False
        return (lo is None or lo <= days[0]) and (hi is None or days[1] <= hi)

    return as_logical(within)


@_rule(PlyCount)
def _ply_count(c: Compiler, node: PlyCount) -> Compiled:
    # The main line holds positions 0 … mainline_end - 1: one more than its moves.
    return as_number(lambda ctx, p: ctx.mainline_end - 1)


def normalized_tag(value: str | None) -> str:
    """A tag value as :class:`TagValueIn` compares it: lower case, no spaces; a missing
    tag and ``?`` are ``""``.

    >>> normalized_tag("Time forfeit"), normalized_tag("?"), normalized_tag(None)
    ('timeforfeit', '', '')
    """
    text = "".join((value or "").split()).lower()
    return "" if text == "?" else text


@_rule(TagValueIn)
def _tag_value_in(c: Compiler, node: TagValueIn) -> Compiled:
    name, values = node.name, node.values
    return as_logical(lambda ctx, p: normalized_tag(ctx.info.tags.get(name)) in values)


def movetext_features(game: chess.pgn.GameNode) -> frozenset[MovetextFeature]:
    """What the movetext below ``game`` holds: a comment with text (before or after a
    move), a variation, a NAG other than ``$0`` (the null annotation).

    >>> import io
    >>> game = chess.pgn.read_game(io.StringIO("1. e4 $1 (1. d4) e5 {good} *"))
    >>> sorted(feature.value for feature in movetext_features(game))
    ['annotations', 'comments', 'variations']
    """
    found: set[MovetextFeature] = set()
    nodes = [game]
    while nodes:
        node = nodes.pop()
        if node.comment.strip() or node.starting_comment.strip():
            found.add(MovetextFeature.COMMENTS)
        if node.nags - {chess.pgn.NAG_NULL}:
            found.add(MovetextFeature.ANNOTATIONS)
        if len(node.variations) > 1:
            found.add(MovetextFeature.VARIATIONS)
        nodes.extend(node.variations)
    return frozenset(found)


@_rule(GameHas)
def _game_has(c: Compiler, node: GameHas) -> Compiled:
    feature = node.feature

    def holds(ctx: Context, p: int) -> bool:
        key = ("movetext", None)
        if key not in ctx.memo:
            ctx.memo[key] = movetext_features(ctx.nodes[0].game())
        return feature in ctx.memo[key]

    return as_logical(holds)


@_rule(FenIs)
def _fen_is(c: Compiler, node: FenIs) -> Compiled:
    placement, turn, castling, ep = node.placement, node.white_to_move, node.castling, node.ep

    def same(ctx: Context, p: int) -> bool:
        board = ctx.boards[p]
        if board.board_fen() != placement or board.turn != turn:
            return False
        return position_key(board)[2:] == (castling, ep)

    return as_logical(same)


@_rule(HalfmoveClock)
def _halfmove_clock(c: Compiler, node: HalfmoveClock) -> Compiled:
    return as_number(lambda ctx, p: ctx.boards[p].halfmove_clock)


@_rule(Comment)
def _comment(c: Compiler, node: Comment) -> Compiled:
    return as_logical(lambda ctx, p: True)


@_rule(LegacyOnly)
def _legacy_only(c: Compiler, node: LegacyOnly) -> Compiled:
    return c.compile(node.filter)


# --------------------------------------------------------------------------------------
# Transforms (semantics: S-orbits)
# --------------------------------------------------------------------------------------


# How the orbit members' values combine, by the kind of the transformed filter
# (semantics: S-orbits).
_ORBIT_VALUE: dict[Kind, Callable[[tuple[Compiled, ...]], Fn]] = {
    Kind.SET: lambda members: _union_of(tuple(set_value(m) for m in members)),
    Kind.NUMBER: lambda members: _maximum_of(tuple(number_value(m) for m in members)),
    Kind.LOGICAL: lambda members: _any_of(tuple(logical_value(m) for m in members)),
}


@_rule(Transform)
def _transform(c: Compiler, node: Transform) -> Compiled:
    kind = c.compile(node.arg).kind
    members = [c.compile(member) for member in orbit_members(node)]
    if node.count:
        truths = tuple(truth(m) for m in members)
        return as_number(lambda ctx, p: sum(1 for t in truths if t(ctx, p)))
    return Compiled(kind, _ORBIT_VALUE[kind](tuple(members)))
