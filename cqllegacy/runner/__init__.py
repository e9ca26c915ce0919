"""Running a compiled query over PGN files.

:func:`scan` streams the games of one or more PGN files (plain, gzip, bzip2 or xz),
skips and reports games python-chess cannot read, and hands each matching game to
sinks such as :class:`~cqllegacy.runner.output.PgnWriter` (annotated PGN) and
:class:`~cqllegacy.runner.report.ReportWriter` (JSON Lines).
"""

from cqllegacy.runner.results import FoundGame, InputFile, ScanOptions, SkippedGame, Summary
from cqllegacy.runner.scanner import scan

__all__ = ["FoundGame", "InputFile", "ScanOptions", "SkippedGame", "Summary", "scan"]
