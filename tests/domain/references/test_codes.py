"""Codes a reference owns, read from its messages and tags; a code typed alone; a code
claimed twice is a load problem."""

from __future__ import annotations

import pytest
from paths import REFERENCES

from app.domain.references.codes import code_name, code_owners, codes_of, typed_code
from app.domain.references.document import Reference
from app.domain.references.folder import check_across_files
from app.domain.references.parser import parse_reference


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


def test_a_code_claimed_twice_is_a_problem_of_the_second_file() -> None:
    first = shipped("xid-79-fallen-off-bus")
    second = first.model_copy(update={"id": "xid-79-again", "path": "xid-79-again.md"})
    owners, _ = code_owners([first, second])
    assert owners[("xid", "79")] == "xid-79-fallen-off-bus"
    _, problems = check_across_files([first, second])
    clash = [p for p in problems if p.rule == "codes"]
    assert [(p.path, p.message, p.severity) for p in clash] == [
        ("xid-79-again.md", "Xid 79 is owned by 'xid-79-fallen-off-bus'", "warning")
    ]


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
