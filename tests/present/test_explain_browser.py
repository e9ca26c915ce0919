"""An explanation inside a notebook's page: its HTML is a fragment whose styles apply
inside it alone.  A host page with styles of its own is rendered by headless Chromium
with and without the fragment; the host's elements must look the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import cqllegacy
from tests.present.test_browser import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (CI installs it: apt-get install -y chromium)",
)

# The host's own look: a notebook's styles for the elements an explanation also uses.
HOST = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font-family:serif;background:rgb(250,240,230);color:rgb(1,2,3);margin:7px}
pre{color:rgb(200,0,0);background:rgb(0,0,200);white-space:pre}
h2{font-size:40px;margin:3px} p{font-size:11px} figure{margin:9px}
</style></head><body>
<pre id="host-pre">host</pre><h2 id="host-h2">host</h2><p id="host-p">host</p>
<figure id="host-figure">host</figure>
<div id="output">FRAGMENT</div>
<pre id="result"></pre>
<script>
const look = (element) => {
  const s = getComputedStyle(element);
  return [s.fontFamily, s.color, s.backgroundColor, s.fontSize, s.margin, s.whiteSpace].join("|");
};
const ids = ["host-pre", "host-h2", "host-p", "host-figure"];
const hosts = ids.map((id) => document.getElementById(id));
const inner = document.querySelector("#output pre");
const figures = [...document.querySelectorAll("#output figure")];
document.getElementById("result").textContent = JSON.stringify({
  body: look(document.body),
  hosts: hosts.map(look),
  inner: inner ? look(inner) : null,
  visible: figures.filter((f) => f.checkVisibility()).length,
  figures: figures.length,
});
</script></body></html>
"""


def _render(fragment: str, tmp_path: Path, name: str) -> dict[str, object]:
    page = tmp_path / f"{name}.html"
    page.write_text(HOST.replace("FRAGMENT", fragment), encoding="utf-8")
    dom = chromium(page, tmp_path / f"profile-{name}", "--dump-dom")
    found = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
    assert found is not None and found.group(1), dom[-2000:]
    return dict(json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")))


def test_the_explanation_keeps_its_styles_to_itself(tmp_path: Path) -> None:
    fragment = cqllegacy.load(ROOT / "examples" / "knight-fork.cql").explain()._repr_html_()
    assert not fragment.lstrip().lower().startswith(("<!doctype", "<html"))
    alone = _render("", tmp_path, "alone")
    hosted = _render(fragment, tmp_path, "hosted")
    assert hosted["body"] == alone["body"]
    assert hosted["hosts"] == alone["hosts"]
    # Its own styles do apply inside it: its text is not the host's red on blue.
    inner = str(hosted["inner"]).split("|")
    assert inner[1] == "rgb(34, 34, 34)" and inner[2] == "rgb(246, 246, 246)"
    # 8 diagrams shown, the other 56 behind "show more" (a closed <details>).
    assert (hosted["figures"], hosted["visible"]) == (64, 8)
