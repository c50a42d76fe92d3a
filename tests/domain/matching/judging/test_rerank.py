"""Re-ranking causes by the results of the checks a reader ran, and reading the marks
from a query."""

from __future__ import annotations

import pytest

from failref.domain.matching.judging.rerank import (
    IgnoredMark,
    Marks,
    RankedCause,
    check_options,
    read_marks,
    rerank,
)
from failref.domain.references.document import Check, CheckOutcome, CheckVerdict


def outcome(verdict: CheckVerdict, *causes: int) -> CheckOutcome:
    return CheckOutcome(verdict=verdict, causes=causes)


def check(*outcomes: CheckOutcome) -> Check:
    return Check(markdown="x", commands=(), line=1, outcomes=outcomes)


CHECKS = [
    check(outcome("confirms", 2), outcome("rules_out", 1)),
    check(outcome("confirms", 3)),
    check(outcome("rules_out", 2, 4)),
    check(outcome("confirms", 2, 3), outcome("confirms", 1), outcome("rules_out", 1)),
    check(),
]


def test_contested_stays_in_place_and_ruled_out_goes_last() -> None:
    marks = {1: outcome("confirms", 2), 3: outcome("rules_out", 2, 4)}
    assert rerank([1, 2, 3, 4], marks) == [
        RankedCause(1, "open"),
        RankedCause(2, "contested", confirmed_by=(1,), ruled_out_by=(3,)),
        RankedCause(3, "open"),
        RankedCause(4, "ruled_out", ruled_out_by=(3,)),
    ]


def test_more_confirming_checks_rank_higher() -> None:
    marks = {2: outcome("confirms", 3), 4: outcome("confirms", 2, 3), 1: outcome("rules_out", 1)}
    assert [(c.number, c.state, c.confirmed_by) for c in rerank([1, 2, 3, 4], marks)] == [
        (3, "confirmed", (2, 4)),
        (2, "confirmed", (4,)),
        (4, "open", ()),
        (1, "ruled_out", ()),
    ]


def test_the_base_order_is_kept_within_a_group() -> None:
    ranked = rerank([4, 3, 1, 2], {})
    assert [c.number for c in ranked] == [4, 3, 1, 2]
    assert {c.state for c in ranked} == {"open"}


def test_a_result_is_its_bare_verdict_unless_the_check_has_two_of_that_verdict() -> None:
    assert [[o.value for o in check_options(c)] for c in CHECKS] == [
        ["confirms", "rules_out"],
        ["confirms"],
        ["rules_out"],
        ["confirms-2-3", "confirms-1", "rules_out"],
        [],
    ]


def test_marks_are_read_from_the_query_and_other_parameters_left_alone() -> None:
    query = {"check1": "rules_out", "check4": "confirms-2-3", "check3": "", "gpus": "8"}
    assert read_marks(query, CHECKS) == Marks(
        {1: outcome("rules_out", 1), 4: outcome("confirms", 2, 3)}
    )


@pytest.mark.parametrize(
    ("query", "why"),
    [
        pytest.param({"check9": "confirms"}, "this page has no check 9; it has 5", id="gone"),
        pytest.param({"check0": "confirms"}, "this page has no check 0; it has 5", id="zero"),
        pytest.param(
            {"check1": "maybe"},
            "check 1 cannot show that; it can show confirms, rules_out",
            id="bad",
        ),
        pytest.param(
            {"check2": "rules_out"}, "check 2 cannot show that; it can show confirms", id="cannot"
        ),
        pytest.param(
            {"check4": "confirms"},
            "check 4 cannot show that; it can show confirms-2-3, confirms-1, rules_out",
            id="which",
        ),
        pytest.param(
            {"check5": "confirms"},
            "check 5 cannot show that; it can show no result: it names no cause by number",
            id="no-outcomes",
        ),
    ],
)
def test_a_mark_the_page_no_longer_offers_is_set_aside_with_why(
    query: dict[str, str], why: str
) -> None:
    ((field, value),) = query.items()
    assert read_marks(query, CHECKS) == Marks({}, (IgnoredMark(field, value, why),))


def test_the_marks_that_fit_are_kept_beside_those_set_aside() -> None:
    marks = read_marks({"check99": "confirms-1", "check2": "confirms", "check1": "x" * 99}, CHECKS)
    assert marks.given == {2: outcome("confirms", 3)}
    assert [(m.field, m.value) for m in marks.ignored] == [
        ("check99", "confirms-1"),
        ("check1", "x" * 40),
    ]
