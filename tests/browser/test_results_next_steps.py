"""Results that say what to do next, evidence checks that re-rank causes (one choice per
check, with and without JavaScript, the state in the URL, a stale mark of a shared link set
aside with a note), candidates numbered as ranked, the reference page's table of contents,
copy buttons on check commands, and readers' "this was it". On the shipped references:
nccl-collective-timeout is a symptom whose check 1 can show "confirms candidate 6", check 3
"confirms candidate 2" and check 4 "rules out candidate 1"."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

from browser.axe import assert_no_axe_violations
from browser.test_pages import (
    DESKTOP,
    MAX_SCREENSHOT_BYTES,
    PHONE,
    WATCHDOG,
    assert_clean,
    labelled_line,
    paste,
    shoot,
)
from playwright.sync_api import Locator, Page, expect

TIMEOUT_PAGE = "/r/nccl-collective-timeout"
DESYNC = "Mismatched collectives (desync)"
DEAD_PEER = "A dead or crashed peer rank (look for its first error)"
ON_RANK_0 = "Evaluation, generation or plotting that runs on rank 0 only"
CONFIRMS_DESYNC = f"confirms candidate 6: {DESYNC}"
RULES_OUT_DEAD_PEER = f"rules out candidate 1: {DEAD_PEER}"
CHECKS = "section[aria-labelledby=s-checks]"
CARD = "li.card[data-reference-id='nccl-collective-timeout']"
ILLEGAL_ACCESS = labelled_line("cuda-illegal-memory-access", "illegal memory access")


def choice(page: Page, scope: str, check: int) -> Locator:
    """The choice of check `check` in the form `scope`, found by its accessible name."""
    return page.locator(scope).get_by_role("combobox", name=re.compile(rf"^Check {check}:"))


def mark(page: Page, scope: str, check: int, result: str) -> None:
    """Choose the result `result` (its option's words) of check `check` in the form `scope`."""
    choice(page, scope, check).select_option(label=result)


def causes_in_order(page: Page) -> list[str | None]:
    return [
        li.get_attribute("id")
        for li in page.locator("section[aria-labelledby=s-causes] > ol.causes > li").all()
    ]


def test_checks_rerank_the_causes_without_javascript(open_page: Callable[..., Page]) -> None:
    page = open_page(javascript=False)
    page.goto(TIMEOUT_PAGE)
    assert causes_in_order(page)[:2] == ["candidate-1", "candidate-2"]
    mark(page, CHECKS, 1, CONFIRMS_DESYNC)
    mark(page, CHECKS, 4, RULES_OUT_DEAD_PEER)
    with page.expect_navigation():
        page.get_by_role("button", name="Re-rank the candidates").click()
    assert "check1=confirms-6" in page.url
    assert "check4=rules_out" in page.url
    assert causes_in_order(page)[0] == "candidate-6"
    assert "candidate-1" not in causes_in_order(page)
    folded = page.locator("section[aria-labelledby=s-causes] details.ruled-out")
    expect(folded.locator("summary")).to_have_text("Ruled out by your checks: 1")
    expect(folded.locator("#candidate-1")).to_be_hidden()  # folded until opened
    expect(page.locator("#candidate-6 .cause-state")).to_contain_text("confirmed by check 1")
    expect(page.locator("#s-causes")).to_have_text("Candidate causes, re-ranked by your checks")
    # The state is in the URL: the same link re-ranks the same way, and the form shows it.
    shared = open_page(javascript=False)
    shared.goto(page.url)
    assert causes_in_order(shared)[0] == "candidate-6"
    expect(choice(shared, CHECKS, 1)).to_have_value("confirms-6")
    expect(choice(shared, CHECKS, 2)).to_have_value("")


def test_with_javascript_the_link_carries_only_the_checks_run(
    page: Page, console_errors: list[str]
) -> None:
    page.goto(TIMEOUT_PAGE)
    mark(page, CHECKS, 4, RULES_OUT_DEAD_PEER)
    expect(page.locator("#check-4 label.check-mark")).to_have_class(re.compile(r"\bmarked\b"))
    with page.expect_navigation():
        page.get_by_role("button", name="Re-rank the candidates").click()
    assert page.url.endswith("?check4=rules_out#s-causes"), page.url
    assert "candidate-1" not in causes_in_order(page)
    page.get_by_role("link", name="Back to the author’s order").click()
    assert causes_in_order(page)[0] == "candidate-1"
    assert_clean(page, console_errors)


def test_a_check_links_the_causes_it_names_by_name(page: Page) -> None:
    page.goto(TIMEOUT_PAGE)
    targets = page.locator("#check-1 .check-targets")
    expect(targets.get_by_role("link", name=DESYNC).first).to_have_attribute("href", "#candidate-6")
    targets.get_by_role("link", name=DESYNC).first.click()
    assert page.url.endswith("#candidate-6")
    expect(page.locator("#candidate-6")).to_be_in_viewport()


def test_the_reference_page_with_marks_has_no_axe_violation(page: Page) -> None:
    page.goto(f"{TIMEOUT_PAGE}?check1=confirms-6&check4=rules_out")
    page.locator("section[aria-labelledby=s-causes] details.ruled-out summary").click()
    assert_no_axe_violations(page)


def test_a_symptom_result_is_reranked_by_a_link(page: Page, console_errors: list[str]) -> None:
    paste(page, WATCHDOG)
    card = page.locator(CARD)
    candidates = card.locator(".candidates > ol > li")
    expect(candidates.first).to_contain_text(DEAD_PEER)
    card.locator("details.mark-checks > summary").click()
    mark(page, CARD, 4, RULES_OUT_DEAD_PEER)
    mark(page, CARD, 1, CONFIRMS_DESYNC)
    with page.expect_navigation():
        card.get_by_role("button", name="Re-rank the candidates").click()
    assert "r=nccl-collective-timeout" in page.url
    assert "check4=rules_out" in page.url
    card = page.locator(CARD)
    expect(card.locator(".candidates > ol > li").first).to_contain_text(DESYNC)
    expect(card.locator(".candidates > ol > li").first).to_contain_text("confirmed by check 1")
    folded = card.locator(".candidates details.ruled-out")
    expect(folded.locator("summary")).to_have_text("Ruled out by your checks: 1")
    expect(folded.locator("li", has_text=DEAD_PEER)).to_be_hidden()
    for details in card.locator("details").all():
        details.evaluate("element => { element.open = true; }")
    assert_no_axe_violations(page)
    assert_clean(page, console_errors)


def test_a_result_card_offers_one_choice_per_check_named_by_its_first_sentence(
    open_page: Callable[..., Page],
) -> None:
    for viewport in (DESKTOP, PHONE):
        page = open_page(viewport=viewport)
        paste(page, WATCHDOG)
        card = page.locator(CARD)
        card.locator("details.mark-checks > summary").click()
        form = card.locator("form.check-marks")
        expect(form.locator("input[type=radio]")).to_have_count(0)
        choices = form.get_by_role("combobox")
        expect(choices).to_have_count(11)
        expect(choices.first).to_have_accessible_name(
            re.compile(r"^Check 1: Collect the status lines of every rank and line them up")
        )
        options = choices.nth(2).locator("option").all_text_contents()
        assert options[0] == "not run"
        assert f"confirms candidate 2: {ON_RANK_0}" in options
        assert "rules out candidates 2, 3, 4 and 8" in options
        whole = form.locator("details.check-text").nth(2)
        expect(whole.locator(".prose")).to_be_hidden()
        whole.locator("summary").click()
        expect(whole.locator(".prose")).to_contain_text("Attaching to a running process")
        # Nothing spills sideways at a phone's width, however long an option is.
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        assert_no_axe_violations(page)


def test_what_tells_the_top_two_apart_follows_a_re_rank(page: Page) -> None:
    paste(page, WATCHDOG)
    card = page.locator(CARD)
    advice = card.locator(".candidates .check-hints > li")
    expect(advice).to_have_count(1)
    expect(advice).to_have_attribute("data-check", "3")
    card.locator("details.mark-checks > summary").click()
    # Check 3 confirms candidate 2, which comes top over candidate 1: check 4 (naming
    # candidate 1 only) tells them apart now; check 3, already run, is not offered again.
    mark(page, CARD, 3, f"confirms candidate 2: {ON_RANK_0}")
    with page.expect_navigation():
        card.get_by_role("button", name="Re-rank the candidates").click()
    card = page.locator(CARD)
    top = card.locator(".candidates > ol > li").all()[:2]
    assert [li.get_attribute("data-number") for li in top] == ["2", "1"]
    expect(card.locator(".candidates h4", has_text="What tells the top two apart")).to_have_text(
        "What tells the top two apart now"
    )
    expect(advice).to_have_count(1)
    expect(advice).to_have_attribute("data-check", "4")


def test_a_shared_link_with_marks_the_page_no_longer_offers_still_opens(
    open_page: Callable[..., Page], console_errors: list[str]
) -> None:
    page = open_page()
    response = page.goto(f"{TIMEOUT_PAGE}?check99=confirms-1&check1=confirms-9&check4=rules_out")
    assert response is not None
    assert response.status == 200
    note = page.locator("section[aria-labelledby=s-causes] .ignored-marks")
    expect(note).to_contain_text("check99=confirms-1 (this page has no check 99; it has 11)")
    expect(note).to_contain_text("check1=confirms-9 (check 1 cannot show that;")
    assert "candidate-1" not in causes_in_order(page)  # the mark that fits still counts
    assert_no_axe_violations(page)
    result = open_page()
    query = urlencode({"q": WATCHDOG, "r": "nccl-collective-timeout", "check99": "confirms-1"})
    response = result.goto(f"/?{query}")
    assert response is not None
    assert response.status == 200
    expect(result.locator(f"{CARD} .ignored-marks")).to_contain_text("check99=confirms-1")
    expect(result.locator(f"{CARD} details.mark-checks")).to_have_attribute("open", "")
    assert_clean(result, console_errors)


def test_a_reference_page_has_a_table_of_contents_and_its_first_check_is_near(
    open_page: Callable[..., Page],
) -> None:
    for viewport in (DESKTOP, PHONE):
        page = open_page(viewport=viewport)
        page.goto(TIMEOUT_PAGE)
        toc = page.get_by_role("navigation", name="On this page")
        expect(toc).to_be_in_viewport()
        for link in toc.get_by_role("link").all():
            target = (link.get_attribute("href") or "#")[1:]
            expect(page.locator(f"[id='{target}']")).to_have_count(1)
        toc.get_by_role("link", name="Evidence checks").click()
        expect(page.locator("#s-checks")).to_be_in_viewport()
        page.keyboard.press("Tab")
        expect(choice(page, CHECKS, 1)).to_be_focused()
        # From the top of the page, two Tabs reach "Skip to the evidence checks".
        page.goto(TIMEOUT_PAGE)
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        expect(page.locator(":focus")).to_have_text("Skip to the evidence checks")
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        expect(choice(page, CHECKS, 1)).to_be_focused()
        page.keyboard.press("ArrowDown")  # a closed choice changes with the arrow keys
        expect(choice(page, CHECKS, 1)).not_to_have_value("")
        assert_no_axe_violations(page)


def test_candidates_are_numbered_as_ranked_and_keep_their_page_numbers(page: Page) -> None:
    paste(page, WATCHDOG)
    card = page.locator(CARD)
    card.locator("details.more-candidates summary").click()
    shown = card.locator(".candidates li.candidate").all()
    # The number a list item shows: its list's start and its place in it, none set apart.
    ranks = [
        li.evaluate(
            "li => li.hasAttribute('value') ? -1"
            " : li.parentElement.start + [...li.parentElement.children].indexOf(li)"
        )
        for li in shown
    ]
    assert ranks == list(range(1, len(shown) + 1))  # 1, 2, 3… as ranked
    numbers = [int(li.get_attribute("data-number") or 0) for li in shown]
    assert numbers != sorted(numbers)  # ranked for the paste, not in the page's order
    for li, number in zip(shown, numbers, strict=True):
        expect(li.locator(".page-number")).to_have_text(f"(candidate {number} on the page)")
    expect(card.locator(".candidates .hint").first).to_have_text(
        "Each says its number on the reference page, where the checks name it."
    )


def test_a_symptom_card_offers_the_check_that_tells_the_top_two_apart(page: Page) -> None:
    paste(page, WATCHDOG)
    card = page.locator(CARD)
    top_two = [
        li.get_attribute("data-number") for li in card.locator(".candidates > ol > li").all()[:2]
    ]
    (hint,) = card.locator(".candidates .check-hints > li").all()
    named = {
        (link.get_attribute("href") or "").rsplit("-", 1)[-1]
        for link in hint.locator(".check-targets a").all()
    }
    assert len(named & set(top_two)) == 1, (top_two, named)  # it names one, not both
    expect(hint.locator("pre button.copy")).to_have_count(1)


def test_a_cause_card_shows_its_telling_checks_with_copyable_commands(
    page: Page, console_errors: list[str]
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    paste(page, ILLEGAL_ACCESS)
    card = page.locator("ol.ranked > li").first
    expect(card).to_have_attribute("data-reference-id", "cuda-illegal-memory-access")
    hints = card.locator(".next-steps .check-hints > li")
    expect(hints).to_have_count(3)
    expect(card.locator(".next-steps")).to_have_attribute("open", "")
    command = hints.first.locator("pre").first
    command.get_by_role("button", name="Copy to clipboard").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip()
    assert copied.strip() in (command.locator("code").text_content() or "")
    link = hints.first.locator(".check-targets a").first
    expect(link).to_have_attribute("href", re.compile(r"^/r/cuda-illegal-memory-access#cause-\d+$"))
    assert_clean(page, console_errors)


def test_a_diagnostic_card_shows_its_verdict_values_and_next_checks(page: Page) -> None:
    line = labelled_line("speculative-decoding-low-acceptance", "acceptance rate: 0.067")
    paste(page, line)
    card = page.locator("ol.ranked > li").first
    expect(card.locator(".verdict-reading")).to_contain_text("0.067")
    expect(card.locator(".next-steps .check-hints > li").first).to_be_visible()


def test_this_was_it_is_counted_and_shown_on_the_cause(open_page: Callable[..., Page]) -> None:
    page = open_page(javascript=False)
    page.goto("/r/cuda-illegal-memory-access")
    before = page.locator("#cause-2 .readers").all_text_contents()
    count = int(before[0].split()[2]) if before else 0
    with page.expect_navigation():
        page.get_by_role("button", name=re.compile(r"^This was it")).nth(1).click()
    assert page.url.endswith("?outcome=thanks#cause-2"), page.url
    expect(page.locator("section[aria-labelledby=s-causes] .thanks")).to_contain_text(
        "never used to rank"
    )
    expected = f"confirmed by {count + 1} reader{'s' if count else ''}"
    expect(page.locator("#cause-2 .readers")).to_have_text(expected)
    # Counts never rank: the author's order stands.
    assert causes_in_order(page)[:2] == ["cause-1", "cause-2"]


def test_this_was_it_on_a_result_is_sent_in_place(page: Page, console_errors: list[str]) -> None:
    paste(page, WATCHDOG)
    card = page.locator("li.card[data-reference-id='nccl-collective-timeout']")
    first = card.locator(".candidates > ol > li").first
    first.get_by_role("button", name=re.compile("^This was it")).click()
    expect(first.locator("form.outcome")).to_have_text("Thanks: your answer was counted.")
    expect(page.locator("#results-title")).to_be_visible()  # the results stay on screen
    assert_clean(page, console_errors)


def test_a_no_to_a_confident_card_carries_the_line_it_matched(page: Page) -> None:
    paste(page, ILLEGAL_ACCESS)
    card = page.locator("ol.ranked > li").first
    expect(card.locator("form.feedback input[name=line]")).to_have_value(ILLEGAL_ACCESS.strip())
    with page.expect_response(lambda r: r.url.endswith("/feedback")) as answer:
        card.get_by_role("button", name="No").click()
    assert answer.value.status == 204
    assert "line=" in (answer.value.request.post_data or "")


def test_screenshots_of_next_steps(open_page: Callable[..., Page], screenshots: Path) -> None:
    shots = []
    for name, viewport, scale in (("", None, 1), ("phone-", PHONE, 2)):
        page = open_page(viewport=viewport, scale=scale) if viewport else open_page()
        paste(page, WATCHDOG)
        page.locator(f"{CARD} details.mark-checks > summary").click()
        page.evaluate("document.querySelector('.candidates').scrollIntoView()")
        shots.append(shoot(page, screenshots, f"{name}results-symptom"))
        page.goto(f"{TIMEOUT_PAGE}?check1=confirms-6&check4=rules_out#s-causes")
        shots.append(shoot(page, screenshots, f"{name}reference-reranked"))
    for shot in shots:
        assert 0 < shot.stat().st_size <= MAX_SCREENSHOT_BYTES, shot
