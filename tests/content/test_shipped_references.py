"""The shipped references: they load cleanly, are complete, and have labelled log lines."""

from __future__ import annotations

import pytest
from paths import LABELLED, ROOT

from failref.domain.calculators import get_calculator
from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.references.document import Reference
from failref.domain.references.folder import read_folder

REFERENCES = ROOT / "references"

EXPECTED_IDS = [
    "activation-memory-oom",
    "allreduce-slow-link",
    "attention-kernel-fallback",
    "checkpoint-save-stall",
    "checkpoint-shape-mismatch",
    "collective-mismatch-desync",
    "cpu-affinity-misconfiguration",
    "cublas-gemm-failure",
    "cuda-device-side-assert",
    "cuda-driver-mismatch",
    "cuda-graph-capture",
    "cuda-illegal-memory-access",
    "cuda-invalid-launch-config",
    "cuda-oom-fragmentation",
    "cuda-out-of-memory",
    "cuda-runtime-status-errors",
    "cuda-unknown-error",
    "custom-allreduce-failure",
    "dataloader-worker-killed",
    "ddp-unused-parameters",
    "deepspeed-zero3-sync-prefetch",
    "distributed-init-failure",
    "elastic-child-failed",
    "engine-startup-failed",
    "engine-version-regression",
    "fp32-matmul-no-tensor-cores",
    "fsdp-wrapping-errors",
    "fused-moe-untuned-config",
    "gpu-memory-leak-growth",
    "gpu-p2p-blocked",
    "gpu-utilization-low",
    "gsp-firmware-timeout",
    "harmless-warnings",
    "hbm-memory-failures",
    "host-oom-killed",
    "inference-client-connection-errors",
    "inference-engine-dead",
    "inference-scheduler-deadlock",
    "invalid-device-ordinal",
    "kv-cache-exhaustion",
    "kv-cache-swap-failure",
    "length-variance-hol-blocking",
    "mixed-precision-nan-divergence",
    "model-mismatch-across-ranks",
    "moe-finetune-slow-kernels",
    "moe-router-hotspot",
    "native-crash",
    "nccl-collective-timeout",
    "nccl-internal-errors",
    "nccl-network-transport-errors",
    "no-kernel-image",
    "nvlink-errors",
    "nvswitch-fabric-manager",
    "parallel-size-divisibility",
    "parallel-state-reinitialized",
    "pipeline-stage-imbalance",
    "prefill-decode-interference",
    "ray-worker-died",
    "serving-cpu-bottleneck",
    "serving-queueing-latency",
    "shared-memory-exhausted",
    "silent-data-corruption",
    "speculative-decoding-low-acceptance",
    "tensors-on-different-devices",
    "thermal-throttling-straggler",
    "torch-compile-error",
    "torch-compile-hang-timeout",
    "torch-compile-recompiles",
    "training-hang-no-error",
    "unsupported-platform",
    "vllm-preemption-recompute",
    "xid-79-fallen-off-bus",
    "zero3-parameter-errors",
]

CONTENTS = read_folder(REFERENCES)
BY_ID: dict[str, Reference] = {reference.id: reference for reference in CONTENTS.references}


def test_folder_has_no_problems() -> None:
    assert [str(problem) for problem in CONTENTS.problems] == []


def test_folder_holds_exactly_the_expected_references() -> None:
    assert set(BY_ID) == set(EXPECTED_IDS)
    assert len(CONTENTS.references) == len(EXPECTED_IDS)


def _reference(ref_id: str) -> Reference:
    assert ref_id in BY_ID, f"{ref_id} did not load"
    return BY_ID[ref_id]


PER_REFERENCE = [pytest.param(ref_id, id=ref_id) for ref_id in EXPECTED_IDS]


@pytest.mark.parametrize("ref_id", PER_REFERENCE)
def test_messages_are_seen_somewhere_public(ref_id: str) -> None:
    reference = _reference(ref_id)
    assert len(reference.messages) >= 2
    for message in reference.messages:
        assert message.text.strip()
        assert message.seen_in_url is not None
        assert message.seen_in_url.startswith("https://"), message.seen_in_url


@pytest.mark.parametrize("ref_id", PER_REFERENCE)
def test_causes_checks_and_sources_are_complete(ref_id: str) -> None:
    reference = _reference(ref_id)
    if reference.kind == "symptom":
        assert len(reference.candidates) >= 5
        assert all(candidate.title for candidate in reference.candidates)
        assert all(check.confirms or check.rules_out for check in reference.checks)
    else:
        assert len(reference.causes) >= 3
        assert all(cause.title for cause in reference.causes)
    assert len(reference.checks) >= 4
    assert len(reference.sources) >= 3
    for source in reference.sources:
        assert source.url.startswith("https://"), source.url
        assert source.supports_markdown.strip()


@pytest.mark.parametrize("ref_id", PER_REFERENCE)
def test_every_diagnostic_block_reads_values_and_has_a_rule(ref_id: str) -> None:
    for message in _reference(ref_id).messages:
        if message.kind == "diagnostic":
            assert message.slots, f"line {message.line}: a diagnostic names the values it reads"
            judged = message.failing_when or message.judged_across
            assert judged, f"line {message.line}: and says when they fail, or what to compare"


@pytest.mark.parametrize("ref_id", PER_REFERENCE)
def test_worked_example_goes_with_a_calculator(ref_id: str) -> None:
    reference = _reference(ref_id)
    if reference.calculator is None:
        assert reference.worked_example_markdown == ""
        return
    assert reference.worked_example_markdown.strip()
    result = get_calculator(reference.calculator.name).run(reference.calculator.inputs)
    assert result.outputs


@pytest.mark.parametrize("ref_id", PER_REFERENCE)
def test_labelled_lines_exist_with_sources(ref_id: str) -> None:
    assert (LABELLED / f"{ref_id}.yaml").is_file(), f"missing {ref_id}.yaml"
    lines = [line for line in read_labelled(LABELLED) if line.file == f"{ref_id}.yaml"]
    assert {line.expected for line in lines} == {ref_id}
    assert len(lines) >= 3
    for line in lines:
        assert line.text.strip()
        assert line.source.startswith("https://"), line.source
