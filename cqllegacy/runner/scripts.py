"""Loading a script file of either language into a core :class:`~cqllegacy.core.tree.Query`.

A script whose first text after comments is ``cql(`` is a CQL 6 script; anything else is
read as a legacy (CQL 3.x) script and translated.  Files are read as UTF-8, or as
Latin-1 when they are not valid UTF-8, or as UTF-16 or UTF-32 when a byte-order mark
says so (see :func:`decode_script`).

:func:`read_legacy`, :func:`read_modern` and :func:`translate_legacy` take a script's
text to a query or to CQL 6.1 text for every command that reads scripts.

>>> script_language("// find mates\\ncql(input games.pgn) mate")
'modern'
>>> script_language("; queen sacrifices\\n(match (position :moveto [Qq]))")
'legacy'
"""

from __future__ import annotations

import codecs
import errno
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import attrs

from cqllegacy.core.tree import Query
from cqllegacy.errors import (
    CqlLegacyError,
    IncompleteInput,
    ScriptError,
    UsageError,
    display_path,
)
from cqllegacy.records import Record

if TYPE_CHECKING:
    from cqllegacy.legacy.tree import Script

Language = Literal["legacy", "modern"]


@attrs.frozen(repr=False)
class LoadedScript(Record):
    """A script as read from its file, with the query it means."""

    query: Query
    language: Language
    path: Path
    text: str

    def resolve(self, name: str) -> Path:
        """A file named inside the script (``:pgn``, ``input`` …): relative to the
        script's folder.

        >>> from cqllegacy.core.tree import Header
        >>> script = LoadedScript(Query(Header(), ()), "legacy", Path("a/b.cql"), "")
        >>> script.resolve("g.pgn") == Path("a/g.pgn")
        True
        """
        return self.path.parent / Path(name).expanduser()


# Whitespace and comments of either language before the first real text.
_LEADING_COMMENTS = re.compile(r"(?:\s+|;[^\n]*|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_MODERN_START = re.compile(r"cql\s*\(")


def script_language(text: str) -> Language:
    """``"modern"`` when the first text after comments is ``cql(``, else ``"legacy"``."""
    start = _LEADING_COMMENTS.match(text)
    position = start.end() if start else 0
    return "modern" if _MODERN_START.match(text, position) else "legacy"


#: Byte-order marks of the encodings a script may be in besides UTF-8 and Latin-1
#: (UTF-32's little-endian mark begins with UTF-16's, so it comes first).
_SCRIPT_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
)


class ScriptEncodingError(ValueError):
    """A script's bytes are not text in any encoding a script may be in."""


def wide_script_encoding(data: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when a byte-order mark says so, else None.

    >>> wide_script_encoding("(match)".encode("utf-16")), wide_script_encoding(b"(match)")
    ('UTF-16', None)
    """
    for bom, _, name in _SCRIPT_BOMS[:4]:
        if data.startswith(bom):
            return name
    return None


def decode_script(data: bytes) -> str:
    """A script's text, read as PGN input is: UTF-16 or UTF-32 when a byte-order mark
    says so, else UTF-8 (with or without its mark), or Latin-1 when the bytes are not
    UTF-8; without the byte-order mark.  Raises :class:`ScriptEncodingError` for text
    that breaks its announced encoding, and for text made mostly of NUL bytes (UTF-16 or
    UTF-32 without the mark).

    >>> decode_script(b"\\xef\\xbb\\xbf(match)"), decode_script(b"; J\\xf6rg")
    ('(match)', '; Jörg')
    >>> decode_script("(match)".encode("utf-16")), decode_script("\\ufeff(m)".encode("utf-32-be"))
    ('(match)', '(m)')
    """
    for bom, encoding, name in _SCRIPT_BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise ScriptEncodingError(
                    f"not valid {name} text (byte-order mark of {name}): {exc.reason} "
                    f"at byte {exc.start + len(bom)}"
                ) from None
            return _without_nul(text)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return _without_nul(text.removeprefix("\ufeff"))


def _without_nul(text: str) -> str:
    """``text``, unless NUL characters make a quarter of it or more: UTF-16 or UTF-32
    read without its byte-order mark (a stray NUL is left for the reader to report)."""
    nuls = text.count("\x00")
    if nuls and 4 * nuls >= len(text):
        raise ScriptEncodingError(
            f"{nuls} NUL bytes in {len(text)} characters: UTF-16 or UTF-32 text without "
            "a byte-order mark? (save it as UTF-8, or with the mark)"
        )
    return text


#: Errors of a file that is there but cannot be read to its end (not a bad command line).
_READ_FAILURES = frozenset({errno.EIO, errno.ENXIO, errno.ESTALE, errno.ETIMEDOUT})


def read_script_file(path: str | os.PathLike[str]) -> str:
    """A script file's text; a file that cannot be read is a :class:`UsageError`."""
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError as exc:
        folder = display_path(os.fspath(path)).rstrip("/")
        raise UsageError(
            f"cannot read script {folder}: it is a folder (name the scripts in it, "
            f"e.g. {folder}/*.cql; migrate translates a whole folder)"
        ) from exc
    except OSError as exc:
        message = f"cannot read script {display_path(os.fspath(path))}: {exc.strerror or exc}"
        if exc.errno in _READ_FAILURES:
            # The file is there, its bytes could not all be read: status 3, as an input.
            raise IncompleteInput(message) from exc
        raise UsageError(message) from exc
    try:
        return decode_script(data)
    except ScriptEncodingError as exc:
        raise UsageError(f"cannot read script {path}: {exc}") from None


# The readers and the translator are imported where they are used: ``--help`` should not
# pay for loading every stage.


def read_modern(text: str, path: str | None = None) -> Query:
    """A CQL 6 script's query."""
    from cqllegacy.modern.grammar import read_query

    return read_query(text, path)


def read_legacy(text: str, path: str | None = None) -> Query:
    """A legacy script's query: read, then translated into the core."""
    from cqllegacy.legacy import read_script

    return _translator().to_core(read_script(text, path))


def translate_legacy(
    text: str,
    *,
    approximate: bool = False,
    path: str | None = None,
    relocate: Callable[[str], str] | None = None,
) -> str:
    """A legacy script's CQL 6.1 text (:func:`cqllegacy.translator.translate`);
    ``relocate`` rewrites the file names of its header (see :func:`relocation`)."""
    return _translator().translate(text, approximate=approximate, path=path, relocate=relocate)


def translate_legacy_reading(text: str, pgn: str, *, path: str | None = None) -> str:
    """A legacy script's CQL 6.1 text whose header reads the file ``pgn`` (written as
    given) instead of the script's own ``:pgn``, and names no output: the translation of
    a fixture triple, which runs on the fixture's games.  Raises what
    :func:`translate_legacy` raises."""
    from cqllegacy.legacy import read_script
    from cqllegacy.modern.printer import print_query

    translator = _translator()
    try:
        query = translator.modern_form(translator.to_core(read_script(text, path), modern=True))
        header = attrs.evolve(query.header, inputs=(pgn,), output=None)
        return print_query(attrs.evolve(query, header=header))
    except ScriptError as exc:
        exc.source = exc.source or text
        exc.file = exc.file or path
        raise


def relocation(
    old_folder: str | os.PathLike[str], new_folder: str | os.PathLike[str]
) -> Callable[[str], str]:
    """The file names a script in ``old_folder`` writes (relative to its folder), as a
    script in ``new_folder`` must write them to name the same files; absolute names
    and names starting with ``~`` stay as they are.

    >>> move = relocation("/data/scripts", "/data/cql6/scripts")
    >>> move("games.pgn"), move("../pgn/big.pgn"), move("/abs/x.pgn"), move("~/x.pgn")
    ('../../scripts/games.pgn', '../../pgn/big.pgn', '/abs/x.pgn', '~/x.pgn')
    >>> relocation("a", "a")("../g.pgn")
    '../g.pgn'
    """
    old, new = os.path.abspath(old_folder), os.path.abspath(new_folder)

    def relocate(name: str) -> str:
        if old == new or os.path.isabs(name) or name.startswith("~"):
            return name
        moved = os.path.relpath(os.path.normpath(os.path.join(old, name)), new)
        return Path(moved).as_posix()

    return relocate


class _Translator(Protocol):
    """What is used of :mod:`cqllegacy.translator`."""

    def to_core(self, script: Script, *, modern: bool = False) -> Query: ...

    def modern_form(self, query: Query) -> Query: ...

    def translate(
        self,
        text: str,
        *,
        approximate: bool = False,
        path: str | None = None,
        relocate: Callable[[str], str] | None = None,
    ) -> str: ...


def _translator() -> _Translator:
    # translator/ becomes cqllegacy.translator only when installed (pyproject.toml's
    # package-dir); mypy finds it through the link tree its configuration names.
    import cqllegacy.translator as translator

    module: _Translator = translator
    return module


_READERS: dict[Language, Callable[[str, str], Query]] = {
    "modern": read_modern,
    "legacy": read_legacy,
}


class TranslationRefused(CqlLegacyError):
    """``translate`` refuses a legacy script that ``run`` runs (no exact CQL 6.1 form)."""

    exit_status = 1

    def __init__(self, refusal: ScriptError) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal

    def render(self) -> str:
        return f"{self.refusal.render()}\n    (translate refuses this script; run runs it)"


def refusals(path: str | os.PathLike[str]) -> list[CqlLegacyError]:
    """What ``run`` and ``translate`` would refuse in the script at ``path``, with their
    reasons: an error that stops ``run`` (a :class:`~cqllegacy.errors.ScriptError` of the
    translation into the core, a tree the evaluator cannot run) alone, else for a legacy
    script the refusal of ``translate``, if any (a :class:`TranslationRefused`).
    Reading errors are not repeated here: the caller has read the script."""
    try:
        loaded = load_query(path)
    except ScriptError as error:
        return [error]
    from cqllegacy.evaluator.evaluate import compile_query

    try:
        compile_query(loaded.query)
    except ValueError as error:
        return [UsageError(f"cannot run {path}: {error}")]
    if loaded.language == "modern":
        return []
    try:
        translate_legacy(loaded.text, path=str(path))
    except ScriptError as error:
        error.source = error.source or loaded.text
        error.file = error.file or str(path)
        return [TranslationRefused(error)]
    return []


def load_query(path: str | os.PathLike[str]) -> LoadedScript:
    """Read the script file at ``path`` into a query.

    Syntax errors and refused translations propagate as
    :class:`~cqllegacy.errors.ScriptError`; an unreadable file is a
    :class:`~cqllegacy.errors.UsageError`.
    """
    text = read_script_file(path)
    language = script_language(text)
    try:
        query = _READERS[language](text, str(path))
    except ScriptError as exc:
        # A refusal raised deep in the translator may not know the file or its text; the
        # user still deserves the file name and the caret excerpt.
        exc.source = exc.source or text
        exc.file = exc.file or str(path)
        raise
    return LoadedScript(query=query, language=language, path=Path(path), text=text)
