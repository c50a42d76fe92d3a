"""Cut a reference body into its level-2 sections and their top-level blocks."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from markdown_it.token import Token

from .markdown import markdown_parser


@dataclass
class Block:
    """A top-level block of a section: its tokens and its source lines (1-based, in the file)."""

    tokens: list[Token]
    first_line: int
    source: str

    @property
    def kind(self) -> str:
        return self.tokens[0].type


@dataclass
class Section:
    """A `## Heading` and the blocks under it."""

    heading: str
    line: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def markdown(self) -> str:
        return "\n\n".join(block.source for block in self.blocks)


@dataclass
class Body:
    """The sections of a body, and any headings or text that stand outside a section."""

    sections: list[Section]
    stray: list[tuple[int, str]]


def split_sections(body: str, first_line: int) -> Body:
    """Parse `body` (which starts at file line `first_line`) into level-2 sections."""
    lines = body.split("\n")
    tokens = markdown_parser().parse(body)
    sections: list[Section] = []
    stray: list[tuple[int, str]] = []
    for block in _top_level_blocks(tokens, lines, first_line):
        opener = block.tokens[0]
        if opener.type == "heading_open" and opener.tag == "h2":
            sections.append(Section(block.tokens[1].content.strip(), block.first_line))
        elif opener.type == "heading_open" and opener.tag == "h1":
            stray.append((block.first_line, "level-1 headings are not allowed; use '## Section'"))
        elif not sections:
            stray.append((block.first_line, "text before the first '## Message' section"))
        else:
            sections[-1].blocks.append(block)
    return Body(sections, stray)


def list_items(block: Block) -> list[Block]:
    """The items of a list block, each with its own dedented Markdown source."""
    items: list[Block] = []
    depth = 0
    current: list[Token] = []
    for token in block.tokens[1:-1]:
        if token.type == "list_item_open" and depth == 0:
            current = []
        depth += token.nesting if token.type.startswith("list_item") else 0
        current.append(token)
        if token.type == "list_item_close" and depth == 0:
            items.append(_item_block(current, block))
    return items


def _item_block(tokens: list[Token], parent: Block) -> Block:
    start, end = tokens[0].map or (0, 0)
    parent_start = parent.tokens[0].map[0] if parent.tokens[0].map else 0
    lines = parent.source.split("\n")[start - parent_start : end - parent_start]
    return Block(tokens, parent.first_line + start - parent_start, _strip_marker(lines))


def _strip_marker(lines: list[str]) -> str:
    """Drop the list marker (`1.`, `-`) from the first line and dedent the continuation."""
    first = lines[0].lstrip().lstrip("0123456789").lstrip(".)-*+").strip()
    rest = textwrap.dedent("\n".join(lines[1:]))
    return f"{first}\n{rest}".strip()


def _top_level_blocks(tokens: list[Token], lines: list[str], first_line: int) -> list[Block]:
    blocks: list[Block] = []
    depth = 0
    current: list[Token] = []
    for token in tokens:
        current.append(token)
        depth += token.nesting
        if depth == 0:
            start, end = current[0].map or (0, 0)
            source = "\n".join(lines[start:end]).strip("\n")
            blocks.append(Block(current, first_line + start, source))
            current = []
    return blocks
