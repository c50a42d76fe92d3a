"""HTML pages; each is built from the same domain functions as its JSON twin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.analysis import looks_like_a_log, match_message, scan_text
from app.bodies import SafeBodyRoute
from app.calculations import find_calculator
from app.calculator_panel import CalculatorPanel, build_panel, preset_inputs
from app.calculators import CALCULATORS
from app.catalog import Catalog
from app.config import Settings
from app.deps import CatalogDep, LibraryDep
from app.document import PHASES
from app.errors import InvalidInput, NotFound
from app.feedback import feedback_counts, record_feedback
from app.gaps import remember_if_unanswered
from app.guards import OptionalEditor, same_origin
from app.library import Library
from app.matcher import CONFIDENT_THRESHOLD, Match, RunContext, ScanResult
from app.paste import CONTEXT_LABELS, EXAMPLES, Highlight, PasteForm, highlight
from app.queries import (
    ReferenceFilter,
    facets,
    get_reference,
    list_references,
    references_using,
    related_references,
    resolve_alias,
)
from app.ratelimit import RateLimited, spend_budget
from app.templating import page, page_path

# Ranked cards for one message: more than a person reads before opening one.
MATCH_LIMIT = 5
# When a log has no hit, its last lines (where a job's fatal error usually is) are matched
# as one message to name the closest references; the whole log would cost a second.
LOG_TAIL_LINES = 400
router = APIRouter(include_in_schema=False, route_class=SafeBodyRoute)


def error_page(request: Request, status: int, message: str) -> Response:
    """The HTML side of the error contract (the JSON side lives in errors.py)."""
    return page(request, "error.html", status=status, status_code=status, message=message)


@dataclass(frozen=True, slots=True)
class MatchCard:
    """One ranked reference for a pasted message, with where it matched the text."""

    match: Match
    highlight: Highlight | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a paste gave: ranked cards for a message, or a scan of a whole log."""

    kind: Literal["match", "scan"]
    cards: tuple[MatchCard, ...]
    scan: ScanResult | None
    inferred: dict[str, str]

    @property
    def confident(self) -> bool:
        if self.scan is not None:
            return any(hit.confident for hit in self.scan.hits)
        return any(card.match.confident for card in self.cards)


def analyse(catalog: Catalog, settings: Settings, form: PasteForm) -> Outcome:
    """Match one message or scan a whole log; InvalidInput for an empty or oversized paste."""
    if not form.log.strip():
        raise InvalidInput("Paste a log line, a traceback or a whole log first.", field="log")
    context = form.run_context()
    if looks_like_a_log(form.log):
        scan = scan_text(catalog, form.log, context, settings.max_log_lines)
        closest = () if scan.hits else _closest_in_log(catalog, form.log, context)
        return Outcome("scan", closest, scan, scan.inferred_context)
    result = match_message(catalog, form.log, context, MATCH_LIMIT)
    cards = tuple(MatchCard(match, highlight(form.log, match)) for match in result.matches)
    return Outcome("match", cards, None, result.inferred_context)


def _closest_in_log(catalog: Catalog, log: str, context: RunContext) -> tuple[MatchCard, ...]:
    tail = "\n".join(log.splitlines()[-LOG_TAIL_LINES:])
    result = match_message(catalog, tail, context, MATCH_LIMIT)
    return tuple(MatchCard(match, None) for match in result.matches)


def paste_page(
    request: Request,
    catalog: Catalog,
    form: PasteForm,
    outcome: Outcome | None = None,
    error: InvalidInput | None = None,
) -> HTMLResponse:
    """The start page: the paste form, refilled, with results or an error when there are."""
    shown, inferred_fields = (
        form.with_inferred(outcome.inferred) if outcome else (form, frozenset())
    )
    share = form.share_query() if outcome and outcome.kind == "match" else None
    return page(
        request,
        "home.html",
        status=error.status if error else 200,
        form=shown,
        outcome=outcome,
        error=error,
        errors={error.field or "log": error.message} if error else {},
        inferred_fields=inferred_fields,
        context_labels=CONTEXT_LABELS,
        share_url=page_path(request, "home", share) if share else None,
        examples=[e for e in EXAMPLES if e.reference_id in catalog.references],
        frameworks=[name for name, _ in facets(catalog).frameworks],
        phases=PHASES,
        references=list_references(catalog, ReferenceFilter()),
        threshold=CONFIDENT_THRESHOLD,
    )


def answer_paste(request: Request, library: Library, form: PasteForm) -> HTMLResponse:
    """Results for the form, or the form again with the problem (422). A single message
    that nothing matched confidently is remembered, redacted, for the gaps list."""
    catalog = library.catalog
    try:
        outcome = analyse(catalog, library.settings, form)
    except InvalidInput as error:
        return paste_page(request, catalog, form, error=error)
    if outcome.kind == "match":
        remember_if_unanswered(library.engine, library.settings, form.log, outcome.confident)
    return paste_page(request, catalog, form, outcome)


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
) -> HTMLResponse:
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
    _budget: RateLimited,
    log: Annotated[str, Form()] = "",
    framework: Annotated[str, Form()] = "",
    phase: Annotated[str, Form()] = "",
    gpu: Annotated[str, Form()] = "",
    gpus: Annotated[str, Form()] = "",
    model: Annotated[str, Form()] = "",
    notes: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Match a pasted message, or scan a pasted log, with the run context given."""
    form = PasteForm.of(
        log, framework=framework, phase=phase, gpu=gpu, gpus=gpus, model=model, notes=notes
    )
    return answer_paste(request, library, form)


@router.get("/references", response_class=HTMLResponse, name="browse")
def browse(
    request: Request,
    catalog: CatalogDep,
    category: Annotated[str | None, Query()] = None,
    tag: Annotated[str | None, Query()] = None,
    framework: Annotated[str | None, Query()] = None,
    phase: Annotated[str | None, Query()] = None,
    q: Annotated[str | None, Query()] = None,
) -> HTMLResponse:
    """All references, filtered by category, tag, framework, phase and text."""
    filters = ReferenceFilter(category or None, tag or None, framework or None, phase or None, q)
    return page(
        request,
        "browse.html",
        references=list_references(catalog, filters),
        filters=filters,
        facets=facets(catalog),
        total=len(catalog.references),
    )


@router.get("/r/{reference_id}", response_class=HTMLResponse, name="reference_page")
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
        return page(request, "not_found.html", status=404, missing=reference_id[:100])
    panel = None
    if reference.calculator is not None:
        calculator = find_calculator(reference.calculator.name)
        preset = preset_inputs(calculator, reference.calculator.inputs)
        panel = build_panel(calculator, preset, request.query_params)
    return page(
        request,
        "reference.html",
        status=panel_status(panel),
        reference=reference,
        related=related_references(catalog, reference),
        panel=panel,
        editor=editor,
        feedback=feedback_counts(library.engine, reference.id) if editor else None,
        thanks=request.query_params.get("feedback") == "thanks",
        saved=editor is not None and request.query_params.get("saved") == "1",
    )


@router.post("/r/{reference_id}/feedback", name="reference_feedback")
def reference_feedback(
    request: Request,
    reference_id: str,
    library: LibraryDep,
    _budget: RateLimited,
    helpful: Annotated[Literal["yes", "no"], Form()],
) -> Response:
    """ "Did this help?" from a reader: counted, then back to the reference (204 for scripts)."""
    same_origin(request)
    reference = get_reference(library.catalog, reference_id)
    record_feedback(library.engine, reference.id, helpful == "yes")
    if request.headers.get("x-requested-with") == "fetch":
        return Response(status_code=204)
    target = page_path(request, "reference_page", {"feedback": "thanks"}, reference_id=reference.id)
    return RedirectResponse(target, status_code=303)


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
    calculator = find_calculator(name)
    panel = build_panel(calculator, calculator.defaults(), request.query_params)
    return page(
        request,
        "calculator.html",
        status=panel_status(panel),
        panel=panel,
        used_by=references_using(catalog, name),
    )
