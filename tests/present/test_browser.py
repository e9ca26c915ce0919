"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``, which
``.ci/run`` installs) renders the page; the test reads the DOM it built and the pixels
it drew.  Skipped, saying so, only where Chromium is not installed."""

from __future__ import annotations

import html
import io
import re
import shutil
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from cqllegacy.api import SAMPLE_GAMES
from cqllegacy.cli import main
from tests.present.report_check import read_report
from tests.support.png import read_png

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (CI installs it: apt-get install -y chromium)",
)


def chromium(page: Path, profile: Path, *options: str, fragment: str = "") -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={profile}", *options,
         page.as_uri() + fragment],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser")
    page = folder / "forks.html"
    script = ROOT / "examples" / "knight-fork.cql"
    assert main(["run", str(script), "-i", str(SAMPLE_GAMES), "-o", str(folder / "o.pgn"),
                 "--html", str(page), "-q"]) == 0  # fmt: skip
    return page


def test_the_browser_builds_every_diagram_and_runs_the_filter(page: Path, tmp_path: Path) -> None:
    written = read_report(page.read_text(encoding="utf-8"))
    expected = sum(len(entry.diagrams) for entry in written.entries)
    text = chromium(page, tmp_path / "profile", "--dump-dom")
    dom = read_report(text)
    assert expected > 0
    assert sum(len(entry.diagrams) for entry in dom.entries) == expected
    # The page's script ran: it counts the games shown.
    games = len(written.entries)
    assert f"{games} of {games} games shown" in text


def test_the_filter_box_narrows_the_list(page: Path, tmp_path: Path) -> None:
    written = read_report(page.read_text(encoding="utf-8"))
    steinitz = sum("steinitz" in entry.search for entry in written.entries)
    assert 0 < steinitz < len(written.entries)
    text = chromium(page, tmp_path / "profile", "--dump-dom", fragment="#filter=Steinitz")
    assert f"{steinitz} of {len(written.entries)} games shown" in text
    articles = re.findall(r'<article class="game"[^>]*>', text)
    shown = [a for a in articles if " hidden" not in a]
    assert len(articles) == len(written.entries) and len(shown) == steinitz
    assert all("steinitz" in a for a in shown)


def test_the_screenshot_shows_boards_with_highlights_and_arrows(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    chromium(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=800,700")
    image = read_png(shot.read_bytes())
    assert (image.width, image.height) == (800, 700)
    colours = set(image.pixels)
    assert len(colours) > 50  # not a blank page
    # Board squares (chess.svg's light and dark), the red highlight over them, the blue arrow.
    assert (0xFF, 0xCE, 0x9E) in colours and (0xD1, 0x8B, 0x47) in colours
    assert any(r > 180 and g < 110 and b < 90 for r, g, b in colours)
    # The arrow is translucent: its blue mixed with the square under it, never opaque.
    assert any(b > 140 and b > r + 40 for r, g, b in colours)
    assert (0x1A, 0x6F, 0xD6) not in colours


# --------------------------------------------------------------------------------------
# Stepping through the moves: clicks and arrow keys, dispatched by a script appended to a
# copy of the page; the boards the page's own script draws are read back from the DOM
# and compared with python-chess's.
# --------------------------------------------------------------------------------------

VARIATION_GAME = """[Event "variation"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 (2... Ke7 3. Qxe5# (3. d4)) 3. Bc4 Nf6 4. Qxf7# 1-0
"""

# Each step: an action, then what the viewer shows (its data-shown) and the pieces drawn.
DRIVER = """
<script>
(function(){
  var log=[];
  function record(){
    var v=document.querySelector('.viewer');
    var uses=v.querySelectorAll('svg.step use');
    var pieces=[];
    uses.forEach(function(u){pieces.push(u.getAttribute('href')+' '+u.getAttribute('transform'));});
    log.push(v.getAttribute('data-shown')+'|'+pieces.join(';'));
  }
  function key(name){
    document.dispatchEvent(new KeyboardEvent('keydown',{key:name,bubbles:true}));record();
  }
  var hit=document.querySelector('.var .mv.hit');
  hit.dispatchEvent(new MouseEvent('click',{bubbles:true}));record();
  key('ArrowLeft');key('ArrowRight');key('ArrowRight');key('ArrowLeft');key('ArrowLeft');
  key('ArrowRight');key('ArrowLeft');key('ArrowLeft');key('ArrowLeft');key('ArrowLeft');
  key('ArrowLeft');key('ArrowRight');
  var inner=document.querySelector('.var .var .mv');
  inner.dispatchEvent(new MouseEvent('click',{bubbles:true}));record();
  key('ArrowLeft');key('ArrowLeft');key('ArrowRight');
  var out=document.createElement('pre');out.id='steps';out.textContent=log.join('\\n');
  document.body.appendChild(out);
})();
</script>
"""


def drawn_board(pieces: str) -> str:
    """The placement a viewer's ``<use>`` elements draw, as a FEN board part."""
    board = chess.Board.empty()
    names = {name: symbol for symbol, name in zip("pnbrqk", chess.PIECE_NAMES[1:], strict=True)}
    for item in filter(None, pieces.split(";")):
        href, transform = item.split(" ", 1)
        colour, name = href.lstrip("#").split("-")
        x, y = (int(float(n)) for n in re.findall(r"[\d.]+", transform))
        symbol = names[name].upper() if colour == "white" else names[name]
        board.set_piece_at(chess.square(x // 45, 7 - y // 45), chess.Piece.from_symbol(symbol))
    return board.board_fen()


def test_clicks_and_arrow_keys_step_through_a_variation(tmp_path: Path) -> None:
    games = tmp_path / "v.pgn"
    games.write_text(VARIATION_GAME)
    script = tmp_path / "mates.cql"
    script.write_text("(match (position :mate :markall))\n")
    page = tmp_path / "mates.html"
    assert main(["run", str(script), "-i", str(games), "-o", str(tmp_path / "o.pgn"),
                 "--html", str(page), "--variations", "-q", "-j", "1"]) == 0  # fmt: skip
    driven = tmp_path / "driven.html"
    driven.write_text(page.read_text().replace("</body>", DRIVER + "</body>"))
    dom = chromium(driven, tmp_path / "profile", "--dump-dom")
    steps = re.search(r'<pre id="steps">(.*?)</pre>', dom, re.DOTALL)
    assert steps is not None
    shown = [line.split("|", 1) for line in html.unescape(steps.group(1)).splitlines()]
    # The positions python-chess reaches along the variation and back to the start.
    game = chess.pgn.read_game(io.StringIO(VARIATION_GAME))
    assert game is not None
    start = game.board()
    line = [start.copy()]
    for san in ("e4", "e5", "Qh5", "Ke7", "Qxe5#"):
        start.push_san(san)
        line.append(start.copy())
    main_line = line[3].copy()
    main_line.push_san("Nc6")
    line.append(main_line)  # 6: 2... Nc6, the main continuation of 2. Qh5
    inner = line[4].copy()
    inner.push_san("d4")
    line.append(inner)  # 7: 3. d4, the variation inside the variation
    # click 3. Qxe5#, ←, →, → (stays: the variation ends there), ←, ← (2. Qh5),
    # → (the main line: 2... Nc6), ← × 5 (to the start, then it stays), →; then click
    # 3. d4 (inside the variation), ← (2... Ke7), ← (2. Qh5), → (2... Nc6, the main line)
    expected = [5, 4, 5, 5, 4, 3, 6, 3, 2, 1, 0, 0, 1, 7, 4, 3, 6]
    assert len(shown) == len(expected)
    for (name, pieces), index in zip(shown, expected, strict=True):
        assert drawn_board(pieces) == line[index].board_fen(), (name, index)
        assert (name == "start") == (index == 0)
