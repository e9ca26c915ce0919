"""The migration corpus uses every standard legacy keyword and the transform combinations.

The keyword lists below are copied by hand from the keyword lists of the legacy
language (semantics: S-keywords: list heads and match-list keywords, position-list
keywords, relation-list keywords; extensions left out).  The scripts are tokenised here with a
small reader of our own, not with the project's grammar, so a reader bug cannot hide a
gap in the corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "migration"

# S-keywords: list heads and standard match-list keywords.
LIST_HEADS = {"match", "position"}
MATCH_KEYWORDS = {":pgn", ":output", ":result", ":year", ":gamenumber", ":player", ":forany"}

# S-keywords: standard position-list keywords (piece designators and $tag checked apart).
TRANSFORM_KEYWORDS = {
    ":flip",
    ":flipdihedral",
    ":flipcolor",
    ":flipdiagonal",
    ":flipoffdiagonal",
    ":fliphorizontal",
    ":flipvertical",
    ":shift",
    ":shifthorizontal",
    ":shiftvertical",
    ":shiftmaindiagonal",
    ":shiftoffdiagonal",
    ":shiftdiagonal",
}
POSITION_KEYWORDS = TRANSFORM_KEYWORDS | {
    ":and",
    ":or",
    ":not",
    ":mate",
    ":stalemate",
    ":check",
    ":nocheck",
    ":wtm",
    ":btm",
    ":initial",
    ":variations",
    ":variationsonly",
    ":markall",
    ":noannotate",
    ":enpassant",
    ":noenpassant",
    ":movefrom",
    ":moveto",
    ":promote",
    ":movenumber",
    ":piececount",
    ":attackcount",
    ":power",
    ":powerdifference",
    ":ray",
    ":rayattack",
    ":raydiagonal",
    ":rayorthogonal",
    ":rayhorizontal",
    ":rayvertical",
    ":sequence",
    ":gappedsequence",
    ":result",
    ":elo",
    ":whiteelo",
    ":blackelo",
    ":relation",
    ":matchcount",
    ":pretransformmatchcount",
    ":accumulate",
    ":sumrange",
    ":tagmatch",
}

# S-keywords: relation-list keywords.
RELATION_KEYWORDS = {
    ":pattern",
    ":missingpiececount",
    ":newpiececount",
    ":originaldifferentcount",
    ":originalsamecount",
    ":shift",
    ":flip",
    ":samesidetomove",
    ":changesidetomove",
    ":ignoresidetomove",
    ":variations",
    ":variationsonly",
}

SHIFT_KEYWORDS = {k for k in TRANSFORM_KEYWORDS if k.startswith(":shift")}


# --------------------------------------------------------------------------------------
# A tiny reader: lists with their kind, atoms, comments dropped
# --------------------------------------------------------------------------------------

_TOKEN = re.compile(r";[^\n]*|\(|\)|[^\s();]+")


@attrs.define
class Node:
    """A parenthesised list: its kind (match, position, relation or plain) and items."""

    kind: str
    items: list[str | Node] = attrs.field(factory=list)

    def atoms(self) -> list[str]:
        return [item for item in self.items if isinstance(item, str)]

    def children(self) -> list[Node]:
        return [item for item in self.items if isinstance(item, Node)]

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children():
            yield from child.walk()

    def position_lists(self) -> Iterator[Node]:
        return (node for node in self.walk() if node.kind == "position")

    def transforms(self) -> set[str]:
        return {atom for atom in self.atoms() if atom in TRANSFORM_KEYWORDS}


def parse(text: str) -> Node:
    stack = [Node("file")]
    previous = ""
    for token in _TOKEN.findall(text):
        if token.startswith(";"):
            continue
        if token == "(":
            kind = "relation" if previous == ":relation" else "list"
            node = Node(kind)
            stack[-1].items.append(node)
            stack.append(node)
        elif token == ")":
            stack.pop()
        elif not stack[-1].items and stack[-1].kind == "list" and token in LIST_HEADS:
            stack[-1].kind = token
        else:
            stack[-1].items.append(token)
        previous = token
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def corpus() -> dict[str, Node]:
    return {
        folder.name: parse((folder / "legacy.cql").read_text(encoding="utf-8"))
        for folder in sorted(CORPUS.iterdir())
        if (folder / "legacy.cql").is_file()
    }


@pytest.fixture(scope="module")
def scripts() -> dict[str, Node]:
    return corpus()


def keywords_used(scripts: dict[str, Node], kind: str) -> set[str]:
    return {
        atom
        for tree in scripts.values()
        for node in tree.walk()
        if node.kind == kind
        for atom in node.atoms()
        if atom.startswith(":")
    }


# --------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------


def test_reader_sees_kinds_and_skips_comments() -> None:
    tree = parse("; (position :mate)\n(match (position :relation (:shift) :and ((position))))")
    match = tree.children()[0]
    assert match.kind == "match"
    assert [n.kind for n in match.walk()] == ["match", "position", "relation", "list", "position"]
    assert keywords_used({"x": tree}, "relation") == {":shift"}


def test_corpus_is_large_enough(scripts: dict[str, Node]) -> None:
    assert len(scripts) >= 80


def test_every_folder_is_numbered_and_has_a_leading_comment() -> None:
    for folder in sorted(CORPUS.iterdir()):
        assert re.fullmatch(r"\d{3}-[a-z0-9-]+", folder.name), folder.name
        text = (folder / "legacy.cql").read_text(encoding="utf-8")
        assert text.startswith(";"), f"{folder.name}: the script must start with a comment"


def test_every_script_is_one_match_list(scripts: dict[str, Node]) -> None:
    for name, tree in scripts.items():
        assert [n.kind for n in tree.children()] == ["match"], name


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("match", MATCH_KEYWORDS),
        ("position", POSITION_KEYWORDS),
        ("relation", RELATION_KEYWORDS),
    ],
)
def test_every_standard_keyword_is_used(
    scripts: dict[str, Node], kind: str, expected: set[str]
) -> None:
    assert sorted(expected - keywords_used(scripts, kind)) == []


def test_tagged_piece_designators_are_used(scripts: dict[str, Node]) -> None:
    atoms = {a for tree in scripts.values() for n in tree.position_lists() for a in n.atoms()}
    assert any(a.startswith("$") for a in atoms)


@pytest.mark.parametrize("transform", sorted(TRANSFORM_KEYWORDS))
def test_transform_alone_in_pairs_and_in_triples(scripts: dict[str, Node], transform: str) -> None:
    sizes = {
        len(node.transforms())
        for tree in scripts.values()
        for node in tree.position_lists()
        if transform in node.transforms()
    }
    assert 1 in sizes, f"{transform} never alone"
    assert 2 in sizes, f"{transform} never in a pair"
    assert any(size >= 3 for size in sizes), f"{transform} never with two others"


def lists_where(scripts: dict[str, Node], test: Callable[[Node], object]) -> list[str]:
    return [name for name, tree in scripts.items() if any(test(n) for n in tree.position_lists())]


def test_combinations_the_brief_names(scripts: dict[str, Node]) -> None:
    classic = {":shift", ":flip", ":flipcolor"}
    assert lists_where(scripts, lambda n: n.transforms() == classic)
    # A list with transforms holding a nested position list with its own transforms.
    assert lists_where(
        scripts,
        lambda n: (
            n.transforms()
            and any(
                inner.transforms()
                for inner in n.walk()
                if inner.kind == "position" and inner is not n
            )
        ),
    )
    # :not together with transforms in one list.
    assert lists_where(scripts, lambda n: ":not" in n.atoms() and n.transforms())
    # A count next to a shift (empty designators after a shift count 0, decision L5).
    assert lists_where(
        scripts, lambda n: ":piececount" in n.atoms() and n.transforms() & SHIFT_KEYWORDS
    )


def test_several_top_level_lists(scripts: dict[str, Node]) -> None:
    counts = [
        len([c for c in tree.children()[0].children() if c.kind == "position"])
        for tree in scripts.values()
    ]
    assert max(counts) >= 3
