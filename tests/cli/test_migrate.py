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
        "notes.txt": "copied",
        "bad-bytes.cql": "syntax-error",
        "latin1.cql": "exact",
        "typo.cql": "syntax-error",
        "folder.cql": "unreadable",
        "folder.cql/inner.cql": "exact",
        ".git": "not-copied",
        "UPPER.CQL": "exact",
        "new/done.cql": "already-cql6",
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
        "notes.txt",
        "new/done.cql",
        # Refused and with syntax errors: copied as they were (issue 32, item 3).
        "b/relation.cql",
        "bad-bytes.cql",
        "typo.cql",
    }
    for name in ("b/relation.cql", "bad-bytes.cql", "typo.cql"):
        assert (dest / name).read_bytes() == (library / name).read_bytes()
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
    assert entry(dest, "new/done.cql")["output"] == "new/done.cql"


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
    assert "| syntax errors | 2 |" in markdown
    assert "| unreadable | 1 |" in markdown
    assert "| already cql 6 (copied unchanged) | 1 |" in markdown
    assert "| other files (copied unchanged) | 1 |" in markdown
    assert "| not copied | 1 |" in markdown
    assert "Exit status: 1" in markdown
    for heading in (
        "## Refused",
        "## Syntax errors",
        "## Unreadable",
        "## Translated exactly",
        "## Already CQL 6",
        "## Other files (copied unchanged)",
        "## Not copied",
    ):
        assert heading in markdown
    assert "- `typo.cql`: syntax error at 1:18: " in markdown
    assert "## Translated with approximations" not in markdown
    report = json.loads((dest / JSON_NAME).read_text(encoding="utf-8"))
    assert report["summary"] == {
        "exact": 5,
        "approximate": 0,
        "refused": 1,
        "syntax-error": 2,
        "already-cql6": 1,
        "copied": 1,
        "not-copied": 1,
        "unreadable": 1,
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
    assert statuses(tmp_path / "dest") == {"x.cql": "exact", "readme.md": "copied"}


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

    for status in (Status.COPIED, Status.ALREADY_CQL6, Status.NOT_COPIED):
        report = MigrationReport("s", "d", False, (FileOutcome("x.txt", status),))
        assert report.exit_status == 0


# --------------------------------------------------------------------------------------
# The destination is the whole tree: copies, and file names that still lead to the games
# --------------------------------------------------------------------------------------

GAME = '[Event "e"]\n[White "J\xf6rg"]\n[Black "b"]\n[Result "1-0"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'


def test_other_files_are_copied_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "src"
    binary = bytes(range(256)) * 3
    write(
        src,
        {
            "x.cql": MATES,
            "data/games.pgn": GAME.encode("latin-1"),
            "data/blob.bin": binary,
            "tools/run.sh": "#!/bin/sh\necho hi\n",
            ".hidden-file": "kept\n",
            "modern/done.cql": "cql()\nmate\n",
        },
    )
    (src / "tools/run.sh").chmod(0o755)
    before = snapshot(src)
    assert main(["migrate", str(src), str(tmp_path / "dest")]) == 0
    dest = tmp_path / "dest"
    for name in (
        "data/games.pgn",
        "data/blob.bin",
        "tools/run.sh",
        ".hidden-file",
        "modern/done.cql",
    ):
        assert (dest / name).read_bytes() == (src / name).read_bytes(), name
    assert (dest / "tools/run.sh").stat().st_mode & 0o777 == 0o755
    assert statuses(dest)["modern/done.cql"] == "already-cql6"
    assert statuses(dest)["data/blob.bin"] == "copied"
    assert snapshot(src) == before


def test_a_fifo_is_not_copied(tmp_path: Path) -> None:
    import os

    write(tmp_path / "src", {"x.cql": MATES})
    os.mkfifo(tmp_path / "src" / "pipe")
    assert main(["migrate", str(tmp_path / "src"), str(tmp_path / "dest")]) == 0
    assert statuses(tmp_path / "dest")["pipe"] == "not-copied"
    assert "a FIFO" in entry(tmp_path / "dest", "pipe")["reason"]
    assert not (tmp_path / "dest" / "pipe").exists()


def run_games(script: Path, out: Path) -> list[str]:
    """The Event tags of the games ``cqllegacy run`` finds with ``script`` on its own
    :pgn / input, run from another folder than the script's."""
    assert main(["run", str(script), "-o", str(out), "-q", "-j", "1"]) == 0
    return [line for line in out.read_text().splitlines() if line.startswith("[Event ")]


def test_migrated_scripts_still_find_their_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = '[Event "fool"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
    games += '[Event "none"]\n[Result "*"]\n\n1. e4 e5 *\n'
    write(
        tmp_path,
        {
            "outside/games.pgn": games,
            "lib/inside.pgn": games,
            "lib/a/far.cql": "(match :pgn ../../outside/games.pgn (position :mate))\n",
            "lib/a/near.cql": "(match :pgn ../inside.pgn (position :mate))\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", "lib", "new/lib"]) == 0
    far = (tmp_path / "new/lib/a/far.cql").read_text()
    near = (tmp_path / "new/lib/a/near.cql").read_text()
    assert "input ../../../outside/games.pgn" in far  # outside the tree: from the new folder
    assert "input ../inside.pgn" in near  # inside: its copy is there
    for name in ("far", "near"):
        legacy = run_games(tmp_path / f"lib/a/{name}.cql", tmp_path / f"{name}-1.pgn")
        modern = run_games(tmp_path / f"new/lib/a/{name}.cql", tmp_path / f"{name}-2.pgn")
        assert legacy == modern == ['[Event "fool"]']


def test_translate_o_names_the_games_from_the_new_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = '[Event "fool"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
    write(
        tmp_path,
        {
            "games.pgn": games,
            "old/s.cql": "(match :pgn ../games.pgn :output found.pgn (position :mate))\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    assert main(["translate", "old/s.cql", "-o", "elsewhere/deep/s.cql"]) == 0
    text = (tmp_path / "elsewhere/deep/s.cql").read_text()
    assert "input ../../games.pgn" in text and "output ../../old/found.pgn" in text
    assert main(["run", "elsewhere/deep/s.cql", "-q", "-j", "1"]) == 0
    assert '[Event "fool"]' in (tmp_path / "old/found.pgn").read_text()
    # To standard output the names stay as the script writes them.
    assert main(["translate", "old/s.cql"]) == 0


def test_a_syntax_error_is_reported_as_one_on_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "src", {"typo.cql": TYPO})
    assert main(["migrate", str(tmp_path / "src"), str(tmp_path / "dest")]) == 1
    err = capsys.readouterr().err
    assert "syntax-error: typo.cql: syntax error at 1:18: " in err
    assert "unreadable" not in err


def test_a_syntax_error_keeps_the_suggestion_check_gives(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # MIGRATION.md dropped the "did you mean" that check gives (issue 32, item 3).
    assert main(["check", str(library / "typo.cql")]) == 2
    hint = next(line for line in capsys.readouterr().err.splitlines() if "hint:" in line)
    suggestion = hint.split("hint:", 1)[1].strip()
    dest = tmp_path / "new"
    main(["migrate", str(library), str(dest)])
    assert entry(dest, "typo.cql")["reason"].endswith(f"({suggestion})")
    assert f"({suggestion})" in (dest / MARKDOWN_NAME).read_text(encoding="utf-8")
