"""The witness reads the lowered plan (its members and their compiled tests): it gives what
judging each member on its own with ``evaluate_filter`` gives (the way it worked before it
read the plan, written again here as the reference), on real games and on the example
scripts."""

from __future__ import annotations

import bz2
import io
import pickle
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from cqllegacy.core import tree as ct
from cqllegacy.core.transforms import orbit
from cqllegacy.evaluator import evaluate
from cqllegacy.evaluator.evaluate import compile_query, evaluate_filter
from cqllegacy.evaluator.testing import pd
from cqllegacy.present.closeness import closest
from cqllegacy.present.positions import marked_positions
from cqllegacy.present.witness import (
    MAX_MEMBERS,
    designator_texts,
    highlighted_squares,
    plan_of,
    witness,
)
from cqllegacy.runner.report import position_key
from cqllegacy.runner.scripts import load_query

ROOT = Path(__file__).resolve().parents[2]


def _games(count: int) -> list[chess.pgn.Game]:
    data = (resources.files("cqllegacy") / "data" / "wcc.pgn.bz2").read_bytes()
    out = []
    with bz2.open(io.BytesIO(data), "rt", encoding="latin-1") as handle:
        for _ in range(count):
            game = chess.pgn.read_game(handle)
            assert game is not None
            out.append(game)
    return out


GAMES = _games(4)


def _alternatives(node: ct.Filter) -> tuple[ct.Filter, ...] | None:
    if isinstance(node, ct.Or):
        return node.items
    if isinstance(node, ct.Transform) and not node.count:
        try:
            return orbit(node.kind, node.arg)
        except ValueError:
            return None
    return None


def _judged_alone(member: ct.Filter, node: chess.pgn.GameNode, scope: ct.Scope) -> bool:
    try:
        value = evaluate_filter(member, node, scope=scope)
    except ValueError:
        return False
    return value is not None and value is not False and value != 0


def _reference(body: ct.Filter, node: chess.pgn.GameNode, scope: ct.Scope) -> ct.Filter:
    found = _reference_resolved(body, node, scope)
    return body if found is None else found


def _reference_resolved(
    body: ct.Filter, node: chess.pgn.GameNode, scope: ct.Scope
) -> ct.Filter | None:
    if isinstance(body, ct.Compound | ct.And):
        return ct.Compound(tuple(_reference(item, node, scope) for item in body.items))
    members = _alternatives(body)
    if members is None:
        return body
    if len(members) > MAX_MEMBERS:
        return None
    for member in members:
        if isinstance(member, ct.Comment):
            continue
        if _alternatives(member) is not None:
            found = _reference_resolved(member, node, scope)
            if found is not None:
                return found
        elif _judged_alone(member, node, scope):
            return _reference(member, node, scope)
    return None


def _matching_nodes(body: ct.Filter, limit: int) -> Iterator[chess.pgn.GameNode]:
    compiled = compile_query(ct.Query(ct.Header(), (ct.TopList(body, mark=ct.Mark.ALL),)))
    for ordinal, game in enumerate(GAMES, 1):
        match = compiled.evaluate(game, ordinal)
        if match.matched:
            yield from match.lists[0].positions[:limit]


FORK = ct.Compound((pd("Nd4"), ct.Attacks(pd("Nd4"), pd("kf3"))))
BODIES = {
    "shifted piece": ct.Transform(ct.TransformKind.SHIFT, pd("Qd1")),
    "flipped pair": ct.Transform(ct.TransformKind.FLIP, ct.Compound((pd("Ke1"), pd("Ra1")))),
    "or of pieces": ct.Or((ct.Comment("x"), pd("Qd1"), pd("Qh5"), pd("Q"))),
    "nested orbit": ct.Transform(
        ct.TransformKind.FLIPCOLOR, ct.Transform(ct.TransformKind.SHIFT, pd("Pe4"))
    ),
    "orbit with a move": ct.Transform(
        ct.TransformKind.FLIP, ct.Compound((pd("N"), ct.Move(from_=pd("Nb1"))))
    ),
    "numeric orbit": ct.Transform(ct.TransformKind.FLIP, ct.Count(pd("Pa-d2"))),
    "fork": ct.Transform(ct.TransformKind.SHIFT, FORK),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_witness_is_the_member_judged_alone(name: str) -> None:
    body = BODIES[name]
    for scope in (ct.Scope.MAINLINE, ct.Scope.ALL):
        nodes = list(_matching_nodes(body, 6))
        # Also positions where nothing need match: the OR then stays whole.
        nodes += [game.next() or game for game in GAMES]
        for node in nodes:
            found = witness(body, node, scope=scope)
            assert found == _reference(body, node, scope)
            assert designator_texts(found) == designator_texts(_reference(body, node, scope))


@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("*.cql"))[:6], ids=str)
def test_the_examples_witnesses_are_the_members_judged_alone(script: Path) -> None:
    query = load_query(script).query
    for top in query.lists:
        if query.tags:
            continue
        for node in _matching_nodes(top.body, 2):
            found = witness(top.body, node, scope=top.scope)
            assert found == _reference(top.body, node, top.scope)
            board = node.board()
            assert highlighted_squares(found, board) == highlighted_squares(
                _reference(top.body, node, top.scope), board
            )


def test_showing_a_run_reads_its_plan_and_lowers_nothing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The witness, the marked positions and `--why` judge members with the plan the
    run compiled (one lowering per query in a process), never with a compiler of their
    own."""
    body = BODIES["shifted piece"]
    query = ct.Query(ct.Header(), (ct.TopList(body, mark=ct.Mark.ALL),))
    compiled = compile_query(query)  # what the run compiles
    made: list[object] = []

    class CountingCompiler(evaluate.Compiler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(evaluate, "Compiler", CountingCompiler)
    shown = 0
    witnessed = []
    for ordinal, game in enumerate(GAMES, 1):
        match = compiled.evaluate(game, ordinal)
        if not match.matched:
            continue
        keys = [position_key(node) for node in match.lists[0].marked]
        for position in marked_positions(game, query, [keys]):
            shown += bool(position.designators)
        node = match.lists[0].marked[0]
        witnessed.append((node, witness(body, node, plan=plan_of(query))))
        closest(query, game)
    assert made == []
    monkeypatch.undo()
    assert shown, "no position of the sample games was shown"
    for node, found in witnessed:
        assert found == _reference(body, node, ct.Scope.MAINLINE)
    # An equal query (as a worker unpickles it) gets the same compiled query and plan.
    again = ct.Query(ct.Header(), (ct.TopList(body, mark=ct.Mark.ALL),))
    assert compile_query(again) is compiled
    assert pickle.loads(pickle.dumps(compiled)) is compiled
    assert plan_of(again) is compiled.plan
