"""cqllegacy: run legacy CQL 3.x scripts on PGN files and translate them to CQL 6.1.

The Python API (:mod:`cqllegacy.api`): :func:`load` a script, then ``translate()``,
``explain()`` or ``search()`` it (``SAMPLE_GAMES``: the bundled games).  The names are
loaded on first use, so that ``import cqllegacy.errors`` (and the command's ``--help``)
stays light.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from cqllegacy.version import __version__


def _source_tree_translator() -> None:
    """In a clone of the repository (run from its folder, or its folder on the path),
    find ``cqllegacy.translator`` in ``translator/`` beside this package, where the
    repository keeps it; an installed package has it inside (pyproject.toml's
    ``package-dir``), and then nothing changes.  So the repository's folder behaves like
    any other after ``pip install .``, where this folder shadows the installed copy."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    inside = os.path.join(here, "translator")
    beside = os.path.join(root, "translator", "__init__.py")
    if not os.path.exists(inside) and os.path.isfile(beside) and root not in __path__:
        __path__.append(root)


_source_tree_translator()

__all__ = ["SAMPLE_GAMES", "Match", "Query", "TranslationError", "__version__", "index", "load"]

if TYPE_CHECKING:
    from cqllegacy.api import SAMPLE_GAMES, Match, Query, index, load
    from cqllegacy.translator import TranslationError

_API = ("SAMPLE_GAMES", "Match", "Query", "index", "load")


def __dir__() -> list[str]:
    # The API first of all (tab completion), with the module's own attributes.
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


def __getattr__(name: str) -> Any:
    if name in _API:
        from cqllegacy import api

        return getattr(api, name)
    if name == "TranslationError":
        from cqllegacy.translator import TranslationError

        return TranslationError
    raise AttributeError(f"module 'cqllegacy' has no attribute {name!r}")
