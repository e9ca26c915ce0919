"""Each kind of mistake gets a specific message at the right line and column."""

from __future__ import annotations

import sys

import pytest

from cqllegacy.errors import ScriptError
from cqllegacy.legacy import LegacySyntaxError, read_script
from cqllegacy.legacy.grammar import MAX_DEPTH

# (script, line, column, words the message, expectation or hint must contain)
CASES = [
    # unbalanced parentheses: the unclosed '(' / the extra ')'
    ("(match\n (position Ra3\n)", 1, 1, ["unclosed '('", "match list"]),
    ("(match\n (position Ra3)\n (position Rb4", 3, 2, ["unclosed '('", "position list"]),
    ("(match (position :ray (Q k", 1, 23, ["unclosed '('", ":ray"]),
    ("(match (position Ra3)))", 1, 23, ["unmatched ')'"]),
    (")(match (position))", 1, 1, ["unmatched ')'"]),
    # unknown keyword, with the closest known one
    ("(match (position :matecount 3))", 1, 18, ["unknown keyword :matecount", ":matchcount"]),
    ("(match :players x (position))", 1, 8, ["unknown keyword :players", ":player"]),
    ("(match (position :mate:check))", 1, 18, ["unknown keyword", "spaces"]),
    ("(match (position : mate))", 1, 18, ["without a keyword name"]),
    # a keyword in the wrong list, naming where it belongs
    ("(match (position :pgn games.pgn))", 1, 18, [":pgn belongs in the match list"]),
    ("(match (position :pattern))", 1, 18, [":pattern belongs in a :relation list"]),
    ("(match\n  :mate\n  (position))", 2, 3, [":mate belongs in a position list", "match list"]),
    ("(match :shift (position))", 1, 8, ["a position list or a :relation list"]),
    ("(match (position :relation (:mate)))", 1, 29, [":mate belongs in a position list"]),
    ("(match (position :forany x U))", 1, 18, [":forany belongs in the match list"]),
    ("(match :movenumber 20 (position))", 1, 8, ["belongs in a position list"]),
    # missing or malformed parameters
    ("(match (position :piececount R))", 1, 31, ["expected a range", ":piececount R 2"]),
    ("(match (position :attackcount A k))", 1, 34, ["expected a range", ":attackcount"]),
    ("(match (position :ray k Q))", 1, 23, ["ray specifier list", ":ray (Q k)"]),
    ("(match (position :ray))", 1, 22, ["ray specifier list", "found ')'"]),
    ("(match (position :piececount 2))", 1, 30, ["expected a piece designator", "'2'"]),
    ("(match (position :movefrom :check))", 1, 28, ["piece designator", "':check'"]),
    ("(match (position :movenumber x))", 1, 30, ["expected a range", "'x'"]),
    ("(match (position :result *))", 1, 26, ["game result", "1/2-1/2"]),
    ("(match :result 2-0 (position))", 1, 16, ["game result"]),
    ("(match :pgn (position))", 1, 13, ["file name", "found '('"]),
    ("(match (position :accumulate x-y))", 1, 30, ["a name", "'x-y'"]),
    ("(match (position :sumrange :mate))", 1, 28, ["a name"]),
    ("(match (position :and))", 1, 22, ["list of position lists"]),
    ("(match (position :relation :pattern))", 1, 28, ["relation list"]),
    ("(match (position :ray (k)))", 1, 23, ["at least two piece designators"]),
    ("(match (position :ray (k :check)))", 1, 26, ["unexpected ':check'", ":ray list"]),
    ("(match (position :matchcount unlimited))", 1, 30, ["upper bound"]),
    ("(match (position :ray (Q k) unlimited))", 1, 29, ["upper bound"]),
    ("(match (position :matchcount *))", 1, 30, ["expected a range", "Scidb's game-information"]),
    ("(match (position :piececount R <0))", 1, 32, ["empty range '<0'", "start at 0"]),
    ("(match (position :piececount R 5 3))", 1, 32, ["empty range 5 3", "write 3 5"]),
    ("(match (position :movenumber 1234567890123456789))", 1, 30, ["number too large"]),
    ("(match (position :piececount R 1 2 3))", 1, 36, ["unexpected number '3'"]),
    # squares and piece letters
    ("(match (position Rh9))", 1, 20, ["bad square", "rank 1-8", "'9'"]),
    ("(match (position Ri9))", 1, 19, ["bad square", "file a-h", "'i'"]),
    ("(match\n  (position [RQ][a1-9]))", 2, 21, ["bad square", "rank 1-8"]),
    ("(match (position Ra1,h1))", 1, 19, ["must be in brackets", "[a1,h1]"]),
    ("(match (position R[a1,h1))", 1, 25, ["missing ']'"]),
    ("(match (position R?-c1))", 1, 20, ["bad square"]),
    ("(match (position Xa1))", 1, 18, ["bad piece letter 'X'", "piece type"]),
    ("(match (position [RXq]a1))", 1, 20, ["bad piece letter 'X'"]),
    ("(match (position _d4))", 1, 18, ["bad piece letter '_'", "'.'"]),
    ("(match (position d4))", 1, 18, ["bad piece letter 'd'", "?d4"]),
    ("(match (position []a1))", 1, 18, ["empty piece-type list"]),
    ("(match (position [RQ))", 1, 21, ["missing ']'"]),
    ("(match (position $))", 1, 19, ["missing tag name"]),
    ("(match :forany rook U (position $rook-a1))", 1, 38, ["after the tag $rook", "$rook[a1,h1]"]),
    # structure
    (
        "(match (position :sequence ((position)) :sequence ((position))))",
        1,
        41,
        ["only one :sequence or :gappedsequence", "1:18", ":and"],
    ),
    (
        "(match (position :sequence ((position))\n :gappedsequence ((position))))",
        2,
        2,
        ["only one :sequence"],
    ),
    ("(match (position :Mate))", 1, 18, ["keywords are lowercase: did you mean :mate?"]),
    ("(match (position :ShiftHorizontal))", 1, 18, ["did you mean :shifthorizontal?"]),
    ("(Match (position))", 1, 2, ["lowercase", "(match"]),
    ("(match (POSITION))", 1, 9, ["lowercase", "(position"]),
    ("", 1, 1, ["empty script"]),
    (";; only a comment\n\n; and another\n", 1, 1, ["empty script"]),
    ("(match (position))\n(match (position))", 2, 1, ["exactly one match list"]),
    ("(match (position)) (position Ra3)", 1, 20, ["after the end of the match list", "')'"]),
    ("(match (position)) junk", 1, 20, ["after the end of the match list"]),
    ("(match (position :and (Ra1)))", 1, 24, ["expected a position list", "'Ra1'"]),
    ("(match (position :or (position Ra1)))", 1, 23, ["own parentheses"]),
    ("(match (position :and ((Ra1))))", 1, 25, ["expected 'position'"]),
    ("(match)", 1, 1, ["no position list", "(match (position))"]),
    ("(match :result 1-0)", 1, 1, ["no position list"]),
    ("(position Ra3) (position Rb3)", 1, 16, ["after the end of the match list"]),
    ("(match (match (position)))", 1, 9, ["cannot be nested"]),
    ("(match (posiiton Ra3))", 1, 9, ["expected 'position'", "did you mean (position"]),
    ("(match Ra3 (position))", 1, 8, ["unexpected 'Ra3' in the match list", "position list"]),
    ("(match (position :relation (Ra3)))", 1, 29, ["unexpected 'Ra3'", "relation"]),
    ("(match (position Ra3 (position Rb3)))", 1, 22, ["cannot stand directly inside", "1:8"]),
    ("(match (position (Ra3)))", 1, 18, ["unexpected '('"]),
    ("(match (position position))", 1, 18, ["must follow '('"]),
    ("match (position)", 1, 1, ["expected '(match'"]),
    ("cql() Ra3 attacks k", 1, 1, ["expected '(match'", "CQL 6"]),
    (
        "(match (position :and ((position :matchcount 3))))",
        1,
        34,
        ["only allowed in a position list directly inside the match list"],
    ),
    (
        "(match (position :or ((position :pretransformmatchcount 3))))",
        1,
        33,
        [":pretransformmatchcount is only allowed"],
    ),
    (
        "(match :forany a U :forany b U :forany c U (position))",
        1,
        32,
        ["at most two :forany"],
    ),
    ("(match :forany a U :forany a N (position))", 1, 28, ["declared twice", "1:16"]),
    (
        "(match :forany rook R (position $rook[a1])\n (position :relation (:pattern)))",
        1,
        16,
        ["cannot be used in a match list that holds a :relation", "2:12"],
    ),
    (
        "(match (position :relation (:pattern)) (position :tagmatch x P))",
        1,
        60,
        ["cannot be used", ":relation"],
    ),
    ("(match (position $queen[d1]))", 1, 18, ["tag queen is not declared", ":forany queen"]),
    (
        "(match :forany rook R :forany knight N (position :tagmatch queen Q))",
        1,
        60,
        ["tag queen is not declared", "declared tags: knight, rook"],
    ),
    (
        "(match (position :relation (:newpiececount A 1 :pattern :newpiececount a 1)))",
        1,
        57,
        [":newpiececount may appear only once", "1:29"],
    ),
    # dialect keywords that do not run (decisions L17, X5): the keyword and why
    ("(match (position :eithercolor))", 1, 18, [":eithercolor belongs in the match list"]),
    ("(match (position :endgameevaluation* 1))", 1, 18, ["`:endgameevaluation*`: needs"]),
    ("(match :hasmarker (position))", 1, 8, ["Scidb extension `:hasmarker`"]),
    ("(match (position :maxswapevaluation 1))", 1, 18, ["`:maxswapevaluation`: needs an engine"]),
    ("(match (position :cut))", 1, 18, ["`:cut`: depends on Scidb's evaluation order"]),
    ("(match (position !:flipcolor))", 1, 19, ["cannot be negated", "!:check"]),
    ("(match !:pgn x.pgn (position))", 1, 9, ["Scidb negation", ":pgn' cannot be negated"]),
    ('(match :player "Kasparov" (position))', 1, 16, ["quoted strings", ":player Kasparov"]),
    ("(match (position :nolosing))", 1, 18, ["`:nolosing`: belongs to a chess variant"]),
    # the place is the offending token's, not that of the white space or comments before it
    ("(match\n  (position :piececount R\n   ; why\n   ))", 4, 4, ["expected a range", "')'"]),
    (";c\n\n  b", 3, 3, ["expected '(match'"]),
    ("(match (position :ray (k\n  :check)))", 2, 3, ["unexpected ':check'"]),
    ("(match (position :or\n  (position Ra1)))", 2, 4, ["own parentheses"]),
    ("(match (position :not ; a list?\n (match)))", 2, 3, ["match list cannot be nested"]),
    (
        "(match (position :matchconsecutive (" + "(position) " * 7 + ")))",
        1,
        18,
        ["`:matchconsecutive` of 7 lists", "at most 6"],
    ),
    ("(match (position :piececount R 1 ; c\n 99999999999999999999))", 2, 2, ["too large"]),
    ("(match\t(position Ra3)\n)\x1c )", 3, 2, ["unmatched ')'"]),
]


def message_of(error: LegacySyntaxError) -> str:
    return " | ".join([error.message, error.expected, error.hint])


@pytest.mark.parametrize(("text", "line", "column", "words"), CASES)
def test_error_message_and_place(text: str, line: int, column: int, words: list[str]) -> None:
    with pytest.raises(LegacySyntaxError) as caught:
        read_script(text, "bad.cql")
    error = caught.value
    assert (error.line, error.column) == (line, column), message_of(error)
    for word in words:
        assert word in message_of(error)
    assert error.file == "bad.cql"


def test_error_is_a_script_error_rendered_with_a_caret() -> None:
    with pytest.raises(ScriptError) as caught:
        read_script("(match\n  (position Ri9 :mate))", "fork.cql")
    rendered = caught.value.render()
    assert rendered.splitlines()[0].startswith("fork.cql:2:14: error: bad square designator")
    assert rendered.splitlines()[-2:] == ["      (position Ri9 :mate))", "                 ^"]
    assert caught.value.text == "Ri9"


def test_error_keeps_the_offending_text_and_source() -> None:
    source = "(match (position :mate :matecount 3))"
    with pytest.raises(LegacySyntaxError) as caught:
        read_script(source)
    assert caught.value.text == ":matecount"
    assert caught.value.source == source
    assert caught.value.file is None
    assert str(caught.value).startswith("<script>:1:24:")


def test_nesting_is_capped_before_python_recursion() -> None:
    text = "(match (position " + ":and ((position " * 200 + "))" * 200 + "))"
    with pytest.raises(LegacySyntaxError, match=f"nested too deeply \\(limit {MAX_DEPTH}"):
        read_script(text)


def test_the_offending_text_is_the_whole_token() -> None:
    with pytest.raises(LegacySyntaxError) as caught:
        read_script("(match (position :and (position Ra1)))")
    assert caught.value.text == "position"
    with pytest.raises(LegacySyntaxError) as caught:
        read_script("(match (position :piececount R ; c\n  ))")
    assert (caught.value.text, caught.value.column) == (")", 3)


def test_nesting_just_under_the_cap_is_read() -> None:
    levels = (MAX_DEPTH - 2) // 2
    text = "(match (position " + ":and ((position " * levels + "))" * levels + "))"
    script = read_script(text)
    depth = 0
    position_list = script.match.position_lists()[0]
    while position_list.items:
        position_list = position_list.items[0].lists[0]
        depth += 1
    assert depth == levels


def test_error_positions_count_tabs_as_one_column() -> None:
    with pytest.raises(LegacySyntaxError) as caught:
        read_script("(match\n\t(position\tXa1))")
    assert (caught.value.line, caught.value.column) == (2, 12)


# --------------------------------------------------------------------------------------
# The reader's own recursion (pyparsing recurses a few dozen frames per nested list)
# --------------------------------------------------------------------------------------

#: Frames the reader may use above its caller for any script; Python's default recursion
#: limit (1000) leaves the rest to the caller.
READER_FRAMES = 700


def stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def nested(levels: int, innermost: str = "") -> str:
    return "(match (position " + ":and ((position " * levels + innermost + "))" * levels + "))"


DEEPEST = (MAX_DEPTH - 2) // 2


@pytest.mark.parametrize(
    "text",
    [nested(DEEPEST), nested(DEEPEST - 1, ":ray (Q k) :relation (:pattern) :or ((position))")],
    ids=["position-lists", "ray-relation-or"],
)
def test_the_deepest_scripts_are_read_within_a_bounded_stack(text: str) -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(stack_depth() + READER_FRAMES)
    try:
        assert read_script(text).match.position_lists()
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("innermost", ["", ":ray (Q k)", ":relation (:pattern)"])
def test_deeper_scripts_are_refused_at_the_cap_within_a_bounded_stack(innermost: str) -> None:
    text = nested(200, innermost)
    opened = [index for index, char in enumerate(text) if char == "("]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(stack_depth() + READER_FRAMES)
    try:
        with pytest.raises(LegacySyntaxError) as caught:
            read_script(text)
    finally:
        sys.setrecursionlimit(limit)
    assert caught.value.message == f"nested too deeply (limit {MAX_DEPTH} parentheses)"
    assert (caught.value.line, caught.value.column) == (1, opened[MAX_DEPTH] + 1)


def test_a_caller_short_of_stack_gets_a_syntax_error() -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(stack_depth() + 150)
    try:
        with pytest.raises(LegacySyntaxError, match="recursion limit") as caught:
            read_script(nested(DEEPEST))
    finally:
        sys.setrecursionlimit(limit)
    assert caught.value.line == 1 and caught.value.column > 1
