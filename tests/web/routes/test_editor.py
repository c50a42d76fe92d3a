"""Editor pages: sign-in, edit with preview and save, conflicts, create, history, gaps."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from editing_helpers import form_fields, library_of, new_editor, sign_in
from fastapi.testclient import TestClient
from paths import REFERENCES
from sqlmodel import Session, func, select
from store_helpers import in_database_mode

from failref.config import Settings
from failref.services.editing import editable_file
from failref.store.models import GapRow, RevisionRow
from failref.web.factory import create_app

WATCHDOG = (
    "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, "
    "OpType=ALLREDUCE) ran for 600012 milliseconds before timing out."
)


TITLE = "title: One rank is stuck while the others wait"
SUMMARY = "summary: A rank stops making progress and its peers time out in a collective."


def folder_of(client: TestClient) -> Path:
    return library_of(client).settings.references_dir


def revision_count(client: TestClient) -> int:
    with Session(library_of(client).engine) as session:
        return session.exec(select(func.count()).select_from(RevisionRow)).one()


def edit_page(client: TestClient, reference_id: str = "stuck-rank") -> tuple[str, dict[str, str]]:
    response = client.get(f"/r/{reference_id}/edit")
    assert response.status_code == 200
    text = (library_of(client).settings.references_dir / f"{reference_id}.md").read_text()
    return text, form_fields(response.text)


def test_editing_is_off_until_an_editor_exists(client: TestClient) -> None:
    response = client.get("/r/stuck-rank/edit")
    assert response.status_code == 403
    assert "failref editor add" in response.text


def test_anonymous_visitor_gets_401(client: TestClient) -> None:
    new_editor(client)
    assert client.get("/r/stuck-rank/edit").status_code == 401
    assert client.post("/r/stuck-rank/edit", data={"text": "x"}).status_code == 401


def test_login_sets_a_hardened_cookie_and_redirects_only_on_site(client: TestClient) -> None:
    token = new_editor(client)
    for target, expected in [
        ("/r/stuck-rank", "/r/stuck-rank"),
        ("//evil.example", "/"),
        ("https://evil.example", "/"),
        ("/\\evil.example", "/"),
    ]:
        response = client.post(
            "/login", data={"token": token, "next": target}, follow_redirects=False
        )
        assert response.status_code == 303
        assert response.headers["location"] == expected
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=lax" in cookie


def test_a_401_leads_to_sign_in_and_back_to_the_page_asked_for(client: TestClient) -> None:
    """Issue 34, item 8: the 401 offered only "Back to the start page"."""
    token = new_editor(client)
    denied = client.get("/r/stuck-rank/edit")
    assert denied.status_code == 401
    link = re.search(r'href="(/login\?next=[^"]+)"', denied.text)
    assert link is not None
    assert html.unescape(link.group(1)) == "/login?next=%2Fr%2Fstuck-rank%2Fedit"
    form = client.get(html.unescape(link.group(1)))
    assert 'name="next" value="/r/stuck-rank/edit"' in form.text
    signed = client.post(
        "/login", data={"token": token, "next": "/r/stuck-rank/edit"}, follow_redirects=False
    )
    assert signed.headers["location"] == "/r/stuck-rank/edit"
    assert client.get("/r/stuck-rank/edit").status_code == 200


def test_the_footer_offers_sign_in_until_signed_in(client: TestClient) -> None:
    token = new_editor(client)
    page = client.get("/references", params={"q": "nccl"}).text
    assert 'href="/login?next=%2Freferences%3Fq%3Dnccl"' in page
    client.post("/login", data={"token": token, "next": "/"})
    assert "/login?next=" not in client.get("/references").text


def test_the_editor_links_the_format_guide(client: TestClient) -> None:
    sign_in(client)
    shipped_readme = (REFERENCES / "README.md").read_text()
    (library_of(client).settings.references_dir / "README.md").write_text(shipped_readme)
    editing = client.get("/r/stuck-rank/edit").text
    assert 'href="/references/format"' in editing
    guide = client.get("/references/format")
    assert guide.status_code == 200
    assert "<h1>Writing a reference</h1>" in guide.text
    (library_of(client).settings.references_dir / "README.md").unlink()
    assert client.get("/references/format").status_code == 404


def test_token_in_the_url_is_refused(client: TestClient) -> None:
    assert client.get("/login", params={"token": "fr1.1.x"}).status_code == 422


def test_wrong_token_shows_the_form_again(client: TestClient) -> None:
    new_editor(client)
    response = client.post("/login", data={"token": "fr1.1.nope"})
    assert response.status_code == 401
    assert 'class="form-error" role="alert" id="login-error">Unknown or revoked token' in (
        response.text
    )
    assert 'aria-invalid="true" aria-describedby="login-error"' in response.text


def test_a_file_no_load_accepts_is_not_opened_whole(client: TestClient) -> None:
    """Issue 35, item 12: a 50 MB file the loader rejects was sent whole, in a 50 MB page."""
    sign_in(client)
    folder = library_of(client).settings.references_dir
    with (folder / "huge-file.md").open("wb") as handle:
        handle.truncate(50 << 20)
    response = client.get("/r/huge-file/edit")
    assert response.status_code == 413
    assert "huge-file.md: over the 262,144-byte limit" in response.text
    assert len(response.content) < 100_000


def test_preview_renders_and_saves_nothing(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    before = revision_count(client)
    edited = text.replace("A dead host.", "A host that died.")
    response = client.post(
        "/r/stuck-rank/edit", data={**fields, "text": edited, "action": "preview"}
    )
    assert response.status_code == 200
    assert "Preview (not saved)" in response.text
    assert "A host that died" in response.text
    assert revision_count(client) == before
    assert (library_of(client).settings.references_dir / "stuck-rank.md").read_text() == text


def test_preview_lists_validation_errors_with_lines(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    broken = text.replace("## Sources", "## Sauces")
    response = client.post(
        "/r/stuck-rank/edit", data={**fields, "text": broken, "action": "preview"}
    )
    link = (
        '<a href="#L34" data-line="34">line 34</a>: sections: unexpected section &#39;Sauces&#39;'
    )
    assert link in response.text
    # The link lands on line 34 of the numbered copy of the submitted text.
    assert '<span class="log-line" id="L34"><a class="ln" href="#L34">34</a>## Sauces</span>' in (
        response.text
    )


def test_preview_of_an_invalid_text_still_shows_how_it_reads(client: TestClient) -> None:
    """Issue 34, item 4: a text with problems got no preview at all."""
    sign_in(client)
    text, fields = edit_page(client)
    broken = text.replace("## Sources", "## Sauces").replace("A dead host.", "A **dead** host.")
    response = client.post(
        "/r/stuck-rank/edit", data={**fields, "text": broken, "action": "preview"}
    )
    assert "Preview (not saved, not valid yet)" in response.text
    assert "<h1>One rank is stuck while the others wait</h1>" in response.text
    assert "<h2>Sauces</h2>" in response.text
    assert "A <strong>dead</strong> host." in response.text


def test_save_writes_the_file_records_a_revision_and_reloads(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    edited = text.replace("A dead host.", "A host that died.")
    data = {**fields, "text": edited, "action": "save", "message": "clearer"}
    response = client.post("/r/stuck-rank/edit", data=data, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/r/stuck-rank?saved=1"
    assert (library_of(client).settings.references_dir / "stuck-rank.md").read_text() == edited
    assert "A host that died" in client.get("/r/stuck-rank").text
    with Session(library_of(client).engine) as session:
        latest = session.exec(select(RevisionRow).order_by(RevisionRow.id.desc())).first()  # type: ignore[union-attr]
    assert latest is not None
    assert (latest.author, latest.message) == ("ann", "clearer")


def test_invalid_save_is_422_and_writes_nothing(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    before = revision_count(client)
    response = client.post(
        "/r/stuck-rank/edit",
        data={**fields, "text": text.replace("## Causes", "## Reasons"), "action": "save"},
    )
    assert response.status_code == 422
    assert "nothing was saved" in response.text
    assert revision_count(client) == before
    assert (library_of(client).settings.references_dir / "stuck-rank.md").read_text() == text


def test_stale_save_is_409_with_the_overlap_to_decide_and_the_text_kept(
    client: TestClient,
) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    path.write_text(text.replace("A dead host.", "A host changed in git."))
    mine = text.replace("A dead host.", "My change.").replace("\n", "\r\n")
    response = client.post("/r/stuck-rank/edit", data={**fields, "text": mine, "action": "save"})
    assert response.status_code == 409
    assert "A host changed in git." in path.read_text()
    html = response.text
    # One stretch to decide, not the whole file: the browser's CRLF endings are no change.
    assert "1 stretch changed on both sides" in html
    assert html.count('class="conflict-hunk"') == 1
    assert "When you started" in html
    textarea = html.split('name="text"', 1)[1].split("</textarea>", 1)[0]
    assert (
        "&lt;&lt;&lt;&lt;&lt;&lt;&lt; saved meanwhile\n3. **A host changed in git.** " in textarea
    )
    assert (
        "The process is gone.\n=======\n3. **My change.** The process is gone.\n&gt;&gt;&gt;"
        in (textarea)
    )
    assert "\r" not in textarea
    again = client.get("/r/stuck-rank/edit")
    assert "kept after a conflict" in again.text
    assert "My change." in again.text


@pytest.fixture(params=["folder", "database"])
def store_client(request: pytest.FixtureRequest, settings: Settings) -> Iterator[TestClient]:
    """A client of an app saving to the folder, or to the database only."""
    chosen = settings if request.param == "folder" else in_database_mode(settings)
    with TestClient(create_app(chosen)) as test_client:
        yield test_client


def current_text(client: TestClient) -> str:
    found = editable_file(library_of(client), "stuck-rank")
    assert found is not None
    return found[0]


def test_a_stale_save_of_the_next_line_merges_and_saves(store_client: TestClient) -> None:
    """Issue 34, item 9: the title (line 3) in one tab and the summary (line 4) in another,
    from the same base, was a conflict."""
    client = store_client
    sign_in(client)
    _, fields = edit_page(client)
    text = current_text(client)
    before = revision_count(client)
    folder = {path.name: path.read_bytes() for path in folder_of(client).iterdir()}
    theirs = text.replace(TITLE, "title: One rank hangs")
    first = client.post(
        "/r/stuck-rank/edit",
        data={**fields, "text": theirs, "action": "save", "message": "shorter title"},
        follow_redirects=False,
    )
    assert first.status_code == 303
    mine = text.replace(SUMMARY, "summary: A rank hangs and its peers time out.")
    response = client.post(
        "/r/stuck-rank/edit",
        data={**fields, "text": mine.replace("\n", "\r\n"), "action": "save"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/r/stuck-rank/history?merged=1"
    merged = theirs.replace(SUMMARY, "summary: A rank hangs and its peers time out.")
    assert current_text(client) == merged
    assert revision_count(client) == before + 2  # theirs and the merge
    history = client.get(response.headers["location"])
    assert "the text now holds both" in history.text
    newest = history.text.split('<li id="revision-2">')[0]
    assert "summary changed; merged with a change saved meanwhile (title changed)" in newest
    assert "Summary changed" in newest
    if library_of(client).settings.store_of_record == "database":
        after = {path.name: path.read_bytes() for path in folder_of(client).iterdir()}
        assert after == folder


def test_a_merge_that_fails_the_checks_is_a_conflict_and_saves_nothing(
    client: TestClient,
) -> None:
    """Each change passes alone; merged, the check names the cause the other deleted."""
    sign_in(client)
    text, fields = edit_page(client)
    path = folder_of(client) / "stuck-rank.md"
    theirs = text.replace("3. **A dead host.** The process is gone.\n", "")
    saved = client.post(
        "/r/stuck-rank/edit",
        data={**fields, "text": theirs, "action": "save"},
        follow_redirects=False,
    )
    assert saved.status_code == 303
    mine = text.replace("**confirm** cause 1", "**confirm** cause 3")
    response = client.post("/r/stuck-rank/edit", data={**fields, "text": mine, "action": "save"})
    assert response.status_code == 409
    assert "the merged text fails the checks of a save" in response.text
    assert "Nothing overlaps" in response.text
    assert path.read_text() == theirs
    textarea = response.text.split('name="text"', 1)[1].split("</textarea>", 1)[0]
    assert "**confirm** cause 3" in html.unescape(textarea)
    assert "A dead host." not in textarea


def test_a_save_with_a_conflict_marker_left_in_is_refused(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    marked = text.replace(
        "3. **A dead host.**", "<<<<<<< saved meanwhile\n3. **A dead host.**\n======="
    ).replace("The process is gone.", "The process is gone.\n>>>>>>> your version")
    response = client.post("/r/stuck-rank/edit", data={**fields, "text": marked, "action": "save"})
    assert response.status_code == 422
    assert "conflict: a conflict marker is left in" in response.text
    assert (
        "A dead host." in (library_of(client).settings.references_dir / "stuck-rank.md").read_text()
    )


def test_a_save_from_a_browser_stores_plain_newlines(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    crlf = text.replace("A dead host.", "A host that died.").replace("\n", "\r\n")
    client.post("/r/stuck-rank/edit", data={**fields, "text": crlf, "action": "save"})
    path = library_of(client).settings.references_dir / "stuck-rank.md"
    assert path.read_bytes() == text.replace("A dead host.", "A host that died.").encode()
    newest = client.get("/r/stuck-rank/history").text.split('<li id="revision-1">')[0]
    assert newest.count('<ins class="diff-add">') == 1
    assert newest.count('<del class="diff-del">') == 1
    assert '<ins class="diff-add">+3. **A host that died.** The process is gone.</ins>' in newest


def test_missing_csrf_token_is_403(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    data = {"base": fields["base"], "text": text, "action": "save"}
    assert client.post("/r/stuck-rank/edit", data=data).status_code == 403
    stale = {**data, "csrf_token": "not-the-token"}
    assert client.post("/r/stuck-rank/edit", data=stale).status_code == 403


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"sec-fetch-site": "cross-site"}, id="cross-site"),
        pytest.param({"sec-fetch-site": "same-site"}, id="same-site"),
        pytest.param({"origin": "https://evil.example"}, id="foreign-origin"),
    ],
)
def test_cross_site_saves_are_403(client: TestClient, headers: dict[str, str]) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    data = {**fields, "text": text.replace("A dead host.", "X."), "action": "save"}
    response = client.post("/r/stuck-rank/edit", data=data, headers=headers)
    assert response.status_code == 403
    assert (
        "A dead host." in (library_of(client).settings.references_dir / "stuck-rank.md").read_text()
    )


def test_create_a_new_reference(client: TestClient) -> None:
    sign_in(client)
    form = client.get("/new")
    assert form.status_code == 200
    fields = form_fields(form.text)
    text = (library_of(client).settings.references_dir / "stuck-rank.md").read_text()
    created = text.replace("id: stuck-rank", "id: brand-new").replace(
        "torch._dynamo hit", "brand new failure hit"
    )
    response = client.post(
        "/new", data={**fields, "text": created, "action": "save"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert client.get("/r/brand-new").status_code == 200
    again = client.post("/new", data={**fields, "text": created, "action": "save"})
    assert again.status_code == 409
    assert "brand-new exists already" in again.text
    assert '<a href="/r/brand-new/edit">edit the existing reference</a>' in again.text
    assert "&lt;&lt;&lt;&lt;&lt;&lt;&lt;" not in again.text


def test_the_untouched_template_is_refused_and_nothing_goes_live(client: TestClient) -> None:
    """Issue 34, item 3: saving the "New reference" page as it opens published the README's
    example, which then answered every watchdog line confidently."""
    sign_in(client)
    shipped_readme = (REFERENCES / "README.md").read_text()
    (library_of(client).settings.references_dir / "README.md").write_text(shipped_readme)
    form = client.get("/new")
    fields = form_fields(form.text)
    text = form.text.split('name="text"', 1)[1].split(">", 1)[1].split("</textarea>", 1)[0]
    assert "id: example-failure" in text
    untouched = html.unescape(text)
    response = client.post("/new", data={**fields, "text": untouched, "action": "save"})
    assert response.status_code == 422
    assert "also matches slow-collective confidently" in html.unescape(response.text)
    assert untouched in html.unescape(response.text)  # the text is kept to be fixed
    assert not (library_of(client).settings.references_dir / "example-failure.md").exists()
    assert client.get("/r/example-failure").status_code == 404
    watchdog = client.post("/api/v1/match", json={"log": WATCHDOG}).json()["matches"]
    assert watchdog[0]["id"] == "slow-collective"


def test_a_save_that_failref_check_would_reject_is_refused(client: TestClient) -> None:
    """A web edit never breaks the docs team's CI: a message that another reference's
    messages match confidently is refused, as `failref check` refuses it."""
    token = new_editor(client)
    text = (library_of(client).settings.references_dir / "stuck-rank.md").read_text()
    colliding = text.replace("id: stuck-rank", "id: copycat")
    response = client.put(
        "/api/v1/references/copycat",
        content=colliding.encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-none-match": "*",
        },
    )
    assert response.status_code == 422
    problems = response.json()["error"]["problems"]
    assert any("also matches stuck-rank confidently" in problem for problem in problems)
    assert not (library_of(client).settings.references_dir / "copycat.md").exists()


def test_history_lists_revisions_and_restore_makes_a_new_one(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    data = {
        **fields,
        "text": text.replace("A dead host.", "Second."),
        "action": "save",
        "message": "second",
    }
    client.post("/r/stuck-rank/edit", data=data)
    history = client.get("/r/stuck-rank/history")
    assert history.status_code == 200
    assert "files" in history.text
    assert "second" in history.text
    first_id = min(int(x) for x in re.findall(r"/r/stuck-rank/restore/(\d+)", history.text))
    restored = client.post(
        f"/r/stuck-rank/restore/{first_id}",
        data={"csrf_token": fields["csrf_token"]},
        follow_redirects=False,
    )
    assert restored.status_code == 303
    assert (library_of(client).settings.references_dir / "stuck-rank.md").read_text() == text
    after = client.get("/r/stuck-rank/history").text
    # Numbered as the list is (1 is the oldest), not by database id.
    assert "restored revision 1" in after
    numbers = re.findall(r'<li id="revision-(\d+)">\s*<h2>Revision (\d+)</h2>', after)
    assert numbers == [("3", "3"), ("2", "2"), ("1", "1")]
    # Revisions 3 and 1 hold the text now: only revision 2 is there to restore.
    assert re.findall(r"Restore revision (\d+)", after) == ["2"]
    assert after.count("Same text as now.") == 2


def history_entries(client: TestClient) -> list[str]:
    """The history page's entries, newest first, as HTML."""
    page = client.get("/r/stuck-rank/history")
    assert page.status_code == 200
    assert page.template.name == "history.html"  # type: ignore[attr-defined]
    return page.text.split('<ol class="history">', 1)[1].split("</ol>", 1)[0].split("<li ")[1:]


def test_history_shows_each_number_once_with_its_message_or_what_it_changed(
    client: TestClient,
) -> None:
    """Issue 34, item 9: revisions without a message read "edited", and each number showed
    twice ("5. Revision 5")."""
    sign_in(client)
    text, fields = edit_page(client)
    edits = [
        (text.replace(TITLE, "title: One rank hangs"), ""),
        (text.replace(TITLE, "title: One rank hangs").replace("A dead host.", "B."), "why"),
    ]
    for edited, message in edits:
        data = {**fields, "text": edited, "action": "save", "message": message}
        assert client.post("/r/stuck-rank/edit", data=data, follow_redirects=False).is_redirect
        fields = edit_page(client)[1]
    newest, middle, oldest = history_entries(client)
    assert "<ol " not in newest  # one list, its markers hidden; the number is in the heading
    for entry, number in ((newest, 3), (middle, 2), (oldest, 1)):
        assert entry.startswith(f'id="revision-{number}">')
        # The words shown, date aside, hold the number once: in "Revision N".
        shown = re.sub(r"<time.*?</time>|<[^>]+>", " ", "<li " + entry.split("<details>")[0])
        assert re.findall(r"\d+", shown) == [str(number)]
        assert "ann" in entry or "files" in entry
        assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT', entry)
    assert '<p class="revision-message">why</p>' in newest
    assert '<p class="revision-changed">Causes changed</p>' in newest
    assert 'Title changed <span class="meta">(saved without a message)</span>' in middle
    assert "edited" not in middle
    assert '<p class="revision-message">loaded from file</p>' in oldest
    assert '<p class="revision-changed">Created</p>' in oldest


def test_each_revision_links_its_difference_to_the_text_now(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    data = {**fields, "text": text.replace("A dead host.", "Second."), "action": "save"}
    assert client.post("/r/stuck-rank/edit", data=data, follow_redirects=False).is_redirect
    newest, oldest = history_entries(client)
    assert "Same text as now." in newest
    assert "Difference to the text now" not in newest
    link = re.search(r'href="(/r/stuck-rank/history/(\d+))">Difference to the text now<', oldest)
    assert link is not None
    page = client.get(link.group(1))
    assert page.status_code == 200
    assert page.template.name == "revision.html"  # type: ignore[attr-defined]
    assert "<h1>Revision 1 of" in page.text
    assert '<del class="diff-del">-3. **A dead host.** The process is gone.</del>' in page.text
    assert '<ins class="diff-add">+3. **Second.** The process is gone.</ins>' in page.text
    assert f"/r/stuck-rank/restore/{link.group(2)}" in page.text
    newest_id = re.search(r'id="revision-2">', newest)
    assert newest_id is not None
    missing = client.get("/r/stuck-rank/history/999999")
    assert missing.status_code == 404


def test_the_difference_to_the_text_now_is_for_editors_only(client: TestClient) -> None:
    new_editor(client)
    assert client.get("/r/stuck-rank/history/1").status_code == 401


def test_gaps_list_shows_redacted_unanswered_queries(client: TestClient) -> None:
    sign_in(client)
    shipped_readme = REFERENCES / "README.md"
    (library_of(client).settings.references_dir / "README.md").write_text(
        shipped_readme.read_text()
    )
    secret_line = "Connection refused for user bob password=hunter2 at node7.cluster.local"
    client.post("/api/v1/match", json={"log": secret_line})
    client.post("/api/v1/match", json={"log": secret_line})
    assert library_of(client).gaps.flush(timeout=30)
    with Session(library_of(client).engine) as session:
        rows = session.exec(select(GapRow)).all()
    assert len(rows) == 1
    assert rows[0].count == 2
    assert "hunter2" not in rows[0].template + rows[0].example
    page = client.get("/admin/gaps")
    assert page.status_code == 200
    assert "hunter2" not in page.text
    assert f"/new?gap={rows[0].id}" in page.text
    start = client.get(f"/new?gap={rows[0].id}")
    textarea = start.text.split('name="text"', 1)[1].split("</textarea>", 1)[0]
    line = "Connection refused for user bob password=&lt;secret&gt; at &lt;host&gt;"
    assert f"## Message\n\n```text\n{line}\n```\n\n## Context" in textarea
    # Nothing else is filled in: no example values, calculator or placeholder source.
    for example in ("One line naming the failure", "calculator:", "example.org", "pytorch#12345"):
        assert example not in textarea
    assert "\ntitle:\n" in textarea


def test_starting_a_reference_from_an_xid_gap_keeps_its_placeholders(client: TestClient) -> None:
    sign_in(client)
    shipped_readme = REFERENCES / "README.md"
    (library_of(client).settings.references_dir / "README.md").write_text(
        shipped_readme.read_text()
    )
    client.post("/api/v1/match", json={"log": "NVRM: Xid (PCI:0000:3b:00): 201, pid=1234, odd"})
    page = client.get("/admin/gaps").text
    line = "NVRM: Xid (PCI:&lt;hex&gt;): 201, pid=&lt;n&gt;, odd"
    assert f"<code>{line}</code>" in page
    gap_id = re.search(r"/new\?gap=(\d+)", page).group(1)  # type: ignore[union-attr]
    start = client.get(f"/new?gap={gap_id}").text
    assert f"```text\n{line}\n```" in start
    assert "&lt;n&gt;b" not in start
    assert "xid201" not in start


def test_every_page_names_the_editor_signed_in_with_a_sign_out_button(
    client: TestClient,
) -> None:
    sign_in(client)
    csrf = form_fields(client.get("/r/stuck-rank/edit").text)["csrf_token"]
    for path in ("/", "/references", "/r/stuck-rank", "/calculators", "/admin/gaps", "/new"):
        html = client.get(path).text
        assert "Signed in as <strong>ann</strong>" in html, path
        assert '<form method="post" action="/logout" class="sign-out">' in html, path
        assert f'name="csrf_token" value="{csrf}"' in html, path
        assert '<a href="/new"' in html, path
        assert '<a href="/admin/gaps"' in html, path
    assert '<a href="/r/stuck-rank/history">History</a>' in client.get("/r/stuck-rank/edit").text


def test_a_reader_sees_no_editor_bar(client: TestClient) -> None:
    new_editor(client)
    html = client.get("/").text
    assert "Signed in as" not in html
    assert "/logout" not in html


def test_logout_ends_the_session_on_the_server(client: TestClient) -> None:
    sign_in(client)
    _, fields = edit_page(client)
    cookie = client.cookies.get("failref_session")
    response = client.post(
        "/logout", data={"csrf_token": fields["csrf_token"]}, follow_redirects=False
    )
    assert response.status_code == 303
    client.cookies.set("failref_session", cookie or "")
    assert client.get("/r/stuck-rank/edit").status_code == 401


def test_read_only_mirror_refuses_editing(settings: object, tmp_path: Path) -> None:
    from failref.config import Settings
    from failref.web.factory import create_app

    assert isinstance(settings, Settings)
    read_only = settings.model_copy(update={"read_only": True})
    with TestClient(create_app(read_only)) as mirror:
        new_editor(mirror)
        response = mirror.get("/r/stuck-rank/edit")
    assert response.status_code == 403
    assert "read-only" in response.text


def test_a_file_over_256_kb_is_413_and_kept_in_the_form(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    before = revision_count(client)
    huge = text + "\n" + "x" * 600_000
    response = client.post("/r/stuck-rank/edit", data={**fields, "text": huge, "action": "save"})
    assert response.status_code == 413
    assert "262144 limit" in response.text
    assert revision_count(client) == before
    assert (library_of(client).settings.references_dir / "stuck-rank.md").read_text() == text


def test_after_a_save_the_page_says_so(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    data = {**fields, "text": text.replace("A dead host.", "Saved host."), "action": "save"}
    page = client.post("/r/stuck-rank/edit", data=data)
    assert page.status_code == 200
    assert "Saved: the file, a new revision and the index are updated." in page.text


def test_preview_of_an_oversized_file_keeps_the_text(client: TestClient) -> None:
    sign_in(client)
    text, fields = edit_page(client)
    huge = text + "\nUNSAVED-MARKER\n" + "x" * 300_000
    response = client.post("/r/stuck-rank/edit", data={**fields, "text": huge, "action": "preview"})
    assert response.status_code == 413
    assert "UNSAVED-MARKER" in response.text
