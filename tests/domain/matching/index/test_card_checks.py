"""What a result card offers to run next: a cause's telling checks, a symptom's
separating check and the checks naming its top candidates. Run on tests/fixtures/diagnosis,
where fx-timeout's three checks are:
1 confirms or rules out candidate 2; 2 confirms candidate 1 and rules out 3; 3 confirms 3."""

from __future__ import annotations

import pytest
from paths import DIAGNOSIS
from pydantic import ValidationError
from reference_helpers import made_reference

from failref.domain.matching.index.card_checks import (
    CardChecks,
    check_hint,
    naming_checks,
    separating_check,
    telling_order,
)
from failref.domain.matching.results import CandidateMatch
from failref.domain.references.document import Cause, Check, Reference
from failref.domain.references.folder import read_folder


@pytest.fixture(scope="module")
def references() -> dict[str, Reference]:
    return {r.id: r for r in read_folder(DIAGNOSIS).references}


def check(confirms: tuple[int, ...], rules_out: tuple[int, ...], command: bool) -> Check:
    commands = ("nvidia-smi -q",) if command else ()
    return Check(markdown="x", commands=commands, line=1, confirms=confirms, rules_out=rules_out)


def cause_with(checks: list[Check]) -> Reference:
    causes = tuple(Cause(title=f"Cause {n}", markdown="", line=1) for n in (1, 2, 3))
    return made_reference(id="c", title="c", path="references/c.md").model_copy(
        update={"causes": causes, "checks": tuple(checks)}
    )


def test_a_hint_carries_the_causes_by_title_and_number(references: dict[str, Reference]) -> None:
    hint = check_hint(references["fx-timeout"], 2)
    assert (hint.number, hint.confirms_numbers, hint.rules_out_numbers) == (2, [1], [3])
    assert (hint.confirms, hint.rules_out) == (["A slow link"], ["A long checkpoint save"])


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        pytest.param([1, 3], 2, id="confirms-one-rules-out-the-other"),
        pytest.param([3, 1], 2, id="either-order"),
        pytest.param([1, 2], 1, id="names-only-one-first-in-list"),
        pytest.param([2, 3], 1, id="names-only-one"),
    ],
)
def test_the_separating_check_tells_the_top_two_apart(
    references: dict[str, Reference], top: list[int], expected: int
) -> None:
    assert separating_check(references["fx-timeout"], top) == expected - 1


def test_no_separating_check_when_every_check_names_both_or_neither() -> None:
    both = cause_with([check((1,), (2,), True), check((3,), (), True)])
    assert separating_check(both, [1, 2]) == 0
    neither = cause_with([check((1, 2), (), True), check((3,), (), True)])
    assert separating_check(neither, [1, 2]) is None
    assert separating_check(neither, [1]) is None


def test_a_check_already_run_is_never_offered_again(references: dict[str, Reference]) -> None:
    # Check 2 tells 1 and 3 apart, check 3 names only 3; check 1 tells 1 and 2 apart.
    timeout = references["fx-timeout"]
    assert separating_check(timeout, [1, 3], skip={1}) == 2
    assert separating_check(timeout, [1, 2], skip={0}) == 1
    assert [p + 1 for p in naming_checks(timeout, [1, 3], skip={1})] == [3]


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        pytest.param([1, 3], [2, 3], id="naming-both-and-splitting-first"),
        pytest.param([3, 1], [2, 3], id="either-order"),
        pytest.param([1, 2], [1, 2], id="naming-one-each-in-the-authors-order"),
        pytest.param([2], [1], id="one-candidate"),
        pytest.param([], [], id="none"),
    ],
)
def test_the_naming_checks_put_those_naming_more_of_the_top_first(
    references: dict[str, Reference], top: list[int], expected: list[int]
) -> None:
    assert [p + 1 for p in naming_checks(references["fx-timeout"], top)] == expected


def test_of_two_checks_naming_both_the_one_that_splits_them_goes_first() -> None:
    reference = cause_with([check((1, 2), (), True), check((1,), (2,), True)])
    assert [p + 1 for p in naming_checks(reference, [1, 2])] == [2, 1]


def test_at_most_two_checks_are_named_those_naming_more_of_the_top_first() -> None:
    reference = cause_with([check((1,), (), True), check((2,), (), True), check((1, 2), (), True)])
    assert [p + 1 for p in naming_checks(reference, [1, 2])] == [3, 1]


def test_a_cards_checks_for_a_top_pair_are_the_same_each_time_it_is_asked(
    references: dict[str, Reference],
) -> None:
    ranked = [CandidateMatch(id=None, title="t", score=0.5, reasons=[], number=n) for n in (1, 3)]
    card = CardChecks.of(references["fx-timeout"])
    first = card.naming([1, 3])
    assert [h.number for h in first] == [2, 3]
    first.clear()  # an answer's list is its own
    assert [h.number for h in card.naming((1, 3))] == [2, 3]
    assert card.next_checks(ranked) == card.next_checks(ranked) == [card.hints[1]]


def test_telling_checks_prefer_commands_then_likelier_causes_then_decisive() -> None:
    reference = cause_with(
        [
            check((3,), (), True),  # 1: a command, names cause 3
            check((1,), (), False),  # 2: no command
            check((1,), (), True),  # 3: a command, names cause 1
            check((1,), (2,), True),  # 4: a command, names cause 1, both ways
            check((2,), (), True),  # 5: a command, names cause 2
        ]
    )
    assert [position + 1 for position in telling_order(reference)] == [4, 3, 5, 1, 2]
    assert [h.number for h in CardChecks.of(reference).telling] == [4, 3, 5]


def test_next_checks_for_a_symptom_follow_the_ranked_top_two(
    references: dict[str, Reference],
) -> None:
    ranked = [
        CandidateMatch(id=None, title="t", score=0.5, reasons=[], number=n) for n in (3, 1, 2)
    ]
    symptom = CardChecks.of(references["fx-timeout"])
    assert [h.number for h in symptom.next_checks(ranked)] == [2]
    assert symptom.next_checks(ranked[:1]) == []
    cause = CardChecks.of(references["fx-slow-link"])
    assert [h.number for h in cause.next_checks([])] == [1]


def test_card_checks_share_one_frozen_hint_per_check(references: dict[str, Reference]) -> None:
    card = CardChecks.of(references["fx-timeout"])
    assert [h.number for h in card.hints] == [1, 2, 3]
    assert card.hints == tuple(check_hint(references["fx-timeout"], n) for n in (1, 2, 3))
    assert all(any(h is hint for hint in card.hints) for h in card.telling)
    with pytest.raises(ValidationError):
        card.hints[0].number = 9
