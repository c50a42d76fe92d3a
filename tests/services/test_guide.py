"""The format guide: the references folder's README, rendered safely, read within a
reference file's size; none when the folder has no README."""

from __future__ import annotations

from pathlib import Path

from paths import REFERENCES

from failref.domain.references.folder import MAX_FILE_BYTES
from failref.services.guide import format_guide_html


def test_the_shipped_guide_renders_its_sections(tmp_path: Path) -> None:
    guide = format_guide_html(REFERENCES)
    assert guide is not None
    assert "<h1>Writing a reference</h1>" in guide
    assert "<h2>Message kinds</h2>" in guide


def test_raw_html_in_the_guide_is_text(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "# Guide\n\n<script>alert(1)</script> [x](javascript:alert(1))\n"
    )
    guide = format_guide_html(tmp_path)
    assert guide is not None
    assert "<script>" not in guide
    assert 'href="javascript' not in guide


def test_a_folder_without_a_readme_has_no_guide(tmp_path: Path) -> None:
    assert format_guide_html(tmp_path) is None
    (tmp_path / "README.md").mkdir()
    assert format_guide_html(tmp_path) is None


def test_a_huge_readme_is_read_no_further_than_a_reference(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_bytes(b"# Guide\n\n" + b"word " * MAX_FILE_BYTES)
    guide = format_guide_html(tmp_path)
    assert guide is not None
    assert len(guide) < 2 * MAX_FILE_BYTES
