"""A schema-driven fuzzer: schemathesis generates valid and invalid requests for every
operation of the app's own `/openapi.json`; no answer may be a 5xx, and every answer's
status, content type and body must be what the document says. Bounded: at most
`MAX_EXAMPLES` requests per operation and mode, derandomised so a run is repeatable, and sent
in-process through the ASGI app (nothing leaves the test)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import schemathesis
from editing_helpers import new_editor
from fastapi.testclient import TestClient
from httpx import Response
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation import GenerationMode
from security.helpers import module_settings

from failref.domain.calculators import CALCULATORS
from failref.urls import MCP_PATH
from failref.web.factory import create_app

MAX_EXAMPLES = 25
OPERATIONS = [
    "GET /healthz",
    "GET /readyz",
    "GET /api/v1/references",
    "GET /api/v1/references/{reference_id}",
    "GET /api/v1/references/{reference_id}/text",
    "PUT /api/v1/references/{reference_id}",
    "POST /api/v1/references/{reference_id}/retire",
    "GET /api/v1/calculators",
    "GET /api/v1/calculators/{name}",
    "POST /api/v1/match",
    "POST /api/v1/scan",
]
# The document runs each calculator on its own path, with only its own inputs, and
# describes it there too (that GET takes nothing to fuzz: `GET .../{name}` is fuzzed).
CALCULATOR_RUNS = [f"POST /api/v1/calculators/{name}" for name in CALCULATORS]
CALCULATOR_DESCRIPTIONS = [f"GET /api/v1/calculators/{name}" for name in CALCULATORS]
# What every answer is held to: no 5xx, and a status, content type and body the document
# lists for the operation (in-process, so these cost little beside the request).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
TRANSPORT_KEYS = ("method", "url", "headers", "params", "data", "json", "cookies", "files")


@dataclass
class Target:
    client: TestClient
    schema: Any
    raw_schema: dict[str, Any]
    auth: dict[str, str]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    app_settings = module_settings(tmp_path_factory.mktemp("fuzz"))
    with TestClient(create_app(app_settings)) as client:
        raw = client.get("/openapi.json").json()
        etag = client.get("/api/v1/references/stuck-rank").headers["etag"]
        # The PUT and the retirement are fuzzed as a signed-in editor, so generated bodies
        # reach the validator.
        auth = {"authorization": f"Bearer {new_editor(client, 'fuzzer')}", "if-match": etag}
        yield Target(client, schemathesis.openapi.from_dict(raw), raw, auth)


def send(client: TestClient, case: Any) -> Response:
    """Send a generated case through the app, encoded exactly as `requests` would."""
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    prepared = requests.Request(**{k: kwargs[k] for k in TRANSPORT_KEYS if k in kwargs}).prepare()
    body = prepared.body.encode() if isinstance(prepared.body, str) else prepared.body
    return client.request(
        str(prepared.method), str(prepared.url), content=body, headers=dict(prepared.headers)
    )


def test_the_fuzzer_covers_every_operation_of_the_schema(target: Target) -> None:
    labels = [result.ok().label for result in target.schema.get_all_operations()]
    assert sorted(labels) == sorted(OPERATIONS + CALCULATOR_RUNS + CALCULATOR_DESCRIPTIONS)
    assert MCP_PATH not in target.raw_schema["paths"]  # the MCP route is not in the schema


MODES = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("label", OPERATIONS)
def test_no_generated_request_gets_a_5xx(target: Target, label: str, mode: GenerationMode) -> None:
    method, path = label.split(" ", 1)
    headers = target.auth if method == "PUT" or path.endswith("/retire") else None
    fuzz_operation(target, target.schema[path][method], mode, headers=headers)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_a_real_reference_id_gets_no_5xx(target: Target, method: str, mode: GenerationMode) -> None:
    operation = target.schema["/api/v1/references/{reference_id}"][method]
    headers = target.auth if method == "PUT" else None
    path = {"reference_id": "stuck-rank"}
    fuzz_operation(target, operation, mode, headers=headers, path_parameters=path)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CALCULATORS))
def test_calculator_inputs_get_no_5xx(target: Target, name: str, mode: GenerationMode) -> None:
    operation = target.schema[f"/api/v1/calculators/{name}"]["POST"]
    statuses = fuzz_operation(target, operation, mode)
    if mode is GenerationMode.POSITIVE:
        assert 200 in statuses, "no generated input was accepted"


def fuzz_operation(
    target: Target,
    operation: Any,
    mode: GenerationMode,
    headers: dict[str, str] | None = None,
    path_parameters: dict[str, str] | None = None,
) -> list[int]:
    """Run the bounded fuzz of one operation; return the statuses seen."""
    seen: list[int] = []
    strategy = operation.as_strategy(
        generation_mode=mode, headers=headers, path_parameters=path_parameters
    )

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,  # the work is bounded by max_examples; no clock decides here
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def fuzz(case: Any) -> None:
        response = send(target.client, case)
        seen.append(response.status_code)
        assert response.status_code < 500, (case.as_curl_command(), response.text[:500])
        case.validate_response(response, checks=CHECKS)

    try:
        fuzz()
    except Unsatisfiable:
        # Nothing to make invalid: the operation takes no parameters and no body.
        assert mode is GenerationMode.NEGATIVE
    if mode is GenerationMode.POSITIVE:
        assert seen, "the fuzzer sent nothing"
    assert target.client.get("/readyz").status_code == 200
    return seen
