"""Run a calculator by name with user inputs, translating its errors into the API's."""

from __future__ import annotations

from collections.abc import Mapping

from app.calculators import (
    CALCULATORS,
    Calculator,
    CalculatorInputError,
    CalculatorResult,
    UnknownCalculator,
    get_calculator,
)
from app.errors import InvalidInput, NotFound


def find_calculator(name: str) -> Calculator:
    """The calculator called `name`, or NotFound listing the known ones."""
    try:
        return get_calculator(name)
    except UnknownCalculator:
        known = ", ".join(CALCULATORS)
        raise NotFound(f"no calculator '{name[:80]}'; known: {known}", field="name") from None


def calculate(name: str, inputs: Mapping[str, object]) -> CalculatorResult:
    """Run calculator `name`; missing inputs take their defaults."""
    calculator = find_calculator(name)
    try:
        return calculator.run(inputs)
    except CalculatorInputError as error:
        raise InvalidInput(str(error), field=error.field) from None
