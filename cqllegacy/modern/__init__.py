"""CQL 6.1 text: the printer (core query → text) and the modern reader (text → core query).

The reader and the printer are loaded on first use: the translator needs only the shared
vocabulary, and a run on a legacy script should not pay for building the modern grammar.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cqllegacy.modern.errors import ModernSyntaxError, NotExpressible
    from cqllegacy.modern.grammar import read_query
    from cqllegacy.modern.printer import print_query

__all__ = ["ModernSyntaxError", "NotExpressible", "print_query", "read_query"]

_HOMES = {
    "ModernSyntaxError": "cqllegacy.modern.errors",
    "NotExpressible": "cqllegacy.modern.errors",
    "read_query": "cqllegacy.modern.grammar",
    "print_query": "cqllegacy.modern.printer",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
