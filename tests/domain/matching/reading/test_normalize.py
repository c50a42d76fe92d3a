"""Each normalisation rule on its own, then the whole pipeline and its invariants."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from deadlines import cpu_deadline
from hypothesis import given, settings
from hypothesis import strategies as st

from failref.domain.matching.reading import normalize
from failref.domain.matching.reading.normalize import (
    MAX_LINE_CHARS,
    normalize_line,
    normalize_template,
)

Rule = Callable[[str], str]


def cases(rule: Rule, *rows: tuple[str, str, str]) -> list[object]:
    return [
        pytest.param(rule, given_, expected, id=f"{rule.__name__}-{name}")
        for name, given_, expected in rows
    ]


RULE_CASES = [
    *cases(
        normalize.truncate,
        ("short", "abc", "abc"),
        ("long", "x" * (MAX_LINE_CHARS + 5), "x" * MAX_LINE_CHARS),
    ),
    *cases(
        normalize.keep_last_carriage_segment,
        ("none", "loss 1", "loss 1"),
        ("progress", "10%|█ \r20%|██ \r", "20%|██ "),
        ("only returns", "\r\r", ""),
    ),
    *cases(
        normalize.strip_ansi,
        ("colour", "\x1b[31mERROR\x1b[0m boom", "ERROR boom"),
        ("bold and cursor", "\x1b[1m\x1b[2Kdone", "done"),
        ("hyperlink", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "link"),
        ("plain", "no escapes", "no escapes"),
    ),
    *cases(
        normalize.strip_control,
        ("nul", "a\x00b", "a b"),
        ("bell and backspace", "a\x07\x08b", "a b"),
        ("tab kept", "a\tb", "a\tb"),
        ("replacement char", "a\ufffdb", "a b"),
    ),
    *cases(
        normalize.strip_prefixes,
        ("rank label", "[rank3]: RuntimeError: x", "RuntimeError: x"),
        ("torchrun default", "[default0]:boom", "boom"),
        ("slurm label", "0: Traceback", "Traceback"),
        (
            "c10 glog",
            "[rank0]:[E1102 10:00:00.123456 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog",
            "Watchdog",
        ),
        ("glog with thread", "W1102 10:00:00.123456 1234 socket.cpp:663] [c10d] x", "[c10d] x"),
        ("old c10", "[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog", "Watchdog"),
        ("iso timestamp", "2024-01-02 03:04:05,678 loss nan", "loss nan"),
        ("iso t z", "2024-01-02T03:04:05.678Z boom", "boom"),
        ("bracketed", "[2024-01-02 03:04:05] boom", "boom"),
        ("vllm", "INFO 01-02 03:04:05 [engine.py:123] Avg prompt", "Avg prompt"),
        (
            "vllm worker",
            "(VllmWorkerProcess pid=4321) INFO 01-02 03:04:05 x.py:1] Loading",
            "Loading",
        ),
        ("ray worker", "(RayWorkerWrapper pid=1, ip=10.0.0.1) boom", "boom"),
        (
            "us date, hugging face examples",
            "07/02/2023 03:54:35 - WARNING - accelerate.accelerator - FSDP Warning",
            "accelerate.accelerator - FSDP Warning",
        ),
        (
            "rust tracing span and target",
            "2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard 0",
            "Shard 0",
        ),
        ("rust module path", "INFO dynamo_engine_vllm::worker: VLLM: Failed", "VLLM: Failed"),
        (
            "python dotted logger kept",
            "ERROR torch.distributed.api: failed",
            "torch.distributed.api: failed",
        ),
        ("an error word kept", "ERROR RuntimeError: boom", "RuntimeError: boom"),
        (
            "nccl host pid tid",
            "node01:1234:5678 [0] NCCL INFO Using network IB",
            "NCCL INFO Using network IB",
        ),
        ("dmesg", "[ 1234.567890] NVRM: Xid 79", "NVRM: Xid 79"),
        ("syslog host", "Dec  2 11:38:47 worker4 kernel: [  219.47] NVRM: Xid", "NVRM: Xid"),
        ("dmesg -T", "[Fri Aug  9 13:32:56 2024] NVRM: Xid", "NVRM: Xid"),
        ("python logging", "ERROR:root:failed", "failed"),
        ("loguru", "2024-01-02 03:04:05.678 | ERROR    | trainer:step:42 - loss nan", "loss nan"),
        (
            "deepspeed",
            "[2024-04-08 13:02:16,577] [WARNING] [stage3.py:2069:step] 27 flushes",
            "27 flushes",
        ),
        (
            "template placeholders",
            "[<timestamp>] [INFO] [logging.py:<n>:log_dist] [Rank <n>] x",
            "x",
        ),
        ("whole line kept", "INFO", "INFO"),
        ("message untouched", "RuntimeError: CUDA error", "RuntimeError: CUDA error"),
    ),
    *cases(
        normalize.mask_urls,
        ("https", "see https://github.com/a/b/issues/1 now", "see <url> now"),
        ("template host", "GET https://<host>/v1/models", "GET <url>"),
    ),
    *cases(
        normalize.mask_uuids,
        ("uuid", "req 123e4567-e89b-12d3-a456-426614174000 done", "req <uuid> done"),
    ),
    *cases(
        normalize.mask_ips,
        ("ip with port", "connect 10.1.2.3:29500", "connect <ip>:29500"),
        ("version is not an ip", "nccl 2.18.1.1a", "nccl 2.18.1.1a"),
    ),
    *cases(
        normalize.mask_paths,
        ("absolute", 'File "/usr/lib/x.py", line 3', 'File "<path>", line 3'),
        ("relative", "open ./data/a.json", "open <path>"),
        ("deep relative", "load models/llama/config.json", "load <path>"),
        ("template path", "<path>/model.safetensors missing", "<path> missing"),
        ("ratio is not a path", "3/10 done, 5 it/s", "3/10 done, 5 it/s"),
        ("windows", r"C:\Users\me\x.py failed", "<path> failed"),
    ),
    *cases(
        normalize.mask_hosts,
        ("fqdn", "on gpu-node-3.cluster.internal now", "on <host> now"),
        ("localhost", "connect [localhost]:29500", "connect [<host>]:29500"),
        ("module is not a host", "torch.nn.functional failed", "torch.nn.functional failed"),
    ),
    *cases(
        normalize.mask_hex,
        ("0x", "at 0x7f3a2b00 in", "at <hex> in"),
        ("hash", "commit deadbeef12 ok", "commit <hex> ok"),
        ("word is not hex", "deadbeef feedface", "deadbeef feedface"),
    ),
    *cases(
        normalize.mask_pci_ids,
        ("bus id", "Xid (PCI:0000:3b:00): 79", "Xid (PCI:<hex>): 79"),
        ("with function", "GPU 00000000:4F:00.0: Unknown Error", "GPU <hex>: Unknown Error"),
        ("bracketed", "device 0 [0000:04:00] NVIDIA", "device 0 [<hex>] NVIDIA"),
        ("a time is not a bus id", "at 10:22:33 and 2024-01-02", "at 10:22:33 and 2024-01-02"),
        ("nor a longer chain", "fe80:0000:12:34:56", "fe80:0000:12:34:56"),
    ),
    *cases(
        normalize.restore_error_codes,
        ("xid", "NVRM: Xid (PCI:<hex>): xid79, pid=<n>", "NVRM: Xid (PCI:<hex>): 79, pid=<n>"),
        ("sxid", "SXid (PCI:<hex>): sxid20034, x", "SXid (PCI:<hex>): 20034, x"),
        ("typed", "Xid xid48 on node <n>", "Xid 48 on node <n>"),
        ("nothing kept", "xid79 alone", "xid79 alone"),
    ),
    *cases(
        normalize.mask_dimensions,
        ("dims", "image 4096x4096 too big", "image <shape> too big"),
    ),
    *cases(
        normalize.mark_empty_shapes,
        ("torch size", "shape torch.Size([0]) from", "shape torch.Size(empty) from"),
        ("of shape", "weight of shape [0] and", "weight of shape empty and"),
        ("another size", "torch.Size([10]) and Size([0, 3])", "torch.Size([10]) and Size([0, 3])"),
        ("an index", "host:1:2 [0] NCCL INFO", "host:1:2 [0] NCCL INFO"),
    ),
    *cases(
        normalize.mask_numbers,
        ("int and float", "step 12 loss 3.5", "step <n> loss <n>"),
        ("exponent", "lr 1e-4", "lr <n>"),
        ("unit glued", "20.00MiB free", "<n>MiB free"),
        ("in identifier kept", "H100 sm_90 fp16 rank3", "H100 sm_90 fp16 rank3"),
        ("after colon", "cuda:0", "cuda:<n>"),
    ),
    *cases(
        normalize.mask_shapes,
        ("list", "shape [<n>, <n>, <n>]", "shape <shape>"),
        ("tuple", "rank (<n>, <n>):", "rank <shape>:"),
        ("times", "<n> x <n> matrix", "<shape> matrix"),
        ("single is not shape", "size [<n>]", "size [<n>]"),
    ),
    *cases(
        normalize.collapse_spaces,
        ("runs", "  a \t b  ", "a b"),
    ),
]


@pytest.mark.parametrize(("rule", "given_", "expected"), RULE_CASES)
def test_rule(rule: Rule, given_: str, expected: str) -> None:
    assert rule(given_) == expected


LINE_CASES = [
    pytest.param(
        "[rank3]:[E1102 10:00:00.123456 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE) ran for 600010 "
        "milliseconds before timing out.",
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=<n>, OpType=ALLREDUCE) "
        "ran for <n> milliseconds before timing out.",
        id="nccl-watchdog",
    ),
    pytest.param(
        "\x1b[31mERROR\x1b[0m 2024-01-02 12:34:56,789 torch.OutOfMemoryError: CUDA out of memory. "
        "Tried to allocate 20.00 MiB (GPU 0; 79.15 GiB total capacity)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <n> MiB "
        "(GPU <n>; <n> GiB total capacity)",
        id="oom-coloured",
    ),
    pytest.param(
        "RuntimeError: shape [1, 4096] vs torch.Size([8, 16]) at 0x7f3a2b00 on 10.0.0.1",
        "RuntimeError: shape <shape> vs torch.Size(<shape>) at <hex> on <ip>",
        id="shapes-hex-ip",
    ),
    pytest.param("12 34 5678", "<n> <n> <n>", id="numbers-only"),
    pytest.param("   ", "", id="blank"),
    pytest.param("(((([[[[.*+?^$\\1{9}|", "(((([[[[.*+?^$\\<n>{<n>}|", id="regex-metacharacters"),
]


@pytest.mark.parametrize(("line", "expected"), LINE_CASES)
def test_normalize_line(line: str, expected: str) -> None:
    assert normalize_line(line) == expected


def test_template_and_line_meet() -> None:
    template = (
        "[Rank <n>] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=<n>, "
        "OpType=ALLREDUCE) ran for <n> milliseconds before timing out."
    )
    line = (
        "[rank0]:[E1102 10:00:00.1 ProcessGroupNCCL.cpp:1] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 1800000 milliseconds "
        "before timing out."
    )
    assert normalize_template(template) == normalize_line(line)


def test_template_keeps_lines_and_drops_blank_ones() -> None:
    assert normalize_template("a 1\n\n  \nb 0x1f\n") == "a <n>\nb <hex>"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_normalising_twice_changes_nothing(line: str) -> None:
    once = normalize_line(line)
    assert normalize_line(once) == once


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_output_is_one_trimmed_line(line: str) -> None:
    result = normalize_line(line)
    assert "\n" not in result
    assert result == result.strip()
    assert "  " not in result


HOSTILE_CPU_S = 1.0


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("a.a" * 50_000, id="dotted"),
        pytest.param("a-" * 50_000, id="dashed"),
        pytest.param("/" * 100_000, id="slashes"),
        pytest.param("1." * 50_000, id="numbers"),
        pytest.param("[" * 100_000, id="brackets"),
        pytest.param("\x00" * 1_000_000, id="nul-1mb"),
    ],
)
def test_hostile_line_is_quick(line: str) -> None:
    """Milliseconds on an idle machine; the CPU budget is well over ten times that."""
    with cpu_deadline(HOSTILE_CPU_S):
        normalize_line(line)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
            "NVRM: Xid (PCI:<hex>): xid79, pid=<n>, GPU has fallen off the bus.",
            id="xid",
        ),
        pytest.param("Xid 48 on node 3", "Xid xid48 on node <n>", id="typed"),
        pytest.param(
            "SXid (PCI:0000:0a:00.0): 20034, Non-fatal",
            "SXid (PCI:<hex>): sxid20034, Non-fatal",
            id="sxid",
        ),
    ],
)
def test_an_xid_number_is_kept_as_the_failure_s_name(line: str, expected: str) -> None:
    assert normalize_line(line) == expected
    assert normalize_line(expected) == expected
    # Read back as a person writes it, it normalises to the same line again.
    assert normalize_line(normalize.restore_error_codes(expected)) == expected
