"""Reading an HTML report back: its structure, its entries and their diagrams."""

from __future__ import annotations

import html.parser

import attrs

#: Elements without an end tag in HTML.
VOID = {"meta", "input", "br", "img", "link", "hr", "source", "wbr", "area", "base", "col"}


@attrs.define
class Entry:
    search: str = ""
    diagrams: list[dict[str, str]] = attrs.Factory(list)
    fills: list[list[int]] = attrs.Factory(list)
    hits: list[str] = attrs.Factory(list)


def square_at(attributes: dict[str, str]) -> int:
    """The square a chess.svg square rectangle covers (board seen from White, with
    coordinates: a 15-unit margin and 45-unit squares)."""
    file = (int(float(attributes["x"])) - 15) // 45
    rank = 7 - (int(float(attributes["y"])) - 15) // 45
    return rank * 8 + file


class ReportReader(html.parser.HTMLParser):
    """Checks that every element is closed in order and collects the report's entries."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.entries: list[Entry] = []
        self.references: list[str] = []
        self.counts: dict[str, int] = {}
        self._in_hit = False
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs_: list[tuple[str, str | None]]) -> None:
        self._start(tag, dict((k, v or "") for k, v in attrs_))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs_: list[tuple[str, str | None]]) -> None:
        self._start(tag, dict((k, v or "") for k, v in attrs_))

    def _start(self, tag: str, attributes: dict[str, str]) -> None:
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for name in ("href", "src", "xlink:href", "action", "poster", "data"):
            if name in attributes:
                self.references.append(attributes[name])
        classes = attributes.get("class", "").split()
        if tag == "article" and "game" in classes:
            self.entries.append(Entry(search=attributes.get("data-search", "")))
        elif tag == "figure" and "diagram" in classes:
            self.entries[-1].diagrams.append(attributes)
        elif tag == "svg" and self.entries and self.entries[-1].diagrams:
            self.entries[-1].fills.append([])
        elif tag == "rect" and attributes.get("fill", "").startswith("#e0301e") and self.entries:
            self.entries[-1].fills[-1].append(square_at(attributes))
        elif tag == "span" and "hit" in classes:
            self._in_hit = True

    def handle_data(self, data: str) -> None:
        if self._in_hit:
            self.entries[-1].hits.append(data)
            self._in_hit = False

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()


def read_report(text: str) -> ReportReader:
    reader = ReportReader()
    reader.feed(text)
    reader.close()
    return reader
