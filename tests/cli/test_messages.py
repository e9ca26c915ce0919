"""What the commands say: counts in the singular and plural, lists of files as a
sentence, and a progress bar that fits an 80-column terminal whole."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from tqdm import tqdm

from cqllegacy.cli import main
from cqllegacy.runner.progress import BAR_LAYOUT, ProgressBar
from cqllegacy.runner.results import Summary

GAME = '[White "w"]\n[Black "b"]\n\n1. e4 e5 2. Qh5 *\n'


def test_one_game_is_one_game() -> None:
    assert Summary(1, 1, 0, 0, 0.5).line() == (
        "read 1 game: 1 matched, 0 skipped as unreadable, in 0.5 s"
    )
    assert Summary(2, 0, 0, 1, 0.5).line().startswith("read 2 games: 0 matched")
    assert ", 1 input file not read to the end," in Summary(2, 0, 0, 1, 0.5).line()


def test_the_files_written_are_listed_as_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "g.pgn").write_text(GAME, encoding="utf-8")
    (tmp_path / "q.cql").write_text("(match (position Qh5))\n", encoding="utf-8")
    out, report, page = (tmp_path / name for name in ("o.pgn", "r.jsonl", "p.html"))
    assert main(["run", str(tmp_path / "q.cql"), "-i", str(tmp_path / "g.pgn"), "-o", str(out),
                 "--report", str(report), "--html", str(page)]) == 0  # fmt: skip
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("read 1 game: 1 matched")
    assert last.endswith(f"; wrote {out}, {report} and {page}")


def test_the_progress_bar_fits_80_columns_whole() -> None:
    # Large counts, an hour's run: the line still ends with the time left.
    bar = ProgressBar(io.StringIO(), total_bytes=100, clock=iter([0.0, 1.0]).__next__)
    desc = bar.render(games=1234567, matched=123456, bytes_done=50)
    bar.close()
    line = tqdm.format_meter(50, 100, 3725, ncols=80, prefix=desc, bar_format=BAR_LAYOUT)
    assert len(line) <= 80 and line.endswith("ETA 1:02:05")
    assert "1234567 games" in line and "123456 matched" in line and "50%" in line

