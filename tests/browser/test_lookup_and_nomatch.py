"""In Chromium: a paste nothing matches gets a plain page that says what failref covers,
whether the text was kept, and offers search and browse; a code typed alone goes straight
to the reference that owns it."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from playwright.sync_api import Page, expect

from failref.config import PROJECT_ROOT

pytestmark = pytest.mark.browser

SHIPPED = len(list((PROJECT_ROOT / "references").glob("*.md"))) - 1  # less README.md
NOTHING_LIKE_IT = "the coffee machine on floor 3 prints E42 when the tank is empty"
DEPRECATION = (
    "/usr/lib/python3.10/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:690:"
    " FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated."
)


def paste(page: Page, text: str) -> None:
    page.goto("/")
    page.fill("#log", text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()


@pytest.mark.parametrize(
    ("width", "height", "shot"),
    [
        pytest.param(1280, 900, "results-no-match", id="desktop"),
        pytest.param(390, 844, "phone-results-no-match", id="phone"),
    ],
)
def test_no_match_is_said_plainly_with_coverage_search_and_browse(
    page: Page, console_errors: list[str], width: int, height: int, shot: str, screenshots: Path
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    paste(page, NOTHING_LIKE_IT)
    expect(page.locator("h1")).to_have_text("No reference matches this text")
    section = page.locator("section.no-match")
    expect(section).to_contain_text("GPU training and inference")
    expect(section).to_contain_text(f"{SHIPPED} references")
    expect(section.locator(".kept")).to_have_text(
        "Your text was kept, redacted, so the docs team sees what to write next."
    )
    expect(page.locator("figure.excerpt")).to_have_count(0)  # no "matched in your text"
    expect(page.locator("li.card.result")).to_have_count(0)
    page.screenshot(path=screenshots / f"{shot}.png")
    assert_no_axe_violations(page)
    page.fill("#no-match-q", "kv cache")
    with page.expect_navigation():
        page.locator("form.no-match-search").get_by_role("button", name="Search").click()
    assert "/references?q=kv+cache" in page.url
    expect(page.locator("a[href='/r/kv-cache-exhaustion']").first).to_be_visible()
    assert console_errors == []


def test_a_pasted_warning_leads_to_the_page_of_harmless_warnings(
    page: Page, console_errors: list[str], screenshots: Path
) -> None:
    paste(page, DEPRECATION)
    expect(page.locator("h1")).to_have_text("No reference matches this text")
    lead = page.locator("#lead-title a")
    expect(lead).to_have_attribute("href", "/r/harmless-warnings")
    expect(page.locator("main")).to_contain_text("every line of your text is a warning")
    page.screenshot(path=screenshots / "results-warning-lead.png")
    with page.expect_navigation():
        lead.click()
    assert page.url.endswith("/r/harmless-warnings")
    assert console_errors == []


@pytest.mark.parametrize(
    ("typed", "reference_id"),
    [
        pytest.param("Xid 79", "xid-79-fallen-off-bus", id="xid-79"),
        pytest.param("xid 48", "hbm-memory-failures", id="xid-48"),
        pytest.param("error 802", "nvswitch-fabric-manager", id="cuda-802"),
        pytest.param("ncclRemoteError", "nccl-network-transport-errors", id="nccl-name"),
        pytest.param("ncclSystemError", "nccl-internal-errors", id="nccl-system"),
        pytest.param("SXid 20034", "nvlink-errors", id="sxid-20034"),
        pytest.param("DCGM error 80", "hbm-memory-failures", id="dcgm-80"),
        pytest.param("dcgm 85", "hbm-memory-failures", id="dcgm-85"),
        pytest.param("DCGM error 4", "hbm-memory-failures", id="dcgm-4"),
        pytest.param("dcgm 99", "allreduce-slow-link", id="dcgm-99"),
    ],
)
def test_a_code_typed_alone_goes_to_the_reference_that_owns_it(
    page: Page, console_errors: list[str], typed: str, reference_id: str
) -> None:
    paste(page, typed)
    assert page.url.endswith(f"/r/{reference_id}")
    expect(page.locator("h1")).to_be_visible()
    assert console_errors == []


@pytest.mark.parametrize(
    ("query", "reference_id"),
    [
        pytest.param("xid+79", "xid-79-fallen-off-bus", id="xid-79"),
        pytest.param("sxid+20034", "nvlink-errors", id="sxid-20034"),
        pytest.param("dcgm+error+80", "hbm-memory-failures", id="dcgm-80"),
    ],
)
def test_searching_the_references_for_a_code_finds_its_owner(
    page: Page, query: str, reference_id: str
) -> None:
    page.goto(f"/references?q={query}")
    cards = page.locator("main a[href^='/r/']")
    expect(cards.first).to_have_attribute("href", f"/r/{reference_id}")
    assert {cards.nth(i).get_attribute("href") for i in range(cards.count())} == {
        f"/r/{reference_id}"
    }
