"""Scidb's match-list ``:eithercolor`` (issue 30): on real games it selects the union of
the games of the match as written and of the match with every colour swapped by hand,
each game marked and counted as the branch that matches marks and counts it (the written
one first, also where both match); the index gives the scan's bytes, and so do parallel
jobs; where the two forms exclude each other the CQL 6.1 translation parses with chessql
and, run, selects the same games, and where they may both match one game it is refused
by name; a position list's ``:flipcolor`` beside it is refused at its place, and so are
``:forany`` and ``:relation`` with it."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import chess.pgn
import pytest
from cqllegacy.translator import modern_form, to_core, translate

from cqllegacy.api import Query
from cqllegacy.core import tree as ct
from cqllegacy.errors import CqlLegacyError
from cqllegacy.legacy import read_script
from cqllegacy.legacy.errors import LegacySyntaxError
from cqllegacy.modern import print_query, read_query
from cqllegacy.modern.encoding import EncodingError, decode, encode
from cqllegacy.present.closeness import closest, describe
from tests.dialects.helpers import GAMES, assert_index_gives_scan, indexed_copy, marked
from tests.support.modern import assert_cql
from tests.support.runner import WCC

HERE = Path(__file__).resolve().parent
CHECK = ct.Simple(ct.Keyword.CHECK)
#: Real games with players, ratings and decisive results of both colours, and two
#: hand-made ones (the colour image of the help's rating example, and a draw).
SMALL = [*GAMES, HERE / "either-color.pgn"]
FILES = [*SMALL, WCC]

#: (the match with :eithercolor, its written form, its colour image written by hand).
#: The first two are the help's examples (a player's name unquoted: cqllegacy refuses
#: Scidb's quoted patterns; an empty position list: a match list needs one).
CASES = [
    (
        "(match :eithercolor :result 1-0 :whiteplayer Kasparov (position))",
        "(match :result 1-0 :whiteplayer Kasparov (position))",
        "(match :result 0-1 :blackplayer Kasparov (position))",
    ),
    (
        "(match :result 1-0 :whiteelo <=2300 :blackelo >=2600 :eithercolor (position))",
        "(match :result 1-0 :whiteelo <=2300 :blackelo >=2600 (position))",
        "(match :result 0-1 :blackelo <=2300 :whiteelo >=2600 (position))",
    ),
    (
        "(match :eithercolor :result 1-0 (position :movefrom K :markall))",
        "(match :result 1-0 (position :movefrom K :markall))",
        "(match :result 0-1 (position :movefrom k :markall))",
    ),
    (
        "(match :eithercolor :result 0-1 :whiteplayer Karpov (position :check :btm))",
        "(match :result 0-1 :whiteplayer Karpov (position :check :btm))",
        "(match :result 1-0 :blackplayer Karpov (position :check :wtm))",
    ),
    (
        "(match :eithercolor :result 1-0 (position :movefrom K :matchcount 0 3)"
        " (position R[a-h7] :markall))",
        "(match :result 1-0 (position :movefrom K :matchcount 0 3) (position R[a-h7] :markall))",
        "(match :result 0-1 (position :movefrom k :matchcount 0 3) (position r[a-h2] :markall))",
    ),
    (
        "(match :eithercolor :result 1-0"
        " (position :sequence ((position :check) (position K[g1]))))",
        "(match :result 1-0 (position :sequence ((position :check) (position K[g1]))))",
        "(match :result 0-1 (position :sequence ((position :check) (position k[g8]))))",
    ),
]
#: Ratings alone keep the two forms apart: White cannot be both <=2300 and >=2600.
CASES.append(
    (
        "(match :eithercolor :whiteelo <=2300 :blackelo >=2600 (position :movefrom [QB] :markall))",
        "(match :whiteelo <=2300 :blackelo >=2600 (position :movefrom [QB] :markall))",
        "(match :blackelo <=2300 :whiteelo >=2600 (position :movefrom [qb] :markall))",
    )
)
#: Accumulated counts and variations, under the match's colour swap.
COUNTED = "(position :markall P[a-h5] :shift :accumulate c :sumrange c 2 8)"
CASES += [
    (
        f"(match :eithercolor :result 1-0 {COUNTED})",
        f"(match :result 1-0 {COUNTED})",
        f"(match :result 0-1 {COUNTED.replace('P[a-h5]', 'p[a-h4]')})",
    ),
    (
        "(match :eithercolor :result 1-0 (position :variations :movefrom Q :markall))",
        "(match :result 1-0 (position :variations :movefrom Q :markall))",
        "(match :result 0-1 (position :variations :movefrom q :markall))",
    ),
]
EITHER = [case[0] for case in CASES]


def union(written: str, image: str, paths: list[Path]) -> dict[int, set[int]]:
    """The games of either form; a game both select is marked as the written form marks."""
    return {**marked(image, paths), **marked(written, paths)}


@pytest.mark.parametrize(("either", "written", "image"), CASES)
def test_it_selects_the_written_match_or_its_colour_image(
    either: str, written: str, image: str
) -> None:
    want = union(written, image, FILES)
    assert marked(written, FILES) and marked(image, FILES), "each branch must select a game"
    assert marked(either, FILES) == want


def test_the_written_branch_marks_a_game_both_branches_select() -> None:
    # Every list is its own colour image: a drawn game may match both ways.
    either = "(match :eithercolor :result 1/2-1/2 (position))"
    written = "(match :result 1/2-1/2 (position))"
    assert marked(either, FILES) == marked(written, FILES) != {}


@pytest.mark.parametrize("either", EITHER)
def test_the_index_gives_the_scan(either: str, tmp_path: Path) -> None:
    pgn = indexed_copy(tmp_path, SMALL)
    assert_index_gives_scan(either, pgn, finds=bool(marked(either, SMALL)))


@pytest.mark.parametrize("either", EITHER)
def test_its_cql_6_translation_selects_the_same_games(either: str) -> None:
    translated = translate(either)
    assert_cql(translated)
    want = {match.ordinal for match in Query.from_text(either).search(FILES)}
    assert {match.ordinal for match in Query.from_text(translated).search(FILES)} == want


@pytest.mark.parametrize(
    "text",
    [
        "(match :eithercolor :result 1-0 (position :flipcolor Ka1))",
        "(match :eithercolor (position :and ((position Ka1 :flipcolor))))",
        "(match (position Ka1 :flipcolor) :eithercolor)",
    ],
)
def test_a_lists_flipcolor_beside_it_is_refused_at_its_place(text: str) -> None:
    with pytest.raises(LegacySyntaxError) as refused:
        read_script(text)
    assert (refused.value.line, refused.value.column) == (1, text.index(":flipcolor") + 1)
    assert ":eithercolor" in str(refused.value) and ":flipcolor" in str(refused.value)


#: Matches whose two forms may both match one game (run by trying the written form
#: first, then its image): (the match, its written form, its image written by hand).
BOTH = [
    (
        "(match :eithercolor (position :movefrom Q :markall))",
        "(match (position :movefrom Q :markall))",
        "(match (position :movefrom q :markall))",
    ),
    (
        "(match :eithercolor :result 1/2-1/2 (position :movefrom K :matchcount 0 2)"
        " (position R[a-h7] :markall))",
        "(match :result 1/2-1/2 (position :movefrom K :matchcount 0 2)"
        " (position R[a-h7] :markall))",
        "(match :result 1/2-1/2 (position :movefrom k :matchcount 0 2)"
        " (position r[a-h2] :markall))",
    ),
    (
        "(match :eithercolor (position :check :wtm :matchcount 2 3 :markall))",
        "(match (position :check :wtm :matchcount 2 3 :markall))",
        "(match (position :check :btm :matchcount 2 3 :markall))",
    ),
    (
        "(match :eithercolor !:result 1-0 (position :movefrom N :matchcount 0 0))",
        "(match !:result 1-0 (position :movefrom N :matchcount 0 0))",
        "(match !:result 0-1 (position :movefrom n :matchcount 0 0))",
    ),
    (
        "(match :eithercolor :whiteelo 2000 2800 :blackelo 2500 2900"
        " (position :sequence ((position :check) (position K[g1]))))",
        "(match :whiteelo 2000 2800 :blackelo 2500 2900"
        " (position :sequence ((position :check) (position K[g1]))))",
        "(match :blackelo 2000 2800 :whiteelo 2500 2900"
        " (position :sequence ((position :check) (position k[g8]))))",
    ),
    (
        "(match :eithercolor :whiteplayer Kasparov (position :variations :movefrom Q :markall))",
        "(match :whiteplayer Kasparov (position :variations :movefrom Q :markall))",
        "(match :blackplayer Kasparov (position :variations :movefrom q :markall))",
    ),
]


def outcomes(text: str, paths: list[Path]) -> dict[int, tuple[set[int], tuple[int, ...]]]:
    """Per matching game, the plies the script marks and each list's match count."""
    return {
        match.ordinal: (
            {key for key in match.marked if isinstance(key, int)},
            tuple(found.count for found in match.lists),
        )
        for match in Query.from_text(text).search(paths)
    }


@pytest.mark.parametrize(("either", "written", "image"), BOTH)
def test_where_both_forms_may_match_the_written_one_comes_first(
    either: str, written: str, image: str
) -> None:
    mine, theirs = outcomes(written, FILES), outcomes(image, FILES)
    assert mine and theirs, "each branch must select a game"
    lists = len(next(iter(mine.values()))[1])
    none = (0,) * lists
    want = {game: (marks, none + counts) for game, (marks, counts) in theirs.items()}
    want |= {game: (marks, counts + none) for game, (marks, counts) in mine.items()}
    assert outcomes(either, FILES) == want


def test_some_game_matches_both_forms() -> None:
    """The rule that the written form comes first is put to the test: some game matches
    both forms and gets the written one's marks, which differ from the image's."""
    either, written, image = BOTH[0]
    mine, theirs = marked(written, FILES), marked(image, FILES)
    both = [game for game in mine if game in theirs and mine[game] != theirs[game]]
    assert both
    found = marked(either, FILES)
    assert all(found[game] == mine[game] for game in both)


@pytest.mark.parametrize("either", [case[0] for case in BOTH])
def test_both_forms_give_the_scan_with_the_index(either: str, tmp_path: Path) -> None:
    pgn = indexed_copy(tmp_path, SMALL)
    assert_index_gives_scan(either, pgn, finds=bool(marked(either, SMALL)))


def test_parallel_jobs_find_what_one_job_finds(tmp_path: Path) -> None:
    pgn = indexed_copy(tmp_path, SMALL)

    def found(query: Query, paths: list[Path], jobs: int, use: bool) -> list[tuple[int, object]]:
        matches = query.search(paths, jobs=jobs, index=use, skip_initial=True)
        return [(m.ordinal, [(f.count, f.marked) for f in m.lists]) for m in matches]

    for either in (BOTH[0][0], BOTH[1][0]):
        query = Query.from_text(either)
        alone = found(query, FILES, 1, False)
        assert alone and found(query, FILES, 2, False) == alone
        assert found(query, [pgn], 2, True) == found(query, [pgn], 1, False)


@pytest.mark.parametrize(("either", "written", "image"), BOTH)
def test_where_both_forms_may_match_the_translation_selects_the_same(
    either: str, written: str, image: str
) -> None:
    """The translation's two forms: chessql parses them, and the CQL 6 text, run, gives
    every game the marks and counts of the legacy match's written form or image."""
    translated = translate(either)
    assert_cql(translated)
    assert re.search(r"\}\s+or \{", translated)
    assert outcomes(translated, FILES) == outcomes(either, FILES)
    assert read_query(translated) == modern_form(to_core(read_script(either), modern=True))


def test_forms_survive_encoding() -> None:
    check, mate = ct.TopList(CHECK), ct.TopList(ct.Simple(ct.Keyword.MATE))
    query = ct.Query(ct.Header(), (check, mate, mate, check), forms=2)
    assert decode(encode(query)) == query
    assert read_query(print_query(query)) == query
    uneven = ct.Or(
        (
            ct.Compound((ct.Find(CHECK),)),
            ct.Compound((ct.Find(CHECK), ct.Find(ct.Simple(ct.Keyword.MATE)))),
        )
    )
    items = (*encode(query).items[:2], uneven)
    with pytest.raises(EncodingError, match="differ in length"):
        decode(attrs.evolve(encode(query), items=items))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("(match :forany n N :eithercolor :result 1-0 (position $n[d5]))", ":forany"),
        ("(match :forany n N :eithercolor (position $n[d5]))", ":forany"),
    ],
)
def test_what_it_cannot_say_exactly_is_refused_at_its_place(text: str, why: str) -> None:
    for refuse in (Query.from_text, translate):
        with pytest.raises(CqlLegacyError) as refused:
            refuse(text)
        message = str(refused.value)
        assert "`:eithercolor`" in message and why in message and "L12" in message
        assert "not implemented" not in message
        assert (refused.value.line, refused.value.column) == (1, text.index(":eithercolor") + 1)


@pytest.mark.parametrize("result", [":result 1-0", ""])
def test_a_relation_is_refused_at_its_place(result: str) -> None:
    text = (
        f"(match :eithercolor {result} (position :and ((position :relation (:changesidetomove)))))"
    )
    for refuse in (Query.from_text, translate):
        with pytest.raises(CqlLegacyError, match="`:eithercolor` with :relation") as refused:
            refuse(text)
        assert (refused.value.line, refused.value.column) == (1, text.index(":relation") + 1)


def test_why_tells_each_form_its_lists_numbered_as_in_the_script() -> None:
    query = Query.from_text(BOTH[1][0]).core
    with GAMES[0].open(encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    lines = describe(query, closest(query, game))
    heads = [line for line in lines if line.startswith("form ")]
    assert heads == ["form 1 of 2 (the match as written):", "form 2 of 2 (its colour image):"]
    numbers = [line.split(":")[0] for line in lines if line.startswith("list ")]
    assert numbers == ["list 1", "list 2", "list 1", "list 2"]
