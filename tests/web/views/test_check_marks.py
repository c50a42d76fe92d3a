"""The check form and the re-ranked causes, on a reference page and on a symptom result:
marks in the URL, hidden fields carried over, and a mark that makes no sense refused."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web.routes.test_pages import Document, Element, context_of, parse

from failref.web.views.check_marks import CandidateBoard, CarriedState, CheckBoard

# fx-timeout's checks: 1 rules out or confirms candidate 2; 2 confirms 1 and rules out 3;
# 3 confirms 3.
TIMEOUT_LINE = (
    "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
    "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
)


def test_a_mark_reorders_the_causes_and_folds_the_ruled_out(client: TestClient) -> None:
    response = client.get("/r/slow-collective?check2=rules_out&stage_ms=100")
    board = context_of(response)["board"]
    assert isinstance(board, CheckBoard)
    assert board.marked
    assert [row.number for row in board.causes] == [1]
    assert [(row.number, row.ranked.ruled_out_by) for row in board.ruled_out] == [(2, (2,))]
    page = parse(response)
    folded = page.find("details", class_="ruled-out")
    assert page.find("li", within=folded, id="cause-2")
    form = page.find("form", class_="check-marks")
    assert form.attrs["action"] == "/r/slow-collective#s-causes"
    checked = page.find_all("input", form, name="check2", value="rules_out")
    assert "checked" in checked[0].attrs


def test_a_confirmed_cause_comes_first_and_links_its_check(client: TestClient) -> None:
    page = parse(client.get("/r/stuck-rank?check1=confirms"))
    first = page.find("ol", class_="causes").text
    assert first.strip().startswith("Compilation on one rank")
    assert page.find("a", href="#check-1").text == "check 1"
    assert page.find("a", href="#cause-1", within=page.find("p", class_="check-targets"))


def test_a_mark_the_check_cannot_show_is_refused_by_name(client: TestClient) -> None:
    response = client.get("/r/stuck-rank?check1=rules_out")
    assert response.status_code == 422
    assert "check1: evidence check 1 cannot show &#39;rules_out&#39;; it can show confirms" in (
        response.text
    )
    assert client.get("/r/stuck-rank?check7=confirms").status_code == 422


def test_a_symptom_result_is_reranked_for_its_reference_only(diagnosis_client: TestClient) -> None:
    plain = context_of(diagnosis_client.get("/", params={"q": TIMEOUT_LINE}))["boards"]
    assert isinstance(plain, dict)
    before = plain["fx-timeout"]
    assert isinstance(before, CandidateBoard)
    assert not before.marked
    assert [c.candidate.number for c in before.candidates] == [1, 2, 3]
    params = {"q": TIMEOUT_LINE, "r": "fx-timeout", "check1": "confirms", "check2": "rules_out"}
    response = diagnosis_client.get("/", params=params)
    after = context_of(response)["boards"]["fx-timeout"]  # type: ignore[index]
    assert isinstance(after, CandidateBoard)
    assert after.marked
    assert [(c.candidate.number, c.ranked.state) for c in after.candidates] == [
        (2, "confirmed"),
        (1, "open"),
    ]
    assert [c.candidate.number for c in after.ruled_out] == [3]
    form = parse(response).find("form", class_="check-marks")
    assert form.attrs["action"] == "/"
    other = {"q": TIMEOUT_LINE, "r": "another-symptom", "check2": "rules_out"}
    ignored = context_of(diagnosis_client.get("/", params=other))["boards"]
    assert not ignored["fx-timeout"].marked  # type: ignore[index]


def hidden_inputs(form: Element, page: Document) -> dict[str, str]:
    return {
        element.attrs["name"]: element.attrs["value"]
        for element in page.find_all("input", form, type="hidden")
    }


def test_each_form_of_a_reference_page_carries_the_other_s_state(client: TestClient) -> None:
    query = "?stage_ms=100%2C%20300&check2=rules_out&microbatches=4&feedback=thanks"
    response = client.get(f"/r/slow-collective{query}")
    page = parse(response)
    marks = page.find("form", class_="check-marks")
    calculator = page.find("form", class_="calculator-form")
    # Only the other form's own fields ride along, not the page's other parameters.
    assert hidden_inputs(marks, page) == {"stage_ms": "100, 300", "microbatches": "4"}
    assert hidden_inputs(calculator, page) == {"check2": "rules_out"}
    assert context_of(response)["carried"] == CarriedState(
        for_checks=(("stage_ms", "100, 300"), ("microbatches", "4")),
        for_calculator=(("check2", "rules_out"),),
    )


def test_a_plain_reference_page_carries_nothing(client: TestClient) -> None:
    page = parse(client.get("/r/slow-collective?check2="))  # "not run" is no mark
    for form in ("check-marks", "calculator-form"):
        assert hidden_inputs(page.find("form", class_=form), page) == {}
