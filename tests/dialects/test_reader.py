"""The dialect forms of the legacy reader (X1): each is read as the standard CQL 3 it
stands for, its mistakes are placed at line:column, and ``check`` names the forms a
script uses as information."""

from __future__ import annotations

from pathlib import Path

import pytest

from cqllegacy.cli import main
from cqllegacy.legacy import LegacySyntaxError, read_script
from cqllegacy.legacy.dialects import describe_forms

#: (dialect text, the standard CQL 3 it is read as)
SAME_AS = [
    ("(position Ra3 :check)", "(match (position Ra3 :check))"),
    ("; c\n(position Ra3)\n; d", "; c\n(match (position Ra3))\n; d"),
    (
        "(match (position :not (position :check)))",
        "(match (position :and ((position :not :and ((position :check))))))",
    ),
    ("(match (position !:check))", "(match (position :and ((position :not :check))))"),
    (
        "(match (position !:piececount R 2))",
        "(match (position :and ((position :not :piececount R 2))))",
    ),
    ("(match (position :nomate))", "(match (position :and ((position :not :mate))))"),
    ("(match (position :nostalemate))", "(match (position :and ((position :not :stalemate))))"),
    ("(match (position :piececount R <2))", "(match (position :piececount R 0 1))"),
    ("(match (position :piececount R <=2))", "(match (position :piececount R 0 2))"),
    ("(match (position :piececount R >2))", "(match (position :piececount R 3 unlimited))"),
    ("(match (position :piececount R >=2))", "(match (position :piececount R 2 unlimited))"),
    ("(match (position :piececount R +2 +3))", "(match (position :piececount R 2 3))"),
    (
        "(match (position :powerdifference A \u22123 \u20131))",
        "(match (position :powerdifference A -3 -1))",
    ),
    (
        "(match (position :powerdifference A <=\u22122))",
        "(match (position :powerdifference A -576 -2))",
    ),
    ("(match (position :ray (Q k) >=2))", "(match (position :ray (Q k) 2 unlimited))"),
    ("(match (position P?[27]))", "(match (position P[?2,?7]))"),
    ("(match (position N[ac]3))", "(match (position N[a3,c3]))"),
    ("(match (position M?[1-7]))", "(match (position M?1-7))"),
    ("(match (position R[a1,[ac]3]))", "(match (position R[a1,a3,c3]))"),
    ("(match (position B[a1,a3,\n   e1, h8]))", "(match (position B[a1,a3,e1,h8]))"),
]


@pytest.mark.parametrize(("dialect", "standard"), [case for case in SAME_AS if case[1]])
def test_a_dialect_form_reads_as_its_standard_equivalent(dialect: str, standard: str) -> None:
    assert read_script(dialect) == read_script(standard)
    assert read_script(dialect).dialect_forms


@pytest.mark.parametrize(
    "text",
    [
        "(position :contactcheck)",
        "(position :contactcheck :mate Q)",
        "(position :contactcheck ; c\n)",
        "(position Q :contactcheck (position))"[:-12] + ")",
        "(position :contactcheck :piececount Q 1)",
    ],
)
def test_contactcheck_without_a_designator_reads(text: str) -> None:
    read_script(text)


def test_a_standard_script_uses_no_dialect_form() -> None:
    assert read_script("(match (position Ra3 :piececount R 1 2 :not))").dialect_forms == ()


#: (text, line, column, words of the message)
MISTAKES = [
    ("(position\n  :piececount R <0)", 2, 17, ["empty range '<0'"]),
    ("(position\n  P?[29])", 2, 5, ["bad square designator '?[29]'"]),
    ("(position\n  !:markall)", 2, 4, ["cannot be negated"]),
    ("(position\n  !:nosuch)", 2, 4, ["cannot be negated"]),
    ("(position :not\n  (position :cut))", 2, 13, ["`:cut`: depends on Scidb's evaluation order"]),
    ("(position\n  :xor ())", 2, 3, [":xor needs at least one position list"]),
    ("(position\n  :evaluation 1 2)", 2, 3, ["`:evaluation`: needs an engine"]),
    ("(position\n  :whitetitle GM)", 2, 3, ["player and event database"]),
    ("(position\n  :kingonthehill)", 2, 3, ["chess variant"]),
    ("(position\n  :line* (Pe2-e4 e7-e5))", 2, 18, ["`:line*`", "the piece that moves"]),
    ("(position :pawncount P\n  passed-isolani 1)", 2, 10, ["attribute `isolani`"]),
    ('(match\n  :whiteplayer "Tal" (position))', 2, 16, ["quoted strings"]),
    ("(position :contactcheck\n  Q)", 2, 3, ["`:contactcheck` with a piece designator"]),
    ("(position :variations\n  :halfmovenumber 3)", 2, 3, ["`:halfmovenumber` with :variations"]),
    ("(position :ischeck\n  3)", 2, 3, ["`:ischeck` with a range", "three-check"]),
    ("(position !:ischeck >=2)", 1, 21, ["`:ischeck` with a range"]),
    ("(position !:contactcheck\n  Q)", 2, 3, ["`:contactcheck` with a piece designator"]),
    ("(match\n  :whiteplayer (position))", 2, 16, ["after :whiteplayer"]),
]


@pytest.mark.parametrize(("text", "line", "column", "words"), MISTAKES)
def test_a_dialect_mistake_is_placed_and_said(
    text: str, line: int, column: int, words: list[str]
) -> None:
    with pytest.raises(LegacySyntaxError) as caught:
        read_script(text, "s.cql")
    error = caught.value
    said = " | ".join([error.message, error.expected, error.hint])
    assert (error.line, error.column) == (line, column), said
    for word in words:
        assert word in said
    assert "unknown keyword" not in said


def test_the_forms_are_named_once_each_with_their_first_place() -> None:
    script = read_script("(position :doublecheck\n  P?[27] :doublecheck !:mate :piececount P <=6)")
    assert describe_forms(script.dialect_forms) == (
        "Chess Assistant: a bare `(position …)` without `(match …)` (1:1); Scidb CQL-S: "
        "`:doublecheck` (1:11), `P?[27]` (2:3), `!:mate` (2:23), `<=6` (2:44)"
    )


def test_check_names_the_dialect_forms_as_information(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scidb.cql"
    path.write_text("(match (position :xor ((position Q) (position q))))\n", encoding="utf-8")
    status = main(["check", str(path)])
    out, err = capsys.readouterr()
    assert status == 0
    assert out.startswith("(match")
    assert err == f"{path}: note: Scidb CQL-S: `:xor` (1:18)\n"


def test_check_says_nothing_of_a_standard_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.cql"
    path.write_text("(match (position Ra3))\n", encoding="utf-8")
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().err == ""


def test_a_player_of_one_colour_reads_and_prints_back() -> None:
    from cqllegacy.legacy import print_script

    script = read_script("(match :whiteplayer tal :blackplayer Bot (position))")
    assert read_script(print_script(script)) == script
    assert [form for form, _ in script.dialect_forms] == ["`:whiteplayer`", "`:blackplayer`"]
