"""The README's examples, and those of the docs pages it links to for the details, run as
written (from the repository's folder): their Python examples as doctests, their command
examples (``$ …`` lines in a code block, each followed by what it prints) in a shell; and
the README's command synopsis names every option ``--help`` names."""

from __future__ import annotations

import argparse
import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cqllegacy.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The pages whose examples are tested with the README's: the details moved there.
PAGES_WITH_EXAMPLES = ("README.md", "docs/commands.md", "docs/api.md")


@pytest.mark.parametrize("page", ["README.md", "docs/api.md"])
def test_python_examples(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    failed, attempted = doctest.testfile(
        str(ROOT / page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert attempted > 3 and failed == 0


def test_the_readme_links_every_page_with_examples() -> None:
    assert all(page in README for page in PAGES_WITH_EXAMPLES[1:])


# --------------------------------------------------------------------------------------
# Command examples
# --------------------------------------------------------------------------------------

_BLOCK = re.compile(r"^```[a-z]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
# What changes from run to run: the time a run took.
_TIME = re.compile(r"\bin \d+(?:\.\d+)? s\b")


def command_examples(text: str) -> list[tuple[str, str]]:
    """Each ``$ COMMAND`` of ``text`` with the text after it, up to the next one."""
    found = []
    for block in _BLOCK.finditer(text):
        lines = block.group(1).splitlines()
        if not any(line.startswith("$ ") for line in lines):
            continue
        for index, line in enumerate(lines):
            if not line.startswith("$ "):
                continue
            output = []
            for following in lines[index + 1 :]:
                if following.startswith("$ "):
                    break
                output.append(following)
            found.append((line[2:], "\n".join(output)))
    return found


def every_command_example() -> list[tuple[str, str]]:
    """The command examples of every page, in page order (one page's may build on the
    files an earlier one of the same page wrote)."""
    return [
        example
        for page in PAGES_WITH_EXAMPLES
        for example in command_examples((ROOT / page).read_text(encoding="utf-8"))
    ]


def test_the_readme_has_an_example_of_every_command() -> None:
    commands = [command for command, _ in command_examples(README)]
    named = {c.split()[1] for c in commands if c.startswith("cqllegacy ")}
    assert named >= {name.split()[0] for name in help_options()}


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A folder laid out like the repository's (its examples and fixtures), and an
    environment whose ``cqllegacy`` is this checkout's."""
    folder = tmp_path_factory.mktemp("readme")
    for name in ("examples", "fixtures"):
        (folder / name).symlink_to(ROOT / name)
    bin_folder = folder / ".bin"
    bin_folder.mkdir()
    shim = bin_folder / "cqllegacy"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cqllegacy "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_folder}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return folder, env


@pytest.mark.parametrize(("command", "expected"), every_command_example(), ids=lambda x: x[:60])
def test_a_command_example_prints_what_the_readme_shows(
    command: str, expected: str, shell: tuple[Path, dict[str, str]]
) -> None:
    folder, env = shell
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    printed = _TIME.sub("in … s", done.stdout.rstrip("\n"))
    assert printed == _TIME.sub("in … s", expected)


# --------------------------------------------------------------------------------------
# The synopsis and --help
# --------------------------------------------------------------------------------------


def synopsis() -> dict[str, set[str]]:
    """The options the README's command synopsis names, per (sub-)command."""
    block = README.split("## Commands", 1)[1].split("```", 2)[1].split("\n", 1)[1]
    found: dict[str, set[str]] = {}
    command = ""
    for line in block.splitlines():
        if not line.strip():
            continue
        if line.startswith("cqllegacy "):
            words = line.split()
            command = " ".join(w for w in words[1:3] if re.fullmatch(r"[a-z]+", w))
            if command.split()[0] != "fixtures":
                command = command.split()[0]
            found[command] = set()
        found.setdefault(command, set()).update(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", line))
    return found


def help_options() -> dict[str, list[set[str]]]:
    """The options of each (sub-)command's parser, one set of spellings per option (long
    ones and one-letter ones: ``{"-q", "--quiet"}``)."""

    def options(parser: argparse.ArgumentParser) -> list[set[str]]:
        found = []
        for action in parser._actions:
            names = {o for o in action.option_strings if o.startswith("--") or len(o) == 2}
            if names and "--help" not in names:
                found.append(names)
        return found

    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        return next(
            (
                dict(action.choices)
                for action in parser._actions
                if isinstance(action, argparse._SubParsersAction)
            ),
            {},
        )

    found = {}
    for name, parser in subparsers(build_parser()).items():
        nested = subparsers(parser)
        if nested:
            found.update({f"{name} {sub}": options(p) for sub, p in nested.items()})
        else:
            found[name] = options(parser)
    return found


def test_the_synopsis_names_every_option_of_every_command() -> None:
    written, taken = synopsis(), help_options()
    assert set(written) == set(taken)
    for command, options in taken.items():
        # Each option under one of its spellings, and no option the command does not take.
        assert [o for o in options if not o & written[command]] == [], command
        assert written[command] <= set().union(*options), command
