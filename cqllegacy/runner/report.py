"""The JSON Lines report: one object per matching game, in input order.

Each line is::

    {"ordinal": 12, "file": "games/b.pgn", "file_ordinal": 5,
     "white": "Tal, Mihail", "black": "Botvinnik, Mikhail",
     "lists": [{"count": 2, "plies": [0, 17]}, {"count": 1, "plies": ["24.1/27"]}]}

``ordinal`` is the game's 1-based number in the whole input (all files, in the order
given), ``file_ordinal`` its number inside ``file``.  ``lists`` has one entry per
top-level list of the query: ``count`` is the number of examined positions where it
matched and ``plies`` names those positions (see :func:`position_key`); for a list whose
mark Scidb's ``:line`` moves, the positions where its played moves end (X3).  A Scidb
``:eithercolor`` match tried in two forms (the written one, then its colour image) has
the written form's lists and then the image's: the form that did not decide the game
reports a count of 0.

A main-line position is an integer: the number of half-moves from the game's start
position (0 is the start position, also for a game that starts from a FEN).  A position
inside a variation is a string of ``/``-separated steps, one per move on its way from the
start that is not the main continuation: ``P.V`` means that the half-move reaching ply
``P`` is the first move of alternative ``V`` (1 is the first alternative written in the
PGN, 2 the second …).  A last step ``P`` without ``.V`` follows main continuations
(inside the variation) up to ply ``P``.  So ``"24.1/27"`` is: take the first alternative to
the main line's 24th half-move, then go on in that variation to ply 27.
"""

from __future__ import annotations

import json
from typing import TextIO

import chess.pgn

from cqllegacy.runner.movetext import PositionKey
from cqllegacy.runner.results import FoundGame


def variation_choices(node: chess.pgn.GameNode) -> list[int]:
    """The continuation taken at each half-move on the way from the start to ``node``
    (0 the main one, 1 the first alternative …).

    >>> import io
    >>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 *"))
    >>> variation_choices(game.next().variation(1).variation(1))
    [0, 1, 1]
    """
    choices: list[int] = []
    child = node
    while child.parent is not None:
        siblings = child.parent.variations
        choices.append(next(i for i, sibling in enumerate(siblings) if sibling is child))
        child = child.parent
    choices.reverse()
    return choices


def position_key(node: chess.pgn.GameNode) -> PositionKey:
    """The report's name of a position (see the module docstring).

    >>> import io
    >>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3 *"))
    >>> c5 = game.next().variation(1)
    >>> position_key(game), position_key(game.end()), position_key(c5)
    (0, 3, '2.1')
    >>> position_key(c5.next()), position_key(c5.variation(1))
    ('2.1/3', '2.1/3.1')
    """
    choices = variation_choices(node)
    steps = [f"{ply}.{index}" for ply, index in enumerate(choices, start=1) if index]
    if not steps:
        return len(choices)
    if choices[-1] == 0:
        steps.append(str(len(choices)))
    return "/".join(steps)


def report_record(found: FoundGame) -> dict[str, object]:
    """The JSON object of one matching game."""
    return {
        "ordinal": found.ordinal,
        "file": found.file,
        "file_ordinal": found.file_ordinal,
        "white": found.white,
        "black": found.black,
        "lists": [{"count": item.count, "plies": list(item.positions)} for item in found.lists],
    }


def report_line(found: FoundGame) -> str:
    """The JSON line of one matching game, line end included."""
    return json.dumps(report_record(found), ensure_ascii=False) + "\n"


class ReportWriter:
    """Writes one JSON line per matching game it is given to an open text file.

    ``renderer`` makes the line, ``write`` writes a line made elsewhere.
    """

    renderer = staticmethod(report_line)

    def __init__(self, handle: TextIO) -> None:
        self.handle = handle

    def __call__(self, found: FoundGame) -> None:
        self.handle.write(report_line(found))

    def write(self, text: str) -> None:
        self.handle.write(text)
