"""The check form and the re-ranked causes, on a reference page and on a symptom result:
one choice per check, marks in the URL, hidden fields carried over, a mark the page no
longer offers set aside with a note, candidates numbered as ranked, the checks for the top
two worked out again after the marks, and the reference page's table of contents."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from web.routes.test_pages import Document, Element, context_of, parse

from failref.domain.matching.judging.rerank import IgnoredMark
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
    choice = page.find("select", form, name="check2")
    assert "selected" in page.find("option", choice, value="rules_out").attrs
    assert "selected" not in page.find("option", choice, value="").attrs


def test_a_confirmed_cause_comes_first_and_links_its_check(client: TestClient) -> None:
    page = parse(client.get("/r/stuck-rank?check1=confirms"))
    first = page.find("li", page.find("ol", class_="causes"))
    assert first.attrs["id"] == "cause-1"
    state = " ".join(page.find("p", first, class_="cause-state").text.split())
    assert state == "cause 1 in the author’s list · confirmed by check 1"
    assert page.find("a", href="#check-1").text == "check 1"
    assert page.find("a", href="#cause-1", within=page.find("p", class_="check-targets"))


def test_each_check_is_one_choice_of_the_results_it_can_show(
    diagnosis_client: TestClient,
) -> None:
    page = parse(diagnosis_client.get("/r/fx-timeout"))
    form = page.find("form", class_="check-marks")
    assert page.find("legend", page.find("fieldset", form, class_="check-list")).text.strip()
    assert page.find_all("input", form, type="radio") == []
    choices = page.find_all("select", form)
    assert [c.attrs["name"] for c in choices] == ["check1", "check2", "check3"]
    options = [(o.attrs["value"], o.text) for o in page.find_all("option", choices[0])]
    assert options == [
        ("", "not run"),
        ("rules_out", "rules out candidate 2: Mismatched collectives"),
        ("confirms", "confirms candidate 2: Mismatched collectives"),
    ]
    label = page.find("label", page.find("li", form, id="check-1"), class_="check-mark")
    assert choices[0].ancestors[-1] is label  # the choice is named by its label
    assert " ".join(label.text.split()).startswith("Check 1: what it showed")
    # The check's text, after its choice, describes it.
    assert choices[0].attrs["aria-describedby"] == "check-1-text"
    assert page.find("div", id="check-1-text").text.startswith("Compare the SeqNum")


def test_a_check_names_each_cause_once(diagnosis_client: TestClient) -> None:
    page = parse(diagnosis_client.get("/r/fx-timeout"))
    named = [
        " ".join(p.text.split())
        for p in page.find_all("p", page.find("form", class_="check-marks"), class_="check-targets")
    ]
    assert named == [
        "Confirms or rules out Mismatched collectives (2)",
        "Confirms A slow link (1) · Rules out A long checkpoint save (3)",
        "Confirms A long checkpoint save (3)",
    ]


def test_a_result_card_names_each_check_by_its_first_sentence_and_opens_it_whole(
    diagnosis_client: TestClient,
) -> None:
    page = parse(diagnosis_client.get("/", params={"q": TIMEOUT_LINE}))
    form = page.find("form", class_="check-marks")
    names = [
        " ".join(span.text.split()) for span in page.find_all("span", form, class_="check-name")
    ]
    assert names == [
        "Check 1: Compare the SeqNum of every rank: equal numbers rule out candidate 2; "
        "different ones confirm candidate 2.",
        "Check 2: Run nccl-tests between the nodes: low bus bandwidth confirms candidate 1 "
        "and rules out candidate 3.",
        "Check 3: Look for a save in progress on the ranks that did not arrive: one confirms "
        "candidate 3.",
    ]
    whole = page.find_all("details", form, class_="check-text")
    assert len(whole) == 3
    assert page.find("code", whole[0]).text == "SeqNum"


@pytest.mark.parametrize(
    ("query", "ignored"),
    [
        pytest.param(
            "check99=confirms-1",
            [IgnoredMark("check99", "confirms-1", "this page has no check 99; it has 1")],
            id="a-check-it-lost",
        ),
        pytest.param(
            "check1=rules_out",
            [IgnoredMark("check1", "rules_out", "check 1 cannot show that; it can show confirms")],
            id="a-result-the-check-does-not-offer",
        ),
    ],
)
def test_a_mark_the_page_no_longer_offers_is_ignored_with_a_note(
    client: TestClient, query: str, ignored: list[IgnoredMark]
) -> None:
    response = client.get(f"/r/stuck-rank?{query}&check2=")
    assert response.status_code == 200
    board = context_of(response)["board"]
    assert isinstance(board, CheckBoard)
    assert list(board.ignored) == ignored
    assert not board.marked
    note = parse(response).find("p", class_="ignored-marks")
    assert f"{ignored[0].field}={ignored[0].value}" in note.text
    assert ignored[0].why in note.text
    assert note.attrs["role"] == "status"
    # Nothing carries it along: submitting a form again drops it.
    carried = context_of(response)["carried"]
    assert isinstance(carried, CarriedState)
    assert carried.for_calculator == ()


def test_a_stale_mark_in_a_shared_result_link_is_ignored_with_a_note(
    diagnosis_client: TestClient,
) -> None:
    params = {"q": TIMEOUT_LINE, "r": "fx-timeout", "check9": "confirms-1", "check1": "rules_out"}
    response = diagnosis_client.get("/", params=params)
    assert response.status_code == 200
    board = context_of(response)["boards"]["fx-timeout"]  # type: ignore[index]
    assert isinstance(board, CandidateBoard)
    assert [(c.candidate.number, c.ranked.state) for c in board.candidates] == [
        (1, "open"),
        (3, "open"),
    ]
    note = parse(response).find("p", class_="ignored-marks")
    assert "check9=confirms-1 (this page has no check 9; it has 3)" in " ".join(note.text.split())
    details = parse(response).find("details", class_="mark-checks")
    assert "open" in details.attrs  # the form is in view, to mark again


def test_candidates_are_numbered_as_ranked_and_say_their_page_number(
    diagnosis_client: TestClient,
) -> None:
    params = {"q": TIMEOUT_LINE, "r": "fx-timeout", "check1": "confirms"}
    page = parse(diagnosis_client.get("/", params=params))
    ranked = page.find("ol", page.find("div", class_="candidates"))
    items = page.find_all("li", ranked, class_="candidate")
    assert [li.attrs["data-number"] for li in items] == ["2", "1", "3"]
    assert all("value" not in li.attrs for li in items)  # 1, 2, 3 as ranked
    assert "start" not in ranked.attrs
    tags = [" ".join(page.find("span", li, class_="page-number").text.split()) for li in items]
    assert tags == [
        "(candidate 2 on the page)",
        "(candidate 1 on the page)",
        "(candidate 3 on the page)",
    ]


def test_what_tells_the_top_two_apart_follows_the_marks(diagnosis_client: TestClient) -> None:
    before = context_of(diagnosis_client.get("/", params={"q": TIMEOUT_LINE}))["boards"]
    assert [hint.number for hint in before["fx-timeout"].apart] == [1]  # type: ignore[index]
    # Check 1 confirms candidate 2, which comes top over 1: check 2 names 1 only, and
    # check 1, already run, is not offered again.
    params = {"q": TIMEOUT_LINE, "r": "fx-timeout", "check1": "confirms"}
    response = diagnosis_client.get("/", params=params)
    after = context_of(response)["boards"]["fx-timeout"]  # type: ignore[index]
    assert isinstance(after, CandidateBoard)
    assert [c.candidate.number for c in after.candidates[:2]] == [2, 1]
    assert [hint.number for hint in after.apart] == [2]
    assert [hint.number for hint in after.naming] == [2]
    page = parse(response)
    candidates = page.find("div", class_="candidates")
    assert "What tells the top two apart now" in [h.text for h in page.find_all("h4", candidates)]
    (shown,) = page.find_all("li", candidates, class_="check-hint")
    assert shown.attrs["data-check"] == "2"


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


def test_a_stale_mark_is_not_carried_into_the_calculator(client: TestClient) -> None:
    response = client.get("/r/slow-collective?check2=confirms&check1=confirms&check7=rules_out")
    assert context_of(response)["carried"] == CarriedState(
        for_checks=(), for_calculator=(("check1", "confirms"),)
    )


def test_a_reference_page_opens_with_its_table_of_contents(client: TestClient) -> None:
    page = parse(client.get("/r/slow-collective"))
    toc = page.find("nav", class_="toc")
    links = [(a.attrs["href"], a.text) for a in page.find_all("a", toc)]
    assert links == [
        ("#s-message", "Message"),
        ("#s-context", "Context"),
        ("#s-causes", "Possible causes"),
        ("#s-checks", "Evidence checks"),
        ("#s-worked", "Worked example"),
        ("#calculator", "Calculator"),
        ("#s-sources", "Sources"),
        ("#s-related", "Related references"),
    ]
    for href, _ in links:
        assert page.find_all("h2", id=href[1:]) or page.find_all("section", id=href[1:]), href
    first_section = page.find("section")
    assert page.elements.index(toc) < page.elements.index(first_section)
