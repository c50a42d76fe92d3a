"""Issue 34, item 2, in Chromium: a pasted log's result has its own address; reloading it
sends no paste again; its checks re-rank at that address; the link opened by someone else
(another browser, no cookie) shows the result from the kept, redacted copy."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from browser.axe import assert_no_axe_violations
from browser.conftest import LiveServer
from browser.test_pages import PHONE, WATCHDOG, assert_clean, paste, shoot, training_log
from browser.test_results_next_steps import CONFIRMS_DESYNC, mark
from playwright.sync_api import Page, Request, expect

from failref.services.library import Library

RESULT_URL = re.compile(r"/results/[A-Za-z0-9_-]{22}$")
CARD = "li.root[data-reference-id='nccl-collective-timeout']"


def posts(page: Page) -> list[str]:
    """The URLs of the POST requests the page makes from now on."""
    sent: list[str] = []

    def record(request: Request) -> None:
        if request.method == "POST":
            sent.append(request.url)

    page.on("request", record)
    return sent


def test_a_pasted_log_has_an_address_that_reloads_without_posting(
    page: Page, console_errors: list[str], screenshots: Path
) -> None:
    paste(page, training_log({200: WATCHDOG}))
    assert RESULT_URL.search(page.url)
    expect(page.locator("h1")).to_contain_text("Line 200")
    link = page.locator(".share.kept a")
    expect(link).to_have_text(page.url)
    sent = posts(page)
    page.reload()
    assert sent == []
    expect(page.locator("h1")).to_contain_text("Line 200")
    shoot(page, screenshots, "results-kept-link", height=1400)
    assert_no_axe_violations(page)
    assert_clean(page, console_errors)


def test_checks_re_rank_a_kept_result_at_its_address(page: Page) -> None:
    paste(page, training_log({200: WATCHDOG}))
    address = page.url
    card = page.locator(CARD)
    card.locator("details.mark-checks > summary").click()
    mark(page, CARD, 1, CONFIRMS_DESYNC)
    with page.expect_navigation():
        card.get_by_role("button", name="Re-rank the candidates").click()
    assert page.url.startswith(address + "?")
    assert "check1=confirms-6" in page.url
    first = page.locator(CARD).locator(".candidates > ol > li").first
    expect(first).to_contain_text("confirmed by check 1")


def test_the_link_opened_elsewhere_shows_the_kept_copy(
    open_page: Callable[..., Page],
    live_server: LiveServer,
    console_errors: list[str],
    screenshots: Path,
) -> None:
    paster = open_page()
    paste(paster, training_log({200: WATCHDOG}).replace("loss", "loss on gpu-node-17.internal"))
    address = paster.url
    expect(paster.locator(".share.kept")).to_contain_text("your paste as sent")
    library: Library = live_server.server.config.app.state.library  # type: ignore[attr-defined]
    assert library.kept.flush(timeout=60)  # stored (its "on its way" page: route tests)
    reader = open_page(viewport=PHONE)
    reader.goto(address)
    expect(reader.locator("h1")).to_contain_text("Line 200")
    expect(reader.locator(".share.kept")).to_contain_text("worked out from that kept copy")
    expect(reader.locator("#log")).not_to_contain_text("gpu-node-17")
    shoot(reader, screenshots, "phone-results-kept-link", height=1400)
    assert_no_axe_violations(reader)
    assert_clean(reader, console_errors)
