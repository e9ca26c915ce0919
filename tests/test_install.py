"""The repository's folder after ``pip install .`` (issue 32, item 1).

The README's examples run from the repository's folder.  There the local ``cqllegacy/``
comes first on the path and shadows the installed package, and ``translator/`` became
``cqllegacy.translator`` only in the installed copy: the Python API and ``python -m
cqllegacy`` failed with ``No module named 'cqllegacy.translator'``.  Tested as a user
meets it: a fresh clone of the committed tree, a virtual environment, ``pip install .``,
then the commands run from inside the clone.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _missing_tools() -> str | None:
    if shutil.which("git") is None:
        return "git is not installed"
    if not (ROOT / ".git").exists():
        return "the tests do not run from a git clone"
    for module in ("venv", "pip", "setuptools"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    return None


@pytest.fixture(scope="module")
def installed_clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A clone of the committed tree and the Python of a venv it is installed in."""
    missing = _missing_tools()
    if missing is not None:
        pytest.skip(f"cannot install a fresh clone: {missing}")
    base = tmp_path_factory.mktemp("install")
    clone = base / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    venv = base / "venv"
    # The system's packages (python-chess, DuckDB …, pip and setuptools too) serve: the
    # venv's own old setuptools would not build the wheel.
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True, timeout=120,
    )  # fmt: skip
    python = venv / "bin" / "python"
    # Without build isolation where the system's setuptools builds wheels (faster, no
    # index asked); else pip fetches pyproject.toml's build requirements.
    isolation = ["--no-build-isolation"] if _builds_wheels() else []
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", *isolation, "."],
        cwd=clone, timeout=600, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return clone, python


def _builds_wheels() -> bool:
    """Whether the system's setuptools builds wheels itself (70.1 on) or with ``wheel``."""
    from importlib.metadata import version as installed

    # (Not imported: setuptools asserts when distutils was imported before it.)
    version = tuple(int(part) for part in installed("setuptools").split(".")[:2] if part.isdigit())
    return version >= (70, 1) or importlib.util.find_spec("wheel") is not None


#: An editable install of another checkout in the system's packages (which the venv
#: sees) would find ``cqllegacy.translator`` there: its finder is left out, so that the
#: clone is tried as a user's machine has it.
_WITHOUT_OTHER_EDITABLE_INSTALLS = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
    "if not getattr(f, '__module__', '').startswith('__editable__')]; "
)


def _run(python: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -c CODE`` or ``python -m MODULE ARGS``, as a user types them."""
    if argv[0] == "-c":
        code = _WITHOUT_OTHER_EDITABLE_INSTALLS + argv[1]
    else:
        assert argv[0] == "-m"
        code = (
            _WITHOUT_OTHER_EDITABLE_INSTALLS
            + f"import runpy; sys.argv[:] = {[argv[1], *argv[2:]]!r}; "
            + f"runpy.run_module({argv[1]!r}, run_name='__main__', alter_sys=True)"
        )
    return subprocess.run(
        [str(python), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_the_translator_imports_inside_the_clone(installed_clone: tuple[Path, Path]) -> None:
    clone, python = installed_clone
    done = _run(python, "-c", "import cqllegacy.translator", cwd=clone)
    assert done.returncode == 0, done.stderr


def test_python_m_cqllegacy_runs_inside_the_clone(installed_clone: tuple[Path, Path]) -> None:
    clone, python = installed_clone
    done = _run(python, "-m", "cqllegacy", "--help", cwd=clone)
    assert done.returncode == 0, done.stderr
    assert "translate" in done.stdout
    done = _run(python, "-m", "cqllegacy", "translate", "examples/knight-fork.cql", cwd=clone)
    assert done.returncode == 0, done.stderr
    assert "flipcolor shift" in done.stdout


def test_the_python_api_works_inside_the_clone_and_elsewhere(
    installed_clone: tuple[Path, Path], tmp_path: Path
) -> None:
    clone, python = installed_clone
    example = clone / "examples" / "knight-fork.cql"
    code = f"import cqllegacy; print(cqllegacy.load({str(example)!r}).translate().count('shift'))"
    for folder in (clone, tmp_path):
        done = _run(python, "-c", code, cwd=folder)
        assert done.returncode == 0, (folder, done.stderr)
        assert int(done.stdout) >= 1
