"""The translator against the naive reference evaluator (tests/support/reference_legacy.py).

For a legacy script, the production path is ``compile_query(to_core(script))``; the
reference evaluates the legacy tree literally.  Both must find the same positions in
real games: World Championship games (``cqllegacy/data/wcc.pgn.bz2``) and Lichess
puzzles (``fixtures/lichess-puzzles.pgn.xz``), chosen to include en passant,
promotions (an underpromotion too), castling, mate and stalemate.
"""

from __future__ import annotations

import bz2
import functools
import lzma
from collections.abc import Iterator
from pathlib import Path

import attrs
import chess
import chess.pgn
import pytest
from cqllegacy.translator import TranslationError, modern_form, to_core
from cqllegacy.translator.orbits import transform_keywords
from cqllegacy.translator.parts import (
    TranslationContext,
)
from cqllegacy.translator.rewrite import (
    base_list,
    orbit_filters,
    strip_comments,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.core import tree as core
from cqllegacy.evaluator.evaluate import CompiledQuery, compile_query
from cqllegacy.legacy import read_script
from cqllegacy.legacy.tree import PositionList, RangeTest, Script
from tests.support import reference_legacy as ref

ROOT = Path(__file__).resolve().parents[2]
WCC = ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2"
PUZZLES = ROOT / "fixtures" / "lichess-puzzles.pgn.xz"
# Ordinals (0-based) of WCC games: en passant (26), a promotion (18), long castling
# (14), mate (215) and stalemate (591).
WCC_GAMES = (14, 18, 26, 215, 591)
PUZZLE_COUNT = 70  # includes en passant and an underpromotion (puzzle 60)


def _read(stream: object, wanted: set[int], stop: int) -> Iterator[chess.pgn.Game]:
    for i in range(stop):
        if i in wanted:
            game = chess.pgn.read_game(stream)  # type: ignore[arg-type]
            assert game is not None
            yield game
        else:
            chess.pgn.skip_game(stream)  # type: ignore[arg-type]


def _load_games() -> tuple[chess.pgn.Game, ...]:
    with bz2.open(WCC, "rt", encoding="utf-8") as wcc:
        games = list(_read(wcc, set(WCC_GAMES), max(WCC_GAMES) + 1))
    with lzma.open(PUZZLES, "rt", encoding="utf-8") as puzzles:
        games += list(_read(puzzles, set(range(PUZZLE_COUNT)), PUZZLE_COUNT))
    return tuple(games)


GAMES = _load_games()
# A smaller sample for generated scripts: short puzzles and one full game.
SAMPLE = (GAMES[2], *GAMES[len(WCC_GAMES) : len(WCC_GAMES) + 35])
# For lists whose legacy orbit has hundreds (thousands) of members: slow in the reference.
SMALL = GAMES[len(WCC_GAMES) : len(WCC_GAMES) + 30]
TINY = GAMES[len(WCC_GAMES) : len(WCC_GAMES) + 12]
HEAVY = (":shift", ":accumulate", ":attackcount n")


def sample_for(text: str) -> tuple[chess.pgn.Game, ...]:
    if ":shift :flip" in text or ":shift)" in text or ":shift :accumulate" in text:
        return TINY
    return SMALL if any(word in text for word in HEAVY) else GAMES


def mainline_index(game: chess.pgn.Game) -> dict[int, int]:
    index: dict[int, int] = {}
    node: chess.pgn.GameNode = game
    ply = 0
    while True:
        index[id(node)] = ply
        if not node.variations:
            return index
        node = node.variations[0]
        ply += 1


@functools.lru_cache(maxsize=64)
def compiled_alone(top: core.TopList) -> CompiledQuery:
    """A query of this one list that every game satisfies, to read off its positions."""
    return compile_query(core.Query(core.Header(), (attrs.evolve(top, matchcount=(0, None)),)))


def production_plies(top: core.TopList, game: chess.pgn.Game) -> list[int]:
    """Plies where a top-level list's body matches, by the core evaluator."""
    result = compiled_alone(top).evaluate(game, 1)
    index = mainline_index(game)
    return sorted(index[id(node)] for node in result.lists[0].positions)


def check_script(text: str, games: tuple[chess.pgn.Game, ...] = GAMES) -> int:
    """Assert both evaluators agree on every list and game; return the number of hits."""
    script = read_script(text)
    query = to_core(script)
    compiled = compile_query(query)
    lists = script.match.position_lists()
    hits = 0
    tagged = bool(query.tags)
    translated = _translation(script)
    for ordinal, game in enumerate(games, 1):
        line = ref.Line(game)
        # Match-list conditions live in a list's body: compare lists where they hold.
        # With tags a list's positions depend on the binding: compare games only.
        conditions = ref.game_conditions(script.match, game, ordinal) and not tagged
        for pl, top in zip(lists, query.lists, strict=False) if conditions else ():
            if any(r.keyword.value == "pretransformmatchcount" for r in _range_tests(pl)):
                continue
            expected = ref.top_list_plies(pl, line)
            assert production_plies(top, game) == expected, (text, game.headers)
            hits += len(expected)
        matched = compiled.evaluate(game, ordinal).matched
        assert matched == ref.game_matches(script, game, ordinal), (text, game.headers)
        if translated is not None:
            # The translation (echo for :relation, piece loops for tags) against the same.
            modern = translated.evaluate(game, ordinal).matched
            assert modern == matched, ("translation", text, game.headers)
    return hits


def _translation(script: Script) -> CompiledQuery | None:
    """The compiled CQL 6.1 form of a script, or None when it is refused."""
    try:
        return compile_query(modern_form(to_core(script, modern=True)))
    except TranslationError:
        return None


def _range_tests(pl: PositionList) -> list[RangeTest]:
    return [i for i in pl.items if isinstance(i, RangeTest)]


# --- the reference itself follows the worked examples (semantics: S-unit-shifts, S-shift-sets)


def squares(*names: str) -> frozenset[ref.Square]:
    return frozenset((ord(n[0]) - ord("a"), int(n[1]) - 1) for n in names)


def test_reference_unit_shifts_follow_section_5_2() -> None:
    assert ref.unit_right(squares("c2", "h2")) == squares("d2")
    assert ref.unit_right(squares("a2", "c2", "h2")) == squares("a2", "b2", "d2")
    assert ref.unit_up(squares("a1", "a8", "h1", "h8")) == squares("a1", "a2", "h1", "h2")
    assert ref.unit_left(squares("c2", "h8")) == squares("b2", "g8", "h8")  # L19
    assert ref.power_of(ref.unit_right, 3)(squares("a4")) == squares("a4", "b4", "c4", "d4")
    assert ref.unit_down(squares("d1", "d8")) == squares("d7", "d8")


def test_reference_transform_set_sizes() -> None:
    assert len(ref.transform_set(["shift", "flip", "flipcolor"])) == 3600
    assert len(ref.transform_set(["shiftdiagonal"])) == 29
    assert len(ref.transform_set(["shiftmaindiagonal", "shiftoffdiagonal"])) == 29


def test_reference_counts_rays_per_direction_l20() -> None:
    position = ref.Position(chess.Board("4k3/8/8/8/8/8/8/R6R w - - 0 1"), None)
    rooks = ref.D(frozenset("R"), ref.ALL_SQUARES)
    assert ref.count_rays("ray", (rooks, rooks), ref.View(position, {})) == 2


# --- documented examples ----------------------------------------------------------------------

EXAMPLES = [
    # designators and keywords (semantics: Part 1)
    "(position Ra3)",
    "(position [RQ][a1-8] q[h1-8])",
    "(position .d4 id3)",
    "(position U[a1,h1,a8,h8])",
    "(position [Ar][a-h1-2,a8,h8] P[b2-7])",
    "(position ??1 U?8 .[c?,g?] P?2)",
    "(position R R Q Q)",
    "(position Ra3 :not)",
    "(position [aQBNPK.]a3)",
    "(position :piececount R 2)",
    "(position Nd4 :piececount [Rr][a1-8] 1 3 :piececount [Qq][a-h8] 4)",
    "(position :piececount P[b2-7] 4 :shifthorizontal :flipcolor)",
    "(position :attackcount A k 2)",
    "(position :attackcount A .h3 1)",
    "(position :attackcount [RB][a-c8] ??1 5 9)",
    "(position :attackcount n [KRQ] 3 100)",
    "(position :attackcount k . 8)",
    "(position :attackcount N k 1 100 :flipcolor)",
    "(position :attackcount k [A.] 0 :flipcolor)",
    "(position :power a 6)",
    "(position :power Aa-h1-4 10 25)",
    "(position :powerdifference U 4)",
    "(position :powerdifference [Rr] -5 10)",
    "(position :powerdifference [RrBbNn] -1000 -2)",
    "(position :ray (k Q))",
    "(position :ray (Qa? n k[?4-8]))",
    "(position :ray (Q n k) 2 4)",
    "(position :rayattack (A a k))",
    "(position :stalemate :rayattack (A a k) 2 8 :flipcolor)",
    "(position :rayorthogonal ([qr] .d4 K))",
    "(position :raydiagonal (B . k) 2 5 :flipcolor)",
    "(position :movefrom Ra3)",
    "(position :movefrom U?8)",
    "(position :movefrom [Kk]e? :moveto .[c?,g?])",
    "(position :moveto .a3)",
    "(position :moveto R[b1-8])",
    "(position :moveto [Qq])",
    "(position :moveto .)",
    "(position :moveto U)",
    "(position :promote [RBN])",
    "(position :promote U)",
    "(position :promote [rbn] :flipcolor)",
    "(position :promote [Qr])",
    "(position :moveto .e6 :enpassant)",
    "(position :enpassant :flipcolor)",
    "(position :noenpassant :movefrom P)",
    "(position :movenumber 35 :mate)",
    "(position :movenumber 1 10 :check)",
    "(position :wtm :check :and ((position Ke2 kg2 :shift :flip) (position Ne2)))",
    "(position Re8 :sequence ((position Qf3 .g2) (position .f3 Qg2)))",
    "(position :gappedsequence ((position :movefrom Ra3) (position :movefrom Rb4)))",
    "(position :gappedsequence ((position) (position Nd4)))",
    "(position :sequence ((position :check) (position :movefrom K) (position :check)))",
    "(position :result 1-0 :whiteelo 0 2300 :blackelo 2600 3000 :flipcolor)",
    "(position :elo 2700 unlimited :check)",
    # transforms (semantics: S-legacy-transforms)
    "(position Pa4 Nd4 :shifthorizontal)",
    "(position Pb4 Ne4 :shifthorizontal)",
    "(position Pc2 Rc1 :shiftvertical)",
    "(position Pc2 Rc1 :shift)",
    "(position Rc3 qg3 :shifthorizontal)",
    "(position Rc3 qg3 :shiftvertical)",
    "(position Rc3 qg3 :shift)",
    "(position Nd4 kf3 :shift :flip)",
    "(position Nd4 kf3 :shift :flip :flipcolor)",
    "(position Ka1 kh8 :flip)",
    "(position Rc2 Bh8 :wtm :shifthorizontal)",
    "(position Qc2 :flip)",
    "(position Ra8 kc3 :flipdiagonal :flipoffdiagonal)",
    "(position Pf2 kg3 :fliphorizontal :flipvertical :flipcolor)",
    "(position Nd4 kf3 :shiftdiagonal :flipcolor)",
    "(position Bb2 kg7 :shiftmaindiagonal)",
    "(position :piececount R[g1] 0 :shifthorizontal)",
    "(position :piececount [Pp][a-h7] 0 :shiftvertical)",
    "(position :flipcolor :and ((position :attackcount k . 8 :attackcount A k 1 :mate :btm)"
    " (position :not :attackcount k .e4 1 :attackcount A .e4 2 100 :shift)))",
    "(position :shift :flip :flipcolor :sequence ((position :movefrom Qa2) (position :check)"
    " (position :movefrom Qb2)))",
    "(position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0"
    " :shift :accumulate wp :sumrange wp 2 8)",
    "(position :sumrange w 1 8 :sumrange b 1 8"
    " :and ((position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0 :shift :accumulate w)"
    " (position pd7 :piececount [pP][d2-6] 0 :piececount P[c2-6,e2-6] 0 :shift :accumulate b)))",
    "(position Ra1 :accumulate x :sumrange x 1 :or ((position Kg1 :flipcolor :accumulate x)))",
]


@pytest.mark.parametrize("position_list", EXAMPLES)
def test_documented_examples_agree(position_list: str) -> None:
    check_script(f"(match {position_list})", sample_for(position_list))


MATCH_EXAMPLES = [
    "(match :result 1-0 (position :check :matchcount 3 100))",
    "(match :player kasparov :year 1985 1990 (position :mate))",
    "(match :player KARPOV :result 1/2-1/2 (position))",
    "(match :gamenumber 3 20 (position :promote [Qq]) (position :promote [Rr]))",
    "(match (position :check :matchcount 1) (position :moveto [Qq]))",
    "(match :result 0-1 (position :check :matchcount 0))",
    "(match (position :moveto [Aa]d4 :pretransformmatchcount 3 1000 :shift))",
    "(match (position :moveto [Aa]a4 :pretransformmatchcount 1 3 :shift))",
    "(match (position :check :pretransformmatchcount 2 3 :flipcolor :wtm))",
]


@pytest.mark.parametrize("text", MATCH_EXAMPLES)
def test_match_list_examples_agree(text: str) -> None:
    check_script(text, sample_for(text))


TAG_EXAMPLES = [
    # tag samples (semantics: S-tags; match counts lowered so that the sample games can match).
    "(match :forany rook [rR] (position $rook[a1]) (position $rook[h1]) (position $rook[h8]))",
    "(match :forany checker A (position :btm :attackcount $checker k 1 :matchcount 2 1000"
    " :flipcolor))",
    "(match :forany knight N (position :movefrom $knight :matchcount 1)"
    " (position :check :attackcount $knight k 1))",
    "(match :forany pawn ? (position :initial :tagmatch pawn P?2"
    " :gappedsequence ((position :movefrom $pawn :promote U)) :flipcolor))",
    "(match :forany p [Pp] (position :promote $p[a-h1,a-h8]) (position $p :tagmatch p [Qq]))",
    "(match :forany a R :forany b R (position $a[a-h1] $b[a-h1] :movefrom $a))",
    "(match :forany q [Qq] (position :moveto $q) (position :rayattack ($q a k)))",
]


# A promotion (WCC game 18) and puzzles with promotions, en passant and mates.
TAG_SAMPLE = (GAMES[1], *GAMES[len(WCC_GAMES) + 40 :])


@pytest.mark.parametrize("text", TAG_EXAMPLES)
def test_tag_examples_agree(text: str) -> None:
    check_script(text, TAG_SAMPLE)


def test_pieces_keep_their_names_through_castling_promotion_and_en_passant() -> None:
    game = chess.pgn.Game()
    game.setup("4k2r/1P6/8/3pP3/8/8/8/4K3 w k d6 0 1")
    node: chess.pgn.GameNode = game
    for san in ["exd6", "O-O", "b8=N"]:
        node = node.add_main_variation(node.board().parse_san(san))
    line = ref.Line(game)
    e5, d5, b7, e8, h8, d6, g8, f8, b8 = (
        next(iter(squares(n))) for n in ("e5", "d5", "b7", "e8", "h8", "d6", "g8", "f8", "b8")
    )
    assert line.pieces[1][e5] == (d6, "P") and d5 not in line.pieces[1]
    assert line.pieces[2][e8] == (g8, "k")
    assert line.pieces[2][h8] == (f8, "r")
    assert line.pieces[3][b7] == (b8, "N")


def test_examples_find_something() -> None:
    # The comparison must be able to fail: the sample games make lists match.
    assert check_script("(match (position :attackcount N k 1 100 :flipcolor))") > 10
    assert check_script("(match (position :enpassant))") >= 2
    assert check_script("(match (position :promote [RBN] :flipcolor))") >= 1


# --- (d) the compact form means what the explicit union means ---------------------------------


COMPACT = [
    "(position Nd4 kf3 :shift :flip :flipcolor)",
    "(position :piececount P[b2-7] 2 :shifthorizontal :flipcolor)",
    "(position Pe4 Nf3 :shifthorizontal)",
    "(position :attackcount N k 1 100 :flipcolor)",
    "(position :movefrom N :moveto .f3 :flip)",
    "(position :ray (Q n k) 1 :flip :flipcolor)",
]


def _transformed(f: core.Filter) -> bool:
    if isinstance(f, core.Transform):
        return True
    return isinstance(f, core.Compound) and any(_transformed(i) for i in f.items)


@pytest.mark.parametrize("position_list", COMPACT)
def test_compact_form_equals_explicit_union(position_list: str) -> None:
    script = read_script(f"(match {position_list})")
    (pl,) = script.match.position_lists()
    (top,) = to_core(script).lists
    assert _transformed(top.body)
    _, base = strip_comments(base_list(pl))
    members = orbit_filters(base, transform_keywords(pl), TranslationContext(), pl.span)
    explicit = attrs.evolve(top, body=core.Or(tuple(members)))
    hits = 0
    for game in TINY if ":shift :flip" in position_list else GAMES:
        plies = production_plies(top, game)
        assert plies == production_plies(explicit, game)
        hits += len(plies)
    assert hits > 0


# --- generated scripts --------------------------------------------------------------------------

SQUARES = st.one_of(
    st.just(""),
    st.sampled_from(["a1", "h1", "a8", "h8", "a4", "h5", "d1", "e8", "b2", "g7", "d4", "e5", "f3"]),
    st.sampled_from(
        [
            "a-b1-2",
            "?1",
            "a?",
            "?8",
            "h?",
            "[a1,h8]",
            "[a-h2,c4]",
            "[a1-8,c4]",
            "c-e3-6",
            "[]",
            "b-g2-7",
            "[d4,e4,d5,e5]",
            "g-h7-8",
        ]
    ),
)
TYPES = st.one_of(
    st.sampled_from(list("KQRBNPkqrbnpAaMmIiU.?")),
    st.sampled_from(["[Qq]", "[Rr]", "[Kk]", "[Pp]", "[A.]", "[Nb]", "[a.]", "[QR]"]),
)
DESIGNATOR = st.builds(str.__add__, TYPES, SQUARES)
COUNT = st.sampled_from(["0", "1", "2", "0 1", "1 2", "2 3", "1 unlimited", "0 0", "3 8"])
POWER = st.sampled_from(["0", "1 5", "3 unlimited", "9 40"])
DIFFERENCE = st.sampled_from(["-3 3", "1 unlimited", "-40 -1", "0"])
RAY_RANGE = st.sampled_from(["", "0", "1", "2", "1 2", "2 unlimited"])
RAY_KEYWORD = st.sampled_from(
    ["ray", "rayattack", "raydiagonal", "rayorthogonal", "rayhorizontal", "rayvertical"]
)
FLAG = st.sampled_from(
    [
        ":wtm",
        ":btm",
        ":check",
        ":nocheck",
        ":mate",
        ":stalemate",
        ":initial",
        ":enpassant",
        ":noenpassant",
    ]
)
GAME = st.sampled_from(
    [
        ":result 1-0",
        ":result 0-1",
        ":result 1/2-1/2",
        ":whiteelo 2500 unlimited",
        ":blackelo 0 2650",
        ":elo 2600 2800",
        ":movenumber 1 10",
        ":movenumber 20 unlimited",
        ":movenumber 0",
    ]
)
TRANSFORM_SIZE = {
    "flip": 8,
    "flipdihedral": 8,
    "flipcolor": 2,
    "fliphorizontal": 2,
    "flipvertical": 2,
    "flipdiagonal": 2,
    "flipoffdiagonal": 2,
    "shifthorizontal": 15,
    "shiftvertical": 15,
    "shiftmaindiagonal": 15,
    "shiftoffdiagonal": 15,
    "shiftdiagonal": 29,
}


def transforms(limit: int) -> st.SearchStrategy[list[str]]:
    def small(keywords: list[str]) -> bool:
        size = 1
        for k in keywords:
            size *= TRANSFORM_SIZE[k]
        return size <= limit

    return st.lists(st.sampled_from(sorted(TRANSFORM_SIZE)), max_size=2).filter(small)


def simple_item() -> st.SearchStrategy[str]:
    return st.one_of(
        DESIGNATOR,
        DESIGNATOR,
        FLAG,
        GAME,
        st.builds(":piececount {} {}".format, DESIGNATOR, COUNT),
        st.builds(":attackcount {} {} {}".format, DESIGNATOR, DESIGNATOR, COUNT),
        st.builds(":power {} {}".format, DESIGNATOR, POWER),
        st.builds(":powerdifference {} {}".format, DESIGNATOR, DIFFERENCE),
        st.builds(":{} ({} {}) {}".format, RAY_KEYWORD, DESIGNATOR, DESIGNATOR, RAY_RANGE),
        st.builds(":movefrom {}".format, DESIGNATOR),
        st.builds(":moveto {}".format, DESIGNATOR),
        st.builds(":promote {}".format, DESIGNATOR),
    )


def position_list(items: st.SearchStrategy[str], limit: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda body, keywords, negated: (
            "(position "
            + " ".join([*body, *(f":{k}" for k in keywords), *([":not"] if negated else [])])
            + ")"
        ),
        st.lists(items, max_size=3),
        transforms(limit),
        st.booleans(),
    )


INNER = position_list(simple_item(), 8)
NESTED = st.one_of(
    st.builds(":and ({} {})".format, INNER, INNER),
    st.builds(":or ({} {})".format, INNER, INNER),
    st.builds(":sequence ({} {})".format, INNER, INNER),
    st.builds(":gappedsequence ({} {})".format, INNER, INNER),
    st.builds(":gappedsequence ((position) {})".format, INNER),
)
TOP = st.builds(
    lambda items, nested, keywords, negated: (
        "(match (position "
        + " ".join([*items, *nested, *(f":{k}" for k in keywords), *([":not"] if negated else [])])
        + "))"
    ),
    st.lists(simple_item(), max_size=3),
    st.lists(NESTED, max_size=1),
    transforms(30),
    st.booleans(),
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(TOP)
def test_generated_scripts_agree_with_the_reference(text: str) -> None:
    check_script(text, SAMPLE)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DESIGNATOR, min_size=1, max_size=2), st.sampled_from(["", ":flipcolor", ":not"]))
def test_generated_full_shifts_agree_with_the_reference(designators: list[str], extra: str) -> None:
    text = f"(match (position {' '.join(designators)} :shift {extra}))"
    check_script(text, SMALL[:15])


# --- relations and tags (semantics: S-relation, S-tags) ------------------------------------

RELATION_FLAG = st.sampled_from(
    [":pattern", ":samesidetomove", ":changesidetomove", ":ignoresidetomove", ":variations"]
)
RELATION_COUNT = st.one_of(
    st.builds(":missingpiececount {} {}".format, TYPES, COUNT),
    st.builds(":newpiececount {} {}".format, TYPES, COUNT),
    st.builds(":originaldifferentcount {}".format, COUNT),
    st.builds(":originalsamecount {}".format, st.sampled_from(["0", "0 3", "10 64", "40 64"])),
)
RELATION = st.builds(
    lambda flags, counts: f":relation ({' '.join([*flags, *counts])})",
    st.lists(RELATION_FLAG, max_size=2, unique=True),
    st.lists(RELATION_COUNT, max_size=2, unique_by=lambda count: count.split()[0]),
)
RELATION_LIST = st.builds(
    lambda items, relation, keywords: (
        "(match (position " + " ".join([*items, relation, *(f":{k}" for k in keywords)]) + "))"
    ),
    st.lists(st.one_of(DESIGNATOR, FLAG), max_size=2),
    RELATION,
    st.lists(st.sampled_from(["flipcolor", "fliphorizontal"]), max_size=1),
)
#: Short puzzles: a relation compares every pair of positions.
RELATION_GAMES = GAMES[len(WCC_GAMES) : len(WCC_GAMES) + 25]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RELATION_LIST)
def test_generated_relations_agree_with_the_reference(text: str) -> None:
    check_script(text, RELATION_GAMES)


@pytest.mark.parametrize(
    "text",
    [
        "(match (position Kg1 :relation (:pattern :shift :originalsamecount 0)))",
        "(match (position Ra1 :relation (:pattern :flip :ignoresidetomove)))",
        "(match (position Kg1 kg8 :flipcolor :relation (:pattern :flip :shift)))",
    ],
)
def test_transformed_relations_agree_with_the_reference(text: str) -> None:
    check_script(text, RELATION_GAMES[:8])


# --- accumulators in relation lists (semantics: S-accumulators, S-relation) -------------------

#: Relations that often hold on short games (a few pieces may go or come).
LOOSE_RELATION = st.builds(
    lambda flags, missing, new: f":relation ({' '.join([*flags, missing, new])})",
    st.lists(
        st.sampled_from([":pattern", ":ignoresidetomove", ":changesidetomove"]),
        max_size=2,
        unique=True,
    ),
    st.builds(":missingpiececount {} 0 {}".format, TYPES, st.sampled_from(["1", "2", "4"])),
    st.builds(":newpiececount {} 0 {}".format, TYPES, st.sampled_from(["0", "1", "2"])),
)
#: Designators that often match: kings, pawns, pieces on a side of the board.
COMMON_DESIGNATOR = st.sampled_from(["K", "k", "[Pp]", "P?2", "p?7", "[Kk]", "A?1", "a[a-h5-8]"])
#: Each transformed list that matches (its relation included) adds one; with :pattern the
#: relation compares the squares of that transformed list.
ACCUMULATING_RELATION = st.builds(
    lambda items, relation, keywords, bounds: (
        "(match (position "
        + " ".join([*items, relation, *(f":{k}" for k in keywords)])
        + f" :accumulate n :sumrange n {bounds}))"
    ),
    st.lists(st.one_of(DESIGNATOR, COMMON_DESIGNATOR, COMMON_DESIGNATOR, FLAG), max_size=2),
    st.one_of(RELATION, LOOSE_RELATION),
    st.lists(
        st.sampled_from(["flipcolor", "fliphorizontal", "flipvertical", "shiftvertical"]),
        max_size=1,
    ),
    st.sampled_from(["0", "1", "2", "1 2", "2 8", "0 1"]),
)
#: The accumulating lists nested under :or/:and, the :sumrange in the enclosing list.
NESTED_ACCUMULATING_RELATION = st.builds(
    lambda keyword, first, relation, second, bounds: (
        f"(match (position :sumrange n {bounds} :{keyword} ("
        f"(position {first} :flipcolor :accumulate n {relation})"
        f" (position {second} :fliphorizontal :accumulate n))))"
    ),
    st.sampled_from(["or", "and"]),
    st.one_of(DESIGNATOR, COMMON_DESIGNATOR),
    st.one_of(RELATION, LOOSE_RELATION),
    st.one_of(DESIGNATOR, COMMON_DESIGNATOR),
    st.sampled_from(["0", "1", "2 4", "1 unlimited"]),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(ACCUMULATING_RELATION, NESTED_ACCUMULATING_RELATION))
def test_generated_accumulating_relations_agree_with_the_reference(text: str) -> None:
    check_script(text, RELATION_GAMES[:15])


ACCUMULATING_RELATIONS = [
    "(match (position Kg1 :flip :accumulate n :sumrange n 1 8"
    " :relation (:pattern :ignoresidetomove)))",
    "(match (position :accumulate n :sumrange n 1 :relation (:missingpiececount A 1 100)))",
    "(match (position Ke1 :flipcolor :accumulate n :sumrange n 2"
    " :relation (:pattern :missingpiececount A 0 :newpiececount A 0)))",
    "(match (position [Pp]d4 :fliphorizontal :accumulate n :sumrange n 2"
    " :relation (:pattern :ignoresidetomove :missingpiececount [Pp] 0 1)))",
    "(match (position Kg1 :shifthorizontal :accumulate n :sumrange n 1 8"
    " :relation (:pattern :shift :originalsamecount 0)))",
    # Relations without :pattern, the same in every transformed list (written once).
    "(match (position :check :wtm :flipcolor :accumulate n :sumrange n 1"
    " :relation (:missingpiececount A 1 3 :newpiececount U 0 4 :ignoresidetomove)))",
    "(match (position :piececount P[d2-7] 0 :piececount p[d2-7] 1 8 :shifthorizontal"
    " :accumulate f :sumrange f 1 8 :relation (:missingpiececount A 1 2 :newpiececount a 0 1)))",
    "(match (position :sumrange n 2 8 :or ("
    "(position Kg1 :accumulate n :relation (:pattern :ignoresidetomove))"
    " (position kg8 :accumulate n :relation (:pattern :ignoresidetomove))"
    " (position :check :accumulate n))))",
]


@pytest.mark.parametrize("text", ACCUMULATING_RELATIONS)
def test_accumulating_relations_agree_with_the_reference(text: str) -> None:
    # The translation must exist: check_script compares it only when it does.
    assert _translation(read_script(text)) is not None
    assert check_script(text, RELATION_GAMES) > 0


@pytest.mark.parametrize(
    "text",
    [
        "(match (position Kg1 Pg2 :shift :flip :accumulate n :sumrange n 1 8))",
        "(match (position Kg1 Pg2 :shift :flip :accumulate n :sumrange n 2 8"
        " :relation (:pattern :ignoresidetomove :missingpiececount A 0 1 :newpiececount A 0 1)))",
    ],
)
def test_accumulated_orbits_of_hundreds_of_lists(text: str) -> None:
    # Two transform layers, which no single modern count covers: one term per transformed
    # list, a sum of hundreds of terms (tests/evaluator: a sum of thousands).
    assert check_script(text, TINY) > 0


TAG_TYPES = st.sampled_from(["[Rr]", "N", "[Qq]", "A", "[Bb]", "k", "[Pp]"])
TAG_ITEM = st.one_of(
    st.builds("$t{}".format, st.sampled_from(["", "[a-h1-4]", "[d4,e5]", "[a1-8]"])),
    st.builds(":tagmatch t {}".format, DESIGNATOR),
    st.just(":movefrom $t"),
    st.just(":moveto $t"),
    st.builds(":attackcount $t {} {}".format, DESIGNATOR, COUNT),
    st.just(":initial"),
    st.just(":gappedsequence ((position :movefrom $t :moveto [Aa]))"),
)
TAGGED = st.builds(
    lambda types, lists, keywords: (
        f"(match :forany t {types} "
        + " ".join(
            "(position " + " ".join([*items, *(f":{k}" for k in keywords)]) + ")" for items in lists
        )
        + ")"
    ),
    TAG_TYPES,
    st.lists(st.lists(TAG_ITEM, min_size=1, max_size=2, unique=True), min_size=1, max_size=2),
    st.lists(st.sampled_from(["flipcolor", "shifthorizontal"]), max_size=1),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TAGGED)
def test_generated_tag_scripts_agree_with_the_reference(text: str) -> None:
    check_script(text, TAG_SAMPLE[:20])
