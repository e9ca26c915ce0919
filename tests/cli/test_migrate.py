"""``cqllegacy migrate SRC_DIR DEST_DIR`` on temporary folders, through ``cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cqllegacy.cli import main
from cqllegacy.errors import CqlLegacyError
from cqllegacy.migration import (
    JSON_NAME,
    MARKDOWN_NAME,
    MigrationReport,
    Status,
    refusal_of,
)

MATES = ";; mates\n(match (position :mate))\n"
CHECKS = "(match (position :check :markall))\n"
# The whole board shifted (no :pattern): no exact CQL 6.1 form (docs/semantics.md, S-echo).
RELATION = ";; later position\n(match\n  (position :relation (:shift :missingpiececount A 1)))\n"
# CQL 6.1 does not document lowercase beyond ASCII (L10): an approximation.
PLAYER = "(match :player Müller (position))\n"
TYPO = "(match (position :mat))\n"


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def snapshot(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under ``root`` with its bytes (None for folders) and mtime."""
    return {
        p.relative_to(root).as_posix(): (
            p.read_bytes() if p.is_file() else None,
            p.stat().st_mtime_ns,
        )
        for p in sorted(root.rglob("*"))
    }


def statuses(dest: Path) -> dict[str, str]:
    report = json.loads((dest / JSON_NAME).read_text(encoding="utf-8"))
    return {entry["path"]: entry["status"] for entry in report["files"]}


def entry(dest: Path, path: str) -> dict:
    report = json.loads((dest / JSON_NAME).read_text(encoding="utf-8"))
    return next(e for e in report["files"] if e["path"] == path)


@pytest.fixture
def library(tmp_path: Path) -> Path:
    src = tmp_path / "old"
    write(
        src,
        {
            "a/mates.cql": MATES,
            "a/deeper/checks.cql": CHECKS,
            "b/relation.cql": RELATION,
            "notes.txt": "not a script\n",
            "bad-bytes.cql": b"(match (position \xff))\n",
            "latin1.cql": b"; J\xf6rg's mates\n(match (position :mate))\n",
            "typo.cql": TYPO,
            "folder.cql/inner.cql": MATES,
            ".git/hooks/x.cql": MATES,
            "UPPER.CQL": CHECKS,
            "new/done.cql": "// already migrated\ncql(input x.pgn)\nmate\n",
        },
    )
    return src


def test_every_kind_of_file_gets_its_status(library: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    assert main(["migrate", str(library), str(dest)]) == 1
    assert statuses(dest) == {
        "a/mates.cql": "exact",
        "a/deeper/checks.cql": "exact",
        "b/relation.cql": "refused",
        "notes.txt": "not-a-script",
        "bad-bytes.cql": "unreadable",
        "latin1.cql": "exact",
        "typo.cql": "unreadable",
        "folder.cql": "unreadable",
        "folder.cql/inner.cql": "exact",
        ".git": "not-a-script",
        "UPPER.CQL": "exact",
        "new/done.cql": "not-a-script",
    }


def test_translations_keep_the_layout_and_parse_as_cql6(library: Path, tmp_path: Path) -> None:
    from chessql.core import parser

    dest = tmp_path / "new"
    main(["migrate", str(library), str(dest)])
    written = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    assert written == {
        JSON_NAME,
        MARKDOWN_NAME,
        "UPPER.CQL",
        "a/deeper/checks.cql",
        "a/mates.cql",
        "folder.cql/inner.cql",
        "latin1.cql",
    }
    for name in ("a/mates.cql", "a/deeper/checks.cql", "UPPER.CQL"):
        text = (dest / name).read_text(encoding="utf-8")
        parser.parse(text)
        assert text.lstrip().startswith(("cql(", "//"))
    assert "// mates" in (dest / "a/mates.cql").read_text(encoding="utf-8")  # T3


def test_refusal_names_construct_and_place(library: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    main(["migrate", str(library), str(dest)])
    refusal = entry(dest, "b/relation.cql")["refusal"]
    # RELATION has :relation on line 3, column 13.
    assert (refusal["construct"], refusal["line"], refusal["column"]) == (":relation", 3, 13)
    markdown = (dest / MARKDOWN_NAME).read_text(encoding="utf-8")
    assert "`b/relation.cql` at 3:13: `:relation`" in markdown


def test_unreadable_reasons(library: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    main(["migrate", str(library), str(dest)])
    bad = entry(dest, "bad-bytes.cql")["reason"]
    assert bad.startswith(
        "not UTF-8 (byte 0xff at offset 17), read as Latin-1; syntax error at 1:18"
    )
    assert entry(dest, "folder.cql")["reason"] == "a directory, not a file"
    typo = entry(dest, "typo.cql")["reason"]
    assert typo.startswith("syntax error at 1:18") and ":mat" in typo
    assert "not searched" in entry(dest, ".git")["reason"]
    assert "already a CQL 5/6 script" in entry(dest, "new/done.cql")["reason"]


def test_latin1_script_is_translated_with_a_note(library: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    main(["migrate", str(library), str(dest)])
    assert (
        entry(dest, "latin1.cql")["reason"] == "not UTF-8 (byte 0xf6 at offset 3), read as Latin-1"
    )
    assert "// Jörg's mates" in (dest / "latin1.cql").read_text(encoding="utf-8")
    markdown = (dest / MARKDOWN_NAME).read_text(encoding="utf-8")
    assert "- `latin1.cql`: not UTF-8 (byte 0xf6 at offset 3), read as Latin-1" in markdown


def test_markdown_report_has_summary_and_sections(library: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    main(["migrate", str(library), str(dest)])
    markdown = (dest / MARKDOWN_NAME).read_text(encoding="utf-8")
    assert "| translated exactly | 5 |" in markdown
    assert "| refused | 1 |" in markdown
    assert "| unreadable | 3 |" in markdown
    assert "| not scripts (left alone) | 3 |" in markdown
    assert "Exit status: 1" in markdown
    for heading in ("## Refused", "## Unreadable", "## Translated exactly", "## Not scripts"):
        assert heading in markdown
    assert "## Translated with approximations" not in markdown
    report = json.loads((dest / JSON_NAME).read_text(encoding="utf-8"))
    assert report["summary"] == {
        "exact": 5,
        "approximate": 0,
        "refused": 1,
        "not-a-script": 3,
        "unreadable": 3,
    }
    assert report["exit_status"] == 1


def test_source_is_never_written(library: Path, tmp_path: Path) -> None:
    before = snapshot(library)
    main(["migrate", str(library), str(tmp_path / "new")])
    main(["migrate", "--approximate", str(library), str(tmp_path / "new")])
    assert snapshot(library) == before


def test_exact_scripts_alone_exit_0(tmp_path: Path) -> None:
    write(tmp_path / "src", {"x.cql": MATES, "readme.md": "# scripts\n"})
    assert main(["migrate", str(tmp_path / "src"), str(tmp_path / "dest")]) == 0
    assert statuses(tmp_path / "dest") == {"x.cql": "exact", "readme.md": "not-a-script"}


def test_empty_source_exits_0_with_a_report(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert main(["migrate", str(tmp_path / "src"), str(tmp_path / "dest")]) == 0
    assert statuses(tmp_path / "dest") == {}


def test_approximate_marks_where_and_why(tmp_path: Path) -> None:
    write(tmp_path / "src", {"rel.cql": PLAYER})
    dest = tmp_path / "dest"
    assert main(["migrate", "--approximate", str(tmp_path / "src"), str(dest)]) == 1
    found = entry(dest, "rel.cql")
    assert found["status"] == "approximate"
    lines = (dest / "rel.cql").read_text(encoding="utf-8").splitlines()
    assert found["approximations"]
    for note in found["approximations"]:
        assert lines[note["line"] - 1].lstrip().startswith("// approximate:")
        assert note["note"] in lines[note["line"] - 1]
    assert ":player" in found["approximations"][0]["note"]
    assert "## Translated with approximations" in (dest / MARKDOWN_NAME).read_text("utf-8")


def test_rerun_replaces_files_without_leftovers(tmp_path: Path) -> None:
    write(tmp_path / "src", {"x.cql": MATES})
    dest = tmp_path / "dest"
    write(dest, {"x.cql": "stale\n"})
    assert main(["migrate", str(tmp_path / "src"), str(dest)]) == 0
    assert "stale" not in (dest / "x.cql").read_text(encoding="utf-8")
    assert sorted(p.name for p in dest.iterdir()) == sorted([JSON_NAME, MARKDOWN_NAME, "x.cql"])


@pytest.mark.parametrize(
    ("source", "destination", "message"),
    [
        ("missing", "dest", "does not exist"),
        ("file.cql", "dest", "is not a folder"),
        ("src", "src/out", "inside SRC_DIR"),
        ("src", "src", "inside SRC_DIR"),
        ("src", ".", "inside DEST_DIR"),
        ("src", "file.cql", "is not a folder"),
    ],
)
def test_bad_command_lines_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    source: str,
    destination: str,
    message: str,
) -> None:
    write(tmp_path, {"src/x.cql": MATES, "file.cql": MATES})
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    assert main(["migrate", source, destination]) == 2
    assert message in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_missing_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["migrate", "only-one"])
    assert stop.value.code == 2
    assert "DEST_DIR" in capsys.readouterr().err


def test_refusal_without_position() -> None:
    refusal = refusal_of(CqlLegacyError("the :accumulate keyword cannot be written"))
    assert (refusal.construct, refusal.line, refusal.column) == (":accumulate", 0, 0)


def test_exit_status_ignores_files_that_are_not_scripts() -> None:
    from cqllegacy.migration import FileOutcome

    report = MigrationReport("s", "d", False, (FileOutcome("x.txt", Status.NOT_A_SCRIPT),))
    assert report.exit_status == 0
