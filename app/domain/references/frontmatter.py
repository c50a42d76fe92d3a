"""Split a reference file into YAML front matter and Markdown body, loading the YAML safely."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from ...errors import FrontMatterError

# Front matter is a dozen short keys; anything larger is a mistake or an attack.
MAX_FRONT_MATTER_BYTES = 16_384
# YAML aliases let a few bytes expand into gigabytes ("billion laughs"); references need none.
MAX_ALIASES = 0
# The deepest front matter needs three levels (calculator → inputs → a list); the YAML
# composer recurses once a level, so 3,000 levels in 6 KB would end in RecursionError.
MAX_NESTING = 16
DELIMITER = "---"


@dataclass(frozen=True)
class SplitFile:
    """Front matter values with the line of each key, and the body with its first line."""

    values: dict[str, Any]
    key_lines: dict[str, int]
    body: str
    body_first_line: int


class _StrictLoader(yaml.SafeLoader):
    """A safe loader that counts aliases, so that expansion bombs never construct, and
    nesting, so that deep collections never recurse past MAX_NESTING levels."""

    aliases_seen = 0
    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases_seen += 1
            if self.aliases_seen > MAX_ALIASES:
                raise FrontMatterError(self._line(), "YAML aliases (*name) are not allowed")
        if self.depth >= MAX_NESTING:
            message = f"front matter nests deeper than {MAX_NESTING} levels"
            raise FrontMatterError(self._line(), message)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def _line(self) -> int:
        """The file line of the next event (the front matter starts on line 2)."""
        mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
        return int(mark.line) + 2


def split_front_matter(text: str) -> SplitFile:
    """Return the front matter and body of `text`, or raise FrontMatterError."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != DELIMITER:
        raise FrontMatterError(1, "the file must start with a '---' line opening the front matter")
    closing = _closing_line(lines)
    yaml_text = "\n".join(lines[1:closing])
    if len(yaml_text.encode()) > MAX_FRONT_MATTER_BYTES:
        raise FrontMatterError(2, f"front matter is larger than {MAX_FRONT_MATTER_BYTES} bytes")
    values, key_lines = _load_mapping(yaml_text)
    body = "\n".join(lines[closing + 1 :])
    return SplitFile(values, key_lines, body, body_first_line=closing + 2)


def _closing_line(lines: list[str]) -> int:
    for index in range(1, len(lines)):
        if lines[index].rstrip() == DELIMITER:
            return index
    raise FrontMatterError(1, "the front matter opened here is never closed with a '---' line")


def _load_mapping(yaml_text: str) -> tuple[dict[str, Any], dict[str, int]]:
    loader = _StrictLoader(yaml_text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}
        if not isinstance(node, yaml.MappingNode):
            raise FrontMatterError(node.start_mark.line + 2, "front matter must be a YAML mapping")
        key_lines = _key_lines(node)
        values = loader.construct_document(node)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 2 if mark else 2
        raise FrontMatterError(line, f"invalid YAML: {error.problem or error}") from None
    except yaml.YAMLError as error:
        raise FrontMatterError(2, f"invalid YAML: {error}") from None
    finally:
        loader.dispose()
    return values, key_lines


def _key_lines(node: yaml.MappingNode) -> dict[str, int]:
    key_lines: dict[str, int] = {}
    for key_node, _ in node.value:
        key = str(key_node.value)
        line = key_node.start_mark.line + 2
        if key in key_lines:
            raise FrontMatterError(line, f"duplicate key '{key}' (first at line {key_lines[key]})")
        key_lines[key] = line
    return key_lines
