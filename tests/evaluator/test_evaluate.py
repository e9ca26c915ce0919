"""Filters of the core tree evaluated on hand-checked positions (docs/semantics.md, Part 4,
and the worked examples of S-examples).

Every expected value below was worked out by hand from the FEN (or is a documented
example of docs/semantics.md); the comments say how.
"""

from __future__ import annotations

import chess
import pytest

from cqllegacy.core.tree import (
    And,
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Between,
    Color,
    Comment,
    Compare,
    CompareOp,
    Complement,
    Compound,
    Count,
    DirectionSet,
    Elo,
    Filter,
    InRange,
    Intersection,
    Keyword,
    LegacyOnly,
    Line,
    LineStep,
    Move,
    Negate,
    Not,
    Number,
    NumericKeyword,
    NumericValue,
    Or,
    Player,
    Power,
    Ray,
    Result,
    Simple,
    TagContains,
    TagName,
    Transform,
    TransformKind,
    Union,
    XRay,
)
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.evaluator.testing import pd, position
from cqllegacy.vocab.pieces import types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction, parse_squares

K = TransformKind
START = position()


def sq(text: str) -> int:
    return parse_squares(text)


def value(filter: Filter, node: chess.pgn.GameNode = START) -> int | bool | None:
    return evaluate_filter(filter, node)


def simple(word: str) -> Simple:
    return Simple(Keyword(word))


# --------------------------------------------------------------------------------------
# S-examples E1-E10: direction filters (set identities; the board does not matter)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "lo", "hi", "source", "image"),
    [
        (Direction.UP, 1, 1, "d4", "d5"),  # 1
        (Direction.UP, 2, 2, "d4", "d6"),  # 2
        (Direction.UP, 3, 3, "d4", "d7"),  # 2
        (Direction.UP, 1, 3, "d4", "d5-7"),  # 3
        (Direction.UP, 1, 7, "d4", "d5-8"),  # 4: the default range
        (Direction.DOWN, 1, 1, "d4", "d3"),  # 5
        (Direction.DOWN, 1, 7, "d4", "d1-3"),  # 5
        (Direction.LEFT, 1, 1, "[d4,e5]", "[c4,d5]"),  # 6
        (Direction.LEFT, 1, 7, "[d4,e5]", "[a-c4,a-d5]"),  # 6
        (Direction.RIGHT, 1, 7, "a1-8", "b-h1-8"),  # 7
        (Direction.RIGHT, 1, 1, "a-h2", "b-h2"),  # 8: h2 falls off and just drops
        (Direction.RIGHT, 6, 7, "a-h2", "[g2,h2]"),  # 9
        (Direction.UP, -2, -2, "d4", "d2"),  # 10
        (Direction.RIGHT, -1, 1, "d4", "c-e4"),  # 10
        (Direction.DIAGONAL, 1, 1, "a1", "b2"),
        (Direction.ORTHOGONAL, 1, 1, "d4", "[c4,e4,d3,d5]"),
    ],
)
def test_direction_filters(direction: Direction, lo: int, hi: int, source: str, image: str) -> None:
    assert value(DirectionSet(direction, pd(source), lo, hi)) == sq(image)


def test_default_direction_range_is_one_to_seven() -> None:
    assert DirectionSet(Direction.UP, pd("d4")) == DirectionSet(Direction.UP, pd("d4"), 1, 7)


def test_knight_squares_by_flipping_directions() -> None:  # 26
    knight_steps = Transform(
        K.FLIP,
        DirectionSet(Direction.NORTHEAST, DirectionSet(Direction.UP, pd("Q"), 1, 1), 1, 1),
    )
    node = position("4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1")
    assert value(knight_steps, node) == sq("[c6,e6,b5,f5,b3,f3,c2,e2]")


# --------------------------------------------------------------------------------------
# S-examples E38-E47: sets and counts
# --------------------------------------------------------------------------------------


def test_start_position_counts() -> None:  # 38
    assert value(Count(pd("K"))) == 1
    assert value(Count(pd("[Kk]"))) == 2
    assert value(Count(AttackedBy(pd("P"), pd("K")))) == 3  # d2, e2, f2


def test_piece_designators_on_the_start_position() -> None:
    assert value(pd("Ke1")) == sq("e1")
    assert value(pd("Ke2")) == 0
    assert value(pd("_")) == sq("a-h3-6")
    assert value(pd("A")) == sq("a-h1-2")
    assert value(pd("[Qq]")) == sq("[d1,d8]")
    assert value(pd("[Pp_]d1-8")) == sq("d2-7")
    assert value(pd(".")) == sq("a-h1-8")
    assert value(pd("[]")) == 0


def test_set_operators() -> None:
    assert value(Union((pd("K"), pd("k")))) == sq("[e1,e8]")
    assert value(Intersection((pd("A"), pd("a-h2")))) == sq("a-h2")
    assert value(Complement(pd("[Aa]"))) == sq("a-h3-6")


def test_set_compared_with_a_number_is_its_size() -> None:  # 39
    two_queens = position("4k3/8/8/8/8/8/8/Q2QK3 w - - 0 1")
    one_queen = position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    more_than_one = Compare(CompareOp.GT, pd("Q"), Number(1))
    counted = Compare(CompareOp.GT, Count(pd("Q")), Number(1))
    assert value(more_than_one, two_queens) is value(counted, two_queens) is True
    assert value(more_than_one, one_queen) is value(counted, one_queen) is False


@pytest.mark.parametrize(("pawns", "expected"), [(2, False), (3, True), (5, True), (6, False)])
def test_pawn_count_range(pawns: int, expected: bool) -> None:  # 40: 2<P<=5
    rank = "P" * pawns + str(8 - pawns) if pawns < 8 else "P" * 8
    node = position(f"4k3/8/8/8/8/8/{rank}/4K3 w - - 0 1")
    assert value(InRange(pd("P"), 3, 5), node) is expected


def test_double_check() -> None:  # 41, 32
    # Black rook e8 (file clear) and knight d3 both attack the white king on e1.
    node = position("r3r2k/8/8/8/8/3n4/8/4K3 w - - 0 1")
    assert value(Count(Attacks(pd("a"), pd("K"))), node) == 2
    double_check_of_black = Compare(CompareOp.GT, Attacks(pd("A"), pd("k")), Number(1))
    assert value(double_check_of_black, node) is False
    assert value(Transform(K.REVERSECOLOR, double_check_of_black), node) is True
    either = Transform(K.FLIPCOLOR, Compare(CompareOp.EQ, Number(2), Attacks(pd("A"), pd("k"))))
    assert value(either, node) is True


def test_squares_next_to_the_black_king() -> None:  # 42
    node = position("7k/6p1/8/8/8/8/8/4K3 w - - 0 1")
    # Occupied g7 counts: a piece attacks squares of its own side.
    assert value(AttackedBy(pd("."), pd("k")), node) == sq("[g8,g7,h7]")


def test_between() -> None:  # 43
    assert value(Between(pd("a1"), pd("c3"))) == sq("b2")
    assert value(Between(pd("a1"), pd("h7"))) == 0
    assert value(Between(pd("[a1,a8]"), pd("h8"))) == sq("[b-g8,b2,c3,d4,e5,f6,g7]")


def test_every_white_piece_attacked() -> None:  # 45, `A in S` written as `A & S == A`
    def all_attacked(node: chess.pgn.GameNode) -> int | bool | None:
        attacked = AttackedBy(pd("."), pd("a"))
        return value(Compare(CompareOp.EQ, Intersection((pd("A"), attacked)), pd("A")), node)

    # White: Ke1 next to the black queen e2 (attacked), Na1 attacked by the black bishop b2.
    assert all_attacked(position("7k/8/8/8/8/8/1b2q3/N3K3 w - - 0 1")) is True
    assert all_attacked(position("7k/8/8/8/8/8/1b2q3/N5K1 w - - 0 1")) is False


def test_power() -> None:  # 46, 37
    assert value(Power(pd("A"))) == 39  # 8 + 2*3 + 2*3 + 2*5 + 9
    node = position("4k3/8/8/8/8/8/8/R2QK3 w - - 0 1")
    assert value(Compare(CompareOp.GE, Power(pd("A")), Number(15)), node) is False  # 14
    assert value(Transform(K.FLIPCOLOR, Power(pd("A"))), node) == 14
    black_ahead = position("r2qk3/pp6/8/8/8/8/8/4K3 w - - 0 1")
    assert value(Transform(K.FLIPCOLOR, Power(pd("A"))), black_ahead) == 16


def test_arithmetic() -> None:
    node = position("r2qk3/pp6/8/8/8/8/8/R3K3 w - - 0 1")
    difference = Arith(ArithOp.SUB, Power(pd("A")), Power(pd("a")))
    assert value(difference, node) == 5 - 16
    assert value(Negate(difference), node) == 11
    assert value(Arith(ArithOp.ADD, pd("a"), Number(1)), node) == 6  # five black pieces


@pytest.mark.parametrize("optimize", [True, False])
def test_a_sum_of_thousands_of_terms(optimize: bool) -> None:
    # What an accumulated list with a big orbit becomes (one term per transformed list):
    # compiling and evaluating it must not exhaust Python's recursion limit.
    total: Filter = Count(pd("K"))
    for i in range(3000):
        term = Count(pd("[Pp]")) if i % 2 else Number(-1)
        total = Arith(ArithOp.ADD if i % 3 else ArithOp.SUB, total, term)
    expected = 1 + sum((1 if i % 3 else -1) * (16 if i % 2 else -1) for i in range(3000))
    assert evaluate_filter(total, position(), optimize=optimize) == expected


# --------------------------------------------------------------------------------------
# Attacks, rays, xrays (semantics: S-attacks)
# --------------------------------------------------------------------------------------

PINNED = "4r2k/8/8/8/8/8/R3N3/4K3 w - - 0 1"  # Ne2 pinned by the rook e8 to Ke1


def test_attacks_ignore_pins_and_include_own_pieces() -> None:
    node = position(PINNED)
    assert value(Attacks(pd("N"), pd("d4")), node) == sq("e2")
    assert value(Attacks(pd("R"), pd("N")), node) == sq("a2")  # a rook defends its knight
    assert value(AttackedBy(pd("N"), pd("r")), node) == sq("e2")
    assert value(Attacks(pd("K"), pd("e2")), node) == sq("e1")


def test_pawns_attack_diagonally_forward_only() -> None:
    node = position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    assert value(AttackedBy(pd("."), pd("P")), node) == sq("[d3,f3]")


def test_ray_pin_and_battery() -> None:
    node = position("k7/8/8/8/3r4/8/8/3QK3 b - - 0 1")
    assert value(Ray((pd("Q"), pd("r"))), node) == sq("d4")
    assert value(Ray((pd("Q"), pd("k"))), node) == 0  # the queen does not see a8
    battery = position("3k4/8/3q4/8/8/3R4/8/3RK3 b - - 0 1")
    assert value(Ray((pd("R"), pd("R"), pd("q"), pd("k")), Direction.ORTHOGONAL), battery) == sq(
        "d8"
    )
    assert value(Ray((pd("R"), pd("q")), Direction.DIAGONAL), battery) == 0


def test_ray_takes_distinct_squares_in_order_over_empty_ones() -> None:
    node = position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    # From a1 up the empty file, every square of a2-8 is a possible end.
    assert value(Ray((pd("R"), pd("a2-8")), Direction.UP), node) == sq("a2-8")
    assert value(Ray((pd("R"), pd("_"), pd("_")), Direction.RIGHT), node) == sq("c-d1")


def test_xray() -> None:  # 44
    pin = position("k7/8/8/8/n7/8/8/R3K3 w - - 0 1")  # Ra1, na4, ka8
    assert value(XRay((pd("R"), pd("a"), pd("k"))), pin) == sq("a8")
    off_line = position("1k6/8/8/8/n7/8/8/R3K3 w - - 0 1")  # the king is not on the file
    assert value(XRay((pd("R"), pd("a"), pd("k"))), off_line) == 0
    two_blockers = position("k7/8/p7/8/n7/8/8/R3K3 w - - 0 1")
    assert value(XRay((pd("R"), pd("a"), pd("k"))), two_blockers) == 0
    knight_is_no_line_piece = position("k7/8/8/8/n7/8/8/N3K3 w - - 0 1")
    assert value(XRay((pd("N"), pd("a"), pd("k"))), knight_is_no_line_piece) == 0
    bishop = position("7k/8/8/4n3/8/8/8/B3K3 w - - 0 1")  # Ba1, ne5, kh8 on the diagonal
    assert value(XRay((pd("A"), pd("a"), pd("k"))), bishop) == sq("h8")


# --------------------------------------------------------------------------------------
# Position filters: check, mate, stalemate (incl. en passant), side to move
# --------------------------------------------------------------------------------------

MIRROR_MATE = "8/8/7R/Q2k4/8/3K4/8/8 b - - 0 1"  # Qa5+ on the rank, Kd3 and Rh6 cover the rest
BACK_RANK_MATE = "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"
EP_ONLY = "7k/5K2/6P1/8/3pP3/3B4/8/8 b - e3 0 1"  # ...dxe3 e.p. is Black's only move


def test_mate_and_check() -> None:
    assert value(simple("mate"), position(MIRROR_MATE)) is True
    assert value(simple("check"), position(MIRROR_MATE)) is True
    assert value(simple("stalemate"), position(MIRROR_MATE)) is False
    assert value(simple("check")) is False
    assert value(simple("mate"), position(BACK_RANK_MATE)) is True


def test_mirror_mate() -> None:  # 49
    mirror = Transform(
        K.FLIPCOLOR,
        Compound(
            (
                simple("btm"),
                simple("mate"),
                Compare(CompareOp.EQ, AttackedBy(pd("_"), pd("k")), Number(8)),
            )
        ),
    )
    assert value(mirror, position(MIRROR_MATE)) is True
    assert value(mirror, position(BACK_RANK_MATE)) is False  # f7 g7 h7 are occupied


def test_stalemate_with_only_an_en_passant_reply() -> None:
    assert value(simple("stalemate"), position(EP_ONLY)) is False
    without_ep = EP_ONLY.replace(" e3 ", " - ")
    assert value(simple("stalemate"), position(without_ep)) is True


def test_flipcolor_stalemate() -> None:  # 35
    # Black: ka8; White: Qb6 covers a7, b7, b8 and Na6 is the [rNQ] piece on a6.
    node = position("k7/8/NQ6/8/8/8/8/4K3 b - - 0 1")
    body = Compound((pd("[Rnq]a3"), simple("wtm"), simple("stalemate")))
    assert value(body, node) is False
    assert value(Transform(K.FLIPCOLOR, body), node) is True


def test_side_to_move_and_logic() -> None:
    assert value(simple("wtm")) is True
    assert value(simple("btm")) is False
    assert value(And((simple("wtm"), pd("Ke1")))) is True
    assert value(Or((simple("btm"), pd("Ke2")))) is False
    assert value(Not(pd("Ke2"))) is True
    assert value(Comment("anything")) is True
    assert value(simple("true")) is True and value(simple("false")) is False


def test_compound_value_is_that_of_the_last_filter() -> None:
    assert value(Compound((simple("wtm"), pd("[Kk]")))) == sq("[e1,e8]")
    assert value(Compound((simple("btm"), pd("[Kk]")))) == 0
    assert value(Compound((simple("btm"), Count(pd("K"))))) is None
    assert value(Compound(())) is True
    # A comment at its place changes nothing, not even the value of a compound.
    assert value(Compound((pd("[Kk]"), Comment("kings")))) == sq("[e1,e8]")
    assert value(Union((pd("K"), Comment("or")))) == sq("e1")
    assert value(Or((Comment("x"), simple("btm")))) is False
    assert value(LegacyOnly(Count(pd("k")))) == 1


def test_transform_values() -> None:  # semantics: S-orbits
    assert value(Transform(K.FLIPCOLOR, pd("Pa2"))) == sq("[a2,a7]")  # 30
    assert value(Transform(K.REVERSECOLOR, pd("Ke1"))) == sq("e8")  # 31
    assert value(Transform(K.FLIP, pd("a1"))) == sq("[a1,h1,a8,h8]")  # 22
    # A numeric argument takes the maximum; count the number of matching members.
    assert value(Transform(K.SHIFTHORIZONTAL, Count(pd("Pa-d2")))) == 4
    assert value(Transform(K.FLIP, pd("Ka1"), count=True)) == 0
    assert value(Transform(K.FLIP, Compound((pd("Ka1"), simple("btm"))))) == 0


def test_flip_kings_in_opposite_corners() -> None:  # 21
    kings = Transform(K.FLIP, Compound((pd("Ka1"), pd("kh8"))))
    assert value(kings, position("k7/8/8/8/8/8/8/7K w - - 0 1")) == sq("a8")
    assert value(kings, position("1k6/8/8/8/8/8/8/7K w - - 0 1")) == 0


@pytest.mark.parametrize(
    ("fen", "corners"),
    [
        ("r3k2R/8/8/8/8/8/8/R3K2r w - - 0 1", 4),
        ("r3k2R/8/8/8/8/8/8/R3K3 w - - 0 1", 3),
    ],
)
def test_rooks_in_every_corner(fen: str, corners: int) -> None:  # 28
    counted = Transform(K.FLIP, pd("[Rr]a1"), count=True)
    node = position(fen)
    assert value(counted, node) == corners
    assert value(Compare(CompareOp.EQ, Number(4), counted), node) is (corners == 4)


def test_pieces_attacking_an_enemy_queen() -> None:  # 36
    # The white knight c3 attacks the black queen d5; the black bishop b3 attacks the
    # white queen a4; the queens do not see each other.
    node = position("4k3/8/8/3q4/Q7/1bN5/8/4K3 w - - 0 1")
    assert value(Transform(K.FLIPCOLOR, Attacks(pd("A"), pd("q"))), node) == sq("[c3,b3]")


# --------------------------------------------------------------------------------------
# The move filter
# --------------------------------------------------------------------------------------

CASTLE = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


def move(**kwargs: object) -> Move:
    return Move(**kwargs)  # type: ignore[arg-type]


def test_move_from_to_and_capture() -> None:
    before = position(moves="e4 d5")  # White to play exd5 next
    after = before.add_main_variation(chess.Move.from_uci("e4d5"))
    assert value(move(from_=pd("Pe4"), to=pd("pd5")), before) is True
    assert value(move(capture=pd("d5")), before) is True
    assert value(move(capture=pd("e4")), before) is False
    assert value(move(from_=pd("Pd2")), before) is False
    assert value(move(), after) is False  # no next move
    assert value(move(previous=True, from_=pd("Pe4"), capture=pd("p")), after) is True
    assert value(move(previous=True), START) is False


def test_castling_destination_is_the_kings_square() -> None:
    node = position(CASTLE)
    node.add_main_variation(chess.Move.from_uci("e1g1"))
    assert value(move(from_=pd("Ke1"), to=pd("g1")), node) is True
    assert value(move(to=pd("h1")), node) is False
    assert value(move(capture=pd(".")), node) is False


def test_chess960_castling_king_takes_rook() -> None:
    node = position(CASTLE, chess960=True)
    board = node.board()
    node.add_main_variation(board.parse_san("O-O-O"))
    assert node.variations[0].move == chess.Move.from_uci("e1a1")
    assert value(move(to=pd("c1")), node) is True
    assert value(move(to=pd("a1")), node) is False
    assert value(move(capture=pd(".")), node) is False


def test_en_passant() -> None:
    node = position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    node.add_main_variation(chess.Move.from_uci("e5d6"))
    assert value(move(enpassant=True), node) is True
    assert value(move(to=pd("_d6")), node) is True  # the destination is empty
    assert value(move(capture=pd("pd5")), node) is True  # the pawn beside it is taken
    assert value(move(capture=pd("d6")), node) is False
    plain = position(moves="e4")
    plain.add_main_variation(chess.Move.from_uci("e7e5"))
    assert value(move(enpassant=True), plain) is False


def test_promotion_types_carry_colour() -> None:
    node = position("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    node.add_main_variation(chess.Move.from_uci("b7b8n"))
    assert value(move(promote=types_of("N")), node) is True
    assert value(move(promote=types_of("RBN")), node) is True
    assert value(move(promote=types_of("Q")), node) is False
    assert value(move(promote=types_of("n")), node) is False
    assert value(move(promote=types_of("N"), to=pd("b8")), node) is True
    assert value(move(promote=types_of("Q")), position()) is False


# --------------------------------------------------------------------------------------
# Numbers from the game: movenumber (L8), ply, year and elo (L9), player (L10)
# --------------------------------------------------------------------------------------

MOVENUMBER = NumericValue(NumericKeyword.MOVENUMBER)
PLY = NumericValue(NumericKeyword.PLY)


def test_movenumber_and_ply_from_the_normal_start() -> None:
    assert value(MOVENUMBER) == 0 and value(PLY) == 0
    assert value(MOVENUMBER, position(moves="e4")) == 1
    assert value(MOVENUMBER, position(moves="e4 e5")) == 1
    assert value(MOVENUMBER, position(moves="e4 e5 Nf3")) == 2
    assert value(PLY, position(moves="e4 e5 Nf3")) == 3


def test_movenumber_from_a_black_to_move_fen() -> None:
    fen = "4k3/8/8/8/8/8/8/4K3 b - - 0 12"
    assert value(MOVENUMBER, position(fen)) == 12  # Black to move: the full-move number
    assert value(MOVENUMBER, position(fen, "Kd7")) == 12  # White to move in move 13
    assert value(MOVENUMBER, position(fen, "Kd7 Kd2")) == 13
    assert value(PLY, position(fen, "Kd7 Kd2")) == 2


YEAR = NumericValue(NumericKeyword.YEAR)


@pytest.mark.parametrize(
    ("date", "year"),
    [
        ("1972.07.11", 1972),
        ("1972.??.??", 1972),
        ("????.??.??", None),
        ("19??.??.??", None),
        ("\u00b9\u00b9.01.01", None),  # superscript digits: str.isdigit, not a number
        ("\u0661\u0669\u0667\u0662.01.01", None),  # PGN dates are written in ASCII
    ],
)
def test_year(date: str, year: int | None) -> None:
    assert value(YEAR, position(headers={"Date": date})) == year


def test_missing_year_fails_a_range_and_its_negation_holds() -> None:
    node = position(headers={"Date": "????.??.??"})
    assert value(InRange(YEAR, 1900, 2100), node) is False
    assert value(Not(InRange(YEAR, 1900, 2100)), node) is True


def test_elo() -> None:  # 47
    rated = position(headers={"WhiteElo": "2700", "BlackElo": "2650"})
    assert value(Elo(Color.WHITE), rated) == 2700
    assert value(Elo(Color.BLACK), rated) == 2650
    assert value(Elo(), rated) == 2700
    half = position(headers={"WhiteElo": "2700", "BlackElo": "?"})
    assert value(Elo(Color.BLACK), half) is None
    assert value(Elo(), half) is None
    assert value(InRange(Elo(Color.BLACK), 0, None), half) is False
    assert value(Elo(Color.WHITE), position(headers={"WhiteElo": "abc"})) is None
    assert value(Elo(Color.WHITE), position(headers={"WhiteElo": "\u00b2\u00b2"})) is None
    assert value(Elo(Color.WHITE), START) is None


def test_player_case_and_colour() -> None:
    node = position(headers={"White": "Kasparov, Garry", "Black": "Karpov, Anatoly"})
    assert value(Player("Kasparov"), node) is True
    assert value(Player("kasparov"), node) is False
    assert value(Player("kasparov", ignore_case=True), node) is True
    assert value(Player("Kasparov", Color.BLACK), node) is False
    assert value(Player("Karpov", Color.BLACK), node) is True
    assert value(Player("KARPOV", Color.WHITE, ignore_case=True), node) is False


def test_result_and_tags() -> None:
    won = position(headers={"Result": "1-0", "Event": "World Ch", "Site": "Reykjavik ISL"})
    assert value(Result(GameResult.WHITE_WINS), won) is True
    assert value(Result(GameResult.DRAW), won) is False
    assert value(Transform(K.REVERSECOLOR, Result(GameResult.BLACK_WINS)), won) is True
    unknown = position(headers={"Result": "*"})
    assert not any(value(Result(r), unknown) for r in GameResult)
    assert value(TagContains(TagName.EVENT, "World"), won) is True
    assert value(TagContains(TagName.SITE, "reykjavik"), won) is False


def test_game_filters_under_flipcolor() -> None:  # 48
    body = Transform(
        K.FLIPCOLOR,
        Compound(
            (
                Player("Ivanchuk", Color.WHITE),
                InRange(Elo(Color.BLACK), 2000, None),
                Result(GameResult.WHITE_WINS),
            )
        ),
    )
    as_black = {"White": "X", "Black": "Ivanchuk, V", "WhiteElo": "2100", "Result": "0-1"}
    assert value(body, position(headers=as_black)) is True
    weak = {**as_black, "WhiteElo": "1900"}
    assert value(body, position(headers=weak)) is False
    lost = {**as_black, "Result": "1-0"}
    assert value(body, position(headers=lost)) is False


def test_kbn_mate() -> None:  # 50: terminal mate flipcolor {A == K a == 3 b == 1 n == 1}
    # White Kh1 mated: be4 checks through f3/g2, kf2 covers g1/g2, nf1 covers h2.
    node = position("8/8/8/8/4b3/8/5k2/5n1K w - - 0 1")
    body = Compound(
        (
            simple("terminal"),
            simple("mate"),
            Transform(
                K.FLIPCOLOR,
                Compound(
                    (
                        Compare(CompareOp.EQ, pd("A"), pd("K")),
                        Compare(CompareOp.EQ, pd("a"), Number(3)),
                        Compare(CompareOp.EQ, pd("b"), Number(1)),
                        Compare(CompareOp.EQ, pd("n"), Number(1)),
                    )
                ),
            ),
        )
    )
    assert value(body, node) is True
    node_with_pawn = position("8/8/8/8/4b3/8/P4k2/5n1K w - - 0 1")
    assert value(body, node_with_pawn) is False


def test_check_answered_by_mate() -> None:  # 51: line --> check --> mate
    # White (Kc7) is in check from the rook e7 and answers Qxe7#.
    node = position("4k3/2K1r2Q/8/8/8/8/8/4R3 w - - 0 1")
    node.add_main_variation(chess.Move.from_uci("h7e7"))
    line = Line((LineStep(simple("check")), LineStep(simple("mate"))))
    assert value(line, node) is True
    assert value(line, node.variations[0]) is False
    assert value(line, position(MIRROR_MATE)) is False
