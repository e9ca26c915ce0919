"""Fixture triples: a legacy script, its CQL 6.1 translation, and what both select.

A *triple* is a folder holding

* ``legacy.cql`` -- the legacy script,
* ``modern.cql`` -- its CQL 6.1 translation, or ``refused.txt`` -- the refusal message,
* ``expected.json`` -- the games the legacy script selects on a recorded PGN file and,
  per top-level position list, the positions it matched and marked.

``cqllegacy fixtures make`` writes triples for a user's scripts so that the same games
can be checked in CQL 6 or CQLi; ``cqllegacy fixtures check`` re-runs both scripts and
reports differences.  The migration corpus (``fixtures/migration/``) uses the same format.

Positions are named as the JSON report names them (:func:`~cqllegacy.runner.report.
position_key`, one spelling for the whole package): a main-line position by its number
of half-moves from the start of the game (``0`` is the start position), a position inside
a variation by a string of ``/``-separated steps, ``P.V`` for each half-move that leaves
the main continuation (ply ``P``, alternative ``V``, 1 = first variation), then ``P`` for
the ply reached along main continuations after the last one.  Files written before this
spelling (``"DEPTH@PLY.INDEX,…"``) are still read: :func:`read_position_key`.

>>> import io, chess.pgn
>>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 *"))
>>> position_key(game.next().next())
2
>>> sicilian = game.next().variation(1)
>>> position_key(sicilian), position_key(sicilian.next()), position_key(sicilian.variation(1))
('2.1', '2.1/3', '2.1/3.1')
>>> read_position_key("3@2.1"), read_position_key("3@2.1,3.1"), read_position_key(4)
('2.1/3', '2.1/3.1', 4)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import chess.pgn

from cqllegacy.errors import (
    CqlLegacyError,
    IncompleteInput,
    ScriptError,
    UsageError,
    WriteError,
    printable,
)
from cqllegacy.records import Record
from cqllegacy.runner.output import Replacement, make_folder
from cqllegacy.runner.pgn import DamagedInput, UnreadableGame, open_pgn, read_game, split_games
from cqllegacy.runner.report import position_key
from cqllegacy.runner.scripts import (
    read_legacy,
    read_modern,
    read_script_file,
    translate_legacy,
    translate_legacy_reading,
)

if TYPE_CHECKING:
    from cqllegacy.core.tree import Query
    from cqllegacy.evaluator.evaluate import CompiledQuery, GameMatch

LEGACY_NAME = "legacy.cql"
MODERN_NAME = "modern.cql"
REFUSED_NAME = "refused.txt"
EXPECTED_NAME = "expected.json"
FORMAT = "cqllegacy-fixture/1"

PositionKey = int | str


# --------------------------------------------------------------------------------------
# Positions and results
# --------------------------------------------------------------------------------------


def read_position_key(key: PositionKey) -> PositionKey:
    """A position key as ``expected.json`` holds it, in the report's spelling: a key of the
    former spelling ``"DEPTH@PLY.INDEX,…"`` is rewritten, any other returned as it is."""
    if not isinstance(key, str) or "@" not in key:
        return key
    depth, _, branches = key.partition("@")
    steps = branches.split(",")
    last_ply = int(steps[-1].partition(".")[0])
    if last_ply != int(depth):
        steps.append(depth)
    return "/".join(steps)


def _key_order(key: PositionKey) -> tuple[int, str]:
    # Main-line positions first in game order, then variation positions by depth.
    if isinstance(key, int):
        return (key, "")
    last_step = key.rpartition("/")[2]
    return (int(last_step.partition(".")[0]), key)


@attrs.frozen(repr=False)
class ListResult(Record):
    """What one top-level list of a query matched in one game."""

    matched: tuple[PositionKey, ...]
    marked: tuple[PositionKey, ...]


@attrs.frozen(repr=False)
class GameResult(Record):
    """A selected game: its 1-based ordinal in the PGN file and its lists' results."""

    ordinal: int
    lists: tuple[ListResult, ...]


@attrs.frozen(repr=False)
class Results(Record):
    """The games a query selects from a PGN file, in file order."""

    games: tuple[GameResult, ...] = ()

    @property
    def ordinals(self) -> tuple[int, ...]:
        return tuple(game.ordinal for game in self.games)

    def game(self, ordinal: int) -> GameResult | None:
        return next((g for g in self.games if g.ordinal == ordinal), None)


def game_result(ordinal: int, match: GameMatch) -> GameResult:
    """Convert an evaluator ``GameMatch`` into position keys."""
    lists = tuple(
        ListResult(
            matched=_sorted_keys(position_key(node) for node in list_match.positions),
            marked=_sorted_keys(position_key(node) for node in list_match.marked),
        )
        for list_match in match.lists
    )
    return GameResult(ordinal, lists)


def _sorted_keys(keys: Iterable[PositionKey]) -> tuple[PositionKey, ...]:
    return tuple(sorted(set(keys), key=_key_order))


def run_compiled(
    compiled: Sequence[CompiledQuery], games: Iterable[tuple[int, chess.pgn.Game]]
) -> list[Results]:
    """Evaluate several compiled queries on one pass over ``(ordinal, game)`` pairs."""
    selected: list[list[GameResult]] = [[] for _ in compiled]
    for ordinal, game in games:
        for found, query in zip(selected, compiled, strict=True):
            match = query.evaluate(game, ordinal)
            if match.matched:
                found.append(game_result(ordinal, match))
    return [Results(tuple(found)) for found in selected]


# --------------------------------------------------------------------------------------
# The toolchain: the project's stages
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class Toolchain(Record):
    """The stages a triple needs.  ``default()`` wires in the real modules.

    They are imported when first needed, so that ``cqllegacy --help`` does not load the
    translator and the evaluator.
    """

    legacy_query: Callable[[str, str | None], Query]
    modern_query: Callable[[str, str | None], Query]
    #: ``(text, path, pgn)``: the CQL 6.1 text of a legacy script, reading ``pgn``
    #: (None: the script's own ``:pgn``).
    translate: Callable[[str, str | None, str | None], str]
    compile: Callable[[Query], CompiledQuery]

    @classmethod
    def default(cls) -> Toolchain:
        from cqllegacy.evaluator.evaluate import compile_query

        def translate_text(text: str, path: str | None, pgn: str | None) -> str:
            if pgn is None:
                return translate_legacy(text, path=path)
            return translate_legacy_reading(text, pgn, path=path)

        return cls(read_legacy, read_modern, translate_text, compile_query)


# --------------------------------------------------------------------------------------
# PGN files
# --------------------------------------------------------------------------------------


def read_games(path: Path) -> Iterator[tuple[int, chess.pgn.Game]]:
    """``(ordinal, game)`` for the readable games of a PGN file, as ``run`` reads them.

    Compressed files are recognised by their first bytes.  A game that cannot be read is
    left out but keeps its ordinal, so ordinals always count every game of the file.
    """
    try:
        with open_pgn(path) as source:
            for text in split_games(source.lines()):
                try:
                    yield text.file_ordinal, read_game(text)
                except UnreadableGame:
                    continue
    except OSError as exc:
        raise UsageError(f"cannot read the PGN file {path}: {exc.strerror or exc}") from None
    except DamagedInput as exc:
        raise IncompleteInput(f"the PGN file {path} was not read to its end: {exc}") from None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


@attrs.frozen(repr=False)
class PgnRecord(Record):
    """The PGN file a triple was recorded on: path as written, SHA-256, game count."""

    path: str
    sha256: str
    games: int

    def resolve(self, folder: Path) -> Path:
        return (folder / self.path).resolve()


def pgn_path_text(pgn: Path, folder: Path) -> str:
    """``pgn`` relative to ``folder`` when they share a folder below the filesystem root,
    else absolute (POSIX slashes), so that a fixture folder can move with its PGN file.

    >>> pgn_path_text(Path("/data/games.pgn"), Path("/data/fixtures/mates"))
    '../../games.pgn'
    >>> pgn_path_text(Path("/srv/games.pgn"), Path("/home/me/mates"))
    '/srv/games.pgn'
    """
    target, base = pgn.resolve(), folder.resolve()
    try:
        common = Path(os.path.commonpath([target, base]))
    except ValueError:  # different drives on Windows
        return target.as_posix()
    if common == Path(common.anchor):
        return target.as_posix()
    return Path(os.path.relpath(target, base)).as_posix()


# --------------------------------------------------------------------------------------
# expected.json
# --------------------------------------------------------------------------------------


def expected_json(results: Results, pgn: PgnRecord, translation: str) -> str:
    """The text of ``expected.json``: stable key order, one selected game per line.

    >>> print(expected_json(Results((GameResult(2, (ListResult((0, 3), (0,)),)),)),
    ...                     PgnRecord("../games.pgn", "ab", 5), MODERN_NAME))
    {
      "format": "cqllegacy-fixture/1",
      "script": "legacy.cql",
      "translation": "modern.cql",
      "pgn": {"path": "../games.pgn", "sha256": "ab", "games": 5},
      "matching_games": [2],
      "games": [
        {"game": 2, "lists": [{"matched": [0, 3], "marked": [0]}]}
      ]
    }
    <BLANKLINE>
    """
    head = [
        f'  "format": {json.dumps(FORMAT)}',
        f'  "script": {json.dumps(LEGACY_NAME)}',
        f'  "translation": {json.dumps(translation)}',
        f'  "pgn": {_compact_json(attrs.asdict(pgn))}',
        f'  "matching_games": {json.dumps(list(results.ordinals))}',
    ]
    game_lines = [f"    {_compact_json(_game_json(game))}" for game in results.games]
    games = '  "games": [\n' + ",\n".join(game_lines) + "\n  ]" if game_lines else '  "games": []'
    return "{\n" + ",\n".join([*head, games]) + "\n}\n"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _compact_json(value: object) -> str:
    """``value`` as JSON on one line, with a space after each separator."""
    text = json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
    # A path with bytes that are not UTF-8 holds lone surrogates (surrogateescape): JSON
    # escapes keep them, and json.loads gives the same path back.
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _game_json(game: GameResult) -> dict[str, object]:
    return {
        "game": game.ordinal,
        "lists": [{"matched": list(lst.matched), "marked": list(lst.marked)} for lst in game.lists],
    }


@attrs.frozen(repr=False)
class Expected(Record):
    """A parsed ``expected.json``."""

    results: Results
    pgn: PgnRecord
    translation: str


def _read_keys(keys: Iterable[PositionKey]) -> tuple[PositionKey, ...]:
    return tuple(read_position_key(key) for key in keys)


def parse_expected(text: str, where: str = EXPECTED_NAME) -> Expected:
    """Read ``expected.json``; a malformed file raises :class:`UsageError` naming it."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"a JSON {type(data).__name__}, not an object")
        if data.get("format") != FORMAT:
            raise ValueError(f"unknown format {data.get('format')!r} (expected {FORMAT!r})")
        games = tuple(
            GameResult(
                int(game["game"]),
                tuple(
                    ListResult(_read_keys(lst["matched"]), _read_keys(lst["marked"]))
                    for lst in game["lists"]
                ),
            )
            for game in data["games"]
        )
        results = Results(games)
        if list(results.ordinals) != list(data["matching_games"]):
            raise ValueError("matching_games does not agree with games")
        pgn = PgnRecord(
            str(data["pgn"]["path"]), str(data["pgn"]["sha256"]), int(data["pgn"]["games"])
        )
        return Expected(results, pgn, str(data["translation"]))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{where}: not a valid fixture file: {printable(str(exc))}") from None


# --------------------------------------------------------------------------------------
# Comparing results
# --------------------------------------------------------------------------------------

_SHOWN = 12


def _show(keys: Iterable[PositionKey]) -> str:
    keys = list(keys)
    text = ", ".join(str(k) for k in keys[:_SHOWN])
    return text + (f", … ({len(keys)} in all)" if len(keys) > _SHOWN else "")


def compare_games(expected: Results, actual: Results, label: str) -> list[str]:
    """Differences in the selected games, one line each (empty when equal)."""
    want, got = set(expected.ordinals), set(actual.ordinals)
    out = []
    if want - got:
        out.append(f"{label}: games no longer selected: {_show(sorted(want - got))}")
    if got - want:
        out.append(f"{label}: games selected in addition: {_show(sorted(got - want))}")
    return out


def compare_positions(expected: Results, actual: Results, label: str, *, marks: bool) -> list[str]:
    """Differences in matched (and, with ``marks``, marked) positions of the common games."""
    out = []
    for game in expected.games:
        other = actual.game(game.ordinal)
        if other is None:
            continue
        if len(other.lists) != len(game.lists):
            out.append(
                f"{label}: game {game.ordinal}: {len(other.lists)} top-level lists "
                f"instead of {len(game.lists)}"
            )
            continue
        for number, (want, got) in enumerate(zip(game.lists, other.lists, strict=True), 1):
            fields = [("matched", want.matched, got.matched)]
            if marks:
                fields.append(("marked", want.marked, got.marked))
            for name, a, b in fields:
                if a != b:
                    out.append(
                        f"{label}: game {game.ordinal}, list {number}: {name} positions "
                        f"differ: expected [{_show(a)}], got [{_show(b)}]"
                    )
    return out


def compare_results(expected: Results, actual: Results, label: str) -> list[str]:
    """Every difference: games, matched and marked positions."""
    return compare_games(expected, actual, label) + compare_positions(
        expected, actual, label, marks=True
    )


def compare_modern(expected: Results, modern: Results) -> list[str]:
    """Differences between the legacy results and the modern script's results as
    cqllegacy runs it: the same games and, list by list, the same matched and marked
    positions (the ``// cqllegacy:`` pragmas carry the lists and their marking).
    """
    return compare_results(expected, modern, "modern.cql")


# --------------------------------------------------------------------------------------
# Building and checking triples
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class Triple(Record):
    """The file texts of one triple; exactly one of ``modern`` and ``refused`` is set."""

    legacy: str
    modern: str | None
    refused: str | None
    expected: str

    def files(self) -> dict[str, str]:
        out = {LEGACY_NAME: self.legacy, EXPECTED_NAME: self.expected}
        if self.modern is not None:
            out[MODERN_NAME] = self.modern
        if self.refused is not None:
            out[REFUSED_NAME] = self.refused
        return out


def translate_or_refuse(
    tools: Toolchain, text: str, path: str | None, pgn: str | None = None
) -> tuple[str | None, str | None]:
    """``(modern text reading pgn, None)`` or ``(None, refusal message)``.

    The refusal is the rendered error (location, message, excerpt) plus a line end.
    """
    try:
        return tools.translate(text, path, pgn), None
    except CqlLegacyError as exc:
        return None, exc.render() + "\n"


def legacy_results(
    tools: Toolchain,
    sources: Sequence[tuple[str, str]],
    games: Iterable[tuple[int, chess.pgn.Game]],
) -> list[Results]:
    """Run legacy scripts ``(text, path)`` on ``games`` (one pass; each compiled once)."""
    compiled = [tools.compile(tools.legacy_query(text, path)) for text, path in sources]
    return run_compiled(compiled, games)


def build_triple(
    tools: Toolchain,
    legacy: str,
    results: Results,
    pgn: PgnRecord,
    *,
    path: str = LEGACY_NAME,
    reads_pgn: bool = False,
) -> Triple:
    """The triple of a legacy script whose results on ``pgn`` are already known;
    ``reads_pgn``: modern.cql reads that file, whatever the script's own ``:pgn`` (the
    corpus's goldens keep the script's)."""
    modern, refused = translate_or_refuse(tools, legacy, path, pgn.path if reads_pgn else None)
    translation = MODERN_NAME if modern is not None else REFUSED_NAME
    return Triple(legacy, modern, refused, expected_json(results, pgn, translation))


def write_triple(folder: Path, triple: Triple, replacement: Replacement | None = None) -> None:
    """Write a triple's files atomically; a stale modern/refused counterpart is removed.

    With a ``replacement`` the files are renamed into place (and the stale one removed)
    when it commits, together with every other file it holds."""
    make_folder(folder, f"the folder {folder}")
    files = triple.files()
    try:
        with contextlib.ExitStack() as stack:
            if replacement is None:
                replacement = stack.enter_context(Replacement())
            for name, text in files.items():
                replacement.write(folder / name, text)
            for stale in (MODERN_NAME, REFUSED_NAME):
                if stale not in files:
                    replacement.remove(folder / stale)
    except UsageError as error:
        raise WriteError(str(error)) from None
    except OSError as error:
        raise WriteError(f"cannot write in {folder}: {error.strerror or error}") from None


def read_triple(folder: Path) -> tuple[str, str | None, Expected]:
    """The legacy text, the modern text (None when refused) and the expectations."""
    expected_path = folder / EXPECTED_NAME
    expected = parse_expected(_read_text(expected_path), str(expected_path))
    legacy = _read_text(folder / LEGACY_NAME)
    modern_path = folder / MODERN_NAME
    modern = _read_text(modern_path) if modern_path.exists() else None
    return legacy, modern, expected


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


@attrs.frozen(repr=False)
class CheckReport(Record):
    """What ``fixtures check`` found for one triple."""

    folder: Path
    pgn: Path
    recorded_sha256: str
    current_sha256: str
    differences: tuple[str, ...]

    @property
    def pgn_changed(self) -> bool:
        return self.recorded_sha256 != self.current_sha256

    @property
    def ok(self) -> bool:
        return not self.pgn_changed and not self.differences


@attrs.frozen(repr=False)
class _Loaded(Record):
    """A triple read back and its scripts compiled (None: refused, or no longer readable)."""

    folder: Path
    expected: Expected
    legacy: CompiledQuery | None
    modern: CompiledQuery | None
    trouble: tuple[str, ...]

    def compiled(self) -> list[CompiledQuery]:
        return [q for q in (self.legacy, self.modern) if q is not None]


def _load(tools: Toolchain, folder: Path) -> _Loaded:
    legacy_text, modern_text, expected = read_triple(folder)
    trouble: list[str] = []
    legacy = _compile_or_note(tools.legacy_query, legacy_text, folder / LEGACY_NAME, tools, trouble)
    modern = None
    if modern_text is not None:
        modern = _compile_or_note(
            tools.modern_query, modern_text, folder / MODERN_NAME, tools, trouble
        )
    return _Loaded(folder, expected, legacy, modern, tuple(trouble))


def _compile_or_note(
    read: Callable[[str, str | None], Query],
    text: str,
    path: Path,
    tools: Toolchain,
    trouble: list[str],
) -> CompiledQuery | None:
    try:
        return tools.compile(read(text, str(path)))
    except ScriptError as exc:
        trouble.append(f"{path.name}: cannot be read any more: {exc}")
        return None


def check_triples(
    tools: Toolchain, folders: Sequence[Path], pgn: Path | None = None
) -> list[CheckReport]:
    """Re-run every triple's scripts on its recorded PGN (or on ``pgn``, the same games
    moved elsewhere: its SHA-256 is still compared) and compare with expectations.

    Triples recorded on the same PGN file share one pass over its games.
    """
    loaded = [_load(tools, folder) for folder in folders]
    groups: dict[Path, list[_Loaded]] = {}
    for item in loaded:
        games = pgn if pgn is not None else item.expected.pgn.resolve(item.folder)
        groups.setdefault(games, []).append(item)
    reports: dict[Path, CheckReport] = {}
    for pgn_path, items in groups.items():
        if pgn is not None and not pgn.is_file():
            raise UsageError(f"--pgn {pgn} is not a file")
        if not pgn_path.is_file():
            users = ", ".join(str(item.folder) for item in items)
            raise UsageError(
                f"the recorded PGN file {pgn_path} does not exist (used by {users}); "
                "if it moved, name it with --pgn"
            )
        digest = sha256_of(pgn_path)
        compiled = [query for item in items for query in item.compiled()]
        results = iter(run_compiled(compiled, read_games(pgn_path)))
        for item in items:
            differences = list(item.trouble)
            if item.legacy is not None:
                differences += compare_results(item.expected.results, next(results), LEGACY_NAME)
            if item.modern is not None:
                differences += compare_modern(item.expected.results, next(results))
            reports[item.folder] = CheckReport(
                item.folder, pgn_path, item.expected.pgn.sha256, digest, tuple(differences)
            )
    return [reports[item.folder] for item in loaded]


@attrs.frozen(repr=False)
class MadeTriple(Record):
    """One triple written by :func:`make_triples`."""

    script: Path
    folder: Path
    refused: str | None


def make_triples(
    tools: Toolchain, scripts: Sequence[Path], pgn: Path, out: Path
) -> list[MadeTriple]:
    """Write one triple per script into ``out/<script name without .cql>/``.

    Every script is read and compiled before anything is written, so a syntax error
    leaves ``out`` untouched.
    """
    folders = _triple_folders(scripts, out)
    texts = [read_script_file(script) for script in scripts]
    sources = list(zip(texts, [str(script) for script in scripts], strict=True))
    if not pgn.is_file():
        raise UsageError(f"the PGN file {pgn} does not exist")
    _refuse_overwriting_inputs(folders, [("PGN file", pgn), *(("script", s) for s in scripts)])
    all_results = legacy_results(tools, sources, read_games(pgn))
    made = []
    digest = sha256_of(pgn)
    game_count = _count_games(pgn)
    # Every triple's files are renamed into place together, or none of them is.
    with Replacement() as replacement:
        for script, folder, text, results in zip(scripts, folders, texts, all_results, strict=True):
            record = PgnRecord(pgn_path_text(pgn, folder), digest, game_count)
            # modern.cql reads the games the triple was made on (as CQL 6 and CQLi run
            # it from the triple's folder), whatever the script's own :pgn; a name
            # that is not UTF-8 cannot be written in its UTF-8 text.
            readable = record.path.encode("utf-8", "surrogatepass").decode("utf-8", "ignore")
            reads_pgn = readable == record.path
            triple = build_triple(tools, text, results, record, reads_pgn=reads_pgn)
            write_triple(folder, triple, replacement)
            made.append(MadeTriple(script, folder, triple.refused))
    return made


def _refuse_overwriting_inputs(folders: Sequence[Path], inputs: Sequence[tuple[str, Path]]) -> None:
    """A triple's file must not be one of the inputs (a PGN file kept inside ``--out``
    under a name a triple writes would be replaced by that file)."""
    for folder in folders:
        for name in (LEGACY_NAME, MODERN_NAME, REFUSED_NAME, EXPECTED_NAME):
            target = folder / name
            for what, path in inputs:
                with contextlib.suppress(OSError):
                    if os.path.samefile(target, path):
                        raise UsageError(f"refusing to write {target} over the {what} {path}")


def _count_games(pgn: Path) -> int:
    with open_pgn(pgn) as source:
        return sum(1 for _ in split_games(source.lines()))


def _triple_folders(scripts: Sequence[Path], out: Path) -> list[Path]:
    folders = [out / script.stem for script in scripts]
    seen: dict[Path, Path] = {}
    for script, folder in zip(scripts, folders, strict=True):
        if folder in seen:
            raise UsageError(
                f"{seen[folder]} and {script} would both be written to {folder}; "
                "rename one of them or run them separately"
            )
        seen[folder] = script
    return folders


def find_triples(directory: Path) -> list[Path]:
    """``directory`` itself when it is a triple, else its sub-folders that are, sorted."""
    if (directory / EXPECTED_NAME).is_file():
        return [directory]
    return sorted(p.parent for p in directory.glob(f"*/{EXPECTED_NAME}"))


def regenerate(tools: Toolchain, folders: Sequence[Path], pgn: Path) -> list[Triple]:
    """Rebuild the triples in ``folders`` from their ``legacy.cql`` on ``pgn``, in memory.

    Used by ``tools/update_goldens.py`` to rewrite the corpus and by its test to compare.
    """
    texts = [_read_text(folder / LEGACY_NAME) for folder in folders]
    sources = [(text, LEGACY_NAME) for text in texts]
    all_results = legacy_results(tools, sources, read_games(pgn))
    digest, game_count = sha256_of(pgn), _count_games(pgn)
    return [
        build_triple(
            tools, text, results, PgnRecord(pgn_path_text(pgn, folder), digest, game_count)
        )
        for folder, text, results in zip(folders, texts, all_results, strict=True)
    ]
