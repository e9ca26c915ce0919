"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``, which
``.ci/run`` installs) renders the page; the test reads the DOM it built and the pixels
it drew.  Skipped, saying so, only where Chromium is not installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

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
    assert any(b > 150 and r < 80 for r, g, b in colours)
