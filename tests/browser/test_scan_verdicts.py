"""In Chromium: a whole log with no root says which of two things it is. A healthy log
(a real vLLM start-up) says nothing in it looks like a failure and where the lines that
say why would be, and shows its start-up readings with their values as normal output; a
log whose errors no reference covers lists them, says what failref covers and offers
search, browse and the nearest titles, folded, with no result card."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from browser.test_pages import DESKTOP, PHONE, assert_clean, paste, shoot
from playwright.sync_api import Page, ViewportSize, expect

from failref.config import PROJECT_ROOT

HEALTHY_LOG = PROJECT_ROOT / "tests/data/wholelogs/healthy_vllm_server_startup.log"
UNCOVERED_ERROR = "RuntimeError: the tokenizer's chat template has no 'system' role"


@pytest.mark.parametrize(
    ("viewport", "shot"),
    [
        pytest.param(DESKTOP, "results-quiet-log", id="desktop"),
        pytest.param(PHONE, "phone-results-quiet-log", id="phone"),
    ],
)
def test_a_healthy_log_says_nothing_looks_like_a_failure(
    page: Page, console_errors: list[str], viewport: ViewportSize, shot: str, screenshots: Path
) -> None:
    page.set_viewport_size(viewport)
    paste(page, HEALTHY_LOG.read_text(encoding="utf-8"))
    expect(page.locator("h1")).to_have_text("Nothing in this log looks like a failure")
    expect(page.locator(".quiet-log .verdict")).to_contain_text("what a healthy run prints")
    expect(page.locator(".quiet-log")).to_contain_text("dmesg -T")
    expect(page.locator("li.card.confident")).to_have_count(0)
    expect(page.locator("details.nearest")).to_have_count(0)
    # vLLM's start-up readings are shown with their values, as normal output.
    expect(page.locator("#s-hits")).to_have_text(
        "Lines that resemble a reference, read as normal output"
    )
    reading = page.locator("li.card[data-reference-id='kv-cache-exhaustion'] .verdict-healthy")
    expect(reading).to_contain_text("concurrency = 7.85")
    shoot(page, screenshots, shot)
    assert_no_axe_violations(page)
    assert_clean(page, console_errors)


def test_a_log_whose_first_error_no_page_covers_starts_there(
    page: Page, console_errors: list[str]
) -> None:
    steps = [f"step {n} | loss {2 + n / 100:.3f} | lr 3e-4" for n in range(1, 40)]
    paste(page, "\n".join([*steps, UNCOVERED_ERROR]))
    expect(page.locator("h1")).to_have_text("Line 40: No reference covers this error yet")
    root = page.locator("li.card.root.uncovered")
    expect(root.locator("mark")).to_have_text(UNCOVERED_ERROR)
    expect(root.locator(".label")).to_have_text("start here")
    expect(page.locator("section.unrecognised code")).to_have_text(UNCOVERED_ERROR)
    assert_no_axe_violations(page)
    assert_clean(page, console_errors)


def test_a_log_of_errors_no_reference_covers_lists_them_and_where_to_look(
    page: Page, console_errors: list[str]
) -> None:
    steps = [f"step {n} | loss {2 + n / 100:.3f} | lr 3e-4" for n in range(1, 40)]
    looks_like_one = "a retry of the tokenizer download failed, trying the next mirror"
    paste(page, "\n".join([*steps, looks_like_one]))
    expect(page.locator("h1")).to_have_text("No reference covers the errors in this log")
    expect(page.locator(".no-match .verdict")).to_contain_text(
        "1 line of this log looks like an error, and no reference covers it"
    )
    expect(page.locator("section.unrecognised code")).to_have_text(looks_like_one)
    expect(page.locator("li.card")).to_have_count(0)
    nearest = page.locator("details.nearest")
    expect(nearest.locator("li").first).to_be_hidden()  # folded, titles only
    nearest.locator("summary").click()
    expect(nearest.locator("li").first).to_be_visible()
    assert_no_axe_violations(page)
    page.fill("#no-match-q", "tokenizer")
    with page.expect_navigation():
        page.locator("form.no-match-search").get_by_role("button", name="Search").click()
    assert "/references?q=tokenizer" in page.url
    assert_clean(page, console_errors)
