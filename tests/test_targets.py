"""The targets of issue 29, checked.

- A construct CQL 6 alone has touches at most 3 production files; one both languages
  have, at most 5.  The files are listed from the declarations and the dispatchers: the
  module of each class, and the module of each dispatcher entry written for it (an entry
  derived from the declarations, such as a printer or a reader form derived from
  ``SYNTAX``, is written nowhere).
- Forgetting any entry of a construct fails, naming the class: shown on throwaway
  classes that have none.
- No production module is over 1,000 lines.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import attrs
import pytest
from cqllegacy.translator.item_rules import ITEM_RULES
from cqllegacy.translator.orbits import ITEM_MAPS

from cqllegacy.core import transforms
from cqllegacy.core import tree as ct
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.evaluator.arrays import ARRAY_FORMS
from cqllegacy.evaluator.evaluate import REFERENCE_RULES
from cqllegacy.evaluator.lowering import LOWERING, REFERENCE_RULE
from cqllegacy.legacy import tree as lt
from cqllegacy.modern import grammar, node_printers, printer
from cqllegacy.present.explain import ITEM_WORDS, MATCH_WORDS

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = (ROOT / "cqllegacy", ROOT / "translator")
#: Where a construct's per-class entries live, by language side.
CORE_DISPATCHERS: tuple[Dispatcher[object], ...] = (
    REFERENCE_RULES,
    LOWERING,
    printer.PRINTERS,
    transforms.REWRITE,
    ARRAY_FORMS,
)
LEGACY_DISPATCHERS: tuple[Dispatcher[object], ...] = (
    ITEM_RULES,
    ITEM_MAPS,
    ITEM_WORDS,
    MATCH_WORDS,
)
#: The reader's modules: a class read by a form written there is named in them.
READER_MODULES = ("grammar.py", "forms.py", "reader.py")


def _relative(path: str | None) -> str:
    assert path is not None
    return Path(path).resolve().relative_to(ROOT).as_posix()


def _names(cls: type, text: str) -> bool:
    return re.search(rf"\b{cls.__name__}\b", text) is not None


def _written_for(entry: object, cls: type) -> bool:
    """An entry written for ``cls`` names it (its decorator or its parameter's type); one
    derived from the declarations (a closure made for every class that declares a form, a
    rule shared by every class of a kind) does not."""
    assert callable(entry)
    return _names(cls, inspect.getsource(entry))


def construct_files(*classes: type) -> set[str]:
    """The production files that carry the declaration or an entry of ``classes``."""
    files: set[str] = set()
    for cls in classes:
        files.add(_relative(inspect.getsourcefile(cls)))
        core = issubclass(cls, ct.Filter)
        for dispatcher in CORE_DISPATCHERS if core else LEGACY_DISPATCHERS:
            entry = dispatcher.get(cls)
            if entry is not None and _written_for(entry, cls):
                files.add(_relative(inspect.getsourcefile(entry)))  # type: ignore[arg-type]
            module = dispatcher.declared_in(cls)
            source = None if module is None else inspect.getsourcefile(sys.modules[module])
            if source is not None and _names(cls, Path(source).read_text(encoding="utf-8")):
                # A class left out by name (not by a rule over every class) costs a place.
                files.add(_relative(source))
        if core:
            for name in READER_MODULES:
                path = ROOT / "cqllegacy" / "modern" / name
                if _names(cls, path.read_text(encoding="utf-8")):
                    files.add(_relative(str(path)))
    return files


def test_abs_a_cql_6_construct_takes_at_most_3_production_files() -> None:
    files = construct_files(ct.Abs)
    assert files == {
        "cqllegacy/core/number_nodes.py",
        "cqllegacy/evaluator/position_rules.py",
        "cqllegacy/evaluator/arrays/number_forms.py",
    }
    assert len(files) <= 3


def test_distance_a_cql_6_construct_takes_at_most_3_production_files() -> None:
    files = construct_files(ct.Distance)
    assert files == {
        "cqllegacy/core/position_nodes.py",
        "cqllegacy/evaluator/line_rules.py",
        "cqllegacy/evaluator/arrays/game_forms.py",
    }
    assert len(files) <= 3


def test_power_a_construct_of_both_languages_takes_at_most_5_production_files() -> None:
    # CQL 6.1 has no keyword beside `distance` (legacy CQL has no positions to measure);
    # `power` is a construct of both languages on the same mechanisms.
    files = construct_files(ct.Power, lt.Power)
    assert files == {
        "cqllegacy/core/number_nodes.py",
        "cqllegacy/evaluator/position_rules.py",
        "cqllegacy/legacy/tree.py",
        "translator/item_rules.py",
        "cqllegacy/evaluator/arrays/number_forms.py",
    }
    assert len(files) <= 5


def test_the_file_list_sees_an_entry_written_for_a_class() -> None:
    # A class with forms written by hand touches the reader, the printer and the rules.
    files = construct_files(ct.Move)
    assert {"cqllegacy/modern/forms.py", "cqllegacy/modern/node_printers.py"} <= files
    assert "cqllegacy/evaluator/line_rules.py" in files


# --------------------------------------------------------------------------------------
# A forgotten entry fails, naming the class
# --------------------------------------------------------------------------------------


def missing_entries(cls: type) -> list[str]:
    """What a construct lacks, each naming ``cls``: what the table-completeness tests and
    the reader's and printer's import-time checks report."""
    problems: list[str] = []
    if issubclass(cls, ct.Filter):
        problems += [f"{d.name}: {cls.__name__}" for d in CORE_DISPATCHERS if not d.covers(cls)]
        if (cls in LOWERING) == (cls in REFERENCE_RULE):
            problems.append(f"lowering: {cls.__name__} neither lowered nor left to its rule")
        for check in (grammar.check_syntax, node_printers.check_printers):
            try:
                check((cls,))
            except ct.DeclarationError as error:
                problems.append(str(error))
    else:
        problems += [
            f"{d.name}: {cls.__name__}" for d in LEGACY_DISPATCHERS[:3] if not d.covers(cls)
        ]
        if not isinstance(getattr(cls, "KEYWORD", None), lt.KeywordDeclaration):
            problems.append(f"{cls.__name__} declares no KEYWORD")
    return problems


@pytest.mark.parametrize("cls", [ct.Abs, ct.Distance, ct.Power, lt.Power], ids=str)
def test_the_constructs_have_every_entry(cls: type) -> None:
    assert missing_entries(cls) == []


@attrs.frozen(slots=True)
class Throwaway(ct.Filter):
    """A node class with its declarations and no entry anywhere."""

    WORD = "`throwaway`"
    CQL_WORDS = ()
    KIND = ct.Kind.NUMBER
    OPERANDS = ct.SETS
    TRANSFORMS = ct.Transforms.CHILDREN
    READS = ct.Reads.POSITION
    PRECEDENCE = ct.Precedence.ATOM

    arg: ct.Filter


@attrs.frozen(slots=True)
class ThrowawayItem:
    """A legacy position item with no keyword and no entry anywhere."""

    designator: lt.Designator


def test_every_forgotten_entry_of_a_node_class_is_named() -> None:
    problems = missing_entries(Throwaway)
    for where in ("reference rules", "CQL 6 printers", "lowering", "reader", "printer"):
        named = [p for p in problems if where in p and "Throwaway" in p]
        assert named, (where, problems)
    assert Throwaway not in ct.node_classes()  # a test's class is no node of the core


def test_every_forgotten_entry_of_a_legacy_item_is_named() -> None:
    problems = missing_entries(ThrowawayItem)
    for dispatcher in LEGACY_DISPATCHERS[:3]:
        assert f"{dispatcher.name}: ThrowawayItem" in problems
    assert "ThrowawayItem declares no KEYWORD" in problems


def test_a_class_declaring_a_form_it_does_not_have_is_refused() -> None:
    with pytest.raises(ct.DeclarationError, match="Misshapen declares SYNTAX"):

        @attrs.frozen(slots=True)
        class Misshapen(ct.Filter):
            SYNTAX = ct.Prefix()
            WORD, CQL_WORDS, KIND = "`x`", ("x",), ct.Kind.NUMBER
            OPERANDS, TRANSFORMS = ct.SETS, ct.Transforms.CHILDREN
            READS, PRECEDENCE = ct.Reads.POSITION, ct.Precedence.ATOM

            left: ct.Filter
            right: ct.Filter

        ct.derived_shape(Misshapen)


# --------------------------------------------------------------------------------------
# Module sizes
# --------------------------------------------------------------------------------------

MAX_LINES = 1000


def _modules() -> list[Path]:
    return sorted(path for folder in PRODUCTION for path in folder.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: _relative(str(p)))
def test_no_production_module_is_over_1000_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_relative(str(path))} has {lines} lines"


def test_the_module_list_is_read() -> None:
    assert len(_modules()) > 50
