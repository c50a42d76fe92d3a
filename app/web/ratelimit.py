"""A per-client request budget for the routes that do real work or store something, so a
flood gets 429 instead of filling the gaps table or starving other clients. The client key
(its address) lives only in this process's memory, never in the database or a log."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ..errors import TooManyRequests

# Buckets idle this long are forgotten, so memory stays bounded by recent clients.
IDLE_SECONDS = 600.0
MAX_CLIENTS = 10_000


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets: `per_minute` requests a minute on average, bursts up to `burst`."""

    def __init__(self, per_minute: int, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def allow(self, client: str, now: float | None = None) -> bool:
        """Spend one token of `client`'s bucket; False when it is empty."""
        now = time.monotonic() if now is None else now
        with self._lock:
            bucket = self._buckets.get(client)
            if bucket is None:
                self._forget_idle(now)
                bucket = self._buckets[client] = _Bucket(self.burst, now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
            if bucket.tokens < 1:
                return False
            bucket.tokens -= 1
            return True

    def retry_after_s(self, client: str) -> int:
        """Whole seconds until `client`'s bucket holds a token again (at least 1)."""
        with self._lock:
            bucket = self._buckets.get(client)
            missing = 1 - bucket.tokens if bucket is not None else 0
        return max(1, math.ceil(missing / self.rate))

    def _forget_idle(self, now: float) -> None:
        if len(self._buckets) < MAX_CLIENTS:
            return
        for key in [k for k, b in self._buckets.items() if now - b.updated > IDLE_SECONDS]:
            del self._buckets[key]
        if len(self._buckets) >= MAX_CLIENTS:
            self._buckets.clear()


def spend_budget(request: Request, purpose: str = "work") -> None:
    """Take one request from this client's budget for `purpose` (work, sign-in); 429 when
    it is used up. Purposes have separate budgets, so a flood of pastes cannot lock an
    editor out of signing in. Pages, the JSON API and MCP tool calls share "work"."""
    limiter: RateLimiter = request.app.state.rate_limiter
    client = request.client.host if request.client else "unknown"
    key = f"{purpose}:{client}"
    if not limiter.allow(key):
        raise TooManyRequests(
            "too many requests from this client; wait a minute and retry",
            limiter.retry_after_s(key),
        )


async def within_budget(request: Request) -> None:
    """Dependency form of `spend_budget`, for routes that always do real work."""
    spend_budget(request)


async def within_sign_in_budget(request: Request) -> None:
    """Dependency: the budget for checking tokens (each check costs an scrypt hash)."""
    spend_budget(request, "sign-in")


RateLimited = Annotated[None, Depends(within_budget)]
SignInLimited = Annotated[None, Depends(within_sign_in_budget)]
