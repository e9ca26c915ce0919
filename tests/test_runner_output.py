"""Output PGN and JSON Lines report, re-read with python-chess and json; safe writing."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_runner_helpers import PGN, StandIn, node_at, read_all

from cqllegacy.core.tree import Mark
from cqllegacy.errors import UsageError
from cqllegacy.runner.output import PgnWriter, atomic_text_file, check_destinations
from cqllegacy.runner.report import ReportWriter, position_key
from cqllegacy.runner.scanner import FoundGame, InputFile, ScanOptions, scan

PLAIN = ScanOptions()


def scan_to_text(
    compiled: StandIn, *paths: Path, options: ScanOptions = PLAIN
) -> tuple[str, list[dict[str, object]]]:
    pgn, report = io.StringIO(), io.StringIO()
    scan(
        compiled,
        [InputFile.of(path) for path in paths],
        options=options,
        sinks=[PgnWriter(pgn, several_files=len(paths) > 1), ReportWriter(report)],
    )
    records = [json.loads(line) for line in report.getvalue().splitlines()]
    return pgn.getvalue(), records


def reread(text: str) -> list[chess.pgn.Game]:
    games = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors
        games.append(game)
    return games


def match_plies(game: chess.pgn.Game) -> list[int]:
    """Main-line plies whose position carries a MATCH mark in the re-read game."""
    nodes = [game, *game.mainline()]
    return [ply for ply, node in enumerate(nodes) if node.comment.endswith("MATCH")]


def strip_annotations(game: chess.pgn.Game) -> str:
    """The game as exported, with the runner's additions taken out again."""
    game.comment = game.comment.removeprefix("Original game: ")
    game.comment = " ".join(game.comment.split(" ")[1:])
    nodes = [game, *(n for n in _all_nodes(game) if n is not game)]
    for node in nodes:
        node.comment = node.comment.removesuffix("MATCH").rstrip(" ")
    return str(game)


def _all_nodes(node: chess.pgn.GameNode) -> list[chess.pgn.GameNode]:
    out = [node]
    for child in node.variations:
        out.extend(_all_nodes(child))
    return out


# --------------------------------------------------------------------------------------
# PGN output
# --------------------------------------------------------------------------------------


def test_marks_at_first_matching_position_and_game_numbers() -> None:
    text, _ = scan_to_text(StandIn(mark=Mark.FIRST), PGN / "annotated.pgn")
    games = reread(text)
    assert [g.headers["Round"] for g in games] == ["1", "2", "3"]
    # The start position (ply 0) is the first match of rounds 1 and 2: its MATCH goes
    # before the first move, after the Original game note (and any existing comment).
    assert games[0].comment == "Original game: 1 Queen walk\nwith side lines MATCH"
    assert games[1].comment == "Original game: 2 MATCH"
    # Round 3 starts with the queen on h1; 2. Qd1+ (ply 3) is the first match.
    assert games[2].comment == "Original game: 3"
    assert match_plies(games[2]) == [3]
    assert "2. Qd1+ { MATCH }" in text
    assert text.index("{ Original game: 1 }") < text.index("1. e4")


def test_markall_marks_every_matching_main_line_position() -> None:
    text, _ = scan_to_text(StandIn(mark=Mark.ALL), PGN / "annotated.pgn")
    games = reread(text)
    # Round 1: queen on d1 before 2. Qh5 and again after 3. Qd1.
    assert match_plies(games[0]) == [0, 1, 2, 5, 6, 7, 8]
    # Round 2 (FEN start, Black to move): Qd5+ at ply 2 leaves d1, Qd1 at ply 4 returns.
    assert match_plies(games[1]) == [0, 1, 4, 5]
    assert match_plies(games[2]) == [3, 4]


def test_no_marks_with_mark_none_but_the_game_is_written() -> None:
    text, _ = scan_to_text(StandIn(mark=Mark.NONE), PGN / "annotated.pgn")
    assert len(reread(text)) == 3
    assert "MATCH" not in text


def test_headers_moves_comments_nags_and_variations_survive() -> None:
    text, _ = scan_to_text(StandIn(mark=Mark.ALL), PGN / "annotated.pgn")
    originals = read_all(PGN / "annotated.pgn")[:3]
    for written, original in zip(reread(text), originals, strict=True):
        assert dict(written.headers) == dict(original.headers)
        assert strip_annotations(written) == str(original)
    first = reread(text)[0]
    assert first.next().nags == {chess.pgn.NAG_GOOD_MOVE}
    assert first.next().comment == "centre MATCH"
    assert node_at(first, 0, 0, 1, 1).move == chess.Move.from_uci("d7d6")


def test_marks_inside_variations() -> None:
    text, records = scan_to_text(
        StandIn(mark=Mark.ALL), PGN / "annotated.pgn", options=ScanOptions(variations=True)
    )
    games = reread(text)
    round4 = games[3]
    assert round4.headers["Round"] == "4"
    side = node_at(round4, 1)  # 1. Qd1 instead of 1. Qh4
    assert (side.comment, side.next().comment) == ("MATCH", "MATCH")
    assert records[3]["lists"] == [{"count": 2, "plies": ["1.1", "1.1/2"]}]
    round1 = games[0]
    assert node_at(round1, 0, 0, 1).comment == "MATCH"  # 2. Nf3, alternative to 2. Qh5
    assert node_at(round1, 0, 0, 1, 1, 0).comment == "MATCH"  # 3. d4 after 2... d6


def test_several_inputs_name_file_and_number_in_the_note() -> None:
    text, records = scan_to_text(StandIn(), PGN / "annotated.pgn", PGN / "annotated.pgn.gz")
    notes = [g.comment.split(" MATCH")[0].split(" Queen")[0] for g in reread(text)]
    assert notes[3:] == [
        "Original game: 5 (annotated.pgn.gz, game 1)",
        "Original game: 6 (annotated.pgn.gz, game 2)",
        "Original game: 7 (annotated.pgn.gz, game 3)",
    ]
    assert [(r["ordinal"], r["file_ordinal"]) for r in records] == [
        (1, 1),
        (2, 2),
        (3, 3),
        (5, 1),
        (6, 2),
        (7, 3),
    ]


def test_latin1_input_is_written_as_utf8(tmp_path: Path) -> None:
    out = tmp_path / "out.pgn"
    with atomic_text_file(out) as handle:
        scan(
            StandIn(predicate=lambda board: True),
            [InputFile.of(PGN / "latin1.pgn")],
            sinks=[PgnWriter(handle, several_files=False)],
        )
    games = reread(out.read_bytes().decode("utf-8"))
    assert games[0].headers["White"] == "Jörg Müller"
    assert games[0].next().comment == "très bien"


# --------------------------------------------------------------------------------------
# JSON Lines report
# --------------------------------------------------------------------------------------


def test_report_lines() -> None:
    _, records = scan_to_text(StandIn(mark=Mark.FIRST), PGN / "annotated.pgn")
    assert records[0] == {
        "ordinal": 1,
        "file": str(PGN / "annotated.pgn"),
        "file_ordinal": 1,
        "white": "Alpha, Anna",
        "black": "Beta, Bert",
        "lists": [{"count": 7, "plies": [0, 1, 2, 5, 6, 7, 8]}],
    }
    assert [r["lists"][0]["plies"] for r in records[1:]] == [[0, 1, 4, 5], [3, 4]]


def follow(game: chess.pgn.Game, key: int | str) -> chess.pgn.GameNode:
    """Walk to a position as the report's documented format describes it."""
    node: chess.pgn.GameNode = game
    ply = 0
    steps = [str(key)] if isinstance(key, int) else key.split("/")
    for step in steps:
        target, _, alternative = step.partition(".")
        last = int(target) - (1 if alternative else 0)
        while ply < last:
            node, ply = node.variations[0], ply + 1
        if alternative:
            node, ply = node.variations[int(alternative)], ply + 1
    return node


def test_variation_keys_follow_the_documented_format() -> None:
    [game] = reread(
        "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6 (2... Nc6 3. d4 (3. Bb5)) 3. d4) 2. Nf3 *"
    )
    nodes = _all_nodes(game)
    keys = [position_key(node) for node in nodes]
    assert len(set(keys)) == len(nodes)
    assert all(follow(game, key) is node for key, node in zip(keys, nodes, strict=True))
    bb5 = node_at(game, 0, 1, 0, 1, 1)
    assert bb5.move == chess.Move.from_uci("f1b5")
    assert position_key(bb5) == "2.1/4.1/5.1"
    assert position_key(node_at(game, 0, 1, 1, 0)) == "2.1/3.1/4"


# --------------------------------------------------------------------------------------
# Writing safely
# --------------------------------------------------------------------------------------


def test_atomic_file_appears_only_when_complete(tmp_path: Path) -> None:
    target = tmp_path / "out.pgn"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_text_file(target) as handle:
        handle.write("partial")
        raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.pgn"]
    with atomic_text_file(target) as handle:
        handle.write("new")
        assert target.read_text() == "old"
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["out.pgn"]


def test_atomic_file_gets_ordinary_permissions(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        with atomic_text_file(tmp_path / "new.pgn") as handle:
            handle.write("x")
    finally:
        os.umask(old_umask)
    assert (tmp_path / "new.pgn").stat().st_mode & 0o777 == 0o644


def test_atomic_file_in_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write"), atomic_text_file(tmp_path / "no" / "x"):
        pass


def test_refuses_to_write_over_an_input_by_any_name(tmp_path: Path) -> None:
    games = tmp_path / "games.pgn"
    games.write_text("1. e4 *\n")
    (tmp_path / "link.pgn").symlink_to(games)
    os.link(games, tmp_path / "hard.pgn")
    (tmp_path / "sub").mkdir()
    protected = [("input", games)]
    for name in ["games.pgn", "link.pgn", "hard.pgn", "sub/../games.pgn"]:
        with pytest.raises(UsageError, match="refusing to write the output"):
            check_destinations([("output", str(tmp_path / name))], protected)
    check_destinations([("output", str(tmp_path / "other.pgn"))], protected)


def test_refuses_output_and_report_in_one_place(tmp_path: Path) -> None:
    same = str(tmp_path / "x")
    with pytest.raises(UsageError, match=r"report .* over the output"):
        check_destinations([("output", same), ("report", same)], [])
    with pytest.raises(UsageError, match="standard output"):
        check_destinations([("output", "-"), ("report", "-")], [])
    with pytest.raises(UsageError, match="is a folder"):
        check_destinations([("output", str(tmp_path))], [])


def test_found_game_fields_are_what_sinks_read() -> None:
    found: list[FoundGame] = []
    scan(StandIn(), [InputFile(PGN / "annotated.pgn", "shown-name.pgn")], sinks=[found.append])
    assert {f.file for f in found} == {"shown-name.pgn"}
