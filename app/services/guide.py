"""The reference format as the docs team's guide says it: the references folder's README,
rendered for the editor's "format" link."""

from __future__ import annotations

from pathlib import Path

from ..domain.references.folder import MAX_FILE_BYTES
from ..domain.references.markdown import render_markdown

GUIDE_NAME = "README.md"


def format_guide_html(folder: Path) -> str | None:
    """The folder's README rendered (no raw HTML, safe links only), read no further than a
    reference file may be; None when the folder has none."""
    path = folder / GUIDE_NAME
    try:
        with path.open("rb") as guide:
            data = guide.read(MAX_FILE_BYTES)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    return render_markdown(data.decode("utf-8", errors="replace"))
