"""Coercion of raw inputs (JSON values and HTML form strings) into typed, bounded values."""

from __future__ import annotations

import pytest

from failref.domain.calculators import InputSpec
from failref.domain.calculators.coerce import MAX_TEXT_CHARS, coerce_input, format_bound
from failref.errors import CalculatorInputError

NUMBER = InputSpec("size_gb", "Size", "GB", "number", 1.0, 0.0, 1e6, exclusive_minimum=True)
INTEGER = InputSpec("workers", "Workers", "", "integer", 8, 2, 1_000_000)
CHOICE = InputSpec("algorithm", "Algorithm", "", "choice", "ring", choices=("effective", "ring"))
LIST = InputSpec("stage_ms", "Stages", "ms", "number-list", (1.0,), 0.001, 1e9, max_items=5)


@pytest.mark.parametrize(
    ("spec", "raw", "expected"),
    [
        pytest.param(NUMBER, 140, 140.0, id="int-to-float"),
        pytest.param(NUMBER, 2.5, 2.5, id="float"),
        pytest.param(NUMBER, " 140 ", 140.0, id="form-string"),
        pytest.param(NUMBER, "1e3", 1000.0, id="form-exponent"),
        pytest.param(NUMBER, 1e6, 1e6, id="at-maximum"),
        pytest.param(INTEGER, "32", 32, id="integer-string"),
        pytest.param(INTEGER, 32.0, 32, id="integral-float"),
        pytest.param(INTEGER, "32.0", 32, id="integral-float-string"),
        pytest.param(INTEGER, 2, 2, id="at-minimum"),
        pytest.param(CHOICE, " effective ", "effective", id="choice-stripped"),
        pytest.param(LIST, [200, 400.5], [200.0, 400.5], id="list"),
        pytest.param(LIST, (1, "2"), [1.0, 2.0], id="tuple-with-string-item"),
        pytest.param(LIST, "200, 400, 200", [200.0, 400.0, 200.0], id="comma-string"),
        pytest.param(LIST, "200 400;200,", [200.0, 400.0, 200.0], id="mixed-separators"),
    ],
)
def test_valid_values_are_coerced(spec: InputSpec, raw: object, expected: object) -> None:
    value = coerce_input(spec, raw)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("spec", "raw", "message"),
    [
        pytest.param(NUMBER, 0, "must be greater than 0", id="zero-exclusive"),
        pytest.param(NUMBER, -1.5, "must be greater than 0", id="negative"),
        pytest.param(NUMBER, 1e6 + 1, "must be at most 1000000", id="absurd"),
        pytest.param(NUMBER, 10**400, "must be at most 1000000", id="huge-int"),
        pytest.param(NUMBER, float("nan"), "must be a finite number", id="nan"),
        pytest.param(NUMBER, "NaN", "must be a finite number", id="nan-string"),
        pytest.param(NUMBER, float("inf"), "must be a finite number", id="inf"),
        pytest.param(NUMBER, "-inf", "must be a finite number", id="minus-inf-string"),
        pytest.param(NUMBER, "1e999", "must be a finite number", id="overflowing-string"),
        pytest.param(NUMBER, True, "must be a number, not a boolean", id="bool"),
        pytest.param(NUMBER, None, "must be a number, not null", id="null"),
        pytest.param(NUMBER, [1], "must be a number, not a list", id="list"),
        pytest.param(NUMBER, {"a": 1}, "must be a number, not an object", id="object"),
        pytest.param(NUMBER, "", "must be a number, not an empty string", id="empty-string"),
        pytest.param(NUMBER, "12 GB", "must be a number, not '12 GB'", id="text"),
        pytest.param(INTEGER, 1, "must be at least 2", id="below-minimum"),
        pytest.param(INTEGER, 2.5, "must be a whole number", id="fraction"),
        pytest.param(INTEGER, "2.5", "must be a whole number", id="fraction-string"),
        pytest.param(INTEGER, float("nan"), "must be a finite number", id="integer-nan"),
        pytest.param(INTEGER, 10**30, "must be at most 1000000", id="integer-huge"),
        pytest.param(CHOICE, "tree", "must be one of: effective, ring (got 'tree')", id="choice"),
        pytest.param(CHOICE, 1, "must be one of: effective, ring (got int)", id="choice-type"),
        pytest.param(LIST, [], "must not be empty", id="empty-list"),
        pytest.param(LIST, " , ", "must not be empty", id="empty-form-list"),
        pytest.param(LIST, [1] * 6, "must have at most 5 items (got 6)", id="too-many"),
        pytest.param(LIST, [1, -2], "item 2: must be at least 0.001", id="negative-item"),
        pytest.param(LIST, "1, x", "item 2: must be a number, not 'x'", id="text-item"),
        pytest.param(LIST, [1, float("nan")], "item 2: must be a finite number", id="nan-item"),
        pytest.param(LIST, 5, "must be a list of numbers, not int", id="not-a-list"),
        pytest.param(
            LIST,
            "1," * MAX_TEXT_CHARS,
            f"must be at most {MAX_TEXT_CHARS} characters long",
            id="huge-form-text",
        ),
    ],
)
def test_invalid_values_name_the_field(spec: InputSpec, raw: object, message: str) -> None:
    with pytest.raises(CalculatorInputError) as caught:
        coerce_input(spec, raw)
    assert caught.value.field == spec.name
    assert caught.value.message == message
    assert str(caught.value) == f"{spec.name}: {message}"


@pytest.mark.parametrize(
    ("bound", "text"),
    [
        pytest.param(1e6, "1000000", id="integral"),
        pytest.param(0.001, "0.001", id="fraction"),
        pytest.param(2, "2", id="int"),
    ],
)
def test_format_bound(bound: float, text: str) -> None:
    assert format_bound(bound) == text
