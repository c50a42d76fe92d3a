"""Parse one reference file into a `Reference` plus every problem found in it (pure)."""

from __future__ import annotations

import logging
from typing import Any

from ...errors import FrontMatterError
from ...urls import reference_id_in_path
from .blocks import find_links
from .document import (
    Reference,
    content_hash,
)
from .fields import Collector, check_front_matter
from .frontmatter import split_front_matter
from .items import (
    CANDIDATE_CAUSES,
    parse_candidates,
    parse_causes,
    parse_checks,
    parse_sources,
)
from .markdown import linked_reference_id
from .messages import parse_messages
from .problems import Problem
from .sections import Section, split_sections

logger = logging.getLogger(__name__)

REQUIRED_SECTIONS = ("Message", "Context", "Causes", "Evidence checks", "Sources")
WORKED_EXAMPLE = "Worked example"


def parse_reference(path: str, data: bytes) -> tuple[Reference | None, list[Problem]]:
    """Parse the bytes of the file at `path`; the reference is None when any error was found.

    Whatever goes wrong inside is a problem of this file, never an exception: one file in
    git must not stop a load, a check or the site."""
    try:
        return _parse(path, data)
    except Exception as error:  # a parser bug or a pathological file: report it, go on
        logger.warning("%s could not be parsed", path, exc_info=True)
        message = f"the file could not be read ({type(error).__name__}: {str(error)[:200]})"
        return None, [Problem(path, 1, "file", message)]


def _parse(path: str, data: bytes) -> tuple[Reference | None, list[Problem]]:
    found = Collector(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        found.add(line, "encoding", "the file is not valid UTF-8")
        return None, found.problems
    text = text.replace("\r\n", "\n")
    try:
        split = split_front_matter(text)
    except FrontMatterError as error:
        found.add(error.line, "front matter", error.message)
        return None, found.problems
    meta = check_front_matter(split.values, split.key_lines, _file_stem(path), found)
    symptom = meta.get("kind") == "symptom"
    healthy = meta.get("kind") == "healthy"
    has_calculator = meta.get("calculator") is not None
    body = _body(split.body, split.body_first_line, has_calculator, symptom, healthy, found)
    if any(problem.severity == "error" for problem in found.problems):
        return None, found.problems
    reference = Reference(**meta, **body, path=path, content_hash=content_hash(data))
    return reference, found.problems


# A page of normal lines never answers as a failure: every block of it is `text healthy`.
HEALTHY_ONLY = "a page of kind healthy holds only ```text healthy blocks"


def _file_stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.removesuffix(".md")


def _body(
    text: str,
    first_line: int,
    has_calculator: bool,
    symptom: bool,
    healthy: bool,
    found: Collector,
) -> dict[str, Any]:
    parsed = split_sections(text, first_line)
    for line, message in parsed.stray:
        found.add(line, "sections", message)
    sections = _ordered_sections(parsed.sections, has_calculator, symptom, found)
    if sections is None:
        return {}
    worked = sections.get(WORKED_EXAMPLE)
    messages = parse_messages(sections["Message"], found)
    if healthy:
        for block in messages:
            if block.kind != "healthy":
                found.add(block.line, "Message", HEALTHY_ONLY)
    names = [slot.name for message in messages for slot in message.slots]
    if symptom:
        causes: dict[str, Any] = {
            "candidates": parse_candidates(sections[CANDIDATE_CAUSES], names, found)
        }
        listed = len(causes["candidates"])
    else:
        causes = {"causes": parse_causes(sections["Causes"], found)}
        listed = len(causes["causes"])
    return {
        "messages": messages,
        **causes,
        "context_markdown": sections["Context"].markdown,
        "checks": parse_checks(sections["Evidence checks"], listed, symptom, found),
        "worked_example_markdown": worked.markdown if worked else "",
        "sources": parse_sources(sections["Sources"], found),
        "related": _related(sections.values()),
    }


def _ordered_sections(
    sections: list[Section], has_calculator: bool, symptom: bool, found: Collector
) -> dict[str, Section] | None:
    expected = list(REQUIRED_SECTIONS)
    if symptom:
        expected[expected.index("Causes")] = CANDIDATE_CAUSES
    if has_calculator:
        expected.insert(expected.index("Sources"), WORKED_EXAMPLE)
    names = [section.heading for section in sections]
    for section in sections:
        if section.heading not in expected:
            hint = {
                WORKED_EXAMPLE: " without a calculator",
                CANDIDATE_CAUSES: " in a cause (kind: symptom has candidate causes)",
                "Causes": " in a symptom: list them under 'Candidate causes'",
            }.get(section.heading, "")
            found.add(section.line, "sections", f"unexpected section '{section.heading}'{hint}")
    missing = [name for name in expected if name not in names]
    for name in missing:
        found.add(1, "sections", f"missing section '{name}'")
    present = [name for name in names if name in expected]
    if not missing and present != expected:
        line = next(s.line for s, e in zip(sections, expected, strict=False) if s.heading != e)
        found.add(line, "sections", f"sections must come in this order: {', '.join(expected)}")
    if missing or present != expected or len(names) != len(set(names)):
        return None
    by_name = {section.heading: section for section in sections}
    for section in by_name.values():
        if not section.blocks:
            found.add(section.line, section.heading, "the section is empty")
    return by_name


def _related(sections: Any) -> tuple[str, ...]:
    related: list[str] = []
    for section in sections:
        for block in section.blocks:
            for href, _ in find_links(block.tokens):
                reference_id = linked_reference_id(href) or reference_id_in_path(href)
                if reference_id and reference_id not in related:
                    related.append(reference_id)
    return tuple(related)
