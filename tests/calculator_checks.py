"""Checks every calculator's tests share: outputs by name, close values, refused inputs."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from failref.domain.calculators import Calculator
from failref.errors import CalculatorInputError


def outputs_of(calculator: Calculator, inputs: Mapping[str, object]) -> dict[str, object]:
    """The outputs of one run, by name."""
    return dict(calculator.run(inputs).outputs)


def assert_outputs_close(
    calculator: Calculator, inputs: Mapping[str, object], expected: Mapping[str, object]
) -> None:
    """Each expected output within 1e-6 of what the calculator gives."""
    result = outputs_of(calculator, inputs)
    for name, value in expected.items():
        assert result[name] == pytest.approx(value, abs=1e-6), name


def assert_refused(
    calculator: Calculator, inputs: Mapping[str, object], field: str, message: str
) -> None:
    """The calculator refuses `inputs`, naming `field` with `message`."""
    with pytest.raises(CalculatorInputError) as caught:
        calculator.run(inputs)
    assert (caught.value.field, caught.value.message) == (field, message)
