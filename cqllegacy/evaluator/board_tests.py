"""Filters the board alone decides, as functions of a python-chess board.

* :func:`attack_count` and :func:`attack_count_in_range`: ``#(L attacks R)`` for two
  piece designators (attacks as python-chess's ``Board.attacks_mask`` gives them:
  pins ignored, own pieces attacked — decision L6).
* :func:`board_test`: one function of the board for a list body that is a conjunction of
  piece atoms and attack counts in a range, or a disjunction of such (a ``flipcolor``
  orbit of ``:attackcount`` lists): the live stream then tests it on python-chess's own
  board, without a context.

Two exact shortcuts make attack counts cheap:

* **Leapers.** When L holds knights, kings and pawns only, the attackers of a square are
  read from python-chess's attack tables (a knight on s attacks t exactly when one on t
  attacks s; a white pawn on s attacks t when a black pawn on t attacks s).
* **The king of the side that just moved.** python-chess reads only legal moves, so after
  a move no enemy piece attacks the king of the side that made it.  Counting enemy
  attacks on that king (when it is its side's only king, the one python-chess's
  legality protects) gives 0 without looking at the board.  A start position, and one
  reached by a null move, are counted in full: neither promises anything.

>>> from cqllegacy.evaluator.testing import pd
>>> board = chess.Board("4k3/8/8/8/4N3/8/8/4RK2 w - - 0 1")
>>> double_check = attack_count_in_range(pd("A"), pd("k"), 2, None)
>>> double_check(board), board.push_san("Nd6"), double_check(board)
(False, Move.from_uci('e4d6'), True)
>>> attack_count(pd("a"), pd("K"))(board)  # white just moved: its king is safe
0
>>> illegal = chess.Board("4k3/8/8/8/8/8/4r3/4K3 b - - 0 1")  # no move promises anything
>>> attack_count(pd("r"), pd("K"))(illegal)
1
"""

from __future__ import annotations

from collections.abc import Callable

import chess

from cqllegacy.core.tree import (
    Arith,
    ArithOp,
    Attacks,
    Count,
    Filter,
    InRange,
    PieceSet,
)
from cqllegacy.evaluator.analysis import closed_range, conjuncts
from cqllegacy.evaluator.atoms import (
    Atom,
    BoardCheck,
    board_check,
    disjunction_members,
    exact_atoms,
    necessary_atoms,
    pure_disjunction,
)
from cqllegacy.evaluator.masks import kinds, mask_function
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    WHITE_PIECES,
    TypeSet,
    types_of,
)
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = [
    "BoardCount",
    "attack_count",
    "attack_count_in_range",
    "attack_sum",
    "attackers_of",
    "attacking",
    "board_test",
    "plain_pieces",
    "single_square_attack",
    "sum_terms",
]

Board = chess.Board
BoardCount = Callable[[Board], int]

#: The attack tables a leaper of each kind is read from, by board attribute and colour:
#: a piece of that kind on ``s`` attacks ``t`` exactly when ``t``'s entry holds ``s``.
_LEAPER_TABLES: dict[tuple[str, chess.Color], list[int]] = {
    ("knights", chess.WHITE): chess.BB_KNIGHT_ATTACKS,
    ("knights", chess.BLACK): chess.BB_KNIGHT_ATTACKS,
    ("kings", chess.WHITE): chess.BB_KING_ATTACKS,
    ("kings", chess.BLACK): chess.BB_KING_ATTACKS,
    ("pawns", chess.WHITE): chess.BB_PAWN_ATTACKS[chess.BLACK],
    ("pawns", chess.BLACK): chess.BB_PAWN_ATTACKS[chess.WHITE],
}

_KINGS = {types_of("K"): chess.WHITE, types_of("k"): chess.BLACK}


def plain_pieces(node: Filter) -> bool:
    """A piece designator that names some but not all contents of a square."""
    return isinstance(node, PieceSet) and node.types not in (0, ANYTHING)


def attackers_of(board: Board, square: int, among: int = FULL) -> int:
    """The pieces on ``among`` that attack ``square``: the squares ``a`` of ``among`` with
    ``square`` in ``board.attacks_mask(a)`` (tested equal to that definition).

    >>> format(attackers_of(chess.Board(), chess.F3), "064b").count("1")
    3
    """
    out = 0
    if among & board.occupied_co[chess.WHITE]:
        out = board.attackers_mask(chess.WHITE, square)
    if among & board.occupied_co[chess.BLACK]:
        out |= board.attackers_mask(chess.BLACK, square)
    return out & among


def attacking(board: Board, attackers: int, targets: int) -> int:
    """The squares of ``attackers`` whose piece attacks some square of ``targets``."""
    out = 0
    if targets.bit_count() <= attackers.bit_count():
        for sq in iter_squares(targets):
            out |= attackers_of(board, sq, attackers)
        return out
    for sq in iter_squares(attackers):
        if board.attacks_mask(sq) & targets:
            out |= 1 << sq
    return out


def _leaper_reach(types: TypeSet) -> list[int] | None:
    """For each square t, the squares from which a piece of ``types`` attacks t, when
    every kind ``types`` names is a leaper read from one table (knights of both colours,
    say); None otherwise: a table read for one kind would count the pieces of another."""
    tables = [_LEAPER_TABLES.get(kind) for kind in kinds(types)]
    first = tables[0] if tables else None
    if first is None or any(table is not first for table in tables):
        return None
    return first


def _safe_king_color(left: PieceSet, right: PieceSet) -> chess.Color | None:
    """The colour C when ``right`` is C's king and ``left`` holds C's enemies only: then a
    board whose last move was C's counts 0 (see the module's docstring)."""
    color = _KINGS.get(right.types)
    if color is None:
        return None
    enemies = BLACK_PIECES if color == chess.WHITE else WHITE_PIECES
    return color if left.types & ~enemies == 0 else None


def _single_target_counter(left: PieceSet) -> Callable[[Board, int, int], int]:
    """``count(board, target, attackers)``: how many of ``attackers`` attack ``target``."""
    reach = _leaper_reach(left.types)
    if reach is not None:
        table = reach
        return lambda board, target, attackers: (table[target] & attackers).bit_count()
    for side, pieces in ((chess.WHITE, WHITE_PIECES), (chess.BLACK, BLACK_PIECES)):
        if left.types & ANY_PIECE & ~pieces == 0:
            return lambda board, target, attackers: (
                board.attackers_mask(side, target) & attackers
            ).bit_count()
    white, black = chess.WHITE, chess.BLACK

    def count(board: Board, target: int, attackers: int) -> int:
        found = 0
        if attackers & board.occupied_co[white]:
            found = board.attackers_mask(white, target)
        if attackers & board.occupied_co[black]:
            found |= board.attackers_mask(black, target)
        return (found & attackers).bit_count()

    return count


def attack_count(left: PieceSet, right: PieceSet) -> BoardCount:
    """``#(L attacks R)``: how many pieces of L attack some piece of R.

    >>> from cqllegacy.evaluator.testing import pd
    >>> attack_count(pd("N"), pd("p"))(chess.Board("8/8/2p1p3/8/3N4/8/8/K6k w - - 0 1"))
    1
    """
    attackers_mask, attacker_squares = mask_function(left.types), left.squares
    targets_mask, target_squares = mask_function(right.types), right.squares
    single = _single_target_counter(left)

    def count(board: Board) -> int:
        targets = targets_mask(board) & target_squares
        if not targets:
            return 0
        attackers = attackers_mask(board) & attacker_squares & board.occupied
        if not attackers:
            return 0
        if targets & (targets - 1):
            return attacking(board, attackers, targets).bit_count()
        return single(board, targets.bit_length() - 1, attackers)

    king_color = _safe_king_color(left, right)
    if king_color is None:
        return count

    def count_unless_moved_last(board: Board) -> int:
        # Inline, not a call: this runs at every position of every game.
        if board.turn != king_color and board.move_stack:
            last = board.move_stack[-1]
            kings = board.kings & board.occupied_co[king_color]
            # python-chess's legality guards a king only when it is the only one, not
            # promoted; a null move (from == to) guards nothing.
            if (
                last.from_square != last.to_square
                and not kings & (kings - 1)
                and not kings & board.promoted
            ):
                return 0
        return count(board)

    return count_unless_moved_last


def attack_count_in_range(
    left: PieceSet, right: PieceSet, lo: int | None, hi: int | None
) -> BoardCheck:
    """``lo <= #(L attacks R) <= hi`` (either bound None: no limit), in one function."""
    low, high = closed_range(lo, hi)
    count = attack_count(left, right)
    king_color = _safe_king_color(left, right)
    if king_color is None:
        return lambda board: low <= count(board) <= high
    return _king_attacks_in_range(left, right, king_color, low, high, count)


def _king_attacks_in_range(
    left: PieceSet, right: PieceSet, color: chess.Color, low: int, high: int, count: BoardCount
) -> BoardCheck:
    """:func:`attack_count_in_range` on ``color``'s king by its enemies, in one function
    (``count`` for the unusual boards: several kings): the usual question of a double
    check or a knight fork, asked at every position."""
    attackers_mask, attacker_squares = mask_function(left.types), left.squares
    target_squares = right.squares
    zero_in_range = low <= 0 <= high
    reach = _leaper_reach(left.types)
    enemy = not color

    def king_attacks_in_range(board: Board) -> bool:
        kings = board.kings & board.occupied_co[color]
        targets = kings & target_squares
        if not targets:
            return zero_in_range
        if kings & (kings - 1):
            return low <= count(board) <= high
        if board.turn == enemy and board.move_stack and not kings & board.promoted:
            last = board.move_stack[-1]
            if last.from_square != last.to_square:  # not a null move
                return zero_in_range  # see the module's docstring
        target = targets.bit_length() - 1
        near = reach[target] if reach is not None else board.attackers_mask(enemy, target)
        return low <= (near & attackers_mask(board) & attacker_squares).bit_count() <= high

    return king_attacks_in_range


def attack_sum(left: PieceSet, types: TypeSet, squares: int) -> BoardCount:
    """Σ over the squares s of ``squares`` of ``#(L attacks T@s)``: for each attacker in L,
    the number of its attacked squares holding T there.

    >>> from cqllegacy.evaluator.testing import pd
    >>> fork = attack_sum(pd("N"), types_of("rq"), FULL)
    >>> fork(chess.Board("8/8/2r1q3/8/3N4/8/8/K6k w - - 0 1"))
    2
    """
    attackers_mask, attacker_squares = mask_function(left.types), left.squares
    pieces = mask_function(types)

    def total(board: Board) -> int:
        targets = pieces(board) & squares
        if not targets:
            return 0
        count = 0
        for sq in iter_squares(attackers_mask(board) & attacker_squares & board.occupied):
            count += (board.attacks_mask(sq) & targets).bit_count()
        return count

    return total


# --------------------------------------------------------------------------------------
# Whole list bodies
# --------------------------------------------------------------------------------------


def sum_terms(node: Filter) -> list[Filter]:
    """The terms of a sum ``a + b + …`` (``node`` itself when it is no sum)."""
    if isinstance(node, Arith) and node.op is ArithOp.ADD:
        return sum_terms(node.left) + sum_terms(node.right)
    return [node]


def single_square_attack(term: Filter) -> tuple[Filter, TypeSet, int] | None:
    """``#(L attacks T@s)`` with one square s, as (L, T, s); None for other terms."""
    if not (isinstance(term, Count) and isinstance(term.arg, Attacks)):
        return None
    target = term.arg.right
    if isinstance(target, PieceSet) and target.squares.bit_count() == 1:
        return term.arg.left, target.types, target.squares
    return None


def _board_sum(value: Filter) -> BoardCount | None:
    """A sum of ``#(L attacks T@s)`` over distinct single squares s, one piece designator
    L and one type set T (how the translator writes ``:attackcount`` on several
    targets), as a function of the board."""
    terms = [single_square_attack(term) for term in sum_terms(value)]
    if len(terms) < 2 or any(term is None for term in terms):
        return None
    left, types, squares = terms[0]  # type: ignore[misc]
    if not plain_pieces(left):
        return None
    for term in terms[1:]:
        assert term is not None
        if term[:2] != (left, types) or squares & term[2]:
            return None
        squares |= term[2]
    assert isinstance(left, PieceSet)
    return attack_sum(left, types, squares)


def board_count(node: Filter) -> BoardCount | None:
    """``#(L attacks R)`` of piece designators, or a sum of such counts over distinct
    single target squares, as a function of the board (None: neither).

    The one place these patterns are recognised: the compile rules of the game tree and
    the live stream's list bodies both use what it gives.
    """
    if isinstance(node, Count) and isinstance(node.arg, Attacks):
        pair = _plain_pair(node.arg)
        return None if pair is None else attack_count(*pair)
    return _board_sum(node)


def _plain_pair(node: Attacks) -> tuple[PieceSet, PieceSet] | None:
    """The two piece designators of ``L attacks R`` when both are plain ones."""
    left, right = node.left, node.right
    if isinstance(left, PieceSet) and isinstance(right, PieceSet):
        return (left, right) if plain_pieces(left) and plain_pieces(right) else None
    return None


def board_condition(node: Filter) -> BoardCheck | None:
    """A count of attacks in a range, as a function of the board (None: not one)."""
    if not isinstance(node, InRange):
        return None
    value = node.value
    if isinstance(value, Count) and isinstance(value.arg, Attacks):
        pair = _plain_pair(value.arg)
        return None if pair is None else attack_count_in_range(*pair, node.lo, node.hi)
    count = _board_sum(value)
    if count is None:
        return None
    low, high = closed_range(node.lo, node.hi)
    return lambda board: low <= count(board) <= high


def _conjunction(member: Filter) -> BoardCheck | None:
    """All conjuncts of ``member`` as one function of the board: its piece atoms (and the
    pieces its attack counts need, when there are several) first, then the counts."""
    atoms: list[Atom] = []
    needed: list[Atom] = []
    conditions: list[BoardCheck] = []
    for item in conjuncts(member):
        exact = exact_atoms(item)
        if exact is not None:
            atoms.extend(exact)
            continue
        condition = board_condition(item)
        if condition is None:
            return None
        needed.extend(necessary_atoms(item))
        conditions.append(condition)
    if atoms or len(conditions) > 1:
        # A failing piece test is far cheaper than any count of attacks.
        atoms.extend(needed)
    check = board_check(atoms)
    tests = tuple(([check] if check is not None else []) + conditions)
    if len(tests) == 1:
        return tests[0]

    def conjunction(board: Board) -> bool:
        for test in tests:  # noqa: SIM110 (all() over a generator is slower per position)
            if not test(board):
                return False
        return True

    return conjunction


def _disjunction(node: Filter) -> BoardCheck | None:
    members = list(dict.fromkeys(disjunction_members(node)))
    tests: list[BoardCheck] = []
    for member in members:
        test = _conjunction(member)
        if test is None:
            return None
        tests.append(test)
    if len(tests) == 1:
        return tests[0]
    tests_tuple = tuple(tests)

    def disjunction(board: Board) -> bool:
        for test in tests_tuple:  # noqa: SIM110 (any() over a generator is slower per position)
            if test(board):
                return True
        return False

    return disjunction


def board_test(node: Filter) -> BoardCheck | None:
    """A function of the board alone that says whether ``node`` matches, when the node is
    a conjunction of piece atoms and attack counts in ranges, or a disjunction of such;
    None otherwise.

    >>> from cqllegacy.evaluator.testing import pd
    >>> from cqllegacy.core.tree import Transform, TransformKind
    >>> knight_check = InRange(Count(Attacks(pd("N"), pd("k"))), 1, None)
    >>> test = board_test(Transform(TransformKind.FLIPCOLOR, knight_check))
    >>> test(chess.Board("8/8/8/2n5/8/3K4/8/7k w - - 0 1")), test(chess.Board())
    (True, False)
    """
    atoms = exact_atoms(node)
    if atoms is not None:
        return board_check(atoms) or _always
    pure = pure_disjunction(node)
    if pure is not None:
        return pure
    return _disjunction(node)


def _always(board: Board) -> bool:
    return True
