"""Legacy CQL 3 script → core :class:`~cqllegacy.core.tree.Query` (exact, or refused).

The core query *is* the modern meaning: ``cqllegacy run`` evaluates it, and the CQL 6
printer writes it as text.  One :class:`TopList` per top-level position list; match-list
conditions become constituents of one list's body; legacy transforms are expanded
(:mod:`translator.orbits`) and written as modern transforms only where both mean the
same set of filters (T2).

>>> from cqllegacy.legacy import read_script
>>> query = to_core(read_script("(match :result 1-0 (position Ra1 :wtm :markall))"))
>>> [type(f).__name__ for f in query.lists[0].body.items]
['Result', 'PieceSet', 'Simple']
>>> query.lists[0].mark
<Mark.ALL: 'all'>
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
from cqllegacy.translator.errors import TranslationError
from cqllegacy.translator.query import cql_tag_names, to_core

from cqllegacy.core import tree as core

__all__ = ["TranslationError", "modern_form", "to_core", "translate"]


def modern_form(query: core.Query) -> core.Query:
    """The query as CQL 6.1 writes it: what ``run`` evaluates in a faster legacy-only
    form rewritten into modern filters that mean the same, and tag names CQL reads.

    ``translate`` prints this; reading the printed text back gives this query (with
    each trailing comment the printer writes on a line of its own made one, see
    :func:`~cqllegacy.modern.encoding.settle_comments`).
    """
    from cqllegacy.modern.encoding import settle_comments

    return settle_comments(cql_tag_names(query))


def translate(
    text: str,
    *,
    approximate: bool = False,
    path: str | None = None,
    relocate: Callable[[str], str] | None = None,
) -> str:
    """CQL 6.1 text for a legacy script: read, rewrite, print.

    ``relocate`` gives each file name of the header (``:pgn``, ``:output``) as the
    translation must write it (a translation written to another folder than its script's
    names the same files by other relative paths).

    Raises :class:`~cqllegacy.legacy.LegacySyntaxError` for a script that does not read,
    :class:`TranslationError` for one without a core meaning, and the printer's
    ``NotExpressible`` where CQL 6.1 cannot say the meaning exactly (unless
    ``approximate``).  Every error carries the source for its caret excerpt.
    """
    from cqllegacy.errors import ScriptError
    from cqllegacy.legacy import read_script
    from cqllegacy.modern.printer import print_query

    try:
        script = read_script(text, path)
        try:
            query = modern_form(to_core(script, modern=True))
        except TranslationError:
            if not approximate:
                raise
            # No exact CQL 6.1 form: the printer writes the nearest one of what run
            # evaluates, each approximation marked by a comment at its place.
            query = modern_form(to_core(script))
        if relocate is not None:
            query = _relocated(query, relocate)
        return print_query(query, approximate=approximate)
    except ScriptError as exc:
        if not exc.source:
            exc.source = text
        if exc.file is None:
            exc.file = path
        raise


def _relocated(query: core.Query, relocate: Callable[[str], str]) -> core.Query:
    header = query.header
    output = relocate(header.output) if header.output is not None else None
    inputs = tuple(relocate(name) for name in header.inputs)
    return attrs.evolve(query, header=attrs.evolve(header, inputs=inputs, output=output))
