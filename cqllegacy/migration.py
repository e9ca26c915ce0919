"""Translate a folder of legacy scripts into CQL 6.1 and report on every file.

:func:`migrate_folder` walks ``SRC_DIR`` recursively, writes the translation of every
``.cql`` file to the same relative path under ``DEST_DIR`` and returns a
:class:`MigrationReport`; :func:`report_markdown` and :func:`report_json` render it.
Nothing is ever written under ``SRC_DIR``; every file is written atomically.

Each file gets one status:

========================  ============================================================
``exact``                 translated, same games and positions (decision T1)
``approximate``           translated with ``--approximate``; the translation has
                          ``// approximate:`` comments where it differs
``refused``               a construct has no exact CQL 6.1 form (which one, where);
                          the script is copied unchanged
``syntax-error``          not a legacy script that reads: ``syntax error at L:C: …``
                          and ``check``'s suggestion (binary junk named ``*.cql`` ends
                          here); the file is copied unchanged
``already-cql6``          a ``.cql`` file that is already a CQL 5/6 script: copied
``copied``                any other file: copied unchanged, so that the destination is
                          the whole source tree, migrated
``not-copied``            a directory that is not searched (hidden, or a symbolic
                          link), or a FIFO, device or socket
``unreadable``            cannot be read (so not copied): an I/O error, a directory
                          named ``*.cql``
========================  ============================================================

A translation is written to the same relative path as its script, beside the copies of
the other files, so a ``:pgn``/``:output`` file inside the source tree keeps its
relative name; one outside the tree is named from the translation's folder.

Like ``cqllegacy run``, a file that is not UTF-8 is read as Latin-1; its entry then
says so.  The exit status is 0 when every script was translated exactly (files that are not
legacy scripts do not count, and an empty folder gives 0), else 1.

>>> outcome = FileOutcome("a/old.cql", Status.REFUSED,
...                       refusal=Refusal(":relation", 3, 5, "no CQL 6.1 form"))
>>> MigrationReport("src", "dest", False, (outcome,)).exit_status
1
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import attrs

from cqllegacy.errors import CqlLegacyError, ScriptError, UsageError, WriteError, display_path
from cqllegacy.records import Record
from cqllegacy.runner.output import Replacement, make_folder
from cqllegacy.runner.scripts import (
    ScriptEncodingError,
    decode_script,
    relocation,
    script_language,
    translate_legacy,
    wide_script_encoding,
)

SCRIPT_SUFFIX = ".cql"
MARKDOWN_NAME = "MIGRATION.md"
JSON_NAME = "migration.json"
REPORT_FORMAT = "cqllegacy-migration/2"
LATIN1_NOTE = "not UTF-8 (byte 0x{byte} at offset {offset}), read as Latin-1"
_APPROXIMATE = re.compile(r"^\s*//\s*approximate:\s*(?P<note>.*?)\s*$")


class Status(enum.Enum):
    EXACT = "exact"
    APPROXIMATE = "approximate"
    REFUSED = "refused"
    SYNTAX_ERROR = "syntax-error"
    ALREADY_CQL6 = "already-cql6"
    COPIED = "copied"
    NOT_COPIED = "not-copied"
    UNREADABLE = "unreadable"

    @property
    def copied(self) -> bool:
        """Whether the file is copied unchanged to the destination: every file that is
        not translated and can be read, so that the destination is the whole tree (a
        script refused or with a syntax error too, as it was, MIGRATION.md saying why)."""
        return self in (Status.ALREADY_CQL6, Status.COPIED, Status.REFUSED, Status.SYNTAX_ERROR)

    @property
    def fails(self) -> bool:
        """Whether this status makes the migration exit with 1."""
        return self in _FAILING


_FAILING = frozenset({Status.APPROXIMATE, Status.REFUSED, Status.SYNTAX_ERROR, Status.UNREADABLE})

_HEADINGS = {
    Status.EXACT: "Translated exactly",
    Status.APPROXIMATE: "Translated with approximations",
    Status.REFUSED: "Refused",
    Status.SYNTAX_ERROR: "Syntax errors",
    Status.UNREADABLE: "Unreadable",
    Status.ALREADY_CQL6: "Already CQL 6 (copied unchanged)",
    Status.COPIED: "Other files (copied unchanged)",
    Status.NOT_COPIED: "Not copied",
}


@attrs.frozen(repr=False)
class Approximation(Record):
    """An ``// approximate:`` comment: its line in the written translation and its text."""

    line: int
    note: str


@attrs.frozen(repr=False)
class Refusal(Record):
    """Why a script was refused: the construct, its place in the legacy script, the message."""

    construct: str
    line: int
    column: int
    message: str


@attrs.frozen(repr=False)
class FileOutcome(Record):
    """One file of the source folder.  ``path`` and ``output`` are relative POSIX paths."""

    path: str
    status: Status
    output: str | None = None
    approximations: tuple[Approximation, ...] = ()
    refusal: Refusal | None = None
    reason: str | None = None


@attrs.frozen(repr=False)
class MigrationReport(Record):
    source: str
    destination: str
    approximate: bool
    files: tuple[FileOutcome, ...]

    @property
    def exit_status(self) -> int:
        return 1 if any(f.status.fails for f in self.files) else 0

    def count(self, status: Status) -> int:
        return sum(1 for f in self.files if f.status is status)


# --------------------------------------------------------------------------------------
# One script
# --------------------------------------------------------------------------------------

#: ``translate(text, approximate, path, relocate)``
Translate = Callable[[str, bool, str, Callable[[str], str]], str]
Check = Callable[[str, str], None]


@attrs.frozen(repr=False)
class Translator(Record):
    """The two stages a migration needs: a syntax check and the translation.

    ``check(text, path)`` raises a ``ScriptError`` for a syntax error; ``translate(text,
    approximate, path, relocate)`` returns CQL 6.1 text, the file names of its header
    rewritten by ``relocate``, or raises a ``CqlLegacyError`` refusal.
    """

    check: Check
    translate: Translate

    @classmethod
    def default(cls) -> Translator:
        from cqllegacy.legacy.grammar import read_script

        def check(text: str, path: str) -> None:
            read_script(text, path=path)

        def translate_text(
            text: str, approximate: bool, path: str, relocate: Callable[[str], str]
        ) -> str:
            return translate_legacy(text, approximate=approximate, path=path, relocate=relocate)

        return cls(check, translate_text)


def approximations_in(modern: str) -> tuple[Approximation, ...]:
    """The ``// approximate:`` comments of a translation, with their line numbers.

    >>> approximations_in("cql()\\n// approximate: :player ignores case\\nplayer \\"x\\"\\n")
    (Approximation(line=2, note=':player ignores case'),)
    """
    found = []
    for number, line in enumerate(modern.splitlines(), 1):
        match = _APPROXIMATE.match(line)
        if match:
            found.append(Approximation(number, match["note"]))
    return tuple(found)


def refusal_of(error: CqlLegacyError) -> Refusal:
    """The construct, place and message of a refused translation."""
    if isinstance(error, ScriptError):
        construct = getattr(error, "construct", None) or error.text or _construct_in(error.message)
        return Refusal(str(construct), error.line, error.column, error.message)
    return Refusal(_construct_in(str(error)), 0, 0, str(error))


def _construct_in(message: str) -> str:
    # Refusal messages name the construct as a keyword; use it when no text is attached.
    match = re.search(r":[a-z]+", message)
    return match.group(0) if match else "(not named)"


def _unmoved(name: str) -> str:
    return name


def translate_script(
    text: str,
    rel: str,
    *,
    approximate: bool,
    translator: Translator,
    relocate: Callable[[str], str] = _unmoved,
) -> tuple[FileOutcome, str | None]:
    """The outcome for one script's text and, when translated, the CQL 6.1 text (the
    file names of its header rewritten by ``relocate``).

    A ``.cql`` file that is already a CQL 5/6 script needs no migration: it is copied
    like any file that is not a legacy script.
    """
    if script_language(text) == "modern":
        return FileOutcome(rel, Status.ALREADY_CQL6, output=rel), None
    try:
        translator.check(text, rel)
    except ScriptError as error:
        reason = _syntax_reason(error)
        return FileOutcome(rel, Status.SYNTAX_ERROR, output=rel, reason=reason), None
    try:
        modern = translator.translate(text, approximate, rel, relocate)
    except CqlLegacyError as error:
        return FileOutcome(rel, Status.REFUSED, output=rel, refusal=refusal_of(error)), None
    except Exception as error:  # one broken script must not stop a whole folder
        refusal = _internal_error(error)
        return FileOutcome(rel, Status.REFUSED, output=rel, refusal=refusal), None
    notes = approximations_in(modern)
    status = Status.APPROXIMATE if notes else Status.EXACT
    return FileOutcome(rel, status, output=rel, approximations=notes), modern


def _internal_error(error: Exception) -> Refusal:
    message = f"internal error {type(error).__name__}: {error} (please report this script)"
    return Refusal("internal error", 0, 0, message)


def _syntax_reason(error: ScriptError) -> str:
    """The mistake, its place and the suggestion ``check`` gives for it (``did you mean
    :check?``)."""
    hint = f" ({error.hint})" if error.hint else ""
    return f"syntax error at {error.line}:{error.column}: {error.message}{hint}"


def read_script_text(path: Path) -> tuple[str, str | None]:
    """A script's text, decoded as ``run`` decodes it, and a note when it was not UTF-8.

    Raises ``OSError``.  Bytes that are not UTF-8 are read as Latin-1 (every byte is a
    character there); the note makes that guess visible in the report.
    """
    data = path.read_bytes()
    try:
        text = decode_script(data)
    except ScriptEncodingError as error:
        raise OSError(str(error)) from None
    try:
        if wide_script_encoding(data) is None:
            data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1].hex()
        return text, LATIN1_NOTE.format(byte=bad, offset=error.start)
    return text, None


def _regular_file(path: Path) -> None:
    """Raise an ``OSError`` unless ``path`` is a regular file (a FIFO would never end
    reading, a device might never either)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise OSError(f"not a regular file ({_KINDS.get(stat.S_IFMT(mode), 'special file')})")


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def _unreadable_reason(path: Path, error: OSError) -> str:
    if isinstance(error, IsADirectoryError) or path.is_dir():
        return "a directory, not a file"
    return error.strerror or str(error)


# --------------------------------------------------------------------------------------
# The folder
# --------------------------------------------------------------------------------------


def check_folders(source: Path, destination: Path) -> tuple[Path, Path]:
    """Validate ``SRC_DIR`` and ``DEST_DIR``; return them resolved.

    Raises :class:`UsageError` (exit status 2) when the source is missing or not a
    folder, when the destination is a file, or when either folder contains the other
    (writing there could overwrite or mix with the source scripts).
    """
    if not source.exists():
        raise UsageError(f"SRC_DIR {source} does not exist")
    if not source.is_dir():
        raise UsageError(f"SRC_DIR {source} is not a folder")
    if destination.exists() and not destination.is_dir():
        raise UsageError(f"DEST_DIR {destination} exists and is not a folder")
    src, dest = source.resolve(), destination.resolve()
    if dest == src or dest.is_relative_to(src):
        raise UsageError(
            f"DEST_DIR {destination} is inside SRC_DIR {source}; choose another folder"
        )
    if src.is_relative_to(dest):
        raise UsageError(
            f"SRC_DIR {source} is inside DEST_DIR {destination}; translations could land "
            "among the source scripts, choose another folder"
        )
    return src, dest


def walk(source: Path) -> Iterator[tuple[str, Path, bool | OSError]]:
    """``(relative POSIX path, path, searched)`` for every entry worth reporting.

    Files come in sorted order; directories named ``*.cql`` are reported (they are
    unreadable as scripts) and still searched.  Hidden directories and symbolic links
    to directories are reported with ``searched = False`` and not entered.  A folder
    that cannot be listed comes with the error instead (the scripts in it would
    otherwise vanish from the report).
    """
    errors: list[OSError] = []
    for folder, dirnames, filenames in os.walk(source, onerror=errors.append):
        while errors:
            error = errors.pop(0)
            failed = Path(error.filename) if error.filename else source
            yield _rel(failed, source) if failed != source else ".", failed, error
        here = Path(folder)
        dirnames.sort()
        skipped = [d for d in dirnames if d.startswith(".") or (here / d).is_symlink()]
        for name in skipped:
            yield _rel(here / name, source), here / name, False
        dirnames[:] = [d for d in dirnames if d not in skipped]
        for name in dirnames:
            if name.lower().endswith(SCRIPT_SUFFIX):
                yield _rel(here / name, source), here / name, True
        for name in sorted(filenames):
            yield _rel(here / name, source), here / name, True
    for error in errors:
        failed = Path(error.filename) if error.filename else source
        yield _rel(failed, source) if failed != source else ".", failed, error


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def tree_relocation(source: Path, destination: Path, rel: str) -> Callable[[str], str]:
    """How the translation of the script ``rel`` (relative to ``source``), written to
    ``destination``/``rel``, names the files its script names: a file inside the source
    tree by the same relative name (its copy stands there), one outside from the new
    folder.

    >>> move = tree_relocation(Path("/src"), Path("/out/dest"), "a/x.cql")
    >>> move("games.pgn"), move("../g.pgn"), move("../../big.pgn"), move("/abs.pgn")
    ('games.pgn', '../g.pgn', '../../../big.pgn', '/abs.pgn')
    """
    folder = Path(rel).parent
    outside = relocation(source / folder, destination / folder)
    root = os.path.abspath(source)

    def relocate(name: str) -> str:
        if os.path.isabs(name) or name.startswith("~"):
            return name
        target = os.path.normpath(os.path.join(root, folder, name))
        if os.path.commonpath([root, target]) == root:
            return name
        return outside(name)

    return relocate


def _outcome_of_entry(
    rel: str,
    path: Path,
    searched: bool | OSError,
    *,
    approximate: bool,
    translator: Translator,
    relocate: Callable[[str], str] = _unmoved,
) -> tuple[FileOutcome, str | None]:
    if isinstance(searched, OSError):
        reason = f"folder not searched: {searched.strerror or searched}"
        return FileOutcome(rel, Status.UNREADABLE, reason=reason), None
    if not searched:
        why = "symbolic link to a folder" if path.is_symlink() else "hidden folder"
        return FileOutcome(rel, Status.NOT_COPIED, reason=f"{why}, not searched"), None
    if not rel.lower().endswith(SCRIPT_SUFFIX):
        return _other_file(rel, path), None
    try:
        _regular_file(path)
        text, note = read_script_text(path)
    except OSError as error:
        return FileOutcome(rel, Status.UNREADABLE, reason=_unreadable_reason(path, error)), None
    outcome, modern = translate_script(
        text, rel, approximate=approximate, translator=translator, relocate=relocate
    )
    if note is not None:
        reasons = [r for r in (note, outcome.reason) if r]
        outcome = attrs.evolve(outcome, reason="; ".join(reasons))
    return outcome, modern


def _other_file(rel: str, path: Path) -> FileOutcome:
    """A file that is no ``.cql`` script: copied when it is a regular file."""
    try:
        _regular_file(path)
    except OSError as error:
        return FileOutcome(rel, Status.NOT_COPIED, reason=_unreadable_reason(path, error))
    return FileOutcome(rel, Status.COPIED, output=rel)


def migrate_folder(
    source: Path,
    destination: Path,
    *,
    approximate: bool = False,
    translator: Translator | None = None,
) -> MigrationReport:
    """Translate every script under ``source`` into ``destination`` and write the reports.

    Every file is written under a temporary name first and all are renamed into place
    at the end, or none is (a failed write leaves ``destination`` as it was); nothing is
    written through a link onto a file of ``source``."""
    src, dest = check_folders(source, destination)
    make_folder(dest, f"DEST_DIR {destination}")
    tools = translator or Translator.default()
    sources = SourceFiles.under(src)
    outcomes = []
    copied: list[tuple[Path, Path]] = []
    with Replacement() as replacement:
        for rel, path, searched in walk(src):
            outcome, modern = _outcome_of_entry(
                rel,
                path,
                searched,
                approximate=approximate,
                translator=tools,
                relocate=tree_relocation(src, dest, rel),
            )
            target = dest / rel
            if modern is not None or outcome.status.copied:
                make_folder(target.parent, f"the folder {target.parent}")
            if modern is not None:
                _write(replacement, sources, target, modern)
            elif outcome.status.copied:
                outcome = _copy(replacement, sources, path, target, outcome)
                if outcome.status.copied:
                    copied.append((path, target))
            outcomes.append(outcome)
        report = MigrationReport(str(source), str(destination), approximate, tuple(outcomes))
        _write(replacement, sources, dest / MARKDOWN_NAME, report_markdown(report))
        _write(
            replacement, sources, dest / JSON_NAME, json.dumps(report_json(report), indent=2) + "\n"
        )
    for path, target in copied:
        # Once in place: the copies keep their permissions (a script stays executable).
        with contextlib.suppress(OSError):
            shutil.copymode(path, target)
    return report


def _copy(
    replacement: Replacement,
    sources: SourceFiles,
    source: Path,
    target: Path,
    outcome: FileOutcome,
) -> FileOutcome:
    """Copy ``source`` to ``target`` unchanged; ``outcome``, or an unreadable one when
    ``source`` cannot be opened.  Failing to write is the migration's end."""
    sources.refuse(target)
    try:
        handle = open(source, "rb")  # noqa: SIM115 (closed below, its errors are the file's)
    except OSError as error:
        reason = _unreadable_reason(source, error)
        return attrs.evolve(outcome, status=Status.UNREADABLE, output=None, reason=reason)
    with handle:
        try:
            with replacement.open(target) as written:
                written.flush()
                shutil.copyfileobj(handle, written.buffer)
        except UsageError as error:
            raise WriteError(str(error)) from None
        except OSError as error:
            raise WriteError(
                f"cannot copy {source} to {target}: {error.strerror or error}"
            ) from None
    return outcome


@attrs.frozen(repr=False)
class SourceFiles(Record):
    """The files of SRC_DIR (its real path, and each file by device and inode), which no
    file of the migration may be written over: not through a symbolic link, nor as
    another name (a hard link) of the same file."""

    root: Path
    files: Mapping[tuple[int, int], Path]

    @classmethod
    def under(cls, root: Path) -> SourceFiles:
        files: dict[tuple[int, int], Path] = {}
        for folder, _, names in os.walk(root):
            for name in names:
                path = Path(folder) / name
                with contextlib.suppress(OSError):
                    info = path.stat()
                    files.setdefault((info.st_dev, info.st_ino), path)
        return cls(Path(os.path.realpath(root)), files)

    def refuse(self, target: Path) -> None:
        """Refuse ``target`` when writing it would write over a source file."""
        real = Path(os.path.realpath(target))
        source: Path | None = real if real.is_relative_to(self.root) else None
        if source is None:
            with contextlib.suppress(OSError):
                info = target.stat()
                source = self.files.get((info.st_dev, info.st_ino))
        if source is not None:
            raise UsageError(
                f"refusing to write {display_path(str(target))}: it leads to the source "
                f"file {display_path(str(source))}"
            )


def _write(replacement: Replacement, sources: SourceFiles, target: Path, text: str) -> None:
    """Write a file of the migration; failing is the migration's end, with the reason."""
    sources.refuse(target)
    try:
        replacement.write(target, text)
    except UsageError as error:
        raise WriteError(str(error)) from None
    except OSError as error:
        raise WriteError(f"cannot write {target}: {error.strerror or error}") from None


# --------------------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------------------


def report_json(report: MigrationReport) -> dict[str, object]:
    """The JSON report: summary counts, exit status, one object per file."""
    return {
        "format": REPORT_FORMAT,
        "source": display_path(report.source),
        "destination": display_path(report.destination),
        "approximate": report.approximate,
        "exit_status": report.exit_status,
        "summary": {status.value: report.count(status) for status in Status},
        "files": [_file_json(outcome) for outcome in report.files],
    }


def _file_json(outcome: FileOutcome) -> dict[str, object]:
    out: dict[str, object] = {"path": display_path(outcome.path), "status": outcome.status.value}
    if outcome.output is not None:
        out["output"] = display_path(outcome.output)
    if outcome.approximations:
        out["approximations"] = [attrs.asdict(a) for a in outcome.approximations]
    if outcome.refusal is not None:
        out["refusal"] = attrs.asdict(outcome.refusal)
    if outcome.reason is not None:
        out["reason"] = outcome.reason
    return out


def report_markdown(report: MigrationReport) -> str:
    """The Markdown report: a summary table, then one section per status that occurs."""
    lines = [
        "# Migration report",
        "",
        f"Source: {_md_path(report.source)}  ",
        f"Destination: {_md_path(report.destination)}  ",
        f"Approximations allowed: {'yes' if report.approximate else 'no'}  ",
        f"Exit status: {report.exit_status}",
        "",
        "| status | files |",
        "|---|---|",
        *(f"| {_HEADINGS[s].lower()} | {report.count(s)} |" for s in _ORDER),
    ]
    for status in _ORDER:
        entries = [f for f in report.files if f.status is status]
        if entries:
            lines += ["", f"## {_HEADINGS[status]}", ""]
            if status in _KEPT_AS_THEY_WERE:
                lines += [_KEPT_AS_THEY_WERE[status], ""]
            lines += [line for entry in entries for line in _MARKDOWN_ENTRY[status](entry)]
    return "\n".join(lines) + "\n"


#: What the destination holds of the scripts that were not translated.
_KEPT_AS_THEY_WERE = {
    Status.REFUSED: "Copied to the destination as they were.",
    Status.SYNTAX_ERROR: "Copied to the destination as they were.",
    Status.UNREADABLE: "Not in the destination: they could not be read.",
}

_ORDER = (
    Status.REFUSED,
    Status.SYNTAX_ERROR,
    Status.UNREADABLE,
    Status.APPROXIMATE,
    Status.EXACT,
    Status.ALREADY_CQL6,
    Status.COPIED,
    Status.NOT_COPIED,
)


def _md_path(text: str) -> str:
    return "`" + display_path(text).replace("`", "'") + "`"


def _approximate_entry(entry: FileOutcome) -> list[str]:
    suffix = f" ({entry.reason})" if entry.reason else ""
    lines = [f"- {_md_path(entry.path)}{suffix}:"]
    lines += [f"  - line {a.line} of the translation: {a.note}" for a in entry.approximations]
    return lines


def _refused_entry(entry: FileOutcome) -> list[str]:
    refusal = entry.refusal
    assert refusal is not None
    place = f"{refusal.line}:{refusal.column}" if refusal.line else "(no position)"
    suffix = f" ({entry.reason})" if entry.reason else ""
    return [
        f"- {_md_path(entry.path)} at {place}: `{refusal.construct}`: {refusal.message}{suffix}"
    ]


def _reason_entry(entry: FileOutcome) -> list[str]:
    suffix = f": {entry.reason}" if entry.reason else ""
    return [f"- {_md_path(entry.path)}{suffix}"]


_MARKDOWN_ENTRY: dict[Status, Callable[[FileOutcome], list[str]]] = {
    Status.EXACT: _reason_entry,
    Status.APPROXIMATE: _approximate_entry,
    Status.REFUSED: _refused_entry,
    Status.SYNTAX_ERROR: _reason_entry,
    Status.UNREADABLE: _reason_entry,
    Status.ALREADY_CQL6: _reason_entry,
    Status.COPIED: _reason_entry,
    Status.NOT_COPIED: _reason_entry,
}


def summary_line(report: MigrationReport) -> str:
    """One line for the terminal.

    >>> summary_line(MigrationReport("s", "d", False, ()))
    '0 exact, 0 approximate, 0 refused, 0 syntax errors, 0 unreadable, 0 already CQL 6, 0 copied'
    """
    line = (
        f"{report.count(Status.EXACT)} exact, {report.count(Status.APPROXIMATE)} approximate, "
        f"{report.count(Status.REFUSED)} refused, {report.count(Status.SYNTAX_ERROR)} syntax "
        f"errors, {report.count(Status.UNREADABLE)} unreadable, "
        f"{report.count(Status.ALREADY_CQL6)} already CQL 6, {report.count(Status.COPIED)} copied"
    )
    if report.count(Status.NOT_COPIED):
        line += f", {report.count(Status.NOT_COPIED)} not copied"
    return line
