"""The array forms give, at every position, exactly what the reference rules give.

Each node with an array form (:mod:`cqllegacy.evaluator.arrays`) is evaluated over the
main lines of real games (World Championship games with promotions, en passant, mates and
a stalemate; Lichess puzzles that start from a FEN), Chess960 games with castling both
ways, a game with a null move, and seeded random playouts, and compared position by
position with its reference rule on python-chess boards: the node samples every
evaluator test uses, generated filters, and patterns chosen for the array forms' own
work (moves, attacks, orbits, numbers).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import lzma
import random
from pathlib import Path

import attrs
import chess
import chess.pgn
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as ct
from cqllegacy.core.relation_echo import echo_of
from cqllegacy.evaluator import arrays
from cqllegacy.evaluator.analysis import free_variables
from cqllegacy.evaluator.compiler import REFERENCE_RULES, Compiler, Context, QueryError
from cqllegacy.evaluator.gametree import GameInfo, PositionTable
from cqllegacy.evaluator.testing import pd
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    EMPTY_BIT,
    WHITE_PIECES,
    content_bit,
    types_of,
)
from cqllegacy.vocab.squares import Direction
from tests.evaluator.test_equivalence import NODE_SAMPLES, _relations
from tests.support import strategies as sc

ROOT = Path(__file__).resolve().parents[2]


def _main_line(game: chess.pgn.Game) -> list[chess.Board]:
    board = game.board()
    boards = [board.copy()]
    for move in game.mainline_moves():
        board.push(move)
        boards.append(board.copy())
    return boards


def _pgn_games(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def _playout(seed: int, chess960: bool) -> list[chess.Board]:
    """A random game, preferring captures, promotions and castling (what the move
    facts must get right)."""
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    boards = [board.copy()]
    for _ in range(rng.randrange(20, 160)):
        moves = list(board.legal_moves)
        if not moves:
            break
        special = [
            m for m in moves
            if board.is_castling(m) or m.promotion or board.is_en_passant(m) or board.is_capture(m)
        ]  # fmt: skip
        move = rng.choice(special if special and rng.random() < 0.5 else moves)
        board.push(move)
        boards.append(board.copy())
    return boards


def _lines() -> list[list[chess.Board]]:
    corpus = _pgn_games((ROOT / "fixtures" / "games.pgn").read_text(encoding="utf-8"))
    # Promotions, en passant, mates and a stalemate (fixtures/README.md lists them).
    chosen = [corpus[n - 1] for n in (8, 14, 17, 31, 40, 77, 135)]
    with lzma.open(ROOT / "fixtures" / "lichess-puzzles.pgn.xz", "rt", encoding="utf-8") as f:
        puzzles = list(itertools.islice(iter(lambda: chess.pgn.read_game(f), None), 12))
    null = _pgn_games("1. e4 -- 2. d4 e5 3. dxe5 *")
    lines = [_main_line(game) for game in (*chosen, *puzzles, *null)]
    lines += [_playout(seed, chess960=seed % 2 == 0) for seed in range(10)]
    return lines


LINES = _lines()


def _positions(
    lines: list[list[chess.Board]] = LINES,
) -> tuple[arrays.Positions, list[tuple[Context, int]]]:
    """All the lines as one set of positions, and the reference context of each row."""
    import numpy as np

    parts = [arrays.Positions.of_boards(boards, game=n) for n, boards in enumerate(lines, 1)]
    columns = {name: np.concatenate([p.columns[name] for p in parts]) for name in parts[0].columns}
    contexts = []
    for boards in lines:
        moves = [boards[i + 1].peek() for i in range(len(boards) - 1)]
        ctx = Context(PositionTable.from_main_line(boards, moves), GameInfo())
        ctx.set_scope(ct.Scope.MAINLINE)
        contexts += [(ctx, p) for p in range(len(boards))]
    fullmoves = {n: boards[0].fullmove_number for n, boards in enumerate(lines, 1)}
    return arrays.Positions(columns, fullmoves=fullmoves), contexts


POSITIONS, CONTEXTS = _positions()


def _reference_values(
    node: ct.Filter, contexts: list[tuple[Context, int]] | None = None
) -> list[object]:
    fn = Compiler(REFERENCE_RULES).compile(node).fn
    return [fn(ctx, p) for ctx, p in (CONTEXTS if contexts is None else contexts)]


def _array_values(node: ct.Filter, positions: arrays.Positions | None = None) -> list[object]:
    value = arrays.compile_array(node)(POSITIONS if positions is None else positions)
    if isinstance(value, arrays.Numbers):
        pairs = zip(value.values.tolist(), value.valid.tolist(), strict=True)
        return [v if ok else None for v, ok in pairs]
    return value.tolist()


def assert_same(
    node: ct.Filter,
    positions: arrays.Positions | None = None,
    contexts: list[tuple[Context, int]] | None = None,
) -> bool:
    """The array form's value equals the reference rule's at every position (False when
    the node has no array form: nothing compared); by default, those of :data:`LINES`."""
    try:
        got = _array_values(node, positions)
    except arrays.RowOnly:
        return False
    contexts = CONTEXTS if contexts is None else contexts
    want = _reference_values(node, contexts)
    for row, (a, r) in enumerate(zip(got, want, strict=True)):
        ctx, p = contexts[row]
        assert a == r, f"{node!r} at {ctx.boards[p].fen()}: array {a!r}, reference {r!r}"
    return True


#: Forms the shared samples leave out: the ply, the year, the move number from a FEN's.
_MORE = {
    ct.NumericValue: [
        ct.InRange(ct.NumericValue(ct.NumericKeyword.PLY), 3, 9),
        ct.InRange(ct.NumericValue(ct.NumericKeyword.YEAR), None, 2000),
        ct.InRange(ct.NumericValue(ct.NumericKeyword.MOVENUMBER), 2, 25),
        ct.Compare(ct.CompareOp.EQ, ct.NumericValue(ct.NumericKeyword.MOVENUMBER), ct.Number(41)),
    ],
    # The echo the translator writes for a relation: the relation's form.
    ct.Echo: [echo_of(ct.Relation(missing=(ANY_PIECE, 1, None), new=(ANY_PIECE, 0, 0)))],
}

SAMPLES = [
    (cls.__name__, node)
    for samples in (NODE_SAMPLES, _MORE)
    for cls, nodes in samples.items()
    for node in nodes
    if not free_variables(node)
]


@pytest.mark.parametrize(("name", "node"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_node_samples(name: str, node: ct.Filter) -> None:
    assert_same(node)


def test_every_class_with_an_array_form_is_compared_on_a_sample() -> None:
    compared = set()
    for _, node in SAMPLES:
        try:
            arrays.compile_array(node)
        except arrays.RowOnly:
            continue
        compared.update(type(n) for n in node.walk())
    # A piece variable has a value only under a binding of a tag: compared with the rows
    # through whole runs, binding by binding (tests/indexing/test_tag_bindings.py).
    served = set(arrays.ARRAY_FORMS.table()) - {ct.PieceVariable}
    assert not served - compared, sorted(cls.__name__ for cls in served - compared)


def test_every_row_only_class_says_why() -> None:
    for cls, reason in arrays.ARRAY_FORMS.absent_classes().items():
        assert len(reason) > 20, cls


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(sc.filters(depth=2))
def test_generated_filters(node: ct.Filter) -> None:
    # A filter the evaluator refuses (a ray with one argument …) is no comparison.
    with contextlib.suppress(QueryError):
        assert_same(node)


_SQUARES = st.integers(min_value=1, max_value=(1 << 64) - 1).map(
    lambda bits: bits & random.Random(bits).getrandbits(64) or bits
)
_TYPES = st.one_of(
    st.sets(st.sampled_from("KQRBNPkqrbnp"), min_size=1, max_size=3).map(
        lambda letters: types_of("".join(letters))
    ),
    st.sampled_from([ANY_PIECE, ANYTHING, EMPTY_BIT, EMPTY_BIT | types_of("Pp")]),
)
_DESIGNATORS = st.builds(ct.PieceSet, _TYPES, _SQUARES)
_PROMOTIONS = st.sampled_from([None, types_of("Q"), types_of("q"), types_of("Nn"), ANY_PIECE])


@SETTINGS
@given(sc.filters(depth=3))
def test_the_compiler_s_sizes_and_locality_are_those_of_the_walk(node: ct.Filter) -> None:
    # Found once per node from the children's, equal to what a walk of each node says.
    from cqllegacy.core.declarations import Reads
    from cqllegacy.evaluator.arrays.compiler import ArrayCompiler

    compiler = ArrayCompiler()
    for each in node.walk():
        assert compiler.size(each) == sum(1 for _ in each.walk())
        assert compiler.local(each) == (each.reads() <= Reads.NEXT_MOVE)


@SETTINGS
@given(
    st.one_of(st.none(), _DESIGNATORS),
    st.one_of(st.none(), _DESIGNATORS),
    st.one_of(st.none(), _DESIGNATORS),
    _PROMOTIONS,
    st.booleans(),
    st.booleans(),
    st.one_of(st.none(), st.sampled_from(list(ct.Castling))),
)
def test_moves(from_, to, capture, promote, enpassant, previous, castle) -> None:  # type: ignore[no-untyped-def]
    node = ct.Move(from_, to, capture, promote, enpassant, previous, castle)
    assert assert_same(node)


@pytest.mark.parametrize("field", ["from_", "to", "capture"])
def test_moves_square_by_square(field: str) -> None:
    # Where the move starts, lands (a castling king: c or g) and captures (en passant: the
    # pawn beside), one square at a time, both colours, next and previous.
    for square in chess.SQUARES:
        squares = ct.PieceSet(ANYTHING, 1 << square)
        for previous in (False, True):
            assert assert_same(ct.Move(**{field: squares}, previous=previous))


@pytest.mark.parametrize("castle", list(ct.Castling))
def test_castling_is_found_in_the_sampled_games(castle: ct.Castling) -> None:
    # Not vacuous: both kinds of castling happen in the games compared.
    assert any(_array_values(ct.Move(castle=castle)))


def test_en_passant_and_promotion_are_found_in_the_sampled_games() -> None:
    assert any(_array_values(ct.Move(enpassant=True)))
    assert any(_array_values(ct.Move(promote=ANY_PIECE)))
    assert any(_array_values(ct.Simple(ct.Keyword.MATE)))


@SETTINGS
@given(_DESIGNATORS, _DESIGNATORS)
def test_attacks(left: ct.Filter, right: ct.Filter) -> None:
    assert assert_same(ct.Attacks(left, right))
    assert assert_same(ct.AttackedBy(left, right))
    assert assert_same(ct.Count(ct.AttackedBy(left, right)))


@SETTINGS
@given(
    _DESIGNATORS,
    _DESIGNATORS,
    st.lists(st.sampled_from(list(ct.TransformKind)), min_size=1, max_size=2),
    st.booleans(),
)
def test_orbits(first: ct.Filter, second: ct.Filter, kinds: list, count: bool) -> None:
    node: ct.Filter = ct.And((first, second))
    for i, kind in enumerate(kinds):
        node = ct.Transform(kind, node, count=count and i == len(kinds) - 1)
    assert assert_same(node)


@SETTINGS
@given(_DESIGNATORS, st.sampled_from(list(Direction)), st.integers(1, 7), st.integers(1, 7))
def test_direction_sets(arg: ct.Filter, direction: Direction, lo: int, hi: int) -> None:
    assert assert_same(ct.DirectionSet(direction, arg, lo, hi))


def test_a_wrong_array_form_is_caught() -> None:
    # The comparison can fail: a form that forgets the colour of the side to move.
    wrong = ct.Simple(ct.Keyword.WTM)
    fn = arrays.compile_array(ct.Simple(ct.Keyword.BTM))
    with pytest.raises(AssertionError):
        want = _reference_values(wrong)
        assert fn(POSITIONS).tolist() == want


@SETTINGS
@given(
    st.lists(_DESIGNATORS, min_size=2, max_size=4),
    st.sampled_from(list(Direction)),
    st.sampled_from([ct.Ray, ct.XRay]),
)
def test_rays(sets: list[ct.Filter], direction: Direction, kind: type) -> None:
    node = ct.Ray(tuple(sets), direction) if kind is ct.Ray else ct.XRay(tuple(sets))
    assert assert_same(node)


@SETTINGS
@given(_DESIGNATORS, _DESIGNATORS)
def test_between(left: ct.Filter, right: ct.Filter) -> None:
    assert assert_same(ct.Between(left, right))


@pytest.mark.parametrize("feature", list(ct.PawnFeature))
def test_pawn_structure(feature: ct.PawnFeature) -> None:
    assert assert_same(ct.PawnStructure(feature))
    # Not vacuous: each feature is found in the games compared.
    assert any(_array_values(ct.PawnStructure(feature)))


_STEPS = st.one_of(
    _DESIGNATORS,
    st.sampled_from([ct.Simple(k) for k in (ct.Keyword.CHECK, ct.Keyword.WTM, ct.Keyword.TRUE)]),
    st.builds(lambda to: ct.Move(to=to), _DESIGNATORS),
)
_REPEATS = st.sampled_from([(1, 1), (1, 1), (0, 1), (0, None), (1, None), (2, 3), (0, 0)])


@SETTINGS
@given(st.lists(st.tuples(_STEPS, _REPEATS), min_size=1, max_size=4), st.booleans())
def test_lines(steps: list, grouped: bool) -> None:
    line_steps = tuple(ct.LineStep(step, lo, hi) for step, (lo, hi) in steps)
    if grouped and len(line_steps) > 1:
        # A repeated group of the first two constituents.
        line_steps = (ct.LineStep(ct.LineGroup(line_steps[:2]), 0, None), *line_steps[2:])
    assert assert_same(ct.Line(line_steps))


@SETTINGS
@given(_STEPS, st.booleans())
def test_find(arg: ct.Filter, all_: bool) -> None:
    assert assert_same(ct.Find(arg, all_))


@SETTINGS
@given(_STEPS, st.booleans(), st.sets(st.integers(0, POSITIONS.size - 1), min_size=1, max_size=40))
def test_find_asked_at_some_rows(arg: ct.Filter, all_: bool, rows: set[int]) -> None:
    # Asked at rows of a few games, a find looks along those games alone.
    import numpy as np

    node = ct.Find(arg, all_)
    try:
        at = arrays.ArrayCompiler().truth_at(node)
    except arrays.RowOnly:
        return
    asked = np.array(sorted(rows), dtype=np.intp)
    want = _reference_values(node)
    got = at(POSITIONS, asked).tolist()
    assert got == [want[row] is not None and want[row] is not False for row in asked.tolist()]


# ---- a shifted pattern with a piece on one square: the whole board moved per square ----

_PIECES = st.sampled_from(["K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "_", "A"])
_SHIFTS = st.sampled_from(
    [ct.TransformKind.SHIFT, ct.TransformKind.SHIFTHORIZONTAL, ct.TransformKind.SHIFTVERTICAL]
)


@st.composite
def placed_patterns(draw: st.DrawFn) -> ct.Filter:
    """``shift {Nd4 kf3}``, ``shift {k[b3,f5] Nd4}`` and their kin: one piece on a single
    square, others on one to three squares near it (so that some translations keep
    them on the board and others push some of their squares off), in any order, alone
    or in a compound, or inside a count."""
    first = draw(st.integers(0, 63))
    near = st.integers(-18, 18).map(lambda step: min(63, max(0, first + step)))
    sets = [[first], *draw(st.lists(st.lists(near, min_size=1, max_size=3), max_size=3))]
    items = [
        pd(draw(_PIECES) + "[" + ",".join(chess.square_name(s) for s in squares) + "]")
        for squares in sets
    ]
    items.insert(draw(st.integers(0, len(items) - 1)), items.pop(0))
    arg = items[0] if len(items) == 1 and draw(st.booleans()) else ct.Compound(tuple(items))
    shifted = ct.Transform(draw(_SHIFTS), arg)
    return ct.Count(shifted) if draw(st.booleans()) else shifted


@settings(max_examples=60, deadline=None)
@given(placed_patterns())
def test_shifted_patterns_agree_with_the_reference(node: ct.Filter) -> None:
    assert assert_same(node)


def _scattered_boards(count: int) -> list[chess.Board]:
    """Boards of scattered pieces, either side to move: kings attacked while not to move
    (set-ups python-chess lets through), two kings of a colour, none."""
    rng = random.Random(18)
    boards = []
    for _ in range(count):
        board = chess.Board(None)
        for symbol in rng.choices("KkQqRrBbNnPp", k=rng.randint(2, 12)):
            board.set_piece_at(rng.randrange(64), chess.Piece.from_symbol(symbol))
        board.turn = rng.choice(chess.COLORS)
        boards.append(board)
    return boards


@pytest.mark.parametrize(
    "attackers, king", [("A", "k"), ("a", "K"), ("[QRN]", "K"), ("A", "k[a-h8]")]
)
def test_attackers_of_a_lone_king_read_the_check_flag_exactly(attackers: str, king: str) -> None:
    """The attackers of a king by its enemies are found only where its side is not to
    move, is in check, or has another king (elsewhere the stored check flag says none):
    equal to python-chess's on every board, set-ups included."""
    boards = _scattered_boards(400)
    parts = [arrays.Positions.of_boards([board], game=n) for n, board in enumerate(boards, 1)]
    columns = {name: np.concatenate([p.columns[name] for p in parts]) for name in parts[0].columns}
    node = ct.Count(ct.Attacks(pd(attackers), pd(king)))
    found = arrays.compile_array(node)(arrays.Positions(columns)).values.tolist()
    assert found == [_attackers_count(board, pd(attackers), pd(king)) for board in boards]
    colour = bool(pd(king).types & WHITE_PIECES)
    assert any(n and board.turn != colour for n, board in zip(found, boards, strict=True))


def _attackers_count(board: chess.Board, left: ct.PieceSet, right: ct.PieceSet) -> int:
    """How many pieces of ``left`` attack a square of ``right``, by python-chess."""

    def squares(designator: ct.PieceSet) -> list[chess.Square]:
        return [
            square for square in chess.SQUARES
            if designator.squares >> square & 1
            and designator.types & content_bit(board.piece_at(square))
        ]  # fmt: skip

    targets = squares(right)
    return sum(1 for s in squares(left) if any(board.attacks_mask(s) >> t & 1 for t in targets))


_UNTURNED = _relations().map(
    lambda r: attrs.evolve(r, shift=False, flip=False, scope=ct.RelationScope.MAINLINE)
)


@settings(SETTINGS, max_examples=40)
@given(_UNTURNED)
def test_relations_along_the_main_line(relation: ct.Relation) -> None:
    """A relation whose later position is neither shifted nor turned has an array form:
    every pair of positions of a game compared, all games at once."""
    assert assert_same(relation)


@settings(SETTINGS, max_examples=15)
@given(_UNTURNED, st.sampled_from(list(ct.RelationScope)))
def test_the_echo_of_a_relation_is_evaluated_as_the_relation(
    relation: ct.Relation, scope: ct.RelationScope
) -> None:
    """The ``echo`` the translator writes for a relation has the relation's array form
    (along the main line, which is all a stored game examines); its reference rule makes
    each other position current."""
    echo = echo_of(attrs.evolve(relation, scope=scope))
    assume(isinstance(echo, ct.Echo))
    assert assert_same(echo)


#: Short lines for the turned relations: the reference rule tries up to 1,800 placements
#: of each pair of positions, which the whole lines would make slow.
_SHORT = _positions([boards[:12] for boards in LINES[::3]])
#: Turned and shifted, a pair may take 1,800 placements: fewer pairs still.
_TINY = _positions([boards[:10] for boards in LINES[::6]])

_TURNED = _relations().map(
    lambda r: attrs.evolve(r, shift=r.shift or not r.flip, scope=ct.RelationScope.MAINLINE)
)


@settings(SETTINGS, max_examples=25)
@given(_TURNED)
def test_shifted_and_turned_relations_along_the_main_line(relation: ct.Relation) -> None:
    """A relation whose later position may be shifted or turned: each pair tried under
    every turn, then every shift the reference rule tries (pinned by bound + 1 counted
    pieces, or all 225)."""
    assert assert_same(relation, *(_TINY if relation.flip and relation.shift else _SHORT))


@pytest.mark.parametrize(
    "relation",
    [
        # The README's relation with no CQL 6.1 form: one white piece gone, shifted.
        ct.Relation(shift=True, missing=(WHITE_PIECES, 1, 1)),
        ct.Relation(shift=True, new=(ANY_PIECE, 0, 1), missing=(ANY_PIECE, 0, 9)),
        ct.Relation(flip=True, original_same=(0, 40)),
        ct.Relation(allowable=0xFF00FF00, shift=True, missing=(ANY_PIECE, 1, 2)),
    ],
    ids=["one-white-missing", "nine-pins", "turned", "pattern"],
)
def test_shifted_and_turned_relations_on_whole_games(relation: ct.Relation) -> None:
    """The same on every position of the whole lines: many pins, none, more pins than
    the array form takes (then all 225 shifts), a pattern of allowable squares."""
    assert assert_same(relation)


def test_a_position_met_again_reflected() -> None:
    """Kings a1 and b8, later a1 and h2: only the reflection in the long diagonal turns
    the later position into the first (every rotation moves a1)."""
    board = chess.Board("1k6/8/8/8/8/8/8/K7 w - - 0 1")
    line = [board.copy()]
    for white, black in zip(
        ["Ka2", "Ka1"] * 3, ["Kc7", "Kd6", "Ke5", "Kf4", "Kg3", "Kh2"], strict=True
    ):
        for san in (white, black):
            board.push_san(san)
            line.append(board.copy())
    positions, contexts = _positions([line])
    relation = ct.Relation(flip=True)
    assert assert_same(relation, positions, contexts)
    assert _array_values(relation, positions)[0]
    assert not _array_values(ct.Relation(), positions)[0]


def test_relations_into_variations_are_row_only() -> None:
    with pytest.raises(arrays.RowOnly):
        arrays.compile_array(ct.Relation(scope=ct.RelationScope.ALL))
