"""JSON Schema in words: types, bounds, choices, references, examples."""

from __future__ import annotations

from typing import Any

import pytest

from failref.web.views.schema_text import example_of, object_schema, resolve, type_text

ROOT: dict[str, Any] = {
    "components": {
        "schemas": {
            "Context": {
                "type": "object",
                "properties": {"gpus": {}},
                "description": "The run.",
            },
            "Name": {"type": "string", "examples": ["kv-cache"]},
        }
    }
}
CONTEXT = {"$ref": "#/components/schemas/Context"}


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        pytest.param({"type": "string"}, "string", id="string"),
        pytest.param(
            {"type": "integer", "minimum": 1, "maximum": 50}, "integer, 1 to 50", id="range"
        ),
        pytest.param({"type": "number", "exclusiveMinimum": 0}, "number, over 0", id="positive"),
        pytest.param({"type": "number", "minimum": 0.5}, "number, at least 0.5", id="at-least"),
        pytest.param(
            {"type": "string", "maxLength": 500}, "string, at most 500 characters", id="length"
        ),
        pytest.param({"enum": ["*"]}, 'one of "*"', id="enum"),
        pytest.param({"type": "array", "items": {"type": "integer"}}, "list of integer", id="list"),
        pytest.param({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string", id="optional"),
        pytest.param({"anyOf": [CONTEXT, {"type": "null"}]}, "object", id="optional-object"),
        pytest.param({"type": ["number", "string"]}, "number or string", id="several"),
        pytest.param({}, "any JSON value", id="anything"),
        pytest.param({"type": "boolean"}, "true or false", id="boolean"),
    ],
)
def test_type_text(schema: dict[str, Any], words: str) -> None:
    assert type_text(schema, ROOT) == words


def test_a_reference_is_followed_and_keeps_its_own_description() -> None:
    found = resolve({**CONTEXT, "description": "What you know."}, ROOT)
    assert found["type"] == "object"
    assert found["description"] == "What you know."


def test_the_object_behind_an_optional_is_found() -> None:
    assert object_schema({"anyOf": [CONTEXT, {"type": "null"}]}, ROOT) == resolve(CONTEXT, ROOT)
    assert object_schema({"type": "string"}, ROOT) is None


def test_examples_come_from_the_schema_or_its_properties() -> None:
    assert example_of({"$ref": "#/components/schemas/Name"}, ROOT) == "kv-cache"
    body = {"properties": {"name": {"$ref": "#/components/schemas/Name"}, "context": CONTEXT}}
    assert example_of(body, ROOT) == {"name": "kv-cache"}
    assert example_of({"type": "string"}, ROOT) is None
