"""The array bitboard kernels (:mod:`cqllegacy.vocab.bitarrays`) against python-chess,
one position at a time, at every main-line position of the fixture games, of seeded
random playouts (promotions, castling, Chess960, en passant, FEN starts), of random
placements (pieces on any square, pawns on the back ranks, several kings) and of
hand-made edge positions; set maps against :mod:`cqllegacy.vocab.squares`."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqllegacy.vocab import bitarrays as ba
from cqllegacy.vocab import squares

ROOT = Path(__file__).resolve().parents[2]

#: Starts of the random playouts: promotions with captures on both sides, castling
#: both ways, en passant at once, a black start, a Chess960 start.
STARTS = (
    (chess.STARTING_FEN, False),
    ("r3k2r/pPppppPp/8/8/8/8/PpPPPPpP/R3K2R w KQkq - 0 1", False),
    ("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 12", False),
    ("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 7 37", False),
    ("bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1", True),
)

#: Pieces on the rims and corners, a pinned knight and bishop (pins change no attack),
#: double check, a king attacked by a pawn of each side, sliders blocked by their own
#: side, an empty board but kings, kings only on the edges.
EDGES = (
    "Q6Q/8/8/8/8/8/8/Q3K2Q w - - 0 1",
    "n6n/1p4p1/8/8/8/8/1P4P1/N6N b - - 0 1",
    "4k3/8/8/1b6/8/3N4/8/5K2 w - - 0 1",
    "4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1",
    "4k3/8/8/8/8/5n2/8/4K2r w - - 0 1",
    "8/8/8/3k4/4P3/8/2p5/3K4 b - - 0 1",
    "8/8/8/3k4/4P3/8/2p5/3K4 w - - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "k7/8/8/8/8/8/8/7K w - - 0 1",
    "7k/P7/8/8/8/8/p7/K7 b - - 0 1",
    "B6b/8/8/3qQ3/3Rr3/8/8/b6B w - - 0 1",
)


def main_line_boards(game: chess.pgn.Game) -> list[chess.Board]:
    board = game.board()
    boards = [board.copy(stack=False)]
    for move in game.mainline_moves():
        board.push(move)
        boards.append(board.copy(stack=False))
    return boards


@functools.cache
def fixture_boards() -> list[chess.Board]:
    boards: list[chess.Board] = []
    with open(ROOT / "fixtures" / "games.pgn", encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            boards += main_line_boards(game)
    return boards


def playout_boards(seed: int, games: int) -> list[chess.Board]:
    """Random legal games from :data:`STARTS`, promotions and captures preferred."""
    rng = random.Random(seed)
    boards = []
    for number in range(games):
        fen, chess960 = STARTS[number % len(STARTS)]
        board = chess.Board(fen, chess960=chess960)
        boards.append(board.copy(stack=False))
        for _ in range(rng.randrange(10, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            eager = [m for m in moves if m.promotion or board.is_capture(m)]
            board.push(rng.choice(eager if eager and rng.random() < 0.5 else moves))
            boards.append(board.copy(stack=False))
    return boards


def placement_boards(seed: int, count: int) -> list[chess.Board]:
    """Pieces on random squares: any number of each, pawns on the back ranks too."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = chess.Board.empty()
        for square in rng.sample(chess.SQUARES, rng.randrange(0, 33)):
            piece = chess.Piece(rng.choice(chess.PIECE_TYPES), rng.random() < 0.5)
            board.set_piece_at(square, piece)
        board.turn = rng.random() < 0.5
        boards.append(board)
    return boards


@functools.cache
def every_board() -> tuple[chess.Board, ...]:
    return tuple(
        fixture_boards()
        + playout_boards(seed=31, games=60)
        + placement_boards(seed=32, count=1500)
        + [chess.Board(fen) for fen in EDGES]
    )


@pytest.fixture(scope="module")
def boards() -> tuple[chess.Board, ...]:
    found = every_board()
    assert len(found) > 5_000
    return found


@pytest.fixture(scope="module")
def placement(boards: tuple[chess.Board, ...]) -> ba.PlacementArrays:
    return ba.PlacementArrays.of_boards(boards)


@pytest.fixture(scope="module")
def white_to_move(boards: tuple[chess.Board, ...]) -> np.ndarray:
    return np.array([board.turn for board in boards], dtype=bool)


def ints(values: np.ndarray) -> list[int]:
    return [int(v) for v in values]


def each_square(count: int, square: int) -> ba.Bitboards:
    return np.full(count, 1 << square, dtype=np.uint64)


# --------------------------------------------------------------------------------------
# The positions are what they should be
# --------------------------------------------------------------------------------------


def test_the_positions_hold_what_the_kernels_must_meet(boards: tuple[chess.Board, ...]) -> None:
    """Promotions, castling, en passant, Chess960, checks and rim pieces are there."""
    assert sum(board.is_check() for board in boards) > 100
    assert sum(board.ep_square is not None for board in boards) > 10
    assert sum(board.chess960 for board in boards) > 100
    assert sum(len(board.pieces(chess.QUEEN, chess.WHITE)) > 1 for board in boards) > 10
    assert sum(bool(board.pawns & chess.BB_BACKRANKS) for board in boards) > 100
    assert sum(len(board.pieces(chess.KING, board.turn)) > 1 for board in boards) > 100


# --------------------------------------------------------------------------------------
# Attacks
# --------------------------------------------------------------------------------------


def kernel_attacks(p: ba.Placement, piece_type: int, color: bool) -> ba.Bitboards:
    """The squares the pieces of ``piece_type`` and ``color`` attack, by the kernels."""
    pieces = ba.pieces_mask(p, piece_type, color)
    occupied = p.white | p.black
    if piece_type == chess.PAWN:
        return ba.pawn_attacks(color, pieces)
    if piece_type == chess.KNIGHT:
        return ba.knight_attacks(pieces)
    if piece_type == chess.KING:
        return ba.king_attacks(pieces)
    sliders = {
        chess.BISHOP: ba.bishop_attacks,
        chess.ROOK: ba.rook_attacks,
        chess.QUEEN: ba.queen_attacks,
    }
    return sliders[piece_type](pieces, occupied)


def chess_attacks(board: chess.Board, piece_type: int, color: bool) -> int:
    found = 0
    for square in board.pieces(piece_type, color):
        found |= board.attacks_mask(square)
    return found


@pytest.mark.parametrize("color", chess.COLORS, ids=chess.COLOR_NAMES)
@pytest.mark.parametrize("piece_type", chess.PIECE_TYPES, ids=chess.PIECE_NAMES[1:])
def test_attacks_of_each_piece_type_and_colour(
    boards: tuple[chess.Board, ...], placement: ba.PlacementArrays, piece_type: int, color: bool
) -> None:
    found = ints(kernel_attacks(placement, piece_type, color))
    assert found == [chess_attacks(board, piece_type, color) for board in boards]


def lone_attacks(
    piece_type: int, lone: ba.Bitboards, white: np.ndarray, occupied: ba.Bitboards
) -> ba.Bitboards:
    """The attacks of ``lone`` (one piece of ``piece_type`` or none per position)."""
    if piece_type == chess.PAWN:
        return np.where(
            white, ba.pawn_attacks(chess.WHITE, lone), ba.pawn_attacks(chess.BLACK, lone)
        )
    if piece_type == chess.KNIGHT:
        return ba.knight_attacks(lone)
    if piece_type == chess.KING:
        return ba.king_attacks(lone)
    sliders = {
        chess.BISHOP: ba.bishop_attacks,
        chess.ROOK: ba.rook_attacks,
        chess.QUEEN: ba.queen_attacks,
    }
    return sliders[piece_type](lone, occupied)


def test_attacks_of_each_piece_alone(
    boards: tuple[chess.Board, ...], placement: ba.PlacementArrays
) -> None:
    """Each piece's own attacks (a union can hide a square another piece covers)."""
    occupied = placement.white | placement.black
    kinds = (placement.pawns, placement.knights, placement.bishops, placement.rooks,
             placement.queens, placement.kings)  # fmt: skip
    for square in chess.SQUARES:
        one = each_square(len(boards), square)
        white = (placement.white & one) != 0
        found = np.zeros(len(boards), dtype=np.uint64)
        for piece_type, having in zip(chess.PIECE_TYPES, kinds, strict=True):
            lone = having & one
            found |= lone_attacks(piece_type, lone, white, occupied)
        assert ints(found) == [board.attacks_mask(square) for board in boards], square


def test_attackers_of_each_square(
    boards: tuple[chess.Board, ...], placement: ba.PlacementArrays
) -> None:
    for square in chess.SQUARES:
        target = each_square(len(boards), square)
        for color in chess.COLORS:
            expected = [board.attackers_mask(color, square) for board in boards]
            where = (chess.square_name(square), color)
            assert ints(ba.attackers(placement, color, target)) == expected, where
            squares = np.full(len(boards), square)
            assert ints(ba.attackers_of_square(placement, color, squares)) == expected, where


def test_attackers_of_a_set(boards: tuple[chess.Board, ...], placement: ba.PlacementArrays) -> None:
    rng = random.Random(33)
    targets = [rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64) for _ in boards]
    for color in chess.COLORS:
        found = ints(ba.attackers(placement, color, ba.bitboards(targets)))
        expected = []
        for board, target in zip(boards, targets, strict=True):
            union = 0
            for square in chess.SquareSet(target):
                union |= board.attackers_mask(color, square)
            expected.append(union)
        assert found == expected


@pytest.mark.parametrize("kind", ["kings", "one square or none", "sets"])
def test_either_colours_attackers_by_lookups_and_by_fills(
    boards: tuple[chess.Board, ...], placement: ba.PlacementArrays, kind: str
) -> None:
    """A target of at most one square a position is answered by lookups, a larger one by
    fills: both are python-chess's attackers of either colour."""
    rng = random.Random(34)
    if kind == "kings":
        targets = [int(board.kings) for board in boards]
        targets = [t & -t if rng.random() < 0.5 else t & (t - 1) for t in targets]
    elif kind == "one square or none":
        targets = [0 if rng.random() < 0.2 else 1 << rng.randrange(64) for _ in boards]
    else:
        targets = [rng.getrandbits(64) & rng.getrandbits(64) for _ in boards]
    found = ints(ba.either_attackers(placement, ba.bitboards(targets)))
    expected = []
    for board, target in zip(boards, targets, strict=True):
        union = 0
        for square in chess.SquareSet(target):
            union |= board.attackers_mask(chess.WHITE, square)
            union |= board.attackers_mask(chess.BLACK, square)
        expected.append(union)
    assert found == expected


def test_attackers_of_one_set_for_all(placement: ba.PlacementArrays) -> None:
    """One target set broadcasts over every position."""
    one = np.asarray(np.uint64(chess.BB_E4))
    each = each_square(len(placement.white), chess.E4)
    assert ints(ba.attackers(placement, chess.WHITE, one)) == ints(
        ba.attackers(placement, chess.WHITE, each)
    )


@pytest.mark.parametrize("color", chess.COLORS, ids=chess.COLOR_NAMES)
def test_squares_attacked_by_a_side(
    boards: tuple[chess.Board, ...], placement: ba.PlacementArrays, color: bool
) -> None:
    expected = []
    for board in boards:
        union = 0
        for square in chess.SquareSet(board.occupied_co[color]):
            union |= board.attacks_mask(square)
        expected.append(union)
    assert ints(ba.attacked_by(placement, color)) == expected


def test_check_and_checkers(
    boards: tuple[chess.Board, ...], placement: ba.PlacementArrays, white_to_move: np.ndarray
) -> None:
    assert ints(ba.checkers(placement, white_to_move)) == [b.checkers_mask() for b in boards]
    assert ba.is_check(placement, white_to_move).tolist() == [b.is_check() for b in boards]


def test_slider_lookups_from_each_square(placement: ba.PlacementArrays) -> None:
    """Rook and bishop attacks from one square per position (lookups) against
    python-chess's tables, over the placements' occupancies and random ones, from every
    square and from none (-1)."""
    rng = random.Random(36)
    occupancies = ints(placement.white | placement.black)[::3]
    occupancies += [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(300)]
    occupied = ba.bitboards(occupancies)
    for square in [-1, *chess.SQUARES]:
        squares = np.full(len(occupancies), square)
        rooks, bishops = [], []
        for occ in occupancies:
            if square < 0:
                rooks.append(0)
                bishops.append(0)
                continue
            rank = chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occ]
            file = chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occ]
            rooks.append(rank | file)
            bishops.append(chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occ])
        assert ints(ba.rook_attacks_from(squares, occupied)) == rooks, square
        assert ints(ba.bishop_attacks_from(squares, occupied)) == bishops, square


@pytest.mark.parametrize(
    ("files", "ranks"), [(f, r) for f in (-1, 0, 1) for r in (-1, 0, 1) if f or r]
)
def test_a_slide_stops_at_the_first_piece(files: int, ranks: int) -> None:
    """:func:`slide` against its definition, square by square, from every square over
    random occupancies."""
    rng = random.Random(files * 3 + ranks)
    origins, occupancies, expected = [], [], []
    for square in chess.SQUARES:
        for _ in range(20):
            occupied = rng.getrandbits(64) & rng.getrandbits(64)
            reach = 0
            f, r = chess.square_file(square) + files, chess.square_rank(square) + ranks
            while 0 <= f < 8 and 0 <= r < 8:
                reach |= 1 << chess.square(f, r)
                if occupied >> chess.square(f, r) & 1:
                    break
                f, r = f + files, r + ranks
            origins.append(1 << square)
            occupancies.append(occupied)
            expected.append(reach)
    found = ba.slide(ba.bitboards(origins), ba.bitboards(occupancies), files, ranks)
    assert ints(found) == expected


# --------------------------------------------------------------------------------------
# Shifts and symmetries
# --------------------------------------------------------------------------------------


@functools.cache
def sample_sets() -> tuple[int, ...]:
    """Sets of every kind: the placements' sets, the rims, random ones."""
    rng = random.Random(34)
    found = {0, chess.BB_ALL, chess.BB_FILE_A, chess.BB_FILE_H, chess.BB_RANK_1}
    found |= {chess.BB_RANK_8, chess.BB_CORNERS, chess.BB_BACKRANKS}
    found |= {chess.BB_FILE_A | chess.BB_FILE_H | chess.BB_RANK_1 | chess.BB_RANK_8}
    for board in every_board()[::23]:
        found |= {board.pawns, board.kings, board.occupied, board.occupied_co[0]}
    found |= {rng.getrandbits(64) for _ in range(500)}
    return tuple(sorted(found))


@pytest.mark.parametrize("files", range(-8, 9))
def test_shift_by_files_and_ranks(files: int) -> None:
    sets = sample_sets()
    arrays = ba.bitboards(sets)
    for ranks in range(-8, 9):
        expected = [squares.step(bb, files, ranks) for bb in sets]
        assert ints(ba.shift(arrays, files, ranks)) == expected, (files, ranks)


ONE_STEPS: tuple[tuple[Callable[[ba.Bitboards], ba.Bitboards], Callable[[int], int]], ...] = (
    (ba.shift_up, chess.shift_up),
    (ba.shift_down, chess.shift_down),
    (ba.shift_left, chess.shift_left),
    (ba.shift_right, chess.shift_right),
    (ba.shift_up_left, chess.shift_up_left),
    (ba.shift_up_right, chess.shift_up_right),
    (ba.shift_down_left, chess.shift_down_left),
    (ba.shift_down_right, chess.shift_down_right),
)


@pytest.mark.parametrize(("kernel", "one"), ONE_STEPS, ids=lambda v: getattr(v, "__name__", ""))
def test_one_step_shifts(
    kernel: Callable[[ba.Bitboards], ba.Bitboards], one: Callable[[int], int]
) -> None:
    sets = sample_sets()
    assert ints(kernel(ba.bitboards(sets))) == [one(bb) for bb in sets]


@pytest.mark.parametrize("transform", list(squares.Dihedral), ids=lambda d: d.label)
def test_dihedral_maps(transform: squares.Dihedral) -> None:
    sets = sample_sets()
    found = ints(ba.dihedral(transform, ba.bitboards(sets)))
    assert found == [transform.map_set(bb) for bb in sets]


FLIPS = (
    (ba.flip_vertical, chess.flip_vertical),
    (ba.flip_horizontal, chess.flip_horizontal),
    (ba.flip_diagonal, chess.flip_diagonal),
    (ba.flip_anti_diagonal, chess.flip_anti_diagonal),
)


@pytest.mark.parametrize(("kernel", "one"), FLIPS, ids=lambda v: getattr(v, "__name__", ""))
def test_flips_as_python_chess_names_them(
    kernel: Callable[[ba.Bitboards], ba.Bitboards], one: Callable[[int], int]
) -> None:
    sets = sample_sets()
    assert ints(kernel(ba.bitboards(sets))) == [one(bb) for bb in sets]


def test_colour_swap() -> None:
    sets = sample_sets()
    assert ints(ba.color_swap_set(ba.bitboards(sets))) == [
        squares.color_swap_set(bb) for bb in sets
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, chess.BB_ALL), min_size=1, max_size=20), st.sampled_from(
    list(squares.Dihedral)
))  # fmt: skip
def test_maps_of_any_sets(values: list[int], transform: squares.Dihedral) -> None:
    arrays = ba.bitboards(values)
    assert ints(ba.dihedral(transform, arrays)) == [transform.map_set(v) for v in values]
    assert ints(ba.shift(arrays, 2, -3)) == [squares.step_by_square(v, 2, -3) for v in values]


# --------------------------------------------------------------------------------------
# Counting and squares
# --------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, chess.BB_ALL), min_size=1, max_size=30))
def test_popcount_msb_lsb(values: list[int]) -> None:
    arrays = ba.bitboards(values)
    counts = [v.bit_count() for v in values]
    assert ba.popcount(arrays).tolist() == counts
    assert ba._popcount_swar(arrays).tolist() == counts
    assert ba.msb(arrays).tolist() == [chess.msb(v) if v else -1 for v in values]
    assert ba.lsb(arrays).tolist() == [chess.lsb(v) if v else -1 for v in values]


def test_popcount_of_every_set() -> None:
    sets = sample_sets() + tuple((1 << n) - 1 for n in range(65))
    arrays = ba.bitboards(sets)
    counts = [bb.bit_count() for bb in sets]
    assert ba.popcount(arrays).tolist() == counts
    assert ba._popcount_swar(arrays).tolist() == counts
    assert ba.msb(arrays).tolist() == [chess.msb(bb) if bb else -1 for bb in sets]
    assert ba.lsb(arrays).tolist() == [chess.lsb(bb) if bb else -1 for bb in sets]


def test_between_and_rays_of_every_pair() -> None:
    pairs = [(a, b) for a in [-1, *chess.SQUARES] for b in [-1, *chess.SQUARES]]
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    valid = [a >= 0 and b >= 0 for a, b in pairs]
    assert ints(ba.between(first, second)) == [
        chess.between(a, b) if ok else 0 for (a, b), ok in zip(pairs, valid, strict=True)
    ]
    assert ints(ba.ray(first, second)) == [
        chess.ray(a, b) if ok else 0 for (a, b), ok in zip(pairs, valid, strict=True)
    ]


def test_squares_and_membership() -> None:
    rng = random.Random(35)
    sets = list(sample_sets())
    chosen = [rng.randrange(-1, 64) for _ in sets]
    assert ints(ba.square_bits(np.array(chosen))) == [
        chess.BB_SQUARES[s] if s >= 0 else 0 for s in chosen
    ]
    found = ba.contains(ba.bitboards(sets), np.array(chosen, dtype=np.int8))
    assert found.tolist() == [
        s >= 0 and bool(bb >> s & 1) for bb, s in zip(sets, chosen, strict=True)
    ]


def test_popcount_without_numpy_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy 1.26 (the lowest pinned) has no ``bitwise_count``: the fallback answers."""
    monkeypatch.setattr(ba, "_bitwise_count", None)
    sets = sample_sets()
    assert ba.popcount(ba.bitboards(sets)).tolist() == [bb.bit_count() for bb in sets]
    assert ba.msb(ba.bitboards(sets)).tolist() == [chess.msb(bb) if bb else -1 for bb in sets]
