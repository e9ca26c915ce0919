"""Where a top-level list that holds Scidb's ``:line`` puts its mark (X3).

A list with a ``:line`` still matches, and counts, at the position where the line's
played moves start; its mark goes to the position where they end: ``k`` half-moves
further along the line followed, for ``k`` played moves.  Which ``:line`` moves the
mark, by where it stands in the list (semantics: X3):

- an item of the list, or of lists joined to it by ``:and``: its own end;
- in list ``j`` (from 0) of a ``:sequence``: that list stands ``j`` positions on, so
  the end is ``j + k`` half-moves on;
- under ``:not`` (a negated list): nothing is played, the mark stays;
- a ``:line`` without played moves (``:line (| …)``) moves nothing;
- inside ``:or``: every option must move the mark alike (the same ends, or none);
  otherwise which position to mark would depend on the option that held: refused;
- inside ``:gappedsequence``: its lists stand at positions the gaps leave open: refused;
- two ``:line`` with different ends in one list: refused.

>>> from cqllegacy.legacy import read_script
>>> def ends(text):
...     return {k: str(span) for k, span in list_ends(read_script(text).match.items[0]).items()}
>>> ends("(match (position :line (Nxe5 bxQ Bxf7+)))")
{3: '1:18'}
>>> ends("(match (position :sequence ((position) (position :line (e2-e4 e7-e5)))))")
{3: '1:50'}
>>> ends("(match (position :not :line (e2-e4)))")
{}
"""

from __future__ import annotations

from cqllegacy.translator.errors import TranslationError, translation_error

from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.line_moves import read_moves
from cqllegacy.legacy.tree import FlagKeyword, PositionList
from cqllegacy.vocab.spans import Span

__all__ = ["LineMarkError", "list_ends"]


class LineMarkError(Exception):
    """A ``:line`` whose end would be an ambiguous mark; ``span`` is where it stands."""

    def __init__(self, why: str, span: Span) -> None:
        super().__init__(why)
        self.why = why
        self.span = span

    def error(self, path: str | None) -> TranslationError:
        return translation_error(
            f"Scidb extension `:line` {self.why}: cqllegacy marks where a line's played moves"
            " end, and that position is not fixed here",
            self.span,
            path=path,
            hint="mark nothing (:noannotate) or move the `:line` out of it",
        )


def list_ends(pl: PositionList) -> dict[int, Span]:
    """The ends (half-moves after the list's position) of the ``:line`` items that move
    the list's mark, each with the place of one ``:line`` ending there; raises
    :class:`LineMarkError` for a placement whose end is not fixed."""
    if any(isinstance(item, lt.Flag) and item.keyword is FlagKeyword.NOT for item in pl.items):
        return {}
    found: dict[int, Span] = {}
    for item in pl.items:
        if isinstance(item, lt.ListOfLists):
            for plies, span in _item_ends(item).items():
                found.setdefault(plies, span)
    if len(found) > 1:
        first, second = sorted(found.items(), key=lambda each: (each[1].line, each[1].column))[:2]
        raise LineMarkError(
            f"ends {second[0]} half-moves on where another one, at {first[1]}, ends"
            f" {first[0]} half-moves on",
            second[1],
        )
    return found


def _item_ends(item: lt.ListOfLists) -> dict[int, Span]:
    if item.line is not None:
        played = len(read_moves(item.line, 0).played)
        return {played: item.span} if played else {}
    options = [list_ends(pl) for pl in item.lists]
    found: dict[int, Span] = {}
    keyword = item.keyword
    if keyword is lt.ListKeyword.OR:
        shapes = {frozenset(option) for option in options}
        if len(shapes) > 1:
            where = next(span for option in options for span in option.values())
            raise LineMarkError(
                "in an option of :or (or of :matchconsecutive, an :or of sequences) that"
                " ends elsewhere than another option",
                where,
            )
    elif keyword is lt.ListKeyword.GAPPEDSEQUENCE:
        for option in options:
            for span in option.values():
                raise LineMarkError("inside :gappedsequence", span)
    for index, option in enumerate(options):
        step = index if keyword is lt.ListKeyword.SEQUENCE else 0
        for plies, span in option.items():
            found.setdefault(step + plies, span)
    return found
