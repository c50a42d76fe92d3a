"""Codes a reference owns, read from its messages and tags; a code typed alone; a code
claimed twice is a load problem."""

from __future__ import annotations

import pytest
from paths import REFERENCES

from failref.domain.references.codes import code_name, code_owners, codes_of, typed_code
from failref.domain.references.document import Reference
from failref.domain.references.folder import check_across_files
from failref.domain.references.parser import parse_reference


def shipped(reference_id: str) -> Reference:
    path = REFERENCES / f"{reference_id}.md"
    reference, problems = parse_reference(path.name, path.read_bytes())
    assert reference is not None, problems
    return reference


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param("Xid 79", ("xid", "79"), id="xid"),
        pytest.param("  xid 48 ", ("xid", "48"), id="lower-case"),
        pytest.param("XID: 079", ("xid", "79"), id="colon-leading-zero"),
        pytest.param("SXid 20034", ("sxid", "20034"), id="sxid"),
        pytest.param("error 802", ("cuda", "802"), id="cuda-error"),
        pytest.param("CUDA error 802", ("cuda", "802"), id="cuda-error-spelled"),
        pytest.param("DCGM error 3", ("dcgm", "3"), id="dcgm"),
        pytest.param("dcgm 80", ("dcgm", "80"), id="dcgm-short"),
        pytest.param("dcgm error: 085", ("dcgm", "85"), id="dcgm-colon-leading-zero"),
        pytest.param("ncclRemoteError", ("nccl", "ncclremoteerror"), id="nccl-name"),
        pytest.param("ncclsystemerror", ("nccl", "ncclsystemerror"), id="nccl-lower"),
        pytest.param("Xid 79 on node 3", None, id="a-message-not-a-code"),
        pytest.param("error", None, id="no-number"),
        pytest.param(
            "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.", None, id="line"
        ),
    ],
)
def test_a_code_typed_alone(text: str, code: tuple[str, str] | None) -> None:
    assert typed_code(text) == code


def test_codes_come_from_failure_messages_and_tags() -> None:
    assert ("xid", "79") in codes_of(shipped("xid-79-fallen-off-bus"))  # message and tag
    assert {("xid", "48"), ("xid", "63"), ("xid", "94")} <= codes_of(shipped("hbm-memory-failures"))
    assert ("cuda", "802") in codes_of(shipped("nvswitch-fabric-manager"))  # tag error-802
    assert ("nccl", "ncclremoteerror") in codes_of(shipped("nccl-network-transport-errors"))
    assert codes_of(shipped("pipeline-stage-imbalance")) == frozenset()


@pytest.mark.parametrize(
    ("reference_id", "code"),
    [
        pytest.param("nvlink-errors", ("sxid", "20034"), id="sxid-from-a-switch-message"),
        pytest.param("nccl-internal-errors", ("nccl", "ncclsystemerror"), id="nccl-system"),
        pytest.param("hbm-memory-failures", ("dcgm", "80"), id="dcgm-row-remap-failure"),
        pytest.param("hbm-memory-failures", ("dcgm", "85"), id="dcgm-pending-row-remap"),
        pytest.param("hbm-memory-failures", ("dcgm", "4"), id="dcgm-volatile-dbe"),
        pytest.param("allreduce-slow-link", ("dcgm", "99"), id="dcgm-nvlinks-up"),
        pytest.param("allreduce-slow-link", ("dcgm", "14"), id="dcgm-nvlink-down"),
        pytest.param("thermal-throttling-straggler", ("dcgm", "12"), id="dcgm-power"),
        pytest.param("thermal-throttling-straggler", ("dcgm", "41"), id="dcgm-thermal"),
        pytest.param("silent-data-corruption", ("dcgm", "58"), id="dcgm-memory-mismatch"),
    ],
)
def test_shipped_codes_have_their_owner(reference_id: str, code: tuple[str, str]) -> None:
    assert code in codes_of(shipped(reference_id))


def test_an_sxid_line_gives_its_number_and_a_healthy_block_gives_none() -> None:
    switch = "nvidia-nvswitch<n>: SXid (PCI:<word>): 20034, Fatal, Link <n> LTSSM Fault Up"
    base = shipped("nvlink-errors")
    failure = base.messages[0].model_copy(update={"text": switch})
    healthy = failure.model_copy(update={"kind": "healthy"})
    bare = base.model_copy(update={"tags": ["nvlink"]})
    assert codes_of(bare.model_copy(update={"messages": [failure]})) == {("sxid", "20034")}
    assert codes_of(bare.model_copy(update={"messages": [healthy]})) == frozenset()


def test_a_code_claimed_twice_is_a_problem_of_the_second_file() -> None:
    first = shipped("xid-79-fallen-off-bus")
    second = first.model_copy(update={"id": "xid-79-again", "path": "xid-79-again.md"})
    owners, _ = code_owners([first, second])
    assert owners[("xid", "79")] == "xid-79-fallen-off-bus"
    _, problems = check_across_files([first, second])
    clash = [p for p in problems if p.rule == "codes"]
    found = [(p.path, p.message, p.severity) for p in clash]
    assert ("xid-79-again.md", "Xid 79 is owned by 'xid-79-fallen-off-bus'", "warning") in found
    assert {path for path, _, _ in found} == {"xid-79-again.md"}, "the first file keeps its codes"


def test_every_shipped_code_has_one_owner() -> None:
    references = []
    for path in sorted(REFERENCES.glob("*.md")):
        if path.name != "README.md":
            reference, _ = parse_reference(path.name, path.read_bytes())
            assert reference is not None
            references.append(reference)
    owners, clashes = code_owners(references)
    assert clashes == []
    assert code_name(("xid", "79")) == "Xid 79"
    assert owners[("xid", "79")] == "xid-79-fallen-off-bus"
