"""Scidb's match-list keywords that read PGN tags (issue 30): each selects the games an
independent predicate over python-chess's headers names, on real games (the bundled World
Championship games, fixtures/games.pgn) and on hand-made ones (tags.pgn); a translation
CQL 6.1 can say is parsed by chessql and, run as CQL 6.1, selects the same games; one it
cannot say is refused by name; the index gives the scan's bytes."""

from __future__ import annotations

import bz2
import datetime
import functools
import io
import re
from collections.abc import Callable
from pathlib import Path

import chess.pgn
import pytest
from cqllegacy.translator import translate

from cqllegacy.api import Query, index
from cqllegacy.cli import main
from cqllegacy.errors import CqlLegacyError
from cqllegacy.legacy import read_script
from cqllegacy.legacy.errors import LegacySyntaxError
from tests.dialects.helpers import assert_index_gives_scan
from tests.support.modern import assert_cql
from tests.support.runner import WCC

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FILES = [HERE / "tags.pgn", ROOT / "fixtures" / "games.pgn", WCC]
Headers = chess.pgn.Headers


@functools.cache
def all_headers() -> list[Headers]:
    found = []
    for path in FILES:
        if path.suffix == ".bz2":
            handle: io.TextIOBase = io.StringIO(bz2.decompress(path.read_bytes()).decode("latin-1"))
        else:
            handle = io.StringIO(path.read_text(encoding="utf-8"))
        while (headers := chess.pgn.read_headers(handle)) is not None:
            found.append(headers)
    return found


def selected(text: str) -> set[int]:
    return {match.ordinal for match in Query.from_text(text).search(FILES)}


def wanted(predicate: Callable[[Headers], bool]) -> set[int]:
    return {n for n, headers in enumerate(all_headers(), start=1) if predicate(headers)}


# --- predicates written from the help's definitions -------------------------------------


def contains(tag: str, word: str) -> Callable[[Headers], bool]:
    return lambda headers: tag in headers and word.casefold() in headers[tag].casefold()


def round_parts(headers: Headers) -> tuple[int, int]:
    found = re.fullmatch(r"\s*(\d+)(?:\.(\d+))?.*", headers.get("Round", ""))
    if found is None or int(found.group(1)) == 0:
        return 0, 0
    return int(found.group(1)), int(found.group(2) or 0)


def eco(headers: Headers) -> str | None:
    found = re.match(r"\s*([A-E]\d\d)", headers.get("ECO", ""))
    return found.group(1) if found else None


def eco_in(*ranges: tuple[str, str]) -> Callable[[Headers], bool]:
    def holds(headers: Headers) -> bool:
        code = eco(headers)
        return code is not None and any(lo <= code <= hi for lo, hi in ranges)

    return holds


CASES: dict[str, Callable[[Headers], bool]] = {
    ":event berlin": contains("Event", "berlin"),
    ":event WORLD": contains("Event", "world"),
    ":site berlin": contains("Site", "BERLIN"),
    ":site münchen": contains("Site", "München"),
    ":site 1": contains("Site", "1"),
    ":annotator capablanca": contains("Annotator", "capablanca"),
    ":tag Source": lambda headers: "Source" in headers,
    ":tag Source CLUB": contains("Source", "club"),
    ":tag WhiteTeamCountry usa": contains("WhiteTeamCountry", "usa"),
    ":tag PuzzleThemes fork": contains("PuzzleThemes", "fork"),
    ":round 0": lambda headers: round_parts(headers)[0] == 0,
    ":round 0 1": lambda headers: round_parts(headers)[0] <= 1,
    ":round 3 12": lambda headers: 3 <= round_parts(headers)[0] <= 12,
    ":round >=20": lambda headers: round_parts(headers)[0] >= 20,
    ":subround 0": lambda headers: round_parts(headers)[1] == 0,
    ":subround 2": lambda headers: round_parts(headers)[1] == 2,
    ":eco C42": eco_in(("C42", "C42")),
    ":eco B00-99": eco_in(("B00", "B99")),
    ":eco A00,B00-99,C10-D05": eco_in(("A00", "A00"), ("B00", "B99"), ("C10", "D05")),
    ":eco *": eco_in(("A00", "E99")),
    ":eco -": lambda headers: eco(headers) is None,
    ":eco \u2013": lambda headers: eco(headers) is None,
}


def termination(headers: Headers) -> str:
    value = "".join(headers.get("Termination", "").split()).lower()
    return "unknown" if value in ("", "?") else value


CASES.update(
    {
        ":termination normal": lambda headers: termination(headers) == "normal",
        ":termination unknown,timeforfeit": lambda headers: (
            termination(headers) in ("unknown", "timeforfeit")
        ),
        ":termination rulesinfraction": lambda headers: termination(headers) == "rulesinfraction",
        "!:termination unknown": lambda headers: termination(headers) != "unknown",
    }
)


def days(headers: Headers) -> tuple[datetime.date, datetime.date] | None:
    """The first and last day a Date tag may stand for (None: no known year)."""
    found = re.fullmatch(r"(\d{4})\.(\d\d|\?\?)\.(\d\d|\?\?)", headers.get("Date", ""))
    if found is None:
        return None
    year = int(found.group(1))
    if found.group(2) == "??":
        return datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    month = int(found.group(2))
    if found.group(3) == "??":
        following = datetime.date(year + month // 12, month % 12 + 1, 1)
        return datetime.date(year, month, 1), following - datetime.timedelta(days=1)
    day = datetime.date(year, month, int(found.group(3)))
    return day, day


def dated(lo: datetime.date | None, hi: datetime.date | None) -> Callable[[Headers], bool]:
    def holds(headers: Headers) -> bool:
        span = days(headers)
        return span is not None and (lo is None or lo <= span[0]) and (hi is None or span[1] <= hi)

    return holds


D = datetime.date
CASES.update(
    {
        ":date 2010-10-27": dated(D(2010, 10, 27), D(2010, 10, 27)),
        ":date >=2010-10-01": dated(D(2010, 10, 1), None),
        ":date <1900-01-01": dated(None, D(1899, 12, 31)),
        ":date 2010-01-01 2010-12-31": dated(D(2010, 1, 1), D(2010, 12, 31)),
        ":date 1951-03-01 .. 1951-03-01+1m": dated(D(1951, 3, 1), D(1951, 3, 31)),
        ":date 1951-03-31 .. 1951-03-31\u221230d": dated(D(1951, 3, 2), D(1951, 3, 31)),
        ":date *": lambda headers: days(headers) is not None,
        ":date -": lambda headers: days(headers) is None,
    }
)

#: The cases CQL 6.1 can say exactly.
TRANSLATED = {
    ":event berlin",
    ":event WORLD",
    ":site berlin",
    ":site 1",
    ":annotator capablanca",
    ":tag Source",
    ":tag Source CLUB",
    ":tag PuzzleThemes fork",
}


@pytest.mark.parametrize("keyword", sorted(CASES))
def test_a_tag_keyword_selects_the_games_its_definition_names(keyword: str) -> None:
    want = wanted(CASES[keyword])
    assert want, "a case that selects nothing proves nothing"
    assert len(want) < len(all_headers()) or keyword == ":round >=20"
    assert selected(f"(match {keyword} (position))") == want


@pytest.mark.parametrize("keyword", sorted(TRANSLATED))
def test_its_cql_6_translation_selects_the_same_games(keyword: str) -> None:
    text = f"(match {keyword} (position))"
    translated = translate(text)
    assert_cql(translated)
    assert selected(translated) == wanted(CASES[keyword])


@pytest.mark.parametrize("keyword", sorted(set(CASES) - TRANSLATED))
def test_the_others_are_refused_by_name(keyword: str) -> None:
    with pytest.raises(CqlLegacyError) as refused:
        translate(f"(match {keyword} (position))")
    assert keyword.split()[0].lstrip("!") in str(refused.value)


def test_a_roster_tag_is_never_missing_so_its_presence_is_refused() -> None:
    """python-chess gives a game without an Event tag the Event "?"; CQL 6.1's tag fails."""
    with pytest.raises(CqlLegacyError, match="python-chess's default"):
        translate("(match :tag Date (position))")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('(match :event "Berlin*" (position))', "quoted"),
        ("(match :tag * USA (position))", "`:tag *`"),
        ("(match :eco B99-00 (position))", "not a list of ECO codes"),
        ("(match :eco F00 (position))", "not a list of ECO codes"),
        ("(match :eco* B00 (position))", "opening classification"),
        ('(match :comment "Entscheidung" (position))', "`:comment`"),
        ("(match :date 2010-02-30 (position))", "no day 2010-02-30"),
        ("(match :date 2010-10-01 .. 2010-10-01 (position))", "empty range"),
        ("(match :date 2010-10-31 2010-10-01 (position))", "write 2010-10-01 2010-10-31"),
    ],
)
def test_what_the_help_leaves_open_is_refused_with_its_place(text: str, message: str) -> None:
    with pytest.raises(LegacySyntaxError, match=re.escape(message)) as refused:
        read_script(text)
    assert refused.value.line == 1


def test_check_names_the_tag_keywords() -> None:
    script = read_script("(match :event x :tag Source :round 1 :eco B00 (position))")
    assert [form for form, _ in script.dialect_forms] == [
        "`:event`",
        "`:tag`",
        "`:round`",
        "`:eco`",
    ]


@functools.cache
def ply_counts() -> list[int]:
    counts = []
    for path in FILES:
        if path.suffix == ".bz2":
            handle: io.TextIOBase = io.StringIO(bz2.decompress(path.read_bytes()).decode("latin-1"))
        else:
            handle = io.StringIO(path.read_text(encoding="utf-8"))
        while (game := chess.pgn.read_game(handle)) is not None:
            counts.append(len(list(game.mainline_moves())))
    return counts


@pytest.mark.parametrize(("lo", "hi"), [(0, 30), (40, 60), (100, None), (0, 0)])
def test_plycount_reads_the_length_of_the_main_line(lo: int, hi: int | None) -> None:
    want = {
        n
        for n, plies in enumerate(ply_counts(), start=1)
        if lo <= plies and (hi is None or plies <= hi)
    }
    assert want
    top = "unlimited" if hi is None else hi
    text = f"(match :plycount {lo} {top} (position))"
    assert selected(text) == want
    with pytest.raises(CqlLegacyError, match=":plycount"):
        translate(text)


@pytest.mark.parametrize(
    ("words", "message"),
    [("unplayed", "two meanings"), ("disconnection", "no Termination value"), ("won", "not a way")],
)
def test_a_termination_the_help_leaves_open_is_refused(words: str, message: str) -> None:
    with pytest.raises(LegacySyntaxError, match=message) as refused:
        read_script(f"(match :termination {words} (position))")
    # The whole item, from its keyword: `check` mends it as one mistake.
    assert (refused.value.line, refused.value.column) == (1, 8)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pgn = tmp_path_factory.mktemp("tags") / "games.pgn"
    wcc = bz2.decompress(WCC.read_bytes()).decode("latin-1")
    pgn.write_text(wcc + "\n" + (HERE / "tags.pgn").read_text(encoding="utf-8"), "utf-8")
    index(pgn)
    return pgn


@pytest.mark.parametrize(
    "text",
    [
        "(match :eco B00-99 (position :check :markall))",
        "(match :event WORLD :round 3 12 :subround 0 (position :mate))",
        "(match :tag Source (position Ke1 :markall))",
        "(match :annotator capablanca :site berlin (position Ne5))",
        "(match :plycount 20 40 :termination normal,unknown (position :check :markall))",
        "(match :date 1950-01-01 1990-12-31 (position :check :markall))",
    ],
)
def test_the_index_gives_the_scans_bytes(indexed: Path, text: str) -> None:
    assert_index_gives_scan(text, indexed)


NEGATED = {
    "!:eco B00-99": lambda headers: not eco_in(("B00", "B99"))(headers),
    "!:tag Source": lambda headers: "Source" not in headers,
    "!:event world": lambda headers: not contains("Event", "world")(headers),
    "!:result 1-0": lambda headers: headers.get("Result") != "1-0",
    "!:year 1900 1990": lambda headers: (
        not (
            (year := re.match(r"\d+", headers.get("Date", "")))
            and 1900 <= int(year.group()) <= 1990
        )
    ),
    "!:whiteelo 2600 unlimited": lambda headers: (
        not (headers.get("WhiteElo", "").isdigit() and int(headers["WhiteElo"]) >= 2600)
    ),
    "!:player kasparov": lambda headers: (
        not (contains("White", "kasparov")(headers) or contains("Black", "kasparov")(headers))
    ),
}


@pytest.mark.parametrize("keyword", sorted(NEGATED))
def test_a_negated_match_keyword_selects_the_other_games(keyword: str) -> None:
    want = wanted(NEGATED[keyword])
    assert want and len(want) < len(all_headers())
    text = f"(match {keyword} (position))"
    assert selected(text) == want
    if "eco" not in keyword:
        assert selected(translate(text)) == want


@pytest.mark.parametrize("keyword", [":pgn", ":output", ":gamenumber", ":forany"])
def test_a_setting_of_the_match_list_has_no_negation(keyword: str) -> None:
    with pytest.raises(LegacySyntaxError, match="cannot be negated") as refused:
        read_script(f"(match !{keyword} x (position))")
    assert refused.value.column == 9  # the keyword after the '!'


def test_a_word_a_tag_must_hold_lets_the_scan_skip_games_by_their_tag_text() -> None:
    """The scan rejects a game whose tag lines lack the word before reading its tags."""
    from cqllegacy.core import tree as ct
    from cqllegacy.evaluator.needles import needles_of

    assert needles_of(ct.TagSearch("Annotator", "capablanca", True)) == (frozenset({"capablanca"}),)
    assert needles_of(ct.TagSearch("Source")) == ()
    assert needles_of(ct.TagSearch("Event", "?")) == ()


@pytest.mark.parametrize(
    "item",
    [":eco Z99", ":termination foo,bar", ":date 2010-02-30", ":date 2010-10-31 2010-10-01"],
)
def test_check_reports_a_bad_value_once_and_reads_on(
    item: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bad value is one mistake: `check` mends it with its keyword and finds the next
    real one (here a misspelt keyword), not a keyword left without its value."""
    script = tmp_path / "s.cql"
    script.write_text(f"(match {item} (position :chekc))\n", encoding="utf-8")
    assert main(["check", str(script)]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert len(errors) == 2, errors
    assert ":chekc" in errors[1], errors
    assert errors[0].startswith(f"{script}:1:8: error: `{item.split()[0]}"), errors
