"""The moves of a game's movetext, found where python-chess's reader finds them.

:func:`scan_movetext` walks the movetext of a :class:`~cqllegacy.runner.pgn.GameText`
the way ``chess.pgn.read_game`` (python-chess 1.11) does, without a board: line by line,
``%`` escape lines and ``;`` lines skipped at a line start, ``{…}`` comments across
lines, ``;`` comments to the end of the line, a blank line ending the game, and the
tokens of ``chess.pgn.MOVETEXT_REGEX`` (reused, not copied: ``+`` and ``#`` are no part
of a move token, so they are skipped like move numbers).  A ``(`` before the first move
of the game is ignored and so is a ``)`` with no variation open, as python-chess does.

Every move token becomes a :class:`MoveToken` that knows the report's name of the
position the move produces (:func:`~cqllegacy.runner.report.position_key`), so a
game's text can be annotated, and its positions named, without replaying a move.
The moves are assumed legal: on a game python-chess reads without an error the tokens
are exactly its game nodes, in the order its exporter writes them.

>>> moves = scan_movetext("1. e4 $1 {centre} e5 (1... c5+! 2. Nf3) 2. Nf3 *\\n")
>>> [(m.key, m.san) for m in moves.moves]
[(1, 'e4'), (2, 'e5'), ('2.1', 'c5'), ('2.1/3', 'Nf3'), (3, 'Nf3')]
>>> text = "1. e4 $1 {centre} e5 (1... c5+! 2. Nf3) 2. Nf3 *\\n"
>>> c5 = moves.moves[2]
>>> text[c5.start : c5.word_end], text[c5.start : c5.annotated_end]
('c5+!', 'c5+!')
>>> e4 = moves.moves[0]
>>> text[e4.start : e4.word_end], text[e4.start : e4.annotated_end]
('e4', 'e4 $1 {centre}')
>>> moves.game_order()
[0, 1, 2, 3, '2.1', '2.1/3']
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator

import attrs
import chess.pgn

from cqllegacy.records import Record

__all__ = [
    "START", "MoveToken", "Movetext", "PositionKey", "plain_word_ends", "scan_movetext",
]

#: A position's name in the report: a main-line ply, or a path through variations.
PositionKey = int | str

#: The name of the start position.
START: PositionKey = 0

_TOKENS = chess.pgn.MOVETEXT_REGEX
_RESULTS = frozenset(("1-0", "0-1", "1/2-1/2", "*"))
#: Characters that may follow a move in the same word without being a move themselves.
_SUFFIXES = frozenset("+#!?")
_SKIPPED_LINE_STARTS = ("%", ";")


@attrs.frozen(repr=False, slots=True)
class MoveToken(Record):
    """One move of the movetext.

    ``key`` names the position the move produces.  ``start`` and ``end`` delimit the move
    token in the movetext; ``word_end`` is the end of the whole word (check, mate and
    annotation signs glued to it), ``annotated_end`` the end of the NAGs and ``{…}``
    comments that follow the move before the next move or bracket (python-chess makes
    them the move's comment; ``;`` comments, ``%`` lines and the result between them
    change nothing), or ``word_end`` when none follows.  ``parent`` is the position the
    move is played from (0 the start position, ``i + 1`` the position after
    ``moves[i]``) and ``choice`` its index among that position's continuations (0 the
    main one).
    """

    key: PositionKey
    san: str
    start: int
    end: int
    word_end: int
    annotated_end: int
    parent: int
    choice: int


@attrs.frozen(repr=False)
class Movetext(Record):
    """The moves of a movetext in text order; ``start_annotated_end`` is the end of the
    comments and NAGs before the first move (0 when none), where a comment of the start
    position can go; ``first_move`` the offset of the first move token (the text's
    length when there is none)."""

    moves: tuple[MoveToken, ...]
    first_move: int
    start_annotated_end: int

    @property
    def mainline_length(self) -> int:
        """The number of positions of the main line, the start position included."""
        return 1 + sum(1 for move in self.moves if isinstance(move.key, int))

    def game_order(self) -> list[PositionKey]:
        """Every position's key, depth first with the main continuation before the
        variations (the evaluator's order: the main line comes first)."""
        children: list[list[int]] = [[] for _ in range(len(self.moves) + 1)]
        for index, move in enumerate(self.moves, start=1):
            children[move.parent].append(index)  # text order is choice order
        keys = [START, *(move.key for move in self.moves)]
        return [keys[position] for position in _preorder(children)]


def _preorder(children: list[list[int]]) -> Iterator[int]:
    # An explicit stack: variations may nest deeper than Python's recursion limit.
    stack = [0]
    while stack:
        position = stack.pop()
        yield position
        stack.extend(reversed(children[position]))


@attrs.define(repr=False, slots=True)
class _Position(Record):
    """A position of the game tree being rebuilt: what naming its continuations needs."""

    ply: int
    #: The variation steps of its key ("2.1/4.1"); "" on the main line.
    steps: str
    parent: int
    continuations: int = 0


def _named(steps: str, ply: int, choice: int) -> tuple[str, PositionKey]:
    """The variation steps and the key of the position reached at ``ply`` by
    continuation ``choice`` from a position whose steps are ``steps``.

    >>> _named("", 3, 0), _named("", 3, 1), _named("2.1", 3, 0), _named("2.1", 3, 2)
    (('', 3), ('3.1', '3.1'), ('2.1', '2.1/3'), ('2.1/3.2', '2.1/3.2'))
    """
    if choice:
        branched = f"{steps}/{ply}.{choice}" if steps else f"{ply}.{choice}"
        return branched, branched
    return steps, f"{steps}/{ply}" if steps else ply


@attrs.define(repr=False)
class _Walk(Record):
    """The state of :func:`scan_movetext`: the positions so far, the position reached in
    each open line (the main line first), and where the last move's annotations end."""

    text: str
    positions: list[_Position] = attrs.Factory(lambda: [_Position(0, "", -1)])
    lines: list[int] = attrs.Factory(lambda: [0])
    #: Per move: key, token, start, end, word end, parent, choice (annotated ends apart).
    found: list[tuple[PositionKey, str, int, int, int, int, int]] = attrs.Factory(list)
    #: ``annotated_ends[0]`` for the start position, ``[i + 1]`` for move i.
    annotated_ends: list[int] = attrs.Factory(lambda: [0])
    #: Whether only NAGs and comments (and tokens that change nothing, results and ``;``
    #: comments) have come since the last move (or the start).
    annotating: bool = True
    #: The last main-line ply asked for (None: all); reaching the next one ends the walk,
    #: since every move before it has all its annotations by then.
    through: int | None = None
    done: bool = False

    def move(self, san: str, start: int, end: int, line_end: int) -> None:
        if (
            self.through is not None
            and len(self.lines) == 1
            and self.positions[self.lines[0]].ply >= self.through
        ):
            self.done = True  # a main-line move past the last one asked for
            return
        word_end = end
        text = self.text
        while word_end < line_end and text[word_end] in _SUFFIXES:
            word_end += 1
        parent_index = self.lines[-1]
        parent = self.positions[parent_index]
        choice = parent.continuations
        parent.continuations += 1
        ply = parent.ply + 1
        steps, key = _named(parent.steps, ply, choice)
        self.lines[-1] = len(self.positions)
        self.positions.append(_Position(ply, steps, parent_index))
        self.found.append((key, san, start, end, word_end, parent_index, choice))
        self.annotated_ends.append(word_end)
        self.annotating = True

    def annotation(self, end: int) -> None:
        """A NAG or a comment ending at ``end``: python-chess gives it to the last move
        (or to the start position) when nothing but annotations came in between."""
        if self.annotating:
            self.annotated_ends[-1] = end

    def open_variation(self) -> None:
        self.annotating = False
        current = self.lines[-1]
        if current != 0:  # at the start position there is no move to be an alternative to
            self.lines.append(self.positions[current].parent)

    def close_variation(self) -> None:
        self.annotating = False
        if len(self.lines) > 1:
            self.lines.pop()

    def result(self) -> Movetext:
        moves = tuple(
            MoveToken(key, san, start, end, word_end, annotated_end, parent, choice)
            for (key, san, start, end, word_end, parent, choice), annotated_end in zip(
                self.found, self.annotated_ends[1:], strict=True
            )
        )
        first = moves[0].start if moves else len(self.text)
        return Movetext(moves, first, self.annotated_ends[0])


# One entry: a matching game's movetext is scanned to name its positions, then again to
# write it out, and nothing older is asked for.
@functools.lru_cache(maxsize=1)
def scan_movetext(text: str, through: int | None = None) -> Movetext:
    """The moves of ``text`` (a game's movetext: what follows its tag section); with
    ``through``, only as far as the main line's ply ``through`` (its variations and
    annotations included), which is all that marking positions up to there needs.

    >>> moves = scan_movetext("{a\\n\\nb} 1. e4 ( 1. d4 ) ; (2. c4\\n% e5\\n1... c5 *\\n\\nNf3")
    >>> [(m.key, m.san) for m in moves.moves], moves.start_annotated_end
    ([(1, 'e4'), ('1.1', 'd4'), (2, 'c5')], 6)
    """
    plain = _plain_moves(text, through)
    return _walked(text, through) if plain is None else plain


def _walked(text: str, through: int | None) -> Movetext:
    """What :func:`scan_movetext` gives, from the line by line walk (the reference of
    :func:`_plain_moves`)."""
    walk = _Walk(text, through=through)
    size = len(text)
    position = 0
    fresh_line = True
    while position < size:
        newline = text.find("\n", position)
        line_end = size if newline < 0 else newline + 1
        if fresh_line:
            if text.startswith(_SKIPPED_LINE_STARTS, position):
                position = line_end
                continue
            if text[position:line_end].isspace():
                break  # a blank line ends the game
        position, fresh_line = _scan_line(walk, text, position, line_end)
    return walk.result()


#: Characters that make a movetext more than moves, numbers and results: comments,
#: NAGs and annotation signs, variations, escape lines.
_NOT_PLAIN = re.compile(r"[{};()$!?%]")
#: A line of whitespace alone, which ends the game (the last line apart: nothing follows).
_BLANK_LINE = re.compile(r"(?:\A|\n)[^\S\n]*\n")


#: The tokens of a plain movetext with the check and mate signs glued to them: group 1 a
#: move, group 7 a result (as in ``chess.pgn.MOVETEXT_REGEX``), the last group the signs.
#: The signs begin no token, so the tokens found are those of ``_TOKENS``.
_PLAIN_TOKENS = re.compile("(?:" + _TOKENS.pattern + r")([+\#]*)", _TOKENS.flags)


def _plain_moves(text: str, through: int | None) -> Movetext | None:
    """The moves of ``text`` when it holds nothing but moves, move numbers, check signs
    and results on lines none of which is blank (most games of most files), else None.

    Such a text is one main line, every token a move or a result, and no token crosses a
    line, so one pass of the tokens over the whole text finds what the line by line walk
    finds (tests compare both on generated texts), with nothing to follow but the ply.
    """
    found = _plain_matches(text, through)
    if found is None:
        return None
    moves = tuple(
        MoveToken(ply, m.group(1), m.start(), m.end(1), m.end(), m.end(), ply - 1, 0)
        for ply, m in enumerate(found, start=1)
    )
    return Movetext(moves, moves[0].start if moves else len(text), 0)


def plain_word_ends(text: str, through: int | None = None) -> list[int] | None:
    """Where the word of each main-line move ends (its check signs included), ply by
    ply, as far as ply ``through``, when ``text`` is plain (see :func:`_plain_moves`),
    else None: all that marking main-line positions needs, without a
    :class:`MoveToken` a move.

    >>> plain_word_ends("1.e4 e5 2.Qh5 Nc6 3.Qxf7# 1-0", 5)
    [4, 7, 13, 17, 25]
    >>> plain_word_ends("1.e4 {best} e5 *") is None
    True
    """
    found = _plain_matches(text, through)
    return None if found is None else [match.end() for match in found]


def _plain_matches(text: str, through: int | None) -> list[re.Match[str]] | None:
    """The move tokens of a plain ``text`` (through ply ``through``), else None."""
    if _NOT_PLAIN.search(text) or _BLANK_LINE.search(text):
        return None
    moves = (m for m in _PLAIN_TOKENS.finditer(text) if m.group(1) is not None)
    return list(moves if through is None else itertools.islice(moves, through))


#: What a token handler says: None to read on, else where reading goes on and whether
#: that is the start of a line (False: the rest of a line after a comment).
_Next = tuple[int, bool] | None


def _comment(walk: _Walk, match: re.Match[str], line_end: int) -> _Next:
    close = walk.text.find("}", match.start() + 1)
    if close < 0:  # never closed: the comment runs to the end of the text
        return len(walk.text), True
    walk.annotation(close + 1)
    return close + 1, False


def _rest_of_line(walk: _Walk, match: re.Match[str], line_end: int) -> _Next:
    return line_end, True


def _open_variation(walk: _Walk, match: re.Match[str], line_end: int) -> _Next:
    walk.open_variation()
    return None


def _close_variation(walk: _Walk, match: re.Match[str], line_end: int) -> _Next:
    walk.close_variation()
    return None


def _nag(walk: _Walk, match: re.Match[str], line_end: int) -> _Next:
    walk.annotation(match.end())
    return None


def _result_or_move(walk: _Walk, match: re.Match[str], line_end: int) -> _Next:
    token = match.group(0)
    # A result inside a variation is read as a move by python-chess (and fails there).
    if token not in _RESULTS or len(walk.lines) > 1:
        walk.move(token, match.start(), match.end(), line_end)
        if walk.done:
            return len(walk.text), True
    return None


#: Token handlers by the token's first character; any other token is a result or a move.
_HANDLERS = {
    "{": _comment,
    ";": _rest_of_line,
    "(": _open_variation,
    ")": _close_variation,
    "$": _nag,
    "!": _nag,
    "?": _nag,
}


def _scan_line(walk: _Walk, text: str, start: int, line_end: int) -> tuple[int, bool]:
    """Read the tokens of one line from ``start``: where reading goes on, and whether
    that is the start of a line."""
    for match in _TOKENS.finditer(text, start, line_end):
        after = _HANDLERS.get(match.group(0)[0], _result_or_move)(walk, match, line_end)
        if after is not None:
            return after
    return line_end, True
