"""Pages: what must show, built from the same data as the JSON twins."""

from __future__ import annotations

from html.parser import HTMLParser

from fastapi.testclient import TestClient


class Links(HTMLParser):
    """Collects hrefs and the text of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.alternate: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.hrefs.append(str(values["href"]))
        if tag == "link" and values.get("rel") == "alternate":
            self.alternate.append(str(values["href"]))


def parse(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


def test_home_lists_every_reference(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.template.name == "home.html"  # type: ignore[attr-defined]
    links = parse(response.text)
    assert "/r/slow-collective" in links.hrefs
    assert "/r/stuck-rank" in links.hrefs


def test_reference_page_shows_what_the_file_says(client: TestClient) -> None:
    response = client.get("/r/slow-collective")
    assert response.status_code == 200
    html = response.text
    assert "A collective stalls on one slow link" in html
    assert "NCCL WARN Net : Connection closed by remote peer &lt;host&gt;&lt;&lt;ip&gt;&gt;" in html
    assert html.index("A degraded link") < html.index("A congested switch")
    assert "all_reduce_perf -b 8 -e 8G -f 2 -g 8" in html
    assert "does not confirm any cause" in html
    links = parse(html)
    assert "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md" in links.hrefs
    assert "/r/stuck-rank" in links.hrefs
    assert links.alternate == ["/api/v1/references/slow-collective"]


def test_alias_redirects_permanently(client: TestClient) -> None:
    response = client.get("/r/old-slow-collective", follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == "/r/slow-collective"


def test_unknown_reference_gets_a_helpful_404(client: TestClient) -> None:
    response = client.get("/r/nccl-timeout")
    assert response.status_code == 404
    assert response.template.name == "not_found.html"  # type: ignore[attr-defined]
    assert 'value="nccl timeout"' in response.text


def test_browse_filters_by_tag_and_text(client: TestClient) -> None:
    response = client.get("/references", params={"tag": "hang"})
    assert response.status_code == 200
    links = parse(response.text)
    assert "/r/stuck-rank" in links.hrefs
    assert "/r/slow-collective" not in links.hrefs
    assert "1 of 2 references" in response.text
    empty = client.get("/references", params={"q": "zzzz"})
    assert "No reference passes these filters" in empty.text


def test_unknown_page_is_an_html_error_page(client: TestClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert response.template.name == "error.html"  # type: ignore[attr-defined]
