"""/admin/conflicts: for editors only, each conflict with the folder's and the database's text."""

from __future__ import annotations

import html
from collections.abc import Iterator

import pytest
from editing_helpers import library_of, new_editor, sign_in
from fastapi.testclient import TestClient
from store_helpers import edit_file, edit_in_database, in_database_mode

from failref.config import Settings
from failref.web.factory import create_app


@pytest.fixture
def database_client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(in_database_mode(settings))) as test_client:
        yield test_client


def test_the_conflicts_page_is_for_editors_only(database_client: TestClient) -> None:
    new_editor(database_client)
    response = database_client.get("/admin/conflicts")
    assert response.status_code == 401
    assert "Conflicts between" not in response.text


def test_a_conflict_shows_with_the_folder_text_and_the_database_text(
    database_client: TestClient, settings: Settings
) -> None:
    sign_in(database_client)
    library = library_of(database_client)
    folder = settings.references_dir
    edit_in_database(library.engine, folder, "stuck-rank", "A dead host.", "A host died.")
    edit_file(folder, "stuck-rank", "A dead host.", "A host that hung.")
    assert "No conflicts" in database_client.get("/admin/conflicts").text
    library.reload()
    response = database_client.get("/admin/conflicts")
    assert response.status_code == 200
    assert response.template.name == "conflicts.html"  # type: ignore[attr-defined]
    [conflict] = response.context["conflicts"]  # type: ignore[attr-defined]
    assert conflict.reference_id == "stuck-rank"
    # Both texts are shown escaped, never as markup.
    assert "recompile_limit (<n>)" not in response.text
    assert "recompile_limit (&lt;n&gt;)" in response.text
    page = html.unescape(response.text)
    assert '<li id="stuck-rank">' in page
    assert "3. **A host that hung.** The process is gone." in page
    assert "3. **A host died.** The process is gone." in page
    assert "the file was deleted" not in page


def test_the_gaps_page_links_to_the_conflicts_which_folder_mode_never_has(
    settings: Settings,
) -> None:
    with TestClient(create_app(settings.model_copy(update={"store": "folder"}))) as client:
        sign_in(client)
        page = client.get("/admin/gaps").text
        assert 'href="/admin/conflicts"' in page
        assert "only in database mode" in client.get("/admin/conflicts").text
