"""The API page's content, read from the OpenAPI document and the MCP server's tools: each
operation under its tag with its parameters, body fields, answers and a curl command;
each tool with its arguments. Plain functions of those documents."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ...domain.references.markdown import render_markdown
from ...errors import InvalidInput
from ...services.input_errors import field_problems, problems_message
from ...services.schemas import MatchRequest, error_body
from .schema_text import Schema, example_of, object_schema, resolve, type_text

JSON = "application/json"
# Where a request value goes, in the order the page lists them.
PLACES = ("path", "query", "header", "body")
SUCCESS = re.compile(r"2\d\d")
# A curl command that an editor's token authorises takes it from this variable.
CREDENTIAL_VARIABLE = "FAILREF_TOKEN"
# The page's example of invalid input: a body of POST /api/v1/match with three wrong fields.
WRONG_MATCH_BODY = {"log": " ", "limit": 0, "contxt": {"gpus": 8}}
# What a curl command sends as a body that is a file rather than JSON.
FILE_EXAMPLE = "reference.md"


@dataclass(frozen=True, slots=True)
class Argument:
    """One value a request or a tool call takes (or an answer gives)."""

    name: str
    place: str  # path, query, header, body; empty for a tool's argument or an answer's field
    type: str
    required: bool
    default: str | None  # as JSON
    description_html: str


@dataclass(frozen=True, slots=True)
class Answer:
    """One status an operation answers, what it means, and for a success its fields."""

    status: str
    description_html: str
    fields: tuple[Argument, ...]


@dataclass(frozen=True, slots=True)
class Operation:
    """One method on one path."""

    method: str
    path: str
    anchor: str
    summary: str
    description_html: str
    arguments: tuple[Argument, ...]
    body_type: str | None
    answers: tuple[Answer, ...]
    body_html: str  # what the body is, when there is one
    curl: str
    example_path: str | None  # the path with its examples in place, behind the root path
    example_body: str | None  # the JSON a "try it" form starts from
    needs_token: bool


@dataclass(frozen=True, slots=True)
class Group:
    """The operations of one tag."""

    name: str
    description: str
    operations: tuple[Operation, ...]


@dataclass(frozen=True, slots=True)
class Tool:
    """One MCP tool: what a model calls, and with what."""

    name: str
    title: str
    description_html: str
    arguments: tuple[Argument, ...]


def operation_groups(
    document: Schema, base_url: str, root_path: str, live: Mapping[str, str]
) -> list[Group]:
    """Every operation of `document`, each once, under its first tag, tags in the
    document's order; `base_url` goes in front of the paths in curl commands, `root_path`
    in front of those the page links to."""
    listed: dict[str, list[Operation]] = {tag["name"]: [] for tag in document.get("tags", ())}
    for path, item in document["paths"].items():
        for method, spec in item.items():
            tag = (spec.get("tags") or ["other"])[0]
            found = operation(document, path, method, spec, base_url, root_path, live)
            listed.setdefault(tag, []).append(found)
    descriptions = {tag["name"]: tag.get("description", "") for tag in document.get("tags", ())}
    return [
        Group(tag, descriptions.get(tag, ""), tuple(operations))
        for tag, operations in listed.items()
        if operations
    ]


def operation(
    document: Schema,
    path: str,
    method: str,
    spec: Schema,
    base_url: str,
    root_path: str,
    live: Mapping[str, str],
) -> Operation:
    """One operation in the page's words; `live` gives path parameters this site's values
    (a reference id it serves), so the example links lead somewhere."""
    parameters = [parameter(document, p) for p in spec.get("parameters", ())]
    body_type, body_schema = _body(spec)
    body_fields = fields(body_schema, document, "body") if body_schema is not None else []
    arguments = sorted([*parameters, *body_fields], key=lambda a: PLACES.index(a.place))
    example = example_of(body_schema, document) if body_type == JSON and body_schema else None
    example_body = json.dumps(example, indent=2, ensure_ascii=False) if example else None
    filled = _example_path(path, spec, document, live)
    needs_token = bool(spec.get("security"))
    body_description = resolve(body_schema, document).get("description", "") if body_schema else ""

    return Operation(
        method=method.upper(),
        path=path,
        anchor=anchor(method, path),
        summary=spec.get("summary", ""),
        description_html=render_markdown(spec.get("description", "")),
        arguments=tuple(arguments),
        body_type=body_type,
        answers=tuple(answers(document, spec)),
        body_html=render_markdown(body_description),
        curl=curl(
            method,
            base_url + (filled or path),
            _example_headers(spec, document),
            body_type,
            example,
            needs_token,
        ),
        example_path=root_path + filled if filled is not None else None,
        example_body=example_body if not needs_token else None,
        needs_token=needs_token,
    )


def anchor(method: str, path: str) -> str:
    """The page anchor of an operation: `post-api-v1-match`."""
    words = re.sub(r"[^a-z0-9_]+", "-", f"{method} {path}".lower())
    return words.strip("-")


def parameter(document: Schema, spec: Schema) -> Argument:
    """A path, query or header parameter."""
    schema = spec.get("schema", {})
    return _argument(spec["name"], spec["in"], schema, document, bool(spec.get("required")), spec)


def fields(schema: Schema, document: Schema, place: str) -> list[Argument]:
    """The properties of an object schema, and one level down those of an object property
    (`context.gpus`), required ones first."""
    found = []
    top = object_schema(schema, document) or {}
    required = set(top.get("required", ()))
    for name, prop in top.get("properties", {}).items():
        found.append(_argument(name, place, prop, document, name in required))
        inner = object_schema(prop, document)
        if inner is not None:
            inner_required = set(inner.get("required", ()))
            for inner_name, inner_prop in inner["properties"].items():
                dotted = f"{name}.{inner_name}"
                found.append(
                    _argument(dotted, place, inner_prop, document, inner_name in inner_required)
                )
    return sorted(found, key=lambda argument: not argument.required)


def answers(document: Schema, spec: Schema) -> list[Answer]:
    """Every status the operation documents, in order; a JSON success with its fields."""
    found = []
    for status, response in sorted(spec.get("responses", {}).items()):
        schema = response.get("content", {}).get(JSON, {}).get("schema")
        success = SUCCESS.fullmatch(status) is not None
        listed = fields(schema, document, "") if success and schema else []
        description = render_markdown(response.get("description", ""))
        found.append(Answer(status, description, tuple(listed)))
    return found


def curl(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body_type: str | None,
    example: Any,
    needs_token: bool,
) -> str:
    """A curl command for the operation, with its example headers and body."""
    words = ["curl", "-sS"]
    if method != "get":
        words += ["-X", method.upper()]
    words.append(url)
    command = " ".join(shlex.quote(word) for word in words)
    if needs_token:
        command += f' -H "Authorization: Bearer ${CREDENTIAL_VARIABLE}"'
    for name, value in headers.items():
        command += " -H " + shlex.quote(f"{name}: {value}")
    if body_type == JSON:
        command += " -H 'Content-Type: application/json'"
        command += " -d " + shlex.quote(json.dumps(example if example else {}))
    elif body_type is not None:
        command += " -H " + shlex.quote(f"Content-Type: {body_type}")
        command += f" --data-binary @{FILE_EXAMPLE}"
    return command


def tool(name: str, title: str | None, description: str | None, schema: Schema) -> Tool:
    """An MCP tool with its arguments, read from its input schema."""
    return Tool(
        name=name,
        title=title or name,
        description_html=render_markdown(description or ""),
        arguments=tuple(fields(schema, schema, "")),
    )


def _argument(
    name: str,
    place: str,
    schema: Schema,
    document: Schema,
    required: bool,
    spec: Schema | None = None,
) -> Argument:
    resolved = resolve(schema, document)
    description = (spec or {}).get("description") or resolved.get("description") or ""
    default = resolved.get("default")
    return Argument(
        name=name,
        place=place,
        type=type_text(schema, document),
        required=required,
        default=json.dumps(default) if default is not None else None,
        description_html=render_markdown(description),
    )


def _body(spec: Schema) -> tuple[str | None, Schema | None]:
    content: Mapping[str, Any] = spec.get("requestBody", {}).get("content", {})
    for media_type, entry in content.items():
        return media_type, entry.get("schema", {})
    return None, None


def _example_path(path: str, spec: Schema, document: Schema, live: Mapping[str, str]) -> str | None:
    """`path` with each path parameter's live value or example in place; None when one has
    neither."""
    filled = path
    for spec_parameter in _path_parameters(spec.get("parameters", ())):
        value = live.get(spec_parameter["name"]) or example_of(
            spec_parameter.get("schema", {}), document
        )
        if value is None:
            return None
        filled = filled.replace("{" + spec_parameter["name"] + "}", str(value))
    return filled


def _example_headers(spec: Schema, document: Schema) -> dict[str, str]:
    """The header parameters that have an example, with it."""
    found = {}
    for header in spec.get("parameters", ()):
        value = example_of(header.get("schema", {}), document)
        if header["in"] == "header" and value is not None:
            found[header["name"]] = str(value)
    return found


def _path_parameters(parameters: Iterable[Schema]) -> list[Schema]:
    return [p for p in parameters if p["in"] == "path"]


def error_example() -> tuple[str, str]:
    """WRONG_MATCH_BODY and the error the JSON API answers to it, as JSON texts."""
    try:
        MatchRequest.model_validate(WRONG_MATCH_BODY)
    except ValidationError as error:
        problems = field_problems(error.errors(), sourced=False)
        message = problems_message(problems)
        body = error_body(InvalidInput.status, message, problems[0].field, fields=problems)
        return json.dumps(WRONG_MATCH_BODY), json.dumps(body, indent=2)
    raise AssertionError("the example of a wrong body is valid")
