"""Items 19 and 20: secrets pasted into failref never reach the database file, its WAL, the
app logs or the access log; pastes travel only in POST bodies; stored queries carry no IP,
user or session; pruned text leaves the file; a junk flood gets 429."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import quote_plus

import pytest
from databases import SQLITE_ONLY
from editing_helpers import sign_in
from fastapi.testclient import TestClient
from secret_shapes import SHAPES
from security.helpers import checkpoint, database_files, library_of
from sqlalchemy import inspect
from sqlmodel import Session, func, select

from failref.cli.logs import JsonFormatter
from failref.config import Settings
from failref.store.models import GapRow
from failref.web.factory import create_app

# (the line as it appears in a log, the planted strings that must never be stored)
PLANTED = {
    "aws-key": (
        "boto3 upload failed for key AKIAQ7XW2LZR5NB4KD3M on bucket",
        ["AKIAQ7XW2LZR5NB4KD3M"],
    ),
    "github-token": (
        "git fetch failed: GITHUB_TOKEN=ghp_x8Kd2LqW9zR4nB7vT1mC5pY3hF6jS0aE2gUq",
        ["ghp_x8Kd2LqW9zR4nB7vT1mC5pY3hF6jS0aE2gUq"],
    ),
    "bearer-header": (
        "request to registry rejected, Authorization: Bearer q9Zr4Lm2Xw8Kd7Vb3Nc6Tp1Hy5Js0Fg",
        ["q9Zr4Lm2Xw8Kd7Vb3Nc6Tp1Hy5Js0Fg"],
    ),
    "password": ("wandb init failed with password=Hunter2-Qx9zV!w7", ["Hunter2-Qx9zV!w7"]),
    "pem": (
        "tls setup failed: -----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAq8Zx9Lm2Wk",
        ["BEGIN RSA PRIVATE KEY", "MIIEowIBAAKCAQEAq8Zx9Lm2Wk"],
    ),
    "postgres-url": (
        "could not connect to postgres://trainer:S3cretPa55w0rd@10.1.2.3:5432/runs",
        ["S3cretPa55w0rd", "trainer:S3cret"],
    ),
    "jwt": (
        "token expired: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4iLCJyb2xlIjoicm9vdCJ9."
        "Qm9ndXNTaWduYXR1cmVWYWx1ZTEyMw",
        ["eyJzdWIiOiJhbm4iLCJyb2xlIjoicm9vdCJ9", "Qm9ndXNTaWduYXR1cmVWYWx1ZTEyMw"],
    ),
    "slack-token": (
        "alert hook failed with xoxb-2048193847-9182736450-Zk4Lm8Qw2Xr6Vt1Bn5Hc",
        ["xoxb-2048193847-9182736450-Zk4Lm8Qw2Xr6Vt1Bn5Hc", "Zk4Lm8Qw2Xr6Vt1Bn5Hc"],
    ),
}
# What a request carries besides its paste; none of it may be stored either.
REQUEST_MARKERS = {
    "x-forwarded-for": "203.0.113.77",
    "x-real-ip": "198.51.100.23",
    "user-agent": "UA-MARKER-5f1c Mozilla/5.0",
}
COOKIE_MARKER = "cookie-marker-8a2d"


def every_planted() -> list[str]:
    return [secret for _, secrets in PLANTED.values() for secret in secrets]


@pytest.fixture
def pasting_client(settings: Settings) -> Iterator[TestClient]:
    roomy = settings.model_copy(update={"rate_limit_per_minute": 100_000})
    with TestClient(create_app(roomy)) as client:
        yield client


@pytest.fixture
def app_log() -> Iterator[io.StringIO]:
    """Everything the app logs, formatted by the JSON formatter production uses."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    # The test's own HTTP client logs the URLs it requests; that is the client, not the app.
    handler.addFilter(lambda record: not record.name.startswith("httpx"))
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def paste_everywhere(client: TestClient, line: str) -> None:
    """Send `line` through every way a paste reaches storage."""
    client.cookies.set("tracking", COOKIE_MARKER)
    sent = [
        client.post("/", data={"log": line}, headers=REQUEST_MARKERS),
        client.post("/", data={"log": f"{line}\nsecond line of the paste"}),
        client.post("/api/v1/match", json={"log": line}, headers=REQUEST_MARKERS),
        client.get("/", params={"q": line}, headers=REQUEST_MARKERS),
        client.post("/r/stuck-rank/feedback", data={"helpful": "no", "comment": line}),
    ]
    assert [response.status_code for response in sent[:4]] == [200, 200, 200, 200]
    assert sent[4].status_code in (200, 204, 303, 422)


@SQLITE_ONLY  # reads the database file and its WAL byte for byte
def test_planted_secrets_never_reach_the_database_or_the_logs(
    pasting_client: TestClient, app_log: io.StringIO
) -> None:
    for line, _ in PLANTED.values():
        paste_everywhere(pasting_client, line)
    library = library_of(pasting_client)
    assert library.gaps.flush(timeout=30)
    with Session(library.engine) as session:
        gaps = session.exec(select(GapRow)).all()
    assert len(gaps) >= len(PLANTED), "the pastes did not reach storage"
    assert sum("<secret>" in gap.example for gap in gaps) >= len(PLANTED) - 1
    for moment in ("before the checkpoint", "after the checkpoint"):
        files = database_files(library)
        assert files
        for name, data in files.items():
            for secret in [*every_planted(), *REQUEST_MARKERS.values(), COOKIE_MARKER]:
                assert secret.encode() not in data, f"{secret!r} in {name} {moment}"
        checkpoint(library)
    logging.getLogger("failref.web").warning("control line")
    logged = app_log.getvalue()
    assert '"logger": "failref.web", "message": "control line"' in logged
    for secret in every_planted():
        assert secret not in logged
        assert secret.replace("/", "\\/") not in logged


@SQLITE_ONLY  # reads the database file and its WAL byte for byte
def test_no_secret_shape_of_the_table_reaches_the_database(pasting_client: TestClient) -> None:
    """Issue 35, item 5: each shape of tests/secret_shapes.py, pasted as a message, is
    stored redacted or not at all."""
    for shape in SHAPES:
        assert pasting_client.post("/api/v1/match", json={"log": shape.line}).status_code == 200
    library = library_of(pasting_client)
    assert library.gaps.flush(timeout=30)
    with Session(library.engine) as session:
        stored = session.exec(select(func.count()).select_from(GapRow)).one()
    assert stored >= len(SHAPES) // 2, "the pastes did not reach storage"
    for moment in ("before the checkpoint", "after the checkpoint"):
        for name, data in database_files(library).items():
            for shape in SHAPES:
                for secret in shape.secrets:
                    assert secret.encode() not in data, f"{shape.name}: in {name} {moment}"
        checkpoint(library)


@pytest.mark.parametrize("case", list(PLANTED))
def test_the_access_log_drops_query_strings_carrying_secrets(case: str) -> None:
    line, secrets = PLANTED[case]
    for target in (f"/?q={quote_plus(line)}", f"/?q={line}", f"/r/x?notes={quote_plus(line)}"):
        args = ("127.0.0.1:50000", "GET", target, "1.1", 200)
        record = logging.LogRecord(
            "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', args, None
        )
        formatted = JsonFormatter().format(record)
        for secret in secrets:
            assert secret not in formatted
            assert quote_plus(secret) not in formatted
        message = json.loads(formatted)["message"]
        assert message.endswith((' "GET / HTTP/1.1" 200', ' "GET /r/x HTTP/1.1" 200'))


class Forms(HTMLParser):
    """The method of the form around each text field."""

    def __init__(self) -> None:
        super().__init__()
        self.method: str | None = None
        self.fields: dict[str, str | None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form":
            self.method = (values.get("method") or "get").lower()
        elif tag in ("textarea", "input") and values.get("name"):
            self.fields[str(values["name"])] = self.method

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.method = None


def test_the_paste_box_posts_and_offers_no_link_carrying_a_secret(
    pasting_client: TestClient,
) -> None:
    forms = Forms()
    forms.feed(pasting_client.get("/").text)
    assert forms.fields["log"] == "post"
    for line, secrets in PLANTED.values():
        page = pasting_client.post("/", data={"log": line}).text
        hrefs = re.findall(r'href="([^"]*)"', page)
        for secret in secrets:
            assert not [href for href in hrefs if quote_plus(secret) in href or secret in href]
    clean = pasting_client.post("/", data={"log": "a harmless line that matches nothing"}).text
    assert "/?q=a+harmless+line" in clean, "share links are still offered for clean text"


def test_stored_gaps_have_no_column_for_who_asked(pasting_client: TestClient) -> None:
    library = library_of(pasting_client)
    with library.engine.connect() as connection:
        columns = {column["name"] for column in inspect(connection).get_columns("gap")}
        feedback = {column["name"] for column in inspect(connection).get_columns("feedback")}
    identifying = re.compile(r"ip|addr|host|user|session|cookie|agent|forward|editor|client|author")
    assert columns >= {"template", "example", "count"}
    assert [c for c in columns | feedback if identifying.search(c)] == []


@SQLITE_ONLY  # PostgreSQL keeps dead rows until VACUUM (docs/security.md)
def test_pruned_gaps_leave_no_trace_in_the_database_file(
    settings: Settings, pasting_client: TestClient
) -> None:
    marker = "PRUNE-MARKER-q7w3 failed with an unheard-of error"
    pasting_client.post("/", data={"log": marker})
    library = library_of(pasting_client)
    assert library.gaps.flush(timeout=30)
    with Session(library.engine) as session:
        row = session.exec(select(GapRow).where(GapRow.example.contains("PRUNE-MARKER"))).one()  # type: ignore[attr-defined]
        row.last_seen = dt.datetime.now(dt.UTC) - dt.timedelta(days=settings.gap_retention_days + 1)
        session.add(row)
        session.commit()
    checkpoint(library)
    assert any(b"PRUNE-MARKER" in data for data in database_files(library).values())
    # The retention job runs at start-up: a restarted app prunes the old gap.
    with TestClient(create_app(settings)) as restarted:
        with Session(library_of(restarted).engine) as session:
            assert session.exec(select(func.count()).select_from(GapRow)).one() == 0
        for name, data in database_files(library_of(restarted)).items():
            assert b"PRUNE-MARKER" not in data, name


def test_a_junk_flood_gets_429_and_stops_growing_the_gaps(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_limit_per_minute": 20})
    with TestClient(create_app(limited)) as client:
        statuses = [
            client.post("/", data={"log": f"junk {i} zq{i}x"}).status_code for i in range(12)
        ]
        assert statuses[0] == 200
        assert 429 in statuses
        refused = client.post("/", data={"log": "one more junk line"})
        assert refused.status_code == 429
        assert "too many requests" in refused.text.lower()
        assert library_of(client).gaps.flush(timeout=30)
        with Session(library_of(client).engine) as session:
            stored = session.exec(select(func.count()).select_from(GapRow)).one()
        assert stored == statuses.count(200)
        sign_in(client)
        assert client.get("/admin/gaps").status_code == 200


@SQLITE_ONLY  # reads the database file and its WAL byte for byte
def test_the_feedback_form_stores_only_a_yes_or_no(pasting_client: TestClient) -> None:
    line, secrets = PLANTED["github-token"]
    response = pasting_client.post(
        "/r/stuck-rank/feedback",
        data={"helpful": "yes", "comment": line, "log": line},
        follow_redirects=False,
    )
    assert response.status_code in (204, 303)
    checkpoint(library_of(pasting_client))
    for data in database_files(library_of(pasting_client)).values():
        for secret in secrets:
            assert secret.encode() not in data
