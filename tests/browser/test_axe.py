"""axe-core on every product page, the API page (/docs) included: no WCAG A/AA or
best-practice violation, heading order included."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from browser.axe import assert_no_axe_violations
from browser.conftest import LiveServer
from paths import LABELLED, REFERENCES
from playwright.sync_api import Page, ViewportSize

from failref.domain.calculators import CALCULATORS
from failref.domain.matching.authoring.labelled import read_labelled
from failref.services.editors import add_editor

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
REFERENCE_IDS = sorted(p.stem for p in REFERENCES.glob("*.md") if p.name != "README.md")
ANY_REFERENCE = "kv-cache-exhaustion"
EDITOR_NUMBERS = itertools.count(1)  # editor names are unique


def labelled_line(reference_id: str, containing: str) -> str:
    """The first labelled real line of `reference_id` that holds `containing`."""
    return next(
        line.text
        for line in read_labelled(LABELLED)
        if line.expected == reference_id and containing in line.text
    )


WATCHDOG = labelled_line("nccl-collective-timeout", "[Rank 2] Watchdog caught collective")
KV_CACHE = labelled_line("kv-cache-exhaustion", "No available memory for the cache blocks")
PROGRESS = [f"step {n}/2000 | loss 2.{n:03d} | tokens/s 101234" for n in range(1, 40)]
LOG = "\n".join([*PROGRESS, KV_CACHE, WATCHDOG])
UNKNOWN_ERROR = "RuntimeError: frobnicator exploded while reticulating splines"
WARNING = labelled_line("torch-compile-recompiles", "To diagnose recompilation issues")

# Pages anyone can open with a GET: path and status.
PUBLIC_PAGES = [
    pytest.param("/", 200, id="home"),
    pytest.param(f"/?q={WATCHDOG}", 200, id="results-symptom-line"),
    pytest.param(f"/?q={KV_CACHE}", 200, id="results-cause-line"),
    pytest.param("/?q=hello there, nothing to see", 200, id="results-no-match"),
    pytest.param("/references", 200, id="references"),
    pytest.param("/references/format", 200, id="format-guide"),
    pytest.param("/references?q=nccl", 200, id="references-query"),
    pytest.param("/references?q=zzzz-nothing", 200, id="references-query-empty"),
    pytest.param("/references?category=inference", 200, id="references-category"),
    pytest.param("/references?page=2", 200, id="references-page-2"),
    pytest.param("/calculators", 200, id="calculators"),
    *(pytest.param(f"/calculators/{name}", 200, id=f"calculator-{name}") for name in CALCULATORS),
    pytest.param("/calculators/kv-cache?layers=oops", 422, id="calculator-invalid-input"),
    pytest.param("/login", 200, id="login"),
    pytest.param("/docs", 200, id="api-docs"),
    pytest.param("/r/no-such-reference", 404, id="reference-not-found"),
    pytest.param("/no/such/page", 404, id="not-found"),
    pytest.param("/login?token=x", 422, id="error-page"),
    *(pytest.param(f"/r/{rid}", 200, id=f"reference-{rid}") for rid in REFERENCE_IDS),
]
# Pages behind the editor sign-in.
EDITOR_PAGES = [
    pytest.param(f"/r/{ANY_REFERENCE}", id="reference-as-editor"),
    pytest.param(f"/r/{ANY_REFERENCE}/edit", id="editor"),
    pytest.param(f"/r/{ANY_REFERENCE}/history", id="history"),
    pytest.param("/new", id="new-reference"),
    pytest.param("/admin/gaps", id="gaps"),
]


@pytest.mark.parametrize(("path", "status"), PUBLIC_PAGES)
def test_public_page_has_no_axe_violation(page: Page, path: str, status: int) -> None:
    response = page.goto(path)
    assert response is not None
    assert response.status == status
    assert_no_axe_violations(page)
    assert page.evaluate("window.__cspViolations") == []  # axe went in without breaking CSP


@pytest.mark.parametrize(
    ("log", "heading"),
    [
        pytest.param(LOG, "Line 40: KV-cache memory runs out", id="with-roots"),
        pytest.param(
            "\n".join([*PROGRESS, UNKNOWN_ERROR]),
            "Line 40: No reference covers this error yet",
            id="uncovered-root",
        ),
        pytest.param(
            "\n".join([*PROGRESS, "a retry failed, trying the next mirror"]),
            "No reference covers the errors in this log",
            id="unrecognised",
        ),
        pytest.param(
            "\n".join([*PROGRESS, WARNING]),
            "No failure in this log; some warnings match references",
            id="warnings",
        ),
        pytest.param("\n".join(PROGRESS), "Nothing in this log looks like a failure", id="quiet"),
    ],
)
def test_log_results_have_no_axe_violation(page: Page, log: str, heading: str) -> None:
    page.goto("/")
    page.fill("#log", log)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()
    assert page.locator("#results-title").inner_text().startswith(heading)
    assert_no_axe_violations(page)


@pytest.mark.parametrize("path", ["/", f"/?q={WATCHDOG}", f"/r/{ANY_REFERENCE}", "/docs"])
def test_phone_width_has_no_axe_violation(open_page: Callable[..., Page], path: str) -> None:
    tab = open_page(viewport=PHONE)
    tab.goto(path)
    assert_no_axe_violations(tab)


@pytest.fixture
def editor_page(page: Page, live_server: LiveServer) -> Page:
    """A desktop page signed in as an editor."""
    library = live_server.server.config.app.state.library
    token = add_editor(library, f"axe-{next(EDITOR_NUMBERS)}")
    page.goto("/login")
    page.fill("input[name=token]", token)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    return page


@pytest.mark.parametrize("path", EDITOR_PAGES)
def test_editor_page_has_no_axe_violation(editor_page: Page, path: str) -> None:
    response = editor_page.goto(path)
    assert response is not None
    assert response.status == 200
    assert_no_axe_violations(editor_page)


def test_editor_preview_has_no_axe_violation(editor_page: Page) -> None:
    editor_page.goto(f"/r/{ANY_REFERENCE}/edit")
    with editor_page.expect_navigation():
        editor_page.get_by_role("button", name="Preview").click()
    assert editor_page.locator("#preview-title").is_visible()
    assert_no_axe_violations(editor_page)
