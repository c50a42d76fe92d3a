"""Markdown to safe HTML: raw HTML off, only http(s), mailto and relative links, reference links."""

from __future__ import annotations

import re
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
