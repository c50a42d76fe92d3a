"""The browse page a page at a time, in Chromium: the pager's links keep the filters, mark
the page shown, and lead forward and back; the page passes axe."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable

import pytest
from browser.axe import assert_no_axe_violations
from paths import GOOD
from playwright.sync_api import Page, expect
from reference_helpers import LONG_INFERENCE, LONG_TRAINING, write_references

from failref.config import BROWSE_PAGE_SIZE, Settings

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def long_url(
    tmp_path_factory: pytest.TempPathFactory, start_live_server: Callable[[Settings], str]
) -> str:
    """The app on the fixture references and the long list's (60 of them inference)."""
    folder = tmp_path_factory.mktemp("long")
    references = folder / "references"
    shutil.copytree(GOOD, references)
    write_references(references, LONG_TRAINING)
    write_references(references, LONG_INFERENCE, "inference")
    settings = Settings(
        database_url=f"sqlite:///{folder / 'failref.db'}", references_dir=references
    )
    return start_live_server(settings)


@pytest.fixture
def long_page(open_page: Callable[..., Page], long_url: str) -> Page:
    return open_page(base_url=long_url)


def test_next_and_previous_keep_the_filters_and_mark_the_page(
    long_page: Page, long_url: str, console_errors: list[str]
) -> None:
    page = long_page
    page.goto("/references?category=inference")
    pager = page.get_by_role("navigation", name="Pages of references")
    cards = page.locator("ul.cards > li.card")
    expect(cards).to_have_count(BROWSE_PAGE_SIZE)
    expect(pager.locator("[aria-current=page]")).to_have_text("Page 1")
    pager.get_by_role("link", name="Next page").click()
    expect(page).to_have_url(f"{long_url}/references?category=inference&page=2")
    expect(cards).to_have_count(len(LONG_INFERENCE) - BROWSE_PAGE_SIZE)
    expect(cards.first.get_by_role("link")).to_have_text("Numbered reference 120")
    expect(page.locator("h2.count")).to_have_text("60 of 132 references: 51–60 on page 2 of 2")
    expect(page.get_by_label("Category")).to_have_value("inference")
    expect(pager.locator("[aria-current=page]")).to_have_text("Page 2")
    expect(pager.get_by_role("link", name="Next page")).to_have_count(0)
    assert_no_axe_violations(page)
    pager.get_by_role("link", name="Previous page").click()
    expect(page).to_have_url(f"{long_url}/references?category=inference")
    expect(cards.first.get_by_role("link")).to_have_text("Numbered reference 070")
    assert console_errors == []
    assert page.evaluate("window.__cspViolations") == []


def test_the_filter_form_starts_again_at_the_first_page(long_page: Page) -> None:
    page = long_page
    page.goto("/references?page=3")
    expect(page.locator("ul.cards > li.card")).to_have_count(132 - 2 * BROWSE_PAGE_SIZE)
    page.get_by_label("Category").select_option("inference")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"category=inference"))
    assert "page=" not in page.url
    pager = page.get_by_role("navigation", name="Pages of references")
    expect(pager.locator("[aria-current=page]")).to_have_text("Page 1")
    expect(page.locator("ul.cards > li.card")).to_have_count(BROWSE_PAGE_SIZE)
