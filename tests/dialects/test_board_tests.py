"""Scidb's ``:forced``, ``:threefoldrepetition``, ``:halfmoveclock`` and ``:castling``
(issue 30): the positions a ``:markall`` list marks are those python-chess's own
predicates name, on real games (fixtures/games.pgn, the examples' games) and two made to
repeat; the translation is refused by name (CQL 6.1 has none of them); the index gives the
scan's bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import pytest
from cqllegacy.translator import translate

from cqllegacy.api import Query
from cqllegacy.errors import CqlLegacyError
from tests.dialects import helpers
from tests.dialects.helpers import GAMES as REAL_GAMES
from tests.dialects.helpers import Plies, assert_index_gives_scan, each, indexed_copy

#: Real games, and two made to repeat positions (one where the kings' walk loses the
#: castling rights, so the start of the walk is a different position).
GAMES = [*REAL_GAMES, Path(__file__).resolve().parent / "repetition.pgn"]


def expected(plies_of: Callable[[Plies], set[int]]) -> dict[int, set[int]]:
    # Each board keeps its moves: python-chess's repetitions look back through them.
    return helpers.expected(plies_of, GAMES, stack=True)


def marked(text: str) -> dict[int, set[int]]:
    return helpers.marked(text, GAMES)


def first_threefold(positions: Plies) -> set[int]:
    # python-chess's is_repetition(3) looks back through the moves played.
    return next(({p} for p, (board, _) in enumerate(positions) if board.is_repetition(3)), set())


def rights(*letters: str) -> Callable[[chess.Board, chess.Move | None], bool]:
    """Exactly one of the castling rights named (the help: `[KQ]` is one, not both)."""
    has = {
        "K": lambda board: board.has_kingside_castling_rights(chess.WHITE),
        "Q": lambda board: board.has_queenside_castling_rights(chess.WHITE),
        "k": lambda board: board.has_kingside_castling_rights(chess.BLACK),
        "q": lambda board: board.has_queenside_castling_rights(chess.BLACK),
    }
    return lambda board, move: sum(1 for letter in letters if has[letter](board)) == 1


CASES: dict[str, Callable[[Plies], set[int]]] = {
    ":castling K": each(rights("K")),
    ":castling [KQ]": each(rights("K", "Q")),
    ":castling [Qq]": each(rights("Q", "q")),
    ":castling q :flipcolor": each(lambda b, m: rights("q")(b, m) or rights("Q")(b, m)),
    "!:castling [Kk]": each(lambda b, m: not rights("K", "k")(b, m)),
    ":forced": each(lambda board, move: move is not None and board.legal_moves.count() == 1),
    "!:forced": each(lambda board, move: not (move is not None and board.legal_moves.count() == 1)),
    ":threefoldrepetition": first_threefold,
    ":halfmoveclock >=20": each(lambda board, move: board.halfmove_clock >= 20),
    ":halfmoveclock 0": each(lambda board, move: board.halfmove_clock == 0),
    ":halfmoveclock 3 5": each(lambda board, move: 3 <= board.halfmove_clock <= 5),
}


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_a_board_test_marks_the_positions_python_chess_names(keyword: str) -> None:
    want = expected(CASES[keyword])
    assert want, "the games hold no example; the test would prove nothing"
    assert marked(f"(match (position :markall {keyword}))") == want


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_the_translation_is_refused_by_name(keyword: str) -> None:
    name = keyword.split()[0].lstrip("!")
    with pytest.raises(CqlLegacyError, match=f"{name} at 1:"):
        translate(f"(match (position :markall {keyword}))")


@pytest.mark.parametrize("designator", ["R", "Kg1", "[KR]"])
def test_castling_takes_rights_only(designator: str) -> None:
    with pytest.raises(CqlLegacyError, match="castling rights K, Q, k, q") as refused:
        Query.from_text(f"(match (position :castling {designator}))")
    assert (refused.value.line, refused.value.column) == (1, 28)  # type: ignore[attr-defined]


def test_the_half_move_clock_always_holds_inside_a_variation() -> None:
    query = Query.from_text("(match (position :variationsonly :halfmoveclock 1000 :markall))")
    matches = list(query.search([REAL_GAMES[0]]))
    assert matches, "fixtures/games.pgn has variations"
    assert all(match.marked for match in matches)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory.mktemp("board"), GAMES)


@pytest.mark.parametrize(
    "text",
    [
        "(match (position :forced :check :markall))",
        "(match (position :threefoldrepetition))",
        "(match (position :halfmoveclock >=20 R :markall))",
        "(match (position :castling [Kk] :check :markall))",
    ],
)
def test_the_index_gives_the_scans_bytes(indexed: Path, text: str) -> None:
    assert_index_gives_scan(text, indexed)


def test_check_names_them() -> None:
    from cqllegacy.legacy import read_script

    text = "(match (position :forced :castling K :halfmoveclock 5 :threefoldrepetition))"
    forms = [form for form, _ in read_script(text).dialect_forms]
    assert forms == ["`:forced`", "`:castling`", "`:halfmoveclock`", "`:threefoldrepetition`"]
