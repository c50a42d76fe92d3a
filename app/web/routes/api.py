"""JSON API under /api/v1: the twin of every page, for scripts, chatbots and agents."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...config import DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT
from ...domain.calculators import CALCULATORS, get_calculator
from ...domain.catalog import ReferenceFilter, get_reference, page_of_references
from ...errors import NotFound, UnsupportedMediaType
from ...services.analysis import match_message, scan_text
from ...services.calculator_schemas import CalculatorInfo, CalculatorList, CalculatorRun
from ...services.kept_results import typed_context
from ...services.library import Library
from ...services.retiring import raise_if_retired
from ...services.scan_schemas import ScanRequest, ScanResponse
from ...services.schemas import (
    MatchRequest,
    MatchResponse,
    ReferenceDetail,
    ReferenceList,
)
from ...urls import API_REFERENCE, API_REFERENCES, API_V1
from ..bodies import SafeBodyRoute, media_type
from ..deps import CatalogDep, LibraryDep, catalog_of
from ..middleware.fast_reads import reference_response
from ..ratelimit import RateLimited
from ..templating import page_path
from .openapi import errors


def require_json(request: Request) -> None:
    """Refuse a body that is not declared as JSON (415) before parsing it."""
    if media_type(request.headers) != "application/json":
        raise UnsupportedMediaType("send the body as application/json")


router = APIRouter(prefix=API_V1, route_class=SafeBodyRoute)
json_router = APIRouter(
    prefix=API_V1, dependencies=[Depends(require_json)], route_class=SafeBodyRoute
)
NOT_FOUND = errors(404, 422)
EXAMPLE_REFERENCE = "nccl-collective-timeout"
ReferenceId = Annotated[
    str,
    Path(
        description="The reference's id, as in its page's path `/r/{id}`.",
        examples=[EXAMPLE_REFERENCE],
    ),
]
CalculatorName = Annotated[
    str, Path(description="The calculator's name.", examples=["allreduce-slow-link"])
]


def reference_url(request: Request, reference_id: str) -> str:
    """Path of a reference's page, behind any root path, as the pages link it."""
    return page_path(request, "reference_page", reference_id=reference_id)


@router.get(
    API_REFERENCES,
    response_model=ReferenceList,
    responses=errors(422),
    tags=["references"],
    summary="List references",
)
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
    limit: Annotated[
        int, Query(ge=1, le=MAX_LIST_LIMIT, description="The most references to answer.")
    ] = DEFAULT_LIST_LIMIT,
    offset: Annotated[
        int, Query(ge=0, description="How many to skip: the last page's `next_offset`.")
    ] = 0,
) -> ReferenceList:
    """List the references that pass every given filter, in title order, a page at a time:
    follow `next` until it is null."""
    filters = ReferenceFilter(category, tag, framework, phase, q)
    found = page_of_references(catalog, filters, offset, limit)
    list_url = partial(page_path, request, "api_list_references")
    return ReferenceList.of(found, partial(reference_url, request), list_url)


@router.get(
    API_REFERENCE,
    response_model=ReferenceDetail,
    responses=errors(404, 410, 422),
    tags=["references"],
    summary="Get one reference",
)
async def api_get_reference(request: Request, reference_id: ReferenceId) -> Response:
    """The whole structured reference: messages, context, causes, evidence checks, sources.
    The `ETag` names the file's version; send it as `If-Match` with a `PUT`."""
    # Known ids are usually answered before routing by fast_reads.ReferenceReads, the same way.
    catalog = catalog_of(request)
    try:
        reference = get_reference(catalog, reference_id)
    except NotFound as missing:
        library = request.app.state.library
        await run_in_threadpool(raise_if_retired, library, reference_id, missing)
    reply = reference_response(
        catalog,
        reference,
        request.headers.get("if-none-match"),
        request.headers.get("accept-encoding"),
    )
    headers = {name.decode(): value.decode() for name, value in reply.headers}
    return Response(reply.body, status_code=reply.status, headers=headers)


@json_router.post(
    "/match",
    response_model=MatchResponse,
    responses=errors(400, 413, 415, 422, 429),
    tags=["matching"],
    summary="Match a message",
)
def api_match(
    request: Request, body: MatchRequest, library: LibraryDep, _budget: RateLimited
) -> MatchResponse:
    """Rank the references that may explain one pasted message (a line or a short block such
    as a traceback), best first. A match never confirms a cause: open the reference and run
    its evidence checks."""
    result = match_message(library, body.log, body.context, body.limit, remember=True)
    answer = MatchResponse.of(result, partial(reference_url, request))
    return answer.model_copy(update={"result_url": kept_url(request, library, body)})


@json_router.post(
    "/scan",
    response_model=ScanResponse,
    responses=errors(400, 413, 415, 422, 429),
    tags=["matching"],
    summary="Scan a whole log",
)
def api_scan(
    request: Request, body: ScanRequest, library: LibraryDep, _budget: RateLimited
) -> ScanResponse:
    """Find every reference a whole log shows, with the count of matching lines, their line
    numbers and an example line per reference."""
    result = scan_text(library, body.log, body.context, remember=True)
    answer = ScanResponse.of(result, partial(reference_url, request))
    return answer.model_copy(update={"result_url": kept_url(request, library, body)})


def kept_url(request: Request, library: Library, body: MatchRequest | ScanRequest) -> str | None:
    """The page of the paste's result when the body asks to `keep` it and it was kept."""
    if not body.keep:
        return None
    kept = library.kept.keep_for_link(body.log, typed_context(body.context))
    return None if kept is None else page_path(request, "kept_result", token=kept.token)


@router.get(
    "/calculators", response_model=CalculatorList, tags=["calculators"], summary="List calculators"
)
def api_list_calculators() -> CalculatorList:
    """Every calculator with its input schema (units, bounds, defaults) and outputs."""
    return CalculatorList(calculators=[CalculatorInfo.of(c) for c in CALCULATORS.values()])


@router.get(
    "/calculators/{name}",
    response_model=CalculatorInfo,
    responses=NOT_FOUND,
    tags=["calculators"],
    summary="Describe a calculator",
)
def api_get_calculator(name: CalculatorName) -> CalculatorInfo:
    """One calculator with its input schema and outputs."""
    return CalculatorInfo.of(get_calculator(name))


@json_router.post(
    "/calculators/{name}",
    response_model=CalculatorRun,
    responses=errors(400, 404, 413, 415, 422),
    tags=["calculators"],
    summary="Run a calculator",
)
def api_run_calculator(
    name: CalculatorName,
    inputs: Annotated[
        dict[str, Any],
        Body(description="Inputs by name; missing ones take their defaults."),
    ],
) -> CalculatorRun:
    """Run a calculator; the answer holds the outputs with the inputs used and the formula.
    The OpenAPI document lists it once per calculator, with that calculator's inputs."""
    return CalculatorRun.of(get_calculator(name).run(inputs))
