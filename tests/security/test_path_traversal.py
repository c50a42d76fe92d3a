"""Item 18: hostile reference ids on every route that reads or writes a file get 404/422;
nothing outside `references/` is read or written (canary files and mtimes say so), and the
slug rule runs before any filesystem call (a recorder of os/io calls says so)."""

from __future__ import annotations

import builtins
import io
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from editing_helpers import form_fields, new_editor, sign_in
from fastapi.testclient import TestClient
from security.helpers import (
    GOOD,
    RawResponse,
    files_under,
    raw_request,
    reference_text,
    snapshot,
)

from failref.config import Settings
from failref.web.factory import create_app
from failref.web.guards import SESSION_COOKIE

# What the canaries outside references/ say; no response may ever show one.
CANARY_MARKERS = (
    "probe secret failed",
    "probe x failed",
    "probe escape failed",
    "SECRET_GIT_CONFIG",
    "root:x:0:0",
    "[project]",
)
# Path segments as a client could send them (raw bytes; `curl --path-as-is` style).
FULL_WIDTH = quote("．．／secret").encode()
HOSTILE_IDS = {
    "dot-dot-slash": b"../secret",
    "dot-dot": b"..",
    "percent-encoded": b"%2e%2e%2fsecret",
    "percent-encoded-upper": b"%2E%2E%2Fsecret",
    "double-encoded": b"%252e%252e%252fsecret",
    "backslash": b"..\\secret",
    "encoded-backslash": b"..%5csecret",
    "absolute": b"/etc/passwd",
    "encoded-absolute": b"%2fetc%2fpasswd",
    "nul": b"secret%00",
    "nul-then-suffix": b"secret.md%00.png",
    "full-width-dots": FULL_WIDTH,
    "full-width-letters": quote("ｓｔｕｃｋ-rank").encode(),
    "overlong-utf8": b"%c0%ae%c0%ae%2fsecret",
    "sibling-prefix": b"..%2freferences-evil%2fx",
    "sibling-prefix-raw": b"../references-evil/x",
    "symlink-out": b"escape",
    "git-config": b".git%2fconfig",
    "git-config-raw": b".git/config",
    "dot-git": b".git",
    "ten-kb": b"a" * 10_240,
}
# Ids that pass the slug rule: they may reach the filesystem, but only inside references/.
SLUG_SHAPED = {"symlink-out", "ten-kb"}


@dataclass
class Layout:
    """An app whose references folder has hostile neighbours."""

    client: TestClient
    root: Path
    references: Path
    database_dir: Path
    session_id: str
    csrf: str
    base: str
    token: str
    etag: str


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Layout]:
    root = tmp_path_factory.mktemp("traversal")
    references = root / "references"
    shutil.copytree(GOOD, references)
    (root / "secret.md").write_text(reference_text("secret"))
    (root / "references-evil").mkdir()
    (root / "references-evil" / "x.md").write_text(reference_text("x"))
    (root / "outside").mkdir()
    (root / "outside" / "escape.md").write_text(reference_text("escape"))
    (references / "escape.md").symlink_to(Path("..") / "outside" / "escape.md")
    (references / ".git").mkdir()
    (references / ".git" / "config").write_text("[core]\n\tSECRET_GIT_CONFIG = 1\n")
    settings = Settings(
        database_url=f"sqlite:///{root / 'db' / 'failref.db'}", references_dir=references
    )
    with TestClient(create_app(settings)) as client:
        sign_in(client)
        fields = form_fields(client.get("/r/stuck-rank/edit").text)
        yield Layout(
            client=client,
            root=root,
            references=references,
            database_dir=root / "db",
            session_id=client.cookies[SESSION_COOKIE],
            csrf=fields["csrf_token"],
            base=fields["base"],
            token=new_editor(client, "bob"),
            etag=client.get("/api/v1/references/stuck-rank").headers["etag"],
        )


@dataclass
class FileCall:
    function: str
    path: str


resolving = threading.local()


@contextmanager
def recorded_file_calls() -> Iterator[list[FileCall]]:
    """Record the path of every open, stat, lstat, readlink, rename, replace and unlink;
    calls made by `Path.resolve` (which follows a link to see where it leads, and stats the
    result to detect loops) are marked `resolve:`: they read no file."""
    calls: list[FileCall] = []
    patch = pytest.MonkeyPatch()
    original_resolve = Path.resolve

    def resolve(self: Path, strict: bool = False) -> Path:
        resolving.depth = getattr(resolving, "depth", 0) + 1
        try:
            return original_resolve(self, strict)
        finally:
            resolving.depth -= 1

    patch.setattr(Path, "resolve", resolve)

    def recorder(module: Any, name: str) -> None:
        original: Callable[..., Any] = getattr(module, name)

        def record(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, str | bytes | os.PathLike):
                kind = f"resolve:{name}" if getattr(resolving, "depth", 0) else name
                calls.append(FileCall(kind, os.fsdecode(path)))
            return original(path, *args, **kwargs)

        patch.setattr(module, name, record)

    for module, name in [
        (os, "stat"),
        (os, "lstat"),
        (os, "open"),
        (os, "readlink"),
        (os, "replace"),
        (os, "rename"),
        (os, "unlink"),
        (os, "scandir"),
        (os, "listdir"),
        (io, "open"),
        (builtins, "open"),
    ]:
        recorder(module, name)
    try:
        yield calls
    finally:
        patch.undo()


ROUTES = ["page", "api-get", "api-put", "api-create", "edit-page", "history", "edit-save"]


def send(layout: Layout, route: str, raw_id: bytes) -> RawResponse:
    """One request for `route` with `raw_id` as its id segment."""
    session = {"cookie": f"{SESSION_COOKIE}={layout.session_id}"}
    token = {"authorization": f"Bearer {layout.token}", "content-type": "text/markdown"}
    # A valid file for the id when it is slug-shaped, so only the path checks stand in the way.
    body = reference_text(raw_id.decode() if raw_id == b"escape" else "secret").encode()
    client = layout.client
    if route == "page":
        return raw_request(client, "GET", b"/r/" + raw_id)
    if route == "api-get":
        return raw_request(client, "GET", b"/api/v1/references/" + raw_id)
    if route == "api-put":
        headers = {**token, "if-match": layout.etag}
        return raw_request(client, "PUT", b"/api/v1/references/" + raw_id, headers, body)
    if route == "api-create":
        headers = {**token, "if-none-match": "*"}
        return raw_request(client, "PUT", b"/api/v1/references/" + raw_id, headers, body)
    if route == "edit-page":
        return raw_request(client, "GET", b"/r/" + raw_id + b"/edit", session)
    if route == "history":
        return raw_request(client, "GET", b"/r/" + raw_id + b"/history", session)
    form = {"csrf_token": layout.csrf, "base": layout.base, "action": "save"}
    form["text"] = body.decode()
    headers = {**session, "content-type": "application/x-www-form-urlencoded"}
    return raw_request(
        client, "POST", b"/r/" + raw_id + b"/edit", headers, urlencode(form).encode()
    )


def outside(layout: Layout, path: str) -> bool:
    """A path under the test's root but not in references/ or the database folder."""
    resolved = Path(path).absolute()
    if not resolved.is_relative_to(layout.root):
        return False
    return not (
        resolved.is_relative_to(layout.references) and ".git" not in resolved.parts
    ) and not resolved.is_relative_to(layout.database_dir)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", list(HOSTILE_IDS))
def test_hostile_ids_touch_nothing_outside_references(
    layout: Layout, name: str, route: str
) -> None:
    raw_id = HOSTILE_IDS[name]
    before_outside = files_under(layout.root)
    before = snapshot(layout.client)
    with recorded_file_calls() as calls:
        response = send(layout, route, raw_id)
    assert response.status_code in (404, 422), (response.status_code, response.text[:300])
    for marker in CANARY_MARKERS:
        assert marker not in response.text
    touched = [c for c in calls if not c.function.startswith(("resolve:", "lstat", "readlink"))]
    assert [c for c in touched if outside(layout, c.path)] == []
    if name not in SLUG_SHAPED:
        # The slug rule refused the id before any path was built from it.
        assert [c for c in calls if "secret" in c.path or "passwd" in c.path] == []
        assert [c for c in calls if ".git" in c.path or "evil" in c.path] == []
    assert files_under(layout.root) == before_outside
    assert snapshot(layout.client) == before


def test_the_recorder_sees_a_legitimate_read(layout: Layout) -> None:
    with recorded_file_calls() as calls:
        response = send(layout, "edit-page", b"stuck-rank")
    assert response.status_code == 200
    opened = [c for c in calls if c.function in ("open", "stat")]
    assert any(c.path == str(layout.references / "stuck-rank.md") for c in opened), calls


@pytest.mark.parametrize(
    "raw_path",
    [
        b"/static/../pyproject.toml",
        b"/static/..%2fpyproject.toml",
        b"/static/%2e%2e/%2e%2e/etc/passwd",
        b"/static/..%5c..%5cpyproject.toml",
        b"/static//etc/passwd",
    ],
)
def test_static_files_stay_in_their_folder(layout: Layout, raw_path: bytes) -> None:
    response = raw_request(layout.client, "GET", raw_path)
    assert response.status_code == 404
    for marker in CANARY_MARKERS:
        assert marker not in response.text


def test_the_symlink_out_of_references_is_refused_at_load(layout: Layout) -> None:
    problems = layout.client.app.state.library.catalog.problems  # type: ignore[attr-defined]
    assert any(p.path.endswith("escape.md") and "outside the folder" in p.message for p in problems)
    assert layout.client.get("/r/escape").status_code == 404
