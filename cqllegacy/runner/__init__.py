"""Running a compiled query over PGN files.

:func:`scan` streams the games of one or more PGN files (plain, gzip, bzip2 or xz),
skips and reports games python-chess cannot read, and hands each matching game to
sinks such as :class:`~cqllegacy.runner.output.PgnWriter` (annotated PGN) and
:class:`~cqllegacy.runner.report.ReportWriter` (JSON Lines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cqllegacy.runner.results import FoundGame, InputFile, ScanOptions, SkippedGame, Summary
    from cqllegacy.runner.scanner import scan

__all__ = ["FoundGame", "InputFile", "ScanOptions", "SkippedGame", "Summary", "scan"]


def __getattr__(name: str) -> Any:
    # The names are loaded on first use: importing one runner module (output, scripts)
    # then costs no scanner, python-chess or evaluator (start-up of every command).
    if name == "scan":
        from cqllegacy.runner.scanner import scan

        return scan
    if name in __all__:
        from cqllegacy.runner import results

        return getattr(results, name)
    raise AttributeError(f"module 'cqllegacy.runner' has no attribute {name!r}")
