"""CQL 6.1 ``move o-o`` and ``move o-o-o`` (issue 18, item 6), with and without ``previous``
and beside the other ``move`` parameters: read, printed (chessql reads the text),
round-tripped, refused where CQL 6.1 has no such form (``o-o`` alone is CQL 6.2), left alone
by every transform, and run against python-chess's own castling predicates on hand-made
games, main line and variations, by the reference and the lowered evaluator.  Their meaning:
docs/semantics.md, S-castling.
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import BasicTransform, apply, basic_transforms
from cqllegacy.evaluator.evaluate import evaluate_filter
from cqllegacy.modern import ModernSyntaxError, print_query, read_query
from cqllegacy.modern.kinds import kind_of
from tests.support.modern import assert_cql, one, pd

KINGSIDE, QUEENSIDE = ct.Castling.KINGSIDE, ct.Castling.QUEENSIDE


def body(text: str) -> ct.Filter:
    (top,) = read_query(f"cql()\n{text}\n").lists
    return top.body


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("move o-o", ct.Move(castle=KINGSIDE)),
        ("move o-o-o", ct.Move(castle=QUEENSIDE)),
        ("move previous o-o", ct.Move(previous=True, castle=KINGSIDE)),
        ("move o-o-o previous", ct.Move(previous=True, castle=QUEENSIDE)),
        ("move o-o from K", ct.Move(from_=pd("K"), castle=KINGSIDE)),
        ("move from k o-o-o", ct.Move(from_=pd("k"), castle=QUEENSIDE)),
        ("move previous o-o to g8", ct.Move(to=pd("g8"), previous=True, castle=KINGSIDE)),
        # A move ending with a flag is parenthesised before `and` (chessql needs it).
        (
            "(move previous o-o and K)",
            ct.And((ct.Move(previous=True, castle=KINGSIDE), pd("K"))),
        ),
        ("not move o-o-o", ct.Not(ct.Move(castle=QUEENSIDE))),
        (
            "flipcolor move o-o from K",
            ct.Transform(ct.TransformKind.FLIPCOLOR, ct.Move(from_=pd("K"), castle=KINGSIDE)),
        ),
        # `o` is a variable name, but `o-o` is one word, as CQL reads it.
        ("piece o in K move o-o from o", None),
    ],
)
def test_read_print_and_round_trip(text: str, tree: ct.Filter | None) -> None:
    read = body(text)
    if tree is not None:
        assert read == tree
    query = one(read)
    printed = print_query(query)
    assert_cql(printed)
    assert read_query(printed) == query


def test_a_castling_move_is_a_yes_no_filter() -> None:
    assert kind_of(ct.Move(castle=KINGSIDE)) is ct.Kind.LOGICAL


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("o-o", r"`o-o` is a parameter of `move` in CQL 6\.1: write `move o-o`", 1),
        ("check and o-o-o", r"`o-o-o` is a parameter of `move`", 11),
        ("move o-o o-o-o", "a move castles to one side: o-o and o-o-o never both", 10),
        ("move o-o-o o-o-o", "move has two o-o-o parameters", 12),
    ],
)
def test_forms_cql_6_1_does_not_have_are_refused_where_they_stand(
    text: str, message: str, column: int
) -> None:
    with pytest.raises(ModernSyntaxError, match=message) as info:
        read_query(f"cql()\n{text}\n")
    assert (info.value.line, info.value.column) == (2, column)


def test_every_basic_transform_keeps_the_side_and_maps_the_squares() -> None:
    move = ct.Move(from_=pd("Ke1"), previous=True, castle=QUEENSIDE)
    taus = {BasicTransform(dx=2), BasicTransform(swap_colors=True)}
    for kind in ct.TransformKind:
        taus |= set(basic_transforms(kind))
    for tau in taus:
        image = apply(tau, move)
        if image is None:  # a shift that empties the designator drops the member (M1)
            assert apply(tau, pd("Ke1")) is None
            continue
        assert isinstance(image, ct.Move)
        assert (image.castle, image.previous) == (QUEENSIDE, True), tau
        assert image.from_ == apply(tau, pd("Ke1")), tau
    swapped = apply(BasicTransform(swap_colors=True), move)
    assert swapped == ct.Move(from_=pd("ke8"), previous=True, castle=QUEENSIDE)


GAMES = [
    # White castles kingside at ply 7, Black at ply 10.
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O 6. Bg5 d6 7. Nc3 h6",
    # Both castle queenside.
    "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O 6. e3 e6",
    # Castling only in variations; a king walk to g1 later is no castling.
    "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. d3 (4. O-O O-O) (4. Qe2 d6 5. Nc3 Nc6 6. d3 Bg4 "
    "7. Bd2 Qd7 8. O-O-O) 4... d6 5. Kf1 O-O 6. Kg1 Nc6",
]

TEXTS = {
    "move o-o": lambda board, move: board.is_kingside_castling(move),
    "move o-o-o": lambda board, move: board.is_queenside_castling(move),
    "move o-o from K": lambda board, move: (
        board.turn == chess.WHITE and board.is_kingside_castling(move)
    ),
    "move o-o-o to c8": lambda board, move: (
        board.is_queenside_castling(move) and board.turn == chess.BLACK
    ),
    "flipcolor move o-o from K": lambda board, move: board.is_kingside_castling(move),
}


def _game(movetext: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(movetext))
    assert game is not None
    return game


def _every_node(game: chess.pgn.GameNode) -> list[chess.pgn.GameNode]:
    nodes = [game]
    for child in game.variations:
        nodes += _every_node(child)
    return nodes


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("scope", [ct.Scope.MAINLINE, ct.Scope.ALL])
@pytest.mark.parametrize("movetext", GAMES)
def test_the_next_move_castles_as_python_chess_says(
    movetext: str, scope: ct.Scope, optimize: bool
) -> None:
    game = _game(movetext)
    trees = {text: body(text) for text in TEXTS}
    for node in _every_node(game):
        board = node.board()
        following = node.variations if scope is ct.Scope.ALL else node.variations[:1]
        for text, castles in TEXTS.items():
            expected = any(castles(board, child.move) for child in following)
            value = evaluate_filter(trees[text], node, scope=scope, optimize=optimize)
            assert value == expected, (text, board.fen(), scope)


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("movetext", GAMES)
def test_the_move_just_played_castles_as_python_chess_says(movetext: str, optimize: bool) -> None:
    game = _game(movetext)
    kingside, queenside = body("move previous o-o"), body("move previous o-o-o")
    black_kingside = body("move previous o-o from k")
    for node in _every_node(game):
        parent = node.parent
        before = parent.board() if parent is not None else None
        move = node.move
        played_kingside = before is not None and before.is_kingside_castling(move)
        played_queenside = before is not None and before.is_queenside_castling(move)
        assert evaluate_filter(kingside, node, optimize=optimize) == played_kingside
        assert evaluate_filter(queenside, node, optimize=optimize) == played_queenside
        by_black = played_kingside and before is not None and before.turn == chess.BLACK
        assert evaluate_filter(black_kingside, node, optimize=optimize) == by_black


def test_the_hand_made_games_castle_where_their_text_says() -> None:
    # The predicate above is python-chess's; this says where that is, independently.
    game = _game(GAMES[0])
    plies = [
        n.ply()
        for n in _every_node(game)
        if evaluate_filter(body("move previous o-o"), n) and n.parent is not None
    ]
    assert plies == [7, 10]
    game = _game(GAMES[2])
    main = [n.ply() for n in game.mainline() if evaluate_filter(body("move previous o-o"), n)]
    assert main == [10]  # 5... O-O; 6. Kg1 walks the king there without castling
