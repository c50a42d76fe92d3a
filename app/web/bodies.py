"""Request bodies parsed in bounded memory and into valid Unicode.

Forms: Starlette unquotes each urlencoded field with `urllib.parse.unquote_plus`, which
makes a Python object per `%XX` escape and per run of non-ASCII bytes: a 10 MB body of
`%0A` costs about 750 MB and blocks the event loop for a second. Here the body (bounded
by BodyLimit) is split on `&` and each name and value is unquoted by the `unicode_escape`
codec, in C: a few copies of the body. Multipart bodies keep Starlette's parser. Either
way one field may be as large as the body limit allows.

JSON: `\\ud800` is valid JSON but no Unicode character; such a lone surrogate cannot be
stored in SQLite nor encoded in a response, so it becomes U+FFFD. (Invalid UTF-8 bytes in
a JSON body are refused with 400, as malformed JSON.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi.routing import APIRoute
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

URLENCODED = "application/x-www-form-urlencoded"
FIELD_RE = re.compile(rb"[^&]+")
# A `%` that starts no two-digit escape stays as it is, as urllib leaves it.
LONE_PERCENT_RE = re.compile(rb"%(?![0-9A-Fa-f]{2})")
# Only a `\uD800`-`\uDFFF` escape can put a surrogate into parsed JSON; raw bytes cannot.
ESCAPED_SURROGATE_RE = re.compile(rb"\\u[dD][89a-fA-F]")
SURROGATE_RE = re.compile("[\ud800-\udfff]")


def media_type(headers: Mapping[str, str]) -> str:
    """The media type of a request's Content-Type, lowercased, without parameters."""
    return headers.get("content-type", "").split(";")[0].strip().lower()


def unquote_plus_bytes(raw: bytes) -> str:
    """`urllib.parse.unquote_plus` of one urlencoded name or value, in a few C passes."""
    spaced = raw.replace(b"+", b" ")
    if b"%" not in spaced:
        return spaced.decode("utf-8", "replace")
    # Every backslash is doubled first, so the only escapes the codec sees are `\\` and
    # the `\xHH` made from `%HH`; latin-1 turns its code points back into bytes 0-255.
    escaped = LONE_PERCENT_RE.sub(b"%25", spaced.replace(b"\\", b"\\\\"))
    unquoted = escaped.replace(b"%", b"\\x").decode("unicode_escape").encode("latin-1")
    return unquoted.decode("utf-8", "replace")


def parse_urlencoded(body: bytes, max_fields: int | float, max_part_size: int) -> FormData:
    """The fields of an urlencoded body; 413 past the field count or a field's size."""
    items: list[tuple[str, str | UploadFile]] = []
    for found in FIELD_RE.finditer(body):
        if len(items) >= max_fields:
            raise HTTPException(413, f"Too many fields. Maximum number of fields is {max_fields}.")
        name, _, value = found.group().partition(b"=")
        if len(name) + len(value) > max_part_size:
            raise HTTPException(413, f"Field exceeded maximum size of {max_part_size} bytes.")
        items.append((unquote_plus_bytes(name), unquote_plus_bytes(value)))
    return FormData(items)


def without_surrogates(value: Any) -> Any:
    """`value` (parsed JSON) with every lone surrogate in keys and strings made U+FFFD."""
    if isinstance(value, str):
        return SURROGATE_RE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    return value


class SafeBodyRequest(Request):
    """A request whose urlencoded form and JSON are parsed as the module docstring says."""

    async def _get_form(
        self,
        *,
        max_files: int | float = 1000,
        max_fields: int | float = 1000,
        max_part_size: int = 1024 * 1024,
    ) -> FormData:
        # A pasted log may fill the whole body: Starlette's 1 MB default per field would
        # refuse a long paste with a bare 400 before BodyLimit's 413 could apply.
        max_part_size = max(max_part_size, self.app.state.settings.max_body_bytes)
        if self._form is None and media_type(self.headers) == URLENCODED:
            self._form = parse_urlencoded(await self.body(), max_fields, max_part_size)
        return await super()._get_form(
            max_files=max_files, max_fields=max_fields, max_part_size=max_part_size
        )

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            parsed = json.loads(body)
            if ESCAPED_SURROGATE_RE.search(body):
                parsed = without_surrogates(parsed)
            self._json = parsed
        return self._json


class SafeBodyRoute(APIRoute):
    """A route whose handler gets a `SafeBodyRequest`: for every router that reads bodies."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def with_safe_bodies(request: Request) -> Response:
            return await handler(SafeBodyRequest(request.scope, request.receive))

        return with_safe_bodies
