"""Re-ranking causes by the results of the checks a reader ran, and reading the marks
from a query."""

from __future__ import annotations

import pytest

from failref.domain.matching.judging.rerank import RankedCause, check_options, read_marks, rerank
from failref.domain.references.document import Check, CheckOutcome, CheckVerdict
from failref.errors import InvalidInput


def outcome(verdict: CheckVerdict, *causes: int) -> CheckOutcome:
    return CheckOutcome(verdict=verdict, causes=causes)


def check(*outcomes: CheckOutcome) -> Check:
    return Check(markdown="x", html="x", commands=(), line=1, outcomes=outcomes)


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
    assert read_marks(query, CHECKS) == {1: outcome("rules_out", 1), 4: outcome("confirms", 2, 3)}


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        pytest.param({"check9": "confirms"}, "check9", "no evidence check 9", id="out-of-range"),
        pytest.param({"check0": "confirms"}, "check0", "no evidence check 0", id="zero"),
        pytest.param({"check1": "maybe"}, "check1", "can show confirms, rules_out", id="bad"),
        pytest.param({"check2": "rules_out"}, "check2", "cannot show 'rules_out'", id="cannot"),
        pytest.param({"check4": "confirms"}, "check4", "confirms-2-3, confirms-1", id="which"),
        pytest.param({"check5": "confirms"}, "check5", "names no cause", id="no-outcomes"),
    ],
)
def test_a_mark_that_makes_no_sense_names_its_field(
    query: dict[str, str], field: str, words: str
) -> None:
    with pytest.raises(InvalidInput, match=words) as raised:
        read_marks(query, CHECKS)
    assert raised.value.field == field
