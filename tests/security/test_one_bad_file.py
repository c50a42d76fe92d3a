"""One bad file never takes the site down (issue 13, item 2): front matter nested thousands
of levels deep, or any exception while parsing one file, is a problem of that file; the
others load, serve and check, and a failed reload is tried again."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from editing_helpers import new_editor
from fastapi.testclient import TestClient

from failref.cli.commands import cli
from failref.config import Settings
from failref.domain.references import parser
from failref.domain.references.frontmatter import MAX_NESTING
from failref.domain.references.parser import parse_reference
from failref.services.library import open_library
from failref.store import index
from failref.web.factory import create_app

# 6 KB, well under the 16 KiB front matter cap, 3,000 levels deep.
DEEP = "---\nid: deep\ntags: " + "[" * 3000 + "]" * 3000 + "\n---\n\n## Message\n"


def test_deep_front_matter_is_a_problem_with_its_line() -> None:
    reference, problems = parse_reference("references/deep.md", DEEP.encode())
    assert reference is None
    assert [str(problem) for problem in problems] == [
        f"references/deep.md:3: front matter: front matter nests deeper than {MAX_NESTING} levels"
    ]


def test_any_exception_while_parsing_is_a_problem_of_the_file(
    monkeypatch: pytest.MonkeyPatch, references_dir: Path
) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("a parser bug")

    monkeypatch.setattr(parser, "_body", broken)
    data = (references_dir / "stuck-rank.md").read_bytes()
    reference, problems = parse_reference("references/stuck-rank.md", data)
    assert reference is None
    assert [(p.line, p.rule) for p in problems] == [(1, "file")]
    assert "RuntimeError: a parser bug" in problems[0].message


def test_the_site_starts_and_serves_the_others(settings: Settings, references_dir: Path) -> None:
    (references_dir / "deep.md").write_text(DEEP)
    with TestClient(create_app(settings)) as client:
        assert client.get("/r/stuck-rank").status_code == 200
        ready = client.get("/readyz").json()
    assert (ready["references"], ready["problems"]) == (2, 1)


def test_a_deep_file_put_through_the_api_is_a_422(client: TestClient) -> None:
    token = new_editor(client)
    response = client.put(
        "/api/v1/references/deep",
        content=DEEP,
        headers={
            "authorization": f"Bearer {token}",
            "content-type": "text/markdown",
            "if-none-match": "*",
        },
    )
    assert response.status_code == 422
    assert "nests deeper" in response.json()["error"]["message"]


def test_failref_check_reports_it_without_a_traceback(references_dir: Path) -> None:
    (references_dir / "deep.md").write_text(DEEP)
    result = CliRunner().invoke(cli, ["check", str(references_dir)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "deep.md:3: front matter: front matter nests deeper" in result.output


def test_a_failed_reload_is_tried_again_on_the_next_poll(
    settings: Settings, references_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = open_library(settings)
    try:
        path = references_dir / "stuck-rank.md"
        path.write_text(path.read_text().replace("A dead host.", "A host that died."))
        real_sync = index.sync_folder
        failures = iter([OSError("a moment of trouble")])

        def flaky(*args: object, **keywords: object) -> object:
            for failure in failures:
                raise failure
            return real_sync(*args, **keywords)  # type: ignore[arg-type]

        monkeypatch.setattr("failref.services.library.sync_folder", flaky)
        with pytest.raises(OSError, match="a moment of trouble"):
            library.poll()
        assert library.poll() == "reloaded"
        assert library.catalog.references["stuck-rank"].causes[2].title == "A host that died"
    finally:
        library.close()
