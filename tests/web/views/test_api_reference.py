"""The API page's content from an OpenAPI document and a tool's input schema."""

from __future__ import annotations

from typing import Any

from failref.web.views.api_reference import anchor, operation_groups, tool

DOCUMENT: dict[str, Any] = {
    "tags": [{"name": "matching", "description": "Match."}, {"name": "editing"}],
    "paths": {
        "/api/v1/things/{name}": {
            "post": {
                "tags": ["matching"],
                "summary": "Post a thing",
                "description": "Posts `it`.",
                "parameters": [
                    {
                        "name": "name",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "examples": ["kv"]},
                    }
                ],
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Body"}}
                    }
                },
                "responses": {
                    "200": {
                        "description": "The thing.",
                        "content": {
                            "application/json": {
                                "schema": {"properties": {"count": {"type": "integer"}}}
                            }
                        },
                    },
                    "422": {"description": "Invalid input."},
                },
            },
            "put": {
                "tags": ["editing", "matching"],
                "security": [{"editorToken": []}],
                "parameters": [
                    {"name": "name", "in": "path", "schema": {"examples": ["kv"]}},
                    {"name": "If-Match", "in": "header", "schema": {"examples": ['"e1"']}},
                ],
                "requestBody": {"content": {"text/markdown": {"schema": {"type": "string"}}}},
                "responses": {},
            },
        }
    },
    "components": {
        "schemas": {
            "Body": {
                "type": "object",
                "description": "A body.",
                "required": ["log"],
                "properties": {
                    "limit": {"type": "integer", "default": 5},
                    "log": {"type": "string", "examples": ["oops"]},
                },
            }
        }
    },
}


def test_operations_are_grouped_under_their_first_tag_in_the_documents_order() -> None:
    groups = operation_groups(DOCUMENT, "http://host/root", "/root", {})
    assert [(group.name, [op.method for op in group.operations]) for group in groups] == [
        ("matching", ["POST"]),
        ("editing", ["PUT"]),
    ]


def test_an_operation_lists_its_arguments_body_answers_and_examples() -> None:
    [post] = operation_groups(DOCUMENT, "http://host/root", "/root", {})[0].operations
    assert post.anchor == "post-api-v1-things-name"
    assert [(a.name, a.place, a.required, a.default) for a in post.arguments] == [
        ("name", "path", True, None),
        ("log", "body", True, None),
        ("limit", "body", False, "5"),
    ]
    assert post.description_html == "<p>Posts <code>it</code>.</p>\n"
    assert post.body_html == "<p>A body.</p>\n"
    assert [(answer.status, len(answer.fields)) for answer in post.answers] == [
        ("200", 1),
        ("422", 0),
    ]
    assert post.example_path == "/root/api/v1/things/kv"
    assert post.example_body == '{\n  "log": "oops"\n}'
    assert post.curl == (
        "curl -sS -X POST http://host/root/api/v1/things/kv "
        "-H 'Content-Type: application/json' -d '{\"log\": \"oops\"}'"
    )


def test_an_operation_that_needs_a_token_says_so_and_offers_no_form() -> None:
    [put] = operation_groups(DOCUMENT, "http://host", "", {})[1].operations
    assert put.needs_token
    assert put.example_body is None
    assert put.curl == (
        "curl -sS -X PUT http://host/api/v1/things/kv "
        '-H "Authorization: Bearer $FAILREF_TOKEN" '
        "-H 'If-Match: \"e1\"' -H 'Content-Type: text/markdown' --data-binary @reference.md"
    )


def test_anchors_are_plain_words() -> None:
    assert anchor("get", "/api/v1/references/{reference_id}/text") == (
        "get-api-v1-references-reference_id-text"
    )


def test_a_tool_lists_its_arguments_with_nested_object_fields() -> None:
    schema = {
        "type": "object",
        "required": ["log"],
        "properties": {
            "context": {"anyOf": [{"$ref": "#/$defs/Run"}, {"type": "null"}]},
            "log": {"type": "string", "description": "The text."},
        },
        "$defs": {"Run": {"type": "object", "properties": {"gpus": {"description": "GPUs."}}}},
    }
    found = tool("match_log", None, "Ranks **references**.", schema)
    assert found.title == "match_log"
    assert found.description_html == "<p>Ranks <strong>references</strong>.</p>\n"
    assert [(a.name, a.type, a.required) for a in found.arguments] == [
        ("log", "string", True),
        ("context", "object", False),
        ("context.gpus", "any JSON value", False),
    ]


def test_a_path_parameter_takes_the_site_s_live_value_over_the_documented_example() -> None:
    """The link crawl found /docs linking a reference the site does not serve: the example
    path uses one it does."""
    [post] = operation_groups(DOCUMENT, "http://host", "", {"name": "served-here"})[0].operations
    assert post.example_path == "/api/v1/things/served-here"
