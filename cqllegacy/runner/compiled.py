"""The compiled query as the runner sees it: what a scan asks of the evaluator's
:class:`~cqllegacy.evaluator.evaluate.CompiledQuery` (:class:`CompiledQueryLike`, which
every compiled query implements in full).

A match names its positions by game nodes (``evaluate``) or by position keys (the tag and
stream paths); :class:`GameMatchLike` says which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

import chess.pgn

from cqllegacy.runner.movetext import PositionKey
from cqllegacy.runner.pgn import StreamVisitor

if TYPE_CHECKING:
    from cqllegacy.evaluator.arrays import ListArrays
    from cqllegacy.evaluator.needles import Needles
    from cqllegacy.evaluator.stream import Verdict

#: How a match names its positions.
Position_co = TypeVar("Position_co", covariant=True)


class ListMatchLike(Protocol[Position_co]):
    """What one top-level list found in a game."""

    @property
    def count(self) -> int: ...
    @property
    def positions(self) -> tuple[Position_co, ...]: ...
    @property
    def marked(self) -> tuple[Position_co, ...]: ...


class GameMatchLike(Protocol[Position_co]):
    @property
    def matched(self) -> bool: ...
    @property
    def lists(self) -> Sequence[ListMatchLike[Position_co]]: ...


class GameStreamLike(StreamVisitor, Protocol):
    """A python-chess visitor that evaluates a game while it is read."""

    def verdict(self) -> Verdict | None: ...


class CompiledQueryLike(Protocol):
    """Everything a scan asks of a compiled query.

    Every query rejects games on their tags (``prefilter``, ``tag_needles``) and evaluates
    game trees (``evaluate``).  Two faster ways give the same results where the query
    offers them: when ``decided_by_tags``, ``tag_match`` evaluates a game from its tags and
    positions alone; ``stream`` gives a visitor that evaluates the game while python-chess
    reads it (None: evaluate the game tree), and ``stream_keys`` the match of its verdict,
    with the main line's positions named by their plies.
    """

    @property
    def tag_needles(self) -> Needles: ...

    def prefilter(self, headers: Mapping[str, str], ordinal: int) -> bool: ...

    def evaluate(
        self,
        game: chess.pgn.Game,
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatchLike[chess.pgn.GameNode]: ...

    @property
    def decided_by_tags(self) -> bool: ...

    def tag_match(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        positions: Sequence[PositionKey],
        mainline_length: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatchLike[PositionKey]: ...

    def stream(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameStreamLike | None: ...

    def stream_keys(self, verdict: Verdict, main_moves: int) -> GameMatchLike[PositionKey]: ...

    @property
    def arrays(self) -> tuple[ListArrays, ...] | None:
        """Per list, the array forms of its body (None: the query is evaluated by rows)."""
        ...

    @property
    def main_line_stream(self) -> bool:
        """Whether every stream of the query reads only the main line's boards and moves
        (an index's stored positions can then feed it instead of the text)."""
        ...


def decided_by_tags(compiled: CompiledQueryLike) -> bool:
    """Whether ``compiled`` says its tags decide everything (then ``tag_match`` serves)."""
    return compiled.decided_by_tags
