"""What the security tests share: an HTML auditor, the edit invariant, raw ASGI requests.

The auditor is written from the browser's point of view, not from the app's helpers, so a
bug in `app.render.is_safe_url` cannot hide itself: it uses `html.parser` (attribute values
arrive entity-decoded, as a browser sees them) and strips what browsers strip from a URL
before reading its scheme.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import anyio
from fastapi.testclient import TestClient
from paths import GOOD
from sqlalchemy import text
from sqlmodel import Session, func, select

from failref.config import Settings
from failref.services.library import Library
from failref.store.models import RevisionRow

# Elements that run script, load a document or change where the page's links go.
EXECUTABLE_TAGS = frozenset(
    {
        "script",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "svg",
        "math",
        "base",
        "meta",
        "link",
        "style",
        "template",
        "portal",
    }
)
# Elements reference content must never create (pages have their own, checked apart).
FORM_TAGS = frozenset({"form", "input", "button", "textarea", "select", "option"})
URL_ATTRIBUTES = frozenset(
    {
        "href",
        "src",
        "action",
        "formaction",
        "xlink:href",
        "srcdoc",
        "poster",
        "data",
        "background",
        "cite",
        "ping",
        "srcset",
    }
)
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
# Browsers drop these anywhere in a URL before parsing it ("java\tscript:" runs).
_STRIPPED_BY_BROWSERS = re.compile(r"[\x00-\x20\x7f]+")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
# Names that clobber `window`/`document` properties when used as an element's id or name.
CLOBBERED_NAMES = frozenset(
    {
        "location",
        "__proto__",
        "proto",
        "forms",
        "document",
        "cookie",
        "domain",
        "body",
        "images",
        "links",
        "scripts",
        "constructor",
        "prototype",
        "top",
        "parent",
        "self",
        "window",
        "alert",
    }
)


def url_scheme(url: str) -> str | None:
    """The scheme a browser would read from `url` (an entity-decoded attribute value)."""
    match = _SCHEME.match(_STRIPPED_BY_BROWSERS.sub("", url))
    return match.group(1).lower() if match else None


@dataclass(frozen=True)
class Finding:
    """Something in a document that could run script."""

    where: str
    what: str


class Auditor(HTMLParser):
    """Collects executable tags, event handlers, unsafe URLs and clobbering ids."""

    def __init__(self, where: str, *, page: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.where = where
        self.page = page
        self.findings: list[Finding] = []
        self.ids: list[str] = []
        self._in_script = False

    def flag(self, what: str) -> None:
        self.findings.append(Finding(self.where, what))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name.lower(): value or "" for name, value in attrs}
        if tag == "script" and self.page and self._is_own_script(values):
            self._in_script = True
        elif tag in EXECUTABLE_TAGS and not (self.page and self._is_own_head_tag(tag, values)):
            self.flag(f"<{tag}>")
        if tag in FORM_TAGS and not self.page:
            self.flag(f"<{tag}> in rendered content")
        for name, value in values.items():
            self._check_attribute(tag, name, value)

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.flag("inline script body")

    def _check_attribute(self, tag: str, name: str, value: str) -> None:
        if name.startswith("on"):
            self.flag(f"<{tag} {name}=...>")
        if name in URL_ATTRIBUTES:
            scheme = url_scheme(value)
            if scheme is not None and scheme not in SAFE_SCHEMES:
                self.flag(f"<{tag} {name}={value[:60]!r}>")
        if name == "style" and "url(" in value.lower():
            self.flag(f"<{tag} style with url()>")
        if name == "id":
            self.ids.append(value)
        if name in ("id", "name") and value.lower() in CLOBBERED_NAMES:
            self.flag(f"<{tag} {name}={value!r}> clobbers a DOM property")

    @staticmethod
    def _is_own_script(values: dict[str, str]) -> bool:
        return values.get("src", "").startswith("/static/")

    @staticmethod
    def _is_own_head_tag(tag: str, values: dict[str, str]) -> bool:
        if tag == "link":
            return values.get("href", "").startswith("/") and values.get("rel") in (
                "stylesheet",
                "icon",
                "alternate",
            )
        return tag == "meta" and "http-equiv" not in values


def audit(html: str, where: str, *, page: bool = True) -> list[Finding]:
    """Every way `html` could run script; pages may load their own scripts from /static/."""
    auditor = Auditor(where, page=page)
    auditor.feed(html)
    auditor.close()
    duplicates = {value for value in auditor.ids if auditor.ids.count(value) > 1}
    auditor.findings.extend(Finding(where, f"duplicate id {value!r}") for value in duplicates)
    return auditor.findings


def html_fields(document: Any, path: str = "$") -> list[tuple[str, str]]:
    """Every (json path, value) of a JSON document whose key says it carries HTML."""
    found: list[tuple[str, str]] = []
    if isinstance(document, dict):
        for key, value in document.items():
            here = f"{path}.{key}"
            if isinstance(value, str) and (key == "html" or key.endswith("_html")):
                found.append((here, value))
            else:
                found.extend(html_fields(value, here))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(html_fields(value, f"{path}[{index}]"))
    return found


# The edit invariant ---------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything a save changes: unchanged unless a 2xx came back."""

    files: dict[str, bytes]
    revisions: int
    catalog_hashes: dict[str, str]
    reference_rows: list[tuple[Any, ...]]


def library_of(client: TestClient) -> Library:
    library: Library = client.app.state.library  # type: ignore[attr-defined]
    return library


def snapshot(client: TestClient) -> Snapshot:
    """The references folder's bytes, the revision count, the served and indexed hashes."""
    library = library_of(client)
    folder = library.settings.references_dir
    files = {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }
    with Session(library.engine) as session:
        revisions = session.exec(select(func.count()).select_from(RevisionRow)).one()
        rows = session.connection().execute(text("SELECT * FROM reference ORDER BY id")).all()
    hashes = {key: ref.content_hash for key, ref in library.catalog.references.items()}
    return Snapshot(files, revisions, hashes, [tuple(row) for row in rows])


# Requests httpx would normalise -----------------------------------------------------------


@dataclass(frozen=True)
class RawResponse:
    status_code: int
    headers: dict[str, str]
    text: str


def raw_request(
    client: TestClient,
    method: str,
    raw_path: bytes,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
) -> RawResponse:
    """Send `raw_path` to the app exactly as a server would pass it on: httpx (and so
    TestClient) removes `..` segments before sending, `curl --path-as-is` does not."""
    path, _, query = raw_path.partition(b"?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path.decode("ascii")),  # what uvicorn does
        "raw_path": path,
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", b"testserver")]
        + [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        + [(b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    sent: list[dict[str, Any]] = []
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received:
            await anyio.sleep_forever()
        received = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        try:
            await client.app(scope, receive, send)  # type: ignore[arg-type]
        except Exception:
            # Starlette re-raises a 500 to its server after answering: as uvicorn does,
            # keep the answer and drop the exception.
            if not any(m["type"] == "http.response.start" for m in sent):
                raise

    portal = client.portal
    assert portal is not None, "use the client inside `with TestClient(...)`"
    portal.call(run)
    start = next(m for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    response_headers = {k.decode().lower(): v.decode() for k, v in start.get("headers", [])}
    return RawResponse(start["status"], response_headers, content.decode("utf-8", "replace"))


def files_under(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Modification time and bytes of every regular file under `folder`."""
    return {
        str(path): (path.stat().st_mtime_ns, path.read_bytes())
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


# Reference files ---------------------------------------------------------------------------

FENCE = "`" * 3


def reference_text(
    reference_id: str,
    *,
    seen_in: str = "https://example.org/seen",
    source: str = "https://example.org/source",
    front_matter: str = "",
    body_extra: str = "",
) -> str:
    """A valid reference file for `reference_id`, with the given URLs and extra lines."""
    return f"""---
id: {reference_id}
title: Probe {reference_id}
summary: A probe reference.
category: training
tags: [probe]
frameworks: [pytorch]
phases: [training]
updated: 2026-11-29
{front_matter}---

## Message

{FENCE}text
probe {reference_id} failed in a way nothing else does
{FENCE}

Seen in [a probe]({seen_in}).

## Context

Context of the probe.{body_extra}

## Causes

1. **A cause.** Explained.

## Evidence checks

- Run `true`; success **confirms** cause 1.

## Sources

- [A source]({source}) — supports the cause.
"""


def database_files(library: Library) -> dict[str, bytes]:
    """The raw bytes of the SQLite file and its WAL (after a checkpoint when `checkpoint`)."""
    database = Path(library.settings.database_url.removeprefix("sqlite:///"))
    found = {}
    for path in (database, database.with_name(database.name + "-wal")):
        if path.exists():
            found[path.name] = path.read_bytes()
    return found


def checkpoint(library: Library) -> None:
    """Copy the WAL into the database file and empty it."""
    with library.engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def module_settings(root: Path, *extra: Path) -> Settings:
    """Settings for a fresh copy of the good fixtures (plus `extra` files) under `root`,
    with a rate limit no test reaches."""
    shutil.copytree(GOOD, root / "references")
    for path in extra:
        shutil.copy(path, root / "references" / path.name)
    return Settings(
        database_url=f"sqlite:///{root / 'db' / 'failref.db'}",
        references_dir=root / "references",
        rate_limit_per_minute=1_000_000,
    )
