"""Scidb's ``:hascomments``, ``:hasvariations`` and ``:hasannotation`` (issue 30): the
games they select are those whose movetext, read by python-chess's own reader, shows a
comment with text, a variation, a NAG other than ``$0``.  The predicate here listens to
the reader's events (a visitor), not to the game tree the evaluator walks.  Checked on
real games and on made-up ones with each feature alone, in a variation, before the first
move, empty, or ``$0``; the translation is refused by name; the index gives the scan's
bytes; the languages ``:hascomments`` may take in Scidb are refused with their place."""

from __future__ import annotations

import functools
from pathlib import Path

import chess.pgn
import pytest
from cqllegacy.translator import translate

from cqllegacy.api import Query
from cqllegacy.errors import CqlLegacyError
from cqllegacy.legacy import LegacySyntaxError, read_script
from tests.dialects.helpers import GAMES as REAL_GAMES
from tests.dialects.helpers import assert_index_gives_scan, indexed_copy

HERE = Path(__file__).resolve().parent
GAMES = [*REAL_GAMES, HERE / "movetext.pgn"]


class _Events(chess.pgn.BaseVisitor[set[str]]):
    """What the reader reports of a game's movetext."""

    def begin_game(self) -> None:
        self.seen: set[str] = set()

    def visit_comment(self, comment: str) -> None:
        if comment.strip():
            self.seen.add(":hascomments")

    def visit_nag(self, nag: int) -> None:
        if nag != chess.pgn.NAG_NULL:
            self.seen.add(":hasannotation")

    def begin_variation(self) -> chess.pgn.SkipType | None:
        self.seen.add(":hasvariations")
        return None

    def result(self) -> set[str]:
        return self.seen


@functools.cache
def features() -> list[set[str]]:
    found = []
    for path in GAMES:
        with path.open(encoding="utf-8") as handle:
            while (seen := chess.pgn.read_game(handle, Visitor=_Events)) is not None:
                found.append(seen)
    return found


def selected(text: str) -> set[int]:
    return {match.ordinal for match in Query.from_text(text).search(GAMES)}


KEYWORDS = [":hascomments", ":hasvariations", ":hasannotation"]


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_it_selects_the_games_whose_movetext_shows_it(keyword: str) -> None:
    want = {n for n, seen in enumerate(features(), start=1) if keyword in seen}
    assert want, "the games hold no example; the test would prove nothing"
    assert selected(f"(match {keyword} (position))") == want


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_its_negation_selects_the_others(keyword: str) -> None:
    want = {n for n, seen in enumerate(features(), start=1) if keyword not in seen}
    assert selected(f"(match !{keyword} (position))") == want


def test_it_joins_the_position_lists() -> None:
    marked = Query.from_text("(match :hasannotation (position :mate))").search(GAMES)
    assert [match.ordinal for match in marked] == [
        n
        for n in selected("(match (position :mate))")
        if ":hasannotation" in features()[n - 1]
    ]


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_the_translation_is_refused_by_name(keyword: str) -> None:
    with pytest.raises(CqlLegacyError, match=f"{keyword} at 1:8"):
        translate(f"(match {keyword} (position))")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("(match :hascomments de,en (position))", "a PGN comment names no language"),
        ("(match :hasvariations main (position))", "`:hasvariations` takes no word"),
    ],
)
def test_a_word_after_it_is_refused_with_its_place(text: str, words: str) -> None:
    with pytest.raises(LegacySyntaxError, match=words) as refused:
        read_script(text)
    assert (refused.value.line, refused.value.column) == (1, 8)


def test_check_names_them() -> None:
    script = read_script("(match :hascomments !:hasvariations :hasannotation (position))")
    assert [form for form, _ in script.dialect_forms] == [
        "`:hascomments`",
        "`:hasvariations`",
        "`!:hasvariations`",
        "`:hasannotation`",
    ]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory.mktemp("movetext"), GAMES)


@pytest.mark.parametrize(
    "text",
    [
        "(match :hascomments (position :check :markall))",
        "(match !:hasvariations (position :mate))",
        "(match :hasannotation (position Ke1 :markall))",
    ],
)
def test_the_index_gives_the_scans_bytes(indexed: Path, text: str) -> None:
    assert_index_gives_scan(text, indexed)
