"""The canonical printer: its layout, and ``read_script(print_script(s)) == s``."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.legacy import print_script, read_script
from cqllegacy.legacy import tree as t
from cqllegacy.legacy.grammar import LINE_BREAKS
from cqllegacy.vocab.pieces import types_of
from tests.support.legacy_examples import all_example_scripts

EXAMPLES = all_example_scripts()


@pytest.mark.parametrize("text", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_examples_round_trip(text: str) -> None:
    script = read_script(text)
    printed = print_script(script)
    assert read_script(printed) == script
    assert print_script(read_script(printed)) == printed


def test_mirror_mate_layout() -> None:
    printed = print_script(read_script(EXAMPLES["ideal mirror mate (§5.5)"]))
    assert printed == (
        "(match\n"
        "  (position\n"
        "    :flipcolor\n"
        "    :and (\n"
        "      (position\n"
        "        :attackcount k . 8\n"
        "        :attackcount A k 1\n"
        "        :mate\n"
        "        :btm)\n"
        "      (position\n"
        "        :not\n"
        "        :attackcount k .e4 1\n"
        "        :attackcount A .e4 2 100\n"
        "        :shift))))\n"
    )


def test_comments_stay_in_place() -> None:
    source = """\
;; Quadrupled pawns
; by anyone
(match ; the one list
 (position :piececount P[b2-7] 4 ; four on one file
  ;; either colour
  :shifthorizontal :flipcolor
  ; last
 )
) ; end
"""
    assert print_script(read_script(source)) == (
        "; Quadrupled pawns\n"
        "; by anyone\n"
        "(match ; the one list\n"
        "  (position\n"
        "    :piececount Pb2-7 4 ; four on one file\n"
        "    ; either colour\n"
        "    :shifthorizontal\n"
        "    :flipcolor\n"
        "    ; last\n"
        "  ))\n"
        "; end\n"
    )


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("R[a1,b1,c1,d1,e1,f1,g1,h1]", "Ra-h1"),
        ("R[h-a1]", "Ra-h1"),
        ("[Rr][a1-8]", "[Rr]a1-8"),
        ("[KQRBNP]", "A"),
        ("[Aa]", "U"),
        ("[Aa.]", "?"),
        ("[U.]??", "?"),
        ("?d4", "?d4"),
        ("???", "?"),
        ("[.][d-d4-4]", ".d4"),
        ("Q[c2,h2]", "Q[c2,h2]"),
        ("U[a1,h1,a8,h8]", "U[a1,a8,h1,h8]"),
        ("B[]", "B[]"),
        ("[qQ]", "[Qq]"),
        ("I", "[BN]"),
        ("m?8", "[qr]a-h8"),
    ],
)
def test_designators_print_canonically(written: str, canonical: str) -> None:
    printed = print_script(read_script(f"(match (position {written}))"))
    assert printed == f"(match\n  (position\n    {canonical}))\n"


def test_empty_relation_and_single_line_comment_placement() -> None:
    source = (
        "(match (position :relation () ; nothing to compare\n :relation (:pattern ; allowable\n)))"
    )
    assert print_script(read_script(source)) == (
        "(match\n"
        "  (position\n"
        "    :relation () ; nothing to compare\n"
        "    :relation (\n"
        "      :pattern ; allowable\n"
        "    )))\n"
    )


def test_ranges_results_and_parameters_print_canonically() -> None:
    source = (
        "(match :result 1/2 :year 1934 1934 :forany rook [rR] "
        "(position :piececount R 1 unlimited :ray (Q n k) 2 4 :tagmatch rook $rook[a1] "
        ":sumrange w 3 8 :and ()))"
    )
    assert print_script(read_script(source)) == (
        "(match\n"
        "  :result 1/2-1/2\n"
        "  :year 1934\n"
        "  :forany rook [Rr]\n"
        "  (position\n"
        "    :piececount R 1 unlimited\n"
        "    :ray (Q n k) 2 4\n"
        "    :tagmatch rook $rook[a1]\n"
        "    :sumrange w 3 8\n"
        "    :and ()))\n"
    )


# --------------------------------------------------------------------------------------
# Generated trees
# --------------------------------------------------------------------------------------

NAMES = st.from_regex(r"[A-Za-z0-9_]{1,6}", fullmatch=True)
WORDS = st.from_regex(r"[A-Za-z0-9_./\\-]{1,10}", fullmatch=True)
COMMENT_TEXT = st.text(
    alphabet=st.characters(blacklist_characters=LINE_BREAKS, blacklist_categories=("Cs",)),
    max_size=12,
).map(lambda text: text.lstrip(";").rstrip())
COMMENTS = COMMENT_TEXT.map(t.Comment)
TYPES = st.integers(1, (1 << 13) - 1)
SQUARES = st.one_of(
    st.just((1 << 64) - 1),
    st.just(0),
    st.integers(0, 63).map(lambda s: 1 << s),
    st.integers(0, (1 << 64) - 1),
)


@st.composite
def ranges(draw: st.DrawFn) -> t.Range:
    lo = draw(st.integers(-1000, 1000))
    hi = draw(st.one_of(st.none(), st.just(lo), st.integers(lo, lo + 2000)))
    return t.Range(lo, hi)


def designators(tags: list[str]) -> st.SearchStrategy[t.Designator]:
    plain = st.builds(t.Designator, TYPES, SQUARES)
    if not tags:
        return plain
    tagged = st.builds(
        lambda name, squares: t.Designator(0, squares, tag=name), st.sampled_from(tags), SQUARES
    )
    return st.one_of(plain, tagged)


def relation_items() -> st.SearchStrategy[t.Relation]:
    item = st.one_of(
        st.builds(t.RelationFlag, st.sampled_from(t.RelationFlagKeyword)),
        st.builds(
            t.RelationPieceCount, st.sampled_from(t.RelationCountKeyword), designators([]), ranges()
        ),
        st.builds(t.RelationRange, st.sampled_from(t.RelationRangeKeyword), ranges()),
        COMMENTS,
    )
    return st.lists(item, max_size=5).map(_once_each_count).map(t.Relation)


def _once_each_count(items: list[t.RelationItem]) -> tuple[t.RelationItem, ...]:
    seen: set[t.RelationCountKeyword] = set()
    kept = []
    for item in items:
        if isinstance(item, t.RelationPieceCount):
            if item.keyword in seen:
                continue
            seen.add(item.keyword)
        kept.append(item)
    return tuple(kept)


def position_lists(
    depth: int, top_level: bool, tags: list[str]
) -> st.SearchStrategy[t.PositionList]:
    pd = designators(tags)
    choices = [
        pd,
        COMMENTS,
        st.builds(t.Flag, st.sampled_from(t.FlagKeyword)),
        st.builds(t.Transform, st.sampled_from(t.TransformKeyword)),
        st.builds(t.PieceCount, pd, ranges()),
        st.builds(t.Power, pd, ranges()),
        st.builds(t.PowerDifference, pd, ranges()),
        st.builds(t.AttackCount, pd, pd, ranges()),
        st.builds(t.MoveTest, st.sampled_from(t.MoveKeyword), pd),
        st.builds(t.ResultTest, st.sampled_from(t.GameResult)),
        st.builds(
            t.Ray,
            st.sampled_from(t.RayKeyword),
            st.lists(pd, min_size=2, max_size=4).map(tuple),
            st.one_of(st.none(), ranges()),
        ),
        st.builds(t.Accumulate, NAMES),
        st.builds(t.SumRange, NAMES, ranges()),
    ]
    counts = [
        k
        for k in t.RangeKeyword
        if top_level or k.value not in ("matchcount", "pretransformmatchcount")
    ]
    choices.append(st.builds(t.RangeTest, st.sampled_from(counts), ranges()))
    if tags:
        choices.append(st.builds(t.TagMatch, st.sampled_from(tags), pd))
    else:
        choices.append(relation_items())
    if depth > 0:
        inner = position_lists(depth - 1, False, tags)
        choices.append(
            st.builds(
                t.ListOfLists,
                st.sampled_from(t.ListKeyword),
                st.lists(inner, max_size=3).map(tuple),
            )
        )
    return st.lists(st.one_of(choices), max_size=6).map(_one_sequence).map(t.PositionList)


def _one_sequence(items: list[t.PositionItem]) -> tuple[t.PositionItem, ...]:
    sequences = (t.ListKeyword.SEQUENCE, t.ListKeyword.GAPPEDSEQUENCE)
    kept, seen = [], False
    for item in items:
        if isinstance(item, t.ListOfLists) and item.keyword in sequences:
            if seen:
                continue
            seen = True
        kept.append(item)
    return tuple(kept)


@st.composite
def scripts(draw: st.DrawFn) -> t.Script:
    tags = draw(st.lists(NAMES, max_size=2, unique=True))
    games = st.one_of(
        st.builds(t.MatchPath, st.sampled_from(t.MatchPathKeyword), WORDS),
        st.builds(t.MatchRange, st.sampled_from(t.MatchRangeKeyword), ranges()),
        st.builds(t.MatchResult, st.sampled_from(t.GameResult)),
        st.builds(t.Player, WORDS),
        COMMENTS,
    )
    others = draw(st.lists(games, max_size=4))
    declarations = [t.ForAny(name, draw(designators([]))) for name in tags]
    lists = draw(st.lists(position_lists(2, True, tags), min_size=1, max_size=3))
    items = draw(st.permutations([*others, *declarations, *lists]))
    leading = draw(st.lists(COMMENTS, max_size=2))
    trailing = draw(st.lists(COMMENTS, max_size=2))
    return t.Script(t.MatchList(tuple(items)), tuple(leading), tuple(trailing))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_generated_trees_round_trip(script: t.Script) -> None:
    printed = print_script(script)
    assert read_script(printed) == script
    assert print_script(read_script(printed)) == printed


# --------------------------------------------------------------------------------------
# The example scripts shipped in examples/
# --------------------------------------------------------------------------------------

EXAMPLE_FILES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.cql"))


def test_there_are_six_to_twelve_examples() -> None:
    assert 6 <= len(EXAMPLE_FILES) <= 12
    assert "knight-fork.cql" in {path.name for path in EXAMPLE_FILES}


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.name)
def test_example_files_read_and_round_trip(path: Path) -> None:
    script = read_script(path.read_text(encoding="utf-8"), str(path))
    assert script.leading, "each example explains itself in a leading comment"
    assert read_script(print_script(script)) == script
    # An example reads the bundled games, or its own games beside it (examples/games/).
    for item in script.match.items:
        if isinstance(item, t.MatchPath):
            assert (path.parent / item.path).is_file(), item


def test_knight_fork_example_uses_the_knight_jumps_of_d4() -> None:
    path = next(path for path in EXAMPLE_FILES if path.name == "knight-fork.cql")
    (fork,) = read_script(path.read_text(encoding="utf-8")).match.position_lists()
    knight, king, queen = (item for item in fork.items if isinstance(item, t.Designator))
    jumps = chess.BB_KNIGHT_ATTACKS[chess.D4]
    assert knight == t.Designator(types_of("N"), chess.BB_D4)
    assert (king, queen) == (t.Designator(types_of("k"), jumps), t.Designator(types_of("q"), jumps))
