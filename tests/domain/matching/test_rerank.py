"""Re-ranking causes by the checks a reader ran, and reading the marks from a query."""

from __future__ import annotations

import pytest

from app.domain.matching.rerank import RankedCause, marks_possible, read_marks, rerank
from app.domain.references.document import Check
from app.errors import InvalidInput


def check(confirms: tuple[int, ...], rules_out: tuple[int, ...]) -> Check:
    return Check(
        markdown="x", html="x", commands=(), line=1, confirms=confirms, rules_out=rules_out
    )


CHECKS = [check((2,), (1,)), check((3,), ()), check((), (2, 4)), check((2, 3), ())]


def test_contested_stays_in_place_and_ruled_out_goes_last() -> None:
    ranked = rerank([1, 2, 3, 4], CHECKS, {1: "confirms", 3: "rules_out"})
    assert ranked == [
        RankedCause(1, "open"),
        RankedCause(2, "contested", confirmed_by=(1,), ruled_out_by=(3,)),
        RankedCause(3, "open"),
        RankedCause(4, "ruled_out", ruled_out_by=(3,)),
    ]


def test_more_confirming_checks_rank_higher_and_a_check_rules_out() -> None:
    ranked = rerank([1, 2, 3, 4], CHECKS, {2: "confirms", 4: "confirms", 1: "rules_out"})
    assert [(c.number, c.state, c.confirmed_by) for c in ranked] == [
        (3, "confirmed", (2, 4)),
        (2, "confirmed", (4,)),
        (4, "open", ()),
        (1, "ruled_out", ()),
    ]


def test_the_base_order_is_kept_within_a_group() -> None:
    ranked = rerank([4, 3, 1, 2], CHECKS, {})
    assert [c.number for c in ranked] == [4, 3, 1, 2]
    assert {c.state for c in ranked} == {"open"}


def test_marks_are_read_from_the_query_and_other_parameters_left_alone() -> None:
    query = {"check1": "rules_out", "check2": "confirms", "check3": "", "gpus": "8"}
    assert read_marks(query, CHECKS) == {1: "rules_out", 2: "confirms"}


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        pytest.param({"check9": "confirms"}, "check9", "no evidence check 9", id="out-of-range"),
        pytest.param({"check0": "confirms"}, "check0", "no evidence check 0", id="zero"),
        pytest.param({"check1": "maybe"}, "check1", "confirms or rules_out", id="bad-value"),
        pytest.param({"check2": "rules_out"}, "check2", "rules out no cause", id="cannot"),
        pytest.param({"check3": "confirms"}, "check3", "confirms no cause", id="cannot-confirm"),
    ],
)
def test_a_mark_that_makes_no_sense_names_its_field(
    query: dict[str, str], field: str, words: str
) -> None:
    with pytest.raises(InvalidInput, match=words) as raised:
        read_marks(query, CHECKS)
    assert raised.value.field == field


def test_the_marks_a_check_can_take_are_those_whose_causes_it_names() -> None:
    assert [marks_possible(c) for c in CHECKS] == [
        ("confirms", "rules_out"),
        ("confirms",),
        ("rules_out",),
        ("confirms",),
    ]
