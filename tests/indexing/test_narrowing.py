"""The index's narrowings beyond piece atoms, and the two ways candidates are read.

* the query's tag conditions, tested on the stored tags before a game is read, leave
  out the games they reject (even where the query examines variations);
* a list whose every alternative is one presence atom (or one flag) is decided by the
  game summary alone: the candidates are those the positions would give;
* many candidates are read from the file, few from the index: both give the scan's
  bytes.
"""

from __future__ import annotations

import bz2
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cqllegacy.api import Query, index
from cqllegacy.core import tree as ct
from cqllegacy.errors import IncompleteInput
from cqllegacy.evaluator.necessary import Alternative, ListNeed, Necessity, necessity
from cqllegacy.evaluator.operators import Atom
from cqllegacy.indexing import scan as indexed_scan
from cqllegacy.indexing import sql as index_sql
from cqllegacy.indexing import store
from cqllegacy.indexing.sql import (
    asks_positions,
    candidate_query,
    leaper_attacks_sql,
    summary_decides,
)
from cqllegacy.indexing.store import Index, open_index
from cqllegacy.runner import candidates, stored
from cqllegacy.vocab.pieces import BLACK_PIECES, EMPTY_BIT, WHITE_PIECES, types_of
from tests.cli.test_startup import imported_after, loaded_from
from tests.indexing.test_equivalence import (
    FIXTURE_PGN,
    SETTINGS,
    assert_same_answer,
    corpus_text,
    first_games,
    in_process,
)
from tests.support.runner import WCC

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("narrowing") / "corpus.pgn"
    path.write_bytes(corpus_text())
    index(path)
    return path


@pytest.fixture(scope="module")
def opened(pgn: Path) -> Iterator[Index]:
    found = open_index(pgn.with_name(pgn.name + ".cqlidx"), pgn)
    yield found
    found.close()


def legacy(text: str) -> Query:
    return Query.from_text(text)


# ---- tags -------------------------------------------------------------------------------

TAG_QUERIES = [
    "(match :player Lasker (position))",
    "(match :result 1-0 (position :check))",
    "(match :year 1900 1950 (position :variations Ke1))",
    "(match :player Carlsen (position :variations))",
]


@pytest.mark.parametrize("text", TAG_QUERIES)
def test_tag_conditions_narrow_on_the_stored_tags(text: str, pgn: Path, opened: Index) -> None:
    """The tag test leaves out games (without it the tags would not narrow), keeps every
    game the scan matches, and the indexed run writes the scan's bytes."""
    query = legacy(text)
    need = necessity(query.core)
    assert need is not None and need.tags
    without = opened.candidates(need, 0)
    with_tags = opened.candidates(need, 0, query.compiled.prefilter)
    assert set(with_tags) < set(without)
    scanned = in_process(query, pgn, False)
    assert in_process(query, pgn, True) == scanned


def test_game_numbers_and_tags_narrow_a_query_that_examines_variations() -> None:
    query = legacy("(match :gamenumber 3 9 :player Lasker (position :variations Ke1))")
    need = necessity(query.core)
    assert need is not None
    assert need.lists == () and need.gamenumber == (3, 9) and need.tags


# ---- the summary decides ----------------------------------------------------------------

_ATOMS = st.builds(
    Atom,
    types=st.integers(1, (1 << 12) - 1),
    squares=st.integers(1, (1 << 64) - 1),
    lo=st.integers(0, 1),
    hi=st.none(),
)
_FLAGS = st.sampled_from(["check", "mate", "stalemate"])
_DECIDED = st.one_of(
    _ATOMS.map(lambda atom: Alternative((atom,))),
    _FLAGS.map(lambda flag: Alternative((), frozenset({flag}))),
)


def sql_candidates(opened: Index, need: Necessity, *, positions: bool = True) -> list[int]:
    sql, parameters = candidate_query(need, 0, positions=positions)
    return [row[0] for row in opened.connection.execute(sql, parameters).fetchall()]


@SETTINGS
@given(st.lists(_DECIDED, min_size=1, max_size=3))
def test_the_summary_decides_presence_exactly(
    opened: Index, alternatives: list[Alternative]
) -> None:
    need = Necessity((ListNeed(tuple(alternatives)),))
    assert summary_decides(need.lists[0])
    decided = sql_candidates(opened, need)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_sql, "summary_decides", lambda found: False)
        assert decided == sql_candidates(opened, need)


def test_the_summary_does_not_decide_counts_or_conjunctions() -> None:
    king = Atom(types=1 << 5, squares=1)
    assert not summary_decides(ListNeed((Alternative((Atom(1, 1, 2, None),)),)))
    assert not summary_decides(ListNeed((Alternative((Atom(1, 1, 0, 0),)),)))
    assert not summary_decides(ListNeed((Alternative((king, king)),)))
    assert not summary_decides(ListNeed((Alternative((king,), frozenset({"check"})),)))
    assert not summary_decides(ListNeed((Alternative((), frozenset({"wtm"})),)))
    assert not summary_decides(ListNeed((Alternative((Atom(1 << 12, 1),)),)))


# ---- games asked by their numbers ------------------------------------------------------


@SETTINGS
@given(st.data())
def test_games_asked_by_number_are_those_numbers(opened: Index, data: st.DataObject) -> None:
    """The rows of the games named, whether they fill their range (no bits asked) or
    not (a string of bits): in the facts, the positions and the kept texts alike."""
    every = range(1, opened.games + 1)
    numbers = sorted(data.draw(st.sets(st.sampled_from(every), min_size=1, max_size=40)))
    if data.draw(st.booleans()):
        numbers = list(range(numbers[0], numbers[-1] + 1))
    condition, parameters = store.games_condition(numbers)
    rows = opened.connection.execute(
        f"SELECT DISTINCT game FROM games WHERE {condition} ORDER BY game", parameters
    ).fetchall()
    assert [row[0] for row in rows] == numbers
    assert [game for game, _clean, _tags in opened.game_facts(numbers)] == numbers
    clean = [game for game, is_clean, _tags in opened.game_facts(numbers) if is_clean]
    assert sorted(set(opened.main_lines(numbers)["game"].tolist())) == clean
    assert [text.file_ordinal for text in opened.texts(numbers)] == numbers


# ---- the summary's alternatives merged ----------------------------------------------------

#: Piece atoms of a few types and squares (often shared between alternatives).
_FEW_ATOMS = st.builds(
    Atom,
    types=st.sampled_from([types_of("K"), types_of("Rr"), types_of("q"), WHITE_PIECES]),
    squares=st.sampled_from([1 << 3, 1 << 27, 1 << 60, chess.BB_RANK_2, chess.BB_FILE_D]),
    lo=st.sampled_from([0, 1, 1, 1]),
    hi=st.none(),
)


#: A member's squares: one square, or a line that may hold others' squares.
_MEMBER_SQUARES = st.one_of(
    st.integers(0, 63).map(lambda square: 1 << square),
    st.sampled_from([chess.BB_RANK_1, chess.BB_FILE_A, chess.BB_RANK_1 | chess.BB_FILE_A]),
)


@st.composite
def _orbit_like(draw: st.DrawFn) -> list[Alternative]:
    """Alternatives as an orbit makes them: shared atoms and flags, and one atom whose
    squares differ from member to member; some unrelated alternatives besides."""
    shared = draw(st.lists(_FEW_ATOMS, max_size=2))
    flags = draw(st.sampled_from([frozenset(), frozenset({"check"}), frozenset({"mate"})]))
    types = draw(st.sampled_from([types_of("K"), types_of("n"), types_of("Qq"), BLACK_PIECES]))
    squares = draw(st.lists(_MEMBER_SQUARES, min_size=2, max_size=10, unique=True))
    members = [Alternative((*shared, Atom(types, each)), flags) for each in squares]
    others = draw(
        st.lists(
            st.builds(Alternative, st.lists(_FEW_ATOMS, min_size=1, max_size=2).map(tuple)),
            max_size=2,
        )
    )
    return draw(st.permutations(members + others))


def _unmerged(alternatives: list[Alternative]) -> list[frozenset[tuple[str, int | None]]]:
    return list(dict.fromkeys(index_sql._summary_terms(alt) for alt in alternatives))


@SETTINGS
@given(_orbit_like())
def test_merged_summary_alternatives_pass_the_same_games(
    opened: Index, alternatives: list[Alternative]
) -> None:
    """Alternatives differing in one union's squares only, asked as one, pass the games
    that asking each passes."""
    assert len(index_sql.merged_terms(alternatives)) < len(_unmerged(alternatives))
    need = Necessity((ListNeed(tuple(alternatives)),))
    merged = sql_candidates(opened, need, positions=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_sql, "merged_terms", _unmerged)
        assert merged == sql_candidates(opened, need, positions=False)


def test_a_shifted_script_asks_the_summary_one_alternative_per_kind_of_ray() -> None:
    # Appendix C #10's shape: 64 squares for d4 under :shift, a rook's or a bishop's ray:
    # 128 alternatives, which differ in one union's squares only, but for the ray's pieces.
    text = """(match (position :wtm :moveto .d4 :check
        :or ((position :rayorthogonal ([qr] .d4 K)) (position :raydiagonal ([qb] .d4 K)))
        :shift))"""
    need = necessity(legacy(text).core)
    assert need is not None
    (found,) = need.lists
    assert len(found.alternatives) >= 128
    assert len(index_sql.merged_terms(found.alternatives)) == 2


# ---- where candidates are read ----------------------------------------------------------

SCRIPTS = [
    ROOT / "benchmarks" / "queries" / name
    for name in ("plain.cql", "attackcount.cql", "sequence.cql", "relation-result.cql")
]


@pytest.mark.parametrize("share", [0.0, 1.0])
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_candidates_from_the_file_or_the_index_give_the_scans_bytes(
    script: Path, share: float, pgn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``share`` 0: every candidate is read from the file; 1: from the index (its text:
    the stored positions, which serve these queries otherwise, are left out here; see
    test_replay.py)."""
    query = Query.from_text(script.read_text(encoding="utf-8"))
    read: list[str] = []
    original = candidates.from_the_file

    def spy(path: Path, numbers: list[int]) -> Iterator[object]:
        read.append("file")
        return original(path, numbers)

    monkeypatch.setattr(candidates, "FROM_THE_FILE", share)
    monkeypatch.setattr(candidates, "from_the_file", spy)
    monkeypatch.setattr(stored, "feeds", lambda compiled, options: False)
    scanned = in_process(query, pgn, False)
    assert in_process(query, pgn, True) == scanned
    assert bool(read) == (share == 0.0)


@pytest.mark.parametrize(
    "text", ["(match :player Lasker (position))", "(match :result 1-0 :gamenumber 5 90 (position))"]
)
def test_a_query_its_tags_decide_is_scanned_without_opening_the_index(
    text: str, pgn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan reads such a query's games without replaying a move (the index could
    only add its own cost): the index is not opened, and the answer is the scan's."""
    query = legacy(text)
    assert query.compiled.decided_by_tags
    scanned = in_process(query, pgn, False)

    def refuse(path: Path, source: Path) -> Index:
        raise AssertionError(f"the index {path} was opened")

    monkeypatch.setattr(indexed_scan, "open_index", refuse)
    assert in_process(query, pgn, True) == scanned
    named = in_process(query, pgn, str(pgn.with_name(pgn.name + ".cqlidx")))
    note = "note: the tags alone decide this query, which the scan reads faster; scanning\n"
    assert named == (scanned[0], scanned[1], note + scanned[2], scanned[3])


def test_a_query_its_tags_decide_imports_nothing_of_the_index(pgn: Path) -> None:
    script = pgn.with_name("tags.cql")
    script.write_text("(match :player Lasker (position))\n", encoding="utf-8")
    argv = ["run", str(script), "-i", str(pgn), "-o", str(pgn.with_name("t.pgn")), "-q"]
    names = imported_after(f"from cqllegacy.cli import main\nassert main({argv!r}) == 0")
    assert loaded_from(names, ("cqllegacy.indexing", "duckdb", "numpy")) == []


def test_a_file_changed_while_its_candidates_are_read_is_an_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone.pgn"
    with pytest.raises(IncompleteInput, match="changed while it was read"):
        list(candidates.from_the_file(gone, [1]))


# ---- positions asked only where they pay ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "asked"),
    [("(match (position Pc4 Pd4 Pe4 pd5 pe5))", True),
     ("(match (position :wtm K))", False)],
)  # fmt: skip
def test_positions_are_asked_where_a_sample_says_they_narrow(
    text: str, asked: bool, pgn: Path, opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a sample of 50 games, a pawn chain narrows (asked), a white king with
    White to move does not (every game has one: the summary alone narrows); the
    indexed run writes the scan's bytes either way."""
    monkeypatch.setattr(store, "SAMPLE_GAMES", 50)
    monkeypatch.setattr(store, "FEW_POSITIONS", 0)
    query = legacy(text)
    need = necessity(query.core)
    assert need is not None and asks_positions(need)
    assert opened._worth_asking_positions(need, 0) is asked
    scanned = in_process(query, pgn, False)
    assert in_process(query, pgn, True) == scanned


def test_the_positions_of_a_small_index_are_asked_without_a_sample(
    opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below FEW_POSITIONS a pass over the positions costs less than the sample's
    questions: even a question that narrows nothing is asked."""
    monkeypatch.setattr(store, "SAMPLE_GAMES", 50)
    need = necessity(legacy("(match (position :wtm K))").core)
    assert need is not None
    assert opened._worth_asking_positions(need, 0) is True
    monkeypatch.setattr(store, "FEW_POSITIONS", 0)
    assert opened._worth_asking_positions(need, 0) is False


# ---- move facts, lines, finds, large orbits ---------------------------------------------

#: Queries the index narrows by what it keeps of moves (the move played from a position,
#: the one that led to it), by a line's next steps, by a find and by an orbit's hull; each
#: matches some games of the corpus, so a condition that leaves one out changes the bytes.
MOVE_QUERIES = [
    "(match (position :movefrom Nb1 :moveto ?c3))",
    "(match (position :movefrom [Qq] :moveto [rR]))",
    "(match (position :promote Q))",
    "cql() move from N to [c3,f6]",
    "cql() move from R capture q",
    "cql() move to _g1",
    "cql() move from K to g1",
    "cql() move o-o-o",
    "cql() move enpassant",
    "cql() move capture p[a-d5] from P",
    "cql() move promote A",
    "cql() check move previous from N",
    "cql() move previous from K to [g8,c8]",
    "cql() move previous capture Q",
    "cql() wtm move previous capture A",
    "cql() line --> move from [QR] capture a --> {check move capture A}",
    "cql() line --> check --> check",
    "cql() line --> check --> .* --> mate",
    "cql() initial find move promote N",
    "cql() initial btm",
    "cql() move to _ capture p",
    "cql() initial find {move from k to g8}",
    "(match (position :movefrom Qa2 :shift :flip :flipcolor))",
    "(match (position Nd4 kf3 :shift :flip :flipcolor))",
    "(match (position :piececount P[b2-7] 3 :shifthorizontal :flipcolor))",
    "(match (position :attackcount N k 1 :attackcount N q 1 :flipcolor))",
    "(match (position :attackcount [Pp] [Qq] 1))",
    "cql() k attackedby N",
    "cql() btm A attacks k",
    "(match (position :check :matchcount 6 100))",
    "(match :forany knight [Nn] (position :attackcount $knight [Kk] 1 :matchcount 2 100))",
    "(match :forany rook [Rr] (position $rook[a-h7] :sequence ((position :movefrom $rook) "
    "(position) (position :movefrom $rook))))",
    "(match :forany chaser [nN] (position :tagmatch chaser n :sequence ((position :wtm "
    ":attackcount $chaser N 1) (position :movefrom $chaser))))",
]


@pytest.mark.parametrize("text", MOVE_QUERIES)
def test_move_facts_lines_and_hulls_narrow_exactly(text: str, pgn: Path, opened: Index) -> None:
    """The index leaves out games (it narrows) and the indexed run writes the scan's
    bytes (it leaves out no game that matches)."""
    query = Query.from_text(text)
    need = necessity(query.core)
    assert need is not None
    assert len(opened.candidates(need, 0)) < opened.games
    scanned = in_process(query, pgn, False)
    assert scanned[0], "a query that matches nothing here would prove little"
    assert in_process(query, pgn, True) == scanned


@pytest.mark.parametrize(
    "text",
    [
        "cql() line --> move from [QR] capture a --> {check move capture A}",
        "cql() line --> check --> check",
        "cql() check move previous from N",
        "cql() wtm move previous capture A",
        "cql() line --> Pe4 --> move from p --> Nf3 --> check",
        "(match :forany rook [Rr] (position $rook[a-h7] :sequence ((position :movefrom $rook) "
        "(position) (position :movefrom $rook))))",
    ],
)
def test_neighbours_by_joins_are_those_of_windows(
    text: str, opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list that reads other plies finds the same games whether each neighbour is read
    by a join from the list's own rows or by a window over every row."""
    need = necessity(Query.from_text(text).core)
    assert need is not None
    found = {}
    for joined in (False, True):
        monkeypatch.setattr(index_sql, "STEP_BY_JOINS", joined)
        sql, parameters = candidate_query(need, 0)
        assert ("JOIN positions AS o_" in sql) is joined
        assert ("OVER along" in sql) is not joined
        found[joined] = opened.connection.execute(sql, parameters).fetchall()
    assert found[False] == found[True]
    assert len(found[True]) < opened.games


@pytest.mark.parametrize(
    "text", ["cql() line --> check --> check --> .* --> mate", "cql() move previous capture Q"]
)
def test_windows_asked_a_block_of_games_at_a_time_find_the_same_games(
    text: str, opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question that orders every position in a window is asked a block of games at a
    time on a large file (its memory bounded): the same candidates as asked at once."""
    need = necessity(Query.from_text(text).core)
    assert need is not None
    assert index_sql.reads_windows(candidate_query(need, 0)[0])
    whole = opened.candidates(need, 0)
    monkeypatch.setattr(store, "WINDOW_GAMES", 7)
    assert opened.candidates(need, 0) == whole
    assert len(whole) < opened.games


_SQUARES = st.one_of(
    st.integers(1, (1 << 64) - 1),
    st.sampled_from([chess.BB_RANK_1, chess.BB_RANK_8, chess.BB_FILE_E, chess.BB_CENTER]),
)
_DESIGNATORS = st.builds(
    ct.PieceSet,
    types=st.sampled_from(
        [WHITE_PIECES, BLACK_PIECES, EMPTY_BIT]
        + [types_of(letters) for letters in ("N", "p", "Qq", "K", "R", "Bb")]
    ),
    squares=_SQUARES,
)
_MOVES = st.builds(
    ct.Move,
    from_=st.none() | _DESIGNATORS,
    to=st.none() | _DESIGNATORS,
    capture=st.none() | _DESIGNATORS,
    promote=st.none() | st.sampled_from([types_of("Q"), types_of("n"), WHITE_PIECES]),
    enpassant=st.booleans(),
    previous=st.booleans(),
)


def _move_query(draw: st.DrawFn) -> ct.Query:
    move = draw(_MOVES)
    extra = draw(st.sampled_from([None, ct.Simple(ct.Keyword.CHECK), ct.Simple(ct.Keyword.WTM)]))
    body: ct.Filter = move if extra is None else ct.Compound((extra, move))
    if draw(st.booleans()):
        second = draw(_MOVES)
        body = ct.Line((ct.LineStep(body), ct.LineStep(second)))
    return ct.Query(ct.Header(), (ct.TopList(body),))


@pytest.fixture(scope="module")
def few(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Some World Championship games (castling, en passant, promotions) and the fixture
    games (FEN starts, mates), indexed."""
    path = tmp_path_factory.mktemp("few") / "few.pgn"
    wcc = bz2.decompress(WCC.read_bytes()).decode("latin-1")
    fixture = FIXTURE_PGN.read_text(encoding="utf-8").encode("utf-8").decode("latin-1")
    path.write_text(first_games(wcc, 16) + first_games(fixture, 16), encoding="latin-1")
    index(path)
    return path


@SETTINGS
@given(st.composite(_move_query)())
def test_generated_move_queries_narrow_exactly(few: Path, query: ct.Query) -> None:
    assert_same_answer(query, few)


#: A Chess960 game castles king-takes-rook (``e1h1``: the index keeps h1 as the move's
#: square), where ``move to`` reads the king's landing (g1); and a game that does not castle.
CHESS960 = """[Event "castles"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]
[Result "*"]

1. O-O Kd7 *

[Event "does not"]
[Result "*"]

1. e4 e5 *
"""


@pytest.mark.parametrize("text", ["cql() move to g1", "cql() move from K to _g1", "cql() move o-o"])
def test_castling_king_takes_rook_is_a_candidate(text: str, tmp_path: Path) -> None:
    path = tmp_path / "960.pgn"
    path.write_text(CHESS960, encoding="utf-8")
    index(path)
    query = Query.from_text(text)
    scanned = in_process(query, path, False)
    assert "castles" in scanned[0] and "does not" not in scanned[0]
    assert in_process(query, path, True) == scanned


def test_leaper_attacks_are_python_chess_attack_tables() -> None:
    """The SQL of a pawn's, knight's and king's attacks from each square."""
    import duckdb

    connection = duckdb.connect()
    tables = {(chess.KNIGHT, colour): chess.BB_KNIGHT_ATTACKS for colour in chess.COLORS} | {
        (chess.KING, colour): chess.BB_KING_ATTACKS for colour in chess.COLORS
    }
    tables |= {(chess.PAWN, colour): chess.BB_PAWN_ATTACKS[colour] for colour in chess.COLORS}
    for (kind, colour), table in tables.items():
        found = [
            leaper_attacks_sql(f"{1 << square}::UBIGINT", kind, colour) for square in chess.SQUARES
        ]
        row = connection.execute("SELECT " + ", ".join(found)).fetchone()
        assert list(row) == list(table), (kind, colour)


#: Set-up positions with two black kings: python-chess's check is of one of them only.
TWO_KINGS = """[Event "two kings"]
[SetUp "1"]
[FEN "k6k/2N5/8/8/8/8/8/K7 b - - 0 1"]
[Result "*"]

*

[Event "one king"]
[SetUp "1"]
[FEN "k7/8/8/8/8/8/8/K1N5 b - - 0 1"]
[Result "*"]

*
"""


def test_an_attacked_king_of_two_is_a_candidate(tmp_path: Path) -> None:
    path = tmp_path / "kings.pgn"
    path.write_text(TWO_KINGS, encoding="utf-8")
    index(path)
    query = Query.from_text("cql() btm N attacks k")
    scanned = in_process(query, path, False)
    assert "two kings" in scanned[0] and "one king" not in scanned[0]
    assert in_process(query, path, True) == scanned


def test_a_fork_orbit_s_hull_narrows_by_the_knight_s_jump(
    opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The knight fork's orbit is too long a question and is asked as its hull: the
    knight attacking the king and the queen, which each member's squares say, leaves
    out games where a knight, a king and a queen merely stand somewhere."""
    from cqllegacy.evaluator import necessary

    query = Query.from_text((ROOT / "examples" / "knight-fork.cql").read_text())
    need = necessity(query.core)
    assert need is not None
    assert "positions" in candidate_query(need, 0)[0], "the hull would be asked"
    kept = opened.candidates(need, 0)
    monkeypatch.setattr(necessary, "_atom_leaps", lambda _alternative: frozenset())
    loose = necessity(query.core)
    assert loose is not None
    assert set(kept) < set(opened.candidates(loose, 0))


def test_a_move_s_piece_is_not_asked_twice() -> None:
    """``move from Qa2`` says a queen stands on a2: the move's own columns say it, so
    the question reads no board column."""
    need = necessity(Query.from_text("cql() move from Qa2").core)
    assert need is not None
    (alternative,) = need.lists[0].alternatives
    assert alternative.atoms, "the piece atom is there to be left out"
    condition = index_sql.alternative_sql(alternative)
    assert "move_from" in condition
    assert not any(name in condition for name in ("queens", "white", "black"))


@pytest.mark.parametrize(
    "text",
    [
        "(match (position :mate :attackcount N k 1 :attackcount k [A.] 0 :flipcolor))",
        "(match (position :check Qd1 :flipcolor))",
        "cql() line --> check --> check",
        "cql() {stalemate btm} or {mate K[a-h1]}",
    ],
)
def test_rows_read_by_their_flags_first_are_the_same_games(
    text: str, opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list whose alternatives ask for check, mate or stalemate reads the rows with
    those flags first (DuckDB tests the one column as it reads it): the same games as
    the long test over every row."""
    need = necessity(Query.from_text(text).core)
    assert need is not None
    flagged = opened.candidates(need, 0)
    assert "AS flagged" in candidate_query(need, 0)[0]
    monkeypatch.setattr(index_sql, "_flagged_rows", lambda _alternatives, _rows: index_sql._SEMI)
    assert "AS flagged" not in candidate_query(need, 0)[0]
    assert opened.candidates(need, 0) == flagged
    assert 0 < len(flagged) < opened.games


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("(match (position :mate :attackcount N k 1 :attackcount k [A.] 0 :flipcolor))", True),
        ("cql() {stalemate btm} or {mate K[a-h1]}", True),
        ("cql() line --> check --> mate", False),
        ("cql() mate or {check Qd1}", False),
    ],
)
def test_rows_of_mates_and_stalemates_are_read_from_their_own_table(
    text: str, ends: bool, opened: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list whose every alternative asks for mate or stalemate at its own row reads
    the few rows of the ``ended`` table, not a column of every position: the same
    games as asked of every position."""
    need = necessity(Query.from_text(text).core)
    assert need is not None
    sql = candidate_query(need, 0)[0]
    assert ("FROM ended" in sql) is ends
    found = opened.candidates(need, 0)
    monkeypatch.setattr(index_sql, "_ENDED_SEMI", index_sql._SEMI)
    assert "FROM ended" not in candidate_query(need, 0)[0]
    assert opened.candidates(need, 0) == found
    assert 0 < len(found) < opened.games
