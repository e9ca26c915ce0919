"""The one error the legacy reader raises.

>>> err = LegacySyntaxError(
...     "bad piece letter 'X'", line=2, column=11, file="fork.cql",
...     source="(match\\n (position Xa1))", text="X", expected="a piece type such as R or [Qq]",
... )
>>> print(err.render())
fork.cql:2:11: error: bad piece letter 'X'
    expected a piece type such as R or [Qq]
     (position Xa1))
              ^
"""

from __future__ import annotations

from cqllegacy.errors import ScriptError


class LegacySyntaxError(ScriptError):
    """A legacy script that is not well formed, at a known line and column.

    Carries the file, the offending ``text``, what was ``expected``, a ``hint`` and
    the ``source`` (for the caret excerpt); see :class:`cqllegacy.errors.ScriptError`.
    """
