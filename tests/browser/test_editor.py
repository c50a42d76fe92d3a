"""The docs writer's pages in Chromium: an editor that fills the page with line numbers and
errors linked to their lines, a preview naming the labelled lines it moves, a three-way
conflict, the signed-in bar on every page, coloured history diffs, starting from a gap."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from browser.conftest import LiveServer, serve
from playwright.sync_api import Dialog, Page, ViewportSize, expect

from failref.config import PROJECT_ROOT
from failref.services.editors import add_editor
from failref.services.library import Library

pytestmark = pytest.mark.browser

DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
MAX_SCREENSHOT_BYTES = 600_000
# A line nothing covers, with a PCI bus id and an Xid number a normaliser could mangle.
UNCOVERED_XID = "NVRM: Xid (PCI:0000:3b:00): 201, pid=1234, widget frobnication fault"


@pytest.fixture(scope="module")
def editing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of its own (these tests save files) on the shipped references and README."""
    folder = PROJECT_ROOT / "references"
    server = serve(tmp_path_factory.mktemp("editing"), sorted(folder.glob("*.md")))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def token(editing_server: LiveServer) -> str:
    library: Library = editing_server.server.config.app.state.library  # type: ignore[attr-defined]
    return add_editor(library, "ann")


@pytest.fixture
def editor_page(
    open_page: Callable[..., Page], editing_server: LiveServer, token: str
) -> Callable[..., Page]:
    """Opens a page signed in as the editor `ann`."""

    def open_signed_in(viewport: ViewportSize = DESKTOP, javascript: bool = True) -> Page:
        page = open_page(viewport=viewport, javascript=javascript, base_url=editing_server.url)
        page.goto("/login")
        page.fill("input[name=token]", token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(re.compile(r"/$"))
        return page

    return open_signed_in


def test_an_editor_sent_away_by_a_401_signs_in_and_comes_back(
    open_page: Callable[..., Page], editing_server: LiveServer, token: str, screenshots: Path
) -> None:
    """Issue 34, item 8: the 401 was a dead end, the wrong-token message plain text."""
    page = open_page(base_url=editing_server.url)
    page.goto("/r/cuda-out-of-memory/edit")
    expect(page.locator("h1")).to_have_text("401")
    page.get_by_role("link", name="Sign in").click()
    page.fill("input[name=token]", "fr1.1.not-a-token")
    page.get_by_role("button", name="Sign in").click()
    error = page.locator("#login-error")
    expect(error).to_have_text("Unknown or revoked token.")
    assert error.evaluate("e => getComputedStyle(e).borderLeftStyle") == "solid"
    field = page.locator("input[name=token]").bounding_box()
    button = page.get_by_role("button", name="Sign in").bounding_box()
    assert field is not None
    assert button is not None
    assert button["y"] >= field["y"] + field["height"] + 8  # the button apart from the field
    page.screenshot(path=screenshots / "login-wrong-token.png")
    page.fill("input[name=token]", token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/r/cuda-out-of-memory/edit$"))
    expect(page.locator("#text")).to_be_visible()


def textarea_box(page: Page) -> dict[str, float]:
    box = page.locator("#text").bounding_box()
    assert box is not None
    return {"width": box["width"], "height": box["height"]}


def save(page: Page) -> None:
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_load_state()


def test_the_editor_fills_the_width_and_most_of_the_height(
    editor_page: Callable[..., Page],
) -> None:
    page = editor_page()
    page.goto("/r/cuda-graph-capture/edit")
    box = textarea_box(page)
    assert box["width"] >= 0.8 * DESKTOP["width"], box
    assert box["height"] >= 0.6 * DESKTOP["height"], box
    assert_no_axe_violations(page)
    phone = editor_page(viewport=PHONE)
    phone.goto("/r/cuda-graph-capture/edit")
    box = textarea_box(phone)
    assert box["width"] >= 0.75 * PHONE["width"], box
    assert box["height"] >= 0.6 * PHONE["height"], box
    widths = phone.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]


def test_line_numbers_follow_the_text_and_its_scrolling(editor_page: Callable[..., Page]) -> None:
    page = editor_page()
    page.goto("/r/cuda-graph-capture/edit")
    lines = page.input_value("#text").count("\n") + 1
    gutter = page.locator(".editor-frame .gutter")
    assert gutter.inner_text().split() == [str(n) for n in range(1, lines + 1)]
    assert gutter.get_attribute("aria-hidden") == "true"
    page.locator("#text").press("Control+Home")
    page.locator("#text").press("Enter")
    assert gutter.inner_text().split()[-1] == str(lines + 1)
    page.evaluate("document.querySelector('#text').scrollTop = 400")
    page.wait_for_function("() => document.querySelector('.gutter').scrollTop === 400")
    # Line 20 of the gutter sits level with line 20 of the text.
    tops = page.evaluate(
        """() => {
          const area = document.querySelector('#text');
          const gutter = document.querySelector('.gutter');
          const style = getComputedStyle(area);
          return [parseFloat(style.lineHeight), parseFloat(getComputedStyle(gutter).lineHeight),
                  parseFloat(style.paddingTop) + parseFloat(style.borderTopWidth),
                  parseFloat(getComputedStyle(gutter).paddingTop)
                    + parseFloat(getComputedStyle(gutter).borderTopWidth)];
        }"""
    )
    assert tops[0] == tops[1]
    assert tops[2] == tops[3]


LAPTOP: ViewportSize = {"width": 1366, "height": 768}


def test_prose_wraps_with_numbers_beside_each_line_and_save_stays_in_view(
    editor_page: Callable[..., Page], screenshots: Path
) -> None:
    """Issue 34, item 4: a paragraph was one 1,351-character line scrolling 11,460 px
    sideways, and Save and Preview sat below the fold at 1366x768."""
    page = editor_page(viewport=LAPTOP)
    page.goto("/r/thermal-throttling-straggler/edit")
    area = page.locator("#text")
    assert area.evaluate("e => e.scrollWidth <= e.clientWidth")  # no sideways scrolling
    lines = page.input_value("#text").split("\n")
    longest = max(range(len(lines)), key=lambda i: len(lines[i]))
    numbers = page.locator(".editor-frame .gutter > div")
    expect(numbers).to_have_count(len(lines))
    row = float(area.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)"))
    tall = numbers.nth(longest).bounding_box()
    assert tall is not None
    assert tall["height"] > 2 * row  # the wrapped line's number spans its rows
    for name in ("Save", "Preview"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= LAPTOP["height"]
    page.screenshot(path=screenshots / "editor-laptop-wrapped.png")


def test_ctrl_s_saves_and_sets_updated_to_today(editor_page: Callable[..., Page]) -> None:
    page = editor_page(viewport=LAPTOP)
    page.goto("/r/thermal-throttling-straggler/edit")
    text = page.input_value("#text")
    old = re.search(r"^updated: .*$", text, re.M)
    assert old is not None
    page.fill("#text", text.replace("## Context", "## Context\n\nA sentence added.", 1))
    with page.expect_navigation():
        page.locator("#text").press("Control+s")
    saved = page.goto("/api/v1/references/thermal-throttling-straggler/text")
    assert saved is not None
    body = saved.text()
    assert "A sentence added." in body
    today = page.evaluate("new Date().toISOString().slice(0, 10)")
    assert f"\nupdated: {today}\n" in body


def test_leaving_with_unsaved_text_asks_first(editor_page: Callable[..., Page]) -> None:
    page = editor_page(viewport=LAPTOP)
    page.goto("/r/thermal-throttling-straggler/edit")
    asked: list[str] = []

    def dismiss(dialog: Dialog) -> None:
        asked.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", dismiss)
    page.locator("#text").click()
    page.keyboard.press("End")
    page.keyboard.type(" unsaved")
    page.get_by_role("link", name="Gaps").click()
    expect(page).to_have_url(re.compile(r"/edit$"))  # stayed: the text is not lost
    assert asked == ["beforeunload"]
    page.remove_listener("dialog", dismiss)


def test_a_preview_is_scrolled_into_view(editor_page: Callable[..., Page]) -> None:
    page = editor_page(viewport=LAPTOP)
    page.goto("/r/thermal-throttling-straggler/edit")
    with page.expect_navigation():
        page.get_by_role("button", name="Preview", exact=True).click()
    preview = page.locator("#preview")
    expect(preview).to_be_in_viewport()


def broken_preview(page: Page) -> int:
    """Preview the reference with its Sources heading misspelt; the line it is on."""
    page.goto("/r/cuda-graph-capture/edit")
    text = page.input_value("#text")
    line = text.split("\n").index("## Sources") + 1
    page.fill("#text", text.replace("## Sources", "## Sauces"))
    page.get_by_role("button", name="Preview").click()
    page.wait_for_load_state()
    return line


def test_a_text_with_problems_still_previews_how_it_reads(
    editor_page: Callable[..., Page],
) -> None:
    """Issue 34, item 4: an invalid text's preview showed nothing."""
    page = editor_page()
    broken_preview(page)
    expect(page.locator("section.problems")).to_be_visible()
    rough = page.locator("section.preview.rough")
    expect(rough.locator("h2").first).to_have_text("Preview (not saved, not valid yet)")
    expect(rough.locator(".preview-page h2", has_text="Sauces")).to_be_visible()
    assert_no_axe_violations(page)


def test_an_error_link_puts_the_caret_on_its_line(editor_page: Callable[..., Page]) -> None:
    page = editor_page()
    line = broken_preview(page)
    link = page.locator(f".problems a[data-line='{line}']")
    expect(link).to_have_text(f"line {line}")
    link.click()
    caret = page.evaluate(
        """() => {
          const area = document.querySelector('#text');
          const before = area.value.slice(0, area.selectionStart);
          return [document.activeElement === area, before.split('\\n').length,
                  area.value.slice(area.selectionStart, area.selectionEnd)];
        }"""
    )
    assert caret == [True, line, "## Sauces"]
    assert page.evaluate("document.querySelector('#text').scrollTop") > 0
    assert_no_axe_violations(page)


def test_without_javascript_an_error_link_opens_the_numbered_text_at_its_line(
    editor_page: Callable[..., Page],
) -> None:
    page = editor_page(javascript=False)
    line = broken_preview(page)
    page.locator(f".problems a[data-line='{line}']").click()
    assert page.url.endswith(f"#L{line}")
    target = page.locator(f"#L{line}")
    expect(target).to_be_visible()
    expect(target).to_contain_text("## Sauces")
    assert page.locator(".editor-frame .gutter").count() == 0


def test_the_preview_names_the_labelled_lines_whose_verdict_changed(
    editor_page: Callable[..., Page],
) -> None:
    page = editor_page()
    page.goto("/r/xid-79-fallen-off-bus/edit")
    text = page.input_value("#text")
    page.fill("#text", text.replace("fallen off the bus", "wandered off"))
    page.get_by_role("button", name="Preview").click()
    page.wait_for_load_state()
    rows = page.locator("table.verdict-changes tbody tr")
    assert rows.count() >= 1
    first = rows.first.locator("td")
    expect(first.nth(1)).to_contain_text("(xid-79-fallen-off-bus)")
    expect(first.nth(2)).to_contain_text("(xid-79-fallen-off-bus)")
    expect(first.nth(0)).to_contain_text(".yaml")
    assert page.locator("table.verdict-changes tr.now-wrong").count() >= 1
    expect(page.locator(".preview")).to_contain_text(
        "placed differently than with the saved version"
    )
    assert_no_axe_violations(page)


def with_last_line_marked(text: str, mark: str) -> str:
    """The text with `mark` at the end of its last line (a source entry, far from the title),
    whatever the page's prose says."""
    body = text.rstrip("\n")
    return body + mark + text[len(body) :]


def updated_date(text: str) -> str:
    """The date a reference's front matter says it was last updated."""
    found = re.search(r"^updated: (\S+)$", text, re.M)
    assert found is not None, "the page has an updated: line"
    return found.group(1)


def test_a_conflict_merges_what_does_not_overlap_and_asks_about_the_rest(
    editor_page: Callable[..., Page],
) -> None:
    page = editor_page()
    page.goto("/r/gpu-p2p-blocked/edit")
    base = page.input_value("#text")
    # A save sets `updated:` to today: on any day but the page's own, both sides would make
    # that change alike. The browser's clock is held at the page's date, so only the
    # changes below differ, whatever day the test runs.
    page.context.clock.set_fixed_time(f"{updated_date(base)}T12:00:00Z")
    # Meanwhile, another tab saves a change to the title and one further down.
    other = page.context.new_page()
    other.goto("/r/gpu-p2p-blocked/edit")
    theirs = with_last_line_marked(base, " (theirs)")
    theirs = theirs.replace("title: GPU peer-to-peer blocked", "title: GPU P2P blocked (theirs)")
    other.fill("#text", theirs)
    save(other)
    assert "saved=1" in other.url
    yours = base.replace("title: GPU peer-to-peer blocked", "title: GPU P2P blocked (yours)")
    yours = yours.replace("**Virtual machines.**", "**Virtual machines (yours).**")
    page.fill("#text", yours)
    save(page)
    conflict = page.locator("section.conflict")
    expect(conflict).to_contain_text("Merged by themselves: 1 change of yours, 1 saved meanwhile.")
    assert page.locator(".conflict-hunk").count() == 1
    hunk = page.locator(".conflict-hunk")
    expect(hunk.locator(".base")).to_contain_text("title: GPU peer-to-peer blocked")
    expect(hunk.locator(".theirs")).to_contain_text("(theirs)")
    expect(hunk.locator(".yours")).to_contain_text("(yours)")
    merged = page.input_value("#text")
    assert merged.rstrip().endswith("(theirs)")
    assert "**Virtual machines (yours).**" in merged
    assert "<<<<<<< saved meanwhile" in merged
    # The page is short: the file is not shown twice.
    assert page.evaluate("document.body.scrollHeight") < 4000
    assert_no_axe_violations(page)
    hunk.get_by_role("button", name="Keep yours").click()
    settled = page.input_value("#text")
    assert "<<<<<<<" not in settled
    assert ">>>>>>>" not in settled
    assert "title: GPU P2P blocked (yours)" in settled
    save(page)
    assert "saved=1" in page.url
    expect(page.locator("h1")).to_contain_text("GPU P2P blocked (yours)")
    page.goto("/r/gpu-p2p-blocked/edit")
    assert page.input_value("#text") == with_last_line_marked(yours, " (theirs)")


def test_every_page_says_who_is_signed_in_and_signs_out(
    editor_page: Callable[..., Page],
) -> None:
    page = editor_page()
    for path in ("/", "/references", "/r/cuda-out-of-memory", "/calculators", "/admin/gaps"):
        page.goto(path)
        bar = page.locator("header.site .signed-in")
        expect(bar).to_contain_text("Signed in as ann")
        expect(bar.get_by_role("link", name="New reference")).to_be_visible()
        expect(bar.get_by_role("link", name="Gaps")).to_be_visible()
    page.goto("/r/cuda-out-of-memory")
    expect(page.locator(".signed-in").get_by_role("link", name="History")).to_have_attribute(
        "href", "/r/cuda-out-of-memory/history"
    )
    assert_no_axe_violations(page)
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator(".signed-in").count() == 0
    assert page.goto("/r/cuda-out-of-memory/edit").status == 401  # type: ignore[union-attr]


def test_history_diffs_are_coloured_and_numbered_as_the_list(
    editor_page: Callable[..., Page],
) -> None:
    page = editor_page()
    page.goto("/r/nvlink-errors/edit")
    text = page.input_value("#text")
    page.fill("#text", text.replace("## Context\n", "## Context\n\nA line added in a test.\n", 1))
    save(page)
    page.goto("/r/nvlink-errors/history")
    entries = page.locator("ol.history > li")
    assert entries.count() == 2
    expect(entries.nth(0).locator("h2")).to_have_text("Revision 2")
    expect(entries.nth(0).locator(".meta").first).to_contain_text("ann")
    expect(entries.nth(1).locator("h2")).to_have_text("Revision 1")
    expect(entries.nth(1).locator(".meta").first).to_contain_text("files")
    entries.nth(0).locator("summary").click()
    added = entries.nth(0).locator("ins.diff-add", has_text="A line added in a test.")
    expect(added).to_have_css("background-color", "rgb(218, 251, 225)")
    hunk_header = entries.nth(0).locator(".diff-hunk").first
    expect(hunk_header).to_have_css("background-color", "rgb(243, 240, 255)")
    assert_no_axe_violations(page)


MERGED_REFERENCE = "checkpoint-save-stall"
OLD_TITLE = "title: Checkpoint saves stall training"
OLD_SUMMARY = "summary: A synchronous checkpoint save stops every GPU"


def test_edits_of_the_title_and_the_summary_in_two_tabs_merge_into_the_history(
    editor_page: Callable[..., Page], screenshots: Path
) -> None:
    """Issue 34, item 9: the title (line 3) saved in one tab and the summary (line 4) in
    another, both from the same base, was a conflict; the history read "edited" for a
    revision without a message, showed each number twice and had no diff to the text now."""
    page = editor_page()
    page.goto(f"/r/{MERGED_REFERENCE}/edit")
    base = page.input_value("#text")
    assert base.split("\n")[2].startswith(OLD_TITLE)
    assert base.split("\n")[3].startswith(OLD_SUMMARY)
    other = page.context.new_page()
    other.goto(f"/r/{MERGED_REFERENCE}/edit")
    other.fill("#text", base.replace(OLD_TITLE, "title: Checkpoint saves stall a training run"))
    other.fill("input[name=message]", "the title names a run")
    save(other)
    assert "saved=1" in other.url
    page.fill(
        "#text", base.replace(OLD_SUMMARY, "summary: A synchronous checkpoint save halts every GPU")
    )
    save(page)
    expect(page).to_have_url(re.compile(rf"/r/{MERGED_REFERENCE}/history\?merged=1$"))
    expect(page.get_by_role("status")).to_contain_text("the text now holds both")
    saved = page.context.request.get(f"/api/v1/references/{MERGED_REFERENCE}/text").text()
    assert "title: Checkpoint saves stall a training run" in saved
    assert "summary: A synchronous checkpoint save halts every GPU" in saved
    for viewport, name in ((DESKTOP, "history"), (PHONE, "phone-history")):
        tab = editor_page(viewport=viewport)
        tab.goto(f"/r/{MERGED_REFERENCE}/history")
        entries = tab.locator("ol.history > li")
        expect(entries).to_have_count(3)
        # Each number shows once: in its heading, with no list marker before it.
        assert tab.locator("ol.history").evaluate("e => getComputedStyle(e).listStyleType") == (
            "none"
        )
        for index, number in enumerate((3, 2, 1)):
            entry = entries.nth(index)
            expect(entry.locator("h2")).to_have_text(f"Revision {number}")
            head = entry.locator("h2, .meta, .revision-message, .revision-changed")
            shown = " ".join(head.all_inner_texts())
            shown = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "", shown)
            assert re.findall(r"\d+", shown) == [str(number)], shown
            expect(entry.locator("time")).to_have_count(1)
        expect(entries.nth(0).locator(".revision-message")).to_have_text(
            "summary changed; merged with a change saved meanwhile (title changed)"
        )
        expect(entries.nth(1).locator(".revision-message")).to_have_text("the title names a run")
        expect(entries.nth(1).locator(".revision-changed")).to_have_text("Title changed")
        expect(entries.nth(0)).to_contain_text("Same text as now.")
        assert_no_axe_violations(tab)
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        tab.screenshot(path=screenshots / f"{name}.png", full_page=True, clip=clip(tab, 1800))
        entries.nth(2).get_by_role("link", name="Difference to the text now").click()
        expect(tab.locator("h1")).to_have_text(f"Revision 1 of {MERGED_REFERENCE} and the text now")
        removed = tab.locator("del.diff-del", has_text=OLD_TITLE)
        expect(removed).to_have_css("background-color", "rgb(255, 235, 233)")
        expect(tab.locator("ins.diff-add", has_text="halts every GPU")).to_be_visible()
        expect(tab.get_by_role("button", name="Restore revision 1")).to_be_visible()
        assert_no_axe_violations(tab)
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_gap_starts_a_reference_holding_only_its_line(editor_page: Callable[..., Page]) -> None:
    page = editor_page()
    page.goto("/")
    page.fill("textarea[name=log]", UNCOVERED_XID)
    page.get_by_role("button", name="Find references").click()
    page.wait_for_load_state()
    page.goto("/admin/gaps")
    row = page.locator("table.gaps tr", has_text="widget frobnication fault")
    expect(row.locator("code").first).to_have_text(
        "NVRM: Xid (PCI:<hex>): 201, pid=<n>, widget frobnication fault"
    )
    assert_no_axe_violations(page)
    row.get_by_role("link", name="Start a reference").click()
    text = page.input_value("#text")
    assert "```text\nNVRM: Xid (PCI:<hex>): 201, pid=<n>, widget frobnication fault\n```" in text
    for unrelated in ("calculator:", "example.org", "One line naming the failure", "xid201"):
        assert unrelated not in text
    assert_no_axe_violations(page)


# The lines a cell's text takes: one rectangle per line of each text node.
TEXT_LINES = """e => {
  const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  let lines = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    lines += range.getClientRects().length;
  }
  return lines;
}"""


def test_the_gaps_list_keeps_count_date_and_action_whole(
    editor_page: Callable[..., Page], screenshots: Path
) -> None:
    """Issue 34, item 7: the columns were squeezed to "C ou nt" and "Start a refer ence"."""
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = editor_page(viewport=viewport)
        page.goto("/")
        page.fill("textarea[name=log]", UNCOVERED_XID)
        with page.expect_navigation():
            page.get_by_role("button", name="Find references").click()
        page.goto("/admin/gaps")
        row = page.locator("table.gaps tbody tr").first
        headers = page.locator("table.gaps thead th").all()[2:4]
        actions = row.locator(".gap-actions").locator("a, button").all()
        for cell in (*headers, *row.locator("td").all()[2:4], *actions):
            lines = cell.evaluate(TEXT_LINES)
            assert lines == 1, f"{name}: {cell.inner_text()!r} takes {lines} lines"
        page.screenshot(path=screenshots / f"{name}-gaps.png")
        assert_no_axe_violations(page)  # with a row: its context, link and set-aside button
        if viewport == PHONE:
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_screenshots_of_the_editor_and_a_conflict(
    editor_page: Callable[..., Page], screenshots: Path
) -> None:
    shots = []
    for prefix, viewport, reference in (
        ("", DESKTOP, "torch-compile-recompiles"),
        ("phone-", PHONE, "dataloader-worker-killed"),
    ):
        page = editor_page(viewport=viewport)
        page.goto(f"/r/{reference}/edit")
        shots.append(screenshots / f"{prefix}editor.png")
        page.screenshot(path=shots[-1])
        base = page.input_value("#text")
        other = page.context.new_page()
        other.goto(f"/r/{reference}/edit")
        theirs = base.replace("\ntitle: ", "\ntitle: (saved meanwhile) ", 1)
        other.fill("#text", theirs.replace("\n## Context\n", "\n## Context\n\nTheirs.\n", 1))
        save(other)
        yours = base.replace("\ntitle: ", "\ntitle: (your edit) ", 1)
        page.fill("#text", yours.replace("\n## Causes\n", "\nYours.\n\n## Causes\n", 1))
        save(page)
        expect(page.locator(".conflict-hunk")).to_have_count(1)
        page.locator("section.conflict").scroll_into_view_if_needed()
        shots.append(screenshots / f"{prefix}conflict.png")
        page.screenshot(path=shots[-1], full_page=True, clip=clip(page, 1800))
    for shot in shots:
        assert 0 < shot.stat().st_size <= MAX_SCREENSHOT_BYTES, shot


def clip(page: Page, height: int) -> dict[str, float]:
    """The top `height` pixels of the page, at most the whole page."""
    return {
        "x": 0,
        "y": 0,
        "width": page.evaluate("window.innerWidth"),
        "height": min(height, page.evaluate("document.body.scrollHeight")),
    }
