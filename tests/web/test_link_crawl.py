"""Issue 34's done-when, "the link crawl clean": every same-site link of every page a
reader or an editor can reach (from the start page, a pasted log's result and the
references) answers without an error. Links are followed breadth first; a page's
anchors (`#…`) are checked to exist on it."""

from __future__ import annotations

import re
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

from editing_helpers import sign_in
from fastapi.testclient import TestClient

from failref.services.analysis import LOG_LINE_THRESHOLD

WATCHDOG = (
    "[rank0]:[E ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out."
)
MOST_PAGES = 400
ORIGIN = "http://testserver"


class Links(HTMLParser):
    """The hrefs of a page's links and the ids it holds."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.hrefs.append(str(found["href"]))


def crawl(client: TestClient, starts: list[str]) -> tuple[int, list[str]]:
    """Pages visited and the broken links found (`page -> link: why`)."""
    seen = set(starts)
    queue = deque(starts)
    broken: list[str] = []
    visited = 0
    while queue and visited < MOST_PAGES:
        path = queue.popleft()
        response = client.get(path)
        visited += 1
        if response.status_code >= 400:
            broken.append(f"{path}: {response.status_code}")
            continue
        if "text/html" not in response.headers.get("content-type", ""):
            continue
        page = Links(response.text)
        for href in page.hrefs:
            target, anchor = urldefrag(urljoin(ORIGIN + path, href))
            parts = urlsplit(target)
            if parts.netloc != "testserver":
                continue
            local = parts.path + (f"?{parts.query}" if parts.query else "")
            if anchor and local == path and anchor not in page.ids:
                broken.append(f"{path} -> #{anchor}: no such id")
            if local not in seen:
                seen.add(local)
                queue.append(local)
    return visited, broken


def pasted_result(client: TestClient) -> str:
    log = "\n".join([*(f"heartbeat {n}" for n in range(LOG_LINE_THRESHOLD)), WATCHDOG])
    response = client.post("/", data={"log": log}, follow_redirects=False)
    assert response.status_code == 303
    return str(response.headers["location"])


def test_a_reader_meets_no_broken_link(client: TestClient) -> None:
    visited, broken = crawl(client, ["/", "/references", pasted_result(client), f"/?q={WATCHDOG}"])
    assert visited > 20
    assert broken == []


def test_an_editor_meets_no_broken_link(client: TestClient) -> None:
    sign_in(client)
    client.post("/api/v1/match", json={"log": "RuntimeError: the frobnicator refused widget 7"})
    starts = ["/", "/admin/gaps", "/r/stuck-rank/edit", "/r/stuck-rank/history", "/new"]
    visited, broken = crawl(client, starts)
    assert visited > 20
    assert [link for link in broken if not re.search(r"/logout", link)] == []
