"""Every page with a JSON twin shows a visible link to it, the same URL as its
`<link rel="alternate">`, and the link answers JSON."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

# Page path → the API path giving the same data.
TWINS = [
    pytest.param("/", "/api/v1/references", id="home"),
    pytest.param("/references", "/api/v1/references?limit=50", id="references"),
    pytest.param("/references?q=nccl", "/api/v1/references?q=nccl&limit=50", id="references-query"),
    pytest.param(
        "/references?page=2", "/api/v1/references?limit=50&offset=50", id="references-page-2"
    ),
    pytest.param(
        "/r/kv-cache-exhaustion", "/api/v1/references/kv-cache-exhaustion", id="reference"
    ),
    pytest.param("/calculators", "/api/v1/calculators", id="calculators"),
    pytest.param("/calculators/kv-cache", "/api/v1/calculators/kv-cache", id="calculator"),
]


@pytest.mark.parametrize(("path", "twin"), TWINS)
def test_a_page_links_visibly_to_its_json_twin(page: Page, path: str, twin: str) -> None:
    page.goto(path)
    link = page.get_by_role("link", name=f"GET {twin}")
    expect(link).to_be_visible()
    assert link.get_attribute("href") == twin
    alternate = page.locator('link[rel="alternate"][type="application/json"]')
    assert alternate.get_attribute("href") == twin
    response = page.request.get(twin)
    assert response.status == 200
    assert response.headers["content-type"].startswith("application/json")


def test_results_name_their_json_endpoint_and_link_to_the_api(page: Page) -> None:
    page.goto("/?q=CUDA out of memory. Tried to allocate 2.00 GiB")
    note = page.locator(".api-note")
    expect(note).to_contain_text("POST /api/v1/match")
    expect(note.get_by_role("link")).to_have_attribute("href", "/docs")
    assert page.locator('link[rel="alternate"]').count() == 0  # a POST has no link to follow
