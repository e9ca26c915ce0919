"""Every attrs class of the package prints through :class:`cqllegacy.records.Record`,
and prints what attrs itself would print.

attrs compiles a ``__repr__`` for each class at import; declaring the classes
``repr=False`` keeps that off every command's start-up (docs/performance.md).
"""

from __future__ import annotations

import importlib

import attrs
import pytest

from cqllegacy.records import Record
from tests.test_layers import module_files


def _package_classes() -> list[type]:
    found: dict[type, None] = {}
    for name in sorted(module_files()):
        if name.endswith("__main__"):
            continue  # running it is the command
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and attrs.has(value) and value.__module__ == name:
                found[value] = None
    return list(found)


CLASSES = _package_classes()


def test_the_package_has_its_attrs_classes_in_view() -> None:
    names = {cls.__qualname__ for cls in CLASSES}
    assert {"Designator", "PieceSet", "Span", "GameText", "Columns"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_no_class_has_a_repr_compiled_by_attrs(cls: type) -> None:
    code = getattr(cls.__repr__, "__code__", None)
    assert code is None or not code.co_filename.startswith("<attrs generated"), (
        f"{cls.__qualname__}: declare it @attrs.frozen(repr=False) (or define) on a Record"
    )
    assert cls.__repr__ is not object.__repr__, f"{cls.__qualname__} prints as an address"


def _filled(cls: type) -> object:
    """An instance of ``cls`` whose fields hold distinct values, made without running
    its ``__init__`` (whose validators would refuse them)."""
    instance = object.__new__(cls)
    for n, field in enumerate(attrs.fields(cls)):
        object.__setattr__(instance, field.name, ("value", n) if n % 2 else n)
    return instance


def _attrs_twin(cls: type) -> type:
    """A class with the fields of ``cls`` whose repr attrs writes."""
    fields = {f.name: attrs.field(repr=f.repr) for f in attrs.fields(cls)}
    twin = attrs.make_class(cls.__name__, fields, repr=True, slots=False, eq=False)
    twin.__qualname__ = cls.__qualname__
    return twin


@pytest.mark.parametrize(
    "cls",
    [cls for cls in CLASSES if cls.__repr__ is Record.__repr__],
    ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}",
)
def test_record_prints_what_attrs_prints(cls: type) -> None:
    instance = _filled(cls)
    twin = _attrs_twin(cls)
    copy = object.__new__(twin)
    for field in attrs.fields(cls):
        object.__setattr__(copy, field.name, getattr(instance, field.name))
    assert repr(instance) == repr(copy)


def test_a_class_made_in_a_function_is_named_as_attrs_names_it() -> None:
    def make() -> type:
        @attrs.frozen(repr=False)
        class Local(Record):
            x: int
            hidden: int = attrs.field(default=0, repr=False)

        return Local

    local = make()
    assert "<locals>" in local.__qualname__
    assert repr(local(3)) == "Local(x=3)"
