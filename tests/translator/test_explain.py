"""``translator.explain``: the counts against the naive reference's own transform sets,
and the reasons an orbit is written as an explicit union."""

from __future__ import annotations

import pytest
from cqllegacy.translator.explain import explain_script

from cqllegacy.legacy import read_script
from cqllegacy.legacy import tree as lt
from tests.support import reference_legacy as ref

SCRIPTS = [
    "(match (position Nd4 k[b3,b5,c2,c6,e2,e6,f3,f5] q[b3,b5,c2,c6,e2,e6,f3,f5]"
    " :shift :flipcolor))",
    "(match (position :piececount P[b2-7] 4 :shifthorizontal :flipcolor))",
    "(match (position Rc1 Kg1 :shiftvertical))",
    "(match (position Ka1 Bb2 :flip :wtm))",
    "(match (position Qd4 :shiftdiagonal))",
    "(match (position Pa2 pb3 :flipdiagonal :shiftmaindiagonal))",
]


def keywords_of(pl: lt.PositionList) -> list[str]:
    return [item.keyword.value for item in pl.items if isinstance(item, lt.Transform)]


@pytest.mark.parametrize("text", SCRIPTS)
def test_counts_agree_with_the_reference_enumeration(text: str) -> None:
    script = read_script(text)
    [facts] = explain_script(script).lists
    [pl] = script.match.position_lists()
    base = lt.PositionList(tuple(i for i in pl.items if not isinstance(i, lt.Transform)))
    transforms = ref.transform_set(keywords_of(pl))
    distinct = {ref.transform_list(t, ref.convert_list(base)) for t in transforms}
    assert facts.transform_count == len(transforms)
    assert len(facts.members) == len(distinct)


def test_a_compact_translation_has_no_reasons() -> None:
    [facts] = explain_script(read_script(SCRIPTS[0])).lists
    assert facts.form == "compact" and facts.reasons == ()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "(match (position Rc1 Kg1 :shiftvertical))",
            "Rc1 is on rank 1: legacy up-shifts keep it and smear it up the file; "
            "CQL 6 shifts move it",
        ),
        (
            "(match (position Qh4 kc4 :shifthorizontal))",
            "Qh4 is on the h-file: legacy left-shifts keep it and smear it along the rank; "
            "CQL 6 shifts move it",
        ),
        ("(match (position Qd4 kf6 :shiftdiagonal))", ":shiftdiagonal: CQL 6 has no transform"),
    ],
)
def test_the_reason_for_an_explicit_union(text: str, reason: str) -> None:
    [facts] = explain_script(read_script(text)).lists
    assert facts.form == "explicit"
    assert facts.reasons[0].startswith(reason)
