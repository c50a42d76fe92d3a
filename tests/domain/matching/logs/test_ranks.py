"""Ranks and hosts read from line labels, and whether a log holds every rank."""

from __future__ import annotations

import pytest

from failref.domain.matching.logs.ranks import (
    HEAD_CHARS,
    attribute,
    log_ranks,
    number_ranges,
    read_labels,
)


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        pytest.param("[rank3]:[E112 15:47:18 ProcessGroupNCCL.cpp:629] timeout", 3, id="torchrun"),
        pytest.param("[Rank 12] Watchdog caught collective operation timeout", 12, id="c10d"),
        pytest.param("[PG ID 0 PG GUID 0(default_pg) Rank 5] watchdog thread", 5, id="pg-guid"),
        pytest.param("[PG 0 Rank 2] Process group watchdog thread terminated", 2, id="pg"),
        pytest.param("(VllmWorker rank=2 pid=4242) ERROR 01-02 worker died", 2, id="vllm"),
        pytest.param("[2025-03-04 10:11:12 TP3] Load weight end.", 3, id="sglang"),
        pytest.param("[2025-03-04 10:11:12 DP1 TP3] Load weight end.", None, id="sglang-dp"),
        pytest.param("(VllmWorkerProcess pid=4242) INFO worker started", None, id="no-rank"),
        pytest.param("step 10 loss 2.3", None, id="plain"),
        pytest.param("[rank99999999]: too big to be a rank", None, id="not-a-rank"),
    ],
)
def test_each_launchers_rank_label_is_read(line: str, rank: int | None) -> None:
    assert read_labels(f"first line\n{line}\nlast line").ranks.get(2) == rank


def test_only_ncclS_prefix_names_a_host() -> None:
    text = (
        "node-7.cluster:4288:4521 [1] NCCL INFO Bootstrap\n"
        "[rank1]:node-7:4288:4521 [1] NCCL WARN NET/IB\n"
        "Time 10:11:12 [1] done\n"
    )
    assert dict(read_labels(text).hosts) == {1: "node-7.cluster", 2: "node-7"}


def test_a_label_deep_in_a_line_is_not_its_label() -> None:
    assert read_labels("x" * HEAD_CHARS + " [rank3]: quoted").ranks == {}


def test_attribute_collects_ranks_and_hosts_of_the_given_lines() -> None:
    labels = read_labels("[rank1]: a\n[rank0]: b\nh1:1:2 [0] NCCL INFO c\n[rank1]: d\n")
    found = attribute(labels, [1, 2, 3, 4])
    assert (found.ranks, found.hosts) == ((0, 1), ("h1",))
    assert attribute(labels, [3]).ranks == ()


@pytest.mark.parametrize(
    ("text", "ranks", "complete"),
    [
        pytest.param("[rank0]: a\n[rank1]: b\n[rank2]: c\n", (0, 1, 2), True, id="all"),
        pytest.param("[rank0]: a\n[rank2]: c\n", (0, 2), False, id="gap"),
        pytest.param("[rank0]: a\n", (0,), False, id="one"),
        pytest.param("[rank0]: a\n[rank1]: b\nworld_size=8\n", (0, 1), False, id="part-of-8"),
        pytest.param("[rank0]: a\n[rank1]: b\nWORLD_SIZE: 2\n", (0, 1), True, id="size-agrees"),
    ],
)
def test_log_ranks_is_complete_only_when_no_rank_can_be_missing(
    text: str, ranks: tuple[int, ...], complete: bool
) -> None:
    found = log_ranks(read_labels(text))
    assert (found.ranks, found.complete) == (ranks, complete)


def test_silent_ranks_are_named_only_when_the_log_has_every_rank() -> None:
    whole = log_ranks(read_labels("[rank0]: a\n[rank1]: b\n[rank2]: c\n[rank3]: d\n"))
    assert whole.silent([0, 1, 3]) == (2,)
    assert whole.silent([]) == ()
    assert log_ranks(read_labels("[rank0]: a\n[rank3]: d\n")).silent([0]) == ()


def test_number_ranges_writes_runs() -> None:
    assert number_ranges([5, 0, 1, 2, 3, 7, 8, 9, 3]) == "0-3, 5, 7-9"
    assert number_ranges([]) == ""
