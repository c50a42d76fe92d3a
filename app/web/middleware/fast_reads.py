"""`GET /api/v1/references/{id}` served straight from the catalog snapshot.

The body of every reference is serialised once per load (`Catalog.documents`), so this
read is a dictionary lookup; going through FastAPI's routing and dependency machinery
would cost four times the lookup and the write together (bench/bench_api.py). This thin
ASGI layer answers the hit itself and hands everything else (unknown ids, other paths,
other methods) to the app, whose route `api.api_get_reference` answers the same way
through `reference_response`.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from ...domain.catalog import Catalog
from ...domain.references.document import Reference
from .compression import GZIP_MINIMUM_BYTES, accepts_gzip, gzipped

PATH_PREFIX = "/api/v1/references/"
READ_METHODS = frozenset({"GET", "HEAD"})


@dataclass(frozen=True)
class JsonReply:
    """A finished reply: status, headers and body."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes


def entity_tag(content_hash: str) -> str:
    """The ETag of a file version: its SHA-256, quoted."""
    return f'"{content_hash}"'


def reference_response(
    catalog: Catalog,
    reference: Reference,
    if_none_match: str | None,
    accept_encoding: str | None,
) -> JsonReply:
    """The reply for one reference: its JSON with its ETag (gzipped when the client takes
    it), or 304 when the client has it."""
    body = catalog.documents[reference.id]
    etag = entity_tag(reference.content_hash).encode()
    if if_none_match is not None and names_version(if_none_match, etag.decode()):
        return JsonReply(304, ((b"etag", etag),), b"")
    headers = [(b"content-type", b"application/json"), (b"etag", etag)]
    if len(body) >= GZIP_MINIMUM_BYTES:
        headers.append((b"vary", b"Accept-Encoding"))
        if accepts_gzip(accept_encoding):
            body = gzipped(body)
            headers.append((b"content-encoding", b"gzip"))
    headers.append((b"content-length", str(len(body)).encode()))
    return JsonReply(200, tuple(headers), body)


def names_version(header: str, etag: str) -> bool:
    """True when an If-None-Match header (`*`, or tags, weak or strong) names `etag`."""
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in tags or etag in tags


def _text(value: bytes | None) -> str | None:
    return value.decode("latin-1") if value is not None else None


class ReferenceReads:
    """Pure ASGI middleware answering known references; the app answers everything else."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        reply = self._reply(scope) if scope["type"] == "http" else None
        if reply is None:
            await self.app(scope, receive, send)
            return
        await send(
            {"type": "http.response.start", "status": reply.status, "headers": list(reply.headers)}
        )
        body = b"" if scope["method"] == "HEAD" else reply.body
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    def _reply(scope: Scope) -> JsonReply | None:
        path: str = scope["path"]
        if scope["method"] not in READ_METHODS or not path.startswith(PATH_PREFIX):
            return None
        library = getattr(scope["app"].state, "library", None)
        if library is None or not library.ready:
            return None
        catalog: Catalog = library.catalog
        reference = catalog.references.get(path[len(PATH_PREFIX) :])
        if reference is None:
            return None  # the app's route answers 404 in the error shape
        headers = dict(scope["headers"])
        return reference_response(
            catalog,
            reference,
            _text(headers.get(b"if-none-match")),
            _text(headers.get(b"accept-encoding")),
        )
