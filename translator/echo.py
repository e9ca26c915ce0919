"""Legacy ``:relation`` → CQL 6.1 ``echo`` (semantics: S-relation, S-echo, decision L18).

``run`` evaluates a relation with its own fast rule (:class:`~cqllegacy.core.tree.Relation`);
``translate`` writes the same meaning with ``echo``:

``echo (source target) {LATER SIDE COUNTS BOARD}`` at the position P1 the list examines, the
body being evaluated at each other position P2 (the target, current there):

- LATER: ``ancestor(source target)`` (P2 follows P1 on a line through it) and, for the
  default main-line relation, ``mainline``; for ``:variationsonly``, ``variation``.  With a
  relation that looks into variations the script gets the ``variations`` header, and its
  main-line lists a ``mainline`` constituent.
- SIDE: ``sidetomove == source:sidetomove`` (or ``!=``, or nothing for ``:ignoresidetomove``).
- COUNTS: ``#(~(source & target) & ALLOWED)`` (original different) and
  ``#((source & target) & [Aa] & ALLOWED)`` (original same), P2 untransformed.
- BOARD, without ``:shift``/``:flip``: no allowable square holds a different piece in P2
  (``not (~(source & target) & [Aa] & source:[Aa] & ALLOWED)``), missing pieces
  ``#(source:TYPES & _ & ALLOWED)`` and new pieces ``#(TYPES & source:_ & ALLOWED)`` in
  their ranges; with the defaults (no missing, no new piece) the three say together
  ``not (~(source & target) & ALLOWED)``: the allowable squares are the same in both.
- BOARD, with the relation's ``:shift``/``:flip``: P2 moved by one of the maps holds P1's
  content on the allowable squares.  Exact as ``flip shift {Ke6 be7 …}`` when ``:pattern``
  names one piece on each allowable square (so P1's content there is known), no such piece
  may go missing and none may appear: a map that pushes a square off the board then fails
  in both languages.  Other transformed comparisons are refused (see :func:`relation_echo`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cqllegacy.translator.errors import translation_error

from cqllegacy.core import tree as core
from cqllegacy.core.relation_echo import (
    SOURCE,
    TARGET,
    echo_of,
    is_pattern_piece,
    transformed_board,
)
from cqllegacy.legacy import tree as lt
from cqllegacy.vocab.pieces import TypeSet
from cqllegacy.vocab.squares import FULL, iter_squares

__all__ = ["SOURCE", "TARGET", "relation_echo"]


def relation_echo(
    relation: core.Relation,
    designators: Sequence[lt.Designator],
    *,
    sources_on_mainline: bool,
    path: str | None,
) -> core.Filter:
    """The ``echo`` filter that means ``relation`` at the current position
    (:func:`~cqllegacy.core.relation_echo.echo_of`, which the evaluator also reads back).

    ``designators`` are the designators standing directly in the relation's list (the
    ``:pattern``); ``sources_on_mainline`` says that the list examines main-line
    positions only.  Raises :class:`~translator.errors.TranslationError` where the
    rendering would not be exact, saying why.
    """
    origin = relation.origin
    where = origin.span if origin is not None else None

    def refuse(reason: str) -> Exception:
        assert where is not None
        message = f":relation has no exact CQL 6.1 form here: {reason}"
        return translation_error(message, where, path=path)

    if relation.scope is not core.RelationScope.ALL and not sources_on_mainline:
        raise refuse(
            "its later positions are those of the line a position inside a variation continues, "
            "and CQL 6.1 mainline/variation name the game's main line, not that line"
        )
    if relation.shift or relation.flip:
        return echo_of(relation, [_transformed_board(relation, designators, refuse)])
    return echo_of(relation)


def _transformed_board(
    relation: core.Relation,
    designators: Sequence[lt.Designator],
    refuse: Callable[[str], Exception],
) -> core.Filter:
    """Some map of the relation's ``:shift``/``:flip`` moves P2 onto P1's pattern."""
    if relation.allowable == FULL:
        raise refuse(
            "without :pattern, a shifted or flipped comparison of the whole board needs P1's "
            "content on every square, which only a comparison of each square with each piece "
            "type at both positions could say (thousands of terms)"
        )
    pattern: dict[int, TypeSet] = {}
    for d in designators:
        if d.tag is None and is_pattern_piece(d.types, d.squares):
            pattern[next(iter(iter_squares(d.squares)))] = d.types
    if sum(1 << square for square in pattern) != relation.allowable:
        raise refuse(
            "with :shift or :flip the later position must hold the pattern's content, and the "
            "pattern does not name one piece on each of its squares, so that content is unknown"
        )
    missing_types, _, missing_hi = relation.missing
    if missing_hi != 0 or any(not (t & missing_types) for t in pattern.values()):
        raise refuse(
            "a shifted pattern may leave the board, which the legacy relation counts as missing "
            "pieces while a CQL 6.1 shift drops that placement: exact only when no pattern "
            "piece may go missing"
        )
    return transformed_board(relation, pattern)
