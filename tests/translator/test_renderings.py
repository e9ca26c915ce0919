"""New renderings (tags, relations, accumulators, ray counts) proved on games.

For each legacy script below, the translation is run as ``cqllegacy run`` runs it (read
back with its ``// cqllegacy:`` pragmas) and must select the same games and, list by
list, match and mark the same positions as the legacy script.  Read as plain CQL 6.1
(the pragma lines removed, so one list that CQL marks at its own positions) it must
still select the same games.  Games: the fixture games (hand-written games with
variations, World Championship games, puzzles), a slice of the bundled World
Championship games and of the Lichess puzzles, and, when present, the studies of
/work/shared/data (GPL, never copied into the repository).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest
from chessql.core import parser
from cqllegacy.translator import modern_form, to_core, translate

from cqllegacy.evaluator.evaluate import compile_query
from cqllegacy.fixturekit import Results, compare_games, compare_results, read_games, run_compiled
from cqllegacy.legacy import read_script
from cqllegacy.modern.grammar import read_query

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_GAMES = ROOT / "fixtures" / "games.pgn"
WCC = ROOT / "cqllegacy" / "data" / "wcc.pgn.bz2"
PUZZLES = ROOT / "fixtures" / "lichess-puzzles.pgn.xz"
# The shared data folder beside the repository (development machine and CI, not a clone).
STUDIES = Path(__file__).resolve().parents[3] / "shared" / "data" / "studies-problems.pgn.xz"

#: Legacy scripts whose translation uses a new rendering, by name.
SCRIPTS: dict[str, str] = {
    # Tags (semantics: S-tags).
    "rook in every corner": (
        "(match :forany rook [rR] (position $rook[a1]) (position $rook[h1]) "
        "(position $rook[h8]) (position $rook[a8]))"
    ),
    "excelsior": (
        "(match :forany pawn [Pp] (position :initial :tagmatch pawn P?2 "
        ":gappedsequence ((position :movefrom $pawn :promote U)) :flipcolor))"
    ),
    "repeated checker": (
        "(match :forany checker A (position :btm :attackcount $checker k 1 "
        ":matchcount 3 1000 :flipcolor))"
    ),
    "knight moves once and mates": (
        "(match :forany knight N (position :movefrom $knight :matchcount 1)\n"
        "                        (position :mate :attackcount $knight k 1))"
    ),
    "pawn becomes a rook": (
        "(match :forany pawn [Rr] (position :initial :tagmatch pawn [Pp])"
        " (position :tagmatch pawn [Rr] :markall))"
    ),
    "two rooks, two pieces": (
        "(match :forany a [Rr] :forany b [Rr]"
        " (position $a[a1,h1] $b[a1,h1]) (position :ray ($a $b) :markall))"
    ),
    "tagged queen captured": (
        "(match :forany queen Q (position :moveto $queen :noannotate)"
        " (position :piececount $queen 0 :matchcount 1 1000))"
    ),
    "tag under a shift": (
        "(match :forany king [Kk] (position $king[e1] :movefrom $king :shifthorizontal))"
    ),
    # Relations (semantics: S-relation, L18), public examples first.
    "EG 151 missing pieces": (
        "(match :result 1-0 (position :markall :relation (:missingpiececount A 1 10)))"
    ),
    "WCCT-7 missing pieces": "(match (position :relation (:missingpiececount A 1 100)))",
    "mutual zugzwang": "(match (position :relation (:changesidetomove)))",
    "dobrescu": (
        "(match (position Ke6 be7 be4 nd5 :shift :flip :markall\n"
        " :relation (:pattern :shift :flip :originalsamecount 0 :samesidetomove :variations)))"
    ),
    "castled shield, pawns gone": (
        "(match (position Kg1 Rf1 Pf2 Pg2 Ph2 :markall"
        " :relation (:pattern :missingpiececount P 1 3 :newpiececount [Aa] 0 1)))"
    ),
    "a new queen in a variation": (
        "(match (position :relation (:ignoresidetomove :newpiececount [Qq] 1"
        " :missingpiececount [Pp] 1 :variationsonly)))"
    ),
    "two to four squares differ": (
        "(match (position :check :relation (:originaldifferentcount 2 4 :ignoresidetomove"
        " :missingpiececount U 0 2 :newpiececount U 0 2)))"
    ),
    "same pieces, shifted king": (
        "(match (position Kg1 kg8 :relation (:pattern :shift :originalsamecount 0 1)))"
    ),
    "flipped corner rook": (
        "(match (position Ra1 :relation (:pattern :flip :ignoresidetomove :originalsamecount 0)))"
    ),
    # Accumulators in relation lists (semantics: S-accumulators): every transformed list
    # that matches, its relation included, adds one.
    "half-open files, a pawn lost later": (
        "(match (position :piececount P[d2-7] 0 :piececount p[d2-7] 1 8 :shifthorizontal"
        " :accumulate f :sumrange f 2 8 :relation (:missingpiececount P 1 2 :ignoresidetomove)))"
    ),
    "king kept, each mirror counted": (
        "(match (position Kg1 :flip :accumulate n :sumrange n 1 8"
        " :relation (:pattern :ignoresidetomove)))"
    ),
    "both kings kept": (
        "(match (position Ke1 :flipcolor :accumulate n :sumrange n 2"
        " :relation (:pattern :missingpiececount A 0 :newpiececount A 0)))"
    ),
    "castled kings kept, or check": (
        "(match (position :sumrange n 2 8 :or ("
        "(position Kg1 :accumulate n :relation (:pattern :ignoresidetomove))"
        " (position kg8 :accumulate n :relation (:pattern :ignoresidetomove))"
        " (position :check :accumulate n))))"
    ),
    "king reappears shifted, mirrors counted": (
        "(match (position Kg1 :fliphorizontal :accumulate n :sumrange n 1 :markall"
        " :relation (:pattern :shift :originalsamecount 0)))"
    ),
    "check, pieces lost in variations": (
        "(match (position :variations :wtm :check :flipcolor :accumulate n :sumrange n 1"
        " :relation (:missingpiececount A 1 3 :variations)))"
    ),
    "centre pawns kept": (
        "(match (position [Pp]d4 :fliphorizontal :accumulate n :sumrange n 2 :markall"
        " :relation (:pattern :ignoresidetomove :missingpiececount [Pp] 0 1)))"
    ),
    # A main-line list beside one that examines variations (one CQL 6.1 setting).
    "main-line promotion beside variations": (
        "(match (position :promote [Qq]) (position :promote [RBNrbn] :variations))"
    ),
    "main-line sequence beside variations": (
        "(match (position :sequence ((position :check) (position :moveto U)))"
        " (position :variations :mate))"
    ),
    "main-line move, no en passant, beside variations": (
        "(match (position :noenpassant :movefrom P :markall) (position :variations :enpassant))"
    ),
    "relation beside variations": (
        "(match (position :relation (:missingpiececount A 1 5)) (position :variations :check))"
    ),
}


def _slice(path: Path, count: int) -> list[tuple[int, chess.pgn.Game]]:
    return list(itertools.islice(read_games(path), count))


def _numbered(*parts: list[tuple[int, chess.pgn.Game]]) -> list[tuple[int, chess.pgn.Game]]:
    """The games of several files, numbered on from one file to the next."""
    games = [game for part in parts for _, game in part]
    return list(enumerate(games, 1))


FIXTURE = list(read_games(FIXTURE_GAMES))
GAMES = _numbered(FIXTURE, _slice(WCC, 120), _slice(PUZZLES, 300))


#: Scripts whose translation is slow to evaluate (an orbit of hundreds of lists, each
#: with an echo): only the first games of a set.
SLOW = {"dobrescu": 40, "half-open files, a pawn lost later": 60}


def games_for(
    name: str, games: list[tuple[int, chess.pgn.Game]] | None = None
) -> list[tuple[int, chess.pgn.Game]]:
    """Relations compare every pair of positions of a game: the fixture games only."""
    if games is None:
        games = FIXTURE if ":relation" in SCRIPTS[name] else GAMES
    return games[: SLOW.get(name, len(games))]


def _results(text: str, games: list[tuple[int, chess.pgn.Game]]) -> Results:
    return run_compiled([compile_query(read_query(text))], games)[0]


def _legacy(script: str, games: list[tuple[int, chess.pgn.Game]]) -> Results:
    return run_compiled([compile_query(to_core(read_script(script)))], games)[0]


def plain_cql(text: str) -> str:
    """The translation as CQL 6.1 itself reads it: without the ``// cqllegacy:`` lines."""
    return "\n".join(line for line in text.splitlines() if not _PRAGMA.match(line)) + "\n"


_PRAGMA = re.compile(r"\s*// cqllegacy:")


def _check(script: str, games: list[tuple[int, chess.pgn.Game]], label: str) -> Iterator[str]:
    text = translate(script)
    parser.parse(text)
    legacy = _legacy(script, games)
    modern = modern_form(to_core(read_script(script), modern=True))
    assert read_query(text) == modern, text
    yield from compare_results(legacy, run_compiled([compile_query(modern)], games)[0], label)
    yield from compare_games(legacy, _results(plain_cql(text), games), f"{label} (plain CQL)")


@pytest.mark.parametrize("name", SCRIPTS)
def test_translation_selects_and_marks_what_the_script_does(name: str) -> None:
    assert list(_check(SCRIPTS[name], games_for(name), name)) == []


def test_the_scripts_select_something() -> None:
    # A check on games no script selects proves little.
    selecting = [n for n, s in SCRIPTS.items() if _legacy(s, games_for(n)).games]
    assert len(selecting) >= len(SCRIPTS) - 3, set(SCRIPTS) - set(selecting)


@pytest.mark.skipif(not STUDIES.is_file(), reason="no shared studies beside the repository")
@pytest.mark.parametrize("name", SCRIPTS)
def test_on_studies(name: str) -> None:
    assert list(_check(SCRIPTS[name], games_for(name, _STUDIES()), name)) == []


def _STUDIES() -> list[tuple[int, chess.pgn.Game]]:
    global _studies
    if _studies is None:
        _studies = _slice(STUDIES, 150)
    return _studies


_studies: list[tuple[int, chess.pgn.Game]] | None = None
