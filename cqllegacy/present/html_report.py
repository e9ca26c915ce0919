"""The HTML report of a run (``cqllegacy run … --html REPORT.html``): one self-contained
page, no network reference (inline SVG, CSS and script), with one entry per matching
game and a diagram for every marked position.

An entry lists White, Black, the event, the year, the game's ordinal and file; each
marked position is drawn with the squares that made it match highlighted and the move
that led there as an arrow, captioned with its ply and the designators that matched;
the moves follow as the game gives them, variations in parentheses, with the moves that
led to marked positions highlighted (a position inside a variation is highlighted there,
and its caption says which variation).  Clicking a move, or ←/→ after one, shows the
board after it: the page's script draws it from the position written on the move (no
network, no external script).  A filter box narrows the list by player or event as one
types.

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
from cqllegacy.present.positions import MarkedPosition, marked_positions, move_label
from cqllegacy.present.witness import node_at
from cqllegacy.records import Record
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


@attrs.frozen(repr=False)
class GameEntry(Record):
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
            marked = {id(node_at(game, p.key)) for p in positions}
            parts.append(_move_list(game, marked))
            parts.append(_VIEWER)
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


#: Where the page's script draws the board after the move clicked (empty until then).
_VIEWER = (
    '<div class="viewer"><p class="hint">Click a move (then ← →) to see the board after it.'
    "</p></div>"
)


def _move_list(game: chess.pgn.Game, marked: set[int]) -> str:
    """The moves of ``game`` as its text gives them (SAN with ``+`` and ``#``),
    variations in parentheses right after the move they replace; the move into a node
    whose ``id`` is in ``marked`` is highlighted.  Each move carries the board after it
    (``data-fen``, the placement) and itself (``data-uci``, for the arrow); the page's
    script finds the moves before and after it from where it stands."""
    words: list[str] = []
    board = game.board()
    start = html.escape(board.board_fen())
    _line(game, board, marked, words)
    text = " ".join(words).replace("( ", "(").replace(" )", ")")
    return f'<p class="moves" data-start="{start}">{text}</p>'


def _line(
    node: chess.pgn.GameNode, board: chess.Board, marked: set[int], words: list[str]
) -> None:
    """The moves from ``node`` (whose position is ``board``) on, main continuations first."""
    numbered = True
    while node.variations:
        main = node.variations[0]
        words.append(_move(main, board, marked, numbered))
        numbered = False
        for alternative in node.variations[1:]:
            words.append('<span class="var">(')
            branch = board.copy(stack=False)
            words.append(_move(alternative, branch, marked, True))
            branch.push(alternative.move)
            _line(alternative, branch, marked, words)
            words.append(")</span>")
            numbered = True
        board.push(main.move)
        node = main


def _move(node: chess.pgn.ChildNode, board: chess.Board, marked: set[int], numbered: bool) -> str:
    """One move's span; ``board`` is the position it is played from (left as it was)."""
    san = board.san(node.move)
    text = move_label(board, san) if numbered or board.turn == chess.WHITE else san
    board.push(node.move)
    fen = board.board_fen()
    board.pop()
    css = "mv hit" if id(node) in marked else "mv"
    return (
        f'<span class="{css}" data-fen="{html.escape(fen)}" data-uci="{node.move.uci()}">'
        f"{html.escape(text)}</span>"
    )


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
.mv{cursor:pointer}
.mv.hit{background:#e0301e;color:#fff;padding:0 .2em;border-radius:.2em}
.mv.cur{outline:2px solid #1a6fd6;outline-offset:1px}
.var{color:#555}
.viewer{margin-top:.4em}
.viewer .hint{color:#777;font-size:.85em;margin:0}
.viewer svg{display:block}
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
(function(){
  var NAMES={p:'pawn',n:'knight',b:'bishop',r:'rook',q:'queen',k:'king'},S=45,state=null;
  function centre(square){
    var file=square.charCodeAt(0)-97,rank=square.charCodeAt(1)-49;
    return [file*S+S/2,(7-rank)*S+S/2];
  }
  function arrow(uci){
    if(!uci||uci.length<4||uci==='0000'){return '';}
    var a=centre(uci.slice(0,2)),b=centre(uci.slice(2,4));
    var dx=b[0]-a[0],dy=b[1]-a[1],len=Math.sqrt(dx*dx+dy*dy),ux=dx/len,uy=dy/len;
    var hx=b[0]-ux*18,hy=b[1]-uy*18;
    return '<g class="arrow" opacity="0.55"><line x1="'+a[0]+'" y1="'+a[1]+'" x2="'+hx+
      '" y2="'+hy+'" stroke="#1a6fd6" stroke-width="9"></line><polygon fill="#1a6fd6" points="'+
      b[0]+','+b[1]+' '+(hx-uy*12)+','+(hy+ux*12)+' '+(hx+uy*12)+','+(hy-ux*12)+
      '"></polygon></g>';
  }
  function board(fen,uci){
    var out=['<svg class="step" viewBox="0 0 360 360" width="280" height="280">'];
    var rows=fen.split('/');
    for(var r=0;r<8;r++){for(var f=0;f<8;f++){
      out.push('<rect x="'+f*S+'" y="'+r*S+'" width="'+S+'" height="'+S+'" fill="'+
        ((r+f)%2?'#d18b47':'#ffce9e')+'"></rect>');
    }}
    out.push(arrow(uci));
    for(r=0;r<8;r++){
      var file=0,row=rows[r];
      for(var i=0;i<row.length;i++){
        var c=row.charAt(i);
        if(c>='1'&&c<='8'){file+=c.charCodeAt(0)-48;continue;}
        var colour=(c===c.toUpperCase())?'white':'black';
        out.push('<use href="#'+colour+'-'+NAMES[c.toLowerCase()]+'" transform="translate('+
          file*S+','+r*S+')"></use>');
        file++;
      }
    }
    out.push('</svg>');
    return out.join('');
  }
  function isMove(e){return e&&e.classList.contains('mv');}
  function isVariation(e){return e&&e.classList.contains('var');}
  function nextOf(span){
    var e=span.nextElementSibling;
    while(isVariation(e)){e=e.nextElementSibling;}
    return isMove(e)?e:null;
  }
  function prevOf(span){
    var e=span.previousElementSibling;
    while(isVariation(e)){e=e.previousElementSibling;}
    if(isMove(e)){return e;}
    var line=span.parentNode;
    if(!isVariation(line)){return null;}
    e=line.previousElementSibling;
    while(isVariation(e)){e=e.previousElementSibling;}
    return isMove(e)?prevOf(e):null;
  }
  function show(moves,span){
    if(state&&state.span){state.span.classList.remove('cur');}
    state={moves:moves,span:span};
    var viewer=moves.parentNode.querySelector('.viewer'),caption;
    if(span){
      span.classList.add('cur');
      caption='after '+span.textContent;
      viewer.innerHTML=board(span.getAttribute('data-fen'),span.getAttribute('data-uci'))+
        '<p class="hint">'+caption.replace(/[<>&]/g,'')+'</p>';
    }else{
      viewer.innerHTML=board(moves.getAttribute('data-start'),'')+
        '<p class="hint">start position</p>';
    }
    viewer.setAttribute('data-shown',span?span.textContent:'start');
  }
  document.addEventListener('click',function(e){
    var t=e.target;
    if(t.classList&&t.classList.contains('mv')){show(t.closest('.moves'),t);}
  });
  document.addEventListener('keydown',function(e){
    if(!state||(e.target&&e.target.tagName==='INPUT')){return;}
    var forward=e.key==='ArrowRight',back=e.key==='ArrowLeft';
    if(!forward&&!back){return;}
    var next=state.span?(forward?nextOf(state.span):prevOf(state.span))
      :(forward?state.moves.querySelector('.mv'):null);
    if(next){show(state.moves,next);}
    else if(back&&state.span){show(state.moves,null);}
    e.preventDefault();
  });
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
