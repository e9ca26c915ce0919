"""How close a game came to matching (``run --why N`` for a game that did not match).

A list's body is a conjunction of parts.  At each position the list examines, each part
is judged by the evaluator (a piece designator on the board directly); the position
where most parts hold is the closest, and the parts that fail there say what was
missing.  A part that stands for several transformed lists (a transform's orbit, the
explicit union of a legacy transform set) is opened: each member's own parts are counted
with the list's other parts, so the closest position comes with the transformed list
that came closest there (shown by its designators, as ``--why`` shows a match).

>>> import io, chess.pgn
>>> from cqllegacy.core.tree import Compound, Keyword, PieceSet, Query, Header, Simple, TopList
>>> from cqllegacy.vocab.pieces import types_of
>>> from cqllegacy.vocab.squares import parse_squares
>>> body = Compound((PieceSet(types_of("Q"), parse_squares("h5")), Simple(Keyword.CHECK)))
>>> game = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Qh5 Nc6 *"))
>>> [found] = closest(Query(Header(), (TopList(body),)), game)
>>> found.key, found.held, found.parts, found.failed, found.matched
(3, 1, 2, ('check',), 0)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs
import chess
import chess.pgn

from cqllegacy.core import tree as core
from cqllegacy.core.transforms import orbit
from cqllegacy.evaluator.compiler import Context
from cqllegacy.evaluator.evaluate import compile_query, context_at
from cqllegacy.evaluator.plan import Members
from cqllegacy.present.witness import designator_texts, designators, square_value
from cqllegacy.records import Record
from cqllegacy.runner.movetext import PositionKey
from cqllegacy.runner.report import position_key
from cqllegacy.vocab.pieces import format_legacy_types
from cqllegacy.vocab.squares import FULL, format_squares

__all__ = ["Closest", "closest", "describe", "part_text"]

#: Members of one union opened at most; past this the union counts as one part.
MAX_MEMBERS = 1024


@attrs.frozen(repr=False)
class Closest(Record):
    """Where one list came closest: the position (``key``, None for a game without
    positions to examine), how many of its ``parts`` held there, the parts that failed
    (as text) and, for a list of several transformed lists, the designators of the one
    that came closest; ``matched``: at how many positions every part held."""

    key: PositionKey | None
    held: int
    parts: int
    failed: tuple[str, ...]
    member: tuple[str, ...] = ()
    move: str = ""
    matched: int = 0


def _conjuncts(node: core.Filter) -> Iterator[core.Filter]:
    if isinstance(node, core.Compound | core.And):
        for item in node.items:
            yield from _conjuncts(item)
    elif not isinstance(node, core.Comment):
        yield node


def _alternatives(node: core.Filter) -> tuple[core.Filter, ...] | None:
    """The members of a union or of a transform's orbit, nested ones opened too (None for
    another node, or past :data:`MAX_MEMBERS`)."""
    if isinstance(node, core.Or):
        members: tuple[core.Filter, ...] = node.items
    elif isinstance(node, core.Transform) and not node.count:
        try:
            members = orbit(node.kind, node.arg)
        except ValueError:
            return None
    else:
        return None
    opened: dict[core.Filter, None] = {}
    for member in members:
        inner = _alternatives(member)
        opened.update(dict.fromkeys(inner if inner is not None else (member,)))
        if len(opened) > MAX_MEMBERS:
            return None
    return tuple(opened)


def _candidates(body: core.Filter) -> list[tuple[tuple[core.Filter, ...], core.Filter | None]]:
    """The conjunctions to count parts in: the body's parts, with its one union (when it
    has exactly one) opened into each member's parts; each with the member it opened."""
    parts = tuple(_conjuncts(body))
    unions = [i for i, part in enumerate(parts) if _alternatives(part) is not None]
    if len(unions) != 1:
        return [(parts, None)]
    at = unions[0]
    members = _alternatives(parts[at])
    assert members is not None
    found: list[tuple[tuple[core.Filter, ...], core.Filter | None]] = []
    for member in members:
        opened = tuple(_conjuncts(member))
        found.append(((*parts[:at], *opened, *parts[at + 1 :]), member))
    return found


def _examined(
    game: chess.pgn.Game, scope: core.Scope, skip_initial: bool
) -> Iterator[chess.pgn.GameNode]:
    """The positions a list examines, in game order (depth first with variations)."""
    stack: list[chess.pgn.GameNode] = [game]
    while stack:
        node = stack.pop()
        if node is not game or not skip_initial:
            yield node
        following = node.variations if scope is core.Scope.ALL else node.variations[:1]
        stack.extend(reversed(following))


class _Judge:
    """Each part judged once per position, as the lowered plan compiles it."""

    def __init__(self, members: Members, ctx: Context, p: int, board: chess.Board) -> None:
        self.members = members
        self.ctx = ctx
        self.p = p
        self.board = board
        self.known: dict[core.Filter, bool] = {}

    def holds(self, part: core.Filter) -> bool:
        if part not in self.known:
            if isinstance(part, core.PieceSet):
                self.known[part] = square_value(part, self.board) != 0
            else:
                self.known[part] = self.members.holds(part, self.ctx, self.p)
        return self.known[part]


def _closest_in_list(
    top: core.TopList,
    members: Members,
    game: chess.pgn.Game,
    scope: core.Scope,
    skip_initial: bool,
) -> Closest:
    candidates = _candidates(top.body)
    best = Closest(None, 0, len(candidates[0][0]), ())
    matched = 0
    # The game laid out once: every examined position is judged in the same context.
    identities = top.body.find(core.PieceVariable, core.PieceLoop) is not None
    ctx, _ = context_at(game, scope=scope, identities=identities)
    for node in _examined(game, scope, skip_initial):
        judge = _Judge(members, ctx, ctx.table.index_of(node), node.board())
        here = False
        for parts, member in candidates:
            held = [judge.holds(part) for part in parts]
            count = sum(held)
            here = here or count == len(parts)
            if best.key is None or count > best.held:
                failed = tuple(part_text(p) for p, ok in zip(parts, held, strict=True) if not ok)
                best = Closest(
                    position_key(node), count, len(parts), failed, _shown(member), _move(node)
                )
        matched += here
    return attrs.evolve(best, matched=matched)


def _shown(member: core.Filter | None) -> tuple[str, ...]:
    """The designators of the transformed list, when one of them names squares."""
    if member is None or all(d.squares == FULL for d in designators(member)):
        return ()
    return tuple(designator_texts(member))


def _move(node: chess.pgn.GameNode) -> str:
    """The move that led to ``node`` (``12. Nf3``, ``12... Nf6``), "" at the start."""
    parent = node.parent
    if parent is None or node.move is None:
        return ""
    board = parent.board()
    dots = "." if board.turn == chess.WHITE else "..."
    return f"{board.fullmove_number}{dots} {board.san(node.move)}"


def closest(
    query: core.Query,
    game: chess.pgn.Game,
    *,
    variations: bool = False,
    skip_initial: bool = False,
) -> list[Closest]:
    """For each top-level list of ``query``, where in ``game`` it came closest to
    matching, and at how many positions it matched.  The parts are judged by the run's
    own plan (``compile_query`` gives the run's compiled query again)."""
    members = compile_query(query).plan.members
    return [
        _closest_in_list(
            top, members, game, core.Scope.ALL if variations else top.scope, skip_initial
        )
        for top in query.lists
    ]


def part_text(part: core.Filter) -> str:
    """A part as the user wrote it where the translation kept its origin, else in CQL 6
    words; a piece designator in legacy notation."""
    if isinstance(part, core.PieceSet):
        return format_legacy_types(part.types) + format_squares(part.squares)
    origin = getattr(part, "origin", None)
    text = _cql_text(part)
    if origin is not None and origin.span.line:
        return f"{text} ({origin})"
    return text


def _cql_text(part: core.Filter) -> str:
    from cqllegacy.modern.errors import NotExpressible
    from cqllegacy.modern.printer import print_query

    query = core.Query(core.Header(), (core.TopList(part),))
    try:
        printed = print_query(query, approximate=True)
    except NotExpressible:
        return type(part).__name__
    lines = [
        line.strip()
        for line in printed.splitlines()[1:]
        if line.strip() and not line.lstrip().startswith("//")
    ]
    text = " ".join(lines)
    return text if len(text) <= 120 else text[:117] + "..."


def describe(query: core.Query, closeness: Sequence[Closest]) -> list[str]:
    """``--why`` lines for a game that did not match: per list, at how many positions it
    matched against what it needs or, for a list that matched nowhere, where it came
    closest.  A query of several forms (Scidb's ``:eithercolor``) is told form by form,
    each list numbered as in the script."""
    lines = []
    size = max(len(query.lists) // query.forms, 1)
    for place, (top, found) in enumerate(zip(query.lists, closeness, strict=True)):
        index = place % size + 1
        if query.forms > 1 and index == 1:
            form = place // size + 1
            what = "the match as written" if form == 1 else "its colour image"
            lines.append(f"form {form} of {query.forms} ({what}):")
        if found.matched:
            needs = ""
            if top.matchcount is not None:
                lo, hi = top.matchcount
                needs = f", needs {lo} or more" if hi is None else f", needs {lo} to {hi}"
            lines.append(f"list {index}: matched at {found.matched} position(s){needs}")
            continue
        if found.key is None:
            lines.append(f"list {index}: no position to examine")
            continue
        if top.matchcount is not None and top.matchcount[0] == 0:
            lines.append(f"list {index}: matched at no position, as it may")
            continue
        where = f"after {found.move}" if found.move else "the start"
        lines.append(
            f"list {index}: matched at no position; closest at position {found.key} "
            f"({where}), where {found.held} of its {found.parts} parts held"
        )
        if found.member:
            lines.append(f"  as the transformed list {' '.join(found.member)}")
        lines += [f"  failed there: {text}" for text in found.failed]
    return lines
