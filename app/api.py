"""JSON API under /api/v1: the twin of every page, for scripts, chatbots and agents."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.analysis import match_message, scan_text
from app.bodies import SafeBodyRoute, media_type
from app.calculations import calculate, find_calculator
from app.calculators import CALCULATORS, Calculator
from app.deps import CatalogDep, LibraryDep, SettingsDep, catalog_of
from app.editing import (
    StaleBase,
    current_file,
    discard_drafts,
    keep_draft,
    save_reference,
    unified_diff,
)
from app.errors import (
    ErrorBody,
    InvalidInput,
    PreconditionFailed,
    PreconditionRequired,
    Unavailable,
    UnsupportedMediaType,
)
from app.fast_reads import entity_tag, reference_response
from app.gaps import remember_if_unanswered
from app.guards import EditorDep
from app.library import Library
from app.queries import ReferenceFilter, get_reference, list_references
from app.ratelimit import RateLimited
from app.schemas import (
    CalculatorInfo,
    CalculatorList,
    CalculatorRun,
    Health,
    MatchRequest,
    MatchResponse,
    ReferenceDetail,
    ReferenceList,
    ScanRequest,
    ScanResponse,
)
from app.templating import page_path, templates


def require_json(request: Request) -> None:
    """Refuse a body that is not declared as JSON (415) before parsing it."""
    if media_type(request.headers) != "application/json":
        raise UnsupportedMediaType("send the body as application/json")


router = APIRouter(prefix="/api/v1", tags=["references"], route_class=SafeBodyRoute)
json_router = APIRouter(
    prefix="/api/v1", dependencies=[Depends(require_json)], route_class=SafeBodyRoute
)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route can answer, all with ErrorBody."""
    meaning = {
        401: "No valid editor session or token.",
        403: "Editing is off, or the request came from another site.",
        404: "Unknown id or name.",
        412: "The file changed since that ETag; `diff` shows how.",
        429: "Too many requests from this client; retry in a minute.",
        428: "Send If-Match with the ETag of the version you edited.",
        507: "The disk is full; nothing was saved.",
        413: "Body over the configured size limit.",
        415: "Body is not application/json.",
        422: "Invalid input; `field` names it.",
        503: "Not ready yet.",
    }
    return {status: {"model": ErrorBody, "description": meaning[status]} for status in statuses}


NOT_FOUND = errors(404)


def reference_url(request: Request, reference_id: str) -> str:
    """Path of a reference's page, behind any root path, as the pages link it."""
    return page_path(request, "reference_page", reference_id=reference_id)


@router.get("/references", response_model=ReferenceList, summary="List references")
def api_list_references(
    request: Request,
    catalog: CatalogDep,
    category: Annotated[str | None, Query(description="training, inference, ...")] = None,
    tag: Annotated[str | None, Query(description="Only references with this tag.")] = None,
    framework: Annotated[str | None, Query(description="e.g. pytorch, vllm.")] = None,
    phase: Annotated[str | None, Query(description="e.g. training, inference.")] = None,
    q: Annotated[
        str | None, Query(description="Words to find in title, summary, tags, messages.")
    ] = None,
) -> ReferenceList:
    """List the references that pass every given filter, in title order."""
    filters = ReferenceFilter(category, tag, framework, phase, q)
    references = list_references(catalog, filters)
    return ReferenceList.of(references, partial(reference_url, request))


@router.get(
    "/references/{reference_id}",
    response_model=ReferenceDetail,
    responses=NOT_FOUND,
    summary="Get one reference",
)
async def api_get_reference(request: Request, reference_id: str) -> Response:
    """The whole structured reference: messages, context, causes, evidence checks, sources.
    The `ETag` names the file's version; send it as `If-Match` with a `PUT`."""
    # Known ids are usually answered before routing by fast_reads.ReferenceReads, the same way.
    catalog = catalog_of(request)
    reference = get_reference(catalog, reference_id)
    reply = reference_response(catalog, reference, request.headers.get("if-none-match"))
    headers = {name.decode(): value.decode() for name, value in reply.headers}
    return Response(reply.body, status_code=reply.status, headers=headers)


health_router = APIRouter(tags=["health"])
docs_router = APIRouter(include_in_schema=False)


@docs_router.get("/docs", response_class=HTMLResponse, name="api_docs")
def api_docs(request: Request) -> HTMLResponse:
    """Interactive API docs, with every asset served from this origin."""
    openapi_url = str(request.app.url_path_for("openapi"))
    return templates.TemplateResponse(request, "api_docs.html", {"openapi_url": openapi_url})


@health_router.get("/healthz", response_model=Health, summary="Liveness")
async def healthz() -> Health:
    """The process is up and answering."""
    return Health(status="ok")


@health_router.get(
    "/readyz",
    response_model=Health,
    responses={503: {"model": ErrorBody, "description": "Not loaded yet."}},
    summary="Readiness",
)
def readyz(library: LibraryDep) -> Health:
    """The database answers and the reference index is loaded."""
    if not library.ready:
        raise Unavailable("the reference index is not loaded yet")
    if not library.database_answers():
        raise Unavailable("the database does not answer")
    catalog = library.catalog
    return Health(status="ok", references=len(catalog.references), problems=len(catalog.problems))


@json_router.post(
    "/match",
    response_model=MatchResponse,
    responses=errors(413, 415, 422, 429),
    tags=["matching"],
    summary="Match a message",
)
def api_match(
    request: Request,
    body: MatchRequest,
    catalog: CatalogDep,
    library: LibraryDep,
    _budget: RateLimited,
) -> MatchResponse:
    """Rank the references that may explain one pasted message (a line or a short block such
    as a traceback), best first. A match never confirms a cause: open the reference and run
    its evidence checks."""
    result = match_message(catalog, body.log, body.context, body.limit)
    confident = any(match.confident for match in result.matches)
    remember_if_unanswered(library.engine, library.settings, body.log, confident)
    return MatchResponse.of(result, partial(reference_url, request))


@json_router.post(
    "/scan",
    response_model=ScanResponse,
    responses=errors(413, 415, 422, 429),
    tags=["matching"],
    summary="Scan a whole log",
)
def api_scan(
    request: Request,
    body: ScanRequest,
    catalog: CatalogDep,
    settings: SettingsDep,
    _budget: RateLimited,
) -> ScanResponse:
    """Find every reference a whole log shows, with the count of matching lines, their line
    numbers and an example line per reference."""
    result = scan_text(catalog, body.log, body.context, settings.max_log_lines)
    return ScanResponse.of(result, partial(reference_url, request))


def calculator_info(calculator: Calculator) -> CalculatorInfo:
    """The public description of a calculator."""
    return CalculatorInfo(
        name=calculator.name,
        title=calculator.title,
        summary=calculator.summary,
        formula=calculator.formula,
        source_title=calculator.source_title,
        source_url=calculator.source_url,
        input_schema=calculator.input_schema(),
        outputs=[
            {"name": o.name, "label": o.label, "unit": o.unit, "help": o.help}
            for o in calculator.outputs
        ],
        defaults=calculator.defaults(),
    )


@router.get(
    "/calculators", response_model=CalculatorList, tags=["calculators"], summary="List calculators"
)
def api_list_calculators() -> CalculatorList:
    """Every calculator with its input schema (units, bounds, defaults) and outputs."""
    return CalculatorList(calculators=[calculator_info(c) for c in CALCULATORS.values()])


@router.get(
    "/calculators/{name}",
    response_model=CalculatorInfo,
    responses=NOT_FOUND,
    tags=["calculators"],
    summary="Describe a calculator",
)
def api_get_calculator(name: str) -> CalculatorInfo:
    """One calculator with its input schema and outputs."""
    return calculator_info(find_calculator(name))


@json_router.post(
    "/calculators/{name}",
    response_model=CalculatorRun,
    responses=errors(404, 413, 415, 422),
    tags=["calculators"],
    summary="Run a calculator",
)
def api_run_calculator(
    name: str,
    inputs: Annotated[
        dict[str, Any],
        Body(
            description="Inputs by name; missing ones take their defaults.",
            examples=[{"gradient_gb": 140, "workers": 256, "slow_gbps": 25}],
        ),
    ],
) -> CalculatorRun:
    """Run a calculator; the answer holds the outputs with the inputs used and the formula."""
    return CalculatorRun.of(calculate(name, inputs))


class Saved(BaseModel):
    """An acknowledged save: the reference, its new revision and version tag."""

    id: str
    revision: int
    etag: str
    url: str


MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown", "text/plain"})


@router.put(
    "/references/{reference_id}",
    response_model=Saved,
    responses={
        201: {"model": Saved, "description": "Created (sent with `If-None-Match: *`)."},
        **errors(401, 403, 404, 412, 413, 415, 422, 428, 503, 507),
    },
    tags=["editing"],
    summary="Save a reference file",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"text/markdown": {"schema": {"type": "string"}}},
        }
    },
)
async def api_put_reference(
    request: Request, reference_id: str, editor: EditorDep, library: LibraryDep
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
    message = request.headers.get("x-change-message", "")[:500] or "edited through the API"
    try:
        saved = await run_in_threadpool(
            save_reference,
            library,
            reference_id,
            text,
            base_hash=base,
            creating=creating,
            author=editor.name,
            message=message,
        )
    except StaleBase as error:
        await run_in_threadpool(keep_draft, library, editor.row.id or 0, reference_id, text)
        failed = PreconditionFailed(error.message, field="If-Match")
        failed.diff = unified_diff(error.current_text or "", text, "on disk now", "sent")
        raise failed from None
    await run_in_threadpool(discard_drafts, library, editor.row.id or 0, reference_id)
    etag = entity_tag(saved.content_hash)
    body = Saved(
        id=reference_id,
        revision=saved.revision_id,
        etag=etag,
        url=reference_url(request, reference_id),
    )
    return Response(
        body.model_dump_json(),
        status_code=201 if creating else 200,
        media_type="application/json",
        headers={"ETag": etag},
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
        found = current_file(library.settings.references_dir, reference_id)
        return found[1] if found else "*"
    return if_match.strip().removeprefix("W/").strip('"')
