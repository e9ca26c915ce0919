"""Games kept as byte ranges of their file, or as text in the index: the index's size
per game, and the time to read the candidates' texts.

    python benchmarks/bench_ranges.py GAMES.pgn [--script CQL] [--rounds 5]

GAMES.pgn (plain) is indexed twice in a temporary folder: as it is (its games kept as
byte ranges) and compressed with bzip2 (a compressed file's games are kept as text).
Per index: its size per game and its games table's share.  Then, for the candidates of
the script (by default ``(match (position Pd4 Pe4))``), the best of ``--rounds`` of:

* reading their texts from the ranges of the plain file (``Index.texts``);
* reading them from the text kept in the bzip2 file's index (``Index.texts``);
* decompressing the file to its end, for bzip2, xz and gzip: the least that reading a
  compressed file's ranges in order would cost (it cannot be read at an offset) once a
  candidate lies near its end;
* splitting the whole plain file (as a run reads candidates "from the file").

The figures on keeping ranges in docs/index-measurements.md (Byte ranges) come from this.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import lzma
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from cqllegacy.api import index, load
from cqllegacy.evaluator.necessary import necessity
from cqllegacy.indexing.store import default_index_path, open_index
from cqllegacy.runner.pgn import open_pgn, split_games

COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "gz": gzip.compress,
}


def best_of(rounds: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def games_table_share(path: Path) -> float:
    import duckdb

    with duckdb.connect(str(path), read_only=True) as connection:
        blocks = {
            table: connection.execute(
                f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('{table}') "
                "WHERE persistent"
            ).fetchone()[0]
            for table in ("games", "positions", "summary")
        }
    return blocks["games"] / max(1, sum(blocks.values()))


OPENERS: dict[str, Callable[..., BinaryIO]] = {"bz2": bz2.open, "xz": lzma.open, "gz": gzip.open}


def decompress_all(suffix: str, path: Path) -> None:
    """The decompressed bytes, read to the end (no line is decoded)."""
    with OPENERS[suffix](path, "rb") as stream:
        while stream.read(1 << 20):
            pass


def split_all(path: Path) -> None:
    with open_pgn(path) as pgn:
        for _ in split_games(pgn.lines()):
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", type=Path)
    parser.add_argument("--script", default="(match (position Pd4 Pe4))")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    need = necessity(load(args.script).core)
    assert need is not None
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "games.pgn"
        shutil.copyfile(args.pgn, plain)
        data = plain.read_bytes()
        compressed = {}
        for suffix, compress in COMPRESSORS.items():
            compressed[suffix] = Path(folder) / f"games.pgn.{suffix}"
            compressed[suffix].write_bytes(compress(data))
        indexes = {"ranges (plain)": plain, "text (bz2)": compressed["bz2"]}
        numbers: list[int] = []
        for label, source in indexes.items():
            index(source)
            where = default_index_path(source)
            opened = open_index(where, source)
            try:
                numbers = opened.candidates(need, 0)
                seconds = best_of(args.rounds, lambda o=opened, n=numbers: list(o.texts(n)))
                games = opened.games
            finally:
                opened.close()
            print(
                f"{label}: {where.stat().st_size / games / 1000:.2f} kB per game "
                f"(games table {games_table_share(where):.0%} of the blocks); "
                f"texts of {len(numbers)} candidates of {games} games: {seconds * 1000:.0f} ms"
            )
        for suffix, path in compressed.items():
            seconds = best_of(args.rounds, lambda s=suffix, p=path: decompress_all(s, p))
            print(f"decompressing the {suffix} file to its end: {seconds * 1000:.0f} ms")
        seconds = best_of(args.rounds, lambda: split_all(plain))
        print(f"splitting the whole plain file: {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
