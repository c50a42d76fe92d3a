"""Deadlines for slow headers and bodies (issue 13, item 6): a client that trickles a byte
at a time is disconnected; an ordinary one, on a kept-alive connection too, is served."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from failref.cli.protocol import timed_protocol

DEADLINE_S = 0.5
TRICKLE_S = 0.1
HANG_S = 20.0  # only tells a hang from a disconnection; the deadline is DEADLINE_S


async def echo_app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"got %d" % len(body)})


@pytest.fixture
def port() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        echo_app,
        http=timed_protocol(DEADLINE_S, DEADLINE_S),
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_S
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(timeout=HANG_S)


def trickle(port: int, head: bytes, drip: bytes) -> bytes:
    """Send `head`, then one byte of `drip` at a time; what the server sent back before it
    closed the connection (or before `drip` ran out)."""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        sock.sendall(head)
        for byte in drip:
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(TRICKLE_S)
        sock.settimeout(HANG_S)
        try:
            return sock.recv(65536)
        except ConnectionResetError:
            return b""


def test_headers_that_trickle_in_are_cut_off(port: int) -> None:
    drip = b"X-Slow: " + b"a" * int(4 * DEADLINE_S / TRICKLE_S) + b"\r\n\r\n"
    answer = trickle(port, b"GET / HTTP/1.1\r\nHost: x\r\n", drip)
    assert b"200" not in answer


def test_a_body_that_trickles_in_is_cut_off(port: int) -> None:
    size = int(4 * DEADLINE_S / TRICKLE_S)
    head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % size
    answer = trickle(port, head, b"b" * size)
    assert b"200" not in answer


def test_an_ordinary_client_is_served_twice_on_one_connection(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        for _ in range(2):
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200")
            assert b"got 3" in answer
            time.sleep(DEADLINE_S * 2)  # idle past the deadline: only keep-alive counts now


def test_the_deadlines_are_the_settings() -> None:
    protocol = timed_protocol(3.0, 7.0)
    assert (protocol.header_timeout_s, protocol.body_timeout_s) == (3.0, 7.0)  # type: ignore[attr-defined]
    assert asyncio.Protocol in protocol.__mro__
