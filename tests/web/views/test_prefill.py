"""The calculator a result opens filled from the paste, on the shipped references: which
reference's calculator, which inputs with their lines, what is asked of the reader."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from prefill_pastes import KV_DOES_NOT_FIT, OOM, WATCHDOG
from web.routes.test_pages import context_of, shipped_client

from failref.web.views.prefill import PrefilledCalculator

__all__ = ["shipped_client"]  # the fixture, used by name below


def prefilled(client: TestClient, text: str) -> PrefilledCalculator:
    found = context_of(client.post("/", data={"log": text}))["prefilled"]
    assert isinstance(found, PrefilledCalculator)
    return found


@pytest.mark.parametrize("text", [WATCHDOG, OOM], ids=["watchdog", "oom"])
def test_one_number_beside_a_worked_example_opens_no_calculator(
    shipped_client: TestClient, text: str
) -> None:
    """Issue 34, item 5: a watchdog's timeout opened the checkpoint-stall calculator (a
    cause among the least likely) and an OOM line's capacity the activation calculator,
    every other input GPT-3 175B's: they described the examples, not the paste."""
    assert context_of(shipped_client.post("/", data={"log": text}))["prefilled"] is None


def test_vllm_s_kv_cache_error_fills_the_kv_cache_calculator(shipped_client: TestClient) -> None:
    panel = prefilled(shipped_client, KV_DOES_NOT_FIT)
    assert panel.reference_id == "kv-cache-exhaustion"
    fields = {field.spec.name: field for field in panel.panel.fields}
    assert fields["tokens_per_sequence"].value == "131072"
    assert fields["bytes_per_token"].value == "131072"  # 16 GiB / 131,072 tokens
    assert fields["capacity_gb"].value == "0.762357"  # 0.71 GiB in GB
    assert fields["sequences"].value == "1"  # "to serve at least one request"
    read = ("tokens_per_sequence", "bytes_per_token", "capacity_gb", "sequences")
    assert {fields[name].from_line for name in read} == {1}
    outputs = {output.spec.name: output.value for output in panel.panel.outputs}
    assert outputs["fits"] == "no"


def test_nccl_tests_asks_for_the_healthy_bandwidth(shipped_client: TestClient) -> None:
    panel = prefilled(shipped_client, "[1,0]<stdout>:# Avg bus bandwidth    : 92.3405")
    assert panel.reference_id == "allreduce-slow-link"
    assert panel.candidate_of is None
    asked = [field.spec.name for field in panel.panel.fields if field.ask]
    assert asked == ["baseline_gbps"]
    assert panel.panel.waits_for_reader
