"""Pieces of a reference's Markdown every section reads: list items, bold leads, code spans,
links and their URLs, and the rules written in code spans."""

from __future__ import annotations

import re

from markdown_it.token import Token

from .fields import Collector
from .markdown import is_safe_url
from .sections import Block, Section, list_items
from .values import Rule, RuleError, parse_rule


def code_spans(tokens: list[Token]) -> list[str]:
    return [
        child.content
        for token in tokens
        for child in token.children or []
        if child.type == "code_inline"
    ]


def parse_rules(
    spans: list[str], names: list[str], line: int, rule: str, found: Collector
) -> tuple[Rule, ...]:
    rules = []
    for span in spans:
        try:
            rules.append(parse_rule(span, names))
        except RuleError as error:
            found.add(line, rule, str(error))
    return tuple(rules)


def single_list(section: Section, ordered: bool, found: Collector) -> list[Block]:
    kinds = ("ordered_list_open",) if ordered else ("bullet_list_open", "ordered_list_open")
    lists = [block for block in section.blocks if block.kind in kinds]
    for block in section.blocks:
        if block.kind not in kinds:
            what = "an ordered list (1. 2. 3.)" if ordered else "a list"
            found.add(block.first_line, section.heading, f"must hold only {what}")
    return [item for block in lists for item in list_items(block)]


def bold_lead(tokens: list[Token]) -> str | None:
    inline = next((token for token in tokens if token.type == "inline"), None)
    children = [
        child
        for child in (inline.children if inline and inline.children else [])
        if child.type != "text" or child.content
    ]
    if len(children) < 3 or children[0].type != "strong_open":
        return None
    closing = next(i for i, child in enumerate(children) if child.type == "strong_close")
    text = "".join(child.content for child in children[1:closing])
    return text.strip().rstrip(".:").strip() or None


def check_source_url(href: str, line: int, rule: str, found: Collector) -> None:
    if not href.lower().startswith(("http://", "https://")) or not is_safe_url(href):
        found.add(line, rule, f"link must be a public http(s) URL, not '{href[:80]}'")


def find_links(tokens: list[Token]) -> list[tuple[str, str]]:
    """Every (href, text) in the blocks, including links the renderer would refuse."""
    links = []
    for token in tokens:
        children = token.children or []
        for index, child in enumerate(children):
            if child.type == "link_open":
                text = children[index + 1].content if index + 1 < len(children) else ""
                links.append((str(child.attrGet("href") or ""), text))
        links.extend(_refused_links(token))
    return links


# A link whose URL the renderer refuses (`javascript:`) is parsed as plain text, so it is found
# here instead: every `[text](url)` that did not become a link is still a broken source.
# Neither part may cross a `[`, and each part is possessive: a scan never runs on from one
# link's `[` over the next ones, so `[a](` repeated costs linear time.
_LINK_TEXT = re.compile(r"\[([^\][]*+)\]\(([^)\s\[]*+)[^)\[]*+\)")


def _refused_links(token: Token) -> list[tuple[str, str]]:
    if token.type != "inline":
        return []
    texts = "".join(child.content for child in token.children or [] if child.type == "text")
    return [(href, text) for text, href in _LINK_TEXT.findall(texts)]
