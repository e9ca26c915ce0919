"""The error the translator raises for a script it cannot turn into a core query.

>>> from cqllegacy.vocab.spans import Span
>>> err = translation_error("too many transformed lists", Span(3, 2), path="a.cql")
>>> str(err)
'a.cql:3:2: too many transformed lists'
"""

from __future__ import annotations

from cqllegacy.errors import ScriptError
from cqllegacy.vocab.spans import Span


class TranslationError(ScriptError):
    """A legacy construct (or combination) the translator cannot give an exact meaning to.

    Unlike a refusal by the CQL 6 printer, this stops ``run`` as well: there is no core
    query for the script.
    """


def translation_error(
    message: str, span: Span, *, path: str | None = None, hint: str = ""
) -> TranslationError:
    """A :class:`TranslationError` at ``span`` (line 0 means "unknown place")."""
    return TranslationError(message, line=span.line, column=span.column, file=path, hint=hint)
