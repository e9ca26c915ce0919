"""Scidb's ``:line`` (X3): its move-pattern language is read as a ``:sequence`` of
standard position lists.  Each script below runs on the documented games (the Légal mate,
Falkbeer–N.N. 1847, Réti–Tartakower 1910), their colour-flipped twins, games that stop
after the played part, and every game of the other fixtures; the positions it marks are
where the played moves end, after the moves an independent python-chess predicate names
(X3).  A marked line has no CQL 6.1 form: the approximate translation parses with chessql
and marks where the moves start; an indexed run answers as the scan."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import chess
import chess.pgn
import pytest
from cqllegacy.translator import to_core, translate

from cqllegacy.api import Query, index
from cqllegacy.legacy import LegacySyntaxError, read_script
from cqllegacy.legacy.printer import print_script
from cqllegacy.modern.errors import NotExpressible
from tests.dialects import helpers
from tests.dialects.helpers import Plies
from tests.support.modern import assert_cql

ROOT = Path(__file__).resolve().parents[2]
LINE_GAMES = ROOT / "fixtures" / "dialects" / "line-games.pgn"
GAMES = [LINE_GAMES, ROOT / "fixtures" / "games.pgn"]
#: A predicate sees the boards and moves of a main line from one ply on.
Predicate = Callable[[Plies, int], bool]


def expected(predicate: Predicate) -> dict[int, set[int]]:
    return helpers.expected(
        lambda plies: {p for p in range(len(plies)) if predicate(plies, p)}, GAMES
    )


def marked(text: str, *, use_index: Path | None = None) -> dict[int, set[int]]:
    return helpers.marked(text, GAMES if use_index is None else [use_index])


def shifted(found: dict[int, set[int]], plies: int) -> dict[int, set[int]]:
    """``found`` with every ply ``plies`` half-moves on."""
    return {game: {ply + plies for ply in each} for game, each in found.items()}


# --- the predicates: one move of the pattern each, from python-chess's boards ------------


def _mirror(white: bool) -> Callable[[chess.Square], chess.Square]:
    return (lambda square: square) if white else chess.square_mirror


def moves_match(
    plies: Plies, ply: int, *tests: Callable[[chess.Board, chess.Move, bool], bool]
) -> bool:
    """The moves from ``ply`` on pass ``tests`` one after another, all for White's
    pattern or all for its colour-flipped image."""
    return played_then(tests, ())(plies, ply)


def piece(board: chess.Board, square: chess.Square) -> tuple[chess.PieceType, bool] | None:
    found = board.piece_at(square)
    return None if found is None else (found.piece_type, found.color)


def mover(
    kind: chess.PieceType,
    to: str | None = None,
    captures: chess.PieceType | None = None,
    any_capture: bool = False,
    empty: bool = False,
    after: Callable[[chess.Board], bool] | None = None,
    mine: bool = True,
) -> Callable[[chess.Board, chess.Move, bool], bool]:
    """A move of a piece of ``kind`` (White's when ``mine`` in the unflipped pattern)."""

    def test(board: chess.Board, move: chess.Move, white: bool) -> bool:
        color = white if mine else not white
        if piece(board, move.from_square) != (kind, color):
            return False
        if to is not None and move.to_square != _mirror(white)(chess.parse_square(to)):
            return False
        target = piece(board, move.to_square)
        if captures is not None and target != (captures, not color):
            return False
        if any_capture and target is None:
            return False
        if empty and target is not None:
            return False
        if after is not None:
            board_after = board.copy(stack=False)
            board_after.push(move)
            return after(board_after)
        return True

    return test


def in_check(board: chess.Board) -> bool:
    return board.is_check()


def double_check(board: chess.Board) -> bool:
    return len(board.checkers()) >= 2


def mate(board: chess.Board) -> bool:
    return board.is_checkmate()


#: script body -> what it asks, written with python-chess
CASES: dict[str, Predicate] = {
    # the played part of the help's Légal example
    ":flipcolor :line (Nxe5 bxQ B:f7+)": lambda plies, ply: moves_match(
        plies,
        ply,
        mover(chess.KNIGHT, "e5", any_capture=True),
        mover(chess.BISHOP, captures=chess.QUEEN, mine=False),
        mover(chess.BISHOP, "f7", after=in_check),
    ),
    # the Réti–Tartakower mate, played to the end
    ":flipcolor :line (Qd8+ kxQ B:g5++ k [RB]d8#)": lambda plies, ply: moves_match(
        plies,
        ply,
        mover(chess.QUEEN, "d8", empty=True, after=in_check),
        mover(chess.KING, captures=chess.QUEEN, mine=False),
        mover(chess.BISHOP, "g5", after=double_check),
        mover(chess.KING, empty=True, mine=False),
        lambda board, move, white: (
            mover(chess.BISHOP, "d8", empty=True, after=mate)(board, move, white)
            or mover(chess.ROOK, "d8", empty=True, after=mate)(board, move, white)
        ),
    ),
    # a check without mate, by a knight, either colour
    ":flipcolor :line (N:+*)": lambda plies, ply: moves_match(
        plies,
        ply,
        mover(chess.KNIGHT, after=lambda b: b.is_check() and not b.is_checkmate()),
    ),
    # castling long, then any black move, then a white rook move without check
    ":line (O-O-O -- R-)": lambda plies, ply: moves_match(
        plies,
        ply,
        lambda board, move, white: (
            white and board.is_queenside_castling(move) and board.turn == chess.WHITE
        ),
        lambda board, move, white: white,
        mover(chess.ROOK, empty=True, after=lambda b: not b.is_check()),
    ),
}


#: How many moves each script below plays (those before `|`), counted by hand: where its
#: mark goes, after the moves its predicate checks.
PLAYED = {
    ":flipcolor :line (Nxe5 bxQ B:f7+)": 3,
    ":flipcolor :line (Qd8+ kxQ B:g5++ k [RB]d8#)": 5,
    ":flipcolor :line (N:+*)": 1,
    ":line (O-O-O -- R-)": 3,
    ":flipcolor :line (Nxe5 bxQ B:f7+ | ke7! Nd5#)": 3,
    ":flipcolor :line (Qd8+ | kxd8! B:g5++ k [RB]d8#)": 1,
    ":flipcolor :line (k!)": 1,
    ":line (A:+ | -- :#)": 1,
}


def _mates(board: chess.Board, move: chess.Move, white: bool) -> bool:
    after = board.copy(stack=False)
    after.push(move)
    return after.is_checkmate()


def could_follow(
    board: chess.Board,
    white: bool,
    steps: tuple[tuple[Callable[[chess.Board, chess.Move, bool], bool], bool], ...],
) -> bool:
    """Some legal moves from ``board`` pass ``steps`` (a test, and whether the move must
    be the only legal one) one after another."""
    if not steps:
        return True
    (test, only), rest = steps[0], steps[1:]
    legal = list(board.legal_moves)
    if only and len(legal) != 1:
        return False
    for move in legal:
        if test(board, move, white):
            after = board.copy(stack=False)
            after.push(move)
            if could_follow(after, white, rest):
                return True
    return False


def played_then(
    played: tuple[Callable[[chess.Board, chess.Move, bool], bool], ...],
    hypothetical: tuple[tuple[Callable[[chess.Board, chess.Move, bool], bool], bool], ...],
    forced: frozenset[int] = frozenset(),
) -> Predicate:
    """The moves ``played`` are the game's from ``ply`` (those numbered in ``forced`` the
    only legal move), and ``hypothetical`` could follow, for White's pattern or its image."""

    def holds(plies: Plies, ply: int) -> bool:
        end = ply + len(played)
        if end > len(plies) - 1:
            return False
        for white in (True, False):
            if all(
                test(plies[ply + i][0], plies[ply + i][1], white)  # type: ignore[arg-type]
                and (i not in forced or plies[ply + i][0].legal_moves.count() == 1)
                for i, test in enumerate(played)
            ) and could_follow(plies[end][0], white, hypothetical):
                return True
        return False

    return holds


def either(
    *tests: Callable[[chess.Board, chess.Move, bool], bool],
) -> Callable[[chess.Board, chess.Move, bool], bool]:
    return lambda board, move, white: any(test(board, move, white) for test in tests)


#: Scripts with moves after `|` or `!`: they run, and CQL 6.1 cannot say them.
HYPOTHETICAL: dict[str, Predicate] = {
    # the help's Légal example, whole
    ":flipcolor :line (Nxe5 bxQ B:f7+ | ke7! Nd5#)": played_then(
        (
            mover(chess.KNIGHT, "e5", any_capture=True),
            mover(chess.BISHOP, captures=chess.QUEEN, mine=False),
            mover(chess.BISHOP, "f7", after=in_check),
        ),
        (
            (mover(chess.KING, "e7", empty=True, mine=False), True),
            (mover(chess.KNIGHT, "d5", empty=True, after=mate), False),
        ),
    ),
    # the help's Réti example, whole
    ":flipcolor :line (Qd8+ | kxd8! B:g5++ k [RB]d8#)": played_then(
        (mover(chess.QUEEN, "d8", empty=True, after=in_check),),
        (
            (mover(chess.KING, "d8", any_capture=True, mine=False), True),
            (mover(chess.BISHOP, "g5", after=double_check), False),
            (mover(chess.KING, empty=True, mine=False), False),
            (
                either(
                    mover(chess.BISHOP, "d8", empty=True, after=mate),
                    mover(chess.ROOK, "d8", empty=True, after=mate),
                ),
                False,
            ),
        ),
    ),
    # a played king move that was the only legal one
    ":flipcolor :line (k!)": played_then(
        (mover(chess.KING, empty=True, mine=False),), (), forced=frozenset({0})
    ),
    # a White check after which a mate in one was possible, whatever was played
    ":line (A:+ | -- :#)": played_then(
        (lambda board, move, white: white and board.turn and board.gives_check(move),),
        ((lambda board, move, white: True, False), (_mates, False)),
    ),
}


@pytest.mark.parametrize("body", sorted(HYPOTHETICAL))
def test_moves_after_the_bar_need_only_be_legal(body: str) -> None:
    text = f"(match (position :markall {body}))"
    want = expected(HYPOTHETICAL[body])
    assert want, f"{body}: the games hold no example; the test would prove nothing"
    assert marked(text) == shifted(want, PLAYED[body])


@pytest.mark.parametrize("body", sorted(HYPOTHETICAL))
def test_moves_after_the_bar_are_refused_by_the_translation_naming_them(body: str) -> None:
    with pytest.raises(NotExpressible) as caught:
        translate(f"(match (position {body}))")
    said = str(caught.value)
    assert ":line with" in said and "hypothetical moves" in said


def test_the_documented_mates_are_found_where_the_game_stops_or_goes_on() -> None:
    legal = marked("(match (position :flipcolor :line (Nxe5 bxQ B:f7+ | ke7! Nd5#)))")
    found = set(legal) & set(range(1, 13))
    assert found == _game_ordinals("1847") | _game_ordinals("1750") | _game_ordinals(
        "Resigns after the check"
    )
    reti = marked("(match (position :flipcolor :line (Qd8+ | kxd8! B:g5++ k [RB]d8#)))")
    assert set(reti) & set(range(1, 13)) == _game_ordinals("1910") | _game_ordinals("queen check")


@pytest.mark.parametrize("body", sorted(HYPOTHETICAL))
def test_the_printed_script_reads_back_as_the_same_query(body: str) -> None:
    script = read_script(f"(match (position {body}))")
    assert to_core(read_script(print_script(script))) == to_core(script)


@pytest.mark.parametrize("body", sorted(CASES))
def test_a_line_marks_the_position_where_its_played_moves_end(body: str) -> None:
    text = f"(match (position :markall {body}))"
    want = expected(CASES[body])
    assert want, f"{body}: the games hold no example; the test would prove nothing"
    assert marked(text) == shifted(want, PLAYED[body])


@pytest.mark.parametrize("body", sorted(CASES))
def test_its_count_is_that_of_the_positions_the_moves_start_from(body: str) -> None:
    found = Query.from_text(f"(match (position :markall {body}))").search(GAMES)
    counts = {match.ordinal: match.lists[0].count for match in found}
    assert counts == {game: len(plies) for game, plies in expected(CASES[body]).items()}


@pytest.mark.parametrize("body", sorted(CASES))
def test_its_translation_is_refused_naming_the_line(body: str) -> None:
    text = f"(match\n  (position :markall {body}))"
    with pytest.raises(NotExpressible) as caught:
        translate(text)
    column = 1 + text.splitlines()[1].index(":line")
    said = str(caught.value)
    assert f"`:line` at 2:{column}" in said and f"end, {PLAYED[body]} half-moves after" in said


@pytest.mark.parametrize("body", sorted(CASES))
def test_its_approximate_cql_6_translation_parses_and_marks_where_the_moves_start(
    body: str,
) -> None:
    text = f"(match (position :markall {body}))"
    modern = translate(text, approximate=True)
    assert "// approximate: `:line`" in modern
    assert_cql(modern)
    assert marked(modern) == expected(CASES[body])


def _game_ordinals(event_part: str) -> set[int]:
    found = set()
    ordinal = 0
    with LINE_GAMES.open(encoding="utf-8") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            ordinal += 1
            if event_part in f"{headers['Event']} {headers['Date']}":
                found.add(ordinal)
    return found


def test_the_documented_games_and_their_twins_are_found() -> None:
    # Falkbeer–N.N., the Légal game and the game that stops after Bxf7+, with their twins.
    legal_mates = _game_ordinals("1847") | _game_ordinals("1750")
    legal_mates |= _game_ordinals("Resigns after the check")
    legal = marked("(match (position :flipcolor :line (Nxe5 bxQ B:f7+)))")
    assert set(legal) & set(range(1, 13)) == legal_mates
    assert len(legal_mates) == 6
    reti = marked("(match (position :flipcolor :line (Qd8+ kxQ B:g5++ k [RB]d8#)))")
    assert set(reti) & set(range(1, 13)) == _game_ordinals("1910")


def test_the_played_part_without_flipcolor_finds_only_white_s_version() -> None:
    found = set(marked("(match (position :line (Nxe5 bxQ B:f7+)))")) & set(range(1, 13))
    assert found == {1, 2, 4}


def test_an_indexed_run_answers_as_the_scan(tmp_path: Path) -> None:
    pgn = tmp_path / "line-games.pgn"
    pgn.write_bytes(LINE_GAMES.read_bytes())
    index(pgn)
    for body in [*CASES, *HYPOTHETICAL]:
        text = f"(match (position :markall {body}))"
        scanned = {k: v for k, v in marked(text).items() if k <= 12}
        assert marked(text, use_index=pgn) == scanned


@pytest.mark.parametrize(
    ("line", "standard"),
    [
        (
            "(Nf3-e5 bxQ)",
            "(:sequence ((position :movefrom Nf3 :moveto .e5) (position :movefrom b :moveto Q)))",
        ),
        ("(N)", "(:and ((position :movefrom N :moveto .)))"),
        ("(Nx+)", "(:sequence ((position :movefrom N :moveto U) (position :check)))"),
        ("(n:e4#)", "(:sequence ((position :movefrom n :moveto ?e4) (position :mate)))"),
        ("(Pd5xe6 ep)", "(:and ((position :movefrom Pd5 :moveto .e6 :enpassant)))"),
        ("(Pe7-e8=Q)", "(:and ((position :movefrom Pe7 :moveto .e8 :promote Qe8)))"),
        (
            "(2...e7-e6)",
            "(:and ((position :btm :movenumber 2 :movefrom ae7 :moveto .e6)))",
        ),
        (
            "(1.Pe2-e4 Ng8-f6)",
            "(:sequence ((position :wtm :movenumber 0 :movefrom Pe2 :moveto .e4)"
            " (position :movefrom ng8 :moveto .f6)))",
        ),
        ("(b[bg]7xI?1)", "(:and ((position :movefrom b[b7,g7] :moveto I?1)))"),
        # Only the captured piece named: the other colour moves (the help's `xm`).
        ("(:m)", "(:and ((position :movefrom A :moveto [.m])))"),
        ("(x[Rr])", "(:and ((position :movefrom U :moveto [Rr])))"),
    ],
)
def test_a_line_is_read_as_its_standard_sequence(line: str, standard: str) -> None:
    dialect = to_core(read_script(f"(match (position :line {line}))"))
    keyword, lists = standard[1:].split(" ", 1)
    spelled = to_core(read_script(f"(match (position {keyword} {lists[:-1]}))"))
    # It matches where its standard spelling does; only its mark moves, one half-move
    # per played move (each of these plays one, or two for a :sequence of moves).
    assert attrs.evolve(dialect.lists[0], mark_end=None) == spelled.lists[0]
    end = dialect.lists[0].mark_end
    assert end is not None
    assert end.plies == len([token for token in line[1:-1].split() if token != "ep"])


@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        ("(match (position :line (Pe2-e4 Ng8-f6)))", "1:32", "must alternate"),
        ("(match (position :line (N-Q)))", "1:25", "not a move: 'N-Q'"),
        ("(match (position :line (Pe7-e8)))", "1:25", "names its new piece"),
        ("(match (position :line (1.e4 e5 3.Nf3)))", "1:33", "does not follow"),
        ("(match (position :line (e4 1...e5)))", "1:25", "all moves or none"),
        ("(match (position :line Nxe5))", "1:24", "in parentheses"),
        ("(match (position :line (Nxe5 bxQ | Bxf7+ Ke7)))", "1:42", "must alternate"),
        ("(match (position :line (Nxe5 bxQ |)))", "1:34", "no move after `|`"),
        ("(match (position :line (Nxe5 | bxQ | Bxf7)))", "1:36", "a second `|`"),
        ("(match (position :line (N@f3)))", "1:25", "chess variant"),
        ("(match (position :line (Q~~#)))", "1:25", "promoted-piece"),
        ("(match\n (position :shift :line (Qa2-b2+ -- Qb2-b3+)))", "2:19", "under :shift"),
        (
            "(match (position :flipcolor :and ((position :line (1.e4 e5)))))",
            "1:45",
            "forbids :flipcolor",
        ),
        ("(match (position :line* (Pe2-e4 e7-e5)))", "1:33", "`:line*` needs the kind"),
        ("(match (position :line (Pe2-e4 ep)))", "1:32", "`ep` follows a capture"),
        ("(match (position :line (xq xq)))", "1:28", "must alternate"),
        ("(match (position :line (1.e4 e5 2.Nxp)))", "1:33", "whose pieces"),
    ],
)
def test_a_mistake_or_refusal_is_placed_and_explained(text: str, place: str, words: str) -> None:
    with pytest.raises(LegacySyntaxError) as caught:
        read_script(text, "s.cql")
    rendered = caught.value.render()
    assert f"s.cql:{place}: error:" in rendered
    assert words in rendered


def test_check_names_the_line_form() -> None:
    script = read_script("(match (position :line (Nxe5 bxQ)))")
    assert [form for form, _ in script.dialect_forms] == ["`:line`"]
