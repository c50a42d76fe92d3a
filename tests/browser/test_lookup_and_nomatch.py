"""In Chromium: a paste nothing matches gets a plain page that says what failref covers,
whether the text was kept, and offers search and browse; a code typed alone goes straight
to the reference that owns it."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from playwright.sync_api import Page, expect

from app.config import PROJECT_ROOT

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/w18b-shots")
SHIPPED = len(list((PROJECT_ROOT / "references").glob("*.md"))) - 1  # less README.md
NOTHING_LIKE_IT = "the coffee machine on floor 3 prints E42 when the tank is empty"


def paste(page: Page, text: str) -> None:
    page.goto("/")
    page.fill("#log", text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()


@pytest.mark.parametrize(
    ("width", "height"), [pytest.param(1280, 900, id="desktop"), pytest.param(390, 844, id="phone")]
)
def test_no_match_is_said_plainly_with_coverage_search_and_browse(
    page: Page, console_errors: list[str], width: int, height: int
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
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SHOTS / f"no-match-{width}.png")
    assert_no_axe_violations(page)
    page.fill("#no-match-q", "kv cache")
    with page.expect_navigation():
        page.locator("form.no-match-search").get_by_role("button", name="Search").click()
    assert "/references?q=kv+cache" in page.url
    expect(page.locator("a[href='/r/kv-cache-exhaustion']").first).to_be_visible()
    assert console_errors == []
