"""Deadlines for slow headers, bodies and readers, and a cap on one address's connections
(issue 13, item 6; issue 35, items 1 and 9): a client that trickles a byte at a time, never
reads its answer or holds many connections is cut off; an ordinary one, on a kept-alive
connection too, is served, and so is a proxy failref trusts."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from failref.cli.protocol import ConnectionPolicy, timed_protocol
from failref.config import Settings

DEADLINE_S = 0.5
TRICKLE_S = 0.1
HANG_S = 20.0  # only tells a hang from a disconnection; the deadline is DEADLINE_S
BIG_ANSWER = 32 * 1024 * 1024  # more than the kernel's socket buffers hold
NOT_TRUSTED = "192.0.2.1"  # a proxy address no test connects from


async def echo_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers `got N` for a body of N bytes, and BIG_ANSWER bytes to a GET of /big."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    answer = b"x" * BIG_ANSWER if scope["path"] == "/big" else b"got %d" % len(body)
    await send({"type": "http.response.body", "body": answer})


@dataclass(frozen=True, slots=True)
class Served:
    port: int
    server: uvicorn.Server

    def connections(self) -> int:
        """Connections the server holds (a dropped one, and its answer, is gone)."""
        return len(self.server.server_state.connections)


@contextmanager
def serving(policy: ConnectionPolicy, trusted: str = "127.0.0.1") -> Iterator[Served]:
    """A server with this policy, trusting `trusted` as a proxy."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        echo_app,
        http=timed_protocol(policy),
        lifespan="off",
        log_level="warning",
        forwarded_allow_ips=trusted,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_S
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield Served(sock.getsockname()[1], server)
    finally:
        server.should_exit = True
        thread.join(timeout=HANG_S)


@pytest.fixture
def served_with_deadlines() -> Iterator[Served]:
    with serving(ConnectionPolicy(DEADLINE_S, DEADLINE_S, DEADLINE_S)) as served:
        yield served


@pytest.fixture
def port(served_with_deadlines: Served) -> int:
    return served_with_deadlines.port


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


def test_a_client_that_never_reads_its_answer_is_cut_off(
    served_with_deadlines: Served,
) -> None:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", served_with_deadlines.port))
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        assert eventually(lambda: served_with_deadlines.connections() == 1)
        # Without the deadline the server holds the connection and the answer as long as
        # the client keeps it open.
        assert eventually(lambda: served_with_deadlines.connections() == 0)
        # What the kernel had taken still arrives; the rest of the answer was dropped.
        assert receive_all(sock) < BIG_ANSWER


def test_a_client_that_reads_slowly_gets_the_whole_answer() -> None:
    # The write buffer stays over its mark for the whole answer: what counts is progress.
    policy = ConnectionPolicy(write_timeout_s=DEADLINE_S)
    with serving(policy) as served, socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", served.port))
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert receive_all(sock) > BIG_ANSWER  # the answer and its headers


def receive_all(sock: socket.socket) -> int:
    """Bytes received until the server closed or cut the connection."""
    sock.settimeout(HANG_S)
    received = 0
    try:
        while chunk := sock.recv(1 << 20):
            received += len(chunk)
    except ConnectionResetError:
        pass
    return received


def served(port: int, sock: socket.socket | None = None) -> bool:
    """Whether a request gets its answer (on `sock`, kept open, or a new connection)."""
    request = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na"
    with ExitStack() as stack:
        if sock is None:
            sock = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
        sock.settimeout(HANG_S)
        try:
            sock.sendall(request)
            return sock.recv(65536).startswith(b"HTTP/1.1 200")
        except (BrokenPipeError, ConnectionResetError):
            return False


def hold(port: int, count: int, stack: ExitStack) -> list[socket.socket]:
    """`count` connections, each served once and kept open."""
    held = [
        stack.enter_context(socket.create_connection(("127.0.0.1", port))) for _ in range(count)
    ]
    assert all(served(port, sock) for sock in held)
    return held


def eventually(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + HANG_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_one_address_holds_at_most_its_share_of_connections() -> None:
    policy = ConnectionPolicy(header_timeout_s=HANG_S, client_connections=3)
    with serving(policy, trusted=NOT_TRUSTED) as server, ExitStack() as stack:
        held = hold(server.port, 3, stack)
        assert not served(server.port)
        held[0].close()
        assert eventually(lambda: served(server.port)), "a closed connection still counts"


def test_a_trusted_proxy_may_hold_many_connections() -> None:
    policy = ConnectionPolicy(header_timeout_s=HANG_S, client_connections=3)
    with serving(policy) as server, ExitStack() as stack:
        hold(server.port, 6, stack)
        assert served(server.port)


@pytest.mark.parametrize(
    ("setting", "limit", "cap"),
    [
        pytest.param(32, 1000, 32, id="the setting, in a worker taking 1,000"),
        pytest.param(32, 32, 16, id="half of a worker taking 32 (open-file limit 64)"),
        pytest.param(32, 1, 1, id="one, however small the worker"),
    ],
)
def test_one_address_holds_at_most_half_of_a_worker_s_connections(
    setting: int, limit: int, cap: int
) -> None:
    """With an open-file limit of 64 a worker takes 32 connections, and one address's 31
    slow readers answered everyone else 503 (the reliability probe)."""
    policy = ConnectionPolicy.of(Settings(client_connections=setting), limit)
    assert policy.client_connections == cap


def test_the_policy_is_the_settings() -> None:
    policy = ConnectionPolicy(3.0, 7.0, 11.0, 5)
    protocol = timed_protocol(policy)
    assert protocol.policy == policy  # type: ignore[attr-defined]
    assert asyncio.Protocol in protocol.__mro__
    # Each server counts its own connections.
    assert protocol.open_by_address is not timed_protocol(policy).open_by_address  # type: ignore[attr-defined]


# Header caps (issue 35, item 12): the probe's 20,000 headers and 200 KB header got 200.


def request_with(headers: list[bytes]) -> bytes:
    return b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n"


def first_answer(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        sock.sendall(request)
        return receive_all_of(sock)


def receive_all_of(sock: socket.socket) -> bytes:
    sock.settimeout(HANG_S)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
            if b"got " in received:  # an answer of echo_app: the connection stays open
                break
    except ConnectionResetError:
        pass
    return received


def test_too_many_headers_get_431_and_as_many_as_allowed_are_served() -> None:
    policy = ConnectionPolicy(max_headers=10)
    with serving(policy) as server:
        nine = [b"X-N%d: v" % n for n in range(9)]  # and Host: 10 in all
        assert first_answer(server.port, request_with(nine)).startswith(b"HTTP/1.1 200")
        eleven = [b"X-N%d: v" % n for n in range(10)]
        answer = first_answer(server.port, request_with(eleven))
        assert answer.startswith(b"HTTP/1.1 431")
        assert answer.endswith(b"more than 10 request headers")


def test_headers_over_the_byte_cap_get_431() -> None:
    policy = ConnectionPolicy(max_header_bytes=1024)
    with serving(policy) as server:
        answer = first_answer(server.port, request_with([b"X-Big: " + b"a" * 2000]))
        assert answer.startswith(b"HTTP/1.1 431")
        assert answer.endswith(b"request headers over 1024 bytes in all")
        small = first_answer(server.port, request_with([b"X-Small: " + b"a" * 500]))
        assert small.startswith(b"HTTP/1.1 200")


def test_the_default_caps_leave_a_browser_s_headers_alone() -> None:
    """20 headers with two 4 KB cookies, as a signed-in browser behind a proxy sends."""
    headers = [b"X-Header-%d: %s" % (n, b"v" * 40) for n in range(18)]
    headers += [b"Cookie: a=" + b"c" * 4096, b"Cookie: b=" + b"c" * 4096]
    with serving(ConnectionPolicy()) as server:
        assert first_answer(server.port, request_with(headers)).startswith(b"HTTP/1.1 200")
