"""The calculator a result opens filled from the paste, on the shipped references: which
reference's calculator, which inputs with their lines, what is asked of the reader."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web.routes.test_pages import context_of, shipped_client

from failref.web.views.prefill import PrefilledCalculator

__all__ = ["shipped_client"]  # the fixture, used by name below

WATCHDOG = (
    "[rank2]:[E112 15:47:18.728729935 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, NumelIn=4096, "
    "NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
)


def prefilled(client: TestClient, text: str) -> PrefilledCalculator:
    found = context_of(client.post("/", data={"log": text}))["prefilled"]
    assert isinstance(found, PrefilledCalculator)
    return found


def test_a_watchdog_timeout_opens_its_checkpoint_candidate_s_calculator(
    shipped_client: TestClient,
) -> None:
    panel = prefilled(shipped_client, WATCHDOG)
    assert panel.reference_id == "checkpoint-save-stall"
    assert panel.candidate_of is not None
    assert panel.candidate_of.startswith("NCCL collective timeout")
    fields = {field.spec.name: field for field in panel.panel.fields if field.from_line}
    assert {name: (field.value, field.from_line) for name, field in fields.items()} == {
        "timeout_s": ("600", 1)
    }


def test_nccl_tests_asks_for_the_healthy_bandwidth(shipped_client: TestClient) -> None:
    panel = prefilled(shipped_client, "[1,0]<stdout>:# Avg bus bandwidth    : 92.3405")
    assert panel.reference_id == "allreduce-slow-link"
    assert panel.candidate_of is None
    asked = [field.spec.name for field in panel.panel.fields if field.ask]
    assert asked == ["baseline_gbps"]
    assert panel.panel.waits_for_reader
