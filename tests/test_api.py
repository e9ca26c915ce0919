"""The Python API: ``cqllegacy.load`` and the query and match objects."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path

import chess
import pytest

import cqllegacy
from cqllegacy.api import SAMPLE_GAMES
from cqllegacy.cli import main
from cqllegacy.errors import ScriptError, UsageError

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "fixtures" / "games.pgn"
KNIGHT_FORK = ROOT / "examples" / "knight-fork.cql"
# A shifted whole-board relation: the one relation CQL 6.1 cannot say (corpus fixture 145).
RELATION = "(match\n (position :attackcount A k 2 :relation (:shift :missingpiececount A 1)))\n"
CORPUS = ROOT / "fixtures" / "migration"


def test_load_reads_text_and_files_and_knows_the_language(tmp_path: Path) -> None:
    legacy = cqllegacy.load(KNIGHT_FORK)
    assert legacy.language == "legacy" and legacy.path == KNIGHT_FORK
    assert cqllegacy.load(str(KNIGHT_FORK)).core == legacy.core
    modern = cqllegacy.load(legacy.translate())
    assert modern.language == "modern" and modern.path is None
    assert modern.core.lists[0].body == legacy.core.lists[0].body


def test_load_reports_mistakes_with_their_place(tmp_path: Path) -> None:
    with pytest.raises(ScriptError) as error:
        cqllegacy.load("(match\n (position :Mate))")
    assert (error.value.line, error.value.column) == (2, 12)
    with pytest.raises(UsageError):
        cqllegacy.load(tmp_path / "missing.cql")


def test_translate_refuses_with_a_translation_error_at_the_construct() -> None:
    query = cqllegacy.load(RELATION)
    with pytest.raises(cqllegacy.TranslationError) as error:
        query.translate()
    assert (error.value.line, error.value.column) == (2, 31)
    assert ":relation" in error.value.message
    assert "// approximate:" in query.translate(approximate=True)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.iterdir() if p.is_dir()))
def test_translate_gives_what_the_translate_command_writes(name: str) -> None:
    # The API and `cqllegacy translate` are one way from legacy text to CQL 6.1 text.
    folder = CORPUS / name
    query = cqllegacy.load(folder / "legacy.cql")
    golden = folder / "modern.cql"
    if golden.exists():
        assert query.translate() == golden.read_text(encoding="utf-8")
    else:
        with pytest.raises(cqllegacy.TranslationError):
            query.translate()


def test_search_gives_what_the_json_report_gives(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    assert main(["run", str(KNIGHT_FORK), "-i", str(GAMES), "-o", str(tmp_path / "o.pgn"),
                 "--report", str(report), "-q", "-j", "1"]) == 0  # fmt: skip
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    matches = list(cqllegacy.load(KNIGHT_FORK).search(GAMES))
    assert [m.ordinal for m in matches] == [r["ordinal"] for r in records]
    assert [[list(p) for p in m.plies] for m in matches] == [
        [item["plies"] for item in r["lists"]] for r in records
    ]
    for match, record in zip(matches, records, strict=True):
        assert match.white == record["white"] and match.headers["Black"] == record["black"]
        assert match.pgn.startswith("[Event ")
        assert set(match.boards()) == set(match.marked)


def test_search_with_several_processes_gives_the_same_matches() -> None:
    query = cqllegacy.load(KNIGHT_FORK)
    one = [(m.ordinal, m.plies) for m in query.search(SAMPLE_GAMES)]
    two = [(m.ordinal, m.plies) for m in query.search(SAMPLE_GAMES, jobs=2)]
    assert one == two and len(one) > 5


def test_a_search_stopped_early_ends_its_scan() -> None:
    before = threading.active_count()
    query = cqllegacy.load("(match (position :check :markall))")
    first = list(itertools.islice(query.search(SAMPLE_GAMES), 3))
    assert [m.ordinal for m in first] == [1, 2, 3]
    assert threading.active_count() == before


def test_the_board_at_a_marked_position_is_the_position_that_matched() -> None:
    query = cqllegacy.load("(match (position :mate))")
    for match in itertools.islice(query.search(GAMES), 5):
        [key] = match.marked
        assert match.board(key).is_checkmate()


def test_a_match_shows_as_a_diagram_in_jupyter() -> None:
    match = next(cqllegacy.load(KNIGHT_FORK).search(GAMES))
    svg = match._repr_svg_()
    assert svg.startswith("<svg") and "#e0301e" in svg and 'class="arrow"' in svg
    page = match._repr_html_()
    assert page.count("<figure") == len(match.marked) and match.white in page
    [position] = match.marked_positions()
    assert position.move is not None
    assert position.board.piece_type_at(position.move.to_square) == chess.KNIGHT


def test_why_names_the_transformed_list_that_matched() -> None:
    match = next(cqllegacy.load(KNIGHT_FORK).search(GAMES))
    why = match.why()
    line = next(text for text in why.splitlines() if text.startswith("  position"))
    knight, king, queen = line.split(": ", 1)[1].split()
    square = chess.parse_square(knight[1:])
    board = match.board(match.marked[0])
    assert board.piece_type_at(square) == chess.KNIGHT
    # The king's and queen's squares are the knight's jumps (the shifted picture).
    jumps = chess.SquareSet(chess.BB_KNIGHT_ATTACKS[square])
    for text in (king, queen):
        listed = text[1:].strip("[]").split(",")
        assert {chess.parse_square(s) for s in listed} <= set(jumps)


def test_explain_is_text_and_html() -> None:
    explanation = cqllegacy.load(KNIGHT_FORK).explain()
    assert "450 transforms in the legacy set, 274 distinct transformed lists" in str(explanation)
    fragment = explanation._repr_html_()
    # 8 diagrams shown, the others (64 in all) behind a "show more".
    assert fragment.count('<figure class="member">') == 64
    shown, hidden = fragment.split("<details>", 1)
    assert shown.count('<figure class="member">') == 8
    assert "<summary>show 56 more</summary>" in hidden
    # A REPL shows the explanation as its text.
    assert repr(explanation) == str(explanation) == explanation.text()


def test_the_api_is_listed_for_tab_completion() -> None:
    names = dir(cqllegacy)
    assert {"load", "Query", "Match", "SAMPLE_GAMES", "TranslationError"} <= set(names)
    assert [name for name in names if name.startswith("lo")] == ["load"]
    assert cqllegacy.SAMPLE_GAMES == SAMPLE_GAMES and SAMPLE_GAMES.is_file()


def test_load_takes_an_existing_file_whatever_its_name_and_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "fork (copy).cql"
    copy.write_bytes(KNIGHT_FORK.read_bytes())
    by_name = cqllegacy.load("fork (copy).cql")
    assert by_name.path == Path("fork (copy).cql")
    assert by_name.core == cqllegacy.load(KNIGHT_FORK).core == cqllegacy.load(copy).core
    # Text that names no file is still text.
    assert cqllegacy.load("(match (position Qd1))").path is None


SEARCH = "(match (position Qh5 :flipcolor))"


def _ordinals(source: object) -> list[int]:
    return [m.ordinal for m in cqllegacy.load(SEARCH).search(source)]  # type: ignore[arg-type]


def test_search_reads_streams_open_files_and_games_as_it_reads_the_path(tmp_path: Path) -> None:
    import io

    import chess.pgn

    expected = _ordinals(GAMES)
    assert len(expected) > 1
    text = GAMES.read_text(encoding="utf-8")
    assert _ordinals(io.StringIO(text)) == expected
    with GAMES.open(encoding="utf-8") as handle:
        assert _ordinals(handle) == expected
    with GAMES.open("rb") as handle:
        assert _ordinals(handle) == expected
    stream = io.StringIO(text)
    games = list(iter(lambda: chess.pgn.read_game(stream), None))
    assert _ordinals(games) == expected
    assert _ordinals(games[expected[0] - 1]) == [1]
    # A list mixes them; the ordinals run on through the whole input.
    assert _ordinals([GAMES, io.StringIO(text)]) == expected + [n + len(games) for n in expected]


def test_search_says_how_to_pass_pgn_text() -> None:
    with pytest.raises(UsageError, match=r"pass io\.StringIO\(text\)"):
        _ordinals('[Event "x"]\n\n1. e4 *')

