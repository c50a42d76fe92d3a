"""Levels and code paths read from raw lines."""

from __future__ import annotations

import pytest

from app.domain.matching.evidence import code_path_hits, line_level, path_fragments, quieter


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
