"""``cqllegacy explain``: a script's lists in plain words, their transforms, and how the
translation writes them (facts from :mod:`cqllegacy.translator.explain`).

>>> from cqllegacy.legacy import read_script
>>> text = "(match (position Rc1 Kg1 :shiftvertical))"
>>> print(Explanation.of_legacy(read_script(text)).text())  # doctest: +NORMALIZE_WHITESPACE
list 1 (line 1:8): first matching position marked; main line
  means: a white rook on c1; a white king on g1
  transforms: :shiftvertical -- 15 transforms in the legacy set, 9 distinct transformed lists,
  1 of which can never match
  CQL 6: an explicit union of the 8 lists that can match, because Rc1 is on rank 1:
  legacy up-shifts keep it and smear it up the file; CQL 6 shifts move it
"""

from __future__ import annotations

import html
import typing
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import attrs
import chess

from cqllegacy.core import tree as core
from cqllegacy.core.dispatch import Dispatcher
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.line_moves import ONLY_MOVE
from cqllegacy.legacy.printer import designator_text, range_text
from cqllegacy.present.diagrams import inline_diagram, piece_sprites
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    EMPTY_BIT,
    WHITE_PIECES,
    format_legacy_types,
    legacy_types,
    piece_types_in,
)
from cqllegacy.vocab.squares import FULL, format_squares, popcount

if TYPE_CHECKING:
    from cqllegacy.translator.explain import ListFacts, ScriptFacts

__all__ = [
    "ITEM_WORDS",
    "MATCH_WORDS",
    "Explanation",
    "ListOutline",
    "describe_designator",
    "describe_item",
    "outline",
]

#: Diagrams drawn per list at most (a ``:shift :flip`` list has hundreds of members).
MAX_DIAGRAMS = 64
#: Diagrams shown per list before a "show more" in a notebook.
SHOWN_DIAGRAMS = 8


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


#: Each position-list item class in plain words (None: nothing to say of this one); a
#: class that says nothing of its own is declared absent.  A new item class without an
#: entry fails loudly (tests/test_tables_complete.py names it).
ITEM_WORDS: Dispatcher[Callable[..., str | None]] = Dispatcher("explain's item words")
ITEM_WORDS.absent(lt.Transform, reason="a list setting: the list's transforms line says it")
ITEM_WORDS.absent(lt.Comment, reason="a comment says nothing of the list")
_words = ITEM_WORDS.register


def describe_item(item: object) -> str | None:
    """One position-list item in plain words (None for list settings and comments); a
    nested list of lists on one line, each list with its ``:not`` and transforms."""
    if type(item) in ITEM_WORDS.absent_classes():
        return None
    return ITEM_WORDS[type(item)](item)


@_words(lt.Designator)
def _designator_words(item: lt.Designator) -> str:
    return describe_designator(item)


@_words(lt.Flag)
def _flag_words(item: lt.Flag) -> str | None:
    return _FLAG_WORDS.get(item.keyword)


@_words(lt.PieceCount)
def _piece_count_words(item: lt.PieceCount) -> str:
    if item.range.lo == 0 and item.range.hi == 0:
        return f"none of: {describe_designator(item.designator)}"
    return f"{_range_words(item.range)} of: {describe_designator(item.designator)}"


@_words(lt.PawnCount)
def _pawn_count_words(item: lt.PawnCount) -> str:
    tests = ", ".join(
        ("not " if test.negated else "") + test.word for test in item.chain.tests
    )
    return f"{_range_words(item.range)} of: {describe_designator(item.designator)} ({tests})"


@_words(lt.AttackCount)
def _attack_count_words(item: lt.AttackCount) -> str:
    return (
        f"{_range_words(item.range)} attacks (attacker, target pairs) by "
        f"{describe_designator(item.attackers)} on {describe_designator(item.targets)}"
    )


@_words(lt.MoveTest)
def _move_test_words(item: lt.MoveTest) -> str:
    return f"{_MOVE_WORDS[item.keyword]} {describe_designator(item.designator)}"


def _declared_words(item: object) -> str:
    """An item's words from the template its class declares (``WORDS``): its designators
    and ranges in plain words, in the places the template names."""
    template: str = type(item).WORDS  # type: ignore[attr-defined]
    fields = {}
    for field in attrs.fields(type(item)):  # type: ignore[arg-type]
        value = getattr(item, field.name)
        if isinstance(value, lt.Designator):
            fields[field.name] = designator_text(value)
        elif isinstance(value, lt.Range):
            fields[field.name] = _range_words(value)
    return template.format(**fields)


# An item class that declares its words needs no entry of its own here.
for _item_class in typing.get_args(lt.PositionItem):
    if hasattr(_item_class, "WORDS"):
        ITEM_WORDS.add(_item_class, _declared_words)


@_words(lt.RangeTest)
def _range_test_words(item: lt.RangeTest) -> str | None:
    if item.keyword in (lt.RangeKeyword.MATCHCOUNT, lt.RangeKeyword.PRETRANSFORMMATCHCOUNT):
        return None  # a list setting: the list's first line says it
    return f":{item.keyword.value} {range_text(item.range)}"


@_words(lt.ResultTest)
def _result_words(item: lt.ResultTest) -> str:
    return f"the game's result is {item.result.value}"


@_words(lt.ListOfLists)
def _lists_words(item: lt.ListOfLists) -> str:
    lists = "; ".join(f"({_list_words(pl)})" for pl in item.lists)
    return f"{_GROUP_WORDS[item.keyword]}: {lists}"


@_words(lt.Ray)
def _ray_words(item: lt.Ray) -> str:
    return f":{item.keyword.value} through " + " ".join(
        designator_text(d) for d in item.designators
    )


@_words(lt.HypotheticalMoves)
def _hypothetical_words(item: lt.HypotheticalMoves) -> str:
    if item == ONLY_MOVE:
        return "the move played here is the only legal one (:line with !)"
    count = len(item.moves)
    return f"{count} legal move{'s' * (count > 1)} could follow here (:line after |)"


@_words(lt.Relation)
def _relation_words(item: lt.Relation) -> str:
    return "a :relation with a later position"


@_words(lt.TagMatch)
def _tag_match_words(item: lt.TagMatch) -> str:
    return f"the piece ${item.name} is {describe_designator(item.designator)}"


_CASTLING_WORDS = {
    "K": "White castles kingside",
    "Q": "White castles queenside",
    "k": "Black castles kingside",
    "q": "Black castles queenside",
}


@_words(lt.CastlingMove)
def _castling_move_words(item: lt.CastlingMove) -> str:
    d = item.designator
    if d is None:
        return "the next move castles"
    named = [words for letter, words in _CASTLING_WORDS.items() if d.types & legacy_types(letter)]
    return "the next move: " + " or ".join(named)


_RIGHT_WORDS = {
    "K": "White may castle kingside",
    "Q": "White may castle queenside",
    "k": "Black may castle kingside",
    "q": "Black may castle queenside",
}


@_words(lt.CastlingRightsTest)
def _castling_rights_words(item: lt.CastlingRightsTest) -> str:
    types = item.designator.types
    named = [words for letter, words in _RIGHT_WORDS.items() if types & legacy_types(letter)]
    if len(named) == 1:
        return named[0]
    return "exactly one of: " + "; ".join(named)


_BOARD_TEST_WORDS = {
    lt.BoardTestKeyword.FORCED: "the next move is the only legal one",
    lt.BoardTestKeyword.THREEFOLDREPETITION: (
        "the first main-line position seen for the third time"
    ),
}


@_words(lt.BoardTest)
def _board_test_words(item: lt.BoardTest) -> str:
    return _BOARD_TEST_WORDS[item.keyword]


@_words(lt.FenPosition)
def _fen_position_words(item: lt.FenPosition) -> str:
    return f"the position is {item.fen} (clocks aside)"


@_words(lt.TransposedLine)
def _transposed_line_words(item: lt.TransposedLine) -> str:
    return (
        f"the position is the one the moves {item.text} reach from the game's start, "
        "in the order written (en passant aside)"
    )


@_words(lt.HalfmoveClockRange)
def _halfmove_clock_words(item: lt.HalfmoveClockRange) -> str:
    return f"the half-move clock is {_range_words(item.range)} (any clock in a variation)"


@_words(lt.Accumulate)
def _accumulate_words(item: lt.Accumulate) -> str:
    return f"each matching transformed list adds 1 to {item.name} (:accumulate)"


@_words(lt.AccumulateEach)
def _accumulate_each_words(item: lt.AccumulateEach) -> str:
    return (
        f"each matching transformed list adds 1 to {item.name}, one count per colour:"
        " a list with the colours swapped counts for Black (:accumulate*)"
    )


@_words(lt.SumRange)
def _sum_range_words(item: lt.SumRange) -> str:
    return f"{item.name} adds up to {_range_words(item.range)} (:sumrange)"


#: What a list of lists asks of its lists, in plain words.
_GROUP_WORDS = {
    lt.ListKeyword.AND: "all of these lists hold (:and)",
    lt.ListKeyword.OR: "at least one of these lists holds (:or)",
    lt.ListKeyword.SEQUENCE: (
        "these lists hold in order at consecutive positions of the line, the first at this "
        "one (:sequence)"
    ),
    lt.ListKeyword.GAPPEDSEQUENCE: (
        "these lists hold in order at positions of the line, the first here or later, each "
        "strictly after the one before (:gappedsequence)"
    ),
}


_MARK_WORDS = {
    core.Mark.FIRST: "first matching position marked",
    core.Mark.ALL: "every matching position marked",
    core.Mark.NONE: "no position marked",
}


def _scope_words(top: core.TopList) -> str:
    """Which positions the list examines, as the query says it: its scope, and the
    ``mainline`` or ``not mainline`` constituent that narrows it."""
    if top.scope is core.Scope.MAINLINE:
        return "main line"
    items = top.body.items if isinstance(top.body, core.Compound) else (top.body,)
    mainline = core.Simple(core.Keyword.MAINLINE)
    if core.Not(mainline) in items:
        return "variations only"
    return "main line" if mainline in items else "main line and variations"


def _settings_words(facts: ListFacts) -> str:
    """Marks and scope (read from the core query's list), :not and match counts."""
    pl = facts.source
    flags = {item.keyword for item in pl.items if isinstance(item, lt.Flag)}
    words = []
    if facts.top is not None:
        words.append(_MARK_WORDS[facts.top.mark])
        if facts.top.mark_end is not None:
            plies = facts.top.mark_end.plies
            words[-1] += f" where the :line's played moves end ({plies} half-moves on)"
        words.append(_scope_words(facts.top))
    if lt.FlagKeyword.NOT in flags:
        words.append("negated (:not)")
    for item in pl.items:
        if isinstance(item, lt.RangeTest) and item.keyword in (
            lt.RangeKeyword.MATCHCOUNT,
            lt.RangeKeyword.PRETRANSFORMMATCHCOUNT,
        ):
            words.append(f"matching at {_range_words(item.range)} positions")
    return "; ".join(words)


def _own_words(pl: lt.PositionList) -> list[str]:
    """The list's own items in plain words (its nested lists not included)."""
    return [
        w
        for item in pl.items
        if not isinstance(item, lt.ListOfLists) and (w := describe_item(item)) is not None
    ]


def _meaning(pl: lt.PositionList) -> str:
    """What the list's items test (its :not and transforms aside), on one line."""
    words = _own_words(pl)
    words += [
        w for item in pl.items if isinstance(item, lt.ListOfLists) if (w := describe_item(item))
    ]
    return "; ".join(words) or "any position"


def _is_negated(pl: lt.PositionList) -> bool:
    return any(isinstance(i, lt.Flag) and i.keyword is lt.FlagKeyword.NOT for i in pl.items)


def _transform_keywords(pl: lt.PositionList) -> tuple[lt.TransformKeyword, ...]:
    return tuple(item.keyword for item in pl.items if isinstance(item, lt.Transform))


def _frame_words(negated: bool, transforms: tuple[lt.TransformKeyword, ...]) -> str:
    """How a nested list's :not and transforms frame what its items test."""
    names = " ".join(f":{k.value}" for k in transforms)
    if negated and transforms:
        return f"holds when no {names} transform of this list matches: "
    if negated:
        return "holds when this list does not match (:not): "
    if transforms:
        return f"holds when some {names} transform of this list matches: "
    return ""


def _list_words(pl: lt.PositionList) -> str:
    """A nested list on one line: its :not and transforms, then what it tests."""
    return _frame_words(_is_negated(pl), _transform_keywords(pl)) + _meaning(pl)


# --------------------------------------------------------------------------------------
# The outline: every list of a script with its :not, transforms and nested lists
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class ListOutline(Record):
    """One position list as ``explain`` shows it: ``label`` (``1``, ``1.2``, …), whether
    it is negated, its transform keywords, its own items in words, and its nested lists
    grouped as the script groups them (``:and``, ``:or``, ``:sequence``, …).  The text and
    the page are written from it, and a test compares it with the translation."""

    label: str
    source: lt.PositionList
    negated: bool
    transforms: tuple[lt.TransformKeyword, ...]
    words: tuple[str, ...]
    groups: tuple[tuple[lt.ListKeyword, tuple[ListOutline, ...]], ...]

    def walk(self) -> Iterator[ListOutline]:
        """This list, then its nested lists, depth first in source order."""
        yield self
        for _, lists in self.groups:
            for nested in lists:
                yield from nested.walk()


def outline(pl: lt.PositionList, label: str) -> ListOutline:
    """The outline of ``pl`` and of the lists nested in it."""
    groups = []
    count = 0
    for item in pl.items:
        if isinstance(item, lt.ListOfLists):
            lists = []
            for nested in item.lists:
                count += 1
                lists.append(outline(nested, f"{label}.{count}"))
            groups.append((item.keyword, tuple(lists)))
    return ListOutline(
        label,
        pl,
        _is_negated(pl),
        _transform_keywords(pl),
        tuple(_own_words(pl)),
        tuple(groups),
    )


def _outline_lines(node: ListOutline, indent: str, *, top: bool) -> Iterator[str]:
    """``means:`` (a top-level list, whose settings and transforms have lines of their
    own) or the nested list's line, then each group of nested lists below it."""
    words = list(node.words)
    headers = [
        f"{'and ' if words or i else ''}{_GROUP_WORDS[k]}:" for i, (k, _) in enumerate(node.groups)
    ]
    if top:
        frame = _frame_words(node.negated, node.transforms) if node.negated else ""
        head = f"{indent}means: {frame}"
    else:
        span = node.source.span
        head = f"{indent}list {node.label} (line {span}): " + _frame_words(
            node.negated, node.transforms
        )
    first = "; ".join([*words, *headers[:1]]) or "any position"
    yield head + first
    for index, (_, lists) in enumerate(node.groups):
        if index:
            yield f"{indent}{headers[index]}"
        for nested in lists:
            yield from _outline_lines(nested, indent + "  ", top=False)


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
        as diagrams (:data:`MAX_DIAGRAMS` per list at most)."""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{_PAGE_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>"
            + self.fragment(shown=MAX_DIAGRAMS)
            + "</body></html>\n"
        )

    def fragment(self, *, shown: int = SHOWN_DIAGRAMS) -> str:
        """The explanation as one ``<div>`` to put in a page (a notebook's output): its
        styles apply inside it alone; ``shown`` diagrams per list, the others (up to
        :data:`MAX_DIAGRAMS`) behind a "show more"."""
        body = [f"<pre>{html.escape(self.text())}</pre>"]
        if self.facts is not None:
            body += [_members_html(facts, shown) for facts in self.facts.lists]
        return (
            f'<div class="{_SCOPE}"><style>{_FRAGMENT_CSS}</style>'
            + piece_sprites()
            + "".join(body)
            + "</div>"
        )

    def _repr_html_(self) -> str:
        return self.fragment()

    def __repr__(self) -> str:
        # A REPL shows an explanation as what it says.
        return self.text()


#: Each item class of ``match`` in plain words, as the game's condition it is.
MATCH_WORDS: Dispatcher[Callable[..., str]] = Dispatcher("explain's match item words")
MATCH_WORDS.absent(lt.MatchPath, reason="the input file: no condition on a game")
MATCH_WORDS.absent(lt.PositionList, reason="a position list: explained list by list")
MATCH_WORDS.absent(lt.Comment, reason="a comment says nothing of the game")


def _match_item_words(item: object) -> str | None:
    if type(item) in MATCH_WORDS.absent_classes():
        return None
    return MATCH_WORDS[type(item)](item)


@MATCH_WORDS.register(lt.Player)
def _player_words(item: lt.Player) -> str:
    return f"White or Black contains {item.name!r} (any case)"


@MATCH_WORDS.register(lt.ColorPlayer)
def _color_player_words(item: lt.ColorPlayer) -> str:
    side = "White" if item.keyword is lt.ColorPlayerKeyword.WHITEPLAYER else "Black"
    return f"{side} contains {item.name!r} (any case)"


@MATCH_WORDS.register(lt.TagWord)
def _tag_word_words(item: lt.TagWord) -> str:
    return f"{item.keyword.value.capitalize()} contains {item.word!r} (any case)"


@MATCH_WORDS.register(lt.NamedTag)
def _named_tag_words(item: lt.NamedTag) -> str:
    if item.word is None:
        return f"the game has a {item.name} tag"
    return f"{item.name} contains {item.word!r} (any case)"


@MATCH_WORDS.register(lt.MatchElo, lt.MatchRange, lt.RoundRange)
def _keyword_range_words(item: lt.MatchElo | lt.MatchRange | lt.RoundRange) -> str:
    words = f"{item.keyword.value} {_range_words(item.range)}"
    return f"{words} (0: none)" if isinstance(item, lt.RoundRange) else words


def _phrase(words: str, value: Callable[[Any], object]) -> Callable[[Any], str]:
    """The words of a match item that are a phrase and one value of it."""
    return lambda item: f"{words} {value(item)}"


MATCH_WORDS.register(lt.MatchResult)(_phrase("result", lambda item: item.result.value))
MATCH_WORDS.register(lt.EcoCodes)(_phrase("ECO code", lambda item: item.codes))
MATCH_WORDS.register(lt.DateRange)(_phrase("the game's date", lambda item: item.text))
MATCH_WORDS.register(lt.PlyCountRange)(
    _phrase("the game's half-moves", lambda item: _range_words(item.range))
)
MATCH_WORDS.register(lt.Terminations)(
    _phrase("the game ended:", lambda item: item.words.replace(",", " or "))
)


@MATCH_WORDS.register(lt.GameFeature)
def _game_feature_words(item: lt.GameFeature) -> str:
    what = {"hascomments": "a comment", "hasvariations": "a variation", "hasannotation": "a NAG"}
    return f"the game's movetext has {what[item.keyword.value]}"


@MATCH_WORDS.register(lt.EitherColor)
def _either_color_words(item: lt.EitherColor) -> str:
    return "the whole match as written, or with every colour swapped (:eithercolor)"


@MATCH_WORDS.register(lt.NegatedMatchItem)
def _negated_match_item_words(item: lt.NegatedMatchItem) -> str:
    return f"not ({MATCH_WORDS[type(item.item)](item.item)})"


@MATCH_WORDS.register(lt.ForAny)
def _for_any_words(item: lt.ForAny) -> str:
    return (
        f"for some piece ${item.name}: {describe_designator(item.designator)} at the start "
        "(:forany), followed through the game"
    )


def _list_lines(facts: ListFacts) -> Iterator[str]:
    yield f"list {facts.index} (line {facts.span}): {_settings_words(facts)}"
    yield from _outline_lines(outline(facts.source, str(facts.index)), "  ", top=True)
    if facts.form == "none":
        yield "  transforms: none"
        return
    names = " ".join(f":{k.value}" for k in facts.keywords)
    never = f", {len(facts.never)} of which can never match" if facts.never else ""
    yield (
        f"  transforms: {names} -- {facts.transform_count} transforms in the legacy set, "
        f"{len(facts.members)} distinct transformed lists{never}"
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
            f"  CQL 6: an explicit union of the {len(facts.matchable())} lists that can match, "
            "because " + "; ".join(facts.reasons)
        )
    else:
        yield "  CQL 6: every transformed list means the same: the list is written once"


# ---- diagrams of transformed lists ---------------------------------------------------------
#
# A diagram draws what must stand on the board for the list to match: a designator of one
# piece on one square as that piece; one of several pieces or squares as faded pieces (a
# letter for a larger set of types, a ring for an empty square) on each square it allows.
# Designators under a :not, an :or, a sequence or transforms of their own are not drawn
# (the text says them), nor those that allow any square.  A member that can never match,
# and a diagram with nothing on it, are left out.

_MARK_FILL = "#f2d16b99"  # a square where the list allows something
_SQUARE = 45  # chess.svg's square, in the units of its viewBox
_MARGIN = 15  # chess.svg's border with coordinates


def _drawn_designators(pl: lt.PositionList) -> Iterator[tuple[lt.Designator, str, bool]]:
    """The designators that must hold at the position itself, in source order, with their
    caption and whether one piece on one square may be drawn as standing there (not for
    a :piececount, which asks for a number of them)."""
    for item in pl.items:
        if isinstance(item, lt.Designator):
            yield item, designator_text(item), True
        elif isinstance(item, lt.PieceCount) and item.range.lo >= 1:
            text = f":piececount {designator_text(item.designator)} {range_text(item.range)}"
            yield item.designator, text, False
        elif isinstance(item, lt.MoveTest) and item.keyword is lt.MoveKeyword.MOVEFROM:
            # The piece the next move takes away stands on its square now.
            yield item.designator, f":movefrom {designator_text(item.designator)}", True
        elif isinstance(item, lt.ListOfLists):
            for nested in _held_here(item):
                if not _is_negated(nested) and not _transform_keywords(nested):
                    yield from _drawn_designators(nested)


def _held_here(group: lt.ListOfLists) -> tuple[lt.PositionList, ...]:
    """The lists of a group that hold at the position itself: all of an :and, the first
    of a :sequence; of an :or any one may, of a :gappedsequence the first may hold later."""
    if group.keyword is lt.ListKeyword.AND:
        return group.lists
    if group.keyword is lt.ListKeyword.SEQUENCE:
        return group.lists[:1]
    return ()


Mark = tuple[chess.Color, chess.PieceType] | str


def _member_drawing(
    member: lt.PositionList,
) -> tuple[chess.Board, dict[int, list[Mark]], list[str]]:
    """The pieces that must stand where they are, the marks of the squares that allow one
    of several things, and the captions of what is drawn."""
    board = chess.Board.empty()
    marks: dict[int, list[Mark]] = {}
    drawn: list[str] = []
    for d, caption, solid in _drawn_designators(member):
        if d.tag is not None or d.types == 0 or d.squares in (0, FULL):
            continue
        kinds = piece_types_in(d.types)
        drawn.append(caption)
        one = len(kinds) == 1 and not d.types & EMPTY_BIT and popcount(d.squares) == 1
        if solid and one:
            color, piece_type = kinds[0]
            board.set_piece_at(d.squares.bit_length() - 1, chess.Piece(piece_type, color))
            continue
        square_marks: list[Mark] = []
        if len(kinds) <= 2:
            square_marks += kinds
        elif kinds:
            square_marks.append(format_legacy_types(d.types & ~EMPTY_BIT))
        if d.types & EMPTY_BIT:
            square_marks.append(".")
        for square in chess.SquareSet(d.squares):
            for mark in square_marks:
                if mark not in marks.setdefault(square, []):
                    marks[square].append(mark)
    return board, marks, list(dict.fromkeys(drawn))


def _mark_svg(mark: Mark, x: float, y: float, scale: float) -> str:
    if isinstance(mark, tuple):
        color, piece_type = mark
        name = f"{'white' if color else 'black'}-{chess.piece_name(piece_type)}"
        return (
            f'<use href="#{name}" transform="translate({x:g}, {y:g}) scale({scale:g})" '
            'opacity="0.5" />'
        )
    size = _SQUARE * scale
    if mark == ".":
        return (
            f'<circle cx="{x + size / 2:g}" cy="{y + size / 2:g}" r="{size / 4:g}" '
            'fill="none" stroke="#333" stroke-width="2" />'
        )
    return (
        f'<text x="{x + size / 2:g}" y="{y + size * 0.68:g}" font-size="{size * 0.45:g}" '
        f'text-anchor="middle" font-family="sans-serif" fill="#7a1a00">{html.escape(mark)}</text>'
    )


def _marks_svg(marks: dict[int, list[Mark]]) -> str:
    out = []
    for square, found in marks.items():
        x = _MARGIN + _SQUARE * chess.square_file(square)
        y = _MARGIN + _SQUARE * (7 - chess.square_rank(square))
        if len(found) == 1:
            out.append(_mark_svg(found[0], x, y, 1))
            continue
        # Two marks side by side in the middle of the square, more in its quarters.
        top = y + _SQUARE / 4 if len(found) == 2 else y
        for i, mark in enumerate(found[:4]):
            out.append(
                _mark_svg(mark, x + _SQUARE / 2 * (i % 2), top + _SQUARE / 2 * (i // 2), 0.5)
            )
    return "".join(out)


def member_diagram(member: lt.PositionList, *, size: int = 180) -> tuple[str, str] | None:
    """A member's diagram (SVG for a page holding :func:`piece_sprites`) and its caption,
    or None when nothing would be drawn."""
    board, marks, drawn = _member_drawing(member)
    if not marks and not board.occupied:
        return None
    svg = inline_diagram(board, size=size, coordinates=True)
    return _filled(svg, marks), " ".join(drawn)


def _filled(svg: str, marks: dict[int, list[Mark]]) -> str:
    """``svg`` with the marked squares shaded (over the squares, under the pieces) and
    the marks drawn on top."""
    shades = "".join(
        f'<rect x="{_MARGIN + _SQUARE * chess.square_file(sq)}" '
        f'y="{_MARGIN + _SQUARE * (7 - chess.square_rank(sq))}" width="{_SQUARE}" '
        f'height="{_SQUARE}" fill="{_MARK_FILL}" />'
        for sq in marks
    )
    pieces = [i for i in (svg.find('<use href="#white-'), svg.find('<use href="#black-')) if i >= 0]
    end = svg.rindex("</svg>")
    at = min(pieces, default=end)
    return svg[:at] + shades + svg[at:end] + _marks_svg(marks) + svg[end:]


def _members_html(facts: ListFacts, shown: int) -> str:
    matchable = facts.matchable()
    figures: dict[str, str] = {}
    for member in matchable:
        drawing = member_diagram(member)
        if drawing is None:
            continue
        svg, label = drawing
        if svg not in figures:
            caption = f"<figcaption>{html.escape(label)}</figcaption>"
            figures[svg] = f'<figure class="member">{svg}{caption}</figure>'
        if len(figures) == MAX_DIAGRAMS:
            break
    cells = list(figures.values())
    notes = []
    never = len(facts.members) - len(matchable)
    if never:
        notes.append(f"{never} of the transformed lists can never match: not drawn.")
    if not cells:
        notes.append("No diagram: the list names no piece on particular squares.")
    elif len(cells) < len(matchable):
        notes.append(
            f"{len(cells)} diagrams for {len(matchable)} transformed lists: the others draw "
            "the same picture (they differ in what the text says), or more than "
            f"{MAX_DIAGRAMS} would be drawn."
        )
    more = ""
    if len(cells) > shown:
        more = (
            f'<details><summary>show {len(cells) - shown} more</summary><div class="members">'
            + "".join(cells[shown:])
            + "</div></details>"
        )
    legend = (
        '<p class="legend">A piece: that piece on that square. Faded pieces, letters (piece '
        "types) and rings (an empty square) on shaded squares: one of them on one of those "
        "squares. What the text says besides is not drawn.</p>"
        if cells
        else ""
    )
    return (
        f'<section class="list"><h2>{html.escape(_heading(facts))}</h2>{legend}'
        f'<div class="members">{"".join(cells[:shown])}</div>{more}'
        + "".join(f"<p>{html.escape(n)}</p>" for n in notes)
        + "</section>"
    )


def _heading(facts: ListFacts) -> str:
    if facts.form == "none":
        return f"List {facts.index}"
    count = len(facts.members)
    return f"List {facts.index}: {count} distinct transformed list{'s' if count > 1 else ''}"


#: The class of the element that holds an explanation; every style rule starts with it.
_SCOPE = "cqllegacy-explain"

_FRAGMENT_CSS = f"""
.{_SCOPE}{{font-family:system-ui,sans-serif;color:#222}}
.{_SCOPE} pre{{white-space:pre-wrap;background:#f6f6f6;color:#222;padding:.8em;margin:0 0 1em;
  font-family:ui-monospace,monospace;font-size:13px}}
.{_SCOPE} h2{{font-size:1.1em;margin:1em 0 .4em;color:#222}}
.{_SCOPE} .members{{display:flex;flex-wrap:wrap;gap:.6em}}
.{_SCOPE} figure.member{{margin:0;width:180px;font-size:12px;text-align:center}}
.{_SCOPE} p{{font-size:13px;margin:.4em 0}}
.{_SCOPE} .legend{{font-size:12px;color:#555}}
.{_SCOPE} summary{{cursor:pointer;margin:.4em 0}}
"""

_PAGE_CSS = "body{margin:1.5em;font-family:system-ui,sans-serif}"
