"""The repr every attrs class of the package shares, written once.

attrs writes and compiles a ``__repr__`` for each class it makes.  For the package's
two hundred classes that source is about half of what attrs compiles when a command
starts, a tenth of its start-up.  Each class is declared ``repr=False`` and inherits
:class:`Record`'s, which prints the text attrs would have printed:

>>> import attrs
>>> @attrs.frozen(repr=False)
... class Step(Record):
...     square: int
...     name: str = attrs.field(default="a1")
...     note: str = attrs.field(default="", repr=False)
>>> Step(0)
Step(square=0, name='a1')

``tests/test_records.py`` holds every class to it.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["Record"]


class Record:
    """A base for attrs classes: attrs's repr, read from the fields when asked."""

    __slots__ = ()

    def __repr__(self) -> str:
        cls: Any = type(self)  # an attrs class: every subclass is one
        shown = []
        for field in attrs.fields(cls):
            if field.repr is False:
                continue
            value = getattr(self, field.name)
            text = field.repr(value) if callable(field.repr) else repr(value)
            shown.append(f"{field.name}={text}")
        # attrs names a class made inside a function by the part after its locals.
        return f"{cls.__qualname__.rsplit('>.', 1)[-1]}({', '.join(shown)})"
