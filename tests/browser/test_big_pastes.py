"""Big pastes in Chromium. A paste over the form's limits is stopped in the browser before
it is sent, with the limits in lines and bytes and how to send less; without JavaScript the
server says the same. A paste too big to copy back into the form is answered without it.
(That the default limit takes 100,000 lines is tested on the route,
tests/web/routes/test_pages.py.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from failref.config import Settings
from failref.web.views.paste import ECHO_MAX_CHARS

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
def small_page(open_page: Callable[..., Page], small_url: str) -> Page:
    return open_page(base_url=small_url)


@pytest.fixture
def small_page_without_js(open_page: Callable[..., Page], small_url: str) -> Page:
    return open_page(base_url=small_url, javascript=False)


def progress_log(lines: int) -> str:
    return "\n".join(f"[rank0]: step {number}/20000 | loss 2.1234" for number in range(lines))


def fill(page: Page, text: str) -> None:
    page.goto("/")
    page.fill("#log", text)


def submit(page: Page, text: str) -> None:
    fill(page, text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()


def assert_limits_and_hint(page: Page) -> None:
    limits = page.locator("#paste-limits")
    expect(limits).to_be_visible()
    expect(limits).to_contain_text(f"{MAX_LINES} lines")
    expect(limits).to_contain_text(f"{MAX_BODY_BYTES:,} bytes")
    expect(limits.locator("code")).to_have_text(HINT)


def assert_stopped_in_the_browser(page: Page, text: str, says: str) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.method))
    page.get_by_role("button", name="Find references").click()
    expect(page.locator("#paste-over")).to_contain_text(says)
    assert_limits_and_hint(page)
    assert "POST" not in requests
    expect(page.locator("#log")).to_have_value(text)
    expect(page.locator("#log")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("button", name="Find references")).to_be_enabled()


def test_the_limits_stay_hidden_until_a_paste_is_over_them(small_page: Page) -> None:
    small_page.goto("/")
    expect(small_page.locator("#paste-limits")).to_be_hidden()
    expect(small_page.locator("#paste-over")).to_be_hidden()


def test_a_paste_over_the_line_limit_is_stopped_before_it_is_sent(small_page: Page) -> None:
    text = progress_log(MAX_LINES + 5)
    fill(small_page, text)
    assert_stopped_in_the_browser(small_page, text, "45 lines, over the 40-line limit")


def test_a_paste_over_the_body_limit_is_stopped_before_it_is_sent(small_page: Page) -> None:
    text = "x" * MAX_BODY_BYTES
    fill(small_page, text)
    assert_stopped_in_the_browser(small_page, text, "over the 8,000-byte limit")


def test_a_paste_within_the_limits_after_one_over_them_is_sent(small_page: Page) -> None:
    fill(small_page, progress_log(MAX_LINES + 5))
    small_page.get_by_role("button", name="Find references").click()
    expect(small_page.locator("#paste-over")).to_be_visible()
    small_page.fill("#log", progress_log(MAX_LINES))
    with small_page.expect_navigation():
        small_page.get_by_role("button", name="Find references").click()
    expect(small_page.locator("#paste-over")).to_be_hidden()
    expect(small_page.locator("h1")).to_contain_text("Nothing in this log looks like a failure")


def test_without_javascript_the_server_refuses_too_many_lines_with_the_limits(
    small_page_without_js: Page,
) -> None:
    submit(small_page_without_js, progress_log(MAX_LINES + 5))
    expect(small_page_without_js.locator("#form-error")).to_contain_text("over the 40-line limit")
    assert_limits_and_hint(small_page_without_js)


def test_without_javascript_a_body_over_the_limit_gets_the_styled_page_with_the_limits(
    small_page_without_js: Page,
) -> None:
    submit(small_page_without_js, "x" * MAX_BODY_BYTES)
    expect(small_page_without_js.locator("h1")).to_have_text("413")
    expect(small_page_without_js.locator(".error-message")).to_contain_text("8000-byte limit")
    assert_limits_and_hint(small_page_without_js)
    expect(small_page_without_js.locator("link[rel='stylesheet']")).to_have_count(1)


def test_a_paste_too_big_to_copy_back_is_answered_without_it(page: Page, screenshots: Path) -> None:
    line = "[2025-03-01 10:00:00,123] [INFO] [rank0]: step {} | loss 2.1234 | lr 3.0e-04"
    lines = ECHO_MAX_CHARS // len(line) + 100
    text = "\n".join(line.format(n) for n in range(lines))
    submit(page, text)
    expect(page.locator("h1")).to_contain_text("Nothing in this log looks like a failure")
    expect(page.locator("#log")).to_have_value("")
    note = page.locator("#log-not-echoed")
    expect(note).to_contain_text(f"{lines:,} lines")
    expect(note).to_contain_text("paste it again")
    expect(page.locator("#log")).to_have_attribute("aria-describedby", "log-not-echoed")
    note.scroll_into_view_if_needed()
    page.screenshot(path=screenshots / "big-paste-not-echoed.png")
