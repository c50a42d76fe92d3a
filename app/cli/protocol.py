"""uvicorn's httptools protocol with the limits uvicorn lacks:
- a connection must start a request within `header_timeout_s`, a request's headers must
  arrive within `header_timeout_s` of its first byte, and its body within
  `body_timeout_s` of the headers;
- a client that reads nothing of its answer for `write_timeout_s`, while the answer
  waits in the write buffer, is cut off, and the buffered answer is dropped with it;
- one address may hold at most `client_connections` connections in a worker, unless it
  is a proxy failref trusts (`FORWARDED_ALLOW_IPS`), which carries many clients;
- a request's headers may number at most `max_headers` and weigh `max_header_bytes` in
  all (names and values); past either, 431 and the connection is closed.
A client that trickles a byte every few seconds, never reads, or opens connections only to
hold them is cut off instead of holding a connection, a file descriptor and memory for
ever (an idle kept-alive connection is closed by uvicorn's own `timeout_keep_alive`)."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..config import (
    DEFAULT_BODY_TIMEOUT_S,
    DEFAULT_CLIENT_CONNECTIONS,
    DEFAULT_HEADER_TIMEOUT_S,
    DEFAULT_WRITE_TIMEOUT_S,
    Settings,
)

logger = logging.getLogger(__name__)

# A browser sends about 20 headers and a few KB of them (cookies the largest); nginx's
# defaults refuse a header line over 8 KB. Room for proxies' additions, far from the
# 20,000 headers or the 200 KB header the reliability probe sent.
MAX_HEADERS = 100
MAX_HEADER_BYTES = 64 * 1024
STATUS_431 = b"HTTP/1.1 431 Request Header Fields Too Large\r\n"


class HeadersTooLarge(Exception):
    """A request's headers passed a cap; raised inside the parser to stop it."""


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class ConnectionPolicy:
    """The deadlines and the per-address cap of every connection of a worker."""

    header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S
    write_timeout_s: float = DEFAULT_WRITE_TIMEOUT_S
    client_connections: int = DEFAULT_CLIENT_CONNECTIONS
    max_headers: int = MAX_HEADERS
    max_header_bytes: int = MAX_HEADER_BYTES

    @classmethod
    def of(cls, settings: Settings, connection_limit: int) -> ConnectionPolicy:
        """The settings' policy for a worker taking `connection_limit` connections: one
        address holds at most half of them, so it never takes the slots every other
        client needs (with an open-file limit of 64 the cap is 32, and 32 connections of
        one address answered everyone else 503)."""
        return cls(
            settings.header_timeout_s,
            settings.body_timeout_s,
            settings.write_timeout_s,
            min(settings.client_connections, max(1, connection_limit // 2)),
        )


class TimedHttpToolsProtocol(HttpToolsProtocol):
    """HttpToolsProtocol with deadlines for the headers, the body and the reading of the
    answer, and a cap on one address's connections."""

    policy: ClassVar[ConnectionPolicy] = ConnectionPolicy()
    # Open connections per untrusted address, in this worker (one class per server).
    open_by_address: ClassVar[Counter[str]] = Counter()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._write_deadline: asyncio.TimerHandle | None = None
        self._counted: str | None = None
        self._header_bytes = 0
        self._headers_refused: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None and not _trusted(address, self.config.forwarded_allow_ips):
            if self.open_by_address[address] >= self.policy.client_connections:
                logger.warning(
                    "closing a connection from %s, which holds %d already",
                    address,
                    self.open_by_address[address],
                )
                self.transport.abort()
                return
            self.open_by_address[address] += 1
            self._counted = address
        self._arm(self.policy.header_timeout_s, "headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_write()
        if self._counted is not None:
            self.open_by_address[self._counted] -= 1
            if not self.open_by_address[self._counted]:
                del self.open_by_address[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self.policy.body_timeout_s, "body")

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._arm(self.policy.header_timeout_s, "headers")

    def on_header(self, name: bytes, value: bytes) -> None:
        super().on_header(name, value)
        self._header_bytes += len(name) + len(value)
        if len(self.headers) > self.policy.max_headers:
            self._headers_refused = f"more than {self.policy.max_headers} request headers"
        elif self._header_bytes > self.policy.max_header_bytes:
            limit = self.policy.max_header_bytes
            self._headers_refused = f"request headers over {limit} bytes in all"
        if self._headers_refused is not None:
            raise HeadersTooLarge(self._headers_refused)  # uvicorn answers a parser error

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request the parser gave up on: 431 when the headers were
        over a cap (the parser stopped on HeadersTooLarge), its 400 otherwise."""
        if self._headers_refused is None:
            super().send_400_response(msg)
            return
        logger.warning("refused a request: %s", self._headers_refused)
        body = self._headers_refused.encode("ascii")
        head = [STATUS_431]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join([*head, body]))
        self.transport.close()

    def pause_writing(self) -> None:
        """The write buffer is full: the client has to read some of it in time."""
        super().pause_writing()
        self._watch_reader(self.transport.get_write_buffer_size())

    def resume_writing(self) -> None:
        self._disarm_write()
        super().resume_writing()

    def _arm(self, seconds: float, waiting_for: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire, waiting_for)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _disarm_write(self) -> None:
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None

    def _expire(self, waiting_for: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        logger.warning("closing a connection whose %s did not arrive in time", waiting_for)
        if self.cycle is not None and not self.cycle.response_started:
            self.cycle.disconnected = True  # the app sees the client gone, answers nothing
        self.transport.close()

    def _watch_reader(self, buffered: int) -> None:
        """Check after `write_timeout_s` that the client took some of the `buffered` bytes.
        (An answer is one write, so the buffer may stay over its mark for as long as a
        slow link takes to carry it: what counts is that it shrinks.)"""
        self._disarm_write()
        self._write_deadline = self.loop.call_later(
            self.policy.write_timeout_s, self._check_reader, buffered
        )

    def _check_reader(self, buffered_before: int) -> None:
        self._write_deadline = None
        if self.transport.is_closing():
            return
        buffered = self.transport.get_write_buffer_size()
        if buffered < buffered_before:
            self._watch_reader(buffered)
            return
        logger.warning(
            "dropping a connection whose client read none of its answer for %g s",
            self.policy.write_timeout_s,
        )
        # abort, not close: close would wait for the buffered answer to be read.
        self.transport.abort()


@lru_cache(maxsize=8)
def _trusted_networks(allowed: str | tuple[str, ...]) -> tuple[Network, ...] | None:
    """uvicorn's `forwarded_allow_ips` as networks; None when it trusts every address."""
    entries = allowed.split(",") if isinstance(allowed, str) else allowed
    networks: list[Network] = []
    for entry in (e.strip() for e in entries):
        if entry == "*":
            return None
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            continue  # a host name or a unix socket: not an address a peer has
    return tuple(networks)


def _trusted(address: str, allowed: str | list[str] | None) -> bool:
    if allowed is None:
        return False
    networks = _trusted_networks(allowed if isinstance(allowed, str) else tuple(allowed))
    if networks is None:
        return True
    try:
        peer = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(peer in network for network in networks)


def timed_protocol(policy: ConnectionPolicy) -> type[HttpToolsProtocol]:
    """The protocol class uvicorn instantiates per connection, with this policy and a
    count of connections of its own."""
    members = {"policy": policy, "open_by_address": Counter()}
    return type("TimedHttpToolsProtocol", (TimedHttpToolsProtocol,), members)
