"""When lines were printed: a log pasted newest first, or ranks' logs pasted one after
another, is told in time order when its failure lines carry timestamps of one format.
Scans run against the small references of tests/fixtures/diagnosis (fx-timeout is a
waiting symptom listing fx-slow-link as a cause)."""

from __future__ import annotations

import pytest
from paths import DIAGNOSIS

from failref.domain.matching.index.match_index import MatchIndex, build_index
from failref.domain.matching.logs.clock import Clock, stamp_of
from failref.domain.matching.logs.scan import scan_log
from failref.domain.references.folder import read_folder

SLOW_LINK = (
    "node1:100:200 [0] NCCL WARN NET/Socket : peer 10.0.0.2<45678> message truncated : "
    "receiving 1048576 bytes instead of 65536"
)
WATCHDOG = (
    "[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1085, "
    "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
)


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return build_index(read_folder(DIAGNOSIS).references)


@pytest.mark.parametrize(
    ("line", "format", "seconds_of_day"),
    [
        pytest.param("2025-08-13 04:39:39,837 - root - ERROR - x", "iso", 16779.837, id="python"),
        pytest.param("[2025-08-13T04:39:39.5Z] ERROR x", "iso", 16779.5, id="iso-t"),
        pytest.param("ERROR 08-13 04:39:39 [core.py:12] x", "month-day", 16779, id="vllm"),
        pytest.param("[rank1]:[E0813 04:39:39.123 ProcessGroupNCCL.cpp:1] x", "glog", 16779.123),
        pytest.param("Aug 13 04:39:39 node1 kernel: NVRM: Xid", "syslog", 16779, id="syslog"),
        pytest.param("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79", "uptime", 1234.56789),
    ],
)
def test_timestamps_of_common_formats_are_read(
    line: str, format: str, seconds_of_day: float
) -> None:
    stamp = stamp_of(line)
    assert stamp is not None
    assert stamp.format == format
    assert stamp.seconds % 86_400 == pytest.approx(seconds_of_day)


@pytest.mark.parametrize(
    "line",
    ["Traceback (most recent call last):", "step 12 loss 2.3 took 10:00:01", "    x = y[0]"],
)
def test_lines_without_a_timestamp_near_their_start_have_none(line: str) -> None:
    assert stamp_of(line) is None


def test_later_times_sort_later_whatever_the_line_order() -> None:
    lines = ["2025-01-02 00:00:05 b", "2025-01-01 23:59:59 a", "  File x", "2025-01-02 00:00:01 c"]
    clock = Clock.of(lines, [1, 2, 3, 4])
    assert sorted([1, 2, 3, 4], key=clock.key) == [2, 3, 4, 1]
    assert clock.earliest(1, 2) == clock.key(2)


def test_fractions_of_a_second_order_lines_printed_newest_first() -> None:
    lines = [
        "ERROR 2025-04-05T00:01:19.209110975Z Error while creating shared memory segment",
        "ERROR 2025-04-05T00:01:19.209104776Z torch.distributed.DistBackendError: NCCL error",
        "ERROR 2025-04-05T00:01:18.900000000Z step 3",
        "ERROR 2025-04-05T00:01:19.209104776Z a line printed at the same instant",
    ]
    clock = Clock.of(lines, [1, 2, 3, 4])
    assert sorted([1, 2, 3, 4], key=clock.key) == [3, 2, 4, 1]


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(["ERROR 01-02 00:00:05 b", "2025-01-01 00:00:01 a"], id="two-formats"),
        pytest.param(["no stamp above", "2025-01-02 00:00:05 b"], id="one-unstamped"),
        pytest.param(["2025-01-02 00:00:05 b"], id="one-line"),
    ],
)
def test_without_one_format_on_every_line_compared_the_order_is_the_line_order(
    lines: list[str],
) -> None:
    clock = Clock.of(lines, range(1, len(lines) + 1))
    assert clock.format is None
    assert sorted(range(len(lines), 0, -1), key=clock.key) == list(range(1, len(lines) + 1))


def test_a_log_printed_newest_first_is_told_oldest_first(index: MatchIndex) -> None:
    newest_first = [
        *(f"2025-03-01 12:10:0{9 - r} {WATCHDOG.format(rank=r)}" for r in range(1, 4)),
        "2025-03-01 12:00:02 step 11 loss 2.1",
        f"2025-03-01 12:00:01 {SLOW_LINK}",
        "2025-03-01 12:00:00 step 10 loss 2.2",
    ]
    (root,) = scan_log(index, "\n".join(newest_first) + "\n").diagnosis.roots
    assert (root.id, root.line) == ("fx-slow-link", 5)
    assert [c.id for c in root.consequences] == ["fx-timeout"]


def test_ranks_pasted_in_turn_start_at_the_earliest_error(index: MatchIndex) -> None:
    rank0 = [
        "[rank0] 2025-03-01 12:00:00 step 10 loss 2.2",
        f"[rank0] 2025-03-01 12:10:05 {WATCHDOG.format(rank=0)}",
    ]
    rank1 = [
        "[rank1] 2025-03-01 12:00:00 step 10 loss 2.2",
        "[rank1] 2025-03-01 12:00:03 ERROR Traceback (most recent call last):",
        '  File "train.py", line 3, in <module>',
        "ValueError: the batch sampler returned an empty batch",
    ]
    roots = scan_log(index, "\n".join(rank0 + rank1) + "\n").diagnosis.roots
    assert roots[0].id is None
    assert roots[0].line == 6
    assert "ValueError" in (roots[0].text or "")
    assert [c.id for c in roots[0].consequences] == ["fx-timeout"]


def test_without_timestamps_the_first_line_stating_a_failure_is_first(index: MatchIndex) -> None:
    rank0 = [f"[rank0] {WATCHDOG.format(rank=0)}"]
    rank1 = ["[rank1] ValueError: the batch sampler returned an empty batch"]
    roots = scan_log(index, "\n".join(rank0 + rank1) + "\n").diagnosis.roots
    assert roots[0].id == "fx-timeout"
