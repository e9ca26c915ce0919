"""The package's layers: no module imports from a layer above its own, and no two modules
import each other, directly or round a longer loop.

The import graph is read here from the source with :mod:`ast` (every ``import``, also
those inside functions and under ``TYPE_CHECKING``), with ``translator/`` read as
``cqllegacy.translator``, the name it installs under.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: From the top: a module may import from its own layer's package and from those below.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cqllegacy.cli", "cqllegacy.__main__"),
    ("cqllegacy.api",),
    ("cqllegacy.indexing",),
    ("cqllegacy.migration", "cqllegacy.fixturekit", "cqllegacy.present"),
    ("cqllegacy.runner",),
    ("cqllegacy.evaluator",),
    ("cqllegacy.translator",),
    ("cqllegacy.legacy", "cqllegacy.modern"),
    ("cqllegacy.core",),
    ("cqllegacy.vocab",),
    ("cqllegacy.errors", "cqllegacy"),
)

#: Where each installed package's source lives in the repository.
SOURCES = {"cqllegacy": ROOT / "cqllegacy", "cqllegacy.translator": ROOT / "translator"}


def module_files() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def imported_names(module: str, path: Path) -> Iterator[str]:
    """Every module name ``path`` imports, resolved to the longest known prefix later."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            yield prefix
            yield from (f"{prefix}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = set()
        for name in imported_names(module, path):
            if name in files and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def layer_of(module: str) -> int:
    best = (-1, len(LAYERS))
    for index, layer in enumerate(LAYERS):
        for package in layer:
            if module == package or module.startswith(package + "."):
                best = max(best, (len(package), index))
    return best[1]


def test_every_module_has_a_layer() -> None:
    assert all(layer_of(module) < len(LAYERS) for module in import_graph())


def test_no_module_imports_from_a_layer_above_it() -> None:
    graph = import_graph()
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if layer_of(target) < layer_of(module)
        # A package's __init__ may re-export its own modules.
        and not target.startswith(module + ".")
    )
    assert upward == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def without_package_reexports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` that re-exports its modules is not a cycle with them."""
    packages = {m for m, p in module_files().items() if p.name == "__init__.py"}
    return {
        module: {t for t in targets if not (module in packages and t.startswith(module + "."))}
        for module, targets in graph.items()
    }


def test_no_import_cycles() -> None:
    assert cycles(without_package_reexports(import_graph())) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_a_new_upward_import_is_caught(tmp_path: Path) -> None:
    assert layer_of("cqllegacy.evaluator.compiler") > layer_of("cqllegacy.runner.scanner")
    assert layer_of("cqllegacy.vocab.squares") > layer_of("cqllegacy.core.tree")
    assert layer_of("cqllegacy.translator.rewrite") < layer_of("cqllegacy.legacy.tree")


def test_the_package_list_names_every_folder() -> None:
    """pyproject.toml lists the packages by hand (translator/ is mapped into cqllegacy)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {m for m, p in module_files().items() if p.name == "__init__.py"}
    assert listed == folders
    assert config["tool"]["setuptools"]["package-dir"] == {"cqllegacy.translator": "translator"}


def test_translator_installs_inside_the_package(tmp_path: Path) -> None:
    """Outside the repository, ``cqllegacy.translator`` imports and ``translator`` does not."""
    probe = (
        "import importlib.util, cqllegacy.translator as t;"
        "print(t.__name__, importlib.util.find_spec('translator') is None)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["cqllegacy.translator", "True"]


@pytest.mark.parametrize(
    "module", sorted(m for m in module_files() if m.startswith("cqllegacy.translator"))
)
def test_translator_doctests(module: str) -> None:
    # pytest's --doctest-modules would import translator/ under its folder name.
    failed, _ = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert failed == 0
