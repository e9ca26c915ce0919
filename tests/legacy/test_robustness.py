"""Any input whatsoever gives a script or a LegacySyntaxError, and promptly.

The hypothesis ``deadline`` is a hang guard only (pathological backtracking or a loop
would blow it); nothing here asserts on speed.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqllegacy.legacy import LegacySyntaxError, print_script, read_script
from tests.support.legacy_examples import all_example_scripts

EXAMPLES = list(all_example_scripts().values())
HANG_GUARD = settings(
    max_examples=150,
    deadline=5000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

FRAGMENTS = [
    "(",
    ")",
    "(match",
    "(position",
    "match",
    "position",
    " ",
    "\n",
    "\t",
    ";",
    "; note\n",
    ":shift",
    ":flip",
    ":and",
    ":sequence",
    ":ray",
    ":relation",
    ":pattern",
    ":piececount",
    ":attackcount",
    ":forany",
    ":tagmatch",
    ":matchcount",
    ":Mate",
    ":fen",
    ":",
    "!:check",
    "Ra3",
    "R",
    "k",
    "[Qq]",
    "[",
    "]",
    "[a1,h8]",
    "?d4",
    "$x",
    "$",
    "x",
    "1",
    "-2",
    "1/2",
    "unlimited",
    "\x00",
    "é",
    "♔",
    "\ufeff",
    "\r\n",
    "\x85",
    "\u2028",
    '"',
    "9" * 30,
]


def outcome(text: str) -> None:
    """Read ``text``; only a LegacySyntaxError with a sane place may come out."""
    try:
        script = read_script(text, "fuzz.cql")
    except LegacySyntaxError as error:
        assert error.line >= 1 and error.column >= 1
        assert error.render().startswith("fuzz.cql:")
        return
    # Whatever was accepted is printable and reads back the same.
    assert read_script(print_script(script)) == script


@HANG_GUARD
@given(st.text(max_size=300))
def test_random_text(text: str) -> None:
    outcome(text)


@HANG_GUARD
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join))
def test_random_token_soup(text: str) -> None:
    outcome(text)


_PIECES = re.compile(r"\s+|[()]|;[^\n]*|[^\s();]+")


@st.composite
def mutated_examples(draw: st.DrawFn) -> str:
    pieces = _PIECES.findall(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, 4))):
        if not pieces:
            break
        index = draw(st.integers(0, len(pieces) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "junk", "truncate"]))
        if action == "delete":
            del pieces[index]
        elif action == "duplicate":
            pieces.insert(index, pieces[index])
        elif action == "swap":
            pieces[index] = {"(": ")", ")": "("}.get(pieces[index], "(")
        elif action == "junk":
            pieces.insert(index, draw(st.text(min_size=1, max_size=4)))
        else:
            pieces = pieces[:index]
    return "".join(pieces)


@HANG_GUARD
@given(mutated_examples())
def test_mutated_examples(text: str) -> None:
    outcome(text)


@pytest.mark.parametrize(
    "text",
    [
        "(" * 100_000,
        ")" * 100_000,
        "(match " + "(position :and (" * 20_000,
        "(match (position :and (" + "(" * 50_000,
        "(match (position :ray (" + "(" * 50_000,
        "(match (position :relation (" + "(" * 50_000,
        "(match (position " + ":not " * 50_000 + ")",
        "\x00" * 1_000_000,
        ";" * 1_000_000,
        "(match (position ;" + "x" * 1_000_000 + "\n)",
        "(match (position R" + "[a1," * 250_000 + "))",
        "(match (position " + "Ra3 Kb4 :mate :piececount R 1 2 " * 30_000,
    ],
    ids=[
        "open-parens",
        "close-parens",
        "deep-position-lists",
        "deep-in-and",
        "deep-in-ray",
        "deep-in-relation",
        "many-flags-unclosed",
        "nul-bytes",
        "semicolons",
        "long-comment",
        "long-atom",
        "one-megabyte-unclosed",
    ],
)
def test_extreme_inputs_give_syntax_errors(text: str) -> None:
    with pytest.raises(LegacySyntaxError):
        read_script(text)


def test_one_megabyte_script_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # 144,000 words: over the default limit of a script's words, which is raised here.
    monkeypatch.setenv("CQLLEGACY_MAX_SCRIPT_WORDS", "150000")
    text = "(match (position " + "Ra3 :piececount [Rr][a1-8] 1 3 :shift ; c\n" * 24_000 + "))"
    assert len(text) > 1_000_000
    items = read_script(text).match.position_lists()[0].items
    assert len(items) == 4 * 24_000


# --------------------------------------------------------------------------------------
# Each reading keeps its own state: the grammar is shared, built once
# --------------------------------------------------------------------------------------

MIXED = [
    *EXAMPLES,
    "(match :forany a U (position :tagmatch a P :sequence ((position $a)) :relation",
    "(match (position :and ((position :ray (Q k) :and ((position Xa1))))))",
    "(match :forany a U :forany a N (position))",
    "(match (position :relation (:newpiececount A 1 :newpiececount a 1)))",
]


def reading_of(text: str) -> object:
    """What reading ``text`` gives, spans included."""
    try:
        script = read_script(text)
    except LegacySyntaxError as error:
        return (error.message, error.line, error.column, error.hint)
    return attrs.asdict(script)


def test_a_failed_reading_leaves_nothing_behind() -> None:
    expected = [reading_of(text) for text in MIXED]
    assert [reading_of(text) for text in reversed(MIXED)] == expected[::-1]


def test_concurrent_readings_do_not_mix() -> None:
    expected = [reading_of(text) for text in MIXED]
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(reading_of, MIXED * 10))
    assert found == expected * 10
