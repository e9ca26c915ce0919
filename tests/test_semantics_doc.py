"""docs/semantics.md is the reference the code cites.

Every decision (``L6``, ``M1``, ``T2`` …), section (``S-orbits``), worked example
(``S-examples E29``) and part (``Part 4``) that a comment, docstring, message or document
cites must exist in docs/semantics.md, and nothing may still cite the research notes that
docs/semantics.md replaced (they are not part of a clone).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEMANTICS = ROOT / "docs" / "semantics.md"
THIS_FILE = Path(__file__).resolve()

#: The decisions docs/semantics.md must define, each exactly once.
DECISIONS = frozenset(
    [f"L{i}" for i in range(1, 23)]
    + [f"M{i}" for i in range(1, 11)]
    + [f"T{i}" for i in range(1, 4)]
    + [f"X{i}" for i in range(1, 6)]
)

#: Files and folders (relative to the repository) whose citations are checked.
CITING = (
    "cqllegacy",
    "translator",
    "tests",
    "tools",
    "benchmarks",
    "docs",
    "README.md",
    "fixtures/README.md",
)

#: PENDING: files rewritten on other branches while the citations moved to docs/semantics.md.
#: They may still cite the old notes until their replacements (listed in the wt-docs report)
#: are applied; then remove the entry.  Their decision and section citations are checked anyway.
PENDING_OLD_CITATIONS = frozenset(
    {
    }
)

# --------------------------------------------------------------------------------------
# What docs/semantics.md defines
# --------------------------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.MULTILINE)
_IDENTIFIED_HEADING = re.compile(r"^(S-[a-z0-9]+(?:-[a-z0-9]+)*|[LMTX]\d{1,2}) — ")
_PART_HEADING = re.compile(r"^Part (\d+) — ")
_EXAMPLE_LINE = re.compile(r"^- (E\d+) ", re.MULTILINE)


def headings(markdown: str) -> list[str]:
    """Heading texts, outside fenced code blocks."""
    return [m.group(2) for m in _HEADING.finditer(_without_code_blocks(markdown))]


def _without_code_blocks(markdown: str) -> str:
    return re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)


def defined_identifiers(markdown: str) -> list[str]:
    """``L6``, ``S-orbits`` … in the order their headings appear (repeats kept)."""
    found = []
    for text in headings(markdown):
        m = _IDENTIFIED_HEADING.match(text)
        if m:
            found.append(m.group(1))
    return found


def defined_parts(markdown: str) -> set[str]:
    return {m.group(1) for t in headings(markdown) if (m := _PART_HEADING.match(t))}


def defined_examples(markdown: str) -> set[str]:
    return set(_EXAMPLE_LINE.findall(markdown))


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces → ``-``."""
    kept = "".join(
        ch for ch in heading.lower() if ch in " -_" or unicodedata.category(ch)[0] in "LN"
    )
    return kept.replace(" ", "-")


# --------------------------------------------------------------------------------------
# What a text cites
# --------------------------------------------------------------------------------------

#: A decision identifier standing as a word of its own: ``L6``, ``(L6)``, ``L4/L5``, ``L1–L22``.
_DECISION = re.compile(r"(?<![\w-])([LMTX]\d{1,2})(?!\w)")
#: A section identifier: ``S-orbits``, ``S-legacy-transforms``.
_SECTION = re.compile(r"(?<![\w-])(S-[a-z0-9]+(?:-[a-z0-9]+)*)")
_EXAMPLE = re.compile(r"(?<![\w-])(E\d{1,2})(?!\w)")
_PART = re.compile(r"(?<!\w)Parts? (\d+)(?:\s*[–-]\s*(\d+))?")
#: The research notes docs/semantics.md replaced (``../shared/spec/*.md``).
_OLD_NOTES = re.compile(r"legacy-cql|modern-cql|modern-echo-piece|decisions\.md|\.\./shared")
_SECTION_SIGN = re.compile(r"§")


def cited_decisions(text: str) -> set[str]:
    return set(_DECISION.findall(text))


def cited_sections(text: str) -> set[str]:
    return set(_SECTION.findall(text))


def cited_examples(text: str) -> set[str]:
    """``E29`` … on the lines that name S-examples."""
    return {e for line in text.splitlines() if "S-examples" in line for e in _EXAMPLE.findall(line)}


def cited_parts(text: str) -> set[str]:
    """``Part 4``, ``Parts 1–3`` … on the lines that name docs/semantics.md."""
    found: set[str] = set()
    for line in text.splitlines():
        if "semantics" not in line:
            continue
        for first, last in _PART.findall(line):
            found.update(str(n) for n in range(int(first), int(last or first) + 1))
    return found


def old_note_citations(text: str) -> list[str]:
    return _OLD_NOTES.findall(text)


def python_prose(source: str) -> str:
    """Comments and string literals (docstrings, messages, help texts) of Python source."""
    parts = []
    string_kinds = {tokenize.STRING}
    string_kinds |= {getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT or token.type in string_kinds:
            parts.append(token.string)
    return "\n".join(parts)


def python_comments_and_docstrings(source: str) -> str:
    """Comments and docstrings only (labels and other strings left out)."""
    parts = [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                parts.append(doc)
    return "\n".join(parts)


# --------------------------------------------------------------------------------------
# The files
# --------------------------------------------------------------------------------------


def citing_files() -> Iterator[Path]:
    for name in CITING:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for found in sorted(path.rglob("*")):
                if found.suffix in (".py", ".md") and found.resolve() != THIS_FILE:
                    yield found


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def is_pending(path: Path) -> bool:
    name = relative(path)
    return any(name == p or name.startswith(p + "/") for p in PENDING_OLD_CITATIONS)


def prose(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return python_prose(text) if path.suffix == ".py" else text


def citation_problems(text: str, markdown: str) -> list[str]:
    """Identifiers ``text`` cites that ``markdown`` (docs/semantics.md) does not define."""
    defined = set(defined_identifiers(markdown))
    problems = [f"decision {d}" for d in sorted(cited_decisions(text) - defined)]
    problems += [f"section {s}" for s in sorted(cited_sections(text) - defined)]
    problems += [f"example {e}" for e in sorted(cited_examples(text) - defined_examples(markdown))]
    problems += [f"Part {p}" for p in sorted(cited_parts(text) - defined_parts(markdown))]
    return problems


def old_citation_problems(path: Path) -> list[str]:
    """Citations of the replaced notes: their names anywhere; a ``§`` section number in the
    prose (comments and docstrings of Python files; all of a Markdown file)."""
    text = path.read_text(encoding="utf-8")
    found = old_note_citations(text)
    if path.suffix == ".py":
        found += _SECTION_SIGN.findall(python_comments_and_docstrings(text))
    else:
        found += _SECTION_SIGN.findall(text)
    return found


# --------------------------------------------------------------------------------------
# Tests of the document
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def markdown() -> str:
    return SEMANTICS.read_text(encoding="utf-8")


def test_every_decision_is_defined_once(markdown: str) -> None:
    identifiers = defined_identifiers(markdown)
    decisions = [i for i in identifiers if not i.startswith("S-")]
    assert sorted(decisions) == sorted(DECISIONS)


def test_section_identifiers_are_unique(markdown: str) -> None:
    sections = [i for i in defined_identifiers(markdown) if i.startswith("S-")]
    assert len(sections) == len(set(sections))
    assert len(sections) >= 40


def test_the_examples_are_numbered_without_gaps(markdown: str) -> None:
    numbers = sorted(int(e[1:]) for e in defined_examples(markdown))
    assert numbers == list(range(1, len(numbers) + 1))


def test_links_inside_the_document_resolve(markdown: str) -> None:
    anchors = {github_anchor(h) for h in headings(markdown)}
    links = re.findall(r"\]\(#([^)]+)\)", markdown)
    assert links
    assert [a for a in links if a not in anchors] == []


def test_the_document_cites_only_what_it_defines(markdown: str) -> None:
    assert citation_problems(markdown, markdown) == []


# --------------------------------------------------------------------------------------
# Tests of the repository
# --------------------------------------------------------------------------------------


def test_every_citation_is_defined(markdown: str) -> None:
    problems = {
        relative(path): found
        for path in citing_files()
        if (found := citation_problems(prose(path), markdown))
    }
    assert problems == {}


def test_nothing_cites_the_replaced_notes() -> None:
    problems = {
        relative(path): found
        for path in citing_files()
        if not is_pending(path) and (found := old_citation_problems(path))
    }
    assert problems == {}


def test_pending_exclusions_still_exist() -> None:
    # A pending entry for a file that is gone (or renamed) would silently excuse nothing.
    assert all((ROOT / p).exists() for p in PENDING_OLD_CITATIONS)


def test_the_readme_points_at_the_document() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    notes = readme.split("## Compatibility notes", 1)[1].split("\n## ", 1)[0]
    assert "docs/semantics.md" in notes


# --------------------------------------------------------------------------------------
# The checkers can fail
# --------------------------------------------------------------------------------------


_TOY = """\
### L1 — a decision

## Part 1 — a part

### S-orbits — a section

### S-examples — examples

- E1 `up 1 d4` is `d5`
"""


def test_made_up_citations_are_flagged() -> None:
    text = (
        "# decision L23 and (M6), L4/T9, see semantics: S-orbit and S-examples E2\n"
        '"""Parts 1–2 of docs/semantics.md"""\n'
    )
    assert citation_problems(python_prose(text), _TOY) == [
        "decision L23",
        "decision L4",
        "decision M6",
        "decision T9",
        "section S-orbit",
        "example E2",
        "Part 2",
    ]


def test_real_citations_pass() -> None:
    text = "# L1, (semantics: S-orbits, L1), S-examples E1, docs/semantics.md Part 1"
    assert citation_problems(text, _TOY) == []


def test_chess_text_is_not_a_citation() -> None:
    text = "(position Ma1 m[a8] :movenumber 3) Ta1 1. e4 L-shaped, CQL-S, Rb2 Bg8 M1x"
    assert cited_decisions(text) == set()
    assert cited_sections(text) == set()


def test_old_notes_are_flagged(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Orbits (' + "modern-cql" + ' §11)."""\n'
        "LABELS = {'mate (" + "§" + "5.5)': 1}  # see ../" + "shared/spec\n",
        encoding="utf-8",
    )
    # The name and the path are found anywhere; the section sign only in prose.
    assert old_citation_problems(sample) == ["modern-cql", "../shared", "§"]
    markdown = tmp_path / "notes.md"
    markdown.write_text("As " + "decisions" + ".md says (§4.8).\n", encoding="utf-8")
    assert old_citation_problems(markdown) == ["decisions.md", "§"]


def test_github_anchor() -> None:
    assert github_anchor("S-orbits — transform filters and their orbits") == (
        "s-orbits--transform-filters-and-their-orbits"
    )
    assert github_anchor("S-tags — tags: `:forany`, `$name` and `:tagmatch`") == (
        "s-tags--tags-forany-name-and-tagmatch"
    )
