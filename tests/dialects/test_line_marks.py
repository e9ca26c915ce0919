"""Where Scidb's ``:line`` puts its mark (X3): at the position where its played moves
end, while its list still matches, and counts, where they start.  Checked on the
documented games (the Légal mate, Falkbeer–N.N. 1847; Réti–Tartakower 1910), their
colour-flipped twins and games that stop right after the played part, against
python-chess's replay of each game; in the output PGN, with an index and with workers;
and the placements whose end is not fixed are refused with their place."""

from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn
import pytest
from cqllegacy.translator import TranslationError, to_core

from cqllegacy.api import Query, index
from cqllegacy.evaluator.analysis import QueryError
from cqllegacy.legacy import read_script
from tests.dialects.helpers import main_lines
from tests.indexing.test_equivalence import in_process

ROOT = Path(__file__).resolve().parents[2]
LINE_GAMES = ROOT / "fixtures" / "dialects" / "line-games.pgn"

LEGAL = "(match (position :flipcolor :markall :line (Nxe5 bxQ B:f7+)))"
RETI = "(match (position :flipcolor :markall :line (Qd8+ kxQ B:g5++ k [RB]d8#)))"


def _plies() -> dict[int, list[tuple[chess.Board, chess.Move | None]]]:
    return dict(main_lines((LINE_GAMES,)))


def _marked(text: str, **options: object) -> dict[int, set[int]]:
    found = Query.from_text(text).search(LINE_GAMES, **options)  # type: ignore[arg-type]
    return {match.ordinal: set(match.marked) for match in found}  # type: ignore[misc]


def _event(ordinal: int) -> str:
    with LINE_GAMES.open(encoding="utf-8") as handle:
        for _ in range(ordinal - 1):
            chess.pgn.read_headers(handle)
        headers = chess.pgn.read_headers(handle)
    assert headers is not None
    return headers["Event"]


def _last_move(ordinal: int, ply: int) -> tuple[chess.Board, chess.Move]:
    """python-chess's replay: the board at ``ply`` and the move that reached it."""
    board, _ = _plies()[ordinal][ply - 1]
    move = _plies()[ordinal][ply - 1][1]
    assert move is not None
    after = board.copy(stack=False)
    after.push(move)
    assert after == _plies()[ordinal][ply][0]
    return board, move


def test_the_legal_mate_is_marked_after_the_bishop_check() -> None:
    found = _marked(LEGAL)
    # Falkbeer, Légal, the game that stops after the check, and their twins.
    assert len(found) == 6
    for ordinal, plies in found.items():
        (ply,) = plies
        board, move = _last_move(ordinal, ply)
        white = board.turn == chess.WHITE
        piece = board.piece_at(move.from_square)
        assert piece == chess.Piece(chess.BISHOP, white), _event(ordinal)
        assert move.to_square == (chess.F7 if white else chess.F2)
        assert board.gives_check(move)
        # Three played moves before: the knight took on e5 (e4 in the twins).
        start, first = _plies()[ordinal][ply - 3]
        assert first is not None and start.piece_type_at(first.from_square) == chess.KNIGHT
        assert first.to_square == (chess.E5 if white else chess.E4)


def test_the_reti_mate_is_marked_at_the_mate() -> None:
    found = _marked(RETI)
    assert found and all("Vienna" in _event(ordinal) for ordinal in found)
    for ordinal, (ply,) in found.items():
        assert _plies()[ordinal][ply][0].is_checkmate()
        assert ply == len(_plies()[ordinal]) - 1


def test_a_game_that_stops_after_the_played_part_is_marked_at_its_last_position() -> None:
    stops = {
        ordinal for ordinal in range(1, 13) if _event(ordinal).startswith("Resigns after the check")
    }
    assert len(stops) == 2  # the game and its twin
    found = _marked(LEGAL)
    for ordinal in stops:
        assert found[ordinal] == {len(_plies()[ordinal]) - 1}
    # The help's own example: a line whose played check ends the game.
    help_text = (
        "(match (position :flipcolor :sequence ((position :line (Qd8+ | kxd8!))"
        " (position :terminal))))"
    )
    queen = {o for o in range(1, 13) if _event(o).startswith("Resigns after the queen")}
    ends = _marked(help_text)
    assert set(ends) == queen
    for ordinal in queen:
        assert ends[ordinal] == {len(_plies()[ordinal]) - 1}


def test_the_output_pgn_comments_the_last_played_move() -> None:
    pgn, report, _, _ = in_process(Query.from_text(LEGAL), LINE_GAMES, False)
    paris = pgn.split('[Event "Paris"]')[1].split("[Event")[0]
    assert "6. Bxf7+ { MATCH }" in paris
    assert paris.count("MATCH") == 1
    assert '"plies": [11]' in report.splitlines()[1]


def test_an_index_and_workers_mark_as_the_scan(tmp_path: Path) -> None:
    pgn = tmp_path / "line-games.pgn"
    pgn.write_bytes(LINE_GAMES.read_bytes())
    index(pgn)
    for text in (LEGAL, RETI):
        query = Query.from_text(text)
        scanned = in_process(query, pgn, False)
        assert "MATCH" in scanned[0]
        assert in_process(query, pgn, True) == scanned
        assert _marked(text, jobs=2) == _marked(text)


def _end(body: str) -> int | None:
    end = to_core(read_script(f"(match (position {body}))")).lists[0].mark_end
    return None if end is None else end.plies


@pytest.mark.parametrize(
    ("body", "plies"),
    [
        (":line (Nxe5 bxQ Bxf7+)", 3),
        (":and ((position :line (Nxe5 bxQ)))", 2),
        # List j of a :sequence stands j positions on.
        (":sequence ((position) (position :line (Nxe5 bxQ)))", 3),
        (":sequence ((position :line (Nxe5)) (position :check))", 1),
        # Under :not nothing is played.
        (":and ((position :not :line (Nxe5 bxQ)))", None),
        (":not :line (Nxe5 bxQ)", None),
        # Options that end alike.
        (":or ((position :line (Nxe5 bxQ)) (position :line (Bxf7+ kxB)))", 2),
        (":line (Nxe5) :line (N)", 1),
        # No played move: the mark stays.
        (":line (| Nxe5)", None),
        (":noannotate :line (Nxe5 bxQ)", None),
        (":noannotate :variations :line (Nxe5 bxQ)", None),
    ],
)
def test_which_line_moves_the_mark(body: str, plies: int | None) -> None:
    assert _end(body) == plies


@pytest.mark.parametrize(
    ("body", "place", "words"),
    [
        (":or ((position :line (Nxe5)) (position :check))", "1:33", "in an option of :or"),
        (":gappedsequence ((position) (position :line (Nxe5)))", "1:56", ":gappedsequence"),
        (":line (Nxe5 bxQ) :line (Nxe5)", "1:35", "ends 1 half-moves on"),
        (
            ":matchconsecutive ((position :line (Nxe5)) (position :check))",
            "1:47",
            ":matchconsecutive",
        ),
        (":variations :line (Nxe5)", "1:30", "with :variations"),
        (
            ":pretransformmatchcount 1 :flipcolor :line (Nxe5)",
            "1:55",
            "with :pretransformmatchcount",
        ),
    ],
)
def test_a_line_whose_end_is_not_fixed_is_refused(body: str, place: str, words: str) -> None:
    with pytest.raises(TranslationError) as caught:
        to_core(read_script(f"(match (position {body}))", "s.cql"))
    said = caught.value.render()
    assert f"s.cql:{place}:" in said and "`:line`" in said and words in said


def test_following_every_variation_is_refused() -> None:
    game = "1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 4. Nc3 g6 5. Nxe5 (5. h3) Bxd1 6. Bxf7+ Ke7 7. Nd5# 1-0"
    query = Query.from_text(LEGAL)
    with pytest.raises(QueryError, match=r"`:line` at 1:\d+ marks where its played moves end"):
        list(query.search(io.StringIO(game), variations=True))
    assert [m.marked for m in query.search(io.StringIO(game))] == [(11,)]


def test_the_html_page_shows_the_position_after_the_last_played_move() -> None:
    from cqllegacy.present.positions import marked_positions

    query = Query.from_text(LEGAL)
    with LINE_GAMES.open(encoding="utf-8") as handle:
        chess.pgn.read_game(handle)
        paris = chess.pgn.read_game(handle)
    assert paris is not None
    (match,) = query.search(io.StringIO(str(paris)))
    (shown,) = marked_positions(paris, query.core, [match.marked])
    assert shown.label == "ply 11, after 6. Bxf7+"
