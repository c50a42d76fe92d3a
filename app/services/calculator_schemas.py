"""The calculators' public shapes: what the JSON API and the MCP tools answer about a
calculator and a run of one."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..domain.calculators import Calculator, CalculatorResult


class CalculatorInfo(BaseModel):
    """A calculator: what it models, its inputs (as JSON schema) and outputs."""

    name: str
    title: str
    summary: str
    formula: str
    source_title: str
    source_url: str
    input_schema: dict[str, Any]
    outputs: list[dict[str, str]]
    defaults: dict[str, Any]

    @classmethod
    def of(cls, calculator: Calculator) -> CalculatorInfo:
        return cls(
            name=calculator.name,
            title=calculator.title,
            summary=calculator.summary,
            formula=calculator.formula,
            source_title=calculator.source_title,
            source_url=calculator.source_url,
            input_schema=calculator.input_schema(),
            outputs=[
                {"name": o.name, "label": o.label, "unit": o.unit, "help": o.help}
                for o in calculator.outputs
            ],
            defaults=calculator.defaults(),
        )


class CalculatorList(BaseModel):
    """Every calculator."""

    calculators: list[CalculatorInfo]


class CalculatorRun(BaseModel):
    """The outputs of one run with the inputs it used (defaults filled in) and the formula."""

    name: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    formula: str

    @classmethod
    def of(cls, result: CalculatorResult) -> CalculatorRun:
        return cls(**result.to_dict())
