"""One dispatch mechanism for per-class behaviour that cannot live on the class.

A :class:`Dispatcher` is a small typed registry keyed by class: reference rules, lowerings,
the CQL 6 printer, the translator's rewrite rules, orbit mapping and the transform rewrite
each keep one.  Its missing entry fails loudly (:class:`MissingEntry`, naming the
dispatcher and the class) instead of falling back to a silent default; a class that has
no entry on purpose is declared :meth:`~Dispatcher.absent`, with the reason, so that one
completeness test (tests/test_tables_complete.py) can run every dispatcher over every node
class and find each class either served or knowingly left out.

>>> from collections.abc import Callable
>>> shapes: Dispatcher[Callable[[object], str]] = Dispatcher("shape names")
>>> @shapes.register(int, bool)
... def _(value: object) -> str:
...     return "number"
>>> shapes.absent(str, reason="text has no shape")
>>> shapes[int](3), shapes.covers(str), str in shapes
('number', True, False)
>>> shapes[float]
Traceback (most recent call last):
...
cqllegacy.core.dispatch.MissingEntry: shape names has no entry for float
>>> shapes[str]
Traceback (most recent call last):
...
cqllegacy.core.dispatch.MissingEntry: shape names has no entry for str: text has no shape
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TypeVar

__all__ = ["Dispatcher", "MissingEntry"]

R = TypeVar("R")
_E = TypeVar("_E")


class MissingEntry(KeyError):
    """A dispatcher was asked for a class it has no entry for: a construct was added and
    one of its per-class behaviours was forgotten (a programming error, never bad input).

    A ``KeyError``, so that a dispatcher is a plain ``Mapping`` (``get`` gives None)."""

    def __str__(self) -> str:
        return str(self.args[0])


class Dispatcher(Mapping[type, R]):
    """Entries of type ``R`` (usually a function) by exact class.

    Lookup is by exact class, not by inheritance: a subclass is a construct of its own and
    must be registered itself (this is what makes a forgotten entry visible).  It is a
    read-only ``Mapping`` from class to entry: ``dispatcher[cls]`` fails loudly,
    ``dispatcher.get(cls)`` is None for a class without an entry (for callers that have a
    fallback of their own, such as the compiler's reference rule).
    """

    def __init__(self, name: str) -> None:
        #: Says what the entries are, in messages ("reference rules", "CQL 6 printers").
        self.name = name
        self._entries: dict[type, R] = {}
        self._absent: dict[type, str] = {}
        self._absent_where: dict[type, str] = {}

    def register(self, *classes: type) -> Callable[[_E], _E]:
        """A decorator that files the decorated entry under each of ``classes``.

        The decorator returns the entry unchanged; its type is checked where it is looked
        up (an entry is a value of ``R``)."""

        def file(entry: _E) -> _E:
            for cls in classes:
                self.add(cls, entry)  # type: ignore[arg-type]
            return entry

        return file

    def add(self, cls: type, entry: R) -> None:
        """Files ``entry`` under ``cls``; a second entry for one class is a mistake."""
        if cls in self._entries or cls in self._absent:
            raise ValueError(f"{self.name}: {cls.__name__} is registered twice")
        self._entries[cls] = entry

    def absent(self, *classes: type, reason: str) -> None:
        """Declares that ``classes`` have no entry on purpose, and why (the declaring
        module is kept: :meth:`declared_in`)."""
        where = sys._getframe(1).f_globals.get("__name__", "")
        for cls in classes:
            if cls in self._entries or cls in self._absent:
                raise ValueError(f"{self.name}: {cls.__name__} is registered twice")
            self._absent[cls] = reason
            self._absent_where[cls] = where

    def declared_in(self, cls: type) -> str | None:
        """The module that declared ``cls`` absent (None: it was not)."""
        return self._absent_where.get(cls)

    def __getitem__(self, cls: type) -> R:
        entry = self._entries.get(cls)
        if entry is None:
            reason = self._absent.get(cls)
            because = f": {reason}" if reason is not None else ""
            raise MissingEntry(f"{self.name} has no entry for {cls.__name__}{because}")
        return entry

    def __contains__(self, cls: object) -> bool:
        return cls in self._entries

    def __iter__(self) -> Iterator[type]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def covers(self, cls: type) -> bool:
        """Whether ``cls`` has an entry or is declared absent."""
        return cls in self._entries or cls in self._absent

    def missing(self, classes: Iterable[type]) -> list[type]:
        """The classes of ``classes`` neither registered nor declared absent."""
        return [cls for cls in classes if not self.covers(cls)]

    def absent_classes(self) -> Mapping[type, str]:
        """The classes declared absent, with their reasons (a read-only view)."""
        return MappingProxyType(self._absent)

    def table(self) -> Mapping[type, R]:
        """The entries by class (a read-only view that follows later registrations)."""
        return MappingProxyType(self._entries)

    def __repr__(self) -> str:
        return f"Dispatcher({self.name!r}, {len(self._entries)} entries)"
