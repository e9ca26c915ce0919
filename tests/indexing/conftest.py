"""The index's tests run on files far smaller than the cost rule lets an index pay on
(:func:`cqllegacy.indexing.scan.index_pays`: a small file of a query narrowed by its tags
alone, or not at all, is scanned): here every index pays, so that the path a test
means is the one taken.  ``test_cost_rule.py`` puts the rule back and tests it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cqllegacy.indexing import scan as indexed_scan
from cqllegacy.runner import stored


@pytest.fixture(autouse=True)
def every_index_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexed_scan, "INDEX_COST", 0.0)
    # And reading stored positions pays for any number of candidates.
    monkeypatch.setattr(indexed_scan, "ARRAYS_COST", 0.0)


@pytest.fixture
def fed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the games fed to a stream position by position (the row path)."""
    calls: list[int] = []
    real = stored.feed

    def counted(*args: object, **kwargs: object) -> None:
        calls.append(1)
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stored, "feed", counted)
    yield calls
