"""The registry and the contract every calculator shares: metadata, schema, defaults, errors."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.calculators import CALCULATORS, Calculator, InputSpec, get_calculator
from failref.errors import CalculatorInputError, CalculatorInputErrors, UnknownCalculator

NAMES = [
    "allreduce-slow-link",
    "pipeline-bubble",
    "kv-cache",
    "moe-load",
    "checkpoint-interval",
    "straggler",
    "input-pipeline",
    "zero3-prefetch",
    "static-batch-latency",
    "activation-memory",
    "attention-memory",
    "checkpoint-stall",
    "speculative-speedup",
    "matmul-time",
]
ALL = [pytest.param(CALCULATORS[name], id=name) for name in NAMES]
NUMERIC_INPUTS = [
    pytest.param(calculator, spec, id=f"{calculator.name}.{spec.name}")
    for calculator in CALCULATORS.values()
    for spec in calculator.inputs
    if spec.kind != "choice"
]


def test_registry_names_in_order() -> None:
    assert list(CALCULATORS) == NAMES


def test_get_calculator_returns_the_registered_one() -> None:
    assert get_calculator("pipeline-bubble") is CALCULATORS["pipeline-bubble"]


def test_unknown_calculator() -> None:
    with pytest.raises(UnknownCalculator) as caught:
        get_calculator("flux-capacitor")
    assert caught.value.name == "flux-capacitor"
    assert str(caught.value).startswith(
        "no calculator 'flux-capacitor'; known: allreduce-slow-link"
    )
    assert (caught.value.status, caught.value.field) == (404, "name")


@pytest.mark.parametrize("calculator", ALL)
def test_metadata_is_complete(calculator: Calculator) -> None:
    for text in (calculator.title, calculator.summary, calculator.formula, calculator.source_title):
        assert text.strip()
    assert calculator.source_url.startswith("https://")
    assert all(source.url.startswith("https://") for source in calculator.see_also)
    input_names = [spec.name for spec in calculator.inputs]
    output_names = [spec.name for spec in calculator.outputs]
    assert len(input_names) == len(set(input_names))
    assert len(output_names) == len(set(output_names))
    assert all(spec.help for spec in calculator.inputs)


@pytest.mark.parametrize("calculator", ALL)
def test_defaults_run_cleanly(calculator: Calculator) -> None:
    result = calculator.run(calculator.defaults())
    assert result.name == calculator.name
    assert result.formula == calculator.formula
    assert list(result.outputs) == [spec.name for spec in calculator.outputs]
    assert result.inputs == calculator.run({}).inputs
    assert result.to_dict().keys() == {"name", "inputs", "outputs", "formula"}


def test_defaults_are_fresh_copies() -> None:
    calculator = CALCULATORS["pipeline-bubble"]
    first = calculator.defaults()
    stage_ms = first["stage_ms"]
    assert isinstance(stage_ms, list)
    stage_ms.append(-1.0)
    assert calculator.defaults()["stage_ms"] == [
        200.0,
        200.0,
        200.0,
        400.0,
        200.0,
        200.0,
        200.0,
        200.0,
    ]
    assert calculator.run({}).outputs["stages"] == 8


@pytest.mark.parametrize("calculator", ALL)
def test_input_schema_shape(calculator: Calculator) -> None:
    schema = calculator.input_schema()
    assert schema["type"] == "object"
    assert schema["title"] == calculator.title
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert list(properties) == [spec.name for spec in calculator.inputs]
    defaults = calculator.defaults()
    for spec in calculator.inputs:
        prop = properties[spec.name]
        assert prop["default"] == defaults[spec.name]
        assert prop["title"] == spec.label
        assert spec.help in prop["description"]
        if spec.unit:
            assert f"Unit: {spec.unit}." in prop["description"]
        expected_type = {
            "number": "number",
            "integer": "integer",
            "choice": "string",
            "number-list": "array",
        }[spec.kind]
        assert prop["type"] == ([expected_type, "null"] if spec.optional else expected_type)
        bounds = prop["items"] if spec.kind == "number-list" else prop
        if spec.kind == "choice":
            assert prop["enum"] == list(spec.choices)
        else:
            assert "minimum" in bounds or "exclusiveMinimum" in bounds
            assert bounds["maximum"] == spec.maximum


def test_schema_of_a_list_and_an_exclusive_minimum() -> None:
    props = CALCULATORS["pipeline-bubble"].input_schema()["properties"]
    assert isinstance(props, dict)
    assert props["stage_ms"]["minItems"] == 1
    assert props["stage_ms"]["maxItems"] == 4096
    assert props["stage_ms"]["items"] == {"type": "number", "minimum": 0.001, "maximum": 1e9}
    gradient = CALCULATORS["allreduce-slow-link"].input_schema()["properties"]
    assert isinstance(gradient, dict)
    assert gradient["gradient_gb"]["exclusiveMinimum"] == 0.0
    assert "minimum" not in gradient["gradient_gb"]


@pytest.mark.parametrize("calculator", ALL)
def test_unknown_input_name(calculator: Calculator) -> None:
    with pytest.raises(CalculatorInputError) as caught:
        calculator.run({"warp_factor": 9})
    assert caught.value.field == "warp_factor"
    assert caught.value.message.startswith(f"is not an input of {calculator.name}")


def test_every_wrong_input_is_named_at_once() -> None:
    pipeline = CALCULATORS["pipeline-bubble"]
    with pytest.raises(CalculatorInputErrors) as caught:
        pipeline.run({"stages": 4, "stage_ms": [], "microbatches": 0})
    error = caught.value
    assert [field for field, _ in error.fields or []] == ["stages", "stage_ms", "microbatches"]
    assert (error.field, error.message) == error.fields[0]  # the first, as a form shows it
    assert str(error) == "; ".join(f"{field}: {problem}" for field, problem in error.fields)


def test_one_wrong_input_is_a_plain_input_error() -> None:
    with pytest.raises(CalculatorInputError) as caught:
        CALCULATORS["pipeline-bubble"].run({"microbatches": 0})
    assert type(caught.value) is CalculatorInputError
    assert str(caught.value) == "microbatches: must be at least 1"


@pytest.mark.parametrize(("calculator", "spec"), NUMERIC_INPUTS)
def test_every_numeric_input_rejects_nan_absurd_and_wrong_types(
    calculator: Calculator, spec: InputSpec
) -> None:
    assert spec.minimum is not None
    assert spec.maximum is not None
    nothing = () if spec.optional else (None,)  # an optional input may be left empty (None)
    for bad in (float("nan"), "inf", spec.maximum * 10 + 1, spec.minimum - 1, {"x": 1}, *nothing):
        raw: object = [bad] if spec.kind == "number-list" else bad
        with pytest.raises(CalculatorInputError) as caught:
            calculator.run({spec.name: raw})
        assert caught.value.field == spec.name


def _value_strategy(spec: InputSpec) -> st.SearchStrategy[object]:
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    assert spec.minimum is not None
    assert spec.maximum is not None
    if spec.kind == "integer":
        return st.integers(int(spec.minimum), int(spec.maximum))
    numbers = st.floats(
        spec.minimum, spec.maximum, exclude_min=spec.exclusive_minimum, allow_nan=False
    )
    if spec.kind == "number-list":
        return st.lists(numbers, min_size=1, max_size=20)
    return numbers


def _inputs_strategy(calculator: Calculator) -> st.SearchStrategy[dict[str, object]]:
    return st.fixed_dictionaries({spec.name: _value_strategy(spec) for spec in calculator.inputs})


def _is_finite(value: object) -> bool:
    if isinstance(value, list):
        return all(_is_finite(item) for item in value)
    return isinstance(value, bool) or math.isfinite(float(value))  # type: ignore[arg-type]


@pytest.mark.parametrize("calculator", ALL)
@settings(max_examples=60, deadline=None, database=None)
@given(data=st.data())
def test_any_in_bounds_input_gives_finite_outputs_or_a_named_error(
    calculator: Calculator, data: st.DataObject
) -> None:
    inputs = data.draw(_inputs_strategy(calculator))
    try:
        result = calculator.run(inputs)
    except CalculatorInputError as error:
        rejected: CalculatorInputError | None = error
    else:
        rejected = None
    if rejected is not None:
        # Only cross-field rules may reject in-bounds values, and they name an input.
        assert rejected.field in {spec.name for spec in calculator.inputs}
        return
    assert all(_is_finite(value) for value in result.outputs.values())
    for value in result.outputs.values():
        if isinstance(value, float):
            assert value == round(value, 6)


SENTINEL_HELP = re.compile(r"\b0\s*(=|means|derives|to derive)\b", re.IGNORECASE)


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_no_input_takes_zero_to_mean_something_else(name: str) -> None:
    # "0 = derive it" values are gone: an input worked out from others is optional (empty).
    for spec in CALCULATORS[name].inputs:
        assert not SENTINEL_HELP.search(spec.help), f"{name}.{spec.name}: {spec.help}"
        if spec.optional:
            assert spec.default is None, f"{name}.{spec.name} is optional with a default"
