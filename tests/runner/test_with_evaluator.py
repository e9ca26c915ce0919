"""The runner with the real evaluator, on queries built from core nodes.

The expected plies are worked out by hand from tests/pgn/annotated.pgn (see the
comments); the sample-game counts come from python-chess reading the tags itself.
"""

from __future__ import annotations

import bz2
import io
import json

import chess
import chess.pgn
import pytest

import cqllegacy.runner.game_scan as game_scan
from cqllegacy.core.tree import Header, Mark, PieceSet, Query, Result, TopList
from cqllegacy.evaluator import evaluate
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import InputFile, ScanOptions, Summary
from cqllegacy.runner.scanner import scan
from cqllegacy.vocab.pieces import types_of
from cqllegacy.vocab.results import GameResult
from tests.support.runner import PGN, WCC, node_at

QUEEN_ON_D1 = PieceSet(types_of("Q"), 1 << chess.D1)
PLAIN = ScanOptions()


def run(
    query: Query, *names: str, options: ScanOptions = PLAIN
) -> tuple[list[chess.pgn.Game], list[dict[str, object]], Summary]:
    pgn, report = io.StringIO(), io.StringIO()
    summary = scan(
        evaluate.compile_query(query),
        [InputFile.of(PGN / name) for name in names],
        options=options,
        sinks=[PgnWriter(pgn, several_files=len(names) > 1), ReportWriter(report)],
    )
    handle = io.StringIO(pgn.getvalue())
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    records = [json.loads(line) for line in report.getvalue().splitlines()]
    return games, records, summary


def plies(records: list[dict[str, object]]) -> list[list[int | str]]:
    return [record["lists"][0]["plies"] for record in records]  # type: ignore[index]


def test_markall_plies_on_the_main_line() -> None:
    query = Query(Header(), (TopList(QUEEN_ON_D1, mark=Mark.ALL),))
    games, records, summary = run(query, "annotated.pgn")
    # Round 1: 2. Qh5 (ply 3) leaves d1, 3. Qd1 (ply 5) returns.  Round 2 starts from a
    # FEN with Black to move: 31. Qd5+ (ply 2) leaves, 32. Qd1 (ply 4) returns.  Round 3:
    # the queen starts on h1 and reaches d1 with 2. Qd1+ (ply 3).  Round 4: never in
    # the main line.
    assert plies(records) == [[0, 1, 2, 5, 6, 7, 8], [0, 1, 4, 5], [3, 4]]
    assert [r["ordinal"] for r in records] == [1, 2, 3]
    assert (summary.games, summary.matched) == (4, 3)
    assert games[0].comment.endswith("MATCH") and games[0].comment.startswith("Original game: 1")


def test_first_mark_only() -> None:
    query = Query(Header(), (TopList(QUEEN_ON_D1, mark=Mark.FIRST),))
    games, _, _ = run(query, "annotated.pgn")
    marked = [
        [ply for ply, node in enumerate([g, *g.mainline()]) if node.comment.endswith("MATCH")]
        for g in games
    ]
    assert marked == [[0], [0], [3]]


def test_variations_and_skip_initial_flags() -> None:
    query = Query(Header(), (TopList(QUEEN_ON_D1, mark=Mark.ALL),))
    options = ScanOptions(skip_initial=True, variations=True)
    games, records, _ = run(query, "annotated.pgn", options=options)
    assert [r["ordinal"] for r in records] == [1, 2, 3, 4]
    # Round 4: only 1. Qd1 (first alternative to 1. Qh4) and 1... Kf7 after it.
    assert plies(records)[3] == ["1.1", "1.1/2"]
    assert all(0 not in p for p in plies(records))
    # Round 1: 2. Nf3 (ply 3, alternative 1 to 2. Qh5) and its whole side line.
    assert {"3.1", "3.1/4", "3.1/4.1", "3.1/4.1/5", "3.1/5"} <= set(plies(records)[0])
    assert node_at(games[3], 1).comment == "MATCH"


def test_gamenumber_counts_across_files() -> None:
    query = Query(Header(gamenumber=(3, 6)), (TopList(QUEEN_ON_D1),))
    _, records, _ = run(query, "annotated.pgn", "annotated.pgn.gz")
    # Ordinals 3..6: round 3 of the first file, rounds 1-2 of the second (round 4 of
    # the first file, ordinal 4, has no match on the main line).
    assert [(r["ordinal"], r["file_ordinal"]) for r in records] == [(3, 3), (5, 1), (6, 2)]


def test_result_query_on_the_sample_games_replays_no_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query on tags alone selects the draws without replaying any game's moves."""
    parsed = []
    read_game, read_stream = game_scan.read_game, game_scan.read_stream

    def counting_read(text):  # type: ignore[no-untyped-def]
        parsed.append(text.file_ordinal)
        return read_game(text)

    def counting_stream(text, visitor):  # type: ignore[no-untyped-def]
        parsed.append(text.file_ordinal)
        return read_stream(text, visitor)

    monkeypatch.setattr(game_scan, "read_game", counting_read)
    monkeypatch.setattr(game_scan, "read_stream", counting_stream)
    draws = []
    with bz2.open(WCC, "rt", encoding="utf-8") as handle:
        ordinal = 0
        while (headers := chess.pgn.read_headers(handle)) is not None:
            ordinal += 1
            if headers.get("Result") == "1/2-1/2":
                draws.append(ordinal)
    query = Query(Header(), (TopList(Result(GameResult.DRAW)),))
    summary = scan(evaluate.compile_query(query), [InputFile.of(WCC)], sinks=[])
    assert summary.matched == len(draws) > 100
    assert parsed == []
