"""An indexed run answered by the array forms writes what the scan writes, byte for byte,
and does not touch a python-chess board where every list has an array form.

The games: the index tests' corpus (variations, FEN starts, mates, stalemates, badly
formed games, encodings, World Championship games, puzzles), null moves, en passant and
castling, and random games from FEN and Chess960 starts with promotions.  The scripts:
every example and benchmark query, generated queries, and the run options that change
what is examined (``--gamenumber``, ``--limit``, ``--skip-initial``, ``--jobs``).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from cqllegacy.api import Query, index, load
from cqllegacy.core import tree as ct
from cqllegacy.errors import CqlLegacyError
from cqllegacy.evaluator.arrays import Positions, RowOnly, list_arrays
from cqllegacy.vocab.pieces import BLACK_PIECES
from tests.indexing.test_equivalence import SCRIPTS, corpus_text, in_process, run_outputs
from tests.indexing.test_replay import SPECIAL, random_games
from tests.support import strategies as sc


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("array-answers") / "games.pgn"
    path.write_bytes(corpus_text() + b"\n\n" + (SPECIAL + "\n" + random_games(60, 5)).encode())
    index(path)
    return path


def exact(script: Path) -> bool:
    """Whether every list of the script has an exact array form."""
    try:
        query = load(script).core
    except CqlLegacyError:
        return False
    return not query.tags and all(list_arrays(top.body).exact for top in query.lists)


EXACT = [script for script in SCRIPTS if exact(script)]


def test_most_scripts_are_answered_by_arrays() -> None:
    # Not vacuous: the tests below run the array path on most of the scripts.
    assert len(EXACT) >= len(SCRIPTS) * 2 // 3, [s.stem for s in SCRIPTS if s not in EXACT]


@pytest.mark.parametrize("script", EXACT, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_exact_scripts_write_the_scan_s_bytes_without_a_board(
    script: Path, games: Path, tmp_path: Path, fed: list[int]
) -> None:
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index")
    indexed = run_outputs(script, games, tmp_path / "index")
    assert indexed == scanned
    assert not fed, "a script whose lists all have array forms was fed to a stream"


@pytest.mark.parametrize(
    "flags",
    [
        ("--gamenumber", "40", "260"),
        ("--limit", "3"),
        ("--skip-initial",),
        ("-j", "2"),
        ("--gamenumber", "7"),
    ],
    ids=lambda flags: " ".join(flags),
)
@pytest.mark.parametrize("name", ["knight-fork", "many-checks", "sequence", "plain"])
def test_run_options(name: str, flags: tuple[str, ...], games: Path, tmp_path: Path) -> None:
    script = next(s for s in EXACT if s.stem == name)
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index", *flags)
    indexed = run_outputs(script, games, tmp_path / "index", *flags)
    assert indexed == scanned


SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(sc.queries(depth=1, max_lists=2))
def test_generated_queries(games: Path, query: ct.Query) -> None:
    # A query's own game numbers: the indexed run counts the games it skipped otherwise
    # than the scan (a known difference of the summary's count, not of the output).
    assume(query.header.gamenumber is None)
    loaded = Query("generated", "modern", query)
    try:
        scanned = in_process(loaded, games, False)
    except CqlLegacyError:
        return  # a query the evaluator refuses is refused either way
    assert in_process(loaded, games, True) == scanned


def test_a_wrong_answer_would_be_seen(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The comparison can fail: arrays that lose the black pieces change the output of a
    # script that finds something here.
    script = next(s for s in EXACT if s.stem == "knight-fork")
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index")
    assert scanned[0], "the script finds nothing here: the test would prove nothing"
    real = Positions.content

    def white_only(self: Positions, types: int) -> object:
        return real(self, types & ~BLACK_PIECES)

    monkeypatch.setattr(Positions, "content", white_only)
    assert run_outputs(script, games, tmp_path / "index") != scanned


def test_a_form_that_needs_rows_at_run_time_leaves_the_batch_to_the_rows(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A part that finds only while running that it needs rows (never seen) does not end
    # the run: its batch is answered by the row path, with the scan's output.
    script = next(s for s in EXACT if s.stem == "knight-fork")
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index")
    assert scanned[0], "the script finds nothing here: the test would prove nothing"

    def needs_rows(self: Positions, types: int) -> object:
        raise RowOnly("needs rows")

    monkeypatch.setattr(Positions, "content", needs_rows)
    assert run_outputs(script, games, tmp_path / "index") == scanned


#: A list the rows judge: Scidb's half-move clock is read from python-chess's boards.
ROWS_JUDGE = "(match (position :halfmoveclock 20 100))"


@pytest.mark.parametrize(("name", "here"), [("knight-fork", True), ("halfmoveclock", False)])
def test_default_workers_leave_an_answer_in_columns_here(
    name: str, here: bool, games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers chosen by default are not used where the index answers every list in
    columns (each unit would ask the index again and ship its positions); a query the
    rows must judge still goes to them.  Either way the output is the scan's."""
    import io

    from cqllegacy.runner import parallel, scanner
    from cqllegacy.runner.output import PgnWriter
    from cqllegacy.runner.progress import Messages
    from cqllegacy.runner.results import InputFile

    script = next((s for s in SCRIPTS if s.stem.startswith(name)), tmp_path / "rows.cql")
    if not script.exists():
        script.write_text(ROWS_JUDGE, encoding="utf-8")
    loaded = load(script)
    arrays = loaded.compiled.arrays
    assert (arrays is not None and all(lists.exact is not None for lists in arrays)) == here
    monkeypatch.setattr(parallel, "worth_spreading", lambda inputs: True)
    spread: list[bool] = []
    real_scan_on = scanner._scan_on

    def counted(*args: object) -> None:
        spread.append(True)
        real_scan_on(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(scanner, "_scan_on", counted)
    out = io.StringIO()
    loaded.scan(
        [InputFile.of(games)],
        sinks=[PgnWriter(out, several_files=False)],
        progress=Messages(io.StringIO()),
        engine=parallel.ProcessEngine(2, small_inputs=False, by_default=True),
        index=True,
    )
    assert spread == ([] if here else [True])
    assert out.getvalue() == in_process(loaded, games, False)[0]


@pytest.mark.parametrize(
    "name", ["knight-fork", "attackcount-fork", "attackcount", "forany-rook", "relation-missing"]
)
def test_a_batch_reads_the_columns_earlier_batches_read(
    name: str,
    games: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In batches of a game or two, the first batch reads every stored column and each
    later one the columns the query read so far (any other when first asked for, as
    rows fed to a stream ask for all): the output is the scan's either way."""
    import cqllegacy.runner.stored as stored
    from cqllegacy.indexing import store

    script = next(s for s in SCRIPTS if s.stem == name)
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index")
    assert scanned[0], "the script finds nothing here: the test would prove nothing"
    asked: list[tuple[str, ...] | None] = []
    real = store.Index.main_lines

    def spied(self: store.Index, numbers: list[int], names: list[str] | None = None) -> object:
        asked.append(None if names is None else tuple(names))
        return real(self, numbers, names)

    monkeypatch.setattr(stored, "BATCH_POSITIONS", 100)
    monkeypatch.setattr(store.Index, "main_lines", spied)
    capsys.readouterr()
    assert run_outputs(script, games, tmp_path / "index", "-j", "1") == scanned
    assert "index" not in capsys.readouterr().err  # not scanned after a failure
    assert asked[0] is None and len(asked) > 2
    if name == "knight-fork":  # its arrays read the pieces, not the moves
        assert all(
            names is not None and "move_from" not in names for names in asked[1:]
        ), asked[:3]


@pytest.mark.parametrize("most", [1, 150, 2_000, 1_000_000])
def test_a_batch_holds_at_most_so_many_positions_or_one_game(
    most: int, games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch's positions are at most the bound, or one game's; a batch ends only
    where the next game would pass the bound: short games come many at a time."""
    import cqllegacy.runner.stored as stored
    from cqllegacy.indexing import store

    script = next(s for s in SCRIPTS if s.stem == "knight-fork")
    scanned = run_outputs(script, games, tmp_path / "scan", "--no-index")
    import numpy as np

    held: list[list[int]] = []  # per batch, each game's positions
    batches: list[list[int]] = []
    real = store.Index.main_lines

    def spied(self: store.Index, numbers: list[int], names: list[str] | None = None) -> object:
        found = real(self, numbers, names)
        if not batches or batches[-1] != list(numbers):  # not a column asked later
            batches.append(list(numbers))
            held.append(np.unique(found["game"], return_counts=True)[1].tolist())
        return found

    monkeypatch.setattr(stored, "BATCH_POSITIONS", most)
    monkeypatch.setattr(store.Index, "main_lines", spied)
    assert run_outputs(script, games, tmp_path / "index", "-j", "1") == scanned
    assert held and all(sum(sizes) <= most or len(sizes) == 1 for sizes in held)
    assert all(sum(one) + two[0] > most for one, two in itertools.pairwise(held))


def test_a_column_not_read_with_the_batch_is_read_when_asked_for(games: Path) -> None:
    """A column the earlier batches did not read comes when first asked for, in the
    batch's order, equal to the one read with every other."""
    import numpy as np

    from cqllegacy.indexing.store import open_index
    from cqllegacy.runner.stored import MAIN_LINE_COLUMNS, main_lines

    opened = open_index(games.with_name(games.name + ".cqlidx"), games)
    try:
        numbers = [game for game, clean, _ in opened.game_facts(range(1, 40), tags=False) if clean]
        every = opened.main_lines(numbers)
        asked = {"white"}
        lines = main_lines(opened, numbers, asked)
        assert lines.stored is not None
        for name in MAIN_LINE_COLUMNS:
            assert np.array_equal(lines.stored[name], every[name]), name
        assert asked >= set(MAIN_LINE_COLUMNS)
    finally:
        opened.close()


#: Scripts whose lists are not all exact in columns: the batch rules games out by the
#: lists' necessary parts and by the bindings of their tag.
NOT_EXACT = ["forany-rook", "forany-rook-tour", "forany-checker", "real-04-rookrectangle"]


@pytest.mark.parametrize("name", NOT_EXACT)
def test_games_ruled_out_for_a_batch_are_those_each_judgement_rules_out(
    name: str, games: Path
) -> None:
    """The games the batch rules out at once (their tags never read) are exactly those
    the arrays' judgement of each game answers "nothing"."""
    import json

    import cqllegacy.runner.stored as stored
    from cqllegacy.indexing.store import open_index

    script = next(s for s in SCRIPTS if s.stem == name)
    compiled = load(script).compiled
    opened = open_index(games.with_name(games.name + ".cqlidx"), games)
    try:
        facts = opened.game_facts(range(1, opened.games + 1))
        tags = {game: found for game, clean, found in facts if clean}
        lines = stored.main_lines(opened, sorted(tags))
        answers = stored._answered_by_arrays(compiled.arrays, lines, tags)
        assert answers is not None and not answers.exact
        for skip_initial in (False, True):
            rejected = answers.rejected(skip_initial)
            judged = {
                game
                for game in tags
                if answers.judge(game, json.loads(tags[game] or "{}"), skip_initial)
                == stored._NOTHING
            }
            assert rejected == judged
            assert len(rejected) > len(tags) // 4
    finally:
        opened.close()
