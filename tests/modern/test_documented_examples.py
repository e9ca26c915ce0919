"""Independent checks of the modern side: documented CQL 6.1 one-liners and examples for
piece variables, ``echo``, ``:``, positional intersection, ``sidetomove``, ``ancestor``,
``mainline``/``variation``, ``in``, grouped ``line`` constituents and direction filters,
read from their CQL text and run on games written here by hand (semantics: S-echo,
S-piece-variables, S-move-and-line, S-directions, M6, M7, M8, M10).

Nothing here goes through the translator.  Every expected answer was worked out by hand
from the moves (plies count from 0, the start position); where python-chess can say the
fact an answer rests on (two boards equal, a move is en passant, the squares a queen
attacks), the test asks it too.  Each query runs on both evaluator paths.
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest

from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.modern import print_query, read_query
from tests.support.modern import assert_cql


def game(pgn: str) -> chess.pgn.Game:
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and not read.errors, pgn
    return read


def setup(fen: str, moves: str) -> chess.pgn.Game:
    return game(f'[FEN "{fen}"]\n[SetUp "1"]\n\n{moves} *\n')


def _path(node: chess.pgn.GameNode) -> str:
    moves = []
    while node.parent is not None:
        moves.append(node.san())
        node = node.parent
    return " ".join(reversed(moves))


def matches(text: str, g: chess.pgn.Game) -> list[str]:
    """The positions where the CQL 6.1 script ``text`` matches, each as the moves that
    lead there ("" is the start position), in game order; both evaluator paths agree, and
    the script prints as text that chessql parses and that reads back the same."""
    query = read_query(text)
    printed = print_query(query)
    assert_cql(printed)
    assert read_query(printed) == query
    found = []
    for optimize in (True, False):
        result = compile_query(query, optimize=optimize).evaluate(g, 1)
        found.append([_path(node) for node in result.lists[0].positions] if result.matched else [])
    assert found[0] == found[1], text
    return found[0]


def plies(text: str, g: chess.pgn.Game) -> list[int]:
    return [len(path.split()) for path in matches(text, g)]


def boards(g: chess.pgn.Game) -> list[chess.Board]:
    return [g.board(), *(node.board() for node in g.mainline())]


# --------------------------------------------------------------------------------------
# echo (s t) s&t == . — a position that occurs twice
# --------------------------------------------------------------------------------------

# The knights go out and back: the boards of plies 0 and 4, and of 1 and 5, are equal
# (same side to move each time).
KNIGHTS = game("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *")

# The white king walks a triangle (e1-e2-d1-e1) while the black knight goes out and back:
# the boards of plies 0 and 5, and of 2 and 7, are equal with the other side to move.
TRIANGLE = setup("4k1n1/8/8/8/8/8/P7/4K3 w - - 0 1", "1. Ke2 Nf6 2. Kd1 Ng8 3. Ke1 Nf6 4. Ke2")


def _twins(g: chess.pgn.Game, same_side: bool | None) -> list[int]:
    """python-chess: the plies whose board (and side to move, when asked) recurs."""
    positions = boards(g)
    out = []
    for i, board in enumerate(positions):
        for j, other in enumerate(positions):
            same_board = i != j and board.board_fen() == other.board_fen()
            if same_board and (same_side is None or (board.turn == other.turn) == same_side):
                out.append(i)
                break
    return out


def test_python_chess_sees_the_repeated_boards() -> None:
    assert _twins(KNIGHTS, None) == [0, 1, 4, 5]
    assert _twins(TRIANGLE, None) == [0, 2, 5, 7]
    assert _twins(TRIANGLE, True) == []


def test_echo_finds_a_position_that_occurs_twice() -> None:
    text = "cql() echo (s t) s&t == ."
    assert plies(text, KNIGHTS) == _twins(KNIGHTS, None) == [0, 1, 4, 5]
    assert plies(text, TRIANGLE) == [0, 2, 5, 7]


def test_sidetomove_equal_to_the_source_keeps_the_same_side() -> None:
    text = "cql() echo (s t) {s&t == . sidetomove == s:sidetomove}"
    assert plies(text, KNIGHTS) == _twins(KNIGHTS, True) == [0, 1, 4, 5]
    assert plies(text, TRIANGLE) == _twins(TRIANGLE, True) == []
    changed = "cql() echo (s t) {s&t == . sidetomove != s:sidetomove}"
    assert plies(changed, TRIANGLE) == _twins(TRIANGLE, False) == [0, 2, 5, 7]


def test_echo_has_no_later_unless_asked() -> None:
    # echo looks at earlier positions too; `s < t` keeps the later ones only.
    assert plies("cql() echo (s t) {s < t s&t == .}", KNIGHTS) == [0, 1]
    assert plies("cql() echo (s t) {t < s s&t == .}", KNIGHTS) == [4, 5]
    assert plies("cql() echo (s t) {ancestor(s t) s&t == .}", KNIGHTS) == [0, 1]


def test_echo_in_all_also_tries_the_source() -> None:
    assert plies("cql() echo (s t) in all s&t == .", KNIGHTS) == [0, 1, 2, 3, 4, 5]
    assert plies("cql() echo (s t) in all {s == t}", KNIGHTS) == [0, 1, 2, 3, 4, 5]
    assert plies("cql() echo (s t) {s == t}", KNIGHTS) == []


def test_positional_intersection_of_the_start_and_1_e4_e5() -> None:
    # 60 squares: all but e2, e4, e7 and e5.
    g = game("1. e4 e5 *")
    assert plies("cql() echo (s t) #(s & t) == 60", g) == [0, 2]
    assert plies("cql() echo (s t) {#(s & t) == 60 s:initial (s & t) in ~[e2,e4,e7,e5]}", g) == [0]
    start, after = boards(g)[0], boards(g)[2]
    same = [sq for sq in chess.SQUARES if start.piece_at(sq) == after.piece_at(sq)]
    assert len(same) == 60


def test_sidetomove_values() -> None:
    assert plies("cql() sidetomove == 1", KNIGHTS) == [0, 2, 4]
    assert plies("cql() sidetomove == -1", KNIGHTS) == [1, 3, 5]
    # Transforms leave sidetomove alone (M9): the colour flip adds nothing.
    assert plies("cql() flipcolor {sidetomove == 1}", KNIGHTS) == [0, 2, 4]


def test_colon_evaluates_at_the_other_position() -> None:
    # Somewhere else a white knight stands on f3 while it is not there now.
    assert plies("cql() echo (s t) {not s:Nf3 Nf3}", KNIGHTS) == [0, 3, 4]
    # The move played from the source was a knight move to f3.
    assert plies("cql() echo (s t) in all {s == t s:(move from N to f3)}", KNIGHTS) == [0, 4]


# --------------------------------------------------------------------------------------
# Piece variables (M6): promotion, castling, en passant
# --------------------------------------------------------------------------------------

# The a-pawn captures its way to b8 and promotes there; the h-pawn never moves.
PROMOTION = setup(
    "r3k3/1p6/8/8/8/8/P6P/4K3 w - - 0 1",
    "1. a4 Kd7 2. a5 Kd6 3. a6 Kd5 4. axb7 Kd4 5. bxa8=Q Ke3",
)


def test_python_chess_sees_the_promotion() -> None:
    g = PROMOTION
    promotion = list(g.mainline())[8]
    assert promotion.move.promotion == chess.QUEEN
    assert chess.square_name(promotion.move.from_square) == "b7"
    assert boards(g)[9].piece_at(chess.A8) == chess.Piece(chess.QUEEN, chess.WHITE)


def test_a_promoting_pawn_keeps_its_identity() -> None:
    text = "cql() piece Promoting in Pa-h2 find Promoting&a-h8"
    # Only while the a-pawn still stands on a2: the start position.
    assert plies(text, PROMOTION) == [0]
    # Its value is the a2 square alone: the h-pawn never reaches the eighth rank.
    assert plies("cql() (piece Promoting in Pa-h2 find Promoting&a-h8) == a2", PROMOTION) == [0]
    # The pawn is followed from a4 on, through the capture on b7 (ply 7) to the queen on
    # a8 (ply 9); once it is a queen it is no longer in the domain P.
    assert plies("cql() piece pawn in P find pawn & b7", PROMOTION) == list(range(9))
    assert plies("cql() piece pawn in P find {pawn & Qa8}", PROMOTION) == list(range(9))
    # Does every white pawn promote? No: the h-pawn stays.
    assert plies("cql() piece all pawn in P find pawn & a-h8", PROMOTION) == []
    # With no pawn left on a-g (plies 9 and 10) every binding holds: there is none.
    assert plies("cql() piece all pawn in P[a-g1-8] find pawn & a-h8", PROMOTION) == list(range(11))


# White castles short, Black long.
CASTLING = game("1. e4 d5 2. Nf3 Qd6 3. Be2 Bd7 4. O-O Nc6 5. d3 O-O-O *")


def test_castling_keeps_the_rooks_identities() -> None:
    assert plies("cql() piece rook in Rh1 find rook & f1", CASTLING) == list(range(7))
    assert plies("cql() piece rook in ra8 find rook & d8", CASTLING) == list(range(10))
    assert plies("cql() piece king in Ke1 find king & g1", CASTLING) == list(range(7))
    # The a1 rook does not castle.
    assert plies("cql() piece rook in Ra1 find not rook & a1", CASTLING) == []


# 1. e4 a6 2. e5 d5 3. exd6 (en passant): the d-pawn leaves the board, the e-pawn is on d6.
EN_PASSANT = game("1. e4 a6 2. e5 d5 3. exd6 *")


def test_en_passant_removes_the_captured_pawn() -> None:
    capture = list(EN_PASSANT.mainline())[4]
    assert boards(EN_PASSANT)[4].is_en_passant(capture.move)
    # The black d-pawn's variable is empty after the capture.
    assert plies("cql() piece x in pd5 find #x == 0", EN_PASSANT) == [4]
    assert plies("cql() piece x in pd7 find #x == 0", EN_PASSANT) == [0, 1, 2, 3]
    # The capturing pawn keeps its identity on d6.
    assert plies("cql() piece y in Pe2-5 find y & d6", EN_PASSANT) == [0, 1, 2, 3, 4]


def test_a_piece_variable_is_a_set_at_any_position() -> None:
    # Bound at the start position, read at later ones through echo and `:`.
    text = "cql() initial piece y in Pe2 echo (s t) {s < t t:(y & e5)}"
    assert plies(text, EN_PASSANT) == [0]
    text = "cql() piece y in Pe2 echo (s t) {s < t t:(#y == 1) t:(y & d6)}"
    assert plies(text, EN_PASSANT) == [0]


# --------------------------------------------------------------------------------------
# mainline, variation, ancestor and position order (M7, M8)
# --------------------------------------------------------------------------------------

BRANCHES = game("1. e4 (1. d4 d5 2. c4) 1... e5 2. Nf3 *")


def test_mainline_and_variation() -> None:
    assert matches("cql(variations) variation", BRANCHES) == ["d4", "d4 d5", "d4 d5 c4"]
    assert matches("cql(variations) mainline", BRANCHES) == ["", "e4", "e4 e5", "e4 e5 Nf3"]
    # Without `variations` only main-line positions are examined.
    assert matches("cql() variation", BRANCHES) == []


def test_ancestor_and_position_order_across_branches() -> None:
    # From which positions is a later position with a black pawn on d5 reached?
    on_the_line = "cql(variations) echo (s t) {ancestor(s t) not s == t t:pd5}"
    assert matches(on_the_line, BRANCHES) == ["", "d4", "d4 d5"]
    # Position order: the variation comes after the whole main line (M7).
    in_order = "cql(variations) echo (s t) {s < t t:pd5}"
    assert matches(in_order, BRANCHES) == ["", "e4", "e4 e5", "e4 e5 Nf3", "d4", "d4 d5"]
    # Every position is its own ancestor (M8).
    assert len(matches("cql(variations) echo (s t) in all ancestor(t s)", BRANCHES)) == 7


def test_echo_targets_follow_the_variations_setting() -> None:
    text = "echo (s t) t:Pc4"
    assert matches(f"cql(variations) {text}", BRANCHES) != []
    assert matches(f"cql() {text}", BRANCHES) == []
    assert matches("cql(variations) echo (s t) {mainline t:Pc4}", BRANCHES) == []


# --------------------------------------------------------------------------------------
# Square sets: `in`, directions (M10)
# --------------------------------------------------------------------------------------


def test_right_1_a_attackedby_q_at_the_start() -> None:
    # The direction page: `right 1 A attackedby Q` is `right 1 (A attackedby Q)`, which is
    # [d-f2,f1,d1] in the start position.
    board = chess.Board()
    attacked = board.attacks_mask(chess.D1) & board.occupied_co[chess.WHITE]
    moved = chess.SquareSet(chess.shift_right(attacked))
    assert moved == chess.SquareSet([chess.D1, chess.F1, chess.D2, chess.E2, chess.F2])
    start = game("*")
    assert plies("cql() (right 1 A attackedby Q) == [d-f2,f1,d1]", start) == [0]
    assert plies("cql() ((right 1 A) attackedby Q) == [d-f2,f1,d1]", start) == []


def test_every_white_piece_attacked_by_a_black_one() -> None:
    # E45, `A in {. attackedby a}`: the white king e1 (in check) and rook a1 against the
    # black rooks a8 and e8; after 1. Kd2 the king is no longer attacked.
    g = setup("r3r1k1/8/8/8/8/8/8/R3K3 w - - 0 1", "1. Kd2")
    assert plies("cql() A in {. attackedby a}", g) == [0]
    assert plies("cql() [] in K", g) == [0, 1]


# --------------------------------------------------------------------------------------
# Grouped line constituents: the queen staircase
# --------------------------------------------------------------------------------------

STAIRCASE = setup(
    "8/7k/8/8/8/8/8/Q3K3 w - - 0 1",
    "1. Qa2 Kh6 2. Qb2 Kh7 3. Qb3 Kh6 4. Qc3 Kh7 5. Qc4 Kh6",
)


def test_the_documented_staircase_needs_consecutive_queen_moves() -> None:
    # As documented, each constituent is the next position: after the queen's move up it
    # is Black's turn, so `move from Q` cannot follow and the line matches nowhere.
    text = (
        "cql() line --> (move from Q to up 1 Q --> move from Q to right 1 Q)+"
        " --> move from Q to up 1 Q ?"
    )
    assert plies(text, STAIRCASE) == []


def test_the_staircase_with_black_moves_between() -> None:
    up, right = "move from Q to up 1 Q", "move from Q to right 1 Q"
    stairs = f"cql() line --> ({up} --> true --> {right} --> true)+ --> {up}"
    assert plies(stairs, STAIRCASE) == [0, 4]
    twice = f"cql() line --> ({up} --> true --> {right} --> true){{2,}} --> {up}"
    assert plies(twice, STAIRCASE) == [0]
    optional = f"cql() line --> ({up} --> true --> {right} --> true)? --> {up} --> true --> {right}"
    assert plies(optional, STAIRCASE) == [0, 4]


@pytest.mark.parametrize("ply", range(10))
def test_python_chess_sees_the_staircase(ply: int) -> None:
    node = list(STAIRCASE.mainline())[ply]
    queen = boards(STAIRCASE)[ply].piece_at(node.move.from_square)
    if ply % 2:
        assert queen == chess.Piece(chess.KING, chess.BLACK)
        return
    assert queen == chess.Piece(chess.QUEEN, chess.WHITE)
    step = node.move.to_square - node.move.from_square
    assert step == (8 if ply % 4 == 0 else 1)  # up, then right, alternately


# --------------------------------------------------------------------------------------
# The CQL 5 idiom "bind at the initial position, then look forward"; numeric echo
# --------------------------------------------------------------------------------------

# The a1 rook visits h1, h8 and a8 (the rook tour of the legacy script).
ROOK_TOUR = setup("4k3/8/8/8/8/8/4K3/R7 w - - 0 1", "1. Rh1 Kd7 2. Rh8 Kc6 3. Ra8 Kb6")
# The a1 rook goes straight to a8.
ROOK_UP = setup("4k3/8/8/8/8/8/4K3/R7 w - - 0 1", "1. Ra8 Kd7 2. Rh8 Kc6")

TOUR = (
    "cql() initial piece rook in [Rr] {find rook & a1 find rook & h1 find rook & h8 find rook & a8}"
)


def test_python_chess_follows_the_rook() -> None:
    squares = [board.pieces(chess.ROOK, chess.WHITE) for board in boards(ROOK_TOUR)]
    assert [chess.square_name(next(iter(s))) for s in squares[::2]] == ["a1", "h1", "h8", "a8"]


def test_one_rook_visits_the_four_corners() -> None:
    assert plies(TOUR, ROOK_TOUR) == [0]
    assert plies(TOUR, ROOK_UP) == []


def test_a_numeric_echo_is_the_largest_value_over_its_targets() -> None:
    # After 1. Nf3 Nf6 the closest other board differs on two squares.
    assert plies("cql() (echo (s t) #(s & t)) == 62", KNIGHTS) == [2, 3]
    assert plies("cql() (echo (s t) #(s & t)) == 64", KNIGHTS) == [0, 1, 4, 5]
