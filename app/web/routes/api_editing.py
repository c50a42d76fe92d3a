"""Saving a reference file through the JSON API, with ETags for conflicts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ...errors import (
    InvalidInput,
    PreconditionFailed,
    PreconditionRequired,
    StaleBase,
    UnsupportedMediaType,
)
from ...services.editing import Edit, editable_file, existing_file, save_as_editor
from ...services.library import Library
from ...services.retiring import MAX_REASON_CHARS, retire_reference
from ...urls import API_REFERENCE, API_V1
from ..bodies import SafeBodyRoute, media_type
from ..deps import LibraryDep
from ..guards import EditorDep
from ..middleware.fast_reads import entity_tag, names_version
from ..templating import page_path
from .api import ReferenceId, reference_url, require_json
from .openapi import EDITOR_TOKEN, errors

MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown", "text/plain"})
MAX_CHANGE_MESSAGE_CHARS = 500
# A reference file as the document can say it: it opens with the front matter's `---` line
# (the loader's first check); what follows is checked on save, and a file with problems is 422.
REFERENCE_FILE_SCHEMA = {"type": "string", "pattern": "^---[ \\t\\r]*\\n"}
# The server answers 428 without an If-Match (unless `If-None-Match: *` creates), so the
# document requires it; a creating client may send `*`, which is then not read.
IF_MATCH = {
    "name": "If-Match",
    "in": "header",
    "required": True,
    "schema": {"type": "string", "minLength": 1, "examples": ['"<the ETag of the GET>"']},
    "description": (
        "The ETag of the version edited (or `*`); without it, 428. When `If-None-Match: *` "
        "creates the reference, it is not read."
    ),
}

router = APIRouter(prefix=API_V1, tags=["editing"], route_class=SafeBodyRoute)


class Saved(BaseModel):
    """An acknowledged save: the reference, its new revision and version tag."""

    id: str
    revision: int
    etag: str
    url: str


@router.put(
    API_REFERENCE,
    response_model=Saved,
    responses={
        201: {"model": Saved, "description": "Created (sent with `If-None-Match: *`)."},
        **errors(400, 401, 403, 404, 409, 412, 413, 415, 422, 428, 503, 507),
    },
    dependencies=[Depends(EDITOR_TOKEN)],
    summary="Save a reference file",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"text/markdown": {"schema": REFERENCE_FILE_SCHEMA}},
        },
        "parameters": [
            IF_MATCH,
            {
                "name": "If-None-Match",
                "in": "header",
                "schema": {"type": "string", "enum": ["*"]},
                "description": "`*` creates a new reference (201); 412 when it exists.",
            },
            {
                "name": "X-Change-Message",
                "in": "header",
                "schema": {"type": "string", "maxLength": MAX_CHANGE_MESSAGE_CHARS},
                "description": "The revision's message.",
            },
        ],
    },
)
async def api_put_reference(
    request: Request, reference_id: ReferenceId, editor: EditorDep, library: LibraryDep
) -> Response:
    """Replace the whole file (front matter and Markdown) of a reference. Send the `ETag` of
    `GET /references/{id}` as `If-Match`; `If-None-Match: *` creates a new reference. An
    optional `X-Change-Message` header becomes the revision's message."""
    if media_type(request.headers) not in MARKDOWN_TYPES:
        raise UnsupportedMediaType("send the file as text/markdown")
    text = _decode(await request.body())
    creating = request.headers.get("if-none-match", "").strip() == "*"
    base = _base_from(request.headers.get("if-match"), library, reference_id)
    if base is None and not creating:
        raise PreconditionRequired("send If-Match with the ETag of the version you edited")
    message = request.headers.get("x-change-message", "")[:MAX_CHANGE_MESSAGE_CHARS]
    edit = Edit(reference_id, text, base, creating, message)
    try:
        # No merge here: If-Match is a precondition, and a client merges on its 412.
        outcome = await run_in_threadpool(save_as_editor, library, editor.id, editor.name, edit)
    except StaleBase as error:
        failed = PreconditionFailed(str(error), field="If-Match")
        failed.diff = error.diff
        raise failed from None
    etag = entity_tag(outcome.saved.content_hash)
    body = Saved(
        id=reference_id,
        revision=outcome.saved.revision_id,
        etag=etag,
        url=reference_url(request, reference_id),
    )
    return Response(
        body.model_dump_json(),
        status_code=201 if creating else 200,
        media_type="application/json",
        headers={"ETag": etag},
    )


@router.get(
    API_REFERENCE + "/text",
    response_class=Response,
    responses={
        200: {
            "content": {"text/markdown": {"schema": {"type": "string"}}},
            "description": "The file, byte for byte, with its `ETag`.",
        },
        304: {"description": "`If-None-Match` names the current version."},
        **errors(404, 413, 422),
    },
    summary="Read a reference file",
)
def api_get_reference_text(
    reference_id: ReferenceId,
    library: LibraryDep,
    if_none_match: Annotated[str | None, Header(description="An ETag you hold.")] = None,
) -> Response:
    """The whole file of a reference (front matter and Markdown) as the store of record
    keeps it now, with the `ETag` to send as `If-Match` when you `PUT` it back edited."""
    text, version = existing_file(library, reference_id)
    etag = entity_tag(version)
    if if_none_match is not None and names_version(if_none_match, etag):
        return Response(status_code=304, headers={"ETag": etag})
    return Response(
        text.encode("utf-8"), media_type="text/markdown; charset=utf-8", headers={"ETag": etag}
    )


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("the body is not valid UTF-8", field="body") from None


def _base_from(if_match: str | None, library: Library, reference_id: str) -> str | None:
    """The content hash an `If-Match` names (quoted, possibly weak); `*` names whatever
    version exists now (none: the save fails with 412 like any stale base); None when absent."""
    if not if_match or not if_match.strip():
        return None
    if if_match.strip() == "*":
        found = editable_file(library, reference_id)
        return found[1] if found else "*"
    return if_match.strip().removeprefix("W/").strip('"')


class RetireRequest(BaseModel):
    """Why a reference is retired, and the reference that replaces it, if one does."""

    reason: str = Field(min_length=1, max_length=MAX_REASON_CHARS)
    replaced_by: str | None = Field(
        default=None, description="A served reference's id; its page then takes the old id's."
    )


class Retired(BaseModel):
    """An acknowledged retirement."""

    id: str
    retired_at: str = Field(description="ISO 8601, UTC.")
    reason: str
    replaced_by: str | None
    history_url: str = Field(
        description="The revisions' page, kept (editors); restoring one brings it back."
    )


@router.post(
    API_REFERENCE + "/retire",
    response_model=Retired,
    dependencies=[Depends(require_json), Depends(EDITOR_TOKEN)],
    responses=errors(400, 401, 403, 404, 409, 412, 415, 422, 428, 503, 507),
    summary="Retire a reference",
    openapi_extra={
        "parameters": [
            {**IF_MATCH, "description": "The ETag of the version retired; without it, 428."}
        ]
    },
)
def api_retire_reference(
    request: Request,
    reference_id: ReferenceId,
    body: RetireRequest,
    editor: EditorDep,
    library: LibraryDep,
) -> Retired:
    """Take a reference out of service: it leaves every list and match at once, its
    revisions stay, and `GET` of it answers 410 with the reason (its page sends readers
    to `replaced_by` when one is named). A later `PUT` with `If-None-Match: *` under the
    same id brings it back."""
    base = _base_from(request.headers.get("if-match"), library, reference_id)
    if base is None:
        raise PreconditionRequired("send If-Match with the ETag of the version you retire")
    try:
        row = retire_reference(
            library, reference_id, base, editor.name, body.reason, body.replaced_by
        )
    except StaleBase as error:
        raise PreconditionFailed(str(error), field="If-Match") from None
    return Retired(
        id=row.reference_id,
        retired_at=row.retired_at.isoformat(timespec="seconds"),
        reason=row.reason,
        replaced_by=row.replaced_by,
        history_url=page_path(request, "reference_history", reference_id=reference_id),
    )
