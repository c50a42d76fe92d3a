"""The one exception family: status, code and field on every error, `str` what people read."""

from __future__ import annotations

import pytest

from failref import errors


@pytest.mark.parametrize(
    ("error", "status", "code", "field", "text"),
    [
        pytest.param(errors.NotFound("gone", field="id"), 404, "not_found", "id", "gone", id="nf"),
        pytest.param(
            errors.LogTooLarge("3 lines is over the 2-line limit"),
            422,
            "invalid_input",
            "log",
            "log: 3 lines is over the 2-line limit",
            id="log-too-large",
        ),
        pytest.param(
            errors.CalculatorInputError("workers", "must be at least 1"),
            422,
            "invalid_input",
            "workers",
            "workers: must be at least 1",
            id="calculator-input",
        ),
        pytest.param(
            errors.UnknownCalculator("warp", ["a", "b"]),
            404,
            "not_found",
            "name",
            "no calculator 'warp'; known: a, b",
            id="unknown-calculator",
        ),
        pytest.param(
            errors.FrontMatterError(3, "invalid YAML"), 422, "invalid_input", "text", "invalid YAML"
        ),
        pytest.param(
            errors.AuthError("no such session"), 401, "unauthorized", None, "no such session"
        ),
        pytest.param(
            errors.TooManyRequests("slow down", 30), 429, "too_many_requests", None, "slow down"
        ),
        pytest.param(
            errors.StaleBase("changed", "old text"), 409, "conflict", "base", "changed", id="stale"
        ),
        pytest.param(errors.InsufficientStorage("full"), 507, "insufficient_storage", None, "full"),
    ],
)
def test_every_error_carries_its_status_code_and_field(
    error: errors.FailrefError, status: int, code: str, field: str | None, text: str
) -> None:
    assert (error.status, error.code, error.field, str(error)) == (status, code, field, text)
    assert (error.problems, error.diff, error.fields) == (None, None, None)


def test_a_calculator_input_error_keeps_the_bare_problem_for_the_form() -> None:
    error = errors.CalculatorInputError("workers", "must be at least 1")
    assert error.message == "must be at least 1"


def test_several_calculator_input_errors_name_every_input() -> None:
    error = errors.CalculatorInputErrors(
        [
            errors.CalculatorInputError("workers", "must be at least 1"),
            errors.CalculatorInputError("steps", "must be an integer"),
        ]
    )
    assert (error.status, error.field, error.message) == (422, "workers", "must be at least 1")
    assert error.fields == [("workers", "must be at least 1"), ("steps", "must be an integer")]
    assert str(error) == "workers: must be at least 1; steps: must be an integer"


def test_unknown_statuses_have_a_generic_code() -> None:
    assert errors.code_for(418) == "error"
