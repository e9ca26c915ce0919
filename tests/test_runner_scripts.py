"""Loading script files of either language (cqllegacy.scripts)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from cqllegacy.core.tree import Header, Query
from cqllegacy.errors import ScriptError, UsageError
from cqllegacy.scripts import load_query, script_language

QUERY = Query(Header(inputs=("g.pgn",)), ())


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("cql(input a.pgn) mate", "modern"),
        ("  \n// comment\n/* block\n(match) */ cql (variations) check", "modern"),
        ("; legacy comment\n(match (position))", "legacy"),
        ("(match :pgn cql.pgn (position))", "legacy"),
        ("; cql(\n(match (position))", "legacy"),
        ("", "legacy"),
    ],
)
def test_language_from_the_first_text_after_comments(text: str, language: str) -> None:
    assert script_language(text) == language


@pytest.fixture
def fake_stages(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object]]:
    """Stand-ins for the legacy reader, the translator and the modern reader."""
    calls: list[tuple[str, object]] = []

    def read_script(text: str, path: str | None = None) -> str:
        calls.append(("read_script", (text, path)))
        return "legacy tree"

    def to_core(script: object) -> Query:
        calls.append(("to_core", script))
        return QUERY

    def read_query(text: str, path: str | None = None) -> Query:
        calls.append(("read_query", (text, path)))
        return QUERY

    grammar = types.ModuleType("cqllegacy.legacy.grammar")
    grammar.read_script = read_script  # type: ignore[attr-defined]
    translator = types.ModuleType("translator")
    translator.to_core = to_core  # type: ignore[attr-defined]
    modern = types.ModuleType("cqllegacy.modern.grammar")
    modern.read_query = read_query  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cqllegacy.legacy.grammar", grammar)
    monkeypatch.setitem(sys.modules, "translator", translator)
    monkeypatch.setitem(sys.modules, "cqllegacy.modern.grammar", modern)
    return calls


def test_legacy_script_is_read_then_translated(
    tmp_path: Path, fake_stages: list[tuple[str, object]]
) -> None:
    script = tmp_path / "q.cql"
    script.write_bytes(b"\xef\xbb\xbf; J\xc3\xb6rg\n(match (position))\n")
    loaded = load_query(script)
    assert loaded.language == "legacy"
    assert loaded.query is QUERY
    assert loaded.text == "; Jörg\n(match (position))\n"
    assert fake_stages == [("read_script", (loaded.text, str(script))), ("to_core", "legacy tree")]
    assert loaded.resolve("g.pgn") == tmp_path / "g.pgn"


def test_modern_script_goes_to_the_modern_reader(
    tmp_path: Path, fake_stages: list[tuple[str, object]]
) -> None:
    script = tmp_path / "q.cql"
    script.write_bytes(b"// Latin-1: J\xf6rg\ncql(input g.pgn) mate\n")
    loaded = load_query(script)
    assert loaded.language == "modern"
    assert fake_stages == [
        ("read_query", ("// Latin-1: Jörg\ncql(input g.pgn) mate\n", str(script)))
    ]


def test_modern_script_without_the_modern_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # None in sys.modules makes the import fail as if the module did not exist.
    monkeypatch.setitem(sys.modules, "cqllegacy.modern.grammar", None)
    script = tmp_path / "q.cql"
    script.write_text("cql() mate\n")
    with pytest.raises(UsageError, match="modern CQL 6 scripts are not supported yet"):
        load_query(script)


def test_missing_and_folder_scripts_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot read script .*gone\.cql"):
        load_query(tmp_path / "gone.cql")
    with pytest.raises(UsageError, match="is a folder"):
        load_query(tmp_path)


def test_legacy_syntax_error_propagates_as_script_error(tmp_path: Path) -> None:
    pytest.importorskip("cqllegacy.legacy.grammar", reason="the legacy reader is not there yet")
    script = tmp_path / "bad.cql"
    script.write_text("(match\n (position Qi9))\n")
    with pytest.raises(ScriptError) as caught:
        load_query(script)
    assert caught.value.render().startswith(f"{script}:2:")
