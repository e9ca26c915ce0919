"""The HTML report of a run (``cqllegacy run … --html REPORT.html``): one self-contained
page, no network reference (inline SVG, CSS and script), with one entry per matching
game and a diagram for every marked position.

An entry lists White, Black, the event, the year, the game's ordinal and file; each
marked position is drawn with the squares that made it match highlighted and the move
that led there as an arrow, captioned with its ply and the designators that matched;
the main line follows with the marked moves highlighted.  A filter box narrows the list
by player or event as one types.

:class:`HtmlReport` is a sink of the scan whose entries can be made by the workers of a
parallel scan: :class:`GameEntry` (picklable) makes an entry from a
:class:`~cqllegacy.runner.results.FoundGame`, :meth:`HtmlReport.write` writes it.
"""

from __future__ import annotations

import html
from typing import TextIO

import attrs
import chess
import chess.pgn

from cqllegacy.core.tree import Query
from cqllegacy.present.diagrams import inline_diagram, piece_sprites
from cqllegacy.present.positions import MarkedPosition, marked_positions
from cqllegacy.runner.movetext import scan_movetext
from cqllegacy.runner.pgn import UnreadableGame, read_game
from cqllegacy.runner.results import FoundGame

__all__ = ["GameEntry", "HtmlReport", "page_end", "page_start"]


def year_of(date: str) -> str:
    """
    >>> year_of("1886.01.11"), year_of("????.??.??")
    ('1886', '')
    """
    year = date[:4]
    return year if year.isdigit() else ""


@attrs.frozen
class GameEntry:
    """Makes the HTML entry of one matching game (picklable: workers make entries)."""

    query: Query
    variations: bool = False
    diagram_size: int = 280

    def __call__(self, found: FoundGame) -> str:
        headers = found.headers
        try:
            game = read_game(found.text)
        except UnreadableGame:
            # A game decided by its tags alone may not replay; it is listed without
            # diagrams.
            game = None
        positions: list[MarkedPosition] = []
        if game is not None:
            marked = [item.marked for item in found.lists]
            positions = marked_positions(game, self.query, marked, variations=self.variations)
        return self._entry(found, headers, game, positions)

    def _entry(
        self,
        found: FoundGame,
        headers: chess.pgn.Headers,
        game: chess.pgn.Game | None,
        positions: list[MarkedPosition],
    ) -> str:
        white, black = headers.get("White", "?"), headers.get("Black", "?")
        event, year = headers.get("Event", ""), year_of(headers.get("Date", ""))
        search = " ".join((white, black, event)).lower()
        where = f"game {found.ordinal}"
        if found.file_ordinal != found.ordinal:
            where += f" (game {found.file_ordinal} of its file)"
        e = html.escape
        parts = [
            f'<article class="game" data-search="{e(search)}">',
            f"<h2>{e(white)} – {e(black)}</h2>",
            f'<p class="meta"><span class="event">{e(event)}</span> '
            f'<span class="year">{e(year)}</span> · <span class="ordinal">{e(where)}</span> · '
            f'<span class="file">{e(found.file)}</span> · result {e(headers.get("Result", "*"))}'
            "</p>",
            '<div class="diagrams">',
        ]
        for position in positions:
            parts.append(self._figure(position))
        parts.append("</div>")
        if game is not None:
            marked = {p.ply for p in positions if isinstance(p.key, int)}
            parts.append(_move_list(found, game.board(), marked))
        parts.append("</article>\n")
        return "".join(parts)

    def _figure(self, position: MarkedPosition) -> str:
        svg = inline_diagram(
            position.board,
            highlighted=position.highlighted,
            move=position.move,
            size=self.diagram_size,
        )
        lists = ", ".join(str(i) for i in position.lists)
        matched = " ".join(position.designators)
        caption = html.escape(position.label)
        caption += f' <span class="lists">list {lists}</span>'
        if matched:
            caption += f' <span class="matched">{html.escape(matched)}</span>'
        return (
            f'<figure class="diagram" data-ply="{position.ply}">{svg}'
            f"<figcaption>{caption}</figcaption></figure>"
        )


def _move_list(found: FoundGame, start: chess.Board, marked_plies: set[int]) -> str:
    """The main line as the game's text writes its moves, marked moves highlighted (a
    move number before each White move and before the first move)."""
    words = []
    white = start.turn == chess.WHITE
    number = start.fullmove_number
    moves = [m for m in scan_movetext(found.text.movetext).moves if isinstance(m.key, int)]
    for ply, move in enumerate(moves, start=1):
        if white:
            text = f"{number}. {move.san}"
        else:
            text = f"{number}... {move.san}" if ply == 1 else move.san
            number += 1
        white = not white
        css = "mv hit" if ply in marked_plies else "mv"
        words.append(f'<span class="{css}">{html.escape(text)}</span>')
    return f'<p class="moves">{" ".join(words)}</p>'


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#222;
  background:#fff}
header{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ccc}
#filter{font-size:1em;padding:.3em .5em;width:min(30em,90%)}
article.game{border-bottom:1px solid #ddd;padding:.8em 0}
article.game h2{font-size:1.15em;margin:.2em 0}
.meta{color:#555;margin:.2em 0 .6em}
.diagrams{display:flex;flex-wrap:wrap;gap:1em}
figure.diagram{margin:0;max-width:290px}
figcaption{font-size:.9em;margin-top:.3em}
.matched{font-family:ui-monospace,monospace;color:#a0241a}
.lists{color:#666}
.moves{font-family:ui-monospace,monospace;font-size:.85em;line-height:1.6}
.mv.hit{background:#e0301e;color:#fff;padding:0 .2em;border-radius:.2em}
"""

# The filter box: hide entries whose players and event do not contain every word typed.
# A page opened as REPORT.html#filter=WORDS starts with WORDS in the box.
_SCRIPT = """
(function(){
  var box=document.getElementById('filter'),shown=document.getElementById('shown');
  var games=document.querySelectorAll('article.game');
  var start=/^#filter=(.*)$/.exec(location.hash);
  if(start){box.value=decodeURIComponent(start[1]);}
  function apply(){
    var words=box.value.toLowerCase().trim().split(/\\s+/).filter(Boolean),n=0;
    games.forEach(function(g){
      var text=g.getAttribute('data-search');
      var ok=words.every(function(w){return text.indexOf(w)>=0;});
      g.hidden=!ok; if(ok){n++;}
    });
    shown.textContent=n+' of '+games.length+' games shown';
  }
  box.addEventListener('input',apply); apply();
})();
"""


def page_start(title: str, summary: str) -> str:
    """The page up to the first entry."""
    e = html.escape
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>\n"
        + piece_sprites()
        + f"<header><h1>{e(title)}</h1><p>{e(summary)}</p>"
        '<label>Filter by player or event: <input id="filter" type="search" '
        'placeholder="e.g. Tal, or Moscow" autocomplete="off"></label> '
        '<span id="shown"></span></header>\n<main>\n'
    )


def page_end(games: int) -> str:
    """The page after the last entry."""
    none = "<p>No game matched.</p>" if games == 0 else ""
    return f"{none}</main>\n<script>{_SCRIPT}</script>\n</body></html>\n"


class HtmlReport:
    """Writes the page to an open text file: :meth:`start`, one entry per matching game,
    :meth:`finish`.  ``renderer`` makes an entry, ``write`` writes one made elsewhere."""

    def __init__(self, handle: TextIO, entry: GameEntry) -> None:
        self.handle = handle
        self.renderer = entry
        self.games = 0

    def start(self, title: str, summary: str) -> None:
        self.handle.write(page_start(title, summary))

    def __call__(self, found: FoundGame) -> None:
        self.write(self.renderer(found))

    def write(self, text: str) -> None:
        self.games += 1
        self.handle.write(text)

    def finish(self) -> None:
        self.handle.write(page_end(self.games))
