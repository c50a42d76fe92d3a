"""Readers' "this was it": counted per cause, shown on the cause, never used to rank, and
nothing personal kept."""

from __future__ import annotations

from editing_helpers import library_of
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from failref.store.models import OutcomeRow
from failref.store.outcomes import outcome_counts


def test_an_outcome_is_counted_and_the_reader_returns_to_the_cause(client: TestClient) -> None:
    response = client.post("/r/stuck-rank/outcome", data={"cause": "2"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/r/stuck-rank?outcome=thanks#cause-2"
    in_place = client.post(
        "/r/stuck-rank/outcome", data={"cause": "2"}, headers={"x-requested-with": "fetch"}
    )
    assert in_place.status_code == 204
    client.post("/r/stuck-rank/outcome", data={"cause": "3"})
    assert outcome_counts(library_of(client).engine, "stuck-rank") == {2: 2, 3: 1}
    page = client.get("/r/stuck-rank?outcome=thanks").text
    assert "confirmed by 2 readers" in page
    assert "confirmed by 1 reader<" in page
    # Shown, never used to rank: the causes keep the author's order.
    assert page.index('id="cause-1"') < page.index('id="cause-2"') < page.index('id="cause-3"')


def test_rows_hold_only_the_reference_the_cause_and_the_time(client: TestClient) -> None:
    client.post("/r/stuck-rank/outcome", data={"cause": "1"}, headers={"cookie": "a=b"})
    assert set(OutcomeRow.model_fields) == {"id", "reference_id", "cause", "created_at"}
    with Session(library_of(client).engine) as session:
        (row,) = session.exec(select(OutcomeRow)).all()
    assert (row.reference_id, row.cause) == ("stuck-rank", 1)


def test_bad_outcomes_are_refused(client: TestClient) -> None:
    assert client.post("/r/no-such/outcome", data={"cause": "1"}).status_code == 404
    too_far = client.post("/r/stuck-rank/outcome", data={"cause": "4"})
    assert too_far.status_code == 422
    assert "stuck-rank lists 3 causes; there is no cause 4" in too_far.text
    assert client.post("/r/stuck-rank/outcome", data={"cause": "0"}).status_code == 422
    assert client.post("/r/stuck-rank/outcome", data={"cause": "x"}).status_code == 422
    cross_site = client.post(
        "/r/stuck-rank/outcome", data={"cause": "1"}, headers={"sec-fetch-site": "cross-site"}
    )
    assert cross_site.status_code == 403
    assert outcome_counts(library_of(client).engine, "stuck-rank") == {}
