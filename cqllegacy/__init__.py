"""cqllegacy: run legacy CQL 3.x scripts on PGN files and translate them to CQL 6.1.

The Python API (:mod:`cqllegacy.api`): :func:`load` a script, then ``translate()``,
``explain()`` or ``search()`` it.  The names are loaded on first use, so that
``import cqllegacy.errors`` (and the command's ``--help``) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Match", "Query", "TranslationError", "__version__", "index", "load"]

if TYPE_CHECKING:
    from cqllegacy.api import Match, Query, index, load
    from cqllegacy.translator import TranslationError


def __getattr__(name: str) -> Any:
    if name in ("Match", "Query", "index", "load"):
        from cqllegacy import api

        return getattr(api, name)
    if name == "TranslationError":
        from cqllegacy.translator import TranslationError

        return TranslationError
    raise AttributeError(f"module 'cqllegacy' has no attribute {name!r}")
