"""Hardening, round 2 (issue 13): input that used to answer 500, a 500 without the security
headers, 429s without Retry-After, a read-only mirror that still wrote, token ids parsed
loosely and answered at different speeds, and context fields echoed without limit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from editing_helpers import new_editor
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from failref.config import Settings
from failref.domain.matching.index.context_terms import REASON_VALUE_CHARS
from failref.domain.matching.reading.context import FIELD_CHARS
from failref.store import editors
from failref.store.db import writing
from failref.store.models import FeedbackRow, GapRow, SessionRow
from failref.web.factory import create_app
from failref.web.routes import pages

SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options")


@pytest.mark.parametrize(
    "gpus",
    ["%C2%B2", "9" * 5000, "0", "-1", "1e3"],
    ids=["superscript", "huge", "0", "neg", "exp"],
)
def test_a_strange_gpu_count_is_read_as_notes_and_reported(client: TestClient, gpus: str) -> None:
    """Item 7 (`'²'.isdigit()` is true and `int('²')` fails; 5,000 digits is no count),
    now that a context is read and never refused: the page answers and says what it could
    not read (the form keeps what was typed)."""
    response = client.get(f"/?q=NCCL+timeout&gpus={gpus}")
    assert response.status_code == 200
    assert "Not understood:" in response.text
    assert "gives no number of GPUs" in response.text


@pytest.fixture
def quiet(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def test_a_500_carries_the_security_headers_and_keeps_the_connection(
    quiet: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 7: an unexpected error is answered inside the middleware, in the error shape."""

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pages, "analyse_paste", broken)
    page = quiet.post("/", data={"log": "anything"})
    assert page.status_code == 500
    assert "Something went wrong on our side" in page.text
    for name in SECURITY_HEADERS:
        assert name in page.headers
    assert page.headers.get("connection") != "close"
    assert quiet.get("/healthz").status_code == 200


def test_every_429_says_when_to_come_back(settings: Settings) -> None:
    """Item 8: Retry-After, in whole seconds, on the API, on pages and on /mcp."""
    limited = settings.model_copy(update={"rate_limit_per_minute": 4})
    with TestClient(create_app(limited)) as client:
        client.post("/api/v1/match", json={"log": "a"})
        refused = [
            client.post("/api/v1/match", json={"log": "b"}),
            client.post("/", data={"log": "c"}),
            client.post("/mcp", json={}, headers={"accept": "application/json, text/event-stream"}),
        ]
    for response in refused:
        assert response.status_code == 429
        assert 1 <= int(response.headers["retry-after"]) <= 60


@pytest.fixture
def mirror(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update={"read_only": True}))) as client:
        yield client


def count(client: TestClient, table: type) -> int:
    with Session(client.app.state.library.engine) as session:  # type: ignore[attr-defined]
        return session.exec(select(func.count()).select_from(table)).one()


def test_a_read_only_mirror_offers_no_sign_in(mirror: TestClient) -> None:
    for path in ("/", "/references", "/r/stuck-rank"):
        assert "/login" not in mirror.get(path).text, path


def test_a_read_only_mirror_writes_nothing(mirror: TestClient) -> None:
    """Item 10: no sign-in (a session nobody could end), no gap, no feedback."""
    library = mirror.app.state.library  # type: ignore[attr-defined]
    with writing(library.engine) as session:
        token = editors.add_editor(session, "ann")
    assert mirror.get("/login").status_code == 403
    assert mirror.post("/login", data={"token": token}).status_code == 403
    assert mirror.post("/", data={"log": "something nobody has written about"}).status_code == 200
    assert mirror.post("/r/stuck-rank/feedback", data={"helpful": "yes"}).status_code == 403
    assert (count(mirror, SessionRow), count(mirror, GapRow), count(mirror, FeedbackRow)) == (
        0,
        0,
        0,
    )


@pytest.mark.parametrize(
    "shape",
    ["fr1.01.{secret}", "fr1.+1.{secret}", "fr1.1x.{secret}", "fr1.1.{secret}.x", " fr1.1 "],
    ids=["leading-zero", "sign", "not-a-number", "four-parts", "no-secret"],
)
def test_a_token_id_is_parsed_strictly(client: TestClient, shape: str) -> None:
    """Item 13: `fr1.01.<secret>` was accepted as editor 1."""
    token = new_editor(client)
    secret = token.split(".")[2]
    response = client.get(
        "/r/stuck-rank/edit", headers={"authorization": f"Bearer {shape.format(secret=secret)}"}
    )
    assert response.status_code == 401
    assert (
        client.get("/r/stuck-rank/edit", headers={"authorization": f"Bearer {token}"}).status_code
        == 200
    )


def test_an_unknown_editor_id_costs_a_hash_like_a_known_one(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 13: the answer's timing must not tell which ids exist, so both check a hash."""
    token = new_editor(client)
    checked: list[str] = []
    real = editors.secret_matches

    def counting(secret: str, stored: str) -> bool:
        checked.append(stored)
        return real(secret, stored)

    monkeypatch.setattr(editors, "secret_matches", counting)
    secret = token.split(".")[2]
    for candidate in (f"fr1.1.{secret[::-1]}", f"fr1.999.{secret}"):
        response = client.get(
            "/r/stuck-rank/edit", headers={"authorization": f"Bearer {candidate}"}
        )
        assert response.status_code == 401
    assert len(checked) == 2
    assert all(stored.startswith("scrypt$") for stored in checked)


def test_context_fields_are_capped_and_quoted_short(client: TestClient) -> None:
    """Item 14: a 9.4 MB context came back as 40.9 MB, once per match. A field is read up
    to FIELD_CHARS, the cut is reported, and reasons quote a value short."""
    long = "x" * (FIELD_CHARS * 50)
    answer = client.post("/api/v1/match", json={"log": "NCCL", "context": {"framework": long}})
    assert answer.status_code == 200
    ignored = answer.json()["query"]["context_ignored"]
    assert f"framework: only the first {FIELD_CHARS} characters were read" in ignored
    assert len(answer.text) < 10 * FIELD_CHARS + 100_000
    page = client.post("/", data={"log": "NCCL timeout", "model": long})
    assert page.status_code == 200
    model = "llama-" + "f" * FIELD_CHARS
    answer = client.post(
        "/api/v1/match", json={"log": "recompile_limit", "context": {"model": model}}
    )
    reasons = [reason for match in answer.json()["matches"] for reason in match["reasons"]]
    assert all(model not in reason for reason in reasons)
    assert all(len(reason) < REASON_VALUE_CHARS + FIELD_CHARS for reason in reasons)
