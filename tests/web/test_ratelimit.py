"""The per-client budget: bursts pass, floods get 429, budgets refill."""

from __future__ import annotations

from fastapi.testclient import TestClient

from failref.config import Settings
from failref.web.factory import create_app
from failref.web.ratelimit import RateLimiter


def test_burst_then_refuse_then_refill() -> None:
    limiter = RateLimiter(per_minute=60, burst=3)
    assert [limiter.allow("a", now=0.0) for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b", now=0.0)
    assert limiter.allow("a", now=1.0)
    assert not limiter.allow("a", now=1.0)


def test_a_flood_of_matches_gets_429_and_stores_nothing_more(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_limit_per_minute": 8})
    with TestClient(create_app(limited)) as client:
        statuses = [
            client.post("/api/v1/match", json={"log": f"junk {i}"}).status_code for i in range(6)
        ]
        assert statuses[:2] == [200, 200]
        assert 429 in statuses
        body = client.post("/api/v1/match", json={"log": "more junk"}).json()
    assert body["error"]["code"] == "too_many_requests"


def test_shared_query_links_spend_the_same_budget(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_limit_per_minute": 8})
    with TestClient(create_app(limited)) as client:
        statuses = [client.get("/", params={"q": f"junk {i}"}).status_code for i in range(6)]
        assert 429 in statuses
        assert client.get("/").status_code == 200


def test_workers_share_the_budget_between_them(settings: Settings) -> None:
    """Issue 13, item 8: two workers gave a client twice the budget."""
    shared = settings.model_copy(update={"rate_limit_per_minute": 16, "workers": 2})
    with TestClient(create_app(shared)) as client:
        statuses = [
            client.post("/api/v1/match", json={"log": f"junk {i}"}).status_code for i in range(4)
        ]
    # 16 a minute over two workers is 8 for this one, in bursts of 2.
    assert statuses == [200, 200, 429, 429]
