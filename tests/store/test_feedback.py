"""Reader feedback: counted per reference, shown to editors only, nothing personal kept."""

from __future__ import annotations

from editing_helpers import library_of, sign_in
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from failref.store.feedback import feedback_counts
from failref.store.models import FeedbackRow, GapRow


def test_answers_are_counted_and_the_reader_returns_to_the_page(client: TestClient) -> None:
    response = client.post(
        "/r/stuck-rank/feedback", data={"helpful": "yes"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/r/stuck-rank?feedback=thanks"
    assert "your answer was counted" in client.get(response.headers["location"]).text
    in_place = client.post(
        "/r/stuck-rank/feedback", data={"helpful": "no"}, headers={"x-requested-with": "fetch"}
    )
    assert in_place.status_code == 204
    counts = feedback_counts(library_of(client).engine, "stuck-rank")
    assert (counts.helpful, counts.not_helpful) == (1, 1)


def test_rows_hold_only_the_reference_the_answer_and_the_time(client: TestClient) -> None:
    client.post("/r/stuck-rank/feedback", data={"helpful": "yes"}, headers={"cookie": "a=b"})
    assert set(FeedbackRow.model_fields) == {"id", "reference_id", "helpful", "created_at"}
    with Session(library_of(client).engine) as session:
        (row,) = session.exec(select(FeedbackRow)).all()
    assert (row.reference_id, row.helpful) == ("stuck-rank", True)


def test_bad_feedback_is_refused(client: TestClient) -> None:
    assert client.post("/r/no-such/feedback", data={"helpful": "yes"}).status_code == 404
    assert client.post("/r/stuck-rank/feedback", data={"helpful": "maybe"}).status_code == 422
    cross_site = client.post(
        "/r/stuck-rank/feedback", data={"helpful": "yes"}, headers={"sec-fetch-site": "cross-site"}
    )
    assert cross_site.status_code == 403
    assert feedback_counts(library_of(client).engine, "stuck-rank").helpful == 0


def test_editors_see_the_counts_and_readers_do_not(client: TestClient) -> None:
    client.post("/r/stuck-rank/feedback", data={"helpful": "yes"})
    assert "Readers' feedback" not in client.get("/r/stuck-rank").text
    sign_in(client)
    page = client.get("/r/stuck-rank").text
    assert "Readers' feedback: 1 helpful, 0 not helpful" in page
    assert 'href="/r/stuck-rank/edit"' in page


def test_results_carry_a_feedback_form_per_reference(client: TestClient) -> None:
    line = "torch._dynamo hit config.recompile_limit (8)"
    page = client.post("/", data={"log": line}).text
    assert 'action="/r/stuck-rank/feedback"' in page


def test_a_no_to_a_confident_result_sends_its_line_to_the_gaps(client: TestClient) -> None:
    line = "torch._dynamo hit config.recompile_limit (8) token=abcd1234efgh5678ijkl"
    page = client.post("/", data={"log": line}).text
    assert 'name="line" value="torch._dynamo hit config.recompile_limit (8)' in page
    client.post("/r/stuck-rank/feedback", data={"helpful": "yes", "line": line})
    client.post("/r/slow-collective/feedback", data={"helpful": "no", "line": line})
    with Session(library_of(client).engine) as session:
        assert session.exec(select(GapRow)).all() == []  # a yes, or not the confident one
    client.post("/r/stuck-rank/feedback", data={"helpful": "no", "line": line})
    with Session(library_of(client).engine) as session:
        (gap,) = session.exec(select(GapRow)).all()
    assert gap.disputed_id == "stuck-rank"
    assert "abcd1234" not in gap.example + gap.template  # redacted like every gap
    assert gap.template.startswith("torch._dynamo hit config.recompile_limit")
    sign_in(client)
    assert "a reader said it was not the answer" in client.get("/admin/gaps").text


def test_a_no_on_a_reference_page_sends_nothing_to_the_gaps(client: TestClient) -> None:
    client.post("/r/stuck-rank/feedback", data={"helpful": "no"})
    with Session(library_of(client).engine) as session:
        assert session.exec(select(GapRow)).all() == []
