"""Output PGN and JSON Lines report, re-read with python-chess and json; safe writing.

The output is written from each game's text; it is compared with what python-chess reads
back from it, with the input game itself, and with the way output used to be made (the
game tree exported by python-chess, the report from its nodes), which is redone here.
"""

from __future__ import annotations

import io
import json
import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from cqllegacy.translator import to_core
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cqllegacy.runner.game_scan as game_scan
from cqllegacy.core.tree import Mark
from cqllegacy.errors import UsageError
from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.legacy import read_script
from cqllegacy.runner.output import (
    PgnWriter,
    annotate_movetext,
    annotated_game,
    atomic_text_file,
    check_destinations,
    write_text_atomically,
)
from cqllegacy.runner.pgn import (
    GameText,
    UnreadableGame,
    open_pgn,
    read_game,
    read_tags,
    split_games,
)
from cqllegacy.runner.report import ReportWriter, position_key
from cqllegacy.runner.results import FoundGame, InputFile, ListFound, ScanOptions
from cqllegacy.runner.scanner import scan
from tests.runner.test_movetext import depth_first, game_texts
from tests.support.runner import PGN, StandIn, node_at, read_all

ROOT = Path(__file__).resolve().parents[2]

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


def test_text_written_atomically_is_utf8_with_its_line_ends_and_ordinary_permissions(
    tmp_path: Path,
) -> None:
    """The one writer of run, translate, migrate and the fixture kit (its temporary file
    must not leave the result readable by its owner only)."""
    target = tmp_path / "modern.cql"
    old_umask = os.umask(0o022)
    try:
        write_text_atomically(target, "// Jörg\ncql() mate\n")
    finally:
        os.umask(old_umask)
    assert target.read_bytes() == "// Jörg\ncql() mate\n".encode()
    assert target.stat().st_mode & 0o777 == 0o644
    assert os.listdir(tmp_path) == ["modern.cql"]


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


# --------------------------------------------------------------------------------------
# Written from the text: nothing lost, marks where python-chess reads them
# --------------------------------------------------------------------------------------


def test_semicolon_comments_escape_lines_and_layout_are_kept() -> None:
    movetext = "1. e4 ; king's pawn\n% an escape line\n1... e5   2. Nf3 {x}\n(2. Bc4) *\n"
    text = GameText(3, 1, ('[White "A"]\n', '[Black "B"]\n'), movetext)
    written = annotated_game(text, [], "Original game: 3")
    assert written == f'[White "A"]\n[Black "B"]\n\n{{ Original game: 3 }} {movetext}\n'


def test_marks_go_after_the_move_and_its_comments() -> None:
    movetext = "{intro} 1. e4+! $1 {a} {b} (1. d4 {c}) e5 ; aside\n{d} 2. Nf3 *\n"
    out = annotate_movetext(movetext, [0, 1, "1.1", 2, 3], "N")
    assert out == (
        "{ N } {intro} { MATCH } 1. e4+! $1 {a} {b} { MATCH } (1. d4 {c} { MATCH }) e5 "
        "; aside\n{d} { MATCH } 2. Nf3 { MATCH } *\n"
    )
    game = chess.pgn.read_game(io.StringIO(out))
    assert game.comment == "N intro MATCH"
    assert game.next().comment == "a b MATCH"
    assert game.variation(1).comment == "c MATCH"
    assert game.next().next().comment == "d MATCH"


def test_the_note_keeps_a_first_line_that_means_something_at_a_line_start() -> None:
    for movetext in ["% escape\n1. e4 *\n", "; comment\n1. e4 *\n"]:
        out = annotate_movetext(movetext, [0], "N")
        assert out == "{ N } { MATCH }\n" + movetext
        assert chess.pgn.read_game(io.StringIO(out)).comment == "N MATCH"


def test_games_without_moves_or_tags() -> None:
    assert annotated_game(GameText(1, 1, ('[Event "x"]',), ""), [0], "N") == (
        '[Event "x"]\n\n{ N } { MATCH }\n\n'
    )
    assert annotated_game(GameText(1, 1, (), "1. e4"), [1], "N") == "{ N } 1. e4 { MATCH }\n\n"


def test_a_brace_in_a_file_name_does_not_end_the_note() -> None:
    out = annotate_movetext("1. e4 *", [0], "Original game: 2 (a}b.pgn, game 1)")
    assert chess.pgn.read_game(io.StringIO(out)).comment == (
        "Original game: 2 (ab.pgn, game 1) MATCH"
    )


def test_a_position_the_movetext_does_not_have_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"not in the movetext: 2\.1, 3"):
        annotate_movetext("1. e4 e5 *", [1, 3, "2.1"], "N")


def test_found_games_pickle() -> None:
    found: list[FoundGame] = []
    scan(StandIn(mark=Mark.ALL), [InputFile.of(PGN / "annotated.pgn")], sinks=[found.append])
    assert found and all(pickle.loads(pickle.dumps(game)) == game for game in found)
    assert found[0].lists == (ListFound(7, (0, 1, 2, 5, 6, 7, 8), (0, 1, 2, 5, 6, 7, 8)),)


# --------------------------------------------------------------------------------------
# Generated games: MATCH exactly at the marked nodes, everything else as read before
# --------------------------------------------------------------------------------------


def signature(game: chess.pgn.Game) -> list[tuple[object, ...]]:
    """What python-chess read: every node's position key, move, NAGs and comments."""
    return [
        (
            position_key(node),
            node.move,
            sorted(node.nags),
            node.comment,
            node.starting_comment if node.parent is not None else "",
        )
        for node in depth_first(game)
    ]


def without_annotations(game: chess.pgn.Game, note: str) -> set[int | str]:
    """Take the note and the MATCH marks out of a re-read game's comments (in place);
    the keys of the positions that had a MATCH."""
    assert game.comment.startswith(note)
    game.comment = game.comment[len(note) :].removeprefix(" ")
    marked = set()
    for node in depth_first(game):
        words = node.comment.split(" ")
        if "MATCH" in words:
            assert words.count("MATCH") == 1
            words.remove("MATCH")
            marked.add(position_key(node))
        node.comment = " ".join(words)
    return marked


def reread_one(text: str) -> chess.pgn.Game:
    [game] = [g for g in _read_games(text)]
    return game


def _read_games(text: str) -> Iterator[chess.pgn.Game]:
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors, game.errors
        yield game


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_texts(), st.data())
def test_generated_games_come_back_with_marks_exactly_where_asked(
    text: GameText, data: st.DataObject
) -> None:
    original = read_game(text)
    keys = [position_key(node) for node in depth_first(original)]
    marked = set(data.draw(st.lists(st.sampled_from(keys), unique=True)))
    note = "Original game: 9 (x.pgn, game 4)"
    written = annotated_game(text, marked, note)
    again = reread_one(written)
    assert dict(again.headers) == dict(original.headers)
    assert without_annotations(again, note) == marked
    assert signature(again) == signature(original)
    # The output is a PGN file the runner reads as it reads its input.
    [split] = split_games(io.StringIO(written))
    assert split.movetext.count("{ MATCH }") == len(marked)


# --------------------------------------------------------------------------------------
# The same results as the old way: game trees, python-chess's exporter, node keys
# --------------------------------------------------------------------------------------


class _OldExporter(chess.pgn.StringExporter):
    def __init__(self, note: str) -> None:
        super().__init__(columns=80, headers=True, comments=True, variations=True)
        self.note = note

    def end_headers(self) -> None:
        super().end_headers()
        self.visit_comment(self.note)


def old_output(game: chess.pgn.Game, marked: Sequence[chess.pgn.GameNode], note: str) -> str:
    """The output text as python-chess's exporter made it, MATCH appended to comments."""
    saved = {node: node.comment for node in marked}
    try:
        for node in saved:
            node.comment = f"{node.comment} MATCH" if node.comment else "MATCH"
        return game.accept(_OldExporter(note))
    finally:
        for node, comment in saved.items():
            node.comment = comment


def old_run(
    compiled: Any, inputs: Sequence[Path], options: ScanOptions
) -> tuple[list[dict[str, object]], list[str], list[chess.pgn.Game]]:
    """Report records and output texts as the runner made them from game trees, and the
    input games that matched."""
    records, texts, games = [], [], []
    ordinal = 0
    for path in inputs:
        with open_pgn(path) as source:
            for text in split_games(source.lines()):
                ordinal += 1
                headers, problems = read_tags(text.tag_lines)
                if problems or not compiled.prefilter(headers, ordinal):
                    continue
                try:
                    game = read_game(text)
                except UnreadableGame:
                    continue
                match = compiled.evaluate(
                    game,
                    ordinal,
                    skip_initial=options.skip_initial,
                    variations=options.variations,
                )
                if not match.matched:
                    continue
                records.append(
                    {
                        "ordinal": ordinal,
                        "file": str(path),
                        "file_ordinal": text.file_ordinal,
                        "white": game.headers.get("White", "?"),
                        "black": game.headers.get("Black", "?"),
                        "lists": [
                            {
                                "count": found.count,
                                "plies": [position_key(n) for n in found.positions],
                            }
                            for found in match.lists
                        ],
                    }
                )
                marked = list(dict.fromkeys(n for found in match.lists for n in found.marked))
                note = f"Original game: {ordinal} ({path.name}, game {text.file_ordinal})"
                texts.append(old_output(game, marked, note))
                games.append(game)
    return records, texts, games


def legacy(script: str) -> Any:
    return compile_query(to_core(read_script(script)))


EQUIVALENCE_SCRIPTS = [
    "(match (position :check :markall))",
    "(match (position :variations :mate :markall))",
    "(match (position :variationsonly :stalemate))",
    "(match (position :promote U :noannotate) (position :mate))",
    "(match (position :enpassant) (position :movefrom [Kk]e? :moveto .[c?,g?])"
    " (position :check :markall))",
    "(match (position :variations :enpassant) (position :mate))",
    "(match (position :variations :promote [Qq] :markall) (position :promote [Nn]))",
    "(match :forany rook [Rr] (position $rook[a1]) (position $rook[d1] :markall))",
    "(match (position :sequence ((position :check :movefrom [Kk]) (position) (position :mate))))",
    "(match (position :attackcount Q k 1 1 :markall))",
    # The tags decide these: no move is replayed.
    "(match :player Loyd (position :markall))",
    "(match (position :result 1-0 :variations :markall))",
    "(match (position :noannotate) (position :result 1/2 :markall))",
    "(match (position :matchcount 3 12 :markall))",
]
EQUIVALENCE_INPUTS = [ROOT / "fixtures" / "games.pgn", PGN / "annotated.pgn"]


def test_report_and_output_are_those_of_game_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    paths: dict[str, int] = {"tree": 0, "stream": 0, "tags": 0}

    def counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            paths[name] += 1
            return function(*args)

        return call

    monkeypatch.setattr(game_scan, "read_game", counted("tree", game_scan.read_game))
    monkeypatch.setattr(game_scan, "read_stream", counted("stream", game_scan.read_stream))
    monkeypatch.setattr(game_scan, "scan_movetext", counted("tags", game_scan.scan_movetext))
    compared = 0
    for script in EQUIVALENCE_SCRIPTS:
        compiled = legacy(script)
        for options in (ScanOptions(), ScanOptions(skip_initial=True, variations=True)):
            pgn, report = io.StringIO(), io.StringIO()
            scan(
                compiled,
                [InputFile.of(path) for path in EQUIVALENCE_INPUTS],
                options=options,
                sinks=[PgnWriter(pgn, several_files=True), ReportWriter(report)],
            )
            records, old_texts, originals = old_run(compiled, EQUIVALENCE_INPUTS, options)
            assert [json.loads(line) for line in report.getvalue().splitlines()] == records
            written = list(_read_games(pgn.getvalue()))
            assert len(written) == len(originals)
            for new, old_text, original, record in zip(
                written, old_texts, originals, records, strict=True
            ):
                assert signature(new) == signature(reread_one(old_text)), (script, record)
                file, number = Path(str(record["file"])).name, record["file_ordinal"]
                note = f"Original game: {record['ordinal']} ({file}, game {number})"
                expected_marks = _marked_keys(compiled, original, record["ordinal"], options)
                assert without_annotations(new, note) == expected_marks
                assert signature(new) == signature(original)
                compared += 1
    assert compared > 500
    # Every way of evaluating a game was taken.
    assert all(paths.values()), paths


def _marked_keys(
    compiled: Any, game: chess.pgn.Game, ordinal: Any, options: ScanOptions
) -> set[int | str]:
    match = compiled.evaluate(
        game, ordinal, skip_initial=options.skip_initial, variations=options.variations
    )
    return {position_key(node) for found in match.lists for node in found.marked}
