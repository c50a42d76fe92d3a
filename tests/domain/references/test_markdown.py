"""Rendering reference Markdown: tables whose corner cell is empty."""

from __future__ import annotations

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
