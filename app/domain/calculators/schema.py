"""JSON-schema descriptions of calculator inputs, as listed by GET /api/v1/calculators."""

from __future__ import annotations

from .spec import InputSpec

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
JSON_TYPES = {"number": "number", "integer": "integer", "choice": "string"}


def input_schema(title: str, inputs: tuple[InputSpec, ...]) -> dict[str, object]:
    """An object schema with one property per input; every input has a default."""
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": title,
        "type": "object",
        "properties": {spec.name: property_schema(spec) for spec in inputs},
        "additionalProperties": False,
    }


def property_schema(spec: InputSpec) -> dict[str, object]:
    """The schema of one input: type, bounds, default, and the unit in the description."""
    schema: dict[str, object] = {"title": spec.label, "description": _description(spec)}
    if spec.kind == "number-list":
        schema.update(
            type="array",
            items={"type": "number", **_bounds(spec)},
            minItems=1,
            maxItems=spec.max_items,
            default=list(spec.default) if isinstance(spec.default, tuple) else spec.default,
        )
    else:
        kind = JSON_TYPES[spec.kind]
        schema.update(type=[kind, "null"] if spec.optional else kind, default=spec.default)
        schema.update(_bounds(spec))
    if spec.choices:
        schema["enum"] = list(spec.choices)
    if spec.unit:
        schema["x-unit"] = spec.unit
    return schema


def _description(spec: InputSpec) -> str:
    unit = f" Unit: {spec.unit}." if spec.unit else ""
    return f"{spec.help}{unit}".strip()


def _bounds(spec: InputSpec) -> dict[str, object]:
    bounds: dict[str, object] = {}
    as_int = spec.kind == "integer"
    if spec.minimum is not None:
        key = "exclusiveMinimum" if spec.exclusive_minimum else "minimum"
        bounds[key] = int(spec.minimum) if as_int else spec.minimum
    if spec.maximum is not None:
        bounds["maximum"] = int(spec.maximum) if as_int else spec.maximum
    return bounds
