"""What the OpenAPI document says of the error statuses a route can answer."""

from __future__ import annotations

from typing import Any

from ...services.schemas import ErrorBody

MEANINGS = {
    400: "The body is not valid UTF-8.",
    401: "No valid editor session or token.",
    403: "Editing is off, or the request came from another site.",
    404: "Unknown id or name.",
    409: "Another reference took this id or alias meanwhile.",
    412: "The reference changed since that ETag; `diff` shows how.",
    413: "Body over the configured size limit.",
    415: "Body is not application/json.",
    422: "Invalid input, or a body that is not JSON; `field` names it (`body`).",
    428: "Send If-Match with the ETag of the version you edited.",
    429: "Too many requests from this client; retry in a minute.",
    503: "Not ready yet.",
    507: "The disk is full; nothing was saved.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer, all with ErrorBody."""
    return {status: {"model": ErrorBody, "description": MEANINGS[status]} for status in statuses}
