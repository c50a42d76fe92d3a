"""What the OpenAPI document says beyond the routes themselves: its tags, the editors'
token, and the error statuses a route can answer."""

from __future__ import annotations

from typing import Any

from fastapi.security import HTTPBearer

from ...services.schemas import ErrorBody

# Each operation has one tag; the API page lists the tags in this order.
TAGS = [
    {
        "name": "matching",
        "description": "Paste a message or a whole log; get the references that may explain it.",
    },
    {"name": "references", "description": "Browse and read the references."},
    {"name": "calculators", "description": "Put a number on a failure's cost."},
    {
        "name": "editing",
        "description": "For the docs team: read a reference file; save it with a token.",
    },
    {"name": "health", "description": "For load balancers and monitoring."},
]

# Declares the token the editing routes take, for the document only: `web.guards` checks
# it (or a signed-in browser's session cookie) and answers 401 itself.
EDITOR_TOKEN = HTTPBearer(
    scheme_name="editorToken",
    description="An editor's token, printed once by `failref editor add NAME`.",
    auto_error=False,
)

MEANINGS = {
    400: "The body is not valid UTF-8.",
    401: "No valid editor session or token.",
    403: "Editing is off, or the request came from another site.",
    404: "Unknown id or name.",
    409: "Another reference took this id or alias meanwhile.",
    410: "The reference was retired; `error.message` says when, why and what replaced it.",
    412: "The reference changed since that ETag; `diff` shows how.",
    413: "Body over the configured size limit.",
    415: "Body is not application/json.",
    422: "Invalid input, or a body that is not JSON: `fields` names every field at fault.",
    428: "Send If-Match with the ETag of the version you edited.",
    429: "Too many requests from this client; retry in a minute.",
    503: "Not ready yet.",
    507: "The disk is full; nothing was saved.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer, all with ErrorBody."""
    return {status: {"model": ErrorBody, "description": MEANINGS[status]} for status in statuses}
