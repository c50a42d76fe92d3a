"""What the OpenAPI document says beyond the routes themselves: its tags, the editors'
token, and the error statuses a route can answer."""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI
from fastapi.security import HTTPBearer

from ...domain.calculators import CALCULATORS
from ...services.schemas import ErrorBody
from ...urls import API_V1

# Each operation has one tag; the API page lists the tags in this order.
TAGS = [
    {
        "name": "matching",
        "description": "Paste a message or a whole log; get the references that may explain it.",
    },
    {"name": "references", "description": "Browse and read the references."},
    {"name": "calculators", "description": "Put a number on a failure's cost."},
    {
        "name": "editing",
        "description": "For the docs team: read a reference file; save it with a token.",
    },
    {"name": "health", "description": "For load balancers and monitoring."},
]

# The one route that runs every calculator, published as one operation per calculator: each
# takes only its own inputs, which no single body schema under `{name}` can say.
RUN_CALCULATOR_PATH = API_V1 + "/calculators/{name}"
# A calculator's path with its name in place, as the document lists it.
CALCULATOR_PATH = API_V1 + "/calculators/{}"

# Declares the token the editing routes take, for the document only: `web.guards` checks
# it (or a signed-in browser's session cookie) and answers 401 itself.
EDITOR_TOKEN = HTTPBearer(
    scheme_name="editorToken",
    description="An editor's token, printed once by `failref editor add NAME`.",
    auto_error=False,
)

MEANINGS = {
    400: "The body is not valid UTF-8.",
    401: "No valid editor session or token.",
    403: "Editing is off, or the request came from another site.",
    404: "Unknown id or name.",
    409: "Another reference took this id or alias meanwhile.",
    410: "The reference was retired; `error.message` says when, why and what replaced it.",
    412: "The reference changed since that ETag; `diff` shows how.",
    413: "Body over the configured size limit.",
    415: "Body is not application/json.",
    422: "Invalid input, or a body that is not JSON: `fields` names every field at fault.",
    428: "Send If-Match with the ETag of the version you edited.",
    429: "Too many requests from this client; retry in a minute.",
    503: "Not ready yet.",
    507: "The disk is full; nothing was saved.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer, all with ErrorBody."""
    return {status: {"model": ErrorBody, "description": MEANINGS[status]} for status in statuses}


def published_document(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document as published: FastAPI's, built once, with the calculator
    run split per calculator (`with_calculator_runs`)."""
    if app.openapi_schema is None:
        app.openapi_schema = with_calculator_runs(FastAPI.openapi(app))
    return app.openapi_schema


def with_calculator_runs(document: dict[str, Any]) -> dict[str, Any]:
    """The document with `POST .../calculators/{name}` replaced by one operation per
    calculator on its own path, whose body schema is that calculator's inputs (its bounds and
    defaults, nothing else) so the document refuses what the server refuses."""
    templated = document["paths"][RUN_CALCULATOR_PATH].pop("post")
    described = document["paths"][RUN_CALCULATOR_PATH]["get"]
    paths: dict[str, Any] = {}
    for listed, item in document["paths"].items():
        paths[listed] = item
        if listed == RUN_CALCULATOR_PATH:
            paths.update(_calculator_runs(templated, described))
    document["paths"] = paths
    return document


def _calculator_runs(templated: dict[str, Any], described: dict[str, Any]) -> dict[str, Any]:
    """One path item per calculator: the templated run for that calculator, and the
    description of its inputs (the server answers both methods on the path, and says so
    in `Allow`)."""
    runs: dict[str, Any] = {}
    for name, calculator in CALCULATORS.items():
        operation = _on_its_path(templated, "run", name, calculator.title)
        inputs = {k: v for k, v in calculator.input_schema().items() if k != "$schema"}
        body = operation["requestBody"]["content"]["application/json"]
        body["schema"] = inputs
        body["example"] = calculator.defaults()
        describe = _on_its_path(described, "describe", name, calculator.title)
        runs[CALCULATOR_PATH.format(name)] = {"get": describe, "post": operation}
    return runs


def _on_its_path(templated: dict[str, Any], verb: str, name: str, title: str) -> dict[str, Any]:
    """A copy of a `{name}` operation for one calculator on its own path: no name parameter,
    and no 404 (the path names a calculator that exists)."""
    operation = copy.deepcopy(templated)
    operation["operationId"] = f"{verb}_calculator_{name.replace('-', '_')}"
    operation["summary"] = f"{verb.capitalize()} {title}"
    operation["parameters"] = [p for p in operation["parameters"] if p["name"] != "name"]
    operation["responses"].pop("404", None)
    return operation
