"""Markdown to safe HTML: raw HTML off, only http(s), mailto and relative links, reference links."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ...urls import reference_path

# Schemes a reader can follow without running code; everything else is dropped by the parser.
SAFE_SCHEMES = ("http", "https", "mailto")
# `[x](other-id.md)` names another reference by its file, which is how GitHub shows it too.
REFERENCE_LINK = re.compile(r"^(?P<id>[a-z0-9]+(?:-[a-z0-9]+)*)\.md(?P<anchor>#[\w-]*)?$")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
# Control characters and whitespace inside a scheme ("java\tscript:") are ignored by browsers.
_INVISIBLE = re.compile(r"[\x00-\x20\x7f]+")
# Rendered HTML kept for the pages and API bodies read again: a reference page is ~30
# fragments of ~40 KB in all, so this holds the last ~200 pages read. Bounded in characters,
# not fragments, so a few huge fragments cannot hold more.
RENDERED_CHARS_KEPT = 8_000_000


def is_safe_url(url: str) -> bool:
    """True for http(s), mailto and scheme-less (relative) URLs, after browser-style cleanup.
    A URL that starts with two slashes (or a backslash in their place, which browsers read
    as a slash) is not relative: `//evil.example/x` is another site."""
    cleaned = _INVISIBLE.sub("", url)
    if cleaned[:2].replace("\\", "/") == "//":
        return False
    match = _SCHEME.match(cleaned)
    if match is None:
        return True
    return match.group(1).lower() in SAFE_SCHEMES


def linked_reference_id(href: str) -> str | None:
    """The reference id a body link like `other-id.md` points to, if it is one."""
    match = REFERENCE_LINK.match(href)
    return match.group("id") if match else None


@cache
def markdown_parser() -> MarkdownIt:
    """The one parser: CommonMark without raw HTML, with tables and strikethrough."""
    parser = MarkdownIt("js-default").enable(["table", "strikethrough"])
    parser.validateLink = is_safe_url  # type: ignore[method-assign]
    parser.core.ruler.push("reference_links", _rewrite_reference_links)
    parser.core.ruler.push("empty_header_cells", _empty_header_cells_as_data)
    return parser


def render_markdown(text: str) -> str:
    """Render reference Markdown to HTML that carries no script and no unsafe link."""
    html: str = markdown_parser().render(text)
    return html


class RenderedFragments:
    """The HTML of the Markdown fragments rendered last, by their text, least recently read
    dropped first once they hold more than `max_chars` characters of HTML and Markdown.
    Shared by request threads, hence the lock; a fragment two threads render at once is
    rendered twice, to equal HTML."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.chars = 0  # of the texts and their HTML held now
        self.rendered = 0  # fragments rendered, since this was made
        self._held: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._held)

    def html(self, text: str) -> str:
        """The HTML of `text`: the one kept, else rendered now and kept."""
        with self._lock:
            kept = self._held.get(text)
            if kept is not None:
                self._held.move_to_end(text)
                return kept
        html = render_markdown(text)
        with self._lock:
            self.rendered += 1
            if text not in self._held:
                self._held[text] = html
                self.chars += len(text) + len(html)
            while self.chars > self.max_chars and self._held:
                gone, gone_html = self._held.popitem(last=False)
                self.chars -= len(gone) + len(gone_html)
        return html


RENDERED = RenderedFragments(RENDERED_CHARS_KEPT)


def rendered_html(text: str) -> str:
    """The HTML of a reference's Markdown fragment, rendered on first read (`RENDERED`):
    loading a folder renders nothing, a page renders what it shows."""
    return RENDERED.html(text) if text else ""


def _rewrite_reference_links(state: Any) -> None:
    for block in state.tokens:
        for token in block.children or ():
            if token.type == "link_open":
                _rewrite_link(token)
                token.attrSet("rel", "noopener")


def _empty_header_cells_as_data(state: Any) -> None:
    """An empty header cell (the corner of `| | a | b |`) heads nothing: a screen reader
    would announce it for every cell below, so it becomes an empty data cell."""
    tokens = state.tokens
    for index, token in enumerate(tokens[:-2]):
        inline, closing = tokens[index + 1], tokens[index + 2]
        if token.type == "th_open" and inline.type == "inline" and not inline.content.strip():
            token.type, token.tag = "td_open", "td"
            closing.type, closing.tag = "td_close", "td"


def _rewrite_link(token: Token) -> None:
    href = str(token.attrGet("href") or "")
    reference_id = linked_reference_id(href)
    if reference_id is not None:
        anchor = REFERENCE_LINK.match(href).group("anchor") or ""  # type: ignore[union-attr]
        token.attrSet("href", reference_path(reference_id) + anchor)
