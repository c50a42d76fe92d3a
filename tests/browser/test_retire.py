"""Issue 34, item 3, in Chromium: an editor retires a reference from its edit page, naming
its replacement; its address then sends readers on with a note saying why; without a
replacement it answers 410 with the reason; restoring a revision from its history brings
it back. Desktop and phone, axe-clean."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from browser.axe import assert_no_axe_violations
from browser.test_editor import PHONE, editing_server, editor_page, token  # noqa: F401
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

RETIRED = "cuda-oom-fragmentation"
SUCCESSOR = "activation-memory-oom"


def retire(page: Page, reference_id: str, reason: str, replaced_by: str = "") -> None:
    page.goto(f"/r/{reference_id}/edit")
    page.locator("details.retire summary").click()
    page.get_by_label("Why").fill(reason)
    if replaced_by:
        page.get_by_label("Replaced by").fill(replaced_by)
    with page.expect_navigation():
        page.get_by_role("button", name="Retire").click()


def test_a_retired_reference_sends_readers_to_its_replacement_then_comes_back(
    editor_page: Callable[..., Page],  # noqa: F811
) -> None:
    page = editor_page()
    retire(page, RETIRED, "one page covers every OOM now", SUCCESSOR)
    assert page.url.endswith(f"/r/{SUCCESSOR}?from={RETIRED}")
    expect(page.locator("p.note[role=status]")).to_contain_text("one page covers every OOM now")
    assert_no_axe_violations(page)
    page.goto(f"/r/{RETIRED}/history")
    expect(page.locator("p.note[role=status]")).to_contain_text("Retired on")
    with page.expect_navigation():
        page.get_by_role("button", name="Restore revision").first.click()
    assert page.url.endswith(f"/r/{RETIRED}?saved=1")
    expect(page.locator("h1")).not_to_contain_text("Retired")


def test_a_retired_reference_without_replacement_says_why_on_a_phone(
    editor_page: Callable[..., Page],  # noqa: F811
) -> None:
    page = editor_page(viewport=PHONE)
    retire(page, RETIRED, "the fragmentation advice moved to the allocator page")
    response = page.goto(f"/r/{RETIRED}")
    assert response is not None
    assert response.status == 410
    expect(page.locator("h1")).to_contain_text("Retired:")
    expect(page.locator("main")).to_contain_text("the fragmentation advice moved")
    assert_no_axe_violations(page)
    page.goto(f"/r/{RETIRED}/history")
    with page.expect_navigation():
        page.get_by_role("button", name="Restore revision").first.click()
    assert page.url.endswith(f"/r/{RETIRED}?saved=1")
