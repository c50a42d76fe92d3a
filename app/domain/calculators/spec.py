"""The shapes a calculator is described by: its inputs, its outputs and the result of a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

InputKind = Literal["number", "integer", "choice", "number-list"]

# A resolved input: float for "number", int for "integer", str for "choice",
# list[float] for "number-list"; None for an optional input left empty.
InputValue = float | int | str | list[float] | None
# Defaults are stored immutably (a tuple for lists) so no caller can change them; an
# optional input's default is None (not given).
DefaultValue = float | int | str | tuple[float, ...] | None
OutputValue = float | int | bool | list[float]

# 4,096 stages or requests is far beyond any real pipeline or batch; longer is a mistake.
MAX_LIST_ITEMS = 4096


@dataclass(frozen=True, slots=True)
class InputSpec:
    """One typed input: its unit, default, bounds (per item for lists) and help text. An
    `optional` input may be left empty (None), and the calculator then works it out from
    the other inputs; an empty field, a JSON null or a missing key all leave it empty."""

    name: str
    label: str
    unit: str
    kind: InputKind
    default: DefaultValue
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    exclusive_minimum: bool = False
    max_items: int = MAX_LIST_ITEMS
    optional: bool = False


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """One output: its unit and what it means."""

    name: str
    label: str
    unit: str
    help: str = ""


@dataclass(frozen=True, slots=True)
class Source:
    """A public document a calculator's model or worked example comes from."""

    title: str
    url: str


@dataclass(frozen=True, slots=True)
class CalculatorResult:
    """One run: the resolved inputs, the outputs (finite, floats rounded) and the formula."""

    name: str
    inputs: dict[str, InputValue]
    outputs: dict[str, OutputValue]
    formula: str

    def to_dict(self) -> dict[str, object]:
        """The JSON shape of `POST /api/v1/calculators/{name}`."""
        return {
            "name": self.name,
            "inputs": dict(self.inputs),
            "outputs": dict(self.outputs),
            "formula": self.formula,
        }
