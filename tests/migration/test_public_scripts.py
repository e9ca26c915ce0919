"""Every legacy script the research notes quote is migrated exactly.

The scripts are read from the research notes when they are present: the Markdown files
of the ``shared/spec`` folder beside the repository, or of the folder that
``CQLLEGACY_NOTES`` names.  They are not part of a clone, so the test is skipped without
them.  Taken are every ``(match …)`` and ``(position …)`` of a code block or code span; a
position list is wrapped in ``(match …)``, and a tag the quotation leaves undeclared is
declared with ``:forany NAME [Aa]``.  Quotations with placeholders (``…``, ``X``,
``item``) are left out.  ``cqllegacy migrate`` on the folder must report each one
translated exactly.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from cqllegacy.cli import main

NOTES = Path(
    os.environ.get(
        "CQLLEGACY_NOTES", Path(__file__).resolve().parents[3] / "shared" / "spec"
    )
)
PLACEHOLDERS = ("…", " X ", "item")


def _balanced(text: str) -> list[str]:
    """The ``(match …)`` and ``(position …)`` expressions of ``text``, outermost only."""
    found = []
    i = 0
    while (m := re.search(r"\((match|position)\b", text[i:])) is not None:
        start = j = i + m.start()
        depth = 0
        while j < len(text):
            ch = text[j]
            if ch == ";":
                j = text.find("\n", j)
                if j < 0:
                    return found
                continue
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                break
            j += 1
        if depth:
            return found
        found.append(text[start : j + 1])
        i = j + 1
    return found


def _declared(script: str) -> str:
    """``script`` with ``:forany NAME [Aa]`` for each tag it uses without declaring."""
    declared = set(re.findall(r":forany\s+(\w+)", script))
    used = set(re.findall(r"\$(\w+)", script)) | set(re.findall(r":tagmatch\s+(\w+)", script))
    missing = sorted(used - declared)
    if not missing:
        return script
    declarations = " ".join(f":forany {name} [Aa]" for name in missing)
    return script.replace("(match", f"(match {declarations}", 1)


def quoted_scripts(text: str) -> list[str]:
    pieces = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
    pieces += re.findall(r"`(\((?:match|position)[^`]*)`", text)
    scripts: dict[str, None] = {}
    for piece in pieces:
        for found in _balanced(piece):
            if any(p in found for p in PLACEHOLDERS):
                continue
            script = found if found.startswith("(match") else f"(match {found})"
            scripts[_declared(script)] = None
    return list(scripts)


def test_the_extraction_finds_the_quoted_scripts() -> None:
    text = (
        "see `(position :ray (Q n k) 2 4)` and\n"
        "```\n(match :forany r R\n (position $r[a1]))\n```"
    )
    assert quoted_scripts(text) == [
        "(match :forany r R\n (position $r[a1]))",
        "(match (position :ray (Q n k) 2 4))",
    ]
    assert quoted_scripts("`(position :tagmatch foo P)`") == [
        "(match :forany foo [Aa] (position :tagmatch foo P))"
    ]


def _notes() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(NOTES.glob("*.md")))


@pytest.mark.skipif(not any(NOTES.glob("*.md")), reason="the research notes are absent")
def test_every_quoted_script_migrates_exactly(tmp_path: Path) -> None:
    scripts = quoted_scripts(_notes())
    assert len(scripts) >= 23
    source = tmp_path / "scripts"
    source.mkdir()
    for number, script in enumerate(scripts):
        (source / f"{number:03d}.cql").write_text(script + "\n", encoding="utf-8")
    destination = tmp_path / "migrated"
    status = main(["migrate", str(source), str(destination)])
    report = json.loads((destination / "migration.json").read_text(encoding="utf-8"))
    not_exact = {
        f["path"]: (source / f["path"]).read_text(encoding="utf-8")
        for f in report["files"]
        if f["status"] != "exact"
    }
    assert not_exact == {}
    assert status == 0
    assert report["summary"]["exact"] == len(scripts)
