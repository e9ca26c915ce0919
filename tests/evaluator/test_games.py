"""Whole games: scope and variations, line and find, tags, relation, ray counting, marks,
matchcount and the tag prefilter of the compiled query.

The small PGN games are written here; every expected count was worked out by hand
from the moves (positions are numbered from 0, the start position).
"""

from __future__ import annotations

import bz2
import io
from collections.abc import Iterator
from importlib import resources

import attrs
import chess
import chess.pgn
import pytest

from cqllegacy.core.tree import (
    And,
    Color,
    Compare,
    CompareOp,
    Compound,
    Count,
    Filter,
    Find,
    Header,
    InRange,
    Intersection,
    Keyword,
    Line,
    LineStep,
    Mark,
    Move,
    Not,
    Number,
    NumericKeyword,
    NumericValue,
    PieceLoop,
    PieceVariable,
    Player,
    Query,
    RayCount,
    Relation,
    RelationScope,
    RelationSideToMove,
    Result,
    Scope,
    Simple,
    TagDeclaration,
    TopList,
    Transform,
    TransformKind,
)
from cqllegacy.errors import CqlLegacyError
from cqllegacy.evaluator.evaluate import GameMatch, compile_query, evaluate_filter
from cqllegacy.evaluator.gametree import NO_PIECE, PositionTable, piece_moves
from cqllegacy.evaluator.stream import snapshot
from cqllegacy.evaluator.testing import game_from_pgn, pd, position
from cqllegacy.vocab.pieces import content_bit, types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction, parse_squares

TRUE, MATE, CHECK = Simple(Keyword.TRUE), Simple(Keyword.MATE), Simple(Keyword.CHECK)
WTM, BTM = Simple(Keyword.WTM), Simple(Keyword.BTM)
ALL_DIRECTIONS = (
    Direction.UP,
    Direction.DOWN,
    Direction.LEFT,
    Direction.RIGHT,
    Direction.NORTHEAST,
    Direction.NORTHWEST,
    Direction.SOUTHEAST,
    Direction.SOUTHWEST,
)

# Main line 1. f3 e5 2. g4 d5 3. h3; the variation 2... Qh4# mates.
#   positions: 0 start, 1 f3, 2 e5, 3 g4, 4 d5, 5 h3, 6 Qh4# (in the variation)
FOOL = game_from_pgn(
    '[Event "Fool"]\n[White "Fool, A"]\n[Black "Sharp, B"]\n[Result "*"]\n\n'
    "1. f3 e5 2. g4 d5 (2... Qh4#) 3. h3 *"
)

# 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6: White to move at 0, 2, 4, 6.
RUY = game_from_pgn(
    '[Event "Ruy"]\n[White "Alpha"]\n[Black "Beta"]\n[Result "1-0"]\n[Date "1999.??.??"]\n\n'
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0"
)


def query(
    *lists: TopList, tags: tuple[TagDeclaration, ...] = (), header: Header | None = None
) -> Query:
    return Query(header or Header(), lists, tags)


def run(game: chess.pgn.Game, *lists: TopList, **kwargs: object) -> GameMatch:
    tags = kwargs.pop("tags", ())
    header = kwargs.pop("header", None)
    compiled = compile_query(query(*lists, tags=tags, header=header))  # type: ignore[arg-type]
    return compiled.evaluate(game, 1, **kwargs)  # type: ignore[arg-type]


def count(game: chess.pgn.Game, body: Filter, scope: Scope = Scope.MAINLINE, **kw: object) -> int:
    result = run(game, TopList(body, matchcount=(0, None), scope=scope), **kw)
    assert result.matched
    return result.lists[0].count


def nodes_of(game: chess.pgn.Game) -> list[chess.pgn.GameNode]:
    table = PositionTable.build(game, variations=True)
    return table.nodes


# --------------------------------------------------------------------------------------
# Scope: main line versus variations (architecture note, L14)
# --------------------------------------------------------------------------------------


def test_position_numbering_of_the_fixture() -> None:
    sans = [node.san() for node in nodes_of(FOOL)[1:]]
    assert sans == ["f3", "e5", "g4", "d5", "h3", "Qh4#"]


def test_mainline_scope_never_sees_the_variation() -> None:
    assert count(FOOL, MATE) == 0
    assert count(FOOL, MATE, Scope.ALL) == 1
    assert count(FOOL, MATE, variations=True) == 1
    assert count(FOOL, TRUE) == 6
    assert count(FOOL, TRUE, Scope.ALL) == 7
    assert count(FOOL, And((MATE, Not(Simple(Keyword.MAINLINE)))), Scope.ALL) == 1


def test_next_move_follows_variations_only_in_all_scope() -> None:
    after_g4 = nodes_of(FOOL)[3]
    queen_move = Move(from_=pd("qd8"), to=pd("h4"))
    assert evaluate_filter(queen_move, after_g4) is False
    assert evaluate_filter(queen_move, after_g4, scope=Scope.ALL) is True
    assert count(FOOL, queen_move) == 0
    assert count(FOOL, queen_move, Scope.ALL) == 1


def test_positions_come_in_depth_first_game_order() -> None:
    result = run(FOOL, TopList(TRUE), variations=True)
    sans = [node.san() for node in result.lists[0].positions[1:]]
    assert sans == ["f3", "e5", "g4", "d5", "h3", "Qh4#"]


def test_a_null_move_is_a_move_of_no_piece() -> None:
    game = game_from_pgn("1. e4 -- 2. d4 *")
    after_e4 = nodes_of(game)[1]
    assert evaluate_filter(Move(), after_e4) is True
    assert evaluate_filter(Move(from_=pd("a")), after_e4) is False
    assert count(game, Move(previous=True, from_=pd("P"))) == 2  # e4 and d4


def test_terminal_and_initial() -> None:
    assert count(FOOL, Simple(Keyword.TERMINAL), Scope.ALL) == 2  # h3 and Qh4#
    assert count(FOOL, Simple(Keyword.INITIAL)) == 1
    assert count(FOOL, Simple(Keyword.INITIAL), skip_initial=True) == 0
    assert count(FOOL, TRUE, skip_initial=True) == 5


# --------------------------------------------------------------------------------------
# line and find
# --------------------------------------------------------------------------------------


def test_line_follows_continuations() -> None:
    pawn_then_mate = Line((LineStep(pd("Pg4")), LineStep(MATE)))
    assert count(FOOL, pawn_then_mate) == 0
    assert count(FOOL, pawn_then_mate, Scope.ALL) == 1  # at 3, followed by 6


def test_line_with_quantifiers() -> None:
    # "White pawn on f3 now, any number of positions, then mate": from 1, 2 and 3 (from 3
    # with no gap: 3 then 6).  The mate 6 itself has no next position.
    gapped = Line((LineStep(pd("Pf3")), LineStep(TRUE, 0, None), LineStep(MATE)))
    assert count(FOOL, gapped, Scope.ALL) == 3
    plus = Line((LineStep(pd("Pf3")), LineStep(TRUE, 1, None), LineStep(MATE)))
    assert count(FOOL, plus, Scope.ALL) == 2  # 1 and 2: at least one position between
    exact = Line((LineStep(pd("Pf3")), LineStep(TRUE, 2, 2), LineStep(MATE)))
    assert count(FOOL, exact, Scope.ALL) == 1  # only from 1: 1, (2, 3), 6
    optional = Line((LineStep(MATE, 0, 1),))
    assert count(FOOL, optional) == 6  # zero repetitions always fit


def test_line_needs_positions_that_exist() -> None:
    too_long = Line(tuple(LineStep(TRUE) for _ in range(7)))
    assert count(FOOL, too_long) == 0  # the main line has only 6 positions
    fits = Line(tuple(LineStep(TRUE) for _ in range(6)))
    assert count(FOOL, fits) == 1


def test_find_and_find_all() -> None:
    assert count(FOOL, Find(MATE)) == 0
    assert count(FOOL, Find(MATE), Scope.ALL) == 5  # 0, 1, 2, 3 lead to the mate 6
    black_e_pawn = Find(pd("pe5"), all=True)
    start = nodes_of(FOOL)[0]
    assert evaluate_filter(black_e_pawn, start) == 4  # positions 2, 3, 4, 5
    assert evaluate_filter(black_e_pawn, start, scope=Scope.ALL) == 5  # and 6
    # Memoised counts stay right when the list asks at every position: 3, 2, 1 ... at 3..5.
    assert count(FOOL, InRange(black_e_pawn, 2, 3)) == 2


def test_flipvertical_count_find() -> None:  # semantics: S-examples E29
    game = game_from_pgn('[FEN "7q/8/4k3/8/8/4K3/8/Q7 w - - 0 1"]\n[SetUp "1"]\n\n1. Qh1 Qa8 *')
    counted = Transform(
        TransformKind.FLIPVERTICAL, Find(Compound((pd("Qa1"), pd("qh8")))), count=True
    )
    nodes = nodes_of(game)
    assert [evaluate_filter(counted, node) for node in nodes] == [2, 1, 1]


# --------------------------------------------------------------------------------------
# Piece identity: piece variables, tags (L12; semantics: S-piece-variables, S-tags)
# --------------------------------------------------------------------------------------


def test_piece_loop_binds_each_piece() -> None:
    node = position()
    node.add_main_variation(chess.Move.from_uci("g1f3"))
    knight_goes_to_f3 = PieceLoop(
        "x",
        pd("N"),
        Line((LineStep(TRUE), LineStep(Intersection((PieceVariable("x"), pd("f3")))))),
    )
    assert evaluate_filter(knight_goes_to_f3, node) == parse_squares("g1")


def test_tag_follows_a_pawn_through_promotion() -> None:
    game = game_from_pgn(
        '[FEN "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. b8=Q Kd7 2. Qb5+ Kd6 *'
    )
    on_b5 = TopList(Intersection((PieceVariable("t"), pd("Qb5"))))
    found = run(game, on_b5, tags=(TagDeclaration("t", types_of("Q")),))
    assert found.matched
    assert [n.san() for n in found.lists[0].positions] == ["Qb5+", "Kd6"]
    # No white piece of this game is ever a rook: no binding, no match.
    assert not run(game, on_b5, tags=(TagDeclaration("t", types_of("R")),)).matched


def test_captured_tagged_piece_is_the_empty_set() -> None:
    game = game_from_pgn('[FEN "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. exd5 Kd7 *')
    gone = TopList(Compare(CompareOp.EQ, Count(PieceVariable("x")), Number(0)))
    found = run(game, gone, tags=(TagDeclaration("x", types_of("p")),))
    assert found.matched and found.lists[0].count == 2


def test_tags_through_castling_take_distinct_pieces() -> None:
    game = game_from_pgn('[FEN "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"]\n[SetUp "1"]\n\n1. O-O *')
    rooks = (TagDeclaration("r1", types_of("R")), TagDeclaration("r2", types_of("R")))
    r1_f1 = TopList(Intersection((PieceVariable("r1"), pd("f1"))))
    r2_a1 = TopList(Intersection((PieceVariable("r2"), pd("a1"))))
    r2_f1 = TopList(Intersection((PieceVariable("r2"), pd("f1"))))
    assert run(game, r1_f1, r2_a1, tags=rooks).matched
    assert not run(game, r1_f1, r2_f1, tags=rooks).matched
    king = TopList(Intersection((PieceVariable("k"), pd("Kg1"))))
    assert run(game, king, tags=(TagDeclaration("k", types_of("K")),)).matched


def _games(limit: int) -> Iterator[chess.pgn.Game]:
    data = resources.files("cqllegacy") / "data" / "wcc.pgn.bz2"
    with bz2.open(io.BytesIO(data.read_bytes()), "rt") as handle:
        for _ in range(limit):
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            yield game


def test_identities_cover_exactly_the_occupied_squares_in_real_games() -> None:
    for game in _games(15):
        table = PositionTable.build(game, variations=True, identities=True)
        assert table.who is not None and table.where is not None
        for board, who, where in zip(table.boards, table.who, table.where, strict=True):
            marked = sum(1 << sq for sq, identity in enumerate(who) if identity != NO_PIECE)
            assert marked == board.occupied
            assert all(where[who[sq]] == sq for sq in range(64) if who[sq] != NO_PIECE)
        root = table.boards[0]
        identities = {i for who in table.who for i in who if i != NO_PIECE}
        assert identities <= {sq for sq in range(64) if root.piece_at(sq)}


_ODD_MOVES = [
    # Castling both ways, en passant, a promotion by capture, a king taking its own rook
    # (Chess960 castling), a null move.
    "1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 e6 5. Bd3 Bd6 6. O-O O-O 7. c4 dxc4 8. Bxc4 *",
    '[FEN "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1"]\n\n'
    "1. bxa8=Q+ (1. O-O-O gxh1=Q) 1... Ke7 2. O-O-O gxh1=N 3. Rxh1 *",
    '[Variant "Chess960"]\n[FEN "1rk1r3/8/8/8/8/8/8/1RK1R3 w EBeb - 0 1"]\n\n'
    "1. O-O-O O-O-O 2. -- Kb8 *",
]


def _who_move_by_move(table: PositionTable) -> list[tuple[int, ...]]:
    """Piece identities followed with python-chess's own castling and en passant rules."""
    out = [tuple(sq if table.boards[0].piece_at(sq) else NO_PIECE for sq in range(64))]
    for p in range(1, len(table)):
        up = table.parent[p]
        who = list(out[up])
        relocated, captured = piece_moves(table.boards[up], table.moves[p])
        if captured is not None:
            who[captured] = NO_PIECE
        moving = [(out[up][origin], target) for origin, target in relocated]
        for origin, _ in relocated:
            who[origin] = NO_PIECE
        for identity, target in moving:
            who[target] = identity
        out.append(tuple(who))
    return out


def test_identities_follow_pieces_and_locations_invert_them() -> None:
    odd = [game_from_pgn(text) for text in _ODD_MOVES]
    for game in [*odd, *_games(15)]:
        table = PositionTable.build(game, variations=True, identities=True)
        assert table.who == _who_move_by_move(table)
        assert table.where is not None
        for who, where in zip(table.who, table.where, strict=True):
            inverse = [NO_PIECE] * 64
            for sq, identity in enumerate(who):
                if identity != NO_PIECE:
                    inverse[identity] = sq
            assert list(where) == inverse


def test_a_main_line_follows_pieces_as_the_game_tree_does() -> None:
    # The stream lays out a main line from its boards; the tree from the game.
    for game in [*(game_from_pgn(text) for text in _ODD_MOVES), *_games(5)]:
        tree = PositionTable.build(game, identities=True)
        line = PositionTable.from_main_line(
            tree.boards, [m for m in tree.moves if m is not None], identities=True
        )
        assert (line.who, line.where) == (tree.who, tree.where)
        assert line.identity_types() == tree.identity_types()


def test_a_main_line_tracks_each_piece_where_the_game_tree_places_it() -> None:
    # The stream's table follows pieces by their moves alone (``track``), without rows;
    # the game tree's rows, built position by position, are the reference.
    for game in [*(game_from_pgn(text) for text in _ODD_MOVES), *_games(40)]:
        tree = PositionTable.build(game, identities=True)
        assert tree.where is not None
        line = PositionTable.from_main_line(
            tree.boards, [m for m in tree.moves if m is not None], identities=True
        )
        for identity in range(64):
            column = [where[identity] for where in tree.where]
            assert line.track(identity) == column
            assert tree.track(identity) == column
        assert line.identity_types() == _types_square_by_square(tree)


def test_a_main_line_names_the_piece_each_move_moves_as_the_game_tree_does() -> None:
    # ``movers`` of a main line comes from following its moves, without rows; the rows
    # followed with python-chess's own castling and en passant rules are the reference.
    odd = [game_from_pgn(text) for text in _ODD_MOVES]
    for game in [*odd, *_games(40)]:
        for variations in (False, True):
            tree = PositionTable.build(game, variations=variations, identities=True)
            who = _who_move_by_move(tree)
            expected = [
                NO_PIECE if not move else who[tree.parent[r]][move.from_square]
                for r, move in enumerate(tree.moves)
            ]
            assert tree.movers() == expected
            if not variations:
                line = PositionTable.from_main_line(
                    tree.boards, [m for m in tree.moves if m is not None], identities=True
                )
                assert line.movers() == expected
                assert line._who is None  # no rows were built


def test_a_snapshot_is_python_chess_copy_of_the_board() -> None:
    # Every field python-chess's copy sets, on every board of real and odd games, and the
    # copy shares nothing mutable with the board it was made from.
    fields = (*(name for name in vars(chess.Board()) if name not in ("move_stack", "_stack")),)
    for game in [*(game_from_pgn(text) for text in _ODD_MOVES), *_games(10)]:
        board = game.board()
        for move in [*game.mainline_moves(), None]:
            ours, theirs = snapshot(board), board.copy(stack=False)
            assert type(ours) is type(theirs)
            assert list(vars(ours)) == list(vars(theirs))  # the same fields, set in one order
            assert {f: getattr(ours, f) for f in fields} == {f: getattr(theirs, f) for f in fields}
            assert ours.move_stack == [] and ours._stack == []
            assert ours.occupied_co is not board.occupied_co
            if move is None:
                break
            board.push(move)
            assert ours.occupied_co == theirs.occupied_co and ours.fen() == theirs.fen()


def test_a_find_that_follows_a_piece_keeps_to_its_scope() -> None:
    # The g1 knight moves in the variation only; the main line's search must not see it.
    game = game_from_pgn("1. e4 e5 (1... c5 2. Nf3) 2. Nc3 Nc6 *")
    knight = (TagDeclaration("n", types_of("N")),)
    moves = Find(Compound((Move(from_=Intersection((PieceVariable("n"), pd("g1")))),)))
    everywhere = TopList(Simple(Keyword.TRUE), scope=Scope.ALL)
    for optimize in (True, False):
        main = compile_query(query(everywhere, TopList(moves), tags=knight), optimize=optimize)
        assert not main.evaluate(game, 1).matched
        both = TopList(moves, scope=Scope.ALL)
        assert compile_query(query(both, tags=knight), optimize=optimize).evaluate(game, 1).matched


def _types_square_by_square(table: PositionTable) -> dict[int, int]:
    """What ``identity_types`` means: every identity's content on every board."""
    assert table.who is not None
    seen: dict[int, int] = {}
    for board, who in zip(table.boards, table.who, strict=True):
        for sq, identity in enumerate(who):
            if identity != NO_PIECE:
                seen[identity] = seen.get(identity, 0) | content_bit(board.piece_at(sq))
    return seen


def test_identity_types_are_the_start_types_and_the_promotions() -> None:
    promotions = game_from_pgn(
        '[FEN "8/P7/4k3/8/8/4K3/7p/8 w - - 0 1"]\n\n'
        "1. a8=Q (1. a8=N h1=B) h1=N (1... h1=Q 2. Qxh1) 2. Qa1 *"
    )
    for game in [promotions, *_games(15)]:
        table = PositionTable.build(game, variations=True, identities=True)
        assert table.identity_types() == _types_square_by_square(table)
    table = PositionTable.build(promotions, variations=True, identities=True)
    assert table.identity_types()[chess.A7] == types_of("PQN")


# --------------------------------------------------------------------------------------
# Legacy-only nodes: ray counting (L20) and relation (semantics: S-relation, L18)
# --------------------------------------------------------------------------------------


def test_two_rooks_seeing_each_other_are_two_rays() -> None:
    node = position("4k3/8/8/8/8/8/R6R/4K3 w - - 0 1")
    assert evaluate_filter(RayCount((pd("R"), pd("R")), ALL_DIRECTIONS), node) == 2
    assert evaluate_filter(RayCount((pd("R"), pd("R")), (Direction.RIGHT,)), node) == 1
    blocked = position("4k3/8/8/8/8/8/R3N2R/4K3 w - - 0 1")
    assert evaluate_filter(RayCount((pd("R"), pd("R")), ALL_DIRECTIONS), blocked) == 0
    assert evaluate_filter(RayCount((pd("R"), pd("N"), pd("R")), ALL_DIRECTIONS), blocked) == 2


def test_ray_count_of_pins() -> None:
    # Qa4 pins nothing; Qa1 pins the knight a5 to the king a8 (two empty squares between).
    node = position("k7/8/8/n7/8/8/8/Q3K3 w - - 0 1")
    pin = RayCount((pd("Q"), pd("n"), pd("k")), ALL_DIRECTIONS)
    assert evaluate_filter(pin, node) == 1
    assert evaluate_filter(RayCount((pd("Q"), pd("k")), ALL_DIRECTIONS), node) == 0
    # An empty square may be an inner designator's own square.
    empty_inner = RayCount((pd("Q"), pd("_a2"), pd("n")), ALL_DIRECTIONS)
    assert evaluate_filter(empty_inner, node) == 1


def test_ray_attack_needs_a_line_piece_of_the_right_kind() -> None:
    node = position("k7/8/8/8/8/8/8/R3K2B w - - 0 1")  # Ra1 sees a8; Bh1 sees a8 too
    assert evaluate_filter(RayCount((pd("A"), pd("k")), ALL_DIRECTIONS, attack=True), node) == 2
    rook_on_diagonal = position("k7/8/8/8/8/8/8/4K2R w - - 0 1")
    diagonal_only = RayCount((pd("R"), pd("k")), ALL_DIRECTIONS, attack=True)
    assert evaluate_filter(diagonal_only, rook_on_diagonal) == 0
    # Without :rayattack the diagonal h1-a8 is a ray like any other.
    assert evaluate_filter(RayCount((pd("R"), pd("k")), ALL_DIRECTIONS), rook_on_diagonal) == 1


def test_relation_finds_a_repeated_position() -> None:
    game = game_from_pgn("1. Nf3 Nf6 2. Ng1 Ng8 *")
    result = run(game, TopList(Relation(), mark=Mark.ALL))
    assert result.matched
    assert result.lists[0].positions == (game,)  # only the start recurs (at 4)


def test_relation_with_shift_and_original_counts() -> None:
    game = game_from_pgn('[FEN "8/8/8/8/8/8/k7/2K5 w - - 0 1"]\n[SetUp "1"]\n\n1. Kd1 Kb2 *')
    assert evaluate_filter(Relation(), game) is False
    assert evaluate_filter(Relation(shift=True), game) is True  # both kings one file right
    assert evaluate_filter(Relation(shift=True, original_same=(0, 0)), game) is True
    assert evaluate_filter(Relation(shift=True, original_same=(1, None)), game) is False
    assert evaluate_filter(Relation(shift=True, original_different=(4, 4)), game) is True
    changed = Relation(shift=True, side_to_move=RelationSideToMove.CHANGE)
    assert evaluate_filter(changed, game) is False


def test_relation_missing_and_new_counts_and_scope() -> None:
    # 0 start, 1 e4, 2 e5 (main line), 3 d5 and 4 exd5 (the variation).
    game = game_from_pgn("1. e4 e5 (1... d5 2. exd5) *")
    after_e4 = nodes_of(game)[1]
    # Every later position has a new piece (e5, d5, d5), which the default forbids.
    strict = Relation(missing=(types_of("p"), 1, 1), scope=RelationScope.ALL)
    assert evaluate_filter(strict, after_e4) is False
    # After 2. exd5: d7 lost its black pawn, d5 holds a new white pawn, e4 lost a white
    # pawn (not counted: only black pawns are); no square holds a different piece.
    traded = Relation(
        missing=(types_of("p"), 1, 1),
        new=(types_of("P"), 1, 1),
        side_to_move=RelationSideToMove.IGNORE,
        scope=RelationScope.ALL,
    )
    assert evaluate_filter(traded, after_e4) is True
    assert evaluate_filter(attrs.evolve(traded, scope=RelationScope.VARIATIONS), after_e4)
    assert evaluate_filter(attrs.evolve(traded, scope=RelationScope.MAINLINE), after_e4) is False
    assert count(game, traded, Scope.ALL) == 2  # from the start position too


# --------------------------------------------------------------------------------------
# The compiled query: marks, matchcount, several lists, gamenumber, prefilter
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mark", "marked"),
    [(Mark.FIRST, [0]), (Mark.ALL, [0, 2, 4, 6]), (Mark.NONE, [])],
)
def test_marks(mark: Mark, marked: list[int]) -> None:
    nodes = nodes_of(RUY)
    result = run(RUY, TopList(WTM, mark=mark))
    assert result.matched
    assert result.lists[0].count == 4
    assert result.lists[0].positions == tuple(nodes[i] for i in (0, 2, 4, 6))
    assert result.lists[0].marked == tuple(nodes[i] for i in marked)


def test_first_mark_follows_skip_initial() -> None:
    result = run(RUY, TopList(WTM, mark=Mark.FIRST), skip_initial=True)
    assert result.lists[0].count == 3
    assert result.lists[0].marked == (nodes_of(RUY)[2],)


@pytest.mark.parametrize(
    ("matchcount", "matched"),
    [(None, True), ((4, 4), True), ((1, 3), False), ((5, None), False), ((0, None), True)],
)
def test_matchcount(matchcount: tuple[int, int | None] | None, matched: bool) -> None:
    assert run(RUY, TopList(WTM, matchcount=matchcount)).matched is matched


def test_matchcount_zero_is_satisfied_by_no_match() -> None:
    assert run(RUY, TopList(CHECK, matchcount=(0, 0))).matched
    assert not run(RUY, TopList(CHECK)).matched


def test_every_list_must_be_satisfied_on_its_own() -> None:
    bishop_b5 = TopList(pd("Bb5"), mark=Mark.FIRST)
    knight_f3 = TopList(pd("Nf3"), matchcount=(4, 4))
    result = run(RUY, bishop_b5, knight_f3)
    assert result.matched
    assert [lst.count for lst in result.lists] == [2, 4]
    assert not run(RUY, bishop_b5, TopList(pd("Nc3"))).matched


def test_gamenumber_and_prefilter() -> None:
    compiled = compile_query(query(TopList(TRUE), header=Header(gamenumber=(2, 3))))
    assert not compiled.prefilter(RUY.headers, 1)
    assert compiled.prefilter(RUY.headers, 2)
    assert not compiled.evaluate(RUY, 4).matched
    assert compiled.evaluate(RUY, 3).matched


def test_prefilter_rejects_games_by_their_tags_only() -> None:
    white_wins_check = TopList(Compound((Result(GameResult.WHITE_WINS), CHECK)))
    compiled = compile_query(query(white_wins_check))
    assert compiled.prefilter({"Result": "1-0"}, 1)
    assert not compiled.prefilter({"Result": "0-1"}, 1)
    year = compile_query(
        query(TopList(And((InRange(NumericValue(NumericKeyword.YEAR), 2000, None), TRUE))))
    )
    assert not year.prefilter(RUY.headers, 1)  # 1999
    assert not year.prefilter({"Date": "????.??.??"}, 1)
    # A list that may match nothing never rejects, and neither does a colour flip that
    # could match the other way round.
    optional = compile_query(query(TopList(Result(GameResult.WHITE_WINS), matchcount=(0, None))))
    assert optional.prefilter({"Result": "0-1"}, 1)
    flipped = compile_query(
        query(
            TopList(
                Transform(
                    TransformKind.FLIPCOLOR,
                    Compound((Player("Beta", Color.WHITE), Result(GameResult.WHITE_WINS))),
                )
            )
        )
    )
    assert flipped.prefilter({"White": "Alpha", "Black": "Beta", "Result": "0-1"}, 1)
    assert not flipped.prefilter({"White": "Alpha", "Black": "Beta", "Result": "1-0"}, 1)


def test_unbound_variables_and_wrong_kinds_are_refused() -> None:
    with pytest.raises(CqlLegacyError, match="never bound"):
        compile_query(query(TopList(PieceVariable("x"))))
    with pytest.raises(ValueError, match="not a set"):
        compile_query(query(TopList(Count(CHECK))))
    with pytest.raises(ValueError, match="no numeric value"):
        compile_query(query(TopList(InRange(CHECK, 1, 2))))
