"""Item 17: hostile YAML front matter is loaded safely or not at all: no Python object is
ever built, aliases and sizes are capped, duplicate keys and wrong types are refused. At
load the file gets its own error while the rest keeps serving; the editor answers 422."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from deadlines import cpu_deadline
from editing_helpers import form_fields, new_editor, sign_in
from fastapi.testclient import TestClient
from security.helpers import library_of, module_settings, reference_text, snapshot

from failref.config import Settings
from failref.web.factory import create_app

# Seconds any one request may take: an alias bomb that expanded would take minutes.
# CPU seconds one hostile request may take: ten times and more what it takes idle.
REQUEST_CPU_S = 2.0
BILLION_LAUGHS = "\n".join(
    [
        'lol0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        *(f"lol{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 10)),
        "tags: *a9",
    ]
)


def insert(lines: str) -> Callable[[str, Path], str]:
    """Add `lines` at the top of the front matter."""
    return lambda text, canary: text.replace(
        "---\n", "---\n" + lines.format(canary=canary) + "\n", 1
    )


def replace(old: str, new: str) -> Callable[[str, Path], str]:
    return lambda text, canary: text.replace(old, new.format(canary=canary), 1)


def unterminated(text: str, _: Path) -> str:
    head, _, body = text.partition("---\n\n## Message")
    return head + body


# (transform of a valid file, the words of the problem the editor and loader must report)
HOSTILE: dict[str, tuple[Callable[[str, Path], str], str]] = {
    "python-object-apply": (
        replace("title: Probe", 'title: !!python/object/apply:os.system ["touch {canary}"]\n#'),
        "could not determine a constructor",
    ),
    "python-object-new": (
        replace("summary: A", 'summary: !!python/object/new:os.system ["touch {canary}"]\n#'),
        "could not determine a constructor",
    ),
    "python-name": (
        replace("title: Probe", "title: !!python/name:os.system\n#"),
        "could not determine a constructor",
    ),
    "custom-tag": (replace("title: Probe", "title: !shell touch {canary}\n#"), "constructor"),
    "alias-bomb": (lambda text, _: text.replace("tags: [probe]", BILLION_LAUGHS), "aliases"),
    "one-alias": (
        lambda text, _: text.replace("tags: [probe]", "tags: &t [probe]").replace(
            "frameworks: [pytorch]", "frameworks: *t"
        ),
        "aliases",
    ),
    "front-matter-over-cap": (insert("# " + "x" * 20_000), "front matter is larger than"),
    "duplicate-key": (insert("title: A second title"), "duplicate key 'title'"),
    "title-is-a-list": (replace("title: Probe", "title: [a, b]\n#"), "must be non-empty text"),
    "tags-is-a-string": (replace("tags: [probe]", "tags: probe"), "must be a list"),
    "phases-is-a-mapping": (
        replace("phases: [training]", "phases: {{training: 1}}"),
        "must be a list",
    ),
    "updated-is-not-a-date": (replace("updated: 2026-11-29", "updated: soon"), "ISO date"),
    "calculator-is-a-number": (insert("calculator: 5"), "must be a mapping"),
    "not-a-mapping": (
        lambda text, _: "---\n- a list\n- not a mapping\n---\n" + text.split("---\n", 2)[2],
        "must be a YAML mapping",
    ),
    "unterminated": (unterminated, "never closed"),
    "no-front-matter": (lambda text, _: text.split("---\n", 2)[2], "must start with a '---'"),
}
# A file far over every cap: refused before YAML sees it (413 in the editor, as its size is
# the problem, not its content).
HUGE = ("huge-front-matter", insert("# " + "y" * (5 * 1024 * 1024)), "")


def hostile_text(case: str, reference_id: str, canary: Path) -> str:
    transform = HOSTILE[case][0] if case in HOSTILE else HUGE[1]
    return transform(reference_text(reference_id), canary)


def test_each_hostile_file_is_its_own_load_error(
    settings: Settings, references_dir: Path, tmp_path: Path
) -> None:
    canary = tmp_path / "canary"
    for case in [*HOSTILE, HUGE[0]]:
        (references_dir / f"yaml-{case}.md").write_text(hostile_text(case, f"yaml-{case}", canary))
    with cpu_deadline(10 * REQUEST_CPU_S), TestClient(create_app(settings)) as client:
        problems = library_of(client).catalog.problems
        for case in [*HOSTILE, HUGE[0]]:
            path = f"references/yaml-{case}.md"
            errors = [p for p in problems if p.path == path and p.severity == "error"]
            expected = HOSTILE[case][1] if case in HOSTILE else "over the"
            assert any(expected in p.message for p in errors), (case, errors)
            assert client.get(f"/r/yaml-{case}").status_code == 404
        for good in ("stuck-rank", "slow-collective"):
            assert client.get(f"/r/{good}").status_code == 200
        assert client.get("/readyz").json()["problems"] >= len(HOSTILE) + 1
    assert not canary.exists()


@dataclass
class Site:
    """An app with editor "ann" signed in by cookie and editor "bob" holding a token."""

    client: TestClient
    token: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Shared: every request of these tests must be refused, so nothing changes."""
    settings = module_settings(tmp_path_factory.mktemp("front-matter"))
    with TestClient(create_app(settings)) as client:
        sign_in(client)
        yield Site(client, new_editor(client, "bob"))


@pytest.fixture
def editor(site: Site) -> TestClient:
    return site.client


@pytest.mark.parametrize("case", list(HOSTILE))
def test_the_editor_refuses_hostile_front_matter(site: Site, tmp_path: Path, case: str) -> None:
    editor, token = site.client, site.token
    canary = tmp_path / "canary"
    text = hostile_text(case, "stuck-rank", canary)
    fields = form_fields(editor.get("/r/stuck-rank/edit").text)
    etag = editor.get("/api/v1/references/stuck-rank").headers["etag"]
    before = snapshot(editor)

    saved = editor.post("/r/stuck-rank/edit", data={**fields, "text": text, "action": "save"})
    assert saved.status_code == 422
    assert HOSTILE[case][1] in saved.text.replace("&#39;", "'")
    preview = editor.post("/r/stuck-rank/edit", data={**fields, "text": text})
    assert preview.status_code == 200
    assert HOSTILE[case][1] in preview.text.replace("&#39;", "'")
    cookies = dict(editor.cookies)
    editor.cookies.clear()
    put = editor.put(
        "/api/v1/references/stuck-rank",
        content=text.encode(),
        headers={
            "content-type": "text/markdown",
            "authorization": f"Bearer {token}",
            "if-match": etag,
        },
    )
    editor.cookies.update(cookies)
    assert put.status_code == 422
    error = put.json()["error"]
    assert error["code"] == "invalid_input"
    assert any(HOSTILE[case][1] in problem for problem in error["problems"])
    assert snapshot(editor) == before
    assert not canary.exists()


def test_the_editor_answers_a_5_mb_front_matter_quickly(editor: TestClient, tmp_path: Path) -> None:
    text = hostile_text(HUGE[0], "stuck-rank", tmp_path / "canary")
    fields = form_fields(editor.get("/r/stuck-rank/edit").text)
    before = snapshot(editor)
    with cpu_deadline(REQUEST_CPU_S):
        saved = editor.post("/r/stuck-rank/edit", data={**fields, "text": text, "action": "save"})
    # The file is over the 256 KB file limit before its YAML is read: 413, the text kept.
    assert saved.status_code in (413, 422)
    assert "limit" in saved.text
    assert snapshot(editor) == before


def test_new_reference_with_an_alias_bomb_is_refused(editor: TestClient, tmp_path: Path) -> None:
    text = hostile_text("alias-bomb", "bomb", tmp_path / "canary")
    fields = form_fields(editor.get("/new").text)
    before = snapshot(editor)
    with cpu_deadline(REQUEST_CPU_S):
        response = editor.post("/new", data={**fields, "text": text, "action": "save"})
    assert response.status_code == 422
    assert snapshot(editor) == before
    assert not (library_of(editor).settings.references_dir / "bomb.md").exists()
