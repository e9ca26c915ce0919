"""``cqllegacy explain``: a script's lists in plain words, their transforms, and how the
translation writes them (facts from :mod:`cqllegacy.translator.explain`).

>>> from cqllegacy.legacy import read_script
>>> text = "(match (position Rc1 Kg1 :shiftvertical))"
>>> print(Explanation.of_legacy(read_script(text)).text())  # doctest: +NORMALIZE_WHITESPACE
list 1 (line 1:8): first matching position marked; main line
  means: a white rook on c1; a white king on g1
  transforms: :shiftvertical -- 15 transforms in the legacy set, 9 distinct transformed lists
  CQL 6: an explicit union of the 9 lists, because Rc1 is on rank 1:
  legacy up-shifts keep it and smear it up the file; CQL 6 shifts move it
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import TYPE_CHECKING

import chess

from cqllegacy.core import tree as core
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.printer import designator_text, range_text
from cqllegacy.present.diagrams import inline_diagram, piece_sprites
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    EMPTY_BIT,
    WHITE_PIECES,
    format_legacy_types,
    piece_types_in,
)
from cqllegacy.vocab.squares import FULL, format_squares, popcount

if TYPE_CHECKING:
    from cqllegacy.translator.explain import ListFacts, ScriptFacts

__all__ = ["Explanation", "describe_designator", "describe_item"]

#: Diagrams drawn per list at most (a ``:shift :flip`` list has hundreds of members).
MAX_DIAGRAMS = 64


# --------------------------------------------------------------------------------------
# Plain words
# --------------------------------------------------------------------------------------

_GROUPS = (
    (ANYTHING, "any square"),
    (ANY_PIECE | EMPTY_BIT, "any square"),
    (ANY_PIECE, "any piece"),
    (WHITE_PIECES, "any white piece"),
    (BLACK_PIECES, "any black piece"),
    (EMPTY_BIT, "an empty square"),
)


def _types_words(types: int) -> str:
    for group, words in _GROUPS:
        if types == group:
            return words
    names = [
        f"{'white' if color else 'black'} {chess.piece_name(piece_type)}"
        for color, piece_type in piece_types_in(types)
    ]
    if types & EMPTY_BIT:
        names.append("empty square")
    if len(names) > 3:
        return f"any of {format_legacy_types(types)}"
    first = "an" if names[0][0] in "aeiou" else "a"
    return f"{first} " + " or ".join(names)


def _squares_words(squares: int) -> str:
    if squares == FULL:
        return "anywhere"
    text = format_squares(squares)
    return f"on {text}" if popcount(squares) == 1 else f"on one of {text}"


def describe_designator(d: lt.Designator) -> str:
    """
    >>> from cqllegacy.vocab.pieces import types_of
    >>> from cqllegacy.vocab.squares import parse_squares
    >>> describe_designator(lt.Designator(types_of("kq"), parse_squares("b3,f5")))
    'a black queen or black king on one of [b3,f5]'
    """
    if d.tag is not None:
        return f"the piece ${d.tag} {_squares_words(d.squares)}"
    if d.types == 0 or d.squares == 0:
        return f"{designator_text(d)} (no square: counts 0)" if d.squares == 0 else "nothing"
    return f"{_types_words(d.types)} {_squares_words(d.squares)}"


def _range_words(r: lt.Range) -> str:
    if r.hi == r.lo:
        return f"exactly {r.lo}"
    if r.hi is None:
        return f"at least {r.lo}"
    return f"between {r.lo} and {r.hi}"


_FLAG_WORDS = {
    lt.FlagKeyword.MATE: "checkmate",
    lt.FlagKeyword.STALEMATE: "stalemate",
    lt.FlagKeyword.CHECK: "the side to move is in check",
    lt.FlagKeyword.NOCHECK: "the side to move is not in check",
    lt.FlagKeyword.WTM: "White to move",
    lt.FlagKeyword.BTM: "Black to move",
    lt.FlagKeyword.INITIAL: "the start position",
    lt.FlagKeyword.ENPASSANT: "the next move captures en passant",
    lt.FlagKeyword.NOENPASSANT: "the next move is no en passant capture",
}

_LIST_JOINERS = {
    lt.ListKeyword.AND: " and ",
    lt.ListKeyword.OR: " or ",
    lt.ListKeyword.SEQUENCE: " then ",
    lt.ListKeyword.GAPPEDSEQUENCE: " later ",
}

_MOVE_WORDS = {
    lt.MoveKeyword.MOVEFROM: "the next move leaves",
    lt.MoveKeyword.MOVETO: "the next move goes to",
    lt.MoveKeyword.PROMOTE: "the next move promotes to",
}


def describe_item(item: object) -> str | None:
    """One position-list item in plain words (None for list settings and comments)."""
    if isinstance(item, lt.Designator):
        return describe_designator(item)
    if isinstance(item, lt.Flag):
        return _FLAG_WORDS.get(item.keyword)
    if isinstance(item, lt.PieceCount):
        if item.range.lo == 0 and item.range.hi == 0:
            return f"none of: {describe_designator(item.designator)}"
        return f"{_range_words(item.range)} of: {describe_designator(item.designator)}"
    if isinstance(item, lt.AttackCount):
        return (
            f"{_range_words(item.range)} attacks (attacker, target pairs) by "
            f"{describe_designator(item.attackers)} on {describe_designator(item.targets)}"
        )
    if isinstance(item, lt.MoveTest):
        return f"{_MOVE_WORDS[item.keyword]} {describe_designator(item.designator)}"
    if isinstance(item, lt.Power | lt.PowerDifference):
        keyword = "power" if isinstance(item, lt.Power) else "power difference"
        return f"the {keyword} of {designator_text(item.designator)} is {_range_words(item.range)}"
    if isinstance(item, lt.RangeTest) and item.keyword not in (
        lt.RangeKeyword.MATCHCOUNT,
        lt.RangeKeyword.PRETRANSFORMMATCHCOUNT,
    ):
        return f":{item.keyword.value} {range_text(item.range)}"
    if isinstance(item, lt.ResultTest):
        return f"the game's result is {item.result.value}"
    if isinstance(item, lt.ListOfLists):
        joiner = _LIST_JOINERS[item.keyword]
        return f":{item.keyword.value} of " + joiner.join(f"({_meaning(pl)})" for pl in item.lists)
    if isinstance(item, lt.Ray):
        return f":{item.keyword.value} through " + " ".join(
            designator_text(d) for d in item.designators
        )
    if isinstance(item, lt.Relation):
        return "a :relation with a later position"
    return None


def _settings_words(pl: lt.PositionList) -> str:
    flags = {item.keyword for item in pl.items if isinstance(item, lt.Flag)}
    if lt.FlagKeyword.NOANNOTATE in flags:
        mark = "no position marked"
    elif lt.FlagKeyword.MARKALL in flags:
        mark = "every matching position marked"
    else:
        mark = "first matching position marked"
    if lt.FlagKeyword.VARIATIONSONLY in flags:
        scope = "variations only"
    elif lt.FlagKeyword.VARIATIONS in flags:
        scope = "main line and variations"
    else:
        scope = "main line"
    words = [mark, scope]
    if lt.FlagKeyword.NOT in flags:
        words.append("negated (:not)")
    for item in pl.items:
        if isinstance(item, lt.RangeTest) and item.keyword in (
            lt.RangeKeyword.MATCHCOUNT,
            lt.RangeKeyword.PRETRANSFORMMATCHCOUNT,
        ):
            words.append(f"matching at {_range_words(item.range)} positions")
    return "; ".join(words)


def _meaning(pl: lt.PositionList) -> str:
    words = [w for item in pl.items if (w := describe_item(item)) is not None]
    return "; ".join(words) or "any position"


# --------------------------------------------------------------------------------------
# The explanation
# --------------------------------------------------------------------------------------


class Explanation:
    """What a script means and how its transforms translate; ``str()`` is the text,
    :meth:`html` a page (Jupyter shows it through ``_repr_html_``)."""

    def __init__(
        self,
        language: str,
        facts: ScriptFacts | None = None,
        query: core.Query | None = None,
        modern_text: str = "",
    ) -> None:
        self.language = language
        self.facts = facts
        self.query = query
        self.modern_text = modern_text

    @classmethod
    def of_legacy(cls, script: lt.Script) -> Explanation:
        from cqllegacy.translator.explain import explain_script

        return cls("legacy", facts=explain_script(script))

    @classmethod
    def of_modern(cls, query: core.Query, text: str) -> Explanation:
        return cls("modern", query=query, modern_text=text)

    # ---- text ---------------------------------------------------------------------------

    def lines(self) -> Iterator[str]:
        if self.facts is None:
            yield from self._modern_lines()
            return
        for item in self.facts.script.match.items:
            words = _match_item_words(item)
            if words:
                yield f"game: {words}"
        for facts in self.facts.lists:
            yield from _list_lines(facts)

    def _modern_lines(self) -> Iterator[str]:
        assert self.query is not None
        yield "a CQL 6 script: its transforms have their CQL 6 meaning (no legacy transform set)"
        for index, top in enumerate(self.query.lists, start=1):
            yield f"list {index}: marks {top.mark.value}; {top.scope.value}"
            for node in top.body.find_all(core.Transform):
                assert isinstance(node, core.Transform)
                if not node.count:
                    yield f"  {node.kind.value}: its orbit is computed as CQL 6 defines it"

    def text(self) -> str:
        return "\n".join(self.lines())

    def __str__(self) -> str:
        return self.text()

    # ---- HTML ---------------------------------------------------------------------------

    def html(self, *, title: str = "cqllegacy explain") -> str:
        """A self-contained page: the text, and each list's distinct transformed lists
        as small diagrams."""
        body = [f"<h1>{html.escape(title)}</h1>", f"<pre>{html.escape(self.text())}</pre>"]
        if self.facts is not None:
            for facts in self.facts.lists:
                body.append(_members_html(facts))
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            + piece_sprites()
            + "".join(body)
            + "</body></html>\n"
        )

    def _repr_html_(self) -> str:
        return self.html()


def _match_item_words(item: object) -> str | None:
    if isinstance(item, lt.Player):
        return f"White or Black contains {item.name!r} (any case)"
    if isinstance(item, lt.MatchResult):
        return f"result {item.result.value}"
    if isinstance(item, lt.MatchRange):
        return f"{item.keyword.value} {_range_words(item.range)}"
    return None


def _list_lines(facts: ListFacts) -> Iterator[str]:
    yield f"list {facts.index} (line {facts.span}): {_settings_words(facts.source)}"
    yield f"  means: {_meaning(facts.source)}"
    if facts.form == "none":
        yield "  transforms: none"
        return
    names = " ".join(f":{k.value}" for k in facts.keywords)
    yield (
        f"  transforms: {names} -- {facts.transform_count} transforms in the legacy set, "
        f"{len(facts.members)} distinct transformed lists"
    )
    if facts.form == "compact":
        kinds = []
        node = facts.modern
        while isinstance(node, core.Transform):
            kinds.append(node.kind.value)
            node = node.arg
        if isinstance(node, core.Or):
            yield (
                f"  CQL 6: {' '.join(kinds)} around an explicit union of {len(node.items)} "
                "lists for the other transforms, because " + "; ".join(facts.reasons)
            )
        else:
            yield (
                f"  CQL 6: the compact form {' '.join(kinds)} {{...}}: the CQL 6 orbit is the "
                "same set of filters"
            )
    elif facts.form == "explicit":
        yield (
            f"  CQL 6: an explicit union of the {len(facts.members)} lists, because "
            + "; ".join(facts.reasons)
        )
    else:
        yield "  CQL 6: every transformed list means the same: the list is written once"


# ---- diagrams of transformed lists ---------------------------------------------------------


def _member_board(member: lt.PositionList) -> tuple[chess.Board, int]:
    """Pieces where a designator names one piece on one square; the squares of the other
    designators to fill."""
    board = chess.Board.empty()
    filled = 0
    for item in lt.designators(member):
        if item.tag is not None:
            continue
        kinds = piece_types_in(item.types)
        if len(kinds) == 1 and not item.types & EMPTY_BIT and popcount(item.squares) == 1:
            color, piece_type = kinds[0]
            board.set_piece_at(item.squares.bit_length() - 1, chess.Piece(piece_type, color))
        else:
            filled |= item.squares
    return board, filled


def _member_label(member: lt.PositionList) -> str:
    texts = (designator_text(item) for item in lt.designators(member))
    return " ".join(dict.fromkeys(texts))


def _members_html(facts: ListFacts) -> str:
    shown = facts.members[:MAX_DIAGRAMS]
    cells = []
    for member in shown:
        board, filled = _member_board(member)
        svg = inline_diagram(board, highlighted=filled, size=150, coordinates=False)
        label = html.escape(_member_label(member))
        cells.append(f'<figure class="member">{svg}<figcaption>{label}</figcaption></figure>')
    more = len(facts.members) - len(shown)
    note = f"<p>… and {more} more.</p>" if more > 0 else ""
    return (
        f'<section class="list"><h2>List {facts.index}: {len(facts.members)} distinct '
        f'transformed list(s)</h2><div class="members">{"".join(cells)}</div>{note}</section>'
    )


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.8em}
.members{display:flex;flex-wrap:wrap;gap:.6em}
figure.member{margin:0;width:150px;font-size:12px;text-align:center}
"""
