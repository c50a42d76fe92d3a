"""The API page (/docs) in Chromium, at desktop and phone width: the site's header, type and
colours, each operation once, the MCP tools, and a "try it" form that sends its body."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from browser.conftest import DESKTOP
from playwright.sync_api import Page, ViewportSize, expect

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
# Each width's screenshot: the top of the page, down to the first operation.
WIDTHS = [
    pytest.param(DESKTOP, "api-docs.png", 2100, id="desktop"),
    pytest.param(PHONE, "phone-api-docs.png", 2400, id="phone"),
]
MATCH = "post-api-v1-match"


@pytest.mark.parametrize(("viewport", "shot", "shot_height"), WIDTHS)
def test_the_api_page_wears_the_site_and_lists_each_operation_once(
    open_page: Callable[..., Page],
    console_errors: list[str],
    screenshots: Path,
    viewport: ViewportSize,
    shot: str,
    shot_height: int,
) -> None:
    page = open_page(viewport=viewport)
    page.goto("/docs")
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="API")
    ).to_have_attribute("aria-current", "page")
    font = page.evaluate("getComputedStyle(document.querySelector('h1')).fontFamily")
    assert font.startswith("system-ui"), font
    assert "times" not in font.lower()
    saves = page.locator("h3", has_text="PUT /api/v1/references/{reference_id}")
    expect(saves).to_have_count(1)
    expect(page.locator("h3[id^=tool-]")).to_have_count(5)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert_no_axe_violations(page)
    clip = {"x": 0, "y": 0, "width": viewport["width"], "height": shot_height}
    page.screenshot(path=screenshots / shot, full_page=True, clip=clip)
    assert page.evaluate("window.__cspViolations") == []
    assert console_errors == []


@pytest.mark.parametrize(
    ("body", "status", "shown"),
    [
        pytest.param(None, "200 OK", '"matches"', id="example"),
        pytest.param('{"log": " ", "limit": 0}', "422", '"field": "limit"', id="wrong-fields"),
    ],
)
def test_try_it_sends_the_body_and_shows_the_answer(
    page: Page, console_errors: list[str], body: str | None, status: str, shown: str
) -> None:
    page.goto(f"/docs#{MATCH}")
    form = page.locator("form.try-it[action='/api/v1/match']")
    expect(form).to_be_visible()
    if body is not None:
        form.get_by_label("Try it: the body to send").fill(body)
    form.get_by_role("button", name="Send POST /api/v1/match").click()
    expect(form.get_by_role("status")).to_contain_text(status)
    expect(form.locator(".try-answer")).to_contain_text(shown)
    assert [error for error in console_errors if "422" not in error] == []


def test_without_javascript_the_forms_stay_hidden_and_curl_remains(
    open_page: Callable[..., Page],
) -> None:
    page = open_page(javascript=False)
    page.goto("/docs")
    expect(page.locator("form.try-it").first).to_be_hidden()
    expect(page.locator(f"#{MATCH} ~ pre code").first).to_contain_text("curl -sS -X POST")
