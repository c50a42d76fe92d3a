"""Rendering reference Markdown: tables whose corner cell is empty, links that stay on the site."""

from __future__ import annotations

import pytest

from failref.domain.references.markdown import render_markdown

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
