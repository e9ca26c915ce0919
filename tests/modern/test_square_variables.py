"""CQL 6.1 square variables (issue 18, item 6): ``square x in S body`` and ``square all x
in S body`` read, printed (chessql reads the text), round-tripped, kind-checked,
transformed, run, and checked against python-chess predicates written here on hand-made
games.

The meaning (CQL 6.1 square.html): x is bound to each square of S in turn and body is
evaluated at the current position; ``square`` is the set of the squares for which body
matched, ``square all`` matches when body is never false (so also for an empty S).  x is
a set of one square, the same square wherever body looks (a piece variable follows its
piece instead; semantics: S-square-variables).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import BasicTransform, apply, orbit
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.modern import ModernSyntaxError, print_query, read_query
from cqllegacy.vocab.squares import Dihedral
from tests.support.modern import assert_cql, chessql_shape, one, pd

ROOT = Path(__file__).resolve().parents[2]

x = ct.SquareVariable("x")


def body(text: str) -> ct.Filter:
    (top,) = read_query(f"cql()\n{text}\n").lists
    return top.body


def square(domain: ct.Filter, inner: ct.Filter, every: bool = False) -> ct.SquareLoop:
    return ct.SquareLoop("x", domain, inner, all=every)


# --------------------------------------------------------------------------------------
# Read, printed, round-tripped
# --------------------------------------------------------------------------------------

READ = [
    (
        "square x in a-h4 {x attackedby N}",
        square(pd("a-h4"), ct.Compound((ct.AttackedBy(x, pd("N")),))),
    ),
    # The examples of square.html.
    ("square x in R x attacks k", square(pd("R"), ct.Attacks(x, pd("k")))),
    ("square x in a1-8 a attacks x", square(pd("a1-8"), ct.Attacks(pd("a"), x))),
    (
        "square all x in A power x < 2",
        square(pd("A"), ct.Compare(ct.CompareOp.LT, ct.Power(x), ct.Number(2)), every=True),
    ),
    (
        "square x in h1-8 {R attacks x x attacks K}",
        square(pd("h1-8"), ct.Compound((ct.Attacks(pd("R"), x), ct.Attacks(x, pd("K"))))),
    ),
    # The body is everything after the domain, `or` included (as chessql reads it).
    (
        "square x in R x attacks k or check",
        square(pd("R"), ct.Or((ct.Attacks(x, pd("k")), ct.Simple(ct.Keyword.CHECK)))),
    ),
    ("square all x in [] false", square(pd("[]"), ct.Simple(ct.Keyword.FALSE), every=True)),
    (
        "flipcolor {square x in a-h2 {x & P}}",
        ct.Transform(
            ct.TransformKind.FLIPCOLOR,
            ct.Compound((square(pd("a-h2"), ct.Compound((ct.Intersection((x, pd("P"))),))),)),
        ),
    ),
    (
        "#(square x in . {light x x attackedby [Aa]}) >= 3",
        ct.InRange(
            ct.Count(
                square(
                    pd("."),
                    ct.Compound((ct.SquareColor(False, x), ct.AttackedBy(x, pd("[Aa]")))),
                )
            ),
            3,
            None,
        ),
    ),
    # Nested loops of both kinds, and a square variable inside `find`.
    (
        "square x in . piece pc in N pc attacks x",
        square(pd("."), ct.PieceLoop("pc", pd("N"), ct.Attacks(ct.PieceVariable("pc"), x))),
    ),
    ("square x in N find x & n", square(pd("N"), ct.Find(ct.Intersection((x, pd("n")))))),
]


@pytest.mark.parametrize(("text", "tree"), READ)
def test_square_loops_read_print_and_round_trip(text: str, tree: ct.Filter) -> None:
    assert body(text) == tree
    assert_cql(f"cql()\n{text}\n")
    query = one(tree)
    printed = print_query(query)
    assert_cql(printed)
    assert read_query(printed) == query


def test_the_body_extends_as_chessql_reads_it() -> None:
    # chessql's tree: the square filter's body is the whole `or`.
    shape = chessql_shape("cql()\nsquare x in R x attacks k or check\n")
    assert shape == [
        (
            "Square",
            (
                ("PieceDesignator", ()),
                ("Or", (("Attacks", (("Variable", ()), ("PieceDesignator", ()))), ("Check", ()))),
            ),
        )
    ]
    assert chessql_shape("cql()\nsquare all x in A power x < 2\n")[0][0] == "SquareAll"


def test_a_square_variable_outside_its_loop_is_refused_by_the_printer() -> None:
    from cqllegacy.modern import NotExpressible

    with pytest.raises(NotExpressible, match="square variable x"):
        print_query(one(ct.Compound((x,))))
    with pytest.raises(NotExpressible, match="already binds"):
        print_query(one(square(pd("."), square(pd("A"), x))))
    # A variable of the other kind under the loop's name would read back as the loop's.
    with pytest.raises(NotExpressible, match="square variable x"):
        print_query(one(ct.PieceLoop("x", pd("A"), x)))
    with pytest.raises(NotExpressible, match="piece variable x"):
        print_query(one(square(pd("A"), ct.PieceVariable("x"))))
    with pytest.raises(NotExpressible, match="position variable x"):
        print_query(one(square(pd("A"), ct.AtPosition(ct.PositionVariable("x"), pd("K")))))


# --------------------------------------------------------------------------------------
# Kind checks, names and scope
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ("square x in 3 check", "`square` needs a set of squares, and a number", (2, 1)),
        ("square all x in check x", "`square all` needs a set of squares, and `check`", (2, 1)),
        ("square x in A check x", "square variable 'x' is unbound here", (2, 21)),
        ("square x in A square x in a x", "'x' is already bound by an enclosing filter", (2, 15)),
        ("square x in A piece x in a x", "'x' is already bound by an enclosing filter", (2, 15)),
        (
            "{square x in A x} {piece x in a x}",
            "'x' names both a piece variable and a square",
            (2, 16),
        ),
        (
            "{echo (x t) check} {square x in A x}",
            "names both a square variable and an echo",
            (2, 35),
        ),
        ("square K in A K", "'K' cannot name a variable: it is a piece designator", (2, 1)),
        ("square x in A x : check", "`:` needs a position here, and a square variable", (2, 15)),
        ("square x in A", "unexpected end of script", (2, 14)),
    ],
)
def test_misplaced_operands_and_names_are_refused_at_their_place(
    text: str, message: str, where: tuple[int, int]
) -> None:
    with pytest.raises(ModernSyntaxError, match=message) as info:
        read_query(f"cql()\n{text}\n")
    assert (info.value.line, info.value.column) == where


def test_a_square_variable_in_a_comment_or_string_is_no_name() -> None:
    # `// square x in` declares nothing: the later `x` is an unknown word, not an unbound one.
    with pytest.raises(ModernSyntaxError, match="unknown word 'x'"):
        read_query("cql()\n// square x in A\nx\n")


# --------------------------------------------------------------------------------------
# Transforms: the domain and the body are transformed, the variable is not
# --------------------------------------------------------------------------------------


def test_transforms_map_the_domain_and_the_body() -> None:
    loop = square(
        pd("a-h2"), ct.Compound((ct.Intersection((x, pd("P"))), ct.SquareColor(False, x)))
    )
    swapped = apply(BasicTransform(swap_colors=True), loop)
    # The colour swap mirrors the ranks: a-h2 becomes a-h7, and light squares dark ones.
    assert swapped == square(
        pd("a-h7"), ct.Compound((ct.Intersection((x, pd("p"))), ct.SquareColor(True, x)))
    )
    # A shift by one file moves the domain and turns `light x` into `dark x` (x now
    # ranges over squares of the other colour).
    shifted = apply(BasicTransform(dx=1), square(pd("a2"), ct.SquareColor(False, x)))
    assert shifted == square(pd("b2"), ct.SquareColor(True, x))
    mirrored = apply(BasicTransform(Dihedral.REFLECT_V), square(pd("Ra1"), ct.Attacks(x, pd("k"))))
    assert mirrored == square(pd("Rh1"), ct.Attacks(x, pd("k")))
    # M1: a member whose domain leaves the board is dropped.
    assert apply(BasicTransform(dx=1), square(pd("h2"), x)) is None
    assert len(orbit(ct.TransformKind.FLIP, square(pd("Ra1"), ct.Attacks(x, pd("k"))))) == 4


# --------------------------------------------------------------------------------------
# Run: against python-chess predicates on hand-made games
# --------------------------------------------------------------------------------------

GAMES = [
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Nb3 Qxd1",
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 7. Bh4 b6 8. cxd5 Nxd5",
    "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 Nc6 6. Nxc6 bxc6 7. e5 Nd5 8. Nxd5 cxd5",
    "1. f3 e5 2. g4 Qh4#",
    # A black knight takes on the square a white knight stood on.
    "1. Nf3 Nc6 2. Nc3 Nf6 3. Ne5 Nxe5 4. d4 Ng6",
    # Made for the purpose: a white knight reaches an outpost on d5 (no black pawn on the
    # c- or e-file above it), then leaves it.
    '[SetUp "1"]\n[FEN "4k3/pp4pp/8/8/4P3/2N5/8/4K3 w - - 0 1"]\n\n1. Nd5 Kd7 2. Nb6+ axb6',
]


def _nodes(movetext: str) -> list[chess.pgn.GameNode]:
    game = chess.pgn.read_game(io.StringIO(movetext))
    assert game is not None
    return [game, *game.mainline()]


def _squares(mask: int) -> list[int]:
    return list(chess.SquareSet(mask))


def _attacked_by(board: chess.Board, square_: int, pieces: int) -> bool:
    return any(board.attacks_mask(s) >> square_ & 1 for s in _squares(pieces))


def _white(board: chess.Board, piece_type: chess.PieceType) -> int:
    return board.pieces_mask(piece_type, chess.WHITE)


def _black(board: chess.Board, piece_type: chess.PieceType) -> int:
    return board.pieces_mask(piece_type, chess.BLACK)


def _fourth_rank_attacked_by_white_knights(node: chess.pgn.GameNode) -> int:
    board = node.board()
    knights = _white(board, chess.KNIGHT)
    return sum(1 << s for s in _squares(chess.BB_RANK_4) if _attacked_by(board, s, knights))


def _every_white_pawn_defended(node: chess.pgn.GameNode) -> bool:
    board = node.board()
    white = board.occupied_co[chess.WHITE]
    return all(_attacked_by(board, s, white) for s in _squares(_white(board, chess.PAWN)))


def _no_third_rank_square_attacked_by_black(node: chess.pgn.GameNode) -> bool:
    board = node.board()
    black = board.occupied_co[chess.BLACK]
    return all(not _attacked_by(board, s, black) for s in _squares(chess.BB_RANK_3))


def _every_white_queen_attacked(node: chess.pgn.GameNode) -> bool:
    # Vacuously true without a white queen (square.html: "body is never false").
    board = node.board()
    black = board.occupied_co[chess.BLACK]
    return all(_attacked_by(board, s, black) for s in _squares(_white(board, chess.QUEEN)))


def _empty_light_squares_attacked_twice(node: chess.pgn.GameNode) -> int:
    board = node.board()
    empty = ~board.occupied & chess.BB_LIGHT_SQUARES
    return sum(
        1 << s
        for s in _squares(empty)
        if sum(board.attacks_mask(t) >> s & 1 for t in _squares(board.occupied)) >= 2
    )


def _later_black_knight_where_a_white_knight_stands(node: chess.pgn.GameNode) -> int:
    # The square stays the square: a black knight on it here or later in the line.
    board = node.board()
    later = [node, *node.mainline()]
    return sum(
        1 << s
        for s in _squares(_white(board, chess.KNIGHT))
        if any(_black(n.board(), chess.KNIGHT) >> s & 1 for n in later)
    )


def _white_pieces_taken_by_the_next_move(node: chess.pgn.GameNode) -> int:
    # `line --> true --> x & a`: at the next position a black piece stands on the square.
    after = node.next()
    if after is None:
        return 0
    board, next_board = node.board(), after.board()
    return board.occupied_co[chess.WHITE] & next_board.occupied_co[chess.BLACK]


def _squares_a_white_knight_attacks(node: chess.pgn.GameNode) -> int:
    board = node.board()
    out = 0
    for s in _squares(_white(board, chess.KNIGHT)):
        out |= board.attacks_mask(s)
    if _white(board, chess.KNIGHT) & chess.BB_A1:
        out = chess.BB_ALL
    return out


CASES: list[tuple[str, Callable[[chess.pgn.GameNode], int | bool]]] = [
    ("square x in a-h4 {x attackedby N}", _fourth_rank_attacked_by_white_knights),
    ("square all x in P x attackedby A", _every_white_pawn_defended),
    ("square all x in a-h3 not x attackedby a", _no_third_rank_square_attacked_by_black),
    ("square all x in Q x attackedby a", _every_white_queen_attacked),
    ("square x in light _ #(. attacks x) >= 2", _empty_light_squares_attacked_twice),
    ("square x in N find x & n", _later_black_knight_where_a_white_knight_stands),
    ("square x in A line --> true --> x & a", _white_pieces_taken_by_the_next_move),
    # A disjunction that follows a piece inside a square loop: the lowering must not
    # decide `p attacks x` once for every square x.
    ("square x in . piece pc in N {pc attacks x or pc & a1}", _squares_a_white_knight_attacks),
]


@pytest.mark.parametrize("movetext", GAMES)
@pytest.mark.parametrize(("text", "predicate"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("optimize", [True, False])
def test_square_loops_agree_with_python_chess(
    movetext: str,
    text: str,
    predicate: Callable[[chess.pgn.GameNode], int | bool],
    optimize: bool,
) -> None:
    tree = body(text)
    for node in _nodes(movetext):
        expected = predicate(node)
        value = evaluate_filter(tree, node, optimize=optimize)
        assert value == expected, (text, node.board().fen())


def test_square_all_holds_for_an_empty_domain_and_square_fails_there() -> None:
    start = _nodes(GAMES[0])[0]
    assert evaluate_filter(body("square all x in [] false"), start) is True
    assert evaluate_filter(body("square x in [] true"), start) == 0
    # Empty squares are bound too (a square variable needs no piece, a piece loop does).
    assert (
        evaluate_filter(body("square x in a-h3-6 true"), start)
        == chess.BB_RANK_3 | chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6
    )
    assert evaluate_filter(body("piece x in a-h3-6 true"), start) == 0


# Square loops whose meaning CQL can also say without a variable: the same positions of
# the same real games (the bundled fixture), by the plan `run` uses.
SAME_AS = [
    ("square x in a-h4 {x attackedby N}", "a-h4 attackedby N"),
    ("square all x in P x attackedby A", "not (P & ~(P attackedby A))"),
    (
        "square x in d-e4-5 {x attackedby A x attackedby a}",
        "d-e4-5 attackedby A & d-e4-5 attackedby a",
    ),
    ("square x in _ x attackedby k", "_ attackedby k"),
]


@pytest.mark.parametrize(("loop", "plain"), SAME_AS)
def test_square_loops_match_where_their_square_free_forms_do(loop: str, plain: str) -> None:
    from cqllegacy import api

    games = ROOT / "fixtures" / "games.pgn"
    found = [
        [(match.ordinal, match.plies) for match in api.load(f"cql()\n{text}\n").search(games)]
        for text in (loop, plain)
    ]
    assert found[0] == found[1]
    assert found[0], "the fixture games should hold some"


# --------------------------------------------------------------------------------------
# End to end: `python -m cqllegacy run` and `check` on a CQL 6 script
# --------------------------------------------------------------------------------------


def test_run_and_check_a_cql6_script_with_square_variables(tmp_path: Path) -> None:
    games = tmp_path / "games.pgn"
    games.write_text(
        "\n\n".join(_with_tags(i, movetext) for i, movetext in enumerate(GAMES, 1)) + "\n"
    )
    script = tmp_path / "outpost.cql"
    # A white knight on the fifth rank on a square no black pawn can ever attack
    # (none on the files beside it, further up), defended by a white pawn.
    script.write_text(
        "cql()\n"
        "square x in N & a-h5 {\n"
        "  x attackedby P\n"
        "  square all y in (up 1 7 (left 1 x | right 1 x)) not y & p\n"
        "}\n"
    )
    report = tmp_path / "report.jsonl"
    out = tmp_path / "out.pgn"
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "cqllegacy",
            "run",
            str(script),
            "-i",
            str(games),
            "-o",
            str(out),
            "--report",
            str(report),
            "-q",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    expected = []
    for number, movetext in enumerate(GAMES, 1):
        plies = [ply for ply, node in enumerate(_nodes(movetext)) if _outpost(node.board())]
        if plies:
            expected.append((number, plies))
    assert expected, "the games should hold an outpost"
    found = [json.loads(line) for line in report.read_text().splitlines()]
    assert [(entry["ordinal"], entry["lists"][0]["plies"]) for entry in found] == expected
    checked = subprocess.run(
        [sys.executable, "-m", "cqllegacy", "check", str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def _outpost(board: chess.Board) -> bool:
    pawns = _black(board, chess.PAWN)
    for s in _squares(_white(board, chess.KNIGHT) & chess.BB_RANK_5):
        if not _attacked_by(board, s, _white(board, chess.PAWN)):
            continue
        file, rank = chess.square_file(s), chess.square_rank(s)
        guards = [
            chess.square(f, r)
            for f in (file - 1, file + 1)
            if 0 <= f < 8
            for r in range(rank + 1, 8)
        ]
        if not any(pawns >> g & 1 for g in guards):
            return True
    return False


def _with_tags(number: int, movetext: str) -> str:
    """A PGN game: the seven tags (and a FEN's) before the moves."""
    fen_tags, _, moves = movetext.rpartition("\n\n")
    tags = f'[Event "g{number}"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n'
    tags += '[White "w"]\n[Black "b"]\n[Result "*"]\n'
    return tags + (fen_tags + "\n" if fen_tags else "") + "\n" + moves + " *"


def test_a_square_loop_needs_its_domain_and_square_all_needs_nothing() -> None:
    from cqllegacy.evaluator.lowering import necessary_atoms

    knights = ct.AttackedBy(pd("N"), pd("k"))
    assert necessary_atoms(square(knights, ct.Attacks(x, pd("q")))) == necessary_atoms(knights)
    assert necessary_atoms(knights)
    assert necessary_atoms(square(knights, ct.Attacks(x, pd("q")), every=True)) == ()
