"""Shared helpers of the runner tests (no tests here).

:class:`StandIn` plays the evaluator's ``CompiledQuery`` for tests that must not depend
on :mod:`cqllegacy.evaluator.evaluate`: one top-level list whose body is a python-chess
predicate on the board, evaluated directly on game trees (it offers no stream and no
evaluation from tags alone).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import attrs
import chess
import chess.pgn
import pytest

from cqllegacy.core.tree import Mark

PGN = Path(__file__).resolve().parents[1] / "pgn"
WCC = Path(__file__).resolve().parents[2] / "cqllegacy" / "data" / "wcc.pgn.bz2"


def white_queen_on_d1(board: chess.Board) -> bool:
    return board.piece_at(chess.D1) == chess.Piece(chess.QUEEN, chess.WHITE)


@attrs.frozen
class ListMatch:
    count: int
    positions: tuple[chess.pgn.GameNode, ...]
    marked: tuple[chess.pgn.GameNode, ...]


@attrs.frozen
class GameMatch:
    matched: bool
    lists: tuple[ListMatch, ...]


def walk(
    node: chess.pgn.GameNode, board: chess.Board, variations: bool
) -> Iterator[tuple[chess.pgn.GameNode, chess.Board]]:
    """Every examined node with its board, depth first, main continuation first."""
    yield node, board
    children = node.variations if variations else node.variations[:1]
    for child in children:
        after = board.copy(stack=False)
        after.push(child.move)
        yield from walk(child, after, variations)


@attrs.define
class StandIn:
    """A ``CompiledQuery`` with one list: positions where ``predicate(board)`` holds."""

    predicate: Callable[[chess.Board], bool] = white_queen_on_d1
    mark: Mark = Mark.FIRST
    accept: Callable[[Mapping[str, str], int], bool] = lambda headers, ordinal: True
    prefiltered: list[int] = attrs.Factory(list)
    evaluated: list[tuple[int, bool, bool]] = attrs.Factory(list)
    tag_needles: tuple[frozenset[str], ...] = ()
    decided_by_tags: bool = False
    main_line_stream: bool = False

    def tag_match(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        positions: Sequence[object],
        mainline_length: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatch:
        raise AssertionError("a stand-in is never decided by its tags")

    def stream(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> None:
        return None

    def stream_keys(self, verdict: object, main_moves: int) -> GameMatch:
        raise AssertionError("a stand-in offers no stream")

    def prefilter(self, headers: Mapping[str, str], ordinal: int) -> bool:
        self.prefiltered.append(ordinal)
        return self.accept(headers, ordinal)

    def evaluate(
        self,
        game: chess.pgn.Game,
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatch:
        self.evaluated.append((ordinal, skip_initial, variations))
        positions = tuple(
            node
            for node, board in walk(game, game.board(), variations)
            if not (skip_initial and node is game) and self.predicate(board)
        )
        marked = {Mark.FIRST: positions[:1], Mark.ALL: positions, Mark.NONE: ()}[self.mark]
        return GameMatch(bool(positions), (ListMatch(len(positions), positions, marked),))


def node_at(game: chess.pgn.GameNode, *choices: int) -> chess.pgn.GameNode:
    """The node reached from ``game`` by taking ``variations[i]`` for each i."""
    node = game
    for index in choices:
        node = node.variations[index]
    return node


def read_all(path: Path) -> list[chess.pgn.Game]:
    """Every game of a plain PGN file, read by python-chess alone."""
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def dying_worker(monkeypatch: pytest.MonkeyPatch, marker: Path | None, ordinal: int) -> None:
    """Workers die (SIGKILL) on game ``ordinal``: every time, or once when ``marker`` is
    given (the first worker to create it dies; the main process never does)."""
    import cqllegacy.runner.parallel as parallel

    real_game = parallel.GameScan.game
    main_process = os.getpid()

    def game(self: object, text: object, name: str) -> None:
        dies = self.summary.games + 1 == ordinal and os.getpid() != main_process  # type: ignore[attr-defined]
        if dies and (marker is None or _created(marker)):
            os.kill(os.getpid(), signal.SIGKILL)
        real_game(self, text, name)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel.GameScan, "game", game)


def _created(path: Path) -> bool:
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True
