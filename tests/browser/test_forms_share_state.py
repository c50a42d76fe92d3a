"""A reference page's two forms, the evidence-check marks and the calculator, keep each
other's state in the URL, with and without JavaScript: re-ranking keeps the calculator's
inputs and calculating keeps the marks. On allreduce-slow-link, check 1 can show "rules
out cause 1" and the calculator's Workers default to 256."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from browser.axe import assert_no_axe_violations
from playwright.sync_api import Page, ViewportSize, expect

REFERENCE = "/r/allreduce-slow-link"
CHECKS = "section[aria-labelledby=s-checks]"
VIEWPORTS: tuple[tuple[ViewportSize, str], ...] = (
    ({"width": 1280, "height": 900}, "desktop"),
    ({"width": 390, "height": 844}, "phone"),
)


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def rule_out_check_1(page: Page) -> None:
    choice = page.locator(CHECKS).get_by_role("combobox", name=re.compile(r"^Check 1:"))
    choice.select_option("rules_out")
    with page.expect_navigation():
        page.get_by_role("button", name="Re-rank the causes").click()


def calculate(page: Page) -> None:
    with page.expect_navigation():
        page.locator("#calculator").get_by_role("button", name="Calculate").click()


def test_without_javascript_each_form_keeps_the_other_s_values(
    open_page: Callable[..., Page],
) -> None:
    page = open_page(javascript=False)
    page.goto(REFERENCE)
    page.fill("#calc-workers", "64")
    calculate(page)
    assert query(page)["workers"] == ["64"]
    rule_out_check_1(page)
    assert query(page)["check1"] == ["rules_out"]
    assert query(page)["workers"] == ["64"]  # re-ranking kept the calculator
    expect(page.locator("#calc-workers")).to_have_value("64")
    page.fill("#calc-steps", "500")
    calculate(page)
    assert query(page)["check1"] == ["rules_out"]  # calculating kept the mark
    assert query(page)["steps"] == ["500"]
    expect(page.locator(f"{CHECKS} select[name=check1]")).to_have_value("rules_out")
    expect(page.locator(".rerank-note")).to_be_visible()


def test_with_javascript_the_live_calculator_and_the_marks_share_the_address(
    open_page: Callable[..., Page], console_errors: list[str], screenshots: Path
) -> None:
    page = open_page()
    page.goto(f"{REFERENCE}?check1=rules_out")
    page.fill("#calc-workers", "64")  # live: the address follows, the mark stays in it
    page.wait_for_url(re.compile(r"workers=64"))
    assert query(page)["check1"] == ["rules_out"]
    page.fill("#calc-steps", "500")
    page.wait_for_url(re.compile(r"steps=500"))
    rule_out_check_1(page)
    assert query(page)["workers"] == ["64"]
    assert query(page)["steps"] == ["500"]
    assert query(page)["check1"] == ["rules_out"]
    expect(page.locator("#calc-workers")).to_have_value("64")
    # The live panel sends only its own inputs, never the carried marks, to the API.
    page.fill("#calc-workers", "32")
    page.wait_for_url(re.compile(r"workers=32"))
    expect(page.locator("#calc-workers-error")).to_be_hidden()
    expect(page.locator("[data-outputs-caption]")).to_have_text("Outputs")
    calculate(page)
    assert query(page)["check1"] == ["rules_out"]
    assert query(page)["workers"] == ["32"]
    for viewport, name in VIEWPORTS:
        page.set_viewport_size(viewport)
        page.locator("#calculator").scroll_into_view_if_needed()
        page.screenshot(path=screenshots / f"{name}-reference-marks-and-calculator.png")
    assert_no_axe_violations(page)
    assert console_errors == []
