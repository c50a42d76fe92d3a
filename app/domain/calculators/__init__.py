"""Calculators: small, pure quantitative models that turn a run's numbers into a failure's cost."""

from __future__ import annotations

from ...errors import CalculatorInputError, UnknownCalculator
from .calculator import Calculator, InputValues
from .registry import CALCULATORS, get_calculator
from .spec import CalculatorResult, InputSpec, OutputSpec, OutputValue, Source

__all__ = [
    "CALCULATORS",
    "Calculator",
    "CalculatorInputError",
    "CalculatorResult",
    "InputSpec",
    "InputValues",
    "OutputSpec",
    "OutputValue",
    "Source",
    "UnknownCalculator",
    "get_calculator",
]
