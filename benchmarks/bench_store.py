"""The index's store chosen by measurement: one DuckDB file against Parquet files.

    python benchmarks/bench_store.py GAMES.pgn

The games are recorded once (as ``cqllegacy index`` records them), then written as the
DuckDB index file and as the same tables in Parquet files (pyarrow; snappy and zstd);
for each: the time to write, the size per game, and the time of the candidate question
(:func:`~cqllegacy.indexing.sql.candidate_query`, best of 5) for queries of several
shapes, the Parquet files queried by DuckDB through views of the same names.  The
store table of docs/index-measurements.md (Choice of store) comes from this on the first 10,000
games of the generated corpus (``make_corpus.py``).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from cqllegacy.api import load
from cqllegacy.evaluator.necessary import necessity
from cqllegacy.indexing import freshness, store
from cqllegacy.indexing.records import Columns, record_games
from cqllegacy.indexing.sql import candidate_query
from cqllegacy.runner.pgn import open_pgn, split_games

SHAPES = {
    "two pieces": "(match (position Pd4 Pe4))",
    "ten pieces (both sides castled)": (
        "(match (position Kg1 Rf1 Pf2 Pg2 Ph2 kg8 rf8 pf7 pg7 ph7))"
    ),
    "mate with two pieces": "(match (position :mate Qh7 kg8))",
    ":flipcolor orbit and check": "(match (position :check Nd6 ke8 :flipcolor))",
    ":shift orbit of five pieces": "(match (position Pd4 Pe4 Pc4 pd5 pe5 :shift))",
    "material counts": "(match (position :piececount [QqBbNn] 0 :piececount R 1 :piececount r 1))",
}
TABLES = ("games", "positions", "summary")


def recorded(source: Path) -> list[Columns]:
    with open_pgn(source) as pgn:
        texts = list(split_games(pgn.lines()))
    return [record_games(texts[i : i + 500]) for i in range(0, len(texts), 500)]


def best_of(connection: Any, sql: str, parameters: list[object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        connection.execute(sql, parameters).fetchall()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", type=Path)
    args = parser.parse_args()
    batches = recorded(args.pgn)
    games = sum(batch.games for batch in batches)
    work = Path(tempfile.mkdtemp(prefix="bench-store-"))
    try:
        index = work / "games.cqlidx"
        started = time.perf_counter()
        with store.writing(index) as writer:
            for batch in batches:
                writer.add(batch)
            writer.finish(args.pgn.name, freshness.file_facts(args.pgn), None)
        print(f"{games} games")
        print(
            f"duckdb: write {time.perf_counter() - started:.2f} s, "
            f"{index.stat().st_size / games:.0f} bytes per game"
        )
        with duckdb.connect(str(index), read_only=True) as con:
            tables = {name: con.sql(f"SELECT * FROM {name}").to_arrow_table() for name in TABLES}
        views = {"duckdb": duckdb.connect(str(index), read_only=True)}
        for codec in ("snappy", "zstd"):
            folder = work / codec
            folder.mkdir()
            started = time.perf_counter()
            for name, table in tables.items():
                pq.write_table(table, folder / f"{name}.parquet", compression=codec)
            size = sum(f.stat().st_size for f in folder.iterdir())
            print(
                f"parquet {codec}: write {time.perf_counter() - started:.2f} s, "
                f"{size / games:.0f} bytes per game"
            )
            con = duckdb.connect()
            for name in TABLES:
                con.execute(
                    f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{folder / name}.parquet')"
                )
            views[f"parquet {codec}"] = con
        print("| candidates | " + " | ".join(views) + " |")
        for label, text in SHAPES.items():
            need = necessity(load(text).core)
            if need is None:
                print(f"| {label} | (the index cannot narrow it) |")
                continue
            sql, parameters = candidate_query(need, 0)
            times = [best_of(con, sql, parameters) for con in views.values()]
            print(f"| {label} | " + " | ".join(f"{t * 1000:.0f} ms" for t in times) + " |")
        for con in views.values():
            con.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
