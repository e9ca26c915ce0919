"""``cqllegacy run … --html``: the page's structure, one diagram per marked position,
highlights that python-chess confirms, and no network reference."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import chess
import chess.pgn
import pytest

import cqllegacy
from cqllegacy.api import SAMPLE_GAMES
from cqllegacy.cli import main
from tests.present.report_check import read_report

ROOT = Path(__file__).resolve().parents[2]
KNIGHT_FORK = ROOT / "examples" / "knight-fork.cql"
GAMES = ROOT / "fixtures" / "games.pgn"


@pytest.fixture(scope="module")
def fork_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The knight-fork example on the bundled games: the page and the JSON report."""
    folder = tmp_path_factory.mktemp("fork")
    page, report = folder / "forks.html", folder / "forks.jsonl"
    status = main(
        ["run", str(KNIGHT_FORK), "-i", str(SAMPLE_GAMES), "-o", str(folder / "forks.pgn"),
         "--report", str(report), "--html", str(page), "-q"]
    )  # fmt: skip
    assert status == 0
    return page, report


def test_every_matching_game_has_an_entry_and_every_marked_position_a_diagram(
    fork_report: tuple[Path, Path],
) -> None:
    page, report = fork_report
    reader = read_report(page.read_text(encoding="utf-8"))
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert len(reader.entries) == len(records) > 0
    for entry, record in zip(reader.entries, records, strict=True):
        # The fork list marks its first matching position (the legacy default).
        marked = [record["lists"][0]["plies"][0]]
        assert [int(d["data-ply"]) for d in entry.diagrams] == marked
        assert record["white"].lower() in entry.search and record["black"].lower() in entry.search


def test_the_highlighted_squares_are_a_real_knight_fork(fork_report: tuple[Path, Path]) -> None:
    """The highlights are the knight, the king and the queen of the transformed pattern
    that matched: python-chess confirms the knight attacks both."""
    page, _ = fork_report
    reader = read_report(page.read_text(encoding="utf-8"))
    games = {m.ordinal: m for m in cqllegacy.load(KNIGHT_FORK).search(SAMPLE_GAMES)}
    for entry, match in zip(reader.entries, games.values(), strict=True):
        [squares] = entry.fills
        board = match.board(match.marked[0])
        pieces = {board.piece_at(s).symbol() for s in squares if board.piece_at(s)}
        assert len(squares) == 3 and {p.lower() for p in pieces} == {"n", "k", "q"}, pieces
        [knight] = [s for s in squares if board.piece_type_at(s) == chess.KNIGHT]
        others = [s for s in squares if s != knight]
        assert all(board.attacks(knight) & chess.BB_SQUARES[s] for s in others)
        assert all(board.color_at(s) != board.color_at(knight) for s in others)


def test_the_matched_move_is_highlighted_in_the_move_list(fork_report: tuple[Path, Path]) -> None:
    page, _ = fork_report
    reader = read_report(page.read_text(encoding="utf-8"))
    for entry in reader.entries:
        [hit] = entry.hits
        # The fork is the move that led to the marked position: a knight move.
        assert re.fullmatch(r"(\d+\.(\.\.)? )?N[a-h1-8x]*[a-h][1-8][+#]?", hit), hit


def test_the_page_is_well_formed_and_self_contained(fork_report: tuple[Path, Path]) -> None:
    page, _ = fork_report
    text = page.read_text(encoding="utf-8")
    reader = read_report(text)
    assert reader.doctype.lower() == "doctype html"
    assert reader.problems == [] and reader.stack == []
    assert reader.counts["html"] == reader.counts["head"] == reader.counts["body"] == 1
    assert reader.counts["input"] == 1 and reader.counts["script"] == 1
    # Only references inside the page (piece definitions); nothing that could reach out.
    assert reader.references and all(ref.startswith("#") for ref in reader.references)
    for marker in ("http:", "https:", "//", "@import", "url("):
        assert marker not in text, marker


def test_a_game_with_several_marked_positions_has_a_diagram_for_each(tmp_path: Path) -> None:
    script = tmp_path / "checks.cql"
    script.write_text("(match :gamenumber 1 5 (position :check :markall))\n")
    page = tmp_path / "checks.html"
    assert main(["run", str(script), "-i", str(GAMES), "-o", str(tmp_path / "o.pgn"),
                 "--html", str(page), "-q", "-j", "1"]) == 0  # fmt: skip
    reader = read_report(page.read_text(encoding="utf-8"))
    matches = list(cqllegacy.load(script).search(GAMES))
    assert len(reader.entries) == len(matches) > 0
    for entry, match in zip(reader.entries, matches, strict=True):
        assert [d["data-ply"] for d in entry.diagrams] == [str(k) for k in match.marked]
        assert len(entry.hits) == len(match.marked)
        for squares, key in zip(entry.fills, match.marked, strict=True):
            # A check has no designator: nothing is highlighted, the position is drawn.
            assert squares == [] and match.board(key).is_check()


def test_an_empty_run_writes_a_page_that_says_so(tmp_path: Path) -> None:
    script = tmp_path / "none.cql"
    script.write_text("(match (position Ka1 Ka2))\n")
    page = tmp_path / "none.html"
    assert main(["run", str(script), "-i", str(GAMES), "-o", str(tmp_path / "o.pgn"),
                 "--html", str(page), "-q", "-j", "1"]) == 0  # fmt: skip
    text = page.read_text(encoding="utf-8")
    assert "No game matched." in text and read_report(text).problems == []


def test_the_page_is_never_written_over_an_input(tmp_path: Path) -> None:
    games = tmp_path / "games.pgn"
    games.write_bytes(GAMES.read_bytes())
    status = main(["run", str(KNIGHT_FORK), "-i", str(games), "-o", str(tmp_path / "o.pgn"),
                   "--html", str(games)])  # fmt: skip
    assert status == 2
    assert games.read_bytes() == GAMES.read_bytes()


@pytest.mark.parametrize(
    "name", ["012-forany-repeated-checker", "020-variationsonly-stalemate", "019-variations-mates"]
)
def test_tags_and_variations_get_their_diagrams(name: str) -> None:
    """Piece tags (which no member can be judged without) and positions inside variations
    still get a diagram each; the page stays well formed."""
    from cqllegacy.present.html_report import GameEntry, page_end, page_start

    query = cqllegacy.load(ROOT / "fixtures" / "migration" / name / "legacy.cql")
    matches = list(query.search(GAMES))
    entry = GameEntry(query.core)
    page = page_start("t", "t") + "".join(entry(m._found) for m in matches) + page_end(1)
    reader = read_report(page)
    assert reader.problems == [] and len(reader.entries) == len(matches) > 0
    for found, match in zip(reader.entries, matches, strict=True):
        assert len(found.diagrams) == len(match.marked)


def move_spans(text: str) -> list[dict[str, str]]:
    """The move spans of a page: their attributes, classes and text."""
    spans = []
    for match in re.finditer(r'<span class="(mv[^"]*)"([^>]*)>([^<]*)</span>', text):
        attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(2)))
        spans.append({**attributes, "class": match.group(1), "text": match.group(3)})
    return spans


def moves_in(node: chess.pgn.GameNode) -> int:
    return sum(1 + moves_in(child) for child in node.variations)


def test_the_moves_are_written_with_check_and_mate_signs(fork_report: tuple[Path, Path]) -> None:
    """Every move of every game, as python-chess writes it (``+``, ``#``), with the board
    after it."""
    page, _ = fork_report
    text = page.read_text(encoding="utf-8")
    games = [m for m in cqllegacy.load(KNIGHT_FORK).search(SAMPLE_GAMES)]
    lists = re.findall(r'<p class="moves".*?</p>', text)
    assert len(lists) == len(games)
    signs = 0
    for moves, match in zip(lists, games, strict=True):
        spans = move_spans(moves)
        board = match.board(0)
        game = chess.pgn.read_game(io.StringIO(match.pgn))
        assert game is not None
        assert len(spans) == moves_in(game)  # every move of the game, once
        for span in spans:
            move = chess.Move.from_uci(span["data-uci"])
            san = board.san(move)
            assert span["text"].split(" ")[-1] == san
            signs += san.endswith(("+", "#"))
            board.push(move)
            assert span["data-fen"] == board.board_fen()
    assert signs > 0


def test_a_match_in_a_variation_is_shown_in_its_variation(tmp_path: Path) -> None:
    games = tmp_path / "v.pgn"
    games.write_text(
        '[Event "v"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n'
        "1. e4 e5 2. Qh5 Nc6 (2... Ke7 3. Qxe5#) 3. Bc4 Nf6 4. Qxf7# 1-0\n"
    )
    script = tmp_path / "mates.cql"
    script.write_text("(match (position :mate :markall :variationsonly))\n")
    page = tmp_path / "p.html"
    assert main(["run", str(script), "-i", str(games), "-o", str(tmp_path / "o.pgn"),
                 "--html", str(page), "-q", "-j", "1"]) == 0  # fmt: skip
    text = page.read_text(encoding="utf-8")
    [figure] = re.findall(r"<figcaption>(.*?)</figcaption>", text)
    assert figure.startswith("ply 5, after 3. Qxe5#, in the variation 2... Ke7 instead of 2... Nc6")
    variation = re.search(r'<span class="var">(.*?)\)</span>', text)
    assert variation is not None
    inside = [(s["class"], s["text"]) for s in move_spans(variation.group(1))]
    assert inside == [("mv", "2... Ke7"), ("mv hit", "3. Qxe5#")]
    hits = [s["text"] for s in move_spans(text) if "hit" in s["class"]]
    assert hits == ["3. Qxe5#"]  # the main line's mate is not in a variation
    reader = read_report(text)
    assert reader.problems == [] and reader.stack == []


def test_the_arrow_is_translucent_and_under_the_pieces(fork_report: tuple[Path, Path]) -> None:
    page, _ = fork_report
    for svg in re.findall(r"<svg [^>]*>.*?</svg>", page.read_text(encoding="utf-8")):
        if 'class="arrow"' not in svg:
            continue
        first_piece = re.search(r'<use href="#(white|black)-', svg)
        assert first_piece is not None and svg.index('class="arrow"') < first_piece.start()
        colours = re.findall(r'(?:stroke|fill)="(#[0-9a-f]+)"[^>]*class="arrow"', svg)
        assert colours and all(len(c) == 9 and int(c[7:], 16) < 0xFF for c in colours)
