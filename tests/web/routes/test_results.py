"""Issue 34, item 2: every result has an address. A pasted log or traceback is kept,
redacted, and the paste answers with a redirect to its result (reloading it pastes
nothing again); a short line goes to its `/?q=` link. The paster sees the result of the
paste as sent; a link opened elsewhere shows it worked out from the kept copy; unknown,
malformed and expired links are 404, and a paste still on its way is a page that reloads."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from failref.config import Settings
from failref.services import kept_results
from failref.services.analysis import LOG_LINE_THRESHOLD
from failref.store.db import reading, writing
from failref.store.models import GapRow, KeptPasteRow
from failref.web.factory import create_app
from failref.web.views.kept import OWNER_COOKIE

HOST = "gpu-node-17.cluster.internal"
WATCHDOG = (
    "[rank0]:[E ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out."
)
LOG = "\n".join([*(f"step {n} on {HOST} loss 1.{n}" for n in range(LOG_LINE_THRESHOLD)), WATCHDOG])
RESULT_PATH = re.compile(r"^/results/[A-Za-z0-9_-]{22}$")


@pytest.fixture(autouse=True)
def unsettled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pastes are stored at once: the second a redaction waits for the paster's page is
    for speed only."""
    monkeypatch.setattr(kept_results, "SETTLE_S", 0.0)


def kept_rows(client: TestClient) -> list[KeptPasteRow]:
    library = client.app.state.library  # type: ignore[attr-defined]
    assert library.kept.flush(timeout=30)
    with reading(library.engine) as session:
        return list(session.exec(select(KeptPasteRow)))


def gap_count(client: TestClient) -> int:
    library = client.app.state.library  # type: ignore[attr-defined]
    assert library.gaps.flush(timeout=30)
    with reading(library.engine) as session:
        return sum(row.count for row in session.exec(select(GapRow)))


def paste(client: TestClient, log: str = LOG, **context: str) -> str:
    """Paste `log`; the path the answer sends the browser to."""
    response = client.post("/", data={"log": log, **context}, follow_redirects=False)
    assert response.status_code == 303
    return response.headers["location"]


def test_a_pasted_log_answers_with_its_results_address(client: TestClient) -> None:
    response = client.post("/", data={"log": LOG}, follow_redirects=False)
    assert response.status_code == 303
    target = response.headers["location"]
    assert RESULT_PATH.match(target)
    cookie = response.headers["set-cookie"]
    assert f"Path={target}" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie


def test_the_paster_sees_the_paste_as_sent_and_a_link(client: TestClient) -> None:
    target = paste(client, framework="PyTorch 2.5")
    page = client.get(target)
    assert page.status_code == 200
    assert "Watchdog caught collective operation timeout" in page.text
    assert HOST in page.text  # their own paste, not yet redacted
    assert f'href="{target}"' in page.text
    assert "You see the result of your paste as sent" in page.text
    assert 'value="PyTorch 2.5"' in page.text


def test_a_link_opened_elsewhere_shows_the_kept_redacted_copy(settings: Settings) -> None:
    with TestClient(create_app(settings)) as paster:
        target = paste(paster, notes=f"ran on {HOST}")
        [row] = kept_rows(paster)
    with TestClient(create_app(settings)) as other:  # another worker, no cookie
        page = other.get(target)
    assert page.status_code == 200
    assert row.id == target.rsplit("/", 1)[1]
    assert HOST not in page.text
    assert "&lt;host&gt;" in page.text
    assert "Watchdog caught collective operation timeout" in page.text
    assert "worked out from that kept copy" in page.text
    expires = (row.created_at + dt.timedelta(days=settings.result_retention_days)).date()
    assert f"Kept until {expires.isoformat()}" in page.text


def test_reloading_a_result_keeps_and_remembers_nothing_more(client: TestClient) -> None:
    unanswered = LOG + "\nRuntimeError: the frobnicator refused the widget"
    target = paste(client, unanswered)
    client.get(target)
    before = (len(kept_rows(client)), gap_count(client))
    client.get(target)
    client.cookies.clear()
    client.get(target)
    assert (len(kept_rows(client)), gap_count(client)) == before == (1, 1)


def test_a_short_line_goes_to_its_share_link_and_is_not_kept(client: TestClient) -> None:
    target = paste(client, WATCHDOG, framework="vLLM 0.8")
    parts = urlsplit(target)
    assert parts.path == "/"
    assert parse_qs(parts.query) == {"q": [WATCHDOG], "framework": ["vLLM 0.8"]}
    assert client.get(target).status_code == 200
    assert kept_rows(client) == []


def test_a_line_holding_a_secret_is_kept_rather_than_put_in_a_link(client: TestClient) -> None:
    target = paste(client, f"{WATCHDOG} password=Hunter2-Qx9zV!w7")
    assert RESULT_PATH.match(target)
    assert "Hunter2" not in target


@pytest.mark.parametrize("token", ["A" * 22, "short", "A" * 21 + "!", "A" * 200])
def test_an_unknown_or_malformed_address_is_404(client: TestClient, token: str) -> None:
    page = client.get(f"/results/{token}")
    assert page.status_code == 404
    assert "No result is kept at this address" in page.text


def test_an_expired_result_is_404(client: TestClient, settings: Settings) -> None:
    target = paste(client)
    [row] = kept_rows(client)
    library = client.app.state.library  # type: ignore[attr-defined]
    with writing(library.engine) as session:
        row.created_at -= dt.timedelta(days=settings.result_retention_days, hours=1)
        session.add(row)
        session.commit()
    client.cookies.clear()
    assert client.get(target).status_code == 404


def test_a_result_not_stored_yet_reloads_for_its_paster(settings: Settings) -> None:
    """The paster's browser came back through another worker before the copy was stored:
    a page that reloads itself, never a 404."""
    with TestClient(create_app(settings)) as other:
        other.cookies.set(OWNER_COOKIE, "s" * 22, path="/results/" + "B" * 22)
        page = other.get("/results/" + "B" * 22)
    assert page.status_code == 503
    assert page.headers["retry-after"] == "2"
    assert '<meta http-equiv="refresh" content="2">' in page.text


def test_a_read_only_mirror_answers_in_place_saying_why_there_is_no_link(
    settings: Settings,
) -> None:
    with TestClient(create_app(settings.model_copy(update={"read_only": True}))) as mirror:
        response = mirror.post("/", data={"log": LOG}, follow_redirects=False)
        assert response.status_code == 200
        assert "Watchdog caught collective operation timeout" in response.text
        assert "this mirror keeps no pastes" in response.text
        assert kept_rows(mirror) == []


def test_a_kept_result_re_ranks_at_its_own_address(diagnosis_client: TestClient) -> None:
    log = "\n".join([*(f"heartbeat {n}" for n in range(LOG_LINE_THRESHOLD)), WATCHDOG])
    target = paste(diagnosis_client, log)
    page = diagnosis_client.get(target).text
    form = re.search(r'<form class="check-marks" method="get" action="([^"]+)"', page)
    assert form is not None
    assert form[1] == target
    assert '<input type="hidden" name="r" value="fx-timeout" data-carried>' in page


def test_a_result_made_before_a_reload_is_worked_out_again(client: TestClient) -> None:
    target = paste(client)
    library = client.app.state.library  # type: ignore[attr-defined]
    library.generation += 1  # a save or a reload swapped in another catalog
    page = client.get(target)
    assert page.status_code == 200
    assert "Watchdog caught collective operation timeout" in page.text
    assert HOST in page.text  # still the paster's own view


@pytest.fixture
def no_keeping(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update={"keep_results": False}))) as client:
        yield client


def test_keeping_turned_off_answers_in_place(no_keeping: TestClient) -> None:
    response = no_keeping.post("/", data={"log": LOG}, follow_redirects=False)
    assert response.status_code == 200
    assert "this site keeps no pastes" in response.text
