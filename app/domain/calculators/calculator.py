"""A calculator: metadata, typed inputs and outputs, and a pure compute function."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ...errors import CalculatorInputError, CalculatorInputErrors
from .coerce import coerce_input
from .extract import ExtractionRule, Found, asked_inputs, check_rules, extract_inputs
from .schema import input_schema
from .spec import (
    CalculatorResult,
    InputSpec,
    InputValue,
    OutputSpec,
    OutputValue,
    Source,
)

# Outputs are rounded here; the UI decides how many of these digits to show.
OUTPUT_DECIMALS = 6


class InputValues:
    """Resolved inputs with typed accessors, so compute functions stay fully typed."""

    def __init__(self, values: Mapping[str, InputValue]) -> None:
        self._values = dict(values)

    def number(self, name: str) -> float:
        """A "number" input."""
        value = self._values[name]
        if isinstance(value, bool) or not isinstance(value, float | int):
            raise TypeError(f"{name} is not a number input")
        return float(value)

    def optional_number(self, name: str) -> float | None:
        """An optional "number" input: None when it was left empty."""
        if self._values[name] is None:
            return None
        return self.number(name)

    def integer(self, name: str) -> int:
        """An "integer" input."""
        value = self._values[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} is not an integer input")
        return value

    def choice(self, name: str) -> str:
        """A "choice" input."""
        value = self._values[name]
        if not isinstance(value, str):
            raise TypeError(f"{name} is not a choice input")
        return value

    def numbers(self, name: str) -> list[float]:
        """A "number-list" input."""
        value = self._values[name]
        if not isinstance(value, list):
            raise TypeError(f"{name} is not a number-list input")
        return list(value)


Compute = Callable[[InputValues], Mapping[str, OutputValue]]


@dataclass(frozen=True)
class Calculator:
    """A named quantitative model that turns the numbers of a run into the cost of a failure."""

    name: str
    title: str
    summary: str
    formula: str
    source_title: str
    source_url: str
    inputs: tuple[InputSpec, ...]
    outputs: tuple[OutputSpec, ...]
    compute: Compute
    see_also: tuple[Source, ...] = ()
    extract: tuple[ExtractionRule, ...] = ()

    def __post_init__(self) -> None:
        check_rules(self.name, self.inputs, self.extract)

    def read_inputs(self, text: str) -> dict[str, Found]:
        """The inputs this calculator's rules read in a pasted text, with their lines."""
        return extract_inputs(self.inputs, self.extract, text)

    def asked_inputs(self, found: Mapping[str, Found]) -> dict[str, str]:
        """The inputs the values `found` need but a paste cannot give, with what to enter."""
        return asked_inputs(self.extract, found)

    def defaults(self) -> dict[str, object]:
        """The default inputs (the worked example), lists as fresh lists."""
        return {
            spec.name: list(spec.default) if isinstance(spec.default, tuple) else spec.default
            for spec in self.inputs
        }

    def resolve(self, raw: Mapping[str, object]) -> dict[str, InputValue]:
        """Fill in defaults, reject unknown names, coerce and bound-check every input; every
        input at fault is named at once (CalculatorInputErrors when there are several)."""
        known = {spec.name for spec in self.inputs}
        expected = ", ".join(spec.name for spec in self.inputs)
        errors = [
            CalculatorInputError(
                str(name), f"is not an input of {self.name} (expected one of: {expected})"
            )
            for name in raw
            if name not in known
        ]
        resolved: dict[str, InputValue] = {}
        for spec in self.inputs:
            try:
                resolved[spec.name] = coerce_input(spec, raw.get(spec.name, spec.default))
            except CalculatorInputError as error:
                errors.append(error)
        if len(errors) > 1:
            raise CalculatorInputErrors(errors)
        if errors:
            raise errors[0]
        return resolved

    def run(self, inputs: Mapping[str, object]) -> CalculatorResult:
        """Compute the outputs; raises CalculatorInputError naming the bad inputs."""
        resolved = self.resolve(inputs)
        raw_outputs = self.compute(InputValues(resolved))
        outputs = {spec.name: _finish(spec.name, raw_outputs[spec.name]) for spec in self.outputs}
        return CalculatorResult(self.name, resolved, outputs, self.formula)

    def input_schema(self) -> dict[str, object]:
        """A JSON-schema object describing the inputs, for GET /api/v1/calculators."""
        return input_schema(self.title, self.inputs)


def _finish_float(name: str, value: float) -> float:
    if not math.isfinite(value):
        # Bounds on every input exist so this cannot happen; fail loudly if it does.
        raise ArithmeticError(f"output {name} is not finite: {value!r}")
    return round(value, OUTPUT_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0


def _finish(name: str, value: OutputValue) -> OutputValue:
    if isinstance(value, bool | int):
        return value
    if isinstance(value, list):
        return [_finish_float(name, float(item)) for item in value]
    return _finish_float(name, value)
