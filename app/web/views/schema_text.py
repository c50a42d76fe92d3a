"""JSON Schema in a person's words, for the API page: "integer, 1 to 50", "list of
string", "any JSON value"; a `$ref` is followed inside the document it sits in."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

Schema = Mapping[str, Any]

# The words for JSON Schema's types.
TYPE_WORDS = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "true or false",
    "object": "object",
    "array": "list",
    "null": "null",
}
# A schema that says nothing takes anything (pydantic's JsonValue, `Any`).
ANYTHING = "any JSON value"


def resolve(schema: Schema, root: Schema) -> Schema:
    """`schema`, or the schema its local `$ref` (`#/components/schemas/X`, `#/$defs/X`)
    points to in `root`, with the referring schema's own keys (its description) on top."""
    while "$ref" in schema:
        target: Any = root
        for part in str(schema["$ref"]).removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        schema = {**target, **{key: value for key, value in schema.items() if key != "$ref"}}
    return schema


def choices(schema: Schema, root: Schema) -> list[Schema]:
    """The alternatives of `schema` other than null (pydantic writes `X | None` as anyOf)."""
    schema = resolve(schema, root)
    options = schema.get("anyOf") or schema.get("oneOf")
    if not options:
        return [schema]
    return [resolve(option, root) for option in options if option.get("type") != "null"]


def object_schema(schema: Schema, root: Schema) -> Schema | None:
    """The object with named properties that `schema` holds, if it holds one."""
    for option in choices(schema, root):
        if option.get("properties"):
            return option
    return None


def type_text(schema: Schema, root: Schema) -> str:
    """What `schema` takes, in words."""
    return " or ".join(dict.fromkeys(_one_type(option, root) for option in choices(schema, root)))


def _one_type(schema: Schema, root: Schema) -> str:
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(value) for value in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(TYPE_WORDS.get(str(name), str(name)) for name in kind)
    if kind == "array":
        items = schema.get("items")
        return f"list of {type_text(items, root)}" if items else "list"
    if kind in ("integer", "number"):
        return _with_bounds(TYPE_WORDS[kind], schema)
    if kind == "string" and "maxLength" in schema:
        return f"string, at most {schema['maxLength']} characters"
    if kind is None and "properties" in schema:
        return "object"
    return TYPE_WORDS.get(str(kind), str(kind)) if kind else ANYTHING


def _with_bounds(word: str, schema: Schema) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{word}, {_number(low)} to {_number(high)}"
    if low is not None:
        return f"{word}, at least {_number(low)}"
    if "exclusiveMinimum" in schema:
        return f"{word}, over {_number(schema['exclusiveMinimum'])}"
    if high is not None:
        return f"{word}, at most {_number(high)}"
    return word


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def example_of(schema: Schema, root: Schema) -> Any:
    """An example value of `schema`: its own first example, or for an object the examples
    of its properties (those that have one); None when it has none."""
    schema = resolve(schema, root)
    if schema.get("examples"):
        return schema["examples"][0]
    if "example" in schema:
        return schema["example"]
    found = {}
    for name, prop in schema.get("properties", {}).items():
        value = example_of(prop, root) if "properties" not in resolve(prop, root) else None
        if value is not None:
            found[name] = value
    return found or None
