"""Scidb's ``:line ( … )``: its move-pattern language, read as standard CQL 3 (X3).

The text between the parentheses is a list of move tokens, in game order.  Each token
describes one half-move: a piece designator for the piece that moves (and the square it
leaves), a separator, a designator for the destination, then suffixes.

- ``Nf3-e5``: the destination is empty.  ``Nf3xe5``: it holds a piece (a capture).
  ``Nf3:e5``: either.  ``Nxe5`` leaves out the origin square; ``Ne5`` is ``N??-e5``;
  ``N`` alone is any knight move to an empty square.
- ``bxQ``: a black bishop captures a white queen.  ``[RB]d8``: a white rook or bishop
  goes to an empty d8.  Bracket classes are read as everywhere (``b[bg]7x?1``).
- ``O-O``, ``O-O-O``, ``O-O-O-O`` (either castling of the side to move), ``K-K``,
  ``K-Q``, ``K-KQ`` and the black ``k-k``, ``k-q``, ``k-kq``.  ``--`` is any move.
- ``=Q`` a promotion; a separate ``ep`` after a capture: it is en passant.
- Suffixes: ``+`` check, ``++`` double check, ``+++`` contact check, ``#`` mate, and
  their negations ``-``, ``--``, ``---``, ``*`` (no mate).  ``!``: the only legal move.
- ``1.`` or ``1...`` before a token: the move number (then every White move has its
  number, and piece letters take the mover's colour, as in PGN).
- ``|`` separates the played moves from the hypothetical continuation.

The played moves become a ``:sequence`` of position lists with ``:movefrom``,
``:moveto``, ``:promote``, ``:enpassant`` and the check keywords (:func:`line_item`),
so they run on every path and translate like their standard spelling.  The moves after
``|``, and ``!``, need legal moves the game did not play: they become one
:class:`~.tree.HypotheticalMoves` item, which CQL 6.1 cannot say.  What the reader
cannot build exactly is refused with the reason (:class:`MoveError`, at its place in
the text).

>>> moves = read_moves("Nxe5 bxQ Bxf7+", 0)
>>> [move.text for move in moves.played]
['Nxe5', 'bxQ', 'Bxf7+']
>>> try:
...     read_moves("Pe2-e4 Ng8-f6", 0)
... except MoveError as error:
...     print(error.offset, error.message)
7 the colours of the moves must alternate: 'Ng8-f6' is White's move where Black moves
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import attrs
import chess

from cqllegacy.legacy import dialects
from cqllegacy.legacy import tree as t
from cqllegacy.legacy.lexical import AtomError, parse_designator
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    BLACK_SHIFT,
    EMPTY_BIT,
    WHITE_PIECES,
    TypeSet,
    legacy_types,
    types_of,
)
from cqllegacy.vocab.squares import FULL, SquareSet

__all__ = ["ONLY_MOVE", "LineMoves", "MoveError", "MovePattern", "line_item", "read_moves"]


class MoveError(ValueError):
    """A mistake in a ``:line`` argument; ``offset`` is where, in the script's text."""

    def __init__(self, message: str, offset: int, text: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.text = text
        self.hint = hint


# --------------------------------------------------------------------------------------
# One move token
# --------------------------------------------------------------------------------------

_LETTERS = "KQRBNPkqrbnpAaMmIiU"
_PIECE = rf"[{_LETTERS}?]|\[[{_LETTERS}]+\]"
_TARGET_PIECE = rf"[{_LETTERS}]|\[[{_LETTERS}]+\]"
_FILE = r"[a-h?](?:-[a-h])?|\[[a-h,-]+\]"
_RANK = r"[1-8?](?:-[1-8])?|\[[1-8,-]+\]"
_SQUARES = rf"(?:{_FILE})(?:{_RANK})|\[[a-h1-8,-]+\]"
_CASTLING = r"O-O-O-O|O-O-O|O-O|0-0-0-0|0-0-0|0-0|[Kk]-(?:[Kk][Qq]|[Kk]|[Qq])"
_MOVE = re.compile(
    rf"""(?P<number>[0-9]+\.(?:\.\.)?)?
    (?:(?P<castling>{_CASTLING})
      |(?P<any>--)
      |(?P<origin>{_PIECE})?(?P<from>{_SQUARES})?
       (?:(?P<sep>[x:])(?P<captured>{_TARGET_PIECE})?(?P<to>{_SQUARES})?
         |-(?P<empty_piece>{_TARGET_PIECE})?(?P<empty_to>{_SQUARES}))?
       (?:=(?P<promotion>{_PIECE}))?)
    (?P<check>\#|\+\+\+|\+\+|\+|---|--|-)?(?P<nomate>\*)?(?P<forced>!)?""",
    re.VERBOSE,
)
#: What a move token looks like, for messages.
_EXPECTED = "a move such as Nf3-e5, Nxe5, bxQ, [RB]d8#, O-O, -- or 1.e2-e4"

#: Which check suffix asks what of the position after the move (negated: it must not hold).
_CHECKS = {
    "+": ("check", False),
    "++": ("doublecheck", False),
    "+++": ("contactcheck", False),
    "#": ("mate", False),
    "-": ("check", True),
    "--": ("doublecheck", True),
    "---": ("contactcheck", True),
}


@attrs.frozen(repr=False)
class MovePattern(Record):
    """One move token, read.  ``color`` is True for White, False for Black, None when
    the token does not say; ``number`` is its move number as written (``2...``) and
    ``ply`` the half-moves before it that the numbers give (0 before ``1.``)."""

    text: str
    offset: int
    origin: t.Designator
    target: t.Designator
    promotion: t.Designator | None = None
    enpassant: bool = False
    checks: tuple[tuple[str, bool], ...] = ()
    forced: bool = False
    color: bool | None = None
    number: str | None = None
    ply: int | None = None


@attrs.frozen(repr=False)
class LineMoves(Record):
    """A whole ``:line`` argument: the played moves, the hypothetical ones after ``|``
    (``None`` without ``|``), where the ``|`` stands, and the argument's text (its
    tokens separated by single spaces)."""

    played: tuple[MovePattern, ...]
    hypothetical: tuple[MovePattern, ...] | None = None
    bar: int | None = None
    text: str = ""

    @property
    def numbered(self) -> bool:
        return any(move.number is not None for move in (*self.played, *(self.hypothetical or ())))


def _tokens(text: str, base: int) -> Iterator[tuple[str, int]]:
    for found in re.finditer(r"\||[^\s|]+", text):
        yield found.group(), base + found.start()


def _squares(text: str | None, offset: int, token: str) -> SquareSet:
    if text is None:
        return FULL
    try:
        return parse_designator("?" + text).squares
    except AtomError as exc:
        raise MoveError(exc.message, offset, token, hint=_EXPECTED) from None


def _color_of(types: TypeSet) -> bool | None:
    if types and not types & ~WHITE_PIECES:
        return True
    if types and not types & ~BLACK_PIECES:
        return False
    return None


#: Where the king of either colour goes in each castling of the side to move.
_CASTLING_TARGETS = {"O-O": "[g1,g8]", "O-O-O": "[c1,c8]", "O-O-O-O": "[c1,c8,g1,g8]"}


def _castling(text: str) -> tuple[t.Designator, t.Designator, bool | None]:
    """The king move of a castling token: from e1/e8 to the g- or c-file, empty."""
    if text[0] in "O0":
        target = _CASTLING_TARGETS[text.replace("0", "O")]
        return parse_designator("[Kk][e1,e8]"), parse_designator("." + target), None
    white = text[0] == "K"
    rank = "1" if white else "8"
    sides = text[2:].upper()
    files = ",".join(f"{'g' if side == 'K' else 'c'}{rank}" for side in sides)
    king = parse_designator(f"{text[0]}e{rank}")
    return king, parse_designator(f".[{files}]"), white


#: Scidb's move forms the reader refuses, and why (X5).
_REFUSED_FORMS = (
    ("@", "a drop (`@`), which belongs to a chess variant"),
    ("~", "a promoted-piece mark (`~`), which the help does not define for a PGN game"),
)


def _read_move(text: str, offset: int) -> MovePattern:
    if text == "null":
        raise MoveError(
            "Scidb extension `:line` with a null move: the help leaves `:isnull` undefined",
            offset,
            text,
        )
    for mark, what in _REFUSED_FORMS:
        if mark in text:
            raise MoveError(f"Scidb extension `:line` with {what}", offset, text)
    found = _MOVE.fullmatch(text)
    if found is None or not text.strip("0123456789."):
        raise MoveError(f"not a move: {text!r}", offset, text, hint=_EXPECTED)
    part = found.groupdict()
    check, nomate = part["check"], part["nomate"]
    checks = (() if check is None else (_CHECKS[check],)) + ((("mate", True),) if nomate else ())
    if part["castling"]:
        origin, target, color = _castling(part["castling"])
        shape = MovePattern(text, offset, origin, target, color=color)
    elif part["any"]:
        shape = MovePattern(text, offset, t.Designator(ANY_PIECE), t.Designator(ANYTHING))
    else:
        shape = _piece_move(part, text, offset)
    return attrs.evolve(shape, checks=checks, forced=bool(part["forced"]), number=part["number"])


def _capturer(captured: TypeSet) -> TypeSet:
    """Who moves when only the captured piece is named: the other colour (``xm`` is a
    white piece taking a black major piece, as the help spells it)."""
    color = _color_of(captured)
    if color is None:
        return ANY_PIECE
    return BLACK_PIECES if color else WHITE_PIECES


def _only_pawns(types: TypeSet) -> bool:
    return bool(types) and not types & ~types_of("Pp")


def _piece_move(part: dict[str, str | None], text: str, offset: int) -> MovePattern:
    origin = part["origin"]
    origin_types = ANY_PIECE if origin is None else legacy_types(origin) & ANY_PIECE
    from_squares = _squares(part["from"], offset, text)
    sep = part["sep"]
    captured, to = part["captured"], part["to"]
    if sep is None and part["empty_to"] is not None:
        sep, captured, to = "-", part["empty_piece"], part["empty_to"]
    if sep is None:
        # Ne5 is N??-e5: a square without a separator is the destination.
        sep, to, from_squares = "-", part["from"], FULL
    if sep == "-" and captured is not None:
        raise MoveError(
            f"`-` moves to an empty square, which holds no {captured}: {text!r}",
            offset,
            text,
            hint="a capture is written with x, a move to either with :",
        )
    to_squares = _squares(to, offset, text)
    target_types = EMPTY_BIT
    if sep != "-":
        target_types = ANY_PIECE if captured is None else legacy_types(captured) & ANY_PIECE
        if sep == ":":
            target_types |= EMPTY_BIT
    if origin is None:
        origin_types = _capturer(target_types & ANY_PIECE)
    promotion = part["promotion"]
    promoted = None
    if promotion is not None:
        promoted = t.Designator(legacy_types(promotion) & ANY_PIECE, to_squares)
    elif _only_pawns(origin_types) and not to_squares & ~(chess.BB_RANK_1 | chess.BB_RANK_8):
        raise MoveError(
            f"a promotion names its new piece: {text!r}",
            offset,
            text,
            hint="write =Q, =N … after the destination",
        )
    return MovePattern(
        text,
        offset,
        t.Designator(origin_types, from_squares),
        t.Designator(target_types, to_squares),
        promotion=promoted,
        color=_color_of(origin_types),
    )


# --------------------------------------------------------------------------------------
# The whole argument
# --------------------------------------------------------------------------------------


def read_moves(text: str, base: int) -> LineMoves:
    """Read the text between the parentheses of ``:line``; ``base`` is its offset in the
    script, so that a :class:`MoveError` points at the script."""
    played: list[MovePattern] = []
    hypothetical: list[MovePattern] | None = None
    bar: int | None = None
    for token, offset in _tokens(text, base):
        current = played if hypothetical is None else hypothetical
        if token == "|":
            if hypothetical is not None:
                raise MoveError("a second `|` in `:line`", offset, token)
            hypothetical, bar = [], offset
            continue
        if token == "ep":
            _enpassant(current, offset)
            continue
        current.append(_read_move(token, offset))
    if hypothetical is not None and not hypothetical:
        raise MoveError("no move after `|` in `:line`", bar or base, "|")
    if not played and hypothetical is None:
        raise MoveError("`:line` needs at least one move", base, "", hint=_EXPECTED)
    moves = [*played, *(hypothetical or ())]
    numbered = _numbered(moves)
    return LineMoves(
        tuple(numbered[: len(played)]),
        None if hypothetical is None else tuple(numbered[len(played) :]),
        bar,
        " ".join(token for token, _ in _tokens(text, base)),
    )


def _enpassant(moves: list[MovePattern], offset: int) -> None:
    if not moves or moves[-1].target.types & EMPTY_BIT or moves[-1].enpassant:
        raise MoveError("`ep` follows a capture such as Pd5xe6", offset, "ep")
    last = moves[-1]
    if last.target.types != ANY_PIECE:
        raise MoveError(
            f"an en passant capture takes a pawn from an empty square: {last.text!r}",
            last.offset,
            last.text,
        )
    moves[-1] = attrs.evolve(
        last, target=t.Designator(EMPTY_BIT, last.target.squares), enpassant=True
    )


def _numbered(moves: list[MovePattern]) -> list[MovePattern]:
    """Check the move numbers (or the alternation of colours without them), and give the
    piece letters of numbered moves the mover's colour."""
    if not any(move.number for move in moves):
        _alternate(moves)
        return moves
    first = moves[0]
    if first.number is None:
        raise MoveError(
            "move numbers are used for all moves or none: the first move has none",
            first.offset,
            first.text,
        )
    ply = _ply(first.number)
    out = []
    for index, move in enumerate(moves):
        expected = ply + index
        if move.number is not None and _ply(move.number) != expected:
            raise MoveError(
                f"move number {move.number!r} does not follow: this is {_number_text(expected)}",
                move.offset,
                move.text,
            )
        if move.number is None and expected % 2 == 0 and index:
            raise MoveError(
                f"a White move needs its number with move numbers: {_number_text(expected)}",
                move.offset,
                move.text,
            )
        out.append(_in_colour(move, expected % 2 == 0, expected))
    return out


def _ply(number: str) -> int:
    """Half-moves before the move: 0 before ``1.``, 1 before ``1...``."""
    full = int(number.rstrip("."))
    return 2 * (full - 1) + (1 if number.endswith("...") else 0)


def _number_text(ply: int) -> str:
    return f"{ply // 2 + 1}." + ("" if ply % 2 == 0 else "..")


def _fold(types: TypeSet, white: bool) -> TypeSet:
    kinds = (types | types >> BLACK_SHIFT) & WHITE_PIECES
    return kinds if white else kinds << BLACK_SHIFT


def _in_colour(move: MovePattern, white: bool, ply: int) -> MovePattern:
    if move.target.types & ANY_PIECE not in (0, ANY_PIECE):
        raise MoveError(
            "with move numbers the help does not say whose pieces the captured piece's "
            f"letters name: {move.text!r}",
            move.offset,
            move.text,
            hint="leave out the move numbers and write the colours as CQL letters",
        )
    origin = attrs.evolve(move.origin, types=_fold(move.origin.types, white))
    promotion = move.promotion
    if promotion is not None:
        promotion = attrs.evolve(promotion, types=_fold(promotion.types, white))
    return attrs.evolve(move, origin=origin, promotion=promotion, color=white, ply=ply)


def _alternate(moves: list[MovePattern]) -> None:
    known = [(index, move) for index, move in enumerate(moves) if move.color is not None]
    if not known:
        return
    first_index, first = known[0]
    for index, move in known[1:]:
        expected = first.color if (index - first_index) % 2 == 0 else not first.color
        if move.color != expected:
            mover = "White" if move.color else "Black"
            other = "Black" if move.color else "White"
            raise MoveError(
                f"the colours of the moves must alternate: {move.text!r} is {mover}'s move "
                f"where {other} moves",
                move.offset,
                move.text,
                hint="use move numbers (1.e2-e4) or lowercase letters for Black",
            )


# --------------------------------------------------------------------------------------
# The played moves as standard CQL 3
# --------------------------------------------------------------------------------------


def _move_number(move: MovePattern) -> list[t.PositionItem]:
    """The side to move and move number a numbered move is played at (else nothing)."""
    ply = move.ply
    if ply is None:
        return []
    white = ply % 2 == 0
    # L8: the move number is the full-move counter less one with White to move,
    # the counter itself with Black to move.
    number = ply // 2 if white else ply // 2 + 1
    return [
        t.Flag(t.FlagKeyword.WTM if white else t.FlagKeyword.BTM),
        t.RangeTest(t.RangeKeyword.MOVENUMBER, t.Range(number, number)),
    ]


def _before(move: MovePattern) -> list[t.PositionItem]:
    """What the position a move is played from must show."""
    items = _move_number(move)
    items.append(t.MoveTest(t.MoveKeyword.MOVEFROM, move.origin))
    if move.target != t.Designator(ANYTHING):
        items.append(t.MoveTest(t.MoveKeyword.MOVETO, move.target))
    if move.promotion is not None:
        items.append(t.MoveTest(t.MoveKeyword.PROMOTE, move.promotion))
    if move.enpassant:
        items.append(t.Flag(t.FlagKeyword.ENPASSANT))
    return items


def _check_item(name: str) -> t.PositionItem:
    if name in ("check", "mate"):
        return t.Flag(t.FlagKeyword(name))
    return dialects.POSITION_MACROS[name](t.NO_SPAN)


def _after(move: MovePattern) -> list[t.PositionItem]:
    """What the position a move leads to must show (its check suffixes)."""
    items: list[t.PositionItem] = []
    for name, negated in move.checks:
        item = _check_item(name)
        items.append(dialects.negated(item, t.NO_SPAN) if negated else item)
    return items


def _line_move(move: MovePattern) -> t.LineMove:
    return t.LineMove(
        move.origin, move.target, move.promotion, move.enpassant, move.checks, move.forced
    )


#: ``!`` after a played move: the position it is played from has one legal move.
ONLY_MOVE = t.HypotheticalMoves(
    (t.LineMove(t.Designator(ANY_PIECE), t.Designator(ANYTHING), forced=True),)
)


def line_item(moves: LineMoves) -> t.PositionItem:
    """What a ``:line`` is read as: a ``:sequence`` of position lists, list i holding what
    the position before move i+1 shows (with :data:`ONLY_MOVE` for ``!``) and the check
    suffixes of move i; the moves after ``|`` stand in the list of the position the
    played moves reach.  The first move's number fixes the others'."""
    played = moves.played
    lists: list[list[t.PositionItem]] = [[] for _ in range(len(played) + 1)]
    for index, move in enumerate(played):
        lists[index].extend(_before(move if index == 0 else attrs.evolve(move, ply=None)))
        if move.forced:
            lists[index].append(ONLY_MOVE)
        lists[index + 1].extend(_after(move))
    if moves.hypothetical is not None:
        hypothetical = tuple(_line_move(move) for move in moves.hypothetical)
        lists[-1].append(t.HypotheticalMoves(hypothetical))
        if not played:
            lists[-1][:0] = _move_number(moves.hypothetical[0])
    if not lists[-1]:
        lists.pop()
    if len(lists) == 1 and len(lists[0]) == 1 and isinstance(lists[0][0], t.HypotheticalMoves):
        return lists[0][0]  # ``:line (| …)``, as the printer writes the item
    position_lists = tuple(t.PositionList(tuple(items)) for items in lists)
    keyword = t.ListKeyword.SEQUENCE if len(position_lists) > 1 else t.ListKeyword.AND
    return t.ListOfLists(keyword, position_lists, line=moves.text)
