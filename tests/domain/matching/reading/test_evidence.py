"""Levels and code paths read from raw lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA, REFERENCES

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.matching.reading.evidence import (
    LEVEL_HEAD_CHARS,
    LEVEL_PATTERNS,
    Level,
    code_path_hits,
    line_level,
    path_fragments,
    quieter,
)
from failref.domain.references.folder import read_folder

# What the level patterns turn on: marks, digits, placeholders, brackets, rank labels.
LEVEL_PIECES = st.sampled_from(
    [
        *"EFWIVDN0123456789 []|:-()x\t",
        *("<n>", "rank", "[rank3]:", "default", "local_rank", " pid=", "12: ", "(Worker pid=4) "),
        *("NCCL", " INFO", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL", "DEBUG", "TRACE"),
    ]
)


def ordered_level(line: str) -> Level | None:
    """The level as the patterns tell it, tried in their order on every line."""
    head = line[:LEVEL_HEAD_CHARS]
    return next((level for level, pattern in LEVEL_PATTERNS if pattern.search(head)), None)


def raw_lines() -> list[str]:
    labelled = [line.text for line in read_labelled(DATA / "labelled")]
    logs = [
        line
        for path in sorted((DATA / "wholelogs").glob("*.log"))
        for line in path.read_text(encoding="utf-8").split("\n")
    ]
    messages = [
        line
        for reference in read_folder(REFERENCES).references
        for message in reference.messages
        for line in message.text.splitlines()
    ]
    return [*labelled, *logs, *messages]


@pytest.mark.parametrize(
    ("line", "level"),
    [
        pytest.param(
            "host:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE", "info", id="nccl-info"
        ),
        pytest.param(
            "host:1:2 [0] NCCL WARN Failed to open libibverbs.so", "warning", id="nccl-warn"
        ),
        pytest.param(
            "[rank2]:[E112 15:47:18.72 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog",
            "error",
            id="c10",
        ),
        pytest.param("[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog", "error", id="c10-old"),
        pytest.param(
            "W0110 12:27:06.332000 158 torch/_dynamo/convert_frame.py:1551] hit",
            "warning",
            id="glog",
        ),
        pytest.param(
            "INFO 11-29 10:00:00 [loggers.py:12] Avg prompt throughput", "info", id="vllm"
        ),
        pytest.param(
            "[2024-01-02 03:04:05,678] [WARNING] [stage3.py:1] flushes", "warning", id="deepspeed"
        ),
        pytest.param("RuntimeError: CUDA error: an illegal memory access", None, id="exception"),
    ],
)
def test_the_level_is_read_from_the_prefix(line: str, level: str | None) -> None:
    assert line_level(line) == level


def test_the_level_is_the_one_the_patterns_give_in_their_order() -> None:
    """`line_level` skips the patterns for a head that holds no level word or glog mark:
    the same level as trying them all, on labelled, whole-log and reference lines."""
    lines = raw_lines()
    assert [line_level(line) for line in lines] == [ordered_level(line) for line in lines]
    assert {line_level(line) for line in lines} == {None, "debug", "info", "warning", "error"}


@settings(max_examples=400, deadline=None)
@given(st.lists(LEVEL_PIECES, max_size=30).map("".join))
def test_a_generated_line_has_the_level_the_patterns_give(line: str) -> None:
    assert line_level(line) == ordered_level(line)


def test_an_info_line_is_quieter_than_a_warning_but_not_than_an_info_message() -> None:
    assert quieter("info", "warning")
    assert quieter("debug", "error")
    assert not quieter("info", "info")
    assert not quieter("error", "warning")
    assert not quieter(None, "error")


def test_a_path_is_looked_up_by_its_runs_of_whole_segments() -> None:
    fragments = set(path_fragments("torch/_dynamo/output_graph.py"))
    assert {"torch/", "torch/_dynamo/", "_dynamo/", "output_graph.py"} <= fragments
    assert "dynamo/" not in fragments  # part of a segment is not a segment


def test_frames_and_prefixes_name_the_code_paths_they_pass_through() -> None:
    owners = {"torch/_dynamo/": frozenset({3}), "stage3.py": frozenset({7})}
    text = (
        '  File "/usr/lib/python3/site-packages/torch/_dynamo/output_graph.py", line 12\n'
        "[2024-01-02 03:04:05,678] [WARNING] [stage3.py:1234:step] flushes\n"
    )
    assert code_path_hits(text, owners) == {3: "torch/_dynamo/", 7: "stage3.py"}
    assert code_path_hits("C:\\work\\torch\\_dynamo\\eval_frame.py", owners) == {
        3: "torch/_dynamo/"
    }
    assert code_path_hits("no frames here", owners) == {}
