"""The Python API: load a script, translate it, explain it, search games with it.

>>> import cqllegacy
>>> query = cqllegacy.load("(match (position Qh5 :flipcolor))")
>>> query.language
'legacy'
>>> print(query.translate(), end="")
cql()
// cqllegacy: mark first
flipcolor {Qh5}
>>> first = next(query.search(SAMPLE_GAMES))
>>> first
<cqllegacy.Match game 2: Steinitz, Wilhelm - Zukertort, Johannes H, marked [28]>
>>> first.marked_positions()[0].designators
('qh4',)

Everything the ``cqllegacy`` command does goes through here: ``cqllegacy run`` is
:meth:`Query.scan` with the PGN, report and HTML writers as sinks.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import chess
import chess.pgn

from cqllegacy.core import tree as core
from cqllegacy.errors import ScriptError, UsageError, printable
from cqllegacy.runner.compiled import CompiledQueryLike
from cqllegacy.runner.movetext import PositionKey
from cqllegacy.runner.pgn import GameText, read_game
from cqllegacy.runner.progress import Messages
from cqllegacy.runner.results import (
    FoundGame,
    InputFile,
    ListFound,
    MatchSink,
    ScanOptions,
    Summary,
)
from cqllegacy.runner.scanner import scan
from cqllegacy.runner.scripts import (
    Language,
    read_modern,
    read_script_file,
    script_language,
    translate_legacy,
)

if TYPE_CHECKING:
    from cqllegacy.legacy.tree import Script
    from cqllegacy.present.explain import Explanation
    from cqllegacy.present.positions import MarkedPosition
    from cqllegacy.runner.parallel import Engine

__all__ = ["SAMPLE_GAMES", "Match", "PgnSource", "Query", "index", "load", "sample_games"]


def sample_games() -> contextlib.AbstractContextManager[Path]:
    """The bundled sample games (685 World Championship games) as a file on disk."""
    import importlib.resources  # not on a run's path: a run names its inputs

    resource = importlib.resources.files("cqllegacy").joinpath("data", "wcc.pgn.bz2")
    return importlib.resources.as_file(resource)


#: The bundled sample games' path (an installed package keeps them as a file: the path
#: ``importlib.resources`` gives, without the import's cost at every start).
SAMPLE_GAMES = Path(__file__).parent / "data" / "wcc.pgn.bz2"


def load(source: str | os.PathLike[str]) -> Query:
    """A script of either language, from a file or from its text.

    A path (``pathlib.Path``, any ``os.PathLike``) names a file, and so does a ``str``
    that names an existing file, whatever characters it holds (``"fork (copy).cql"``);
    another ``str`` that contains ``(`` is the script's text (every script does:
    ``(match``, ``cql(``), any other ``str`` a file.  A script that does not read, or that
    has no exact meaning, raises a :class:`~cqllegacy.errors.ScriptError` with its place
    (``file:line:column``); a file that cannot be read a
    :class:`~cqllegacy.errors.UsageError`.
    """
    if isinstance(source, str) and "(" in source and not os.path.isfile(source):
        return Query.from_text(source)
    return Query.from_text(read_script_file(source), Path(source))


class Query:
    """A loaded script: its ``text``, its ``language`` (``"legacy"`` or ``"modern"``),
    its ``path`` (None for text) and ``core``, the query it means."""

    def __init__(
        self,
        text: str,
        language: Language,
        core_query: core.Query,
        path: Path | None = None,
        legacy: Script | None = None,
    ) -> None:
        self.text = text
        self.language = language
        self.core = core_query
        self.path = path
        self.legacy = legacy

    @classmethod
    def from_text(cls, text: str, path: Path | None = None) -> Query:
        name = str(path) if path is not None else None
        language = script_language(text)
        try:
            if language == "modern":
                return cls(text, language, read_modern(text, name), path)
            from cqllegacy.legacy import read_script
            from cqllegacy.translator import to_core

            script = read_script(text, name)
            return cls(text, language, to_core(script), path, script)
        except ScriptError as exc:
            # A refusal deep in the translator may not know the file or its text.
            exc.source = exc.source or text
            exc.file = exc.file or name
            raise

    def __repr__(self) -> str:
        where = f" {self.path}" if self.path is not None else ""
        return f"<cqllegacy.Query {self.language}{where}: {len(self.core.lists)} list(s)>"

    @property
    def query(self) -> core.Query:
        """The core query (the name the command-line code reads)."""
        return self.core

    def resolve(self, name: str) -> Path:
        """A file the script names (``:pgn``, ``input``): relative to the script's folder."""
        folder = self.path.parent if self.path is not None else Path()
        return folder / Path(name).expanduser()

    # ---- translating and explaining ------------------------------------------------------

    def translate(self, *, approximate: bool = False) -> str:
        """The CQL 6.1 text; a script without an exact form raises
        :class:`~cqllegacy.translator.TranslationError` at the construct's place (unless
        ``approximate``).  A CQL 6 script gives its canonical text."""
        from cqllegacy.modern.errors import NotExpressible
        from cqllegacy.modern.printer import print_query
        from cqllegacy.translator import TranslationError

        try:
            if self.legacy is not None:
                # The one way from legacy text to CQL 6.1 text, as `cqllegacy translate`
                # takes it (the modern form of what run evaluates faster: echo …).
                return translate_legacy(
                    self.text,
                    approximate=approximate,
                    path=str(self.path) if self.path is not None else None,
                )
            return print_query(self.core, approximate=approximate)
        except NotExpressible as exc:
            raise TranslationError(
                exc.message,
                line=exc.line,
                column=exc.column,
                file=exc.file or (str(self.path) if self.path else None),
                source=exc.source or self.text,
                hint=exc.hint,
            ) from exc

    def explain(self) -> Explanation:
        """Each list in plain words, its transforms and how the translation writes them
        (``str()`` for text; Jupyter shows its HTML)."""
        from cqllegacy.present.explain import Explanation

        if self.legacy is not None:
            return Explanation.of_legacy(self.legacy)
        return Explanation.of_modern(self.core, self.text)

    # ---- running -------------------------------------------------------------------------

    @functools.cached_property
    def compiled(self) -> CompiledQueryLike:
        """The evaluator's compiled query (made once)."""
        from cqllegacy.evaluator.evaluate import compile_query

        try:
            return compile_query(self.core)
        except ValueError as exc:
            # The evaluator refuses a tree it cannot run; the user gets its reason.
            where = self.path if self.path is not None else "the script"
            raise UsageError(f"cannot run {where}: {exc}") from exc

    def scan(
        self,
        inputs: Sequence[InputFile],
        *,
        sinks: Sequence[MatchSink] = (),
        options: ScanOptions = ScanOptions(),  # noqa: B008 (frozen)
        progress: Messages | None = None,
        engine: Engine | None = None,
        index: bool | str | os.PathLike[str] | None = None,
    ) -> Summary:
        """Run on every game of ``inputs``; each matching game goes to every sink (see
        :func:`cqllegacy.runner.scan`).  ``index``: None or True uses each input's fresh
        index found beside it, a path that index (a file for one input, a folder
        otherwise), False scans; the results are the same (see :mod:`cqllegacy.indexing`)."""
        # A query its tags decide is scanned even beside an index (see
        # cqllegacy.indexing.scan), and so is every input that has no index beside it,
        # without importing the index's modules; one named by path goes there, which
        # says why it is not used.
        beside = index is None or index is True
        if index is False or (
            beside and (self.compiled.decided_by_tags or not _an_index_beside(inputs))
        ):
            return scan(
                self.compiled, inputs, options=options, sinks=sinks, progress=progress,
                engine=engine,
            )  # fmt: skip
        from cqllegacy.indexing.scan import IndexChoice
        from cqllegacy.indexing.scan import scan as indexed_scan

        path = None if index is None or index is True else Path(index)
        return indexed_scan(
            self.compiled, self.core, inputs, choice=IndexChoice(True, path), options=options,
            sinks=sinks, progress=progress, engine=engine,
        )  # fmt: skip

    def search(
        self,
        pgn: PgnSource | Iterable[PgnSource],
        *,
        jobs: int = 1,
        skip_initial: bool = False,
        variations: bool = False,
        progress: Messages | None = None,
        index: bool | str | os.PathLike[str] | None = None,
    ) -> Iterator[Match]:
        """The matching games, in input order, as :class:`Match` objects.

        ``pgn`` is a PGN file's path (``str`` or ``os.PathLike``), an open file (text or
        binary, read from where it stands), an ``io.StringIO`` of PGN text, a
        ``chess.pgn.Game``, or an iterable of these (a list of paths, of games…).  ``jobs``
        processes scan at once (the order is kept).  Games that cannot be read are
        reported through ``progress`` (standard error by default) and skipped.
        """
        options = ScanOptions(skip_initial=skip_initial, variations=variations)
        self.compiled  # noqa: B018 (compile here, so that errors come from this thread)
        with pgn_inputs(pgn) as inputs:
            engine = None
            if jobs > 1:
                from cqllegacy.runner.parallel import ProcessEngine

                engine = ProcessEngine(jobs, small_inputs=False)
            yield from _threaded_scan(self, inputs, options, progress, engine, index)


def _an_index_beside(inputs: Sequence[InputFile]) -> bool:
    """Whether some input has a file where its index is looked for by default (fresh or
    not: the index's modules say which)."""
    from cqllegacy.indexing import default_index_path

    return any(default_index_path(item.path).exists() for item in inputs)


def index(
    pgn_paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    output: str | os.PathLike[str] | None = None,
    *,
    jobs: int = 1,
    progress: Messages | None = None,
) -> list[Path]:
    """Build the position index of each PGN file (``cqllegacy index``): beside it
    (``NAME.cqlidx``), or at ``output`` (a file for one input, else a folder).  Returns
    the index files written; :meth:`Query.search` and :meth:`Query.scan` use them while
    they are fresh.  A damaged input is indexed up to the damage, and runs on it scan."""
    from cqllegacy.indexing.build import build
    from cqllegacy.indexing.store import index_destination

    if isinstance(pgn_paths, str | os.PathLike):
        pgn_paths = [pgn_paths]
    sources = [Path(path) for path in pgn_paths]
    written = []
    for source in sources:
        if not source.is_file():
            raise UsageError(f"input {source} is not a file")
        target = index_destination(source, output, len(sources) > 1)
        build(source, target, jobs=jobs, progress=progress or Messages(sys.stderr))
        written.append(target)
    return written


# --------------------------------------------------------------------------------------
# Where games come from
# --------------------------------------------------------------------------------------

#: What :meth:`Query.search` reads games from.
PgnSource = str | os.PathLike[str] | IO[str] | IO[bytes] | chess.pgn.Game


def _is_one_source(item: object) -> bool:
    return isinstance(item, str | os.PathLike | chess.pgn.Game) or hasattr(item, "read")


@contextlib.contextmanager
def pgn_inputs(pgn: PgnSource | Iterable[PgnSource]) -> Iterator[tuple[InputFile, ...]]:
    """The scan's input files for ``pgn``: paths as they are; open files, text streams and
    games written to temporary files (removed on leaving), consecutive games to one.

    >>> import io
    >>> with pgn_inputs([SAMPLE_GAMES, io.StringIO("1. e4 *"), chess.pgn.Game()]) as found:
    ...     [f.name for f in found][1:]
    ['<stream>', '<games>']
    """
    sources = [pgn] if _is_one_source(pgn) else list(pgn)  # type: ignore[arg-type]
    with contextlib.ExitStack() as stack:
        folder: Path | None = None
        inputs: list[InputFile] = []
        games: list[chess.pgn.Game] = []

        def spool(name: str, data: str | bytes) -> None:
            nonlocal folder
            if folder is None:
                import tempfile  # only a stream or a game is spooled

                folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cqllegacy-")))
            path = folder / f"{len(inputs) + 1}.pgn"
            if isinstance(data, str):
                path.write_text(data, encoding="utf-8")
            else:
                path.write_bytes(data)
            inputs.append(InputFile(path, name))

        def flush_games() -> None:
            if games:
                spool("<games>", "".join(f"{game}\n\n" for game in games))
                games.clear()

        for source in sources:
            if isinstance(source, chess.pgn.Game):
                games.append(source)
                continue
            flush_games()
            if isinstance(source, str | os.PathLike):
                inputs.append(_path_input(source))
            elif hasattr(source, "read"):
                name = getattr(source, "name", None)
                spool(name if isinstance(name, str) else "<stream>", source.read())
            else:
                raise UsageError(f"cannot read games from {type(source).__name__}")
        flush_games()
        yield tuple(inputs)


def _path_input(path: str | os.PathLike[str]) -> InputFile:
    item = InputFile.of(os.fspath(path))
    if not item.path.is_file():
        if isinstance(path, str) and ("\n" in path or path.lstrip().startswith(("[", "1."))):
            raise UsageError("input is PGN text, not a file name: pass io.StringIO(text)")
        raise UsageError(f"input {printable(item.name)} is not a file")
    return item


# --------------------------------------------------------------------------------------
# Matches
# --------------------------------------------------------------------------------------


class Match:
    """A matching game: ``ordinal`` (in the whole input), ``file``, ``file_ordinal``,
    ``headers``, ``lists`` (per top-level list: ``count``, ``positions`` and ``marked``,
    positions named as in the JSON report: a main-line ply, or a string such as
    ``"24.1/27"`` inside a variation) and ``pgn``, the game's own text.

    :meth:`board` gives the board at a position, :meth:`marked_positions` the marked
    positions with what matched there; in Jupyter a match shows as its diagrams.
    """

    def __init__(self, found: FoundGame, query: core.Query, options: ScanOptions) -> None:
        self._found = found
        self._query = query
        self._options = options
        self.ordinal = found.ordinal
        self.file = found.file
        self.file_ordinal = found.file_ordinal
        self.lists: tuple[ListFound, ...] = found.lists
        self.pgn = found.text.pgn()

    def __repr__(self) -> str:
        return (
            f"<cqllegacy.Match game {self.ordinal}: {self.white} - {self.black}, "
            f"marked {list(self.marked)}>"
        )

    @functools.cached_property
    def headers(self) -> chess.pgn.Headers:
        return self._found.headers

    @property
    def white(self) -> str:
        return self.headers.get("White", "?")

    @property
    def black(self) -> str:
        return self.headers.get("Black", "?")

    @property
    def plies(self) -> tuple[tuple[PositionKey, ...], ...]:
        """Per list, the positions where it matched."""
        return tuple(item.positions for item in self.lists)

    @property
    def marked(self) -> tuple[PositionKey, ...]:
        """The positions any list marks, each once."""
        return self._found.marked()

    @functools.cached_property
    def game(self) -> chess.pgn.Game:
        """The game read by python-chess."""
        return read_game(self._found.text)

    def board(self, key: PositionKey) -> chess.Board:
        """The board at a position (a main-line ply or a report key)."""
        from cqllegacy.present.witness import node_at  # only a match's inspection needs it

        return node_at(self.game, key).board()

    def boards(self) -> dict[PositionKey, chess.Board]:
        """The board at each marked position."""
        return {key: self.board(key) for key in self.marked}

    @functools.cached_property
    def _marked_positions(self) -> list[MarkedPosition]:
        from cqllegacy.present.positions import marked_positions  # not on `run`'s path

        marked = [item.marked for item in self.lists]
        return marked_positions(self.game, self._query, marked, variations=self._options.variations)

    def marked_positions(self) -> list[MarkedPosition]:
        """The marked positions: board, move, highlighted squares, matched designators."""
        return list(self._marked_positions)

    def why(self) -> str:
        """Which list matched at which positions and, where the list stands for several
        transformed lists, which one (shown as its designators)."""
        # Imported here: explaining a match is not on `run`'s path (start-up time).
        from cqllegacy.present.positions import scope_of
        from cqllegacy.present.witness import designator_texts, node_at, plan_of, witness

        lines = [f"game {self.ordinal}: {self.white} - {self.black} ({self.file})"]
        plan = plan_of(self._query)  # the plan the search ran, lowered once
        for index, found in enumerate(self.lists):
            lines.append(
                f"list {index + 1}: matched at {found.count} position(s)"
                + (f", marked {_keys(found.marked)}" if found.marked else ", none marked")
            )
            body = self._query.lists[index].body
            scope = scope_of(self._query, index, self._options.variations)
            for key in found.positions[:MAX_WHY_POSITIONS]:
                node = node_at(self.game, key)
                texts = designator_texts(witness(body, node, scope=scope, plan=plan))
                member = " ".join(texts) if texts else "(no designator)"
                lines.append(f"  position {key}: {member}")
            if found.count > MAX_WHY_POSITIONS:
                lines.append(f"  … and {found.count - MAX_WHY_POSITIONS} more positions")
        return "\n".join(lines)

    def _repr_svg_(self) -> str:
        from cqllegacy.present.diagrams import diagram  # Jupyter only

        positions = self._marked_positions
        if not positions:
            return diagram(self.game.end().board())
        first = positions[0]
        return diagram(first.board, highlighted=first.highlighted, move=first.move)

    def _repr_html_(self) -> str:
        import html

        from cqllegacy.present.diagrams import inline_diagram, piece_sprites  # Jupyter only

        e = html.escape
        figures = "".join(
            f'<figure style="display:inline-block;margin:0 1em 1em 0">'
            f"{inline_diagram(p.board, highlighted=p.highlighted, move=p.move, size=240)}"
            f"<figcaption>{e(p.label)} {e(' '.join(p.designators))}</figcaption></figure>"
            for p in self._marked_positions
        )
        return (
            f"<div>{piece_sprites()}<p><b>{e(self.white)} – {e(self.black)}</b>, "
            f"{e(self.headers.get('Event', ''))} (game {self.ordinal})</p>{figures}</div>"
        )


#: ``why`` names at most this many positions per list.
MAX_WHY_POSITIONS = 20


def why_not(
    query: core.Query,
    inputs: Sequence[InputFile],
    ordinal: int,
    options: ScanOptions,
    numbers: str = "the script's game numbers",
) -> str:
    """``--why N`` for a game that did not match: per list, how close it came (the
    position where most of its parts held, and which parts failed there); ``numbers``
    names where the game numbers examined come from."""
    from cqllegacy.present.closeness import closest, describe
    from cqllegacy.runner.pgn import UnreadableGame

    found = find_game(inputs, ordinal)
    if found is None:
        return f"game {ordinal} is not in the input"
    text, item = found
    try:
        game = read_game(text)
    except UnreadableGame as exc:
        return f"game {ordinal} ({item.name}) cannot be read: {printable(str(exc))}"
    headers = game.headers
    lines = [
        f"game {ordinal}: {headers.get('White', '?')} - {headers.get('Black', '?')} "
        f"({item.name}): did not match"
    ]
    gamenumber = query.header.gamenumber
    if gamenumber is not None and not (
        gamenumber[0] <= ordinal and (gamenumber[1] is None or ordinal <= gamenumber[1])
    ):
        return lines[0] + f"\n  it is outside {numbers}"
    if query.tags:
        return lines[0] + "\n  its lists follow tagged pieces (:forany): how close is not computed"
    closeness = closest(
        query, game, variations=options.variations, skip_initial=options.skip_initial
    )
    return "\n".join([*lines, *describe(query, closeness)])


def find_game(inputs: Sequence[InputFile], ordinal: int) -> tuple[GameText, InputFile] | None:
    """Game ``ordinal`` of the input (numbered as the scan numbers them) and its file."""
    from cqllegacy.runner.pgn import open_pgn, split_games

    first = 1
    for item in inputs:
        with open_pgn(item.path) as source:
            count = 0
            for text in split_games(source.lines(), first_ordinal=first):
                count += 1
                if first + count - 1 == ordinal:
                    return text, item
        first += count
    return None


def _keys(keys: Sequence[PositionKey]) -> str:
    return ", ".join(str(key) for key in keys)


# --------------------------------------------------------------------------------------
# The scan as an iterator
# --------------------------------------------------------------------------------------


def encode_found(found: FoundGame) -> str:
    """A matching game as text, so that a worker process can send it (a sink's renderer
    gives text)."""
    import base64
    import pickle

    return base64.b64encode(pickle.dumps(found)).decode("ascii")


class _Stopped(Exception):
    """The consumer of a search stopped early."""


class FoundQueue:
    """A sink that hands each matching game to another thread, blocking while
    ``limit`` games wait; after :meth:`stop`, the next game stops the scan."""

    renderer = staticmethod(encode_found)

    def __init__(self, limit: int = 64) -> None:
        self.items: queue.Queue[tuple[str, Any]] = queue.Queue(limit)
        self.stopped = threading.Event()

    def __call__(self, found: FoundGame) -> None:
        self._put(found)

    def write(self, text: str) -> None:
        import base64
        import pickle

        self._put(pickle.loads(base64.b64decode(text)))

    def _put(self, found: FoundGame) -> None:
        while True:
            if self.stopped.is_set():
                raise _Stopped
            try:
                self.items.put(("game", found), timeout=0.1)
                return
            except queue.Full:
                continue

    def stop(self) -> None:
        self.stopped.set()


def _threaded_scan(
    query: Query,
    inputs: Sequence[InputFile],
    options: ScanOptions,
    progress: Messages | None,
    engine: Engine | None,
    index: bool | str | os.PathLike[str] | None = None,
) -> Iterator[Match]:
    sink = FoundQueue()

    def work() -> None:
        try:
            query.scan(
                inputs, sinks=[sink], options=options, progress=progress, engine=engine,
                index=index,
            )  # fmt: skip
            sink.items.put(("end", None))
        except _Stopped:
            pass
        except BaseException as exc:  # handed to the consumer, raised there
            sink.items.put(("error", exc))

    thread = threading.Thread(target=work, name="cqllegacy-search", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = sink.items.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield Match(value, query.core, options)
    finally:
        sink.stop()
        # Let a blocked scan see the stop.
        with contextlib.suppress(queue.Empty):
            while True:
                sink.items.get_nowait()
        thread.join()
