"""A serving process pins glibc's mmap threshold: after a large block is freed (a save
frees the last index's arrays), a block of a few hundred KB still gets a mapping of its
own rather than a place in an arena that keeps freed memory (issue 35, defect 10)."""

from __future__ import annotations

import ctypes
import ctypes.util
import subprocess
import sys
from typing import Any

import pytest

from failref.cli import allocator, serving

# Run in a fresh interpreter: glibc's threshold is the process's, and this one's has moved
# with whatever the tests before it freed. It frees a 4 MiB block (a mapping of its own,
# which raises an unpinned threshold to 4 MiB), then allocates 1 MiB and prints by how
# many bytes glibc's mapped blocks grew.
PROBE = """
import ctypes, sys
from failref.cli.allocator import fix_mmap_threshold

class MallInfo(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold()
large = bytearray(4 << 20)
del large
before = libc.mallinfo2().hblkhd
block = bytearray(1 << 20)
print(libc.mallinfo2().hblkhd - before)
"""


def glibc() -> bool:
    name = ctypes.util.find_library("c")
    return name is not None and hasattr(ctypes.CDLL(name), "mallinfo2")


def mapped_growth(mode: str) -> int:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return int(run.stdout)


@pytest.mark.skipif(not glibc(), reason="the mmap threshold is glibc's")
def test_a_block_after_a_large_free_gets_its_own_mapping() -> None:
    assert mapped_growth("fixed") >= 1 << 20


@pytest.mark.skipif(not glibc(), reason="the mmap threshold is glibc's")
def test_without_pinning_glibc_moves_the_threshold() -> None:
    """What the pin is for: glibc alone puts that block in an arena."""
    assert mapped_growth("glibc") == 0


def test_serving_in_process_pins_the_threshold_first(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(serving, "fix_mmap_threshold", lambda: calls.append("pinned") or True)
    monkeypatch.setattr(serving.uvicorn, "run", lambda *_a, **_k: calls.append("served"))
    serving.serve("127.0.0.1", 0, 1, False, access_log=False)
    assert calls == ["pinned", "served"]


def test_no_glibc_no_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator.ctypes.util, "find_library", lambda _name: None)
    assert allocator.fix_mmap_threshold() is False


def test_a_worker_pins_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    class Server:
        def __init__(self, _config: Any) -> None:
            pass

        def run(self, sockets: Any) -> None:
            calls.append("served")

    monkeypatch.setattr(serving, "fix_mmap_threshold", lambda: calls.append("pinned") or True)
    monkeypatch.setattr(serving.logging.config, "dictConfig", lambda _config: None)
    monkeypatch.setattr(serving, "_stop_when_orphaned", lambda _pid: None)
    monkeypatch.setattr(serving, "reuse_port_socket", lambda _host, _port: None)
    monkeypatch.setattr(serving.uvicorn, "Server", Server)
    serving._worker("127.0.0.1", 0, False, 1)
    assert calls == ["pinned", "served"]
