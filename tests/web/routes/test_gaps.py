"""Issue 34, item 7 (the rest): the gaps list shows the run context each query came with
(redacted), lets an editor set a row aside and put it back, and warns when a reference
written since covers a query, so "Start a reference" does not start a duplicate."""

from __future__ import annotations

import re

from editing_helpers import form_fields, library_of, sign_in
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from failref.store.db import writing
from failref.store.models import GapRow

UNANSWERED = "RuntimeError: the frobnicator refused widget 7 on rank 3"
COVERED = (
    "[rank0]:[E ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out."
)


def rows(client: TestClient) -> list[GapRow]:
    library = library_of(client)
    assert library.gaps.flush(timeout=30)
    with Session(library.engine) as session:
        return list(session.exec(select(GapRow)))


def ask(client: TestClient, line: str, **context: str) -> None:
    response = client.post("/api/v1/match", json={"log": line, "context": context})
    assert response.status_code == 200, response.text


def test_a_gap_keeps_the_context_it_was_asked_in_redacted(client: TestClient) -> None:
    sign_in(client)
    ask(client, UNANSWERED, framework="vLLM 0.8 (OpenAI server)", gpus="8x H100")
    ask(client, UNANSWERED, framework="PyTorch 2.5", notes="on gpu-node-17.cluster.internal")
    [row] = rows(client)
    assert row.count == 2
    assert row.context == "framework: PyTorch 2.5 · notes: on <host>"
    page = client.get("/admin/gaps").text
    assert "framework: PyTorch 2.5 · notes: on &lt;host&gt;" in page
    assert "gpu-node-17" not in page


def test_a_gap_set_aside_leaves_the_list_and_comes_back(client: TestClient) -> None:
    sign_in(client)
    ask(client, UNANSWERED)
    [row] = rows(client)
    page = client.get("/admin/gaps").text
    dismissed = client.post(
        f"/admin/gaps/{row.id}/dismiss",
        data={**form_fields(page), "dismissed": "true"},
        follow_redirects=False,
    )
    assert dismissed.status_code == 303
    assert "frobnicator" not in client.get("/admin/gaps").text
    aside = client.get("/admin/gaps?dismissed=true").text
    assert "frobnicator" in aside
    ask(client, UNANSWERED)  # still counted while set aside
    assert rows(client)[0].count == 2
    client.post(f"/admin/gaps/{row.id}/dismiss", data={**form_fields(aside), "dismissed": "false"})
    assert "frobnicator" in client.get("/admin/gaps").text


def test_setting_a_gap_aside_needs_the_csrf_token(client: TestClient) -> None:
    sign_in(client)
    ask(client, UNANSWERED)
    [row] = rows(client)
    refused = client.post(f"/admin/gaps/{row.id}/dismiss", data={"dismissed": "true"})
    assert refused.status_code == 403
    assert not rows(client)[0].dismissed


def test_a_gone_gap_is_404(client: TestClient) -> None:
    sign_in(client)
    page = client.get("/admin/gaps").text
    assert client.post("/admin/gaps/999/dismiss", data=form_fields(page)).status_code == 404


def test_a_gap_a_reference_covers_now_says_so_and_starts_no_duplicate(client: TestClient) -> None:
    sign_in(client)
    with writing(library_of(client).engine) as session:
        session.add(GapRow(template="watchdog", example=COVERED))  # asked before the page
        session.commit()
    [row] = rows(client)
    page = client.get("/admin/gaps").text
    covered = re.search(r'Covered now by <a href="[^"]*/r/([\w-]+)"', page)
    assert covered is not None, page
    assert f"/new?gap={row.id}" not in page
    assert re.search(rf'href="[^"]*/r/{covered[1]}/edit"', page)
    start = client.get(f"/new?gap={row.id}").text
    assert 'id="covered-warning"' in start
    assert 'id="covered-warning"' not in client.get("/new").text
