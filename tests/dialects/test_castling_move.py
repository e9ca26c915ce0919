"""Scidb's ``:iscastling [PD]`` (issue 30): the move played from a position castles, as
one of the castlings PD names; marked positions compared with python-chess's own reading
of each main-line move, on real games; the CQL 6.1 translation (parsed by chessql) marks
the same positions; the index gives the scan's bytes."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from cqllegacy.translator import translate

from cqllegacy.api import Query
from cqllegacy.errors import CqlLegacyError
from cqllegacy.legacy import read_script
from tests.dialects.helpers import (
    GAMES,
    Predicate,
    assert_index_gives_scan,
    indexed_copy,
    marked,
    plies_where,
)
from tests.support.modern import assert_cql


def castles(*castlings: str) -> Predicate:
    """The move castles, as one of ``castlings`` (K, Q: White's; k, q: Black's)."""

    def holds(board: chess.Board, move: chess.Move | None) -> bool:
        if move is None or not board.is_castling(move):
            return False
        side = "K" if board.is_kingside_castling(move) else "Q"
        named = side if board.turn == chess.WHITE else side.lower()
        return not castlings or named in castlings

    return holds


CASES: dict[str, Predicate] = {
    ":iscastling": castles(),
    ":iscastling K": castles("K"),
    ":iscastling q": castles("q"),
    ":iscastling [Kk]": castles("K", "k"),
    ":iscastling [KQ]": castles("K", "Q"),
    ":iscastling [Qq]": castles("Q", "q"),
    ":iscastling K :flipcolor": castles("K", "k"),
    ":iscastling [Kq] :flipcolor": castles("K", "q", "k", "Q"),
    "!:iscastling": lambda board, move: not castles()(board, move),
}


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_iscastling_marks_the_castling_moves_python_chess_sees(keyword: str) -> None:
    want = plies_where(CASES[keyword])
    assert want, "the games hold no example; the test would prove nothing"
    assert marked(f"(match (position :markall {keyword}))") == want


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_its_cql_6_translation_marks_the_same_positions(keyword: str) -> None:
    text = f"(match (position :markall {keyword}))"
    modern = translate(text)
    assert_cql(modern)
    assert marked(modern) == marked(text)


def test_a_designator_after_it_is_its_argument() -> None:
    """Scidb reads the designator after :iscastling as the castlings: `K` is no king."""
    (item,) = read_script("(match (position :iscastling K))").match.position_lists()[0].items
    assert type(item).__name__ == "CastlingMove"


@pytest.mark.parametrize("castlings", ["R", "Kg1", "[KR]"])
def test_other_pieces_or_squares_are_refused_with_their_place(castlings: str) -> None:
    with pytest.raises(CqlLegacyError, match="castlings K, Q, k, q") as refused:
        Query.from_text(f"(match (position :iscastling {castlings}))")
    assert (refused.value.line, refused.value.column) == (1, 30)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory.mktemp("castling"), GAMES)


@pytest.mark.parametrize(
    "text",
    [
        "(match (position :iscastling [Qq] :markall))",
        "(match (position :iscastling K :check :flipcolor))",
    ],
)
def test_the_index_gives_the_scans_bytes(indexed: Path, text: str) -> None:
    assert_index_gives_scan(text, indexed, finds=False)
