"""Rendering reference Markdown: tables whose corner cell is empty, links that stay on the site."""

from __future__ import annotations

import pytest
from paths import REFERENCES
from reference_helpers import counted_renders

from failref.domain.references.folder import read_folder
from failref.domain.references.markdown import (
    RenderedFragments,
    render_markdown,
)

CORNER_TABLE = "| | static | continuous |\n|---|---|---|\n| p50 | 5,000 ms | 200 ms |\n"


def test_an_empty_header_cell_renders_as_a_data_cell() -> None:
    html = render_markdown(CORNER_TABLE)
    assert "<thead>\n<tr>\n<td></td>\n<th>static</th>\n<th>continuous</th>\n</tr>" in html
    assert "<th></th>" not in html


def test_header_cells_with_text_stay_headers() -> None:
    html = render_markdown("| name | value |\n|---|---|\n| a | 1 |\n")
    assert "<th>name</th>\n<th>value</th>" in html
    assert "<td>a</td>\n<td>1</td>" in html


@pytest.mark.parametrize(
    "href", ["//evil.example/x", "/\\evil.example/x", "\\\\evil.example/x", " //evil.example"]
)
def test_no_link_leaves_the_site(href: str) -> None:
    """Issue 35, item 12: `//evil.example/x` is another site, not a relative link; a
    backslash is percent-encoded by the parser, so `/\\evil` stays a path of this site."""
    html = render_markdown(f"see [the notes]({href})")
    assert 'href="//' not in html
    assert 'href="/\\' not in html
    assert "evil.example" in html


def test_relative_and_https_links_still_render() -> None:
    html = render_markdown("[a](/r/stuck-rank) [b](other-page.md) [c](https://example.org/x)")
    assert html.count("<a ") == 3


def test_kept_fragments_never_hold_more_than_their_budget() -> None:
    """Issue 35, item 11: the rendered HTML kept for pages read again is bounded, the least
    recently read going first, whatever a catalog holds."""
    fragments = RenderedFragments(max_chars=400)
    texts = [f"fragment **{n}** of a page" for n in range(40)]
    for text in texts:
        assert fragments.html(text) == render_markdown(text)
        assert fragments.chars <= 400
    assert 0 < len(fragments) < len(texts)
    assert fragments.chars == sum(
        len(t) + len(render_markdown(t)) for t in texts[-len(fragments) :]
    )


def test_a_fragment_read_again_is_not_rendered_again() -> None:
    fragments = RenderedFragments(max_chars=10_000)
    first, second = "the **first**", "the second"
    fragments.html(first)
    fragments.html(second)
    assert fragments.html(first) == render_markdown(first)
    assert fragments.rendered == 2
    # Read last, the first stays when room is made for a third.
    fragments.max_chars = fragments.chars
    fragments.html("a third")
    fragments.html(first)
    assert fragments.rendered == 3


def test_markdown_renders_on_first_read_not_at_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parsing a folder renders no HTML; each fragment renders as the page reads it, to
    what rendering its Markdown gives."""
    rendered = counted_renders(monkeypatch)
    references = read_folder(REFERENCES).references
    assert len(references) > 50
    assert rendered == []
    reference = next(r for r in references if r.causes and r.sources)
    assert reference.context_html == render_markdown(reference.context_markdown)
    assert reference.causes[0].html == render_markdown(reference.causes[0].markdown)
    source = reference.sources[0]
    assert source.supports_html == render_markdown(source.supports_markdown)
    assert rendered == [
        reference.context_markdown,
        reference.causes[0].markdown,
        source.supports_markdown,
    ]
