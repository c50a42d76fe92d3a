"""Pastes over the form's limits in Chromium get the site's page with the limits in lines
and bytes and how to send less. (That the default limit takes 100,000 lines is tested on
the route, tests/web/routes/test_pages.py: a 12 MB page is slow to draw, not to answer.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from failref.config import Settings

pytestmark = pytest.mark.browser

MAX_LINES = 40
MAX_BODY_BYTES = 8_000
HINT = "tail -n 5000 train.log | failref scan -"


@pytest.fixture(scope="module")
def small_url(
    tmp_path_factory: pytest.TempPathFactory, start_live_server: Callable[[Settings], str]
) -> str:
    """The app on the shipped references with small paste limits."""
    folder = tmp_path_factory.mktemp("small")
    settings = Settings(
        database_url=f"sqlite:///{folder / 'failref.db'}",
        max_log_lines=MAX_LINES,
        max_body_bytes=MAX_BODY_BYTES,
    )
    return start_live_server(settings)


@pytest.fixture
def small_page(browser: Browser, small_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=small_url)
    yield context.new_page()
    context.close()


def progress_log(lines: int) -> str:
    return "\n".join(f"[rank0]: step {number}/20000 | loss 2.1234" for number in range(lines))


def submit(page: Page, text: str) -> None:
    page.goto("/")
    page.fill("#log", text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()


def assert_limits_and_hint(page: Page) -> None:
    limits = page.locator("#paste-limits")
    expect(limits).to_contain_text(f"{MAX_LINES} lines")
    expect(limits).to_contain_text(f"{MAX_BODY_BYTES:,} bytes")
    expect(limits.locator("code")).to_have_text(HINT)


def test_a_paste_over_the_line_limit_keeps_the_form_and_says_the_limits(
    small_page: Page,
) -> None:
    submit(small_page, progress_log(MAX_LINES + 5))
    expect(small_page.locator("#form-error")).to_contain_text("over the 40-line limit")
    assert_limits_and_hint(small_page)


def test_a_paste_over_the_body_limit_gets_the_styled_page_with_the_limits(
    small_page: Page,
) -> None:
    submit(small_page, "x" * MAX_BODY_BYTES)
    expect(small_page.locator("h1")).to_have_text("413")
    expect(small_page.locator(".error-message")).to_contain_text("8000-byte limit")
    assert_limits_and_hint(small_page)
    expect(small_page.locator("link[rel='stylesheet']")).to_have_count(1)  # the site's page
