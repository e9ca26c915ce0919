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
    from cqllegacy.core import tree as ct
    from cqllegacy.modern import vocabulary as v

    # The list as it was written by hand before the classes declared their words, and the
    # words of the constructs added since (issue 18, item 6).
    by_hand = frozenset((*v.TRANSFORM_WORDS, *v.DIRECTION_WORDS, *v.SIMPLE_WORDS,
        *v.NUMERIC_WORDS, "all", "ancestor", "and", "attackedby", "attacks", "between",
        "black", "capture", "count", "cql", "echo", "elo", "enpassant", "event", "find",
        "from", "gamenumber", "in", "input", "line", "lowercase", "matchcount", "move", "not",
        "or", "output", "piece", "player", "power", "previous", "promote", "quiet", "ray",
        "result", "sidetomove", "site", "to", "variations", "white", "xray",
        "light", "dark", "o-o", "o-o-o", "square",
        "passedpawns", "isolatedpawns", "doubledpawns", "connectedpawns"))  # fmt: skip
    assert by_hand == v.SUPPORTED_WORDS
    for cls in ct.node_classes():
        assert set(cls.CQL_WORDS) <= v.RESERVED_WORDS, cls.__name__
