"""A naive evaluator of legacy CQL 3 scripts, written only to check the translator.

It follows docs/semantics.md (Parts 1–3 and the decisions) literally and shares no code with the
translator or the core evaluator: squares are Python sets of ``(file, rank)`` pairs,
piece types are sets of letters, transform sets are built by composing unit-shift and
reflection functions, and every keyword is evaluated directly with python-chess.  It
takes the legacy tree from ``read_script`` and evaluates main-line positions only.

Supported: designators, every flag, every transform keyword, ``:piececount``,
``:power``, ``:powerdifference``, ``:attackcount``, the ``:ray…`` family, the move
keywords, ``:movenumber``, ``:and``/``:or``/``:not``, ``:sequence``,
``:gappedsequence``, ``:result``/``:elo``/``:whiteelo``/``:blackelo``,
``:accumulate``/``:sumrange`` (in lists with a ``:relation`` too: a transformed list counts
when it matches with its relation, compared on that list's squares under ``:pattern``),
``:matchcount``/``:pretransformmatchcount``, ``:relation``
(later positions of the main line; P2 turned and moved square by square), tags and the
match list's ``:result``/``:year``/``:player``/``:gamenumber``.  Not supported:
``:variations`` (main-line positions only: on games without variations a relation's
``:variations`` looks at the main line and ``:variationsonly`` at nothing).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn

from cqllegacy.legacy import tree as lt

Square = tuple[int, int]  # (file, rank), both 0..7
Map = Callable[[Square], Square]

ALL_SQUARES: frozenset[Square] = frozenset((f, r) for f in range(8) for r in range(8))
WHITE_LETTERS = "PNBRQK"  # python-chess piece-type order
BLACK_LETTERS = "pnbrqk"
EMPTY = "."
SWAP_LETTER = {
    **dict(zip(WHITE_LETTERS, BLACK_LETTERS, strict=True)),
    **dict(zip(BLACK_LETTERS, WHITE_LETTERS, strict=True)),
    EMPTY: EMPTY,
}
VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}
INF = float("inf")


# --------------------------------------------------------------------------------------
# Designators
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class D:
    """A piece designator: contents ``types`` (letters, ``.`` = empty) on ``squares``."""

    types: frozenset[str]
    squares: frozenset[Square]
    tag: str | None = None


def letters_of(mask: int) -> frozenset[str]:
    """Decode the tree's type mask: bits 0-5 white P N B R Q K, 6-11 black, 12 empty."""
    out = {letter for i, letter in enumerate(WHITE_LETTERS) if mask >> i & 1}
    out |= {letter for i, letter in enumerate(BLACK_LETTERS) if mask >> (i + 6) & 1}
    if mask >> 12 & 1:
        out.add(EMPTY)
    return frozenset(out)


def squares_of(bb: int) -> frozenset[Square]:
    return frozenset((sq % 8, sq // 8) for sq in range(64) if bb >> sq & 1)


def designator(d: lt.Designator) -> D:
    return D(letters_of(d.types), squares_of(d.squares), d.tag)


class Position:
    """A board with its square contents looked up once, and the next move from it."""

    def __init__(self, board: chess.Board, move: chess.Move | None) -> None:
        self.board = board
        self.move = move
        self.cells = {
            (f, r): _symbol(board.piece_at(chess.square(f, r))) for f in range(8) for r in range(8)
        }
        self._matching: dict[D, list[Square]] = {}

    def matching(self, d: D) -> list[Square]:
        """The squares of ``d`` whose content is one of its types."""
        if d not in self._matching:
            self._matching[d] = [sq for sq in d.squares if self.cells[sq] in d.types]
        return self._matching[d]


def _symbol(piece: chess.Piece | None) -> str:
    return EMPTY if piece is None else piece.symbol()


# --------------------------------------------------------------------------------------
# Square maps, written from the table of semantics: S-square-maps
# --------------------------------------------------------------------------------------

DIHEDRAL: dict[str, Map] = {
    "identity": lambda s: s,
    "rot90": lambda s: (7 - s[1], s[0]),
    "rot180": lambda s: (7 - s[0], 7 - s[1]),
    "rot270": lambda s: (s[1], 7 - s[0]),
    "horizontal": lambda s: (s[0], 7 - s[1]),  # about the horizontal bisector: f6 -> f3
    "vertical": lambda s: (7 - s[0], s[1]),  # about the vertical bisector: f6 -> c6
    "diagonal": lambda s: (s[1], s[0]),  # about a1-h8
    "offdiagonal": lambda s: (7 - s[1], 7 - s[0]),  # about a8-h1
}
SWAPS_RANKS_AND_FILES = {"rot90", "rot270", "diagonal", "offdiagonal"}


def unit_right(squares: frozenset[Square]) -> frozenset[Square]:
    """Edge-inclusive: h-file squares vanish, a-file squares stay and also move."""
    moved = {(f + 1, r) for f, r in squares if f < 7}
    return frozenset(moved | {(f, r) for f, r in squares if f == 0})


def unit_left(squares: frozenset[Square]) -> frozenset[Square]:
    moved = {(f - 1, r) for f, r in squares if f > 0}
    return frozenset(moved | {(f, r) for f, r in squares if f == 7})


def unit_up(squares: frozenset[Square]) -> frozenset[Square]:
    moved = {(f, r + 1) for f, r in squares if r < 7}
    return frozenset(moved | {(f, r) for f, r in squares if r == 0})


def unit_down(squares: frozenset[Square]) -> frozenset[Square]:
    moved = {(f, r - 1) for f, r in squares if r > 0}
    return frozenset(moved | {(f, r) for f, r in squares if r == 7})


SetMap = Callable[[frozenset[Square]], frozenset[Square]]


def power_of(unit: SetMap, k: int) -> SetMap:
    def shifted(squares: frozenset[Square]) -> frozenset[Square]:
        for _ in range(k):
            squares = unit(squares)
        return squares

    return shifted


def then(first: SetMap, second: SetMap) -> SetMap:
    return lambda squares: second(first(squares))


IDENTITY_SET: SetMap = lambda squares: squares  # noqa: E731


def horizontal_shifts() -> list[tuple[str, SetMap]]:
    return [("h0", IDENTITY_SET)] + [
        (f"{name}{k}", power_of(unit, k))
        for k in range(1, 8)
        for name, unit in (("R", unit_right), ("L", unit_left))
    ]


def vertical_shifts() -> list[tuple[str, SetMap]]:
    return [("v0", IDENTITY_SET)] + [
        (f"{name}{k}", power_of(unit, k))
        for k in range(1, 8)
        for name, unit in (("U", unit_up), ("D", unit_down))
    ]


def diagonal_shifts(main: bool) -> list[tuple[str, SetMap]]:
    pairs = (
        ((unit_right, unit_up), (unit_left, unit_down))
        if main
        else (
            (unit_right, unit_down),
            (unit_left, unit_up),
        )
    )
    out: list[tuple[str, SetMap]] = [("d0", IDENTITY_SET)]
    for k in range(1, 8):
        for i, (a, b) in enumerate(pairs):
            out.append((f"{'M' if main else 'O'}{i}{k}", power_of(then(a, b), k)))
    return out


# --------------------------------------------------------------------------------------
# Transforms: S ∘ C ∘ G (decision L4)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class T:
    dihedral: tuple[str, ...]  # names, composed: the last one is applied first
    color: bool
    shift_name: str
    shift: SetMap = field(compare=False, hash=False)

    def squares(self, squares: frozenset[Square]) -> frozenset[Square]:
        for name in reversed(self.dihedral):
            squares = frozenset(DIHEDRAL[name](s) for s in squares)
        if self.color:
            squares = frozenset(DIHEDRAL["horizontal"](s) for s in squares)
        return self.shift(squares)

    def swaps_ranks_and_files(self) -> bool:
        count = sum(1 for name in self.dihedral if name in SWAPS_RANKS_AND_FILES)
        return count % 2 == 1


FLIP_KEYWORD_MAPS = {
    "flip": list(DIHEDRAL),
    "flipdihedral": list(DIHEDRAL),
    "flipdiagonal": ["identity", "diagonal"],
    "flipoffdiagonal": ["identity", "offdiagonal"],
    "fliphorizontal": ["identity", "horizontal"],
    "flipvertical": ["identity", "vertical"],
}


def transform_set(keywords: list[str]) -> list[T]:
    flips = [k for k in keywords if k in FLIP_KEYWORD_MAPS]
    shifts = {k for k in keywords if k.startswith("shift")}
    dihedrals: list[tuple[str, ...]] = [
        tuple(choice) for choice in itertools.product(*(FLIP_KEYWORD_MAPS[k] for k in flips))
    ] or [()]
    colors = [False, True] if "flipcolor" in keywords else [False]
    if "shift" in shifts or {"shifthorizontal", "shiftvertical"} <= shifts:
        shift_maps = [
            (f"{hn}{vn}", then(h, v))
            for (hn, h), (vn, v) in itertools.product(horizontal_shifts(), vertical_shifts())
        ]
    else:
        family: list[tuple[str, SetMap]] = [("0", IDENTITY_SET)]
        if "shifthorizontal" in shifts:
            family += horizontal_shifts()[1:]
        if "shiftvertical" in shifts:
            family += vertical_shifts()[1:]
        if shifts & {"shiftmaindiagonal", "shiftdiagonal"}:
            family += diagonal_shifts(True)[1:]
        if shifts & {"shiftoffdiagonal", "shiftdiagonal"}:
            family += diagonal_shifts(False)[1:]
        shift_maps = family
    return [T(g, c, name, fn) for g in dihedrals for c in colors for name, fn in shift_maps]


def transform_d(t: T, d: D) -> D:
    types = (
        d.types if d.tag is not None or not t.color else frozenset(SWAP_LETTER[x] for x in d.types)
    )
    return D(types, t.squares(d.squares), d.tag)


# --------------------------------------------------------------------------------------
# The reference form of a list: tuples of items, transformable and hashable
# --------------------------------------------------------------------------------------


def convert_list(pl: lt.PositionList) -> tuple[Any, ...]:
    return tuple(convert_item(item) for item in pl.items if not isinstance(item, lt.Comment))


def rng(r: lt.Range | None) -> tuple[float, float] | None:
    if r is None:
        return None
    return (r.lo, INF if r.hi is None else r.hi)


def convert_item(item: Any) -> tuple[Any, ...]:
    if isinstance(item, lt.Designator):
        return ("designator", designator(item))
    if isinstance(item, lt.Flag):
        return ("flag", item.keyword.value)
    if isinstance(item, lt.Transform):
        return ("transform", item.keyword.value)
    if isinstance(item, lt.PieceCount):
        return ("piececount", designator(item.designator), rng(item.range))
    if isinstance(item, lt.Power):
        return ("power", designator(item.designator), rng(item.range))
    if isinstance(item, lt.PowerDifference):
        return ("powerdifference", designator(item.designator), rng(item.range))
    if isinstance(item, lt.AttackCount):
        return (
            "attackcount",
            designator(item.attackers),
            designator(item.targets),
            rng(item.range),
        )
    if isinstance(item, lt.MoveTest):
        return ("move", item.keyword.value, designator(item.designator))
    if isinstance(item, lt.RangeTest):
        return ("range", item.keyword.value, rng(item.range))
    if isinstance(item, lt.ResultTest):
        return ("result", item.result.value)
    if isinstance(item, lt.Ray):
        return (
            "ray",
            item.keyword.value,
            tuple(designator(d) for d in item.designators),
            rng(item.range),
        )
    if isinstance(item, lt.ListOfLists):
        return ("lists", item.keyword.value, tuple(convert_list(pl) for pl in item.lists))
    if isinstance(item, lt.Accumulate):
        return ("accumulate", item.name)
    if isinstance(item, lt.TagMatch):
        return ("tagmatch", item.name, designator(item.designator))
    if isinstance(item, lt.SumRange):
        return ("sumrange", item.name, rng(item.range))
    if isinstance(item, lt.Relation):
        return ("relation", relation_spec(item))
    raise NotImplementedError(f"the reference does not evaluate {type(item).__name__}")


@dataclass(frozen=True)
class RelationSpec:
    """A relation list as semantics: S-relation states it, defaults filled in."""

    pattern: bool = False
    missing: tuple[frozenset[str], tuple[float, float]] = (frozenset("PNBRQKpnbrqk"), (0, 0))
    new: tuple[frozenset[str], tuple[float, float]] = (frozenset("PNBRQKpnbrqk"), (0, 0))
    original_different: tuple[float, float] | None = None
    original_same: tuple[float, float] | None = None
    shift: bool = False
    flip: bool = False
    side: str = "samesidetomove"
    scope: str = "mainline"


def relation_spec(item: lt.Relation) -> RelationSpec:
    fields: dict[str, Any] = {}
    for part in item.items:
        if isinstance(part, lt.RelationFlag):
            word = part.keyword.value
            if word in ("pattern", "shift", "flip"):
                fields[word] = True
            elif word.endswith("sidetomove"):
                fields["side"] = word
            else:
                fields["scope"] = word
        elif isinstance(part, lt.RelationPieceCount):
            name = "missing" if part.keyword.value == "missingpiececount" else "new"
            letters = letters_of(part.designator.types) - {EMPTY}
            fields[name] = (letters, rng(part.range))
        elif isinstance(part, lt.RelationRange):
            name = part.keyword.value.removesuffix("count").replace("original", "original_")
            fields[name] = rng(part.range)
    return RelationSpec(**fields)


def _dihedral() -> list[Callable[[Square], Square]]:
    maps = []
    for swap, fx, fy in itertools.product((False, True), repeat=3):

        def g(sq: Square, swap: bool = swap, fx: bool = fx, fy: bool = fy) -> Square:
            f, r = (sq[1], sq[0]) if swap else sq
            return (7 - f if fx else f, 7 - r if fy else r)

        maps.append(g)
    return maps


SYMMETRIES = _dihedral()


def related(spec: RelationSpec, allowable: frozenset[Square], one: Position, two: Position) -> bool:
    """P2 (``two``) stands in the relation to P1 (``one``), literally as S-relation says."""
    if spec.side != "ignoresidetomove":
        same_side = one.board.turn == two.board.turn
        if same_side != (spec.side == "samesidetomove"):
            return False
    c1, c2 = one.cells, two.cells
    if spec.original_different is not None:
        different = sum(1 for s in allowable if c1[s] != c2[s])
        if not in_rng(different, spec.original_different):
            return False
    if spec.original_same is not None:
        same = sum(1 for s in allowable if c1[s] == c2[s] != EMPTY)
        if not in_rng(same, spec.original_same):
            return False
    maps = SYMMETRIES if spec.flip else SYMMETRIES[:1]
    offsets = [(dx, dy) for dx in range(-7, 8) for dy in range(-7, 8)] if spec.shift else [(0, 0)]
    for g in maps:
        for dx, dy in offsets:
            moved: dict[Square, str] = {}
            for s, c in c2.items():
                if c != EMPTY:
                    f, r = g(s)
                    if 0 <= f + dx < 8 and 0 <= r + dy < 8:
                        moved[(f + dx, r + dy)] = c
            if _compatible(spec, allowable, c1, moved):
                return True
    return False


def _compatible(
    spec: RelationSpec,
    allowable: frozenset[Square],
    c1: dict[Square, str],
    moved: dict[Square, str],
) -> bool:
    missing = new = 0
    for s in allowable:
        a, b = c1[s], moved.get(s, EMPTY)
        if a != EMPTY and b != EMPTY and a != b:
            return False
        if a != EMPTY and b == EMPTY and a in spec.missing[0]:
            missing += 1
        if a == EMPTY and b != EMPTY and b in spec.new[0]:
            new += 1
    return in_rng(missing, spec.missing[1]) and in_rng(new, spec.new[1])


RESULT_SWAP = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1/2-1/2"}
RAY_SWAP = {"rayhorizontal": "rayvertical", "rayvertical": "rayhorizontal"}


#: Item kinds no transform changes: the transform keywords themselves, the accumulators,
#: and ``:relation`` (its counts are never transformed, L18).
UNCHANGED_KINDS = frozenset(("transform", "accumulate", "sumrange", "relation"))


def transform_item(t: T, item: tuple[Any, ...]) -> tuple[Any, ...]:
    """``item`` under ``t``; an item kind this oracle does not know is an error, never
    left untransformed."""
    kind = item[0]
    if kind in UNCHANGED_KINDS:
        return item
    if kind == "designator":
        return ("designator", transform_d(t, item[1]))
    if kind == "flag":
        if t.color and item[1] in ("wtm", "btm"):
            return ("flag", "btm" if item[1] == "wtm" else "wtm")
        return item
    if kind in ("piececount", "power"):
        return (kind, transform_d(t, item[1]), item[2])
    if kind == "powerdifference":
        lo, hi = item[2]
        return (kind, transform_d(t, item[1]), (-hi, -lo) if t.color else (lo, hi))
    if kind == "attackcount":
        return (kind, transform_d(t, item[1]), transform_d(t, item[2]), item[3])
    if kind in ("move", "tagmatch"):
        return (kind, item[1], transform_d(t, item[2]))
    if kind == "range":
        if t.color and item[1] in ("whiteelo", "blackelo"):
            return ("range", "blackelo" if item[1] == "whiteelo" else "whiteelo", item[2])
        return item
    if kind == "result":
        return ("result", RESULT_SWAP[item[1]]) if t.color else item
    if kind == "ray":
        keyword = RAY_SWAP.get(item[1], item[1]) if t.swaps_ranks_and_files() else item[1]
        return ("ray", keyword, tuple(transform_d(t, d) for d in item[2]), item[3])
    if kind == "lists":
        return ("lists", item[1], tuple(transform_list(t, nested) for nested in item[2]))
    raise NotImplementedError(f"the reference does not transform a {kind!r} item")


def transform_list(t: T, rl: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(transform_item(t, item) for item in rl)


# --------------------------------------------------------------------------------------
# A game's main line
# --------------------------------------------------------------------------------------


class Line:
    """The main line of a game: positions, the next move from each, the tags, and where
    every piece of the start position stands at each ply (for ``:forany``, semantics: S-tags)."""

    def __init__(self, game: chess.pgn.Game) -> None:
        self.headers = game.headers
        self.positions: list[Position] = []
        board = game.board()
        # A piece is named by its start square; the name follows it (castling and
        # promotion included) until it is captured.
        pieces: dict[Square, tuple[Square, str]] = {
            sq: (sq, letter)
            for sq, letter in Position(board, None).cells.items()
            if letter != EMPTY
        }
        self.pieces: list[dict[Square, tuple[Square, str]]] = []
        node: chess.pgn.GameNode = game
        while True:
            move = node.variations[0].move if node.variations else None
            self.positions.append(Position(board.copy(stack=False), move))
            self.pieces.append(dict(pieces))
            if move is None:
                break
            pieces = moved_pieces(board, move, pieces)
            node = node.variations[0]
            board.push(move)
        # Lists inside sequences never accumulate, so their result at a ply is fixed.
        self.memo: dict[tuple[Any, ...], bool] = {}

    def __len__(self) -> int:
        return len(self.positions)


def _sq(index: int) -> Square:
    return (chess.square_file(index), chess.square_rank(index))


def moved_pieces(
    board: chess.Board, move: chess.Move, pieces: dict[Square, tuple[Square, str]]
) -> dict[Square, tuple[Square, str]]:
    """Where each named piece stands after ``move``."""
    at = {square: name for name, (square, _) in pieces.items()}
    out = dict(pieces)
    origin = _sq(move.from_square)
    target = _sq(move.to_square)
    if board.is_castling(move):
        rank = origin[1]
        kingside = board.is_kingside_castling(move)
        rook_from = target if board.chess960 else ((7 if kingside else 0), rank)
        king_to, rook_to = ((6, rank), (5, rank)) if kingside else ((2, rank), (3, rank))
        king, rook = at[origin], at[rook_from]
        out[king] = (king_to, pieces[king][1])
        out[rook] = (rook_to, pieces[rook][1])
        return out
    captured = (target[0], origin[1]) if board.is_en_passant(move) else target
    if captured in at:
        del out[at[captured]]
    mover = at[origin]
    letter = pieces[mover][1]
    if move.promotion is not None:
        letter = chess.Piece(move.promotion, board.turn).symbol()
    out[mover] = (target, letter)
    return out


class View:
    """One position as the lists see it under a binding of the tags."""

    def __init__(self, pos: Position, tagged: dict[str, tuple[Square, str] | None]) -> None:
        self.pos = pos
        self.board = pos.board
        self.move = pos.move
        self.tagged = tagged

    def content(self, sq: Square) -> str:
        return self.pos.cells[sq]

    def tag_square(self, name: str) -> Square | None:
        found = self.tagged.get(name)
        return None if found is None else found[0]

    def fits(self, d: D, sq: Square) -> bool:
        if sq not in d.squares:
            return False
        if d.tag is not None:
            return self.tag_square(d.tag) == sq
        return self.content(sq) in d.types

    def matching(self, d: D) -> list[Square]:
        if d.tag is not None:
            sq = self.tag_square(d.tag)
            return [sq] if sq is not None and sq in d.squares else []
        return self.pos.matching(d)


def in_rng(value: float, r: tuple[float, float]) -> bool:
    return r[0] <= value <= r[1]


def tag_number(headers: Any, name: str) -> int | None:
    text = headers.get(name, "")
    try:
        return int(text)
    except ValueError:
        return None


# --------------------------------------------------------------------------------------
# Keywords
# --------------------------------------------------------------------------------------


def ray_squares(start: Square, step: Square) -> Iterable[list[Square]]:
    """Every run from ``start`` in direction ``step`` with at least two squares."""
    run = [start]
    f, r = start
    while True:
        f, r = f + step[0], r + step[1]
        if not (0 <= f < 8 and 0 <= r < 8):
            return
        run.append((f, r))
        yield list(run)


RAY_STEPS = {
    "ray": [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)],
    "rayattack": [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)],
    "raydiagonal": [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    "rayorthogonal": [(0, 1), (0, -1), (1, 0), (-1, 0)],
    "rayhorizontal": [(1, 0), (-1, 0)],
    "rayvertical": [(0, 1), (0, -1)],
}


def ray_valid(run: list[Square], ds: tuple[D, ...], view: View) -> bool:
    if not view.fits(ds[0], run[0]) or not view.fits(ds[-1], run[-1]):
        return False
    inner, inner_ds = run[1:-1], ds[1:-1]
    for chosen in itertools.combinations(range(len(inner)), len(inner_ds)):
        fits = all(view.fits(d, inner[j]) for j, d in zip(chosen, inner_ds, strict=True))
        others_empty = all(
            view.content(sq) == EMPTY for j, sq in enumerate(inner) if j not in chosen
        )
        if fits and others_empty:
            return True
    return False


def count_rays(keyword: str, ds: tuple[D, ...], view: View) -> int:
    total = 0
    for step in RAY_STEPS[keyword]:
        for start in view.matching(ds[0]):
            if keyword == "rayattack":
                line_pieces = "rq" if 0 in step else "bq"
                if view.content(start).lower() not in line_pieces:
                    continue
            for run in ray_squares(start, step):
                if ray_valid(run, ds, view):
                    total += 1
    return total


def destination(board: chess.Board, move: chess.Move) -> Square:
    if board.is_castling(move):
        file = 6 if board.is_kingside_castling(move) else 2
        return (file, chess.square_rank(move.from_square))
    return _sq(move.to_square)


def move_test(keyword: str, d: D, view: View) -> bool:
    board, move = view.board, view.move
    if move is None:
        return False
    origin = _sq(move.from_square)
    target = destination(board, move)
    if keyword == "movefrom":
        return view.fits(d, origin)
    if keyword == "moveto":
        # The content of the destination before the move ('.' for en passant too).
        return view.fits(d, target)
    if move.promotion is None:
        return False
    if d.tag is not None:
        return view.tag_square(d.tag) == origin and target in d.squares
    new_piece = chess.Piece(move.promotion, board.turn).symbol()
    return target in d.squares and new_piece in d.types


# --------------------------------------------------------------------------------------
# Evaluation (semantics: S-list-evaluation)
# --------------------------------------------------------------------------------------


LIST_SETTINGS = {"not", "markall", "noannotate", "variations", "variationsonly"}


@dataclass(frozen=True)
class Prepared:
    """A list split as S-list-evaluation does: the distinct transformed bases and the rest."""

    members: tuple[tuple[Any, ...], ...]
    negated: bool
    accumulate: tuple[str, ...]
    sumranges: tuple[tuple[str, tuple[float, float]], ...]


def is_base_item(item: tuple[Any, ...]) -> bool:
    if item[0] in ("transform", "sumrange"):
        return False
    if item[0] == "flag" and item[1] in LIST_SETTINGS:
        return False
    return not (item[0] == "range" and item[1] in ("matchcount", "pretransformmatchcount"))


@functools.cache
def prepare(rl: tuple[Any, ...]) -> Prepared:
    keywords = [item[1] for item in rl if item[0] == "transform"]
    base = tuple(item for item in rl if is_base_item(item))
    members = tuple(dict.fromkeys(transform_list(t, base) for t in transform_set(keywords)))
    return Prepared(
        members,
        ("flag", "not") in rl,
        tuple(item[1] for item in rl if item[0] == "accumulate"),
        tuple((item[1], item[2]) for item in rl if item[0] == "sumrange"),
    )


class Evaluator:
    """Evaluates reference lists on one game line under one binding of the tags (tag name
    → start square of the piece), with the accumulators of semantics: S-accumulators."""

    def __init__(self, line: Line, binding: dict[str, Square] | None = None) -> None:
        self.line = line
        self.binding = binding or {}
        self.acc: dict[str, int] = {}

    def view(self, i: int) -> View:
        pieces = self.line.pieces[i]
        tagged = {name: pieces.get(start) for name, start in self.binding.items()}
        return View(self.line.positions[i], tagged)

    def matches(self, rl: tuple[Any, ...], i: int) -> bool:
        prepared = prepare(rl)
        hit = False
        for member in prepared.members:
            if self.base(member, i):
                hit = True
                for name in prepared.accumulate:
                    self.acc[name] = self.acc.get(name, 0) + 1
        result = hit != prepared.negated
        for name, r in prepared.sumranges:
            if not in_rng(self.acc.get(name, 0), r):
                result = False
        return result

    def base(self, rl: tuple[Any, ...], i: int) -> bool:
        # No short-circuit: nested lists may accumulate (semantics: S-accumulators).
        results = [
            self.relation(item[1], rl, i) if item[0] == "relation" else self.item(item, i)
            for item in rl
        ]
        return all(results)

    def relation(self, spec: RelationSpec, rl: tuple[Any, ...], i: int) -> bool:
        """Some later main-line position relates to this one (L18: the allowable squares are
        those of the list's designators as the list is transformed)."""
        if spec.scope == "variationsonly":
            return False
        allowable = ALL_SQUARES
        if spec.pattern:
            allowable = frozenset(s for x in rl if x[0] == "designator" for s in x[1].squares)
        one = self.line.positions[i]
        return any(
            related(spec, allowable, one, self.line.positions[j])
            for j in range(i + 1, len(self.line))
        )

    def item(self, item: tuple[Any, ...], i: int) -> bool:
        view = self.view(i)
        kind = item[0]
        if kind == "designator":
            return bool(view.matching(item[1]))
        if kind == "flag":
            return self.flag(item[1], i)
        if kind == "piececount":
            return in_rng(len(view.matching(item[1])), item[2])
        if kind == "power":
            letters = [view.content(s) for s in view.matching(item[1])]
            return in_rng(sum(VALUES.get(x.lower(), 0) for x in letters), item[2])
        if kind == "powerdifference":
            letters = [view.content(s) for s in view.matching(item[1])]
            white = sum(VALUES[x.lower()] for x in letters if x.isupper())
            black = sum(VALUES[x.lower()] for x in letters if x.islower())
            return in_rng(white - black, item[2])
        if kind == "attackcount":
            pairs = 0
            for s in view.matching(item[1]):
                attacked = view.board.attacks(chess.square(*s))
                for t in view.matching(item[2]):
                    if chess.square(*t) in attacked:
                        pairs += 1
            return in_rng(pairs, item[3])
        if kind == "move":
            return move_test(item[1], item[2], view)
        if kind == "tagmatch":
            found = view.tagged.get(item[1])
            return found is not None and found[0] in item[2].squares and found[1] in item[2].types
        if kind == "range":
            return self.range_test(item[1], item[2], i)
        if kind == "result":
            return self.result(item[1])
        if kind == "ray":
            r = item[3] if item[3] is not None else (1, INF)
            return in_rng(count_rays(item[1], item[2], view), r)
        if kind == "lists":
            return self.lists(item[1], item[2], i)
        if kind == "accumulate":
            return True
        raise NotImplementedError(kind)

    def flag(self, name: str, i: int) -> bool:
        board = self.line.positions[i].board
        move = self.line.positions[i].move
        tests: dict[str, Callable[[], bool]] = {
            "mate": board.is_checkmate,
            "stalemate": board.is_stalemate,
            "check": board.is_check,
            "nocheck": lambda: not board.is_check(),
            "wtm": lambda: board.turn == chess.WHITE,
            "btm": lambda: board.turn == chess.BLACK,
            "initial": lambda: i == 0,
            "enpassant": lambda: move is not None and board.is_en_passant(move),
            "noenpassant": lambda: move is not None and not board.is_en_passant(move),
        }
        return tests[name]()

    def range_test(self, keyword: str, r: tuple[float, float], i: int) -> bool:
        board = self.line.positions[i].board
        headers = self.line.headers
        if keyword == "movenumber":
            number = (
                board.fullmove_number - 1 if board.turn == chess.WHITE else board.fullmove_number
            )
            return in_rng(number, r)
        if keyword in ("whiteelo", "blackelo"):
            elo = tag_number(headers, "WhiteElo" if keyword == "whiteelo" else "BlackElo")
            return elo is not None and in_rng(elo, r)
        if keyword == "elo":
            elos = [tag_number(headers, "WhiteElo"), tag_number(headers, "BlackElo")]
            return any(e is not None and in_rng(e, r) for e in elos)
        raise NotImplementedError(keyword)

    def result(self, result: str) -> bool:
        tag = self.line.headers.get("Result", "*")
        return tag == result

    def lists(self, keyword: str, lists: tuple[tuple[Any, ...], ...], i: int) -> bool:
        if keyword == "and":
            return all([self.matches(rl, i) for rl in lists])
        if keyword == "or":
            return any([self.matches(rl, i) for rl in lists])
        n = len(self.line)
        if keyword == "sequence":
            if i + len(lists) > n:
                return False
            return all(self.fixed(rl, i + k) for k, rl in enumerate(lists))
        # gappedsequence: plies i <= i1 < i2 < … (decision L21)
        return self.gapped(lists, i)

    def fixed(self, rl: tuple[Any, ...], i: int) -> bool:
        """``matches`` for a list that accumulates nothing, remembered per ply."""
        key = ("list", rl, i, tuple(sorted(self.binding.items())))
        if key not in self.line.memo:
            self.line.memo[key] = self.matches(rl, i)
        return self.line.memo[key]

    def gapped(self, lists: tuple[tuple[Any, ...], ...], start: int) -> bool:
        if not lists:
            return True
        key = ("gapped", lists, start, tuple(sorted(self.binding.items())))
        if key not in self.line.memo:
            self.line.memo[key] = any(
                self.fixed(lists[0], j) and self.gapped(lists[1:], j + 1)
                for j in range(start, len(self.line))
            )
        return self.line.memo[key]


# --------------------------------------------------------------------------------------
# Whole scripts
# --------------------------------------------------------------------------------------


Binding = dict[str, Square]


def top_list_plies(pl: lt.PositionList, line: Line, binding: Binding | None = None) -> list[int]:
    """The plies of the main line (0 = start position) where a top-level list matches."""
    rl = convert_list(pl)
    # Accumulators are reset for every position: one evaluator per ply.
    return [i for i in range(len(line)) if Evaluator(line, binding).matches(rl, i)]


def list_satisfied(pl: lt.PositionList, line: Line, binding: Binding | None = None) -> bool:
    """Whether a top-level list is satisfied for the game (semantics: S-game-matching)."""
    rl = convert_list(pl)
    for item in rl:
        if item[0] == "range" and item[1] == "matchcount":
            return in_rng(len(top_list_plies(pl, line, binding)), item[2])
        if item[0] == "range" and item[1] == "pretransformmatchcount":
            keywords = [x[1] for x in rl if x[0] == "transform"]
            rest = tuple(x for x in rl if x[0] != "transform" and x != item)
            for t in transform_set(keywords):
                member = transform_list(t, rest)
                plies = range(len(line))
                count = sum(1 for i in plies if Evaluator(line, binding).matches(member, i))
                if in_rng(count, item[2]):
                    return True
            return False
    return bool(top_list_plies(pl, line, binding))


def bindings(match: lt.MatchList, line: Line) -> list[Binding]:
    """Every binding of the ``:forany`` tags to distinct pieces of the start position
    whose type, now or after a promotion on the main line, is one the tag allows."""
    declared = [item for item in match.items if isinstance(item, lt.ForAny)]
    choices = []
    for tag in declared:
        allowed = letters_of(tag.designator.types)
        names = {
            name
            for pieces in line.pieces
            for name, (_, letter) in pieces.items()
            if letter in allowed
        }
        choices.append(sorted(name for name in names if name in line.pieces[0]))
    out = []
    for chosen in itertools.product(*choices):
        if len(set(chosen)) == len(chosen):
            out.append({tag.name: name for tag, name in zip(declared, chosen, strict=True)})
    return out


def game_conditions(match: lt.MatchList, game: chess.pgn.Game, ordinal: int) -> bool:
    headers = game.headers
    for item in match.items:
        if isinstance(item, lt.MatchResult) and headers.get("Result", "*") != item.result.value:
            return False
        if isinstance(item, lt.MatchRange):
            if item.keyword is lt.MatchRangeKeyword.GAMENUMBER:
                value: int | None = ordinal
            else:
                year = headers.get("Date", "").split(".")[0]
                value = int(year) if year.isdigit() else None
            if value is None or value not in item.range:
                return False
        if isinstance(item, lt.Player):
            names = (headers.get("White", ""), headers.get("Black", ""))
            if not any(item.name.lower() in n.lower() for n in names):
                return False
    return True


def game_matches(script: lt.Script, game: chess.pgn.Game, ordinal: int = 1) -> bool:
    if not game_conditions(script.match, game, ordinal):
        return False
    line = Line(game)
    lists = script.match.position_lists()
    return any(
        all(list_satisfied(pl, line, binding) for pl in lists)
        for binding in bindings(script.match, line)
    )


__all__ = [
    "D",
    "Evaluator",
    "Line",
    "Position",
    "View",
    "bindings",
    "convert_list",
    "game_matches",
    "list_satisfied",
    "top_list_plies",
    "transform_d",
    "transform_list",
    "transform_set",
    "unit_down",
    "unit_left",
    "unit_right",
    "unit_up",
]
