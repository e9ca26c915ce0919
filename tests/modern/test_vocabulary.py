"""The reader and the printer share one vocabulary module and import nothing of each other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cqllegacy.core import tree as ct
from cqllegacy.modern import grammar, printer, vocabulary
from tests.test_layers import import_graph, imported_names, module_files

SIDES = ("cqllegacy.modern.grammar", "cqllegacy.modern.printer")
#: The modules of each side: the reader's and the printer's.
READER = (*SIDES[:1], "cqllegacy.modern.reader", "cqllegacy.modern.forms", "cqllegacy.modern.lexer")
WRITER = (*SIDES[1:], "cqllegacy.modern.layout", "cqllegacy.modern.node_printers")
#: What the reader and the printer may import from the package.
ALLOWED = (
    "cqllegacy.modern.vocabulary",
    "cqllegacy.modern.errors",
    "cqllegacy.modern.encoding",
    "cqllegacy.modern.kinds",
    "cqllegacy.errors",
    "cqllegacy.recursion",
    "cqllegacy.records",
)
ALLOWED_PACKAGES = ("cqllegacy.core", "cqllegacy.vocab")


def allowed(target: str) -> bool:
    return target in ALLOWED or any(
        target == package or target.startswith(package + ".") for package in ALLOWED_PACKAGES
    )


@pytest.mark.parametrize("module", [*READER, *WRITER, "cqllegacy.modern.vocabulary"])
def test_the_reader_printer_and_vocabulary_import_only_vocabulary_errors_core_and_vocab(
    module: str,
) -> None:
    targets = import_graph()[module]
    own = READER if module in READER else WRITER if module in WRITER else ()
    assert sorted(t for t in targets if not allowed(t) and t not in own) == []


def test_the_reader_and_the_printer_do_not_import_each_other() -> None:
    graph = import_graph()
    for reader in READER:
        assert not graph[reader] & set(WRITER), reader
    for writer in WRITER:
        assert not graph[writer] & set(READER), writer


def test_the_sides_name_every_module_of_the_modern_package() -> None:
    shared = {*ALLOWED, "cqllegacy.modern.vocabulary", "cqllegacy.modern"}
    modern = {m for m in module_files() if m.startswith("cqllegacy.modern")}
    assert modern - shared == {*READER, *WRITER}


def test_the_import_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "grammar.py"
    module.write_text("def f():\n    from cqllegacy.modern.printer import print_query\n")
    names = set(imported_names(SIDES[0], module))
    assert "cqllegacy.modern.printer" in names
    assert not allowed("cqllegacy.modern.printer")


def _defined(module: str) -> list[str]:
    """Names a module's top level defines (assignments, functions, classes)."""
    tree = ast.parse(module_files()[module].read_text(encoding="utf-8"))
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.append(node.name)
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            names += [name.id for name in ast.walk(target) if isinstance(name, ast.Name)]
    return names


def _constants(module: str) -> set[str]:
    """Module-level constant names (upper case), without a leading underscore."""
    return {
        name.lstrip("_") for name in _defined(module) if re.fullmatch(r"_?[A-Z][A-Z0-9_]*", name)
    }


def test_no_constant_is_defined_by_both_the_reader_and_the_printer() -> None:
    reader = set().union(*map(_constants, READER))
    writer = set().union(*map(_constants, WRITER))
    assert reader & writer == set()


def test_no_vocabulary_name_is_defined_again_by_either_side() -> None:
    shared = _constants("cqllegacy.modern.vocabulary")
    for side in (*READER, *WRITER):
        assert _constants(side) & shared == set(), side


def test_the_vocabulary_lists_what_it_exports() -> None:
    public = {name for name in _defined("cqllegacy.modern.vocabulary") if name[0] != "_"}
    assert public == set(vocabulary.__all__)


def test_the_supported_words_are_cql_words() -> None:
    assert vocabulary.SUPPORTED_WORDS <= vocabulary.RESERVED_WORDS
    assert not vocabulary.SUPPORTED_WORDS & vocabulary.UNSUPPORTED_WORDS


def test_the_precedence_levels_are_distinct() -> None:
    levels = [value for name, value in vars(vocabulary).items() if name in _LEVEL_NAMES]
    assert len(levels) == len(_LEVEL_NAMES) == len(set(levels))


_LEVEL_NAMES = {
    "LINE", "TRANSFORM", "OR", "AND", "NOT", "IN", "RELATION", "UNARY", "COUNT", "ARITH",
    "POWER", "UNION", "INTERSECTION", "COMPLEMENT", "ATTACK", "MOVE", "DIRECTION", "ATOM",
}  # fmt: skip


@pytest.mark.parametrize(("text", "bounds"), list(vocabulary.REPETITIONS.items()))
def test_repetition_shorthands_read_and_print_the_same(
    text: str, bounds: tuple[int, int | None]
) -> None:
    step = ct.LineStep(ct.Simple(ct.Keyword.CHECK), *bounds)
    query = grammar.read_query(f"cql() line --> check{text} --> mate")
    line = query.lists[0].body
    assert isinstance(line, ct.Line) and line.steps[0] == step
    assert f"check{text} -->" in printer.print_query(query)


def test_the_supported_words_are_derived_from_the_node_classes() -> None:
    declared = {word: cls for cls in ct.node_classes() for word in cls.CQL_WORDS}
    assert vocabulary.HEADER_WORDS | set(declared) == vocabulary.SUPPORTED_WORDS
    for word, cls in declared.items():
        assert word in vocabulary.RESERVED_WORDS, f"{cls.__name__}: {word!r} is no CQL word"


@pytest.mark.parametrize(
    "cls",
    [cls for cls in ct.node_classes() if cls.SYNTAX is not ct.Syntax.OWN],
    ids=lambda cls: cls.__name__,
)
def test_every_word_of_a_derived_form_starts_it_in_the_reader(cls: type[ct.Filter]) -> None:
    words = (
        [w for w, node in vocabulary.BARE_WORDS.items() if type(node) is cls]
        if cls.SYNTAX is ct.Syntax.WORD
        else list(ct.derived_shape(cls).words)
    )
    assert words, cls.__name__
    for word in words:
        assert word in grammar.TABLES.words, f"{cls.__name__}: the reader has no {word!r}"
