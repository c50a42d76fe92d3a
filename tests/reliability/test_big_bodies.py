"""Huge bodies against a real uvicorn server: a 1 GB body with and without Content-Length,
a 100 MB form field, 100,000 form fields. Each is answered 413 while the client is still
sending, the server reads no more than the limit (plus socket buffers) and closes the
connection, its memory does not grow with the body, and other clients are served
meanwhile. No clock decides: a refusal is seen in what the server read and that it hung
up; the read timeouts only tell a hang from an answer.

The server runs in its own process (serve_app.py) on 127.0.0.1, so its RSS can be read
from /proc; the test talks to it with raw sockets and httpx, never through a proxy.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from editing_helpers import form_fields
from paths import GOOD
from sqlmodel import Session, func, select

from failref.config import DEFAULT_MAX_BODY_BYTES, Settings
from failref.services.library import open_library
from failref.store.db import make_engine
from failref.store.editors import add_editor
from failref.store.models import ReferenceRow, RevisionRow

SERVER = Path(__file__).parent / "serve_app.py"
LIMIT_BYTES = DEFAULT_MAX_BODY_BYTES
GIGABYTE = 1_000_000_000
CHUNK = b"x" * 65_536
# Loopback socket buffers hold a few MB that the client has sent but the server never read.
BUFFERED_BYTES = 32 * 1024 * 1024
# The server may allocate for one body up to the limit, a few times over; never the body.
RSS_GROWTH_BYTES = 96 * 1024 * 1024
START_S = 30.0


@dataclass
class Server:
    """The app in a uvicorn subprocess, an editor token, and its memory at start."""

    process: subprocess.Popen[str]
    port: int
    token: str
    settings: Settings
    baseline_rss: int = field(default=0)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def memory(self, name: str) -> int:
        """VmRSS or VmHWM (the peak) of the server, in bytes."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{name}:"):
                return int(line.split()[1]) * 1024
        raise AssertionError(f"no {name} in /proc status")

    def assert_memory_bounded(self) -> None:
        growth = self.memory("VmHWM") - self.baseline_rss
        assert growth < RSS_GROWTH_BYTES, f"the server grew by {growth / 1e6:.0f} MB"

    def edit_state(self, reference_id: str = "stuck-rank") -> tuple[object, ...]:
        """File bytes, revision count, the `reference` row and the served ETag (the
        catalog's hash): unchanged unless a 2xx came back."""
        data = (self.settings.references_dir / f"{reference_id}.md").read_bytes()
        engine = make_engine(self.settings)
        with Session(engine) as session:
            revisions = session.exec(select(func.count()).select_from(RevisionRow)).one()
            row = session.get(ReferenceRow, reference_id)
            assert row is not None
            columns = (row.content_hash, row.document, row.loaded_at)
        engine.dispose()
        etag = httpx.get(f"{self.url}/api/v1/references/{reference_id}", trust_env=False)
        return data, revisions, columns, etag.headers["etag"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("big-bodies")
    references = folder / "references"
    references.mkdir()
    for source in GOOD.glob("*.md"):
        (references / source.name).write_bytes(source.read_bytes())
    settings = Settings(
        database_url=f"sqlite:///{folder / 'failref.db'}", references_dir=references
    )
    library = open_library(settings)
    with Session(library.engine) as session:
        token = add_editor(session, "ann")
    library.close()
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, str(SERVER), settings.database_url, str(references)],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline() or "0")
        assert port, "the server did not start"
        running = Server(process, port, token, settings)
        with httpx.Client(trust_env=False) as client:  # warm up before the baseline
            client.get(f"{running.url}/readyz").raise_for_status()
            client.post(f"{running.url}/", data={"log": "warm up"})
        running.baseline_rss = running.memory("VmRSS")
        yield running
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
        log.close()
    stderr = (folder / "server.log").read_text()
    assert "Traceback" not in stderr, stderr[-3000:]


def read_response(sock: socket.socket, timeout_s: float) -> tuple[bytes, bool]:
    """Read until the server closes: (bytes received, whether it closed within the time)."""
    sock.settimeout(timeout_s)
    received = b""
    try:
        while chunk := sock.recv(65_536):
            received += chunk
    except TimeoutError:
        return received, False
    except ConnectionResetError:
        pass  # closed with unread bytes in its buffer: a reset, after the answer
    return received, True


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.1 ") else 0


def body_of(raw: bytes) -> bytes:
    return raw.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize(
    ("path", "content_type", "start", "declared"),
    [
        pytest.param("/api/v1/scan", "application/json", b'{"log": "', GIGABYTE, id="json-1gb"),
        pytest.param(
            "/", "application/x-www-form-urlencoded", b"log=", 100_000_000, id="form-field-100mb"
        ),
    ],
)
def test_a_declared_huge_body_is_refused_before_it_is_read(
    server: Server, path: str, content_type: str, start: bytes, declared: int
) -> None:
    """Headers and 64 KiB are sent; the 413 arrives at once and the server hangs up
    rather than wait for (or drain) the remaining bytes."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {declared}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(head + start + CHUNK)
        raw, closed = read_response(sock, timeout_s=5)
    assert status_of(raw) == 413, raw[:300]
    assert closed, "the server kept the connection open to read the rest of the body"
    assert b"\r\nconnection: close\r\n" in raw.lower()
    assert f"over the {LIMIT_BYTES}-byte limit".encode() in body_of(raw)
    if path.startswith("/api/"):
        assert json.loads(body_of(raw))["error"]["code"] == "payload_too_large"
    server.assert_memory_bounded()


@dataclass
class Upload:
    """A streamed body of up to 1 GB that counts what the client got to send."""

    start: bytes = b""
    sent: int = 0

    def __iter__(self) -> Iterator[bytes]:
        self.sent = len(self.start)
        yield self.start
        while self.sent < GIGABYTE:
            self.sent += len(CHUNK)
            yield CHUNK


MULTIPART_START = b'--b\r\nContent-Disposition: form-data; name="log"\r\n\r\n'


@pytest.mark.parametrize(
    ("path", "content_type", "start"),
    [
        pytest.param("/api/v1/scan", "application/json", b'{"log": "', id="json-scan"),
        pytest.param("/api/v1/match", "application/json", b'{"log": "', id="json-match"),
        pytest.param("/", "application/x-www-form-urlencoded", b"log=", id="form-field"),
        pytest.param("/", "multipart/form-data; boundary=b", MULTIPART_START, id="multipart"),
    ],
)
def test_a_chunked_gigabyte_is_cut_off_after_the_limit(
    server: Server, path: str, content_type: str, start: bytes
) -> None:
    """No Content-Length: the body is counted as it streams and refused once past 10 MiB;
    the connection closes, so the client stops long before 1 GB."""
    upload = Upload(start)
    with httpx.Client(trust_env=False, timeout=30) as client:
        response = client.post(
            f"{server.url}{path}", content=upload, headers={"content-type": content_type}
        )
    assert response.status_code == 413, response.text[:300]
    assert response.headers["connection"] == "close"
    assert LIMIT_BYTES < upload.sent < LIMIT_BYTES + BUFFERED_BYTES
    server.assert_memory_bounded()


def test_a_chunked_gigabyte_put_is_413_and_writes_nothing(server: Server) -> None:
    """An editor's streamed PUT: cut off at the limit, no traceback in the server's log
    (the handler reading the cut body is not an error), and nothing written."""
    before = server.edit_state()
    upload = Upload()
    headers = {
        "content-type": "text/markdown",
        "authorization": f"Bearer {server.token}",
        "if-match": before[3],
    }
    with httpx.Client(trust_env=False, timeout=30) as client:
        url = f"{server.url}/api/v1/references/stuck-rank"
        response = client.put(url, content=upload, headers=headers)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert upload.sent < LIMIT_BYTES + BUFFERED_BYTES
    assert server.edit_state() == before
    server.assert_memory_bounded()


@pytest.mark.parametrize(
    ("method", "path", "headers", "status"),
    [
        pytest.param("PUT", "/api/v1/references/stuck-rank", {}, 401, id="anonymous-put"),
        pytest.param("POST", "/healthz", {}, 405, id="wrong-method"),
        pytest.param("GET", "/healthz", {}, 200, id="get-with-a-body"),
    ],
)
def test_an_answer_before_the_body_is_read_closes_the_connection(
    server: Server, method: str, path: str, headers: dict[str, str], status: int
) -> None:
    """Answered without reading the body, a kept-alive connection would make the server
    read and discard a whole gigabyte; closing it stops the client at once."""
    upload = Upload()
    with httpx.Client(trust_env=False, timeout=30) as client:
        response = client.request(method, f"{server.url}{path}", content=upload, headers=headers)
    assert response.status_code == status
    assert response.headers["connection"] == "close"
    assert upload.sent < BUFFERED_BYTES


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        pytest.param(
            "application/x-www-form-urlencoded",
            b"&".join(b"f%d=1" % n for n in range(100_000)),
            id="urlencoded",
        ),
        pytest.param(
            "multipart/form-data; boundary=b",
            b"".join(
                b'--b\r\nContent-Disposition: form-data; name="f%d"\r\n\r\n1\r\n' % n
                for n in range(100_000)
            )
            + b"--b--\r\n",
            id="multipart",
        ),
    ],
)
def test_100k_form_fields_are_413(server: Server, content_type: str, body: bytes) -> None:
    """Under the byte limit, but a form of 100,000 fields is too large all the same: 413,
    not the parser's 400, and named by the limit it broke."""
    assert len(body) < LIMIT_BYTES
    with httpx.Client(trust_env=False, timeout=30) as client:
        response = client.post(
            f"{server.url}/", content=body, headers={"content-type": content_type}
        )
    assert response.status_code == 413
    assert "Maximum number of fields is 1000" in response.text
    server.assert_memory_bounded()


def test_other_clients_are_served_during_a_slow_upload(server: Server) -> None:
    """One client trickles a chunked body; /healthz keeps answering between its chunks
    (each within the client's timeout, a hang guard), and once past the limit the uploader
    gets its 413."""
    head = (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"%x\r\n%s\r\n" % (len(CHUNK) * 8, CHUNK * 8)
    answers = []
    with (
        socket.create_connection(("127.0.0.1", server.port)) as sock,
        httpx.Client(trust_env=False, timeout=5) as other,
    ):
        sock.sendall(head + b"4\r\nlog=\r\n")
        for _ in range(LIMIT_BYTES // len(CHUNK * 8) + 2):
            try:
                sock.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break  # refused: the server hung up
            answers.append(other.get(f"{server.url}/healthz").json()["status"])
            time.sleep(0.01)
        raw, closed = read_response(sock, timeout_s=5)
    assert status_of(raw) == 413
    assert closed
    assert answers.count("ok") == len(answers) >= 10
    server.assert_memory_bounded()


def test_a_streamed_edit_form_over_the_limit_writes_nothing(server: Server) -> None:
    """The 413 of a streamed edit form comes before any save: nothing is written."""
    before = server.edit_state()
    with httpx.Client(trust_env=False, timeout=30, base_url=server.url) as client:
        login = client.post("/login", data={"token": server.token, "next": "/"})
        assert login.status_code == 303
        fields = form_fields(client.get("/r/stuck-rank/edit").text)
        start = f"csrf_token={fields['csrf_token']}&base={fields['base']}&action=save&text="
        response = client.post(
            "/r/stuck-rank/edit",
            content=Upload(start.encode()),
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
    assert response.status_code == 413
    assert server.edit_state() == before
