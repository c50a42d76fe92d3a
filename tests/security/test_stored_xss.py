"""Items 1, 2 and 4: a hostile reference loaded through the normal loader runs no script in
any page or JSON field carrying HTML; unsafe link schemes are dropped from bodies and refused
at load in `Seen in` lines, sources and front matter; headings clobber nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from editing_helpers import form_fields, sign_in
from fastapi.testclient import TestClient
from security.helpers import (
    CLOBBERED_NAMES,
    Auditor,
    audit,
    html_fields,
    library_of,
    reference_text,
)

from failref.config import Settings
from failref.web.factory import create_app

HOSTILE_ID = "hostile-markup"
HOSTILE_FILE = Path(__file__).parent / "fixtures" / f"{HOSTILE_ID}.md"
PROBE_MESSAGE = 'probe <script>alert("message")</script> failed with "><svg onload=alert(1)>'
# Text of the hostile body that must reach every view as text: proof that the content was
# shown and neutralised, not silently dropped.
SHOWN_AS_TEXT = "&lt;script&gt;alert(&quot;raw block&quot;)&lt;/script&gt;"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(f"/r/{HOSTILE_ID}", id="reference-page"),
        pytest.param("/", id="home"),
        pytest.param("/references", id="browse"),
        pytest.param("/references?q=hostile", id="browse-filtered"),
        pytest.param("/?q=" + PROBE_MESSAGE, id="results-for-the-probe-message"),
    ],
)
def test_pages_with_the_hostile_reference_run_no_script(
    hostile_client: TestClient, path: str
) -> None:
    response = hostile_client.get(path)
    assert response.status_code == 200
    assert "Hostile &lt;script&gt;" in response.text, "the hostile reference is not on the page"
    assert audit(response.text, path) == []


def test_reference_page_shows_the_hostile_markup_as_text(hostile_client: TestClient) -> None:
    page = hostile_client.get(f"/r/{HOSTILE_ID}").text
    assert SHOWN_AS_TEXT in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # Safe links survive: the renderer drops unsafe schemes, not every link.
    assert 'href="/r/slow-collective"' in page
    assert 'href="mailto:docs@example.org"' in page


def test_editor_preview_of_the_hostile_reference_runs_no_script(
    hostile_client: TestClient,
) -> None:
    sign_in(hostile_client)
    form = hostile_client.get(f"/r/{HOSTILE_ID}/edit")
    text = HOSTILE_FILE.read_text()
    preview = hostile_client.post(
        f"/r/{HOSTILE_ID}/edit",
        data={**form_fields(form.text), "text": text, "action": "preview"},
    )
    assert preview.status_code == 200
    assert "Preview (not saved)" in preview.text
    assert SHOWN_AS_TEXT in preview.text
    assert audit(preview.text, "editor preview") == []
    assert audit(form.text, "edit form") == []
    hostile_client.cookies.clear()  # the module's other tests look as a reader


def test_json_fields_carrying_html_run_no_script(hostile_client: TestClient) -> None:
    response = hostile_client.get(f"/api/v1/references/{HOSTILE_ID}")
    assert response.status_code == 200
    fields = html_fields(response.json())
    paths = {path for path, _ in fields}
    expected = {"$.context_html", "$.causes[0].html", "$.checks[0].html"}
    assert expected | {"$.sources[0].supports_html", "$.causes[1].html"} <= paths
    findings = [finding for path, html in fields for finding in audit(html, path, page=False)]
    assert findings == []
    assert any(SHOWN_AS_TEXT in html for _, html in fields)


def test_no_api_answer_carries_executable_html(hostile_client: TestClient) -> None:
    answers = [
        hostile_client.get("/api/v1/references").json(),
        hostile_client.post("/api/v1/match", json={"log": PROBE_MESSAGE}).json(),
        hostile_client.post("/api/v1/scan", json={"log": PROBE_MESSAGE}).json(),
    ]
    assert answers[1]["matches"][0]["id"] == HOSTILE_ID
    for answer in answers:
        for path, html in html_fields(answer):
            assert audit(html, path, page=False) == []


@pytest.mark.parametrize(
    "heading", ["location", "__proto__", "forms"], ids=["location", "proto", "forms"]
)
def test_headings_clobber_no_dom_property(hostile_client: TestClient, heading: str) -> None:
    page = hostile_client.get(f"/r/{HOSTILE_ID}").text
    detail = hostile_client.get(f"/api/v1/references/{HOSTILE_ID}").json()
    shown = heading.strip("_")
    assert f"{shown}</" in detail["context_html"], "the heading was not rendered"
    auditor = Auditor("reference page", page=True)
    auditor.feed(page)
    assert heading not in auditor.ids
    assert len(auditor.ids) == len(set(auditor.ids)), "ids on the page are not unique"
    # The renderer makes no heading ids; any it ever makes must be prefixed, not bare names.
    fragment = Auditor("context_html", page=False)
    fragment.feed(detail["context_html"])
    assert all(value.startswith(("ref-", "user-content-")) for value in fragment.ids)
    assert not CLOBBERED_NAMES & {value.lower() for value in fragment.ids}


# Load-time validation of URLs -------------------------------------------------------------

HOSTILE_URLS = {
    "javascript": "javascript:alert(1)",
    "mixed-case": "JaVaScRiPt:alert(1)",
    "entity-encoded": "&#106;avascript:alert(1)",
    "hex-entity": "&#x6A;avascript:alert(1)",
    "tab-split": "java&#9;script:alert(1)",
    "vbscript": "vbscript:msgbox(1)",
    "data-html": "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "file": "file:///etc/passwd",
    "protocol-relative": "//evil.example/x",
    "relative": "/r/stuck-rank",
}


def _bad_files() -> dict[str, str]:
    files: dict[str, str] = {}
    for name, url in HOSTILE_URLS.items():
        files[f"seen-in-{name}"] = reference_text(f"seen-in-{name}", seen_in=url)
        files[f"source-{name}"] = reference_text(f"source-{name}", source=url)
    files["front-matter-url"] = reference_text(
        "front-matter-url", front_matter="source_url: javascript:alert(1)\n"
    )
    return files


def test_unsafe_urls_are_load_errors_and_the_rest_keeps_serving(
    settings: Settings, references_dir: Path
) -> None:
    bad = _bad_files()
    for reference_id, text in bad.items():
        (references_dir / f"{reference_id}.md").write_text(text)
    (references_dir / "control-https.md").write_text(reference_text("control-https"))
    with TestClient(create_app(settings)) as client:
        problems = library_of(client).catalog.problems
        for reference_id in bad:
            path = f"references/{reference_id}.md"
            errors = [p for p in problems if p.path == path and p.severity == "error"]
            assert errors, f"{reference_id}: loaded although its URL is unsafe"
            expected = "unknown key" if reference_id == "front-matter-url" else "link must be"
            assert any(expected in p.message for p in errors), errors
            assert client.get(f"/r/{reference_id}").status_code == 404
            assert client.get(f"/api/v1/references/{reference_id}").status_code == 404
        for good in ("control-https", "stuck-rank", "slow-collective"):
            assert client.get(f"/r/{good}").status_code == 200
        ready = client.get("/readyz").json()
        assert ready["status"] == "ok"
        assert ready["problems"] >= len(bad)
