"""`failref mcp` over stdio, with every request read before standard input closed answered.

The SDK stops when its input ends and drops the answers still being computed: a client
that writes its requests and closes the pipe (`failref mcp < requests.jsonl`) gets none of
the slow ones. Here the SDK reads and writes pipes instead of the process's own standard
streams; one thread copies standard input in and notes each request's id, another copies
the SDK's output out and notes each answer's, and when standard input ends the first waits
(at most DRAIN_S) until every noted request has its answer before it ends the SDK's input.
"""

from __future__ import annotations

import json
import logging
import os
import select
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

logger = logging.getLogger(__name__)

# Longer than any tool call takes (a scan of the largest log is seconds).
DRAIN_S = 60.0
READER_JOIN_S = 1.0
# How long the output copier waits for more before it checks whether to stop.
POLL_S = 0.1
CHUNK_BYTES = 65536


class InFlight:
    """Ids of the requests read and not yet answered."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._changed = threading.Condition()

    def asked(self, line: bytes) -> None:
        message = _message(line)
        if message is not None and "method" in message and "id" in message:
            with self._changed:
                self._ids.add(json.dumps(message["id"]))

    def answered(self, line: bytes) -> None:
        message = _message(line)
        if message is not None and "id" in message and ("result" in message or "error" in message):
            with self._changed:
                self._ids.discard(json.dumps(message["id"]))
                self._changed.notify_all()

    def wait_until_answered(self, timeout_s: float) -> bool:
        """True when every request was answered within `timeout_s`."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._ids, timeout_s)


def _message(line: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


@contextmanager
def draining_stdio(drain_s: float = DRAIN_S) -> Iterator[None]:
    """While inside, file descriptors 0 and 1 are pipes between the SDK and the real
    standard streams, as the module docstring says; on the way out they are put back."""
    saved_in, saved_out = os.dup(0), os.dup(1)  # to put back on the way out
    real_in, real_out = os.dup(0), os.dup(1)  # the copying threads' ends, closed by them
    sdk_in, to_sdk = os.pipe()
    from_sdk, sdk_out = os.pipe()
    os.dup2(sdk_in, 0)
    os.dup2(sdk_out, 1)
    os.close(sdk_in)
    os.close(sdk_out)
    flight = InFlight()
    finished = threading.Event()

    def copy_in() -> None:
        with open(real_in, "rb") as source, open(to_sdk, "wb", buffering=0) as sink:
            for line in iter(source.readline, b""):
                flight.asked(line)
                sink.write(line)
            if not flight.wait_until_answered(drain_s):
                logger.warning("standard input closed; gave up waiting for some answers")

    def copy_out() -> None:
        # The SDK keeps a copy of the pipe's write end open after it returns, so the end
        # of its output is no end of file: once told to stop, this stops when the pipe
        # has nothing more to read.
        partial: list[bytes] = []  # the line being read, in chunks
        with open(real_out, "wb", buffering=0) as sink:
            while True:
                readable, _, _ = select.select([from_sdk], [], [], POLL_S)
                if not readable:
                    if finished.is_set():
                        break
                    continue
                chunk = os.read(from_sdk, CHUNK_BYTES)
                if not chunk:
                    break
                sink.write(chunk)
                partial.append(chunk)
                if b"\n" in chunk:
                    *lines, rest = b"".join(partial).split(b"\n")
                    partial = [rest]
                    for line in lines:
                        flight.answered(line)
        os.close(from_sdk)

    reader, writer = _thread(copy_in, "in"), _thread(copy_out, "out")
    try:
        yield
    finally:
        os.dup2(saved_out, 1)
        finished.set()  # the SDK has returned: what it wrote is in the pipe already
        writer.join(timeout=drain_s)
        # After an end by interrupt the reader still waits on standard input: a daemon
        # thread, left to go with the process.
        reader.join(timeout=READER_JOIN_S)
        os.dup2(saved_in, 0)
        os.close(saved_in)
        os.close(saved_out)


def _thread(target: Callable[[], None], name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=f"failref-mcp-{name}", daemon=True)
    thread.start()
    return thread
