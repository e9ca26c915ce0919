"""Lists that read nothing of the game (a compound of ``true``s): the tags driver decides
them once per game without a board, so their lowered test must not ask for one (found by
the index's generated tests: ``Compound(true, true)`` raised AttributeError in a scan)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cqllegacy.api import Query
from cqllegacy.core import tree as ct
from cqllegacy.runner.output import PgnWriter
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.results import InputFile

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "fixtures" / "games.pgn"
TRUE = ct.Simple(keyword=ct.Keyword.TRUE)


def scanned(body: ct.Filter) -> tuple[str, int]:
    query = Query("constant", "modern", ct.Query(ct.Header(), (ct.TopList(body),)))
    out = io.StringIO()
    summary = query.scan(
        [InputFile.of(GAMES)],
        sinks=[PgnWriter(out, several_files=False)],
        progress=Messages(io.StringIO()),
        index=False,
    )
    return out.getvalue(), summary.matched


@pytest.mark.parametrize(
    "body",
    [
        ct.Compound((TRUE, TRUE)),
        ct.Compound((TRUE, ct.Compound((TRUE,)))),
        ct.Not(ct.Not(ct.Compound((TRUE, TRUE)))),
    ],
    ids=["two-trues", "nested", "double-negation"],
)
def test_a_list_of_trues_matches_as_true_does(body: ct.Filter) -> None:
    expected = scanned(TRUE)
    assert expected[1] > 0
    assert scanned(body) == expected
