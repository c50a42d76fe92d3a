"""deploy/nginx.conf run by a real nginx (issue 35, items 3 and 8), in front of two stub
upstreams that record what reaches them: the client address the replicas key their rate
limit on cannot be written by the client, a save is never sent twice, and the body cap
lets through what failref itself would answer. The shipped file is used as is, but for
the upstream and listen addresses and the paths nginx writes to."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from paths import ROOT
from servers import LOOPBACK, free_port, wait_for

from failref.config import DEFAULT_MAX_BODY_BYTES

NGINX = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}{os.pathsep}/usr/sbin")
if NGINX is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI=true needs nginx for the proxy tests (apt-get install nginx)")
    pytest.skip("nginx is not installed: `bash scripts/test` installs it", allow_module_level=True)


@dataclass
class Upstream:
    """A stub replica: answers `status`, and records each request's method and headers."""

    status: int = 200
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    port: int = 0


def _handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            remaining = length
            while remaining:
                remaining -= len(self.rfile.read(min(remaining, 1 << 20)))
            upstream.seen.append((self.command, dict(self.headers)))
            body = f"{self.command} {length}".encode()
            self.send_response(upstream.status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = _answer  # noqa: N815 (http.server's method names)

        def log_message(self, *_args: object) -> None:
            return

    return Handler


@pytest.fixture(scope="module")
def upstreams() -> Iterator[tuple[Upstream, Upstream]]:
    pair = (Upstream(), Upstream())
    servers = []
    for upstream in pair:
        server = ThreadingHTTPServer((LOOPBACK, 0), _handler(upstream))
        upstream.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield pair
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def proxy(upstreams: tuple[Upstream, Upstream]) -> Iterator[int]:
    # Under /tmp, not pytest's private folder: nginx's workers drop root for `nobody`,
    # which must reach the temporary files it keeps request bodies in.
    with tempfile.TemporaryDirectory(prefix="failref-nginx-") as name:
        yield from _run_nginx(upstreams, Path(name))


def _run_nginx(upstreams: tuple[Upstream, Upstream], folder: Path) -> Iterator[int]:
    folder.chmod(0o755)
    port = free_port()
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    text = text.replace("server app-1:8000", f"server {LOOPBACK}:{upstreams[0].port}")
    text = text.replace("server app-2:8000", f"server {LOOPBACK}:{upstreams[1].port}")
    text = text.replace("listen 8080;", f"listen {LOOPBACK}:{port};")
    text = text.replace("pid /tmp/nginx.pid;", f"pid {folder}/nginx.pid;")
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    for kind in kinds:
        (folder / kind).mkdir(mode=0o777)
        (folder / kind).chmod(0o777)
    temporaries = "".join(f"    {kind}_temp_path {folder}/{kind};\n" for kind in kinds)
    text = text.replace("http {\n", "http {\n" + temporaries, 1)
    (folder / "nginx.conf").write_text(text)
    command = [
        str(NGINX),
        "-p",
        str(folder),
        "-c",
        str(folder / "nginx.conf"),
        "-e",
        str(folder / "error.log"),
    ]
    tested = subprocess.run([*command, "-t"], capture_output=True, text=True, check=False)
    assert tested.returncode == 0, tested.stderr
    process = subprocess.Popen([*command, "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: _answers(port), "nginx")
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _answers(port: int) -> bool:
    try:
        _request(port, "GET", "/up")
    except OSError:
        return False
    return True


def _request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> int:
    request = urllib.request.Request(
        f"http://{LOOPBACK}:{port}{path}", data=body, method=method, headers=headers or {}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        with error:
            error.read()
        return int(error.code)


def _reset(upstreams: tuple[Upstream, Upstream], first: int = 200, second: int = 200) -> None:
    upstreams[0].status, upstreams[1].status = first, second
    for upstream in upstreams:
        upstream.seen.clear()


def test_the_client_cannot_write_the_address_the_replicas_see(
    proxy: int, upstreams: tuple[Upstream, Upstream]
) -> None:
    _reset(upstreams)
    for forged in ("203.0.113.9", "1.2.3.4, 5.6.7.8", "evil"):
        assert _request(proxy, "GET", "/", headers={"X-Forwarded-For": forged}) == 200
    forwarded = [headers.get("X-Forwarded-For") for up in upstreams for _, headers in up.seen]
    assert len(forwarded) == 3
    assert set(forwarded) == {LOOPBACK}


def test_a_save_is_never_sent_to_the_second_replica(
    proxy: int, upstreams: tuple[Upstream, Upstream]
) -> None:
    """A replica that answers 503 (its database gone) is skipped for a read; a save that
    reaches it is answered as it is, never resent to the other."""
    _reset(upstreams, 503, 200)
    answers = [_request(proxy, "PUT", "/api/v1/references/x", b"text") for _ in range(4)]
    assert 503 in answers  # round robin sent one to the failing replica, and nowhere else
    assert len(upstreams[0].seen) + len(upstreams[1].seen) == len(answers)
    _reset(upstreams, 503, 200)
    assert [_request(proxy, "GET", f"/r/x?{n}") for n in range(4)] == [200] * 4


def test_the_body_cap_lets_through_what_failref_answers_itself(
    proxy: int, upstreams: tuple[Upstream, Upstream]
) -> None:
    _reset(upstreams)
    assert _request(proxy, "POST", "/api/v1/match", b"x" * DEFAULT_MAX_BODY_BYTES) == 200
    assert _request(proxy, "POST", "/api/v1/match", b"x" * (21 << 20)) == 413
