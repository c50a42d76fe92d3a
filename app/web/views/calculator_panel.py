"""The calculator panel of the pages: form values, per-field errors and formatted outputs.

The panel works without JavaScript (a GET form that the server answers); static/calculator.js
formats live outputs by the same rules as `format_output`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ...domain.calculators import Calculator, InputSpec, OutputSpec, OutputValue
from ...domain.calculators.coerce import coerce_input, format_bound
from ...errors import CalculatorInputError

# Significant digits shown for an output; the API keeps all of them.
SIGNIFICANT_DIGITS = 4
MAX_DECIMALS = 6
# A list output (one latency per request) is cut to this many items on the page.
MAX_LIST_ITEMS_SHOWN = 16
FRACTION_UNIT = "fraction"
# Shown in place of an output while an input is wrong.
NO_VALUE = "—"


@dataclass(frozen=True, slots=True)
class PanelField:
    """One input as the form shows it: the text in the box and any problem with it; for a
    panel filled from a paste, the line the value came from, or (`ask`) what to enter in
    an input the paste cannot give, and `asking` when the outputs wait for that value."""

    spec: InputSpec
    value: str
    error: str | None = None
    from_line: int | None = None
    ask: str | None = None
    asking: bool = False

    @property
    def html_id(self) -> str:
        return f"calc-{self.spec.name}"


@dataclass(frozen=True, slots=True)
class PanelOutput:
    """One output, formatted for reading, with the unit it is shown in."""

    spec: OutputSpec
    value: str
    unit: str


@dataclass(frozen=True, slots=True)
class CalculatorPanel:
    """Everything `_calculator.html` draws for one calculator."""

    calculator: Calculator
    fields: tuple[PanelField, ...]
    outputs: tuple[PanelOutput, ...]

    @property
    def has_errors(self) -> bool:
        return any(field.error for field in self.fields)

    @property
    def invalid_labels(self) -> tuple[str, ...]:
        """The labels of the inputs to fix, as the outputs' caption names them."""
        return tuple(field.spec.label for field in self.fields if field.error)

    @property
    def waits_for_reader(self) -> bool:
        """The outputs wait for a value the paste could not give, not for a fix."""
        return any(field.asking for field in self.fields)


def build_panel(
    calculator: Calculator,
    preset: Mapping[str, object],
    query: Mapping[str, str],
    from_lines: Mapping[str, int] | None = None,
    asks: Mapping[str, str] | None = None,
) -> CalculatorPanel:
    """The panel for the inputs in `query` (a submitted form), the rest from `preset`;
    `from_lines` marks the inputs read from a paste with the line they came from, and
    `asks` the inputs the paste cannot give with what the reader should enter."""
    raw = {
        spec.name: query[spec.name] if spec.name in query else preset.get(spec.name, spec.default)
        for spec in calculator.inputs
    }
    lines = from_lines or {}
    prompts = asks or {}
    fields = tuple(
        PanelField(
            spec,
            show_input(raw[spec.name]),
            _problem(spec, raw[spec.name]),
            lines.get(spec.name),
            prompts.get(spec.name),
        )
        for spec in calculator.inputs
    )
    if any(field.error for field in fields):
        return _without_outputs(calculator, fields)
    try:
        result = calculator.run(raw)
    except CalculatorInputError as error:  # inputs fine alone but not together (top_k > experts)
        return _without_outputs(calculator, _with_error(fields, error, lines))
    outputs = tuple(_output(spec, result.outputs[spec.name]) for spec in calculator.outputs)
    return CalculatorPanel(calculator, fields, outputs)


def _without_outputs(calculator: Calculator, fields: tuple[PanelField, ...]) -> CalculatorPanel:
    blank = tuple(PanelOutput(spec, NO_VALUE, shown_unit(spec)) for spec in calculator.outputs)
    return CalculatorPanel(calculator, fields, blank)


def _with_error(
    fields: tuple[PanelField, ...], error: CalculatorInputError, lines: Mapping[str, int]
) -> tuple[PanelField, ...]:
    """The fields with `error` beside the input it names; when that input was read from a
    paste and the panel asks for another one, the problem is the asked input's worked
    example, so it goes there, beside the request for the reader's value, naming the line."""
    asked = [field for field in fields if field.ask is not None]
    line = lines.get(error.field or "")
    if asked and line is not None:
        read = next(field for field in fields if field.spec.name == error.field)
        unit = f" {read.spec.unit}" if read.spec.unit else ""
        message = (
            f"The {asked[0].value} here is the worked example’s, and {read.spec.label} "
            f"from line {line} ({read.value}{unit}) {error.message}."
        )
        return tuple(replace(f, error=message, asking=True) if f is asked[0] else f for f in fields)
    named = [field for field in fields if field.spec.name == error.field] or list(fields[:1])
    return tuple(replace(f, error=error.message) if f is named[0] else f for f in fields)


def preset_inputs(calculator: Calculator, inputs: Mapping[str, object]) -> dict[str, object]:
    """A reference's worked-example inputs over the calculator's defaults."""
    return {**calculator.defaults(), **inputs}


def _problem(spec: InputSpec, raw: object) -> str | None:
    try:
        coerce_input(spec, raw)
    except CalculatorInputError as error:
        return error.message
    return None


def show_input(value: object) -> str:
    """An input value as typed in a form: `16`, `1.5`, `200, 400` for lists, an empty box
    for an optional input left empty."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(show_input(item) for item in value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return format_bound(value) if math.isfinite(value) else str(value)


def shown_unit(spec: OutputSpec) -> str:
    """The unit an output is shown in: fractions are shown as percentages."""
    return "%" if spec.unit == FRACTION_UNIT else spec.unit


def _output(spec: OutputSpec, value: OutputValue) -> PanelOutput:
    if spec.unit == FRACTION_UNIT and isinstance(value, float | int):
        return PanelOutput(spec, format_number(float(value) * 100), "%")
    return PanelOutput(spec, format_output(value), spec.unit)


def format_output(value: OutputValue) -> str:
    """An output for reading: yes/no, grouped digits, four significant digits, short lists."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        shown = ", ".join(format_number(item) for item in value[:MAX_LIST_ITEMS_SHOWN])
        rest = len(value) - MAX_LIST_ITEMS_SHOWN
        return f"{shown}, … ({len(value)} values)" if rest > 0 else shown
    return format_number(value)


def format_number(value: float) -> str:
    """Grouped digits and about four significant ones: 14,200 · 0.5070 → 0.507 · 46.67."""
    if isinstance(value, int):
        return f"{value:,}"
    decimals = 0 if value == 0 else SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(abs(value)))
    text = f"{value:,.{min(MAX_DECIMALS, max(0, decimals))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
