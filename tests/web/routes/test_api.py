"""The JSON API: status, content type, exact keys, and the one error shape."""

from __future__ import annotations

import math
import re

import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate
from reference_helpers import LONG_INFERENCE

from failref.config import DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, Settings
from failref.domain.calculators import CALCULATORS
from failref.services.input_errors import BLANK_LOG
from failref.web.factory import create_app

LIST_KEYS = {"count", "total", "offset", "limit", "next_offset", "next", "references"}
SUMMARY_KEYS = {
    "id",
    "title",
    "summary",
    "category",
    "tags",
    "frameworks",
    "phases",
    "hardware",
    "updated",
    "url",
}


def test_list_references_returns_summaries_in_title_order(client: TestClient) -> None:
    response = client.get("/api/v1/references")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == LIST_KEYS
    assert (body["count"], body["total"], body["offset"], body["limit"]) == (2, 2, 0, 100)
    assert (body["next_offset"], body["next"]) == (None, None)
    assert [r["id"] for r in body["references"]] == ["slow-collective", "stuck-rank"]
    assert set(body["references"][0]) == SUMMARY_KEYS
    assert body["references"][0]["url"] == "/r/slow-collective"


def test_the_list_comes_a_page_at_a_time_each_linking_the_next(long_client: TestClient) -> None:
    params = {"category": "inference", "limit": "25"}
    body = long_client.get("/api/v1/references", params=params).json()
    assert (body["count"], body["total"], body["offset"], body["limit"]) == (25, 60, 0, 25)
    assert body["next_offset"] == 25
    assert body["next"] == "/api/v1/references?category=inference&limit=25&offset=25"
    ids = [r["id"] for r in body["references"]]
    while body["next"] is not None:
        body = long_client.get(body["next"]).json()
        ids += [r["id"] for r in body["references"]]
    assert (body["offset"], body["count"], body["next_offset"]) == (50, 10, None)
    assert ids == [f"numbered-{number:03d}" for number in LONG_INFERENCE]


def test_by_default_a_page_holds_a_hundred(long_client: TestClient) -> None:
    body = long_client.get("/api/v1/references").json()
    assert (body["count"], body["total"], body["next_offset"]) == (DEFAULT_LIST_LIMIT, 132, 100)
    assert body["next"] == "/api/v1/references?limit=100&offset=100"
    past = long_client.get("/api/v1/references", params={"offset": "500"}).json()
    assert (past["count"], past["total"], past["references"], past["next"]) == (0, 132, [], None)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        pytest.param({"limit": str(MAX_LIST_LIMIT + 1)}, "limit", id="limit-over-the-maximum"),
        pytest.param({"limit": "0"}, "limit", id="limit-zero"),
        pytest.param({"offset": "-1"}, "offset", id="offset-negative"),
    ],
)
def test_a_page_out_of_bounds_is_a_422_naming_the_field(
    client: TestClient, params: dict[str, str], field: str
) -> None:
    response = client.get("/api/v1/references", params=params)
    assert response.status_code == 422
    assert response.json()["error"]["field"] == field


def test_list_filters_combine(client: TestClient) -> None:
    def ids(**params: str) -> list[str]:
        response = client.get("/api/v1/references", params=params)
        return [r["id"] for r in response.json()["references"]]

    assert ids(tag="hang") == ["stuck-rank"]
    assert ids(phase="compilation") == ["stuck-rank"]
    assert ids(framework="nccl") == ["slow-collective"]
    assert ids(category="inference") == []
    assert ids(q="recompile_limit") == ["stuck-rank"]
    assert ids(q="NCCL", tag="nccl") == ["slow-collective", "stuck-rank"]


def test_get_reference_returns_the_structured_document(client: TestClient) -> None:
    response = client.get("/api/v1/references/slow-collective")
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "A collective stalls on one slow link"
    assert [c["title"] for c in body["causes"]] == ["A degraded link", "A congested switch"]
    assert body["checks"][0]["commands"] == ["all_reduce_perf -b 8 -e 8G -f 2 -g 8"]
    # Which causes each check speaks for, by number, as data (validated when parsed).
    assert [(c["confirms"], c["rules_out"]) for c in body["checks"]] == [([1], []), ([], [2])]
    assert body["sources"][0]["url"].startswith("https://github.com/NVIDIA/nccl-tests")
    assert body["calculator"] == {
        "name": "pipeline-bubble",
        "inputs": {"stage_ms": [200, 200, 400, 200], "microbatches": 8},
    }
    assert body["context_markdown"].startswith("Appears at scale")
    assert body["url"] == "/r/slow-collective"


def test_unknown_reference_is_a_404_with_the_error_shape(client: TestClient) -> None:
    response = client.get("/api/v1/references/no-such-thing")
    assert response.status_code == 404
    assert response.json() == {
        "error": {
            "code": "not_found",
            "message": "no reference with id 'no-such-thing'",
            "field": "id",
        }
    }


def test_unknown_api_route_is_json_too(client: TestClient) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_health_and_readiness(client: TestClient) -> None:
    assert client.get("/healthz").json() == {
        "status": "ok",
        "references": None,
        "problems": None,
        "storage": None,
    }
    assert client.get("/readyz").json() == {
        "status": "ok",
        "references": 2,
        "problems": 0,
        "storage": None,
    }


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/v1/references", "/r/missing", "/static/style.css"):
        headers = client.get(path).headers
        assert "default-src 'self'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"


WATCHDOG_LINE = (
    "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1543, OpType=ALLREDUCE) ran for 600215 milliseconds before timing out."
)
MATCH_KEYS = {
    "id",
    "title",
    "summary",
    "kind",
    "score",
    "confident",
    "reasons",
    "matched_message",
    "message_kind",
    "message_match",
    "verdict",
    "context_disagrees",
    "held_back",
    "candidates",
    "checks",
    "next_checks",
    "url",
}


def test_match_ranks_the_reference_whose_message_matches(client: TestClient) -> None:
    response = client.post("/api/v1/match", json={"log": WATCHDOG_LINE})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "query",
        "matches",
        "lead",
        "lookups",
        "healthy_lines",
        "confident_threshold",
        "confidence_note",
        "result_url",
    }
    assert "text similarity, not a probability" in body["confidence_note"]
    assert set(body["query"]) == {
        "normalized",
        "inferred_context",
        "context_read",
        "context_ignored",
    }
    assert "<n>" in body["query"]["normalized"]
    top = body["matches"][0]
    assert set(top) == MATCH_KEYS
    assert top["id"] == "slow-collective"
    assert (top["kind"], top["message_kind"], top["message_match"]) == ("cause", "failure", "close")
    assert top["confident"] is True
    assert top["url"] == "/r/slow-collective"
    assert 0 <= top["score"] <= 1
    assert any("message" in reason for reason in top["reasons"])


def test_match_with_nothing_related_is_not_confident(client: TestClient) -> None:
    response = client.post("/api/v1/match", json={"log": "Hello, world. The weather is nice."})
    assert response.status_code == 200
    assert not any(match["confident"] for match in response.json()["matches"])


def test_match_takes_context_and_limit(client: TestClient) -> None:
    body = {"log": WATCHDOG_LINE, "context": {"framework": "pytorch", "gpus": 64}, "limit": 1}
    response = client.post("/api/v1/match", json=body)
    assert response.status_code == 200
    assert len(response.json()["matches"]) <= 1


def test_scan_reports_line_numbers_per_reference(client: TestClient) -> None:
    lines = [f"step {i} loss 2.{i:03d} lr 3e-4" for i in range(1, 200)]
    lines[49] = WATCHDOG_LINE
    lines[149] = WATCHDOG_LINE.replace("Rank 3", "Rank 5").replace("rank3", "rank5")
    response = client.post("/api/v1/scan", json={"log": "\n".join(lines)})
    assert response.status_code == 200
    body = response.json()
    assert body["lines"] == 199
    hit = next(h for h in body["hits"] if h["id"] == "slow-collective")
    assert hit["count"] == 2
    assert hit["line_numbers"] == [50, 150]
    assert (hit["first_line"], hit["last_line"]) == (50, 150)
    assert "Watchdog caught" in hit["example"]
    assert hit["url"] == "/r/slow-collective"


def test_scan_over_the_line_limit_is_a_422_naming_the_field(settings: Settings) -> None:
    limited = settings.model_copy(update={"max_log_lines": 10})
    with TestClient(create_app(limited)) as limited_client:
        response = limited_client.post("/api/v1/scan", json={"log": "x\n" * 20})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "log"
    assert "10-line limit" in response.json()["error"]["message"]


def test_body_over_the_limit_is_a_413(settings: Settings) -> None:
    limited = settings.model_copy(update={"max_body_bytes": 1000})
    with TestClient(create_app(limited)) as limited_client:
        declared = limited_client.post("/api/v1/match", json={"log": "x" * 5000})
        chunked = limited_client.post(
            "/api/v1/match",
            content=(b"x" * 400 for _ in range(10)),
            headers={"content-type": "application/json"},
        )
        assert limited_client.get("/readyz").status_code == 200
    for response in (declared, chunked):
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"


def test_wrong_content_type_is_a_415(client: TestClient) -> None:
    response = client.post(
        "/api/v1/match", content=WATCHDOG_LINE, headers={"content-type": "text/plain"}
    )
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_invalid_fields_are_422_naming_the_field(client: TestClient) -> None:
    cases = [
        ({"log": "x", "limit": 0}, "limit"),
        ({"text": "x"}, "log"),
        ({"log": "x", "surprise": 1}, "surprise"),
    ]
    for body, field in cases:
        response = client.post("/api/v1/match", json=body)
        assert response.status_code == 422, body
        assert response.json()["error"]["field"] == field


@pytest.mark.parametrize("path", ["/api/v1/match", "/api/v1/scan"])
@pytest.mark.parametrize("log", ["", "  \n\t \n"], ids=["empty", "blank"])
def test_an_empty_or_blank_log_is_a_422_naming_the_log(
    client: TestClient, path: str, log: str
) -> None:
    response = client.post(path, json={"log": log})
    assert response.status_code == 422
    assert response.json() == {
        "error": {
            "code": "invalid_input",
            "message": f"log: {BLANK_LOG}",
            "field": "log",
            "fields": [{"field": "log", "message": BLANK_LOG}],
        }
    }


@pytest.mark.parametrize(
    ("path", "body", "fields"),
    [
        pytest.param(
            "/api/v1/match",
            {"log": " ", "limit": 0, "contxt": {}},
            ["log", "limit", "contxt"],
            id="match",
        ),
        pytest.param(
            "/api/v1/scan",
            {"context": 3, "limit": 5, "text": "x"},
            ["log", "context", "limit", "text"],
            id="scan",
        ),
        pytest.param(
            "/api/v1/calculators/pipeline-bubble",
            {"stages": 4, "stage_ms": [], "microbatches": 0},
            ["stages", "stage_ms", "microbatches"],
            id="calculator",
        ),
    ],
)
def test_every_wrong_field_is_named_at_once(
    client: TestClient, path: str, body: dict[str, object], fields: list[str]
) -> None:
    error = client.post(path, json=body).json()["error"]
    assert [problem["field"] for problem in error["fields"]] == fields
    assert error["field"] == fields[0]
    assert error["message"] == "; ".join(f"{p['field']}: {p['message']}" for p in error["fields"])


def test_no_context_a_person_types_is_refused_and_what_is_not_read_is_reported(
    client: TestClient,
) -> None:
    context = {
        "framework": "vLLM 0.8 (OpenAI server)",
        "phase": "serving",
        "gpus": "2 x 8",
        "cluster": "slurm",
        "host": {"name": "node-3"},
        "gpu": "the big ones",
    }
    response = client.post("/api/v1/match", json={"log": WATCHDOG_LINE, "context": context})
    assert response.status_code == 200
    query = response.json()["query"]
    assert query["context_read"]["framework"] == "vllm"
    assert query["context_read"]["phase"] == "inference"
    assert query["context_read"]["gpus"] == "16"
    assert "cluster: slurm" in query["context_read"]["notes"]
    assert query["context_ignored"] == [
        "gpu: “the big ones” names no GPU model failref knows; kept as notes"
    ]
    scan = client.post("/api/v1/scan", json={"log": WATCHDOG_LINE, "context": {"gpus": 0}}).json()
    assert scan["context_ignored"] == ["GPU count: “0” gives no number of GPUs; kept as notes"]


def test_malformed_json_is_a_422(client: TestClient) -> None:
    response = client.post(
        "/api/v1/match", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_input"


def test_calculators_list_their_input_schema(client: TestClient) -> None:
    body = client.get("/api/v1/calculators").json()
    names = [c["name"] for c in body["calculators"]]
    assert names == list(CALCULATORS)
    assert "activation-memory" in names
    first = body["calculators"][0]
    assert first["input_schema"]["type"] == "object"
    assert "gradient_gb" in first["input_schema"]["properties"]


def test_run_calculator_fills_defaults_and_returns_the_formula(client: TestClient) -> None:
    response = client.post("/api/v1/calculators/allreduce-slow-link", json={"steps": 10})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"name", "inputs", "outputs", "formula"}
    assert body["inputs"]["steps"] == 10
    assert body["inputs"]["gradient_gb"] == 140
    assert body["outputs"]["added_per_step_s"] == 2.8
    assert body["outputs"]["wasted_total_s"] == 28


def test_calculator_errors(client: TestClient) -> None:
    unknown = client.post("/api/v1/calculators/warp-drive", json={})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["field"] == "name"
    invalid = client.post("/api/v1/calculators/allreduce-slow-link", json={"baseline_gbps": 0})
    assert invalid.status_code == 422
    assert invalid.json()["error"]["field"] == "baseline_gbps"
    not_object = client.post("/api/v1/calculators/allreduce-slow-link", json=[1, 2])
    assert not_object.status_code == 422


def test_openapi_document_is_valid_and_complete(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    validate(document)
    expected = {
        ("get", "/api/v1/references"),
        ("get", "/api/v1/references/{reference_id}"),
        ("post", "/api/v1/match"),
        ("post", "/api/v1/scan"),
        ("get", "/api/v1/calculators"),
        ("get", "/api/v1/calculators/{name}"),
        ("post", "/api/v1/calculators/allreduce-slow-link"),
        ("get", "/healthz"),
        ("get", "/readyz"),
    }
    listed = {(m, p) for p, item in document["paths"].items() for m in item}
    assert expected <= listed
    for method, path in expected:
        operation = document["paths"][path][method]
        assert operation.get("description"), (method, path)
        schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema, (method, path)


def test_a_symptom_answers_with_candidates_their_links_and_the_checks(
    diagnosis_client: TestClient,
) -> None:
    log = (
        "[rank0]: RuntimeError: Detected mismatch between collectives on ranks.\n"
        "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
        "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
    )
    body = diagnosis_client.post("/api/v1/match", json={"log": log}).json()
    top = body["matches"][0]
    assert (top["id"], top["kind"]) == ("fx-timeout", "symptom")
    first, *others = top["candidates"]
    assert set(first) == {"id", "title", "score", "reasons", "number", "url"}
    assert (first["title"], first["id"], first["url"]) == ("Mismatched collectives", None, None)
    linked = next(c for c in others if c["id"] == "fx-slow-link")
    assert linked["url"] == "/r/fx-slow-link"
    hint_keys = {"text", "html", "commands", "confirms", "rules_out", "number"}
    hint_keys |= {"confirms_numbers", "rules_out_numbers"}
    assert set(top["checks"][0]) == hint_keys
    # The one check that tells the top two apart names one of them and not the other.
    top_two = {c["number"] for c in top["candidates"][:2]}
    (split,) = top["next_checks"]
    named = set(split["confirms_numbers"]) | set(split["rules_out_numbers"])
    assert len(named & top_two) == 1 or (
        set(split["confirms_numbers"]) & top_two and set(split["rules_out_numbers"]) & top_two
    )


def test_healthy_lines_and_diagnostic_verdicts_come_back_in_the_api(
    diagnosis_client: TestClient,
) -> None:
    body = diagnosis_client.post(
        "/api/v1/match", json={"log": "host:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE"}
    ).json()
    assert body["matches"] == []
    (healthy,) = body["healthy_lines"]
    assert set(healthy) == {"text", "id", "title", "message", "verdict"}
    assert healthy["id"] == "fx-slow-link"
    reading = diagnosis_client.post(
        "/api/v1/match", json={"log": "# Avg bus bandwidth    : 3.5"}
    ).json()["matches"][0]
    assert reading["verdict"] == {
        "state": "failing",
        "values": {"busbw": "3.5"},
        "rule": ["busbw (3.5) < 10"],
    }
    assert reading["confident"] is True


def test_a_scan_says_how_many_lines_were_healthy(diagnosis_client: TestClient) -> None:
    log = "\n".join(["host:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE"] * 5 + ["done"])
    body = diagnosis_client.post("/api/v1/scan", json={"log": log}).json()
    assert body["healthy_lines"] == 5
    assert body["hits"] == []
    assert "text similarity" in body["confidence_note"]


def test_the_activation_memory_calculator_answers_on_the_api(client: TestClient) -> None:
    response = client.post("/api/v1/calculators/activation-memory", json={"recompute": "selective"})
    assert response.status_code == 200
    outputs = response.json()["outputs"]
    assert outputs["per_layer_mib"] == 102
    assert outputs["activation_gib"] == 9.5625


def test_a_scan_tells_the_story_roots_first(diagnosis_client: TestClient) -> None:
    log = "\n".join(
        [
            "node1:100:200 [0] NCCL WARN NET/Socket : peer 10.0.0.2<45678> message truncated : "
            "receiving 1048576 bytes instead of 65536",
            *(
                WATCHDOG_LINE.replace("rank3", f"rank{r}").replace("Rank 3", f"Rank {r}")
                for r in range(2)
            ),
            "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0.",
        ]
    )
    body = diagnosis_client.post("/api/v1/scan", json={"log": log}).json()
    diagnosis = body["diagnosis"]
    assert set(diagnosis) == {
        "verdict",
        "roots",
        "unrecognised",
        "unrecognised_lines",
        "ranks",
        "hosts",
        "all_ranks",
        "notes",
    }
    assert diagnosis["verdict"] == "failure"
    (root,) = diagnosis["roots"]
    assert set(root) == {
        "id", "kind", "title", "line", "line_numbers", "count", "ranks", "hosts",
        "silent_ranks", "score", "reasons", "candidates", "checks", "next_checks", "consequences",
        "context", "url", "text", "leads",
    }  # fmt: skip
    assert (root["id"], root["line"], root["url"]) == ("fx-slow-link", 1, "/r/fx-slow-link")
    (consequence,) = root["consequences"]
    assert consequence["id"] == "fx-timeout"
    assert (consequence["first_line"], consequence["last_line"], consequence["ranks"]) == (
        2,
        3,
        [0, 1],
    )
    assert consequence["url"] == "/r/fx-timeout"
    assert [u["line"] for u in diagnosis["unrecognised"]] == [4]
    assert diagnosis["hosts"] == ["node1"]
    timeout = next(hit for hit in body["hits"] if hit["id"] == "fx-timeout")
    assert timeout["ranks"] == [0, 1]


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_every_calculator_answers_with_its_defaults(client: TestClient, name: str) -> None:
    response = client.post(f"/api/v1/calculators/{name}", json={})
    assert response.status_code == 200
    outputs = response.json()["outputs"]
    assert set(outputs) == {output.name for output in CALCULATORS[name].outputs}
    numbers = [value for value in outputs.values() if isinstance(value, int | float)]
    assert all(math.isfinite(value) for value in numbers)


@pytest.mark.parametrize(
    ("name", "inputs", "output", "expected"),
    [
        pytest.param(
            "speculative-speedup",
            {"acceptance": 0.1, "draft_tokens": 5, "cost_ratio": 0.05},
            "speedup",
            0.8889,
            id="speculative-slower-than-plain",
        ),
        pytest.param(
            "checkpoint-stall",
            {"checkpoint_gb": 100, "write_gbps": 1, "interval_minutes": 30, "mode": "sync"},
            "blocking_seconds",
            100,
            id="checkpoint-sync-100-gb",
        ),
        pytest.param("attention-memory", {}, "score_matrix_gib", 2, id="attention-fp32-scores"),
    ],
)
def test_the_wave_2b_calculators_give_their_worked_examples(
    client: TestClient, name: str, inputs: dict[str, object], output: str, expected: float
) -> None:
    response = client.post(f"/api/v1/calculators/{name}", json=inputs)
    assert response.status_code == 200, response.json()
    assert response.json()["outputs"][output] == pytest.approx(expected, abs=1e-3)


KEPT_LOG = "\n".join(
    [*(f"step {n} on gpu-node-17.cluster.internal loss 1.{n}" for n in range(40)), WATCHDOG_LINE]
)


@pytest.mark.parametrize(("path", "log"), [("/api/v1/scan", KEPT_LOG), ("/api/v1/match", KEPT_LOG)])
def test_keep_gives_a_page_a_person_can_open(client: TestClient, path: str, log: str) -> None:
    """Issue 34, item 2, for scripts: `keep` stores the paste redacted and answers the path
    of its result's page; without it nothing is kept and `result_url` is null."""
    plain = client.post(path, json={"log": log})
    assert plain.json()["result_url"] is None
    kept = client.post(path, json={"log": log, "keep": True, "context": {"gpus": "8x H100"}})
    url = kept.json()["result_url"]
    assert re.fullmatch(r"/results/[A-Za-z0-9_-]{22}", url)
    library = client.app.state.library  # type: ignore[attr-defined]
    assert library.kept.flush(timeout=30)
    page = client.get(url)
    assert page.status_code == 200
    assert "gpu-node-17" not in page.text
    assert 'value="8x H100"' in page.text


def test_keep_on_a_site_that_keeps_nothing_is_null(settings: Settings) -> None:
    off = settings.model_copy(update={"keep_results": False})
    with TestClient(create_app(off)) as client:
        answer = client.post("/api/v1/scan", json={"log": KEPT_LOG, "keep": True})
    assert answer.status_code == 200
    assert answer.json()["result_url"] is None
