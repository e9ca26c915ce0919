"""Loading script files of either language (cqllegacy.runner.scripts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cqllegacy.core.tree import Compound, Filter, Keyword, Mark, Simple
from cqllegacy.errors import ScriptError, UsageError
from cqllegacy.runner.scripts import load_query, script_language


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


def constituents(body: Filter) -> tuple[Filter, ...]:
    return body.items if isinstance(body, Compound) else (body,)


def test_legacy_script_is_read_then_translated(tmp_path: Path) -> None:
    script = tmp_path / "q.cql"
    script.write_bytes(b"\xef\xbb\xbf; J\xc3\xb6rg\n(match :pgn g.pgn (position :mate))\n")
    loaded = load_query(script)
    assert loaded.language == "legacy"
    assert loaded.text == "; Jörg\n(match :pgn g.pgn (position :mate))\n"
    assert loaded.query.header.inputs == ("g.pgn",)
    (top,) = loaded.query.lists
    assert Simple(Keyword.MATE) in constituents(top.body)
    assert loaded.resolve("g.pgn") == tmp_path / "g.pgn"


def test_modern_script_goes_to_the_modern_reader(tmp_path: Path) -> None:
    script = tmp_path / "q.cql"
    script.write_bytes(b"// Latin-1: J\xf6rg\ncql(input g.pgn) mate\n")
    loaded = load_query(script)
    assert loaded.language == "modern"
    assert loaded.query.header.inputs == ("g.pgn",)
    (top,) = loaded.query.lists
    assert top.mark is Mark.ALL
    assert Simple(Keyword.MATE) in (
        top.body.items if isinstance(top.body, Compound) else (top.body,)
    )


def test_refusal_from_the_translator_carries_file_and_excerpt(tmp_path: Path) -> None:
    script = tmp_path / "deep.cql"
    # Nested :markall has no core meaning: the translator refuses it with its place.
    script.write_text("(match\n (position :and ((position Ra1 :markall))))\n")
    with pytest.raises(ScriptError) as caught:
        load_query(script)
    rendered = caught.value.render()
    assert rendered.startswith(f"{script}:2:")
    assert "^" in rendered


def test_missing_and_folder_scripts_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot read script .*gone\.cql"):
        load_query(tmp_path / "gone.cql")
    with pytest.raises(UsageError, match="is a folder"):
        load_query(tmp_path)


def test_legacy_syntax_error_propagates_as_script_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.cql"
    script.write_text("(match\n (position Qi9))\n")
    with pytest.raises(ScriptError) as caught:
        load_query(script)
    assert caught.value.render().startswith(f"{script}:2:")
