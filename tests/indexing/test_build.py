"""How an index is written: in batches bounded in games and in text, the game summary
made batch by batch, DuckDB's memory bounded (and raised for a batch of a long text).

What the summary must be is said independently here, by SQL over the stored positions
(the union, per game, of each coloured piece type's squares and of the flags), the way
the index once made it at the end of the build.
"""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import duckdb
import pytest

import cqllegacy.indexing.build as build
import cqllegacy.indexing.store as store
from cqllegacy.cli import main
from cqllegacy.indexing.records import BOARD_FIELDS, PLACEMENT
from cqllegacy.indexing.store import default_index_path, open_index
from cqllegacy.runner.pgn import GameText
from cqllegacy.vocab.flags import CHECK, MATE, STALEMATE, WHITE_TO_MOVE
from tests.indexing.test_equivalence import FIXTURE_PGN
from tests.support.runner import WCC

#: Games that do not read cleanly (no positions) between clean ones, and a null move.
AWKWARD = """\
[Event "unreadable"]

1. e4 e5 2. Ke3 *

[Event "null move"]

1. e4 -- 2. d4 e5 3. -- Bb4+ *

[Event "unterminated comment"]

1. d4 { never closed

"""


def summary_by_sql(connection: duckdb.DuckDBPyConnection) -> list[tuple[int, ...]]:
    colour = {bit: "white" if bit < 6 else "black" for bit in range(12)}
    unions = ", ".join(f"bit_or({PLACEMENT[bit % 6]} & {colour[bit]})" for bit in range(12))
    return connection.execute(
        f"SELECT game, {unions}, bit_or(flags) FROM positions GROUP BY game ORDER BY game"
    ).fetchall()


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    wcc = bz2.decompress(WCC.read_bytes()).decode("latin-1").split("\n[Event ")
    text = "\n[Event ".join(wcc[:40]) + "\n\n" + AWKWARD + "[Event " + "\n[Event ".join(wcc[40:90])
    path = tmp_path / "games.pgn"
    path.write_text(text, encoding="latin-1")
    return path


def test_the_summary_made_per_batch_is_the_union_over_the_positions(
    pgn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "BATCH_GAMES", 7)
    assert main(["index", str(pgn), "-j", "1", "-q"]) == 0
    with duckdb.connect(str(default_index_path(pgn)), read_only=True) as connection:
        stored = connection.execute("SELECT * FROM summary").fetchall()
        assert stored == summary_by_sql(connection)
        games, unclean = connection.execute(
            "SELECT count(*), count(*) FILTER (NOT clean) FROM games"
        ).fetchone() or (0, 0)
    assert len(stored) == games - unclean and unclean == 2


STALEMATE_GAME = """[Event "stalemate"]
[SetUp "1"]
[FEN "7k/8/5QK1/8/8/8/8/8 w - - 0 1"]

1. Qf7 1/2-1/2
"""


def test_the_ended_table_holds_every_mate_and_stalemate_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_bytes(FIXTURE_PGN.read_bytes() + b"\n" + STALEMATE_GAME.encode())
    monkeypatch.setattr(build, "BATCH_GAMES", 7)
    assert main(["index", str(pgn), "-j", "1", "-q"]) == 0
    with duckdb.connect(str(default_index_path(pgn)), read_only=True) as connection:
        ended = connection.execute("SELECT * FROM ended ORDER BY game, ply").fetchall()
        expected = connection.execute(
            f"SELECT * FROM positions WHERE flags & {MATE | STALEMATE} <> 0 ORDER BY game, ply"
        ).fetchall()
    assert ended == expected
    flags = {row[2 + len(BOARD_FIELDS)] for row in ended}  # game, ply, boards, flags
    mated = MATE | CHECK
    assert flags == {mated | WHITE_TO_MOVE, mated, STALEMATE}, "mates of both sides, a stalemate"


def text(ordinal: int, length: int) -> GameText:
    return GameText(ordinal, ordinal, ('[Event "x"]\n',), "x" * (length - 12))


def test_batches_are_bounded_in_games_and_in_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "BATCH_GAMES", 4)
    monkeypatch.setattr(build, "BATCH_TEXT", 100)
    lengths = [30, 30, 30, 30, 20, 150, 20, 20, 20, 20, 20, 20, 99, 13]
    texts = [text(n, length) for n, length in enumerate(lengths, 1)]
    batches = list(build._batches(iter(texts)))
    assert [game for batch in batches for game in batch] == texts
    assert [[build.text_length(t) for t in batch] for batch in batches] == [
        [30, 30, 30],
        [30, 20],
        [150],
        [20, 20, 20, 20],
        [20, 20],
        [99],
        [13],
    ]


def test_a_game_of_a_long_text_is_written_under_a_raised_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB pins a long text whole while writing it: under a limit smaller than the
    text, the build failed (an out-of-memory error); the limit is raised for its batch."""
    monkeypatch.setattr(store, "WRITER_MEMORY", 8 * 1024 * 1024)
    comment = "{" + ("a long comment " * 66 + "\n") * 12_000 + "}"
    # Compressed: the index keeps the games' text (of a plain file, where they lie).
    path = tmp_path / "long.pgn.gz"
    path.write_bytes(
        gzip.compress(
            f'[Event "a"]\n\n1. e4 e5 *\n\n[Event "long"]\n\n1. e4 {comment} e5 *\n\n'
            '[Event "b"]\n\n1. d4 d5 *\n'.encode()
        )
    )
    assert main(["index", str(path), "-j", "1", "-q"]) == 0
    assert open_index(default_index_path(path), path).games == 3
