"""Board diagrams drawn by :mod:`chess.svg`.

:func:`diagram` gives a stand-alone SVG document (Jupyter, files).  A page with many
diagrams uses :func:`inline_diagram`: the same drawing without the piece definitions,
the text copy of the board and the XML namespace declarations, which one hidden
:func:`piece_sprites` element per page provides instead (an inline ``<svg>`` in HTML
needs no namespace, and ``<use href="#white-knight">`` finds a definition anywhere in
the document); so do the glyphs of the border's letters and numbers.  That keeps a
diagram near 6 kB instead of 30.

>>> svg = inline_diagram(chess.Board(), highlighted=chess.BB_E2, move=chess.Move.from_uci("e2e4"))
>>> svg.startswith("<svg ") and "<defs>" not in svg and "http" not in svg
True
"""

from __future__ import annotations

import re

import chess
import chess.svg

from cqllegacy.vocab.squares import SquareSet

__all__ = ["HIGHLIGHT", "diagram", "inline_diagram", "piece_sprites"]

#: Fill of a highlighted square (translucent, so the square's own colour shows).
HIGHLIGHT = "#e0301e99"
#: The arrow of the move that led to the position: translucent, and drawn under the
#: pieces, so that the piece that moved stays in sight.
ARROW = "#1a6fd68c"

_ARROW = re.compile(r'<(?:line|polygon) [^>]*class="arrow" />')
_FIRST_PIECE = re.compile(r'<use href="#(?:white|black)-')
_DEFS = re.compile(r"<defs>.*?</defs>|<defs />", re.DOTALL)
_DESC = re.compile(r"<desc>.*?</desc>", re.DOTALL)
_NAMESPACES = re.compile(r' xmlns(?::xlink)?="[^"]*"')
_XLINK_HREF = re.compile(r' xlink:href="[^"]*"')
# A file letter or rank number of the border: a group holding one glyph path.
_GLYPH = re.compile(
    r'<g transform="([^"]*)" fill="([^"]*)" stroke="([^"]*)"><path d="([^"]*)" /></g>'
)


def _glyph_ids() -> dict[str, str]:
    """The border's glyph paths (a-h, 1-8), each with the id of its shared definition."""
    svg = chess.svg.board(chess.Board.empty(), coordinates=True)
    glyphs = dict.fromkeys(match.group(4) for match in _GLYPH.finditer(svg))
    return {path: f"cqlg{index}" for index, path in enumerate(glyphs)}


_GLYPH_IDS = _glyph_ids()

# The 64 squares, drawn alike on every board without last-move or check colours.
_SQUARE = re.compile(
    r'<rect x="[^"]*" y="[^"]*" width="45" height="45" class="square [^"]*"[^>]*/>'
)


def _plain_squares() -> list[str]:
    return [str(square) for square in _SQUARE.findall(chess.svg.board(chess.Board.empty()))]


_PLAIN_SQUARES = _plain_squares()
_SQUARES_ID = "cqlsquares"


def _shared_squares(svg: str) -> str:
    """The 64 squares as one reference to their shared drawing, when they are the plain
    ones (anything drawn over a square, a highlight, comes later and stays)."""
    found = list(_SQUARE.finditer(svg))
    if [match.group(0) for match in found] != _PLAIN_SQUARES:
        return svg
    first = found[0].start()
    svg = _SQUARE.sub("", svg)
    return svg[:first] + f'<use href="#{_SQUARES_ID}" />' + svg[first:]


def _shared_glyph(match: re.Match[str]) -> str:
    transform, fill, stroke, path = match.groups()
    glyph = _GLYPH_IDS.get(path)
    if glyph is None:
        return match.group(0)
    return f'<use href="#{glyph}" transform="{transform}" fill="{fill}" stroke="{stroke}" />'


def diagram(
    board: chess.Board,
    *,
    highlighted: SquareSet = 0,
    move: chess.Move | None = None,
    size: int = 280,
    coordinates: bool = True,
) -> str:
    """A stand-alone SVG of ``board``: ``highlighted`` squares filled, ``move`` as an
    arrow, seen from White."""
    fill = dict.fromkeys(chess.SquareSet(highlighted), HIGHLIGHT)
    arrows = (
        []
        if move is None or move == chess.Move.null()
        else [chess.svg.Arrow(move.from_square, move.to_square, color=ARROW)]
    )
    svg = chess.svg.board(board, size=size, fill=fill, arrows=arrows, coordinates=coordinates)
    return _arrows_under_pieces(svg)


def _arrows_under_pieces(svg: str) -> str:
    """``svg`` with its arrows drawn before the pieces (chess.svg draws them last, over
    the piece that moved).

    >>> svg = diagram(chess.Board(), move=chess.Move.from_uci("e2e4"))
    >>> svg.index('class="arrow"') < svg.index('<use href="#white-pawn"')
    True
    """
    arrows = "".join(match.group(0) for match in _ARROW.finditer(svg))
    piece = _FIRST_PIECE.search(svg)
    if not arrows or piece is None:
        return svg
    svg = _ARROW.sub("", svg)
    piece = _FIRST_PIECE.search(svg)
    assert piece is not None
    return svg[: piece.start()] + arrows + svg[piece.start() :]


def inline_diagram(
    board: chess.Board,
    *,
    highlighted: SquareSet = 0,
    move: chess.Move | None = None,
    size: int = 280,
    coordinates: bool = True,
) -> str:
    """:func:`diagram` for a page that holds :func:`piece_sprites` once."""
    svg = diagram(board, highlighted=highlighted, move=move, size=size, coordinates=coordinates)
    svg = _DEFS.sub("", svg, count=1)
    svg = _DESC.sub("", svg, count=1)
    svg = _NAMESPACES.sub("", svg)
    svg = _XLINK_HREF.sub("", svg)
    svg = _shared_squares(svg)
    return _GLYPH.sub(_shared_glyph, svg)


def piece_sprites() -> str:
    """One invisible ``<svg>`` holding the twelve piece definitions for a page."""
    board = chess.Board.empty()
    for index, piece_type in enumerate(chess.PIECE_TYPES):
        board.set_piece_at(index, chess.Piece(piece_type, chess.WHITE))
        board.set_piece_at(index + 8, chess.Piece(piece_type, chess.BLACK))
    defs = _DEFS.search(chess.svg.board(board))
    assert defs is not None  # chess.svg always writes the definitions of the pieces used
    glyphs = "".join(f'<path id="{glyph}" d="{path}" />' for path, glyph in _GLYPH_IDS.items())
    glyphs += f'<g id="{_SQUARES_ID}">{"".join(_PLAIN_SQUARES)}</g>'
    # Zero size rather than display:none, which some browsers apply to what <use> shows.
    return (
        '<svg width="0" height="0" style="position:absolute" aria-hidden="true">'
        + defs.group(0).replace("</defs>", glyphs + "</defs>")
        + "</svg>"
    )
