"""Status output read field by field: the failing field of one block among healthy ones is
the failure, and its line is where the log shows it."""

from __future__ import annotations

import pytest

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.logs.fields import MAX_READINGS, failing_fields
from failref.domain.matching.logs.scan import scan_log
from failref.domain.references.document import Message, Reference
from failref.domain.references.parser import parse_reference

PAGE = """---
id: fx-rows
title: Rows pending remapping
summary: Uncorrectable memory errors wait for a GPU reset.
category: hardware
tags: [ecc]
frameworks: [nvidia-smi]
phases: [training]
updated: 2026-12-07
---

## Message

```text diagnostic
    Remapped Rows
        Correctable Error                 : <n>
        Uncorrectable Error               : <n:uncorrectable>
        Pending                           : <word:pending>
        Remapping Failure Occurred        : <word:remap_failure>
```

Seen in [leptonai/gpud#80](https://github.com/leptonai/gpud/pull/80).

Failing when `pending == Yes`, `remap_failure == Yes`.

## Context

A reset applies the remapping.

## Causes

1. **A failing HBM row.** The GPU waits for a reset.

## Evidence checks

- `nvidia-smi -q -d ROW_REMAPPER`: `Pending : Yes` **confirms** cause 1.

## Sources

- [leptonai/gpud#80](https://github.com/leptonai/gpud/pull/80) — pending remapped rows.
"""


def gpu(bus: str, uncorrectable: int = 0, pending: str = "No", failure: str = "No") -> list[str]:
    """One GPU's section of `nvidia-smi -q`, with the ECC mode's own `Pending` field above
    the remapped rows (a healthy field of the same name)."""
    return [
        f"GPU 00000000:{bus}:00.0",
        "    Product Name                          : NVIDIA A100-SXM4-80GB",
        "    ECC Mode",
        "        Current                           : Enabled",
        "        Pending                           : Enabled",
        "    Remapped Rows",
        "        Correctable Error                 : 0",
        f"        Uncorrectable Error               : {uncorrectable}",
        f"        Pending                           : {pending}",
        f"        Remapping Failure Occurred        : {failure}",
        "    Temperature",
        "        GPU Current Temp                  : 34 C",
    ]


def smi(*gpus: list[str]) -> list[str]:
    sections = [line for section in gpus for line in section]
    return ["==============NVSMI LOG==============", "Driver Version : 535.183.01", *sections]


@pytest.fixture(scope="module")
def page() -> Reference:
    reference, problems = parse_reference("references/fx-rows.md", PAGE.encode())
    assert reference is not None, problems
    return reference


@pytest.fixture(scope="module")
def index(page: Reference) -> MatchIndex:
    return build_index([page])


def block(page: Reference) -> Message:
    return page.messages[0]


def everywhere(lines: list[str]) -> range:
    return range(1, len(lines) + 1)


def test_the_failing_field_of_the_third_gpu_is_read_among_healthy_blocks(page: Reference) -> None:
    lines = smi(gpu("18"), gpu("2A"), gpu("3A", uncorrectable=4, pending="Yes"))
    found = failing_fields(block(page), lines, everywhere(lines), 9)
    assert found is not None
    assert found.verdict.state == "failing"
    assert found.verdict.values["pending"] == "Yes"
    assert [lines[n - 1].split()[0] for n in found.lines] == ["Pending"]
    assert found.lines == [2 + 2 * 12 + 9]


def test_every_failing_field_is_shown_and_only_those(page: Reference) -> None:
    lines = smi(gpu("18", pending="Yes"), gpu("2A"), gpu("3A", failure="Yes"))
    found = failing_fields(block(page), lines, everywhere(lines), 9)
    assert found is not None
    assert [lines[n - 1].strip().split(" ")[0] for n in found.lines] == ["Pending", "Remapping"]
    assert found.verdict.values["pending"] == "Yes"  # the first failing place decides


def test_healthy_blocks_read_no_failure(page: Reference) -> None:
    lines = smi(gpu("18"), gpu("2A", uncorrectable=0))
    assert failing_fields(block(page), lines, everywhere(lines), 9) is None


def test_only_the_places_given_are_read_and_at_most_max_readings(page: Reference) -> None:
    lines = smi(*(gpu("18") for _ in range(3)), gpu("3A", pending="Yes"))
    assert failing_fields(block(page), lines, range(1, 20), 9) is None
    many = [1] * (MAX_READINGS) + [len(lines) - 12]
    assert failing_fields(block(page), lines, many, 9) is None


def test_a_scan_roots_the_log_at_the_failing_field(index: MatchIndex) -> None:
    lines = smi(gpu("18"), gpu("2A"), gpu("3A", uncorrectable=4, pending="Yes"))
    result = scan_log(index, "\n".join(lines) + "\n")
    (hit,) = result.hits
    assert hit.confident
    assert hit.verdict is not None
    assert hit.verdict.state == "failing"
    assert (hit.first_line, hit.line_numbers, hit.count) == (35, [35], 1)
    assert hit.example.split() == ["Pending", ":", "Yes"]
    (root,) = result.diagnosis.roots
    assert (root.id, root.line) == ("fx-rows", 35)


def test_a_scan_of_healthy_status_output_has_no_root_and_no_alarm(index: MatchIndex) -> None:
    lines = smi(gpu("18"), gpu("2A"), gpu("3A"))
    result = scan_log(index, "\n".join(lines) + "\n")
    assert not any(hit.confident for hit in result.hits)
    assert result.diagnosis.roots == []
    assert result.diagnosis.verdict != "failure"
