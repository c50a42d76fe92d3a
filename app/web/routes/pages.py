"""HTML pages; each is built from the same service functions as its JSON twin."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...config import BROWSE_PAGE_SIZE, HOME_SHELF_SIZE
from ...domain.calculators import CALCULATORS, get_calculator
from ...domain.catalog import (
    Catalog,
    ReferenceFilter,
    facets,
    get_reference,
    page_of_references,
    reference_for_code,
    references_using,
    related_references,
    resolve_alias,
    shelves,
)
from ...domain.matching.judging.judge import CONFIDENT_THRESHOLD
from ...domain.matching.results import CandidateMatch
from ...domain.references.document import PHASES
from ...errors import InvalidInput, LogTooLarge, NotFound
from ...services.analysis import analyse_paste
from ...services.guide import format_guide_html
from ...services.library import Library
from ...services.outcome import Outcome
from ...services.readers import (
    feedback_counts,
    outcome_counts,
    record_feedback,
    record_outcome,
)
from ...services.retiring import retirement
from ...services.schemas import confidence_note
from ...services.side_storage import read_or
from ...store.models import RetiredRow
from ...urls import REFERENCE_FEEDBACK, REFERENCE_OUTCOME, REFERENCE_PAGE
from ..bodies import SafeBodyRoute
from ..deps import CatalogDep, LibraryDep
from ..guards import OptionalEditor, Writable, remember_signed_in, same_origin
from ..ratelimit import RateLimited, spend_budget
from ..templating import page, page_path
from ..views.calculator_panel import CalculatorPanel, build_panel, preset_inputs
from ..views.check_marks import carried_state, check_board, symptom_boards
from ..views.kept import KeptLink, set_owner
from ..views.log_view import linked_lines, log_view
from ..views.pagination import page_query, pager, twin_query
from ..views.paste import CONTEXT_LABELS, EXAMPLES, PasteForm, PasteLimits
from ..views.prefill import prefilled_calculator

router = APIRouter(
    include_in_schema=False,
    route_class=SafeBodyRoute,
    dependencies=[Depends(remember_signed_in)],
)


def paste_page(
    request: Request,
    catalog: Catalog,
    form: PasteForm,
    outcome: Outcome | None = None,
    error: InvalidInput | None = None,
    storing: bool = False,
    kept: KeptLink | None = None,
    not_kept: str = "",
) -> HTMLResponse:
    """The start page: the paste form, refilled, with results or an error when there are;
    a kept result says its link (`kept`), one that could not be kept says why."""
    shown, inferred_fields = (
        form.with_inferred(outcome.inferred) if outcome else (form, frozenset())
    )
    shown, not_echoed = shown.echoed()
    share = form.share_query() if outcome and outcome.kind == "match" and not kept else None
    scan = outcome.scan if outcome else None
    boards = symptom_boards(catalog.references, ranked_results(outcome), request.query_params)
    return page(
        request,
        "home.html",
        status=error.status if error else 200,
        form=shown,
        not_echoed=not_echoed,
        outcome=outcome,
        error=error,
        errors={error.field or "log": error.message} if error else {},
        inferred_fields=inferred_fields,
        context_labels=CONTEXT_LABELS,
        share_url=page_path(request, "home", share) if share else None,
        share_params=share,
        kept=kept,
        not_kept=not_kept,
        boards=boards,
        log_view=log_view(form.log, linked_lines(scan)) if scan else None,
        prefilled=prefilled_calculator(catalog, outcome, form.log) if outcome else None,
        storing=storing,
        paste_limits=PasteLimits.of(request.app.state.settings),
        over_limit=isinstance(error, LogTooLarge),
        examples=[e for e in EXAMPLES if e.reference_id in catalog.references],
        frameworks=[name for name, _ in facets(catalog).frameworks],
        phases=PHASES,
        reference_count=len(catalog.references),
        shelves=shelves(catalog, HOME_SHELF_SIZE),
        threshold=CONFIDENT_THRESHOLD,
        confidence_note=confidence_note(),
    )


def ranked_results(outcome: Outcome | None) -> list[tuple[str, list[CandidateMatch]]]:
    """Each reference a result shows, with its candidates ranked for the paste."""
    if outcome is None:
        return []
    found = [(card.match.id, card.match.candidates) for card in outcome.cards]
    if outcome.scan is not None:
        found += [(hit.id, hit.candidates) for hit in outcome.scan.hits]
        found += [(r.id, r.candidates) for r in outcome.scan.diagnosis.roots if r.id is not None]
    return found


def answer_paste(
    request: Request, library: Library, form: PasteForm, *, keep: bool = False
) -> Response:
    """Results for the form, or the form again with the problem (422). A single message
    that nothing matched confidently is remembered, redacted, for the gaps list. A code
    typed alone (`Xid 79`, `error 802`) that a reference owns goes to that reference. With
    `keep`, the paste is kept so that its result has a link, and the answer sends there
    (303): reloading it does not paste again."""
    catalog, generation = library.catalog, library.generation
    owner = reference_for_code(catalog, form.log)
    if owner is not None:
        target = request.app.url_path_for("reference_page", reference_id=owner)
        return RedirectResponse(target, status_code=303)
    try:
        outcome = analyse_paste(library, form.log, form.run_context(), remember=True)
    except InvalidInput as error:
        return paste_page(request, catalog, form, error=error)
    storing = library.settings.store_queries and not library.settings.read_only
    fresh = None
    if keep:
        fresh = library.kept.keep(form.log, form.context_values(), outcome, generation)
    if fresh is not None:
        target = page_path(request, "kept_result", token=fresh.token)
        response = RedirectResponse(target, status_code=303)
        set_owner(response, request, fresh)
        return response
    not_kept = not_kept_reason(library) if keep else ""
    return paste_page(request, catalog, form, outcome, storing=storing, not_kept=not_kept)


def not_kept_reason(library: Library) -> str:
    """Why a paste meant to be kept was not, in words for its results page."""
    if library.settings.read_only:
        return "this mirror keeps no pastes"
    if not library.settings.keep_results:
        return "this site keeps no pastes"
    return "too many pastes are waiting to be kept; try again in a minute"


@router.get("/", response_class=HTMLResponse, name="home")
def home(
    request: Request,
    library: LibraryDep,
    q: Annotated[str, Query(description="A short message to match: a shareable URL.")] = "",
    framework: Annotated[str, Query()] = "",
    phase: Annotated[str, Query()] = "",
    gpu: Annotated[str, Query()] = "",
    gpus: Annotated[str, Query()] = "",
    model: Annotated[str, Query()] = "",
    notes: Annotated[str, Query()] = "",
) -> Response:
    """The paste form and every reference; with `?q=` the results for that message."""
    form = PasteForm.of(
        q, framework=framework, phase=phase, gpu=gpu, gpus=gpus, model=model, notes=notes
    )
    if not q.strip():
        return paste_page(request, library.catalog, form)
    spend_budget(request)  # a shared link runs a match and may store a gap, like a paste
    return answer_paste(request, library, form)


@router.post("/", response_class=HTMLResponse, name="paste")
def paste(
    request: Request,
    library: LibraryDep,
    log: Annotated[str, Form()] = "",
    framework: Annotated[str, Form()] = "",
    phase: Annotated[str, Form()] = "",
    gpu: Annotated[str, Form()] = "",
    gpus: Annotated[str, Form()] = "",
    model: Annotated[str, Form()] = "",
    notes: Annotated[str, Form()] = "",
) -> Response:
    """Match a pasted message, or scan a pasted log, with the run context given, and send
    the browser to the result's own address (303): a short line's `/?q=` link, which
    matches it there, or the link of the kept paste."""
    form = PasteForm.of(
        log, framework=framework, phase=phase, gpu=gpu, gpus=gpus, model=model, notes=notes
    )
    share = form.share_query()
    if share is not None:
        return RedirectResponse(page_path(request, "home", share), status_code=303)
    spend_budget(request)
    return answer_paste(request, library, form, keep=True)


@router.get("/references", response_class=HTMLResponse, name="browse")
def browse(
    request: Request,
    catalog: CatalogDep,
    category: Annotated[str | None, Query()] = None,
    tag: Annotated[str | None, Query()] = None,
    framework: Annotated[str | None, Query()] = None,
    phase: Annotated[str | None, Query()] = None,
    q: Annotated[str | None, Query()] = None,
    number: Annotated[int, Query(alias="page", ge=1, description="Which page, from 1.")] = 1,
) -> HTMLResponse:
    """All references, filtered by category, tag, framework, phase and text, a page at a time."""
    filters = ReferenceFilter(category or None, tag or None, framework or None, phase or None, q)
    offset = (number - 1) * BROWSE_PAGE_SIZE
    found = page_of_references(catalog, filters, offset, BROWSE_PAGE_SIZE)
    if number > 1 and not found.references:
        raise NotFound(f"these references have no page {number}", field="page")
    query = asdict(filters)
    return page(
        request,
        "browse.html",
        references=found.references,
        filters=filters,
        facets=facets(catalog),
        total=len(catalog.references),
        pager=pager(number, found, lambda n: page_path(request, "browse", query | page_query(n))),
        json_twin=page_path(request, "api_list_references", query | twin_query(found)),
    )


@router.get("/references/format", response_class=HTMLResponse, name="format_guide")
def format_guide(request: Request, library: LibraryDep) -> HTMLResponse:
    """How a reference file is written: the references folder's README, the docs team's
    guide, rendered (the editor links here)."""
    guide = format_guide_html(library.settings.references_dir)
    if guide is None:
        raise NotFound("this references folder has no README.md: the format guide")
    return page(request, "format.html", guide_html=guide)


@router.get(REFERENCE_PAGE, response_class=HTMLResponse, name="reference_page")
def reference_page(
    request: Request, reference_id: str, library: LibraryDep, editor: OptionalEditor
) -> Response:
    """One reference; a former id (alias) redirects here permanently. Editors also see the
    readers' feedback and the edit and history links."""
    catalog = library.catalog
    current = resolve_alias(catalog, reference_id)
    if current is not None:
        target = request.app.url_path_for("reference_page", reference_id=current)
        return RedirectResponse(target, status_code=301)
    try:
        reference = get_reference(catalog, reference_id)
    except NotFound:
        return missing_reference(request, library, reference_id)
    none_counted: dict[int, int] = {}
    readers = read_or(
        library.side_storage,
        "readers' counts",
        lambda: outcome_counts(library, reference.id),
        none_counted,
    )
    board = check_board(reference, request.query_params, readers)
    panel = None
    if reference.calculator is not None:
        calculator = get_calculator(reference.calculator.name)
        preset = preset_inputs(calculator, reference.calculator.inputs)
        panel = build_panel(calculator, preset, request.query_params)
    inputs = [spec.name for spec in panel.calculator.inputs] if panel else []
    return page(
        request,
        "reference.html",
        status=panel_status(panel),
        reference=reference,
        board=board,
        carried=carried_state(request.query_params, board.checks, inputs),
        outcome_thanks=request.query_params.get("outcome") == "thanks",
        related=related_references(catalog, reference),
        panel=panel,
        editor=editor,
        feedback=feedback_counts(library, reference.id) if editor else None,
        thanks=request.query_params.get("feedback") == "thanks",
        saved=editor is not None and request.query_params.get("saved") == "1",
        replaced=replaced_here(library, reference.id, request.query_params.get("from")),
    )


def replaced_here(library: Library, reference_id: str, came_from: str | None) -> RetiredRow | None:
    """The retired reference a reader was sent here from, when this one replaced it."""
    if not came_from:
        return None
    found = read_or(
        library.side_storage, "a retirement", lambda: retirement(library, came_from), None
    )
    return found if found is not None and found.replaced_by == reference_id else None


def missing_reference(request: Request, library: Library, reference_id: str) -> Response:
    """A reference no longer served: sent on to what replaced it (301), its retirement
    said (410), or not found (404)."""
    retired = read_or(
        library.side_storage, "a retirement", lambda: retirement(library, reference_id), None
    )
    if retired is None:
        return page(request, "not_found.html", status=404, missing=reference_id[:100])
    successor = retired.replaced_by
    if successor is not None and successor in library.catalog.references:
        target = page_path(
            request, "reference_page", {"from": reference_id}, reference_id=successor
        )
        return RedirectResponse(target, status_code=301)
    return page(request, "retired.html", status=410, retired=retired)


@router.post(REFERENCE_FEEDBACK, name="reference_feedback")
def reference_feedback(
    request: Request,
    reference_id: str,
    library: LibraryDep,
    _writable: Writable,
    _budget: RateLimited,
    helpful: Annotated[Literal["yes", "no"], Form()],
    line: Annotated[str, Form(description="The line a result card matched, if any.")] = "",
) -> Response:
    """ "Did this help?" from a reader: counted, then back to the reference (204 for scripts).
    A "no" to a confident result card sends its line, redacted, to the gaps list."""
    same_origin(request)
    reference = get_reference(library.catalog, reference_id)
    record_feedback(library, reference.id, helpful == "yes", line)
    if request.headers.get("x-requested-with") == "fetch":
        return Response(status_code=204)
    target = page_path(request, "reference_page", {"feedback": "thanks"}, reference_id=reference.id)
    return RedirectResponse(target, status_code=303)


@router.post(REFERENCE_OUTCOME, name="reference_outcome")
def reference_outcome(
    request: Request,
    reference_id: str,
    library: LibraryDep,
    _writable: Writable,
    _budget: RateLimited,
    cause: Annotated[int, Form(description="The cause's number in the reference's list.")],
) -> Response:
    """ "This was it" from a reader for one cause: counted, shown on the cause, never used
    to rank; then back to that cause (204 for scripts)."""
    same_origin(request)
    reference = get_reference(library.catalog, reference_id)
    record_outcome(library, reference.id, cause)
    if request.headers.get("x-requested-with") == "fetch":
        return Response(status_code=204)
    target = page_path(request, "reference_page", {"outcome": "thanks"}, reference_id=reference.id)
    anchor = "candidate" if reference.kind == "symptom" else "cause"
    return RedirectResponse(f"{target}#{anchor}-{cause}", status_code=303)


def panel_status(panel: CalculatorPanel | None) -> int:
    """422 when the submitted calculator inputs are wrong; the page still shows."""
    return 422 if panel is not None and panel.has_errors else 200


@router.get("/calculators", response_class=HTMLResponse, name="calculator_list")
def calculator_list(request: Request, catalog: CatalogDep) -> HTMLResponse:
    """Every calculator, with the references whose worked example uses it."""
    used_by = {name: references_using(catalog, name) for name in CALCULATORS}
    return page(
        request, "calculators.html", calculators=list(CALCULATORS.values()), used_by=used_by
    )


@router.get("/calculators/{name}", response_class=HTMLResponse, name="calculator_page")
def calculator_page(request: Request, name: str, catalog: CatalogDep) -> HTMLResponse:
    """One calculator on its own, starting from its default inputs."""
    calculator = get_calculator(name)
    panel = build_panel(calculator, calculator.defaults(), request.query_params)
    return page(
        request,
        "calculator.html",
        status=panel_status(panel),
        panel=panel,
        used_by=references_using(catalog, name),
    )
