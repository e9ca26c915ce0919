"""The scan loop: prefilter before parsing, ordinals, bad games, damaged files, progress."""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any

import pytest
from cqllegacy.translator import to_core

import cqllegacy.runner.game_scan as game_scan
from cqllegacy.core.tree import Mark
from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.legacy import read_script
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.progress import Messages, ProgressBar, make_progress
from cqllegacy.runner.report import ReportWriter
from cqllegacy.runner.results import FoundGame, InputFile, ScanOptions, Summary
from cqllegacy.runner.scanner import scan
from tests.support.runner import PGN, WCC, StandIn


class Recorder(Messages):
    """Progress that remembers messages and updates."""

    def __init__(self) -> None:
        super().__init__(io.StringIO())
        self.messages: list[str] = []
        self.updates: list[tuple[int, int, int]] = []
        self.closed = False

    def update(self, games: int, matched: int, bytes_done: int) -> None:
        self.updates.append((games, matched, bytes_done))

    def message(self, text: str) -> None:
        self.messages.append(text)

    def close(self) -> None:
        self.closed = True


PLAIN = ScanOptions()


def run(
    compiled: StandIn, *paths: Path, options: ScanOptions = PLAIN
) -> tuple[list[FoundGame], Recorder, Summary]:
    found: list[FoundGame] = []
    progress = Recorder()
    summary = scan(
        compiled,
        [InputFile.of(path) for path in paths],
        options=options,
        sinks=[found.append],
        progress=progress,
    )
    return found, progress, summary


def test_matching_games_in_input_order_with_ordinals_across_files() -> None:
    found, _, summary = run(StandIn(), PGN / "annotated.pgn", PGN / "annotated.pgn.xz")
    # Rounds 1-3 have a white queen on d1 in the main line, round 4 only in a variation.
    assert [(f.ordinal, f.file_ordinal, f.headers["Round"]) for f in found] == [
        (1, 1, "1"),
        (2, 2, "2"),
        (3, 3, "3"),
        (5, 1, "1"),
        (6, 2, "2"),
        (7, 3, "3"),
    ]
    assert [f.file for f in found] == [str(PGN / "annotated.pgn")] * 3 + [
        str(PGN / "annotated.pgn.xz")
    ] * 3
    assert (summary.games, summary.matched, summary.skipped) == (8, 6, 0)


def test_options_reach_the_evaluator() -> None:
    compiled = StandIn()
    _, _, summary = run(
        compiled, PGN / "annotated.pgn", options=ScanOptions(skip_initial=True, variations=True)
    )
    assert compiled.evaluated == [(n, True, True) for n in (1, 2, 3, 4)]
    assert summary.matched == 4  # round 4 matches inside its variation


def test_prefilter_rejection_costs_no_move_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[int] = []
    real_read_game = game_scan.read_game

    def counting_read_game(text):  # type: ignore[no-untyped-def]
        parsed.append(text.file_ordinal)
        return real_read_game(text)

    monkeypatch.setattr(game_scan, "read_game", counting_read_game)
    compiled = StandIn(accept=lambda headers, ordinal: headers["Result"] == "1/2-1/2")
    found, _, summary = run(compiled, WCC)
    assert compiled.prefiltered == list(range(1, 686))
    assert len(parsed) == len(compiled.evaluated) == summary.matched == len(found)
    draws = [f.headers["Result"] for f in found]
    assert draws and set(draws) == {"1/2-1/2"}
    assert summary.games == 685


def test_bad_games_are_reported_and_skipped_and_the_rest_evaluated() -> None:
    compiled = StandIn(predicate=lambda board: True)
    found, progress, summary = run(compiled, PGN / "annotated.pgn", PGN / "broken.pgn")
    events = [f.headers["Event"] for f in found]
    assert events == ["Runner fixture"] * 4 + ["good 1", "good 3", "good 7", "good 10", "good 12"]
    assert summary.skipped == 7
    assert len(progress.messages) == 7
    illegal = progress.messages[0]
    assert illegal.startswith(f"warning: {PGN / 'broken.pgn'}:8: game 2 (game 6 of the input)")
    assert "illegal san: 'Kf3'" in illegal
    assert [f.ordinal for f in found][4:] == [5, 7, 11, 14, 16]
    assert progress.closed


def test_damaged_file_keeps_its_complete_games_and_the_scan_goes_on(tmp_path: Path) -> None:
    data = gzip.compress((PGN / "annotated.pgn").read_bytes() * 20, mtime=0)
    damaged = tmp_path / "cut.pgn.gz"
    damaged.write_bytes(data[: len(data) // 2])
    found, progress, summary = run(StandIn(), damaged, PGN / "annotated.pgn")
    assert summary.damaged_files == 1
    [message] = progress.messages
    assert message.startswith(f"warning: {damaged}: damaged gzip data")
    complete = summary.games - 4
    assert complete > 0
    assert f"reading stopped after game {complete} of this file" in message
    assert found[-3].file == str(PGN / "annotated.pgn")


def test_missing_file_is_reported_and_the_scan_goes_on(tmp_path: Path) -> None:
    found, progress, summary = run(StandIn(), tmp_path / "gone.pgn", PGN / "annotated.pgn")
    assert "cannot read" in progress.messages[0]
    assert summary.games == 4 and len(found) == 3


def test_progress_updates_count_games_and_bytes() -> None:
    _, progress, _ = run(StandIn(), PGN / "annotated.pgn.bz2", PGN / "annotated.pgn")
    games = [u[0] for u in progress.updates]
    assert games == list(range(1, 9))
    bytes_done = [u[2] for u in progress.updates]
    assert bytes_done == sorted(bytes_done)
    total = (PGN / "annotated.pgn.bz2").stat().st_size + (PGN / "annotated.pgn").stat().st_size
    assert bytes_done[-1] == total


def test_sinks_get_the_evaluators_answer_with_positions_named() -> None:
    options = ScanOptions(variations=True)
    found, _, _ = run(StandIn(mark=Mark.ALL), PGN / "annotated.pgn", options=options)
    first = found[0]
    assert first.text.tag_lines[3] == '[Round "1"]\n'
    assert (first.white, first.black) == ("Alpha, Anna", "Beta, Bert")
    # The queen stands on d1 until 2. Qh5 and after 3. Qd1; in the side line 3... Bc5
    # until 4. Qg4 or 4. Qf3; in the side lines 2. Nf3 Nc6 3. Bb5 and 2... d6 3. d4
    # throughout.  Depth first, the main continuation first.
    [listed] = first.lists
    side_lines = ("6.1", "3.1", "3.1/4", "3.1/5", "3.1/4.1", "3.1/4.1/5")
    assert listed.positions == (0, 1, 2, 5, 6, 7, 8, *side_lines)
    assert listed.count == len(listed.positions) and listed.marked == listed.positions


# --------------------------------------------------------------------------------------
# Progress display
# --------------------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_only_on_a_terminal_and_not_when_quiet() -> None:
    assert isinstance(make_progress(FakeTerminal(), quiet=False, total_bytes=10), ProgressBar)
    assert not isinstance(make_progress(FakeTerminal(), quiet=True, total_bytes=10), ProgressBar)
    assert not isinstance(make_progress(io.StringIO(), quiet=False, total_bytes=10), ProgressBar)


def test_bar_is_redrawn_in_place_and_cleared_for_messages() -> None:
    clock = iter([0.0, 1.0, 1.0, 1.05, 1.05, 3.0, 3.0]).__next__
    stream = FakeTerminal()
    bar = ProgressBar(stream, total_bytes=100, clock=clock, interval=0.2)
    bar.update(10, 1, 25)  # drawn: the first update always is
    bar.update(11, 1, 26)  # 0.05 s later: not drawn
    bar.message("warning: something")
    bar.update(12, 1, 50)  # drawn again after a message
    bar.close()
    out = stream.getvalue()
    assert out.count("\r10 games") == 1 and "11 games" not in out
    assert "warning: something\n" in out
    assert "\r12 games" in out
    assert "50%" in out and "ETA" in out and "4 games/s" in out
    assert out.endswith("\r")  # the bar's line is cleared at the end


def test_messages_only_without_a_terminal() -> None:
    stream = io.StringIO()
    progress = make_progress(stream, quiet=False, total_bytes=None)
    progress.update(1, 0, 0)
    progress.message("warning: x")
    progress.close()
    assert stream.getvalue() == "warning: x\n"


# --------------------------------------------------------------------------------------
# Queries the tags decide: no move replayed
# --------------------------------------------------------------------------------------

TAG_SCRIPTS = [
    "(match (position))",
    "(match :player Loyd (position :markall))",
    "(match (position :result 1-0 :variations :markall))",
    "(match (position :result 1-0 :markall) (position :noannotate))",
    "(match (position :matchcount 3 12 :markall))",
    "(match :gamenumber 2 40 (position :result 0-1 :flipcolor))",
]


def _texts(compiled: Any, path: Path, options: ScanOptions) -> tuple[str, str, str, tuple]:
    pgn, report, messages = io.StringIO(), io.StringIO(), io.StringIO()
    summary = scan(
        compiled,
        [InputFile.of(path)],
        options=options,
        sinks=[PgnWriter(pgn, several_files=False), ReportWriter(report)],
        progress=Messages(messages),
    )
    counts = (summary.games, summary.matched, summary.skipped)
    return pgn.getvalue(), report.getvalue(), messages.getvalue(), counts


@pytest.mark.parametrize("script", TAG_SCRIPTS)
def test_queries_the_tags_decide_write_what_replaying_writes(
    script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = to_core(read_script(script))
    fast, replaying = compile_query(query), compile_query(query, optimize=False)
    assert fast.decided_by_tags and not replaying.decided_by_tags
    games = Path(__file__).resolve().parents[2] / "fixtures" / "games.pgn"
    for options in (PLAIN, ScanOptions(skip_initial=True), ScanOptions(variations=True)):
        expected = _texts(replaying, games, options)
        monkeypatch.setattr(game_scan, "read_game", _never)
        monkeypatch.setattr(game_scan, "read_stream", _never)
        assert _texts(fast, games, options) == expected
        monkeypatch.undo()
        assert expected[3][1] > 0


def _never(*args: object) -> None:
    raise AssertionError("a move was replayed")


def test_queries_the_tags_decide_write_games_with_illegal_moves_but_not_bad_fens() -> None:
    compiled = compile_query(to_core(read_script("(match (position))")))
    pgn, _, messages, (games, matched, skipped) = _texts(compiled, PGN / "broken.pgn", PLAIN)
    _, _, replayed, (_, _, skipped_replaying) = _texts(
        compile_query(compiled.query, optimize=False), PGN / "broken.pgn", PLAIN
    )
    assert (games, matched, skipped, skipped_replaying) == (12, 7, 5, 7)
    assert '[Event "illegal move"]' in pgn and "1. e4 Kf3 2. Nf3 *" in pgn
    assert "illegal san" not in messages and "illegal san" in replayed
    # Every other reason to skip a game is found without replaying, in the same words.
    assert messages.splitlines() == [m for m in replayed.splitlines() if "illegal san" not in m]
    assert "bad FEN" not in pgn and "expected 'w' or 'b'" in messages
