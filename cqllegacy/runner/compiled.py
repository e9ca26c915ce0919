"""The compiled query as the runner sees it: what a scan asks of the evaluator's
:class:`~cqllegacy.evaluator.evaluate.CompiledQuery`.

Every query rejects games on their tags (``prefilter``) and evaluates game trees
(``evaluate``).  Two faster ways are optional, so that a stand-in for the evaluator may do
without them: a query whose tags decide everything evaluates a game from its tags and
movetext alone (:func:`decided_by_tags`, ``tag_match``), and a query may evaluate a game
while python-chess reads it (:func:`offers_stream`, ``stream``).

A match names its positions by game nodes (``evaluate``) or by position keys (the tag and
stream paths); :class:`GameMatchLike` says which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeGuard, TypeVar

import chess.pgn

from cqllegacy.runner.movetext import PositionKey
from cqllegacy.runner.pgn import StreamVisitor

if TYPE_CHECKING:
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


class CompiledQueryLike(Protocol):
    def prefilter(self, headers: Mapping[str, str], ordinal: int) -> bool: ...

    def evaluate(
        self,
        game: chess.pgn.Game,
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameMatchLike[chess.pgn.GameNode]: ...


class TagMatchingQuery(CompiledQueryLike, Protocol):
    """A query that may evaluate a game without its moves: when ``decided_by_tags``,
    ``tag_match`` gives what ``evaluate`` would, with the positions named as given."""

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


class GameStreamLike(StreamVisitor, Protocol):
    """A python-chess visitor that evaluates a game while it is read."""

    def verdict(self) -> Verdict | None: ...


class StreamingQuery(CompiledQueryLike, Protocol):
    """A query that may evaluate a game while python-chess reads it: ``stream`` gives
    the visitor (None: evaluate the game tree), ``stream_keys`` the match of a verdict,
    with the main line's positions named by their plies."""

    def stream(
        self,
        headers: Mapping[str, str],
        ordinal: int,
        *,
        skip_initial: bool = False,
        variations: bool = False,
    ) -> GameStreamLike | None: ...

    def stream_keys(self, verdict: Verdict, main_moves: int) -> GameMatchLike[PositionKey]: ...


def decided_by_tags(compiled: CompiledQueryLike) -> TypeGuard[TagMatchingQuery]:
    """Whether ``compiled`` says its tags decide everything (then it has ``tag_match``)."""
    return bool(getattr(compiled, "decided_by_tags", False))


def offers_stream(compiled: CompiledQueryLike) -> TypeGuard[StreamingQuery]:
    """Whether ``compiled`` can evaluate games while python-chess reads them."""
    return getattr(compiled, "stream", None) is not None
