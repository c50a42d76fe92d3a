"""Parse one reference file into a `Reference` plus every problem found in it (pure)."""

from __future__ import annotations

import logging
import re
from typing import Any

from markdown_it.token import Token

from app.domain.references.document import (
    MESSAGE_KINDS,
    PHASES,
    Candidate,
    Cause,
    Check,
    Message,
    MessageKind,
    Reference,
    Source,
    content_hash,
)
from app.domain.references.fields import Collector, check_front_matter
from app.domain.references.frontmatter import split_front_matter
from app.domain.references.markdown import (
    is_safe_url,
    linked_reference_id,
    markdown_parser,
    render_markdown,
)
from app.domain.references.problems import Problem
from app.domain.references.sections import Block, Section, list_items, split_sections
from app.domain.references.values import Rule, RuleError, Slot, parse_rule, template_slots
from app.errors import FrontMatterError
from app.urls import reference_id_in_path

logger = logging.getLogger(__name__)

REQUIRED_SECTIONS = ("Message", "Context", "Causes", "Evidence checks", "Sources")
CANDIDATE_CAUSES = "Candidate causes"
WORKED_EXAMPLE = "Worked example"
SEEN_IN = "Seen in"
FAILING_WHEN = "Failing when"
HEALTHY_WHEN = "Healthy when"
CHECK_VERDICT = re.compile(r"\b(confirm\w*|rules? out|ruled out)\b", re.IGNORECASE)
# `**confirms** cause 2`, `rules out causes 1 and 3`, `confirms candidate 4`: which causes a
# check speaks for, as numbers into the Causes (or Candidate causes) list.
CHECK_TARGETS = re.compile(
    r"\b(confirm\w*|rules?\s+out|ruled\s+out)\W{0,4}(?:the\s+)?(?:cause|candidate)s?\s+"
    r"(\d{1,3}(?:\s*(?:,|and|or|&)\s*\d{1,3})*)",
    re.IGNORECASE,
)
SIGNAL_LABELS = ("Lines", "Phases", "When")
# Telling-line snippets are literal text looked up in a paste: short enough to be a phrase.
MAX_SNIPPET_CHARS = 120
MIN_SNIPPET_CHARS = 4
SOURCE_SEPARATORS = " \t—–-:;,"
# A link destination as written: after `](`, up to a space, `>`, `]` or the `)` that
# closes it (one level of balanced parentheses allowed, as in Wikipedia URLs). The two
# alternatives start differently and the repeat is possessive, so it stays linear.
DESTINATION_RE = re.compile(r"\]\(\s*<?((?:[^()\s>\]]|\([^()\s]*\))*+)")


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
    has_calculator = meta.get("calculator") is not None
    body = _body(split.body, split.body_first_line, has_calculator, symptom, found)
    if any(problem.severity == "error" for problem in found.problems):
        return None, found.problems
    reference = Reference(**meta, **body, path=path, content_hash=content_hash(data))
    return reference, found.problems


def _file_stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.removesuffix(".md")


def _body(
    text: str, first_line: int, has_calculator: bool, symptom: bool, found: Collector
) -> dict[str, Any]:
    parsed = split_sections(text, first_line)
    for line, message in parsed.stray:
        found.add(line, "sections", message)
    sections = _ordered_sections(parsed.sections, has_calculator, symptom, found)
    if sections is None:
        return {}
    worked = sections.get(WORKED_EXAMPLE)
    messages = _messages(sections["Message"], found)
    names = [slot.name for message in messages for slot in message.slots]
    if symptom:
        causes: dict[str, Any] = {
            "candidates": _candidates(sections[CANDIDATE_CAUSES], names, found)
        }
        listed = len(causes["candidates"])
    else:
        causes = {"causes": _causes(sections["Causes"], found)}
        listed = len(causes["causes"])
    return {
        "messages": messages,
        **causes,
        "context_markdown": sections["Context"].markdown,
        "context_html": render_markdown(sections["Context"].markdown),
        "checks": _checks(sections["Evidence checks"], listed, symptom, found),
        "worked_example_markdown": worked.markdown if worked else "",
        "worked_example_html": render_markdown(worked.markdown) if worked else "",
        "sources": _sources(sections["Sources"], found),
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


def _messages(section: Section, found: Collector) -> tuple[Message, ...]:
    messages: list[Message] = []
    blocks = section.blocks
    for index, block in enumerate(blocks):
        if block.kind in ("fence", "code_block"):
            messages.append(_message(block, blocks[index + 1 : index + 4], found))
        elif _is_rule(block, HEALTHY_WHEN):
            if not (index >= 1 and _is_failing_when(blocks[index - 1])):
                found.add(
                    block.first_line,
                    "Message",
                    f"'{HEALTHY_WHEN}' belongs right after a '{FAILING_WHEN}' line",
                )
        elif _is_failing_when(block):
            if not _follows_diagnostic(blocks, index):
                found.add(
                    block.first_line,
                    "Message",
                    f"'{FAILING_WHEN}' belongs after the 'Seen in' line of a diagnostic block",
                )
        elif not _is_seen_in(block):
            found.add(block.first_line, "Message", "only code blocks and 'Seen in' lines go here")
    if not messages and section.blocks:
        found.add(section.line, "Message", "at least one fenced code block is required")
    return tuple(messages)


def _follows_diagnostic(blocks: list[Block], index: int) -> bool:
    return (
        index >= 2
        and _is_seen_in(blocks[index - 1])
        and blocks[index - 2].kind == "fence"
        and _fence_kind(blocks[index - 2]) == "diagnostic"
    )


def _message(block: Block, following: list[Block], found: Collector) -> Message:
    text = block.tokens[0].content.strip("\n")
    if not text.strip():
        found.add(block.first_line, "Message", "empty message block")
    kind = _fence_kind(block)
    if kind is None:
        info = block.tokens[0].info.strip()
        found.add(
            block.first_line,
            "Message",
            f"unknown block kind in '{info[:40]}'; use text, text diagnostic or text healthy",
        )
        kind = "failure"
    slots = _slots(text, block.first_line, found)
    seen_in = following[0] if following and _is_seen_in(following[0]) else None
    after = following[1:3] if seen_in is not None else []
    rule = after[0] if after and _is_failing_when(after[0]) else None
    healthy = after[1] if rule and len(after) > 1 and _is_rule(after[1], HEALTHY_WHEN) else None
    failing_when = _failing_when(rule, kind, slots, block.first_line, found)
    names = [slot.name for slot in slots]
    healthy_when = (
        _rules(_code_spans(healthy.tokens), names, healthy.first_line, "Message", found)
        if healthy is not None
        else ()
    )
    if seen_in is None:
        found.add(block.first_line, "Message", f"the block needs a '{SEEN_IN} [where](url)' line")
        return Message(text=text, line=block.first_line, seen_in_markdown="", seen_in_url=None)
    links = [href for href, _ in _links(seen_in.tokens)]
    if not links:
        found.add(seen_in.first_line, "Message", f"'{SEEN_IN}' line has no link")
    for href in links:
        _check_source_url(href, seen_in.first_line, "Message", found)
    return Message(
        text=text,
        line=block.first_line,
        seen_in_markdown=seen_in.source,
        seen_in_url=links[0] if links else None,
        kind=kind,
        slots=slots,
        failing_when=failing_when,
        healthy_when=healthy_when,
    )


def _fence_kind(block: Block) -> MessageKind | None:
    """The kind a fence's info string gives (`text`, `text diagnostic`, `text healthy`)."""
    words = block.tokens[0].info.split() if block.kind == "fence" else []
    named = [word for word in words[1:] if word != "failure"]
    if not named:
        return "failure"
    if len(named) == 1 and named[0] in MESSAGE_KINDS:
        return named[0]
    return None


def _slots(text: str, line: int, found: Collector) -> tuple[Slot, ...]:
    try:
        return tuple(template_slots(text))
    except RuleError as error:
        found.add(line, "Message", str(error))
        return ()


def _failing_when(
    rule: Block | None, kind: MessageKind, slots: tuple[Slot, ...], line: int, found: Collector
) -> tuple[Rule, ...]:
    if kind != "diagnostic":
        return ()
    if rule is None:
        found.add(
            line,
            "Message",
            f"a diagnostic block needs a '{FAILING_WHEN} `value < 1`.' line after 'Seen in'",
        )
        return ()
    spans = _code_spans(rule.tokens)
    if not spans:
        found.add(rule.first_line, "Message", f"'{FAILING_WHEN}' needs a rule in `backticks`")
    return _rules(spans, [slot.name for slot in slots], rule.first_line, "Message", found)


def _rules(
    spans: list[str], names: list[str], line: int, rule: str, found: Collector
) -> tuple[Rule, ...]:
    rules = []
    for span in spans:
        try:
            rules.append(parse_rule(span, names))
        except RuleError as error:
            found.add(line, rule, str(error))
    return tuple(rules)


def _code_spans(tokens: list[Token]) -> list[str]:
    return [
        child.content
        for token in tokens
        for child in token.children or []
        if child.type == "code_inline"
    ]


def _is_failing_when(block: Block) -> bool:
    return _is_rule(block, FAILING_WHEN)


def _is_rule(block: Block, lead: str) -> bool:
    return block.kind == "paragraph_open" and block.tokens[1].content.startswith(lead)


def _is_seen_in(block: Block) -> bool:
    return block.kind == "paragraph_open" and block.tokens[1].content.startswith(SEEN_IN)


def _single_list(section: Section, ordered: bool, found: Collector) -> list[Block]:
    kinds = ("ordered_list_open",) if ordered else ("bullet_list_open", "ordered_list_open")
    lists = [block for block in section.blocks if block.kind in kinds]
    for block in section.blocks:
        if block.kind not in kinds:
            what = "an ordered list (1. 2. 3.)" if ordered else "a list"
            found.add(block.first_line, section.heading, f"must hold only {what}")
    return [item for block in lists for item in list_items(block)]


def _causes(section: Section, found: Collector) -> tuple[Cause, ...]:
    causes = []
    for item in _single_list(section, ordered=True, found=found):
        title = _bold_lead(item.tokens)
        if title is None:
            found.add(item.first_line, "Causes", "start the item with the cause in **bold**")
        causes.append(
            Cause(
                title=title or "",
                markdown=item.source,
                html=render_markdown(item.source),
                line=item.first_line,
            )
        )
    return tuple(causes)


def _candidates(section: Section, names: list[str], found: Collector) -> tuple[Candidate, ...]:
    candidates = []
    for item in _single_list(section, ordered=True, found=found):
        title = _bold_lead(item.tokens)
        if title is None:
            found.add(
                item.first_line, CANDIDATE_CAUSES, "start the item with the cause in **bold**"
            )
        signals = _signals(item, names, found)
        candidates.append(
            Candidate(
                title=title or "",
                markdown=item.source,
                html=render_markdown(item.source),
                line=item.first_line,
                cause_id=_bold_link(item.tokens),
                **signals,
            )
        )
    return tuple(candidates)


def _bold_link(tokens: list[Token]) -> str | None:
    """The reference a candidate's bold lead links to, if it does."""
    inline = next((token for token in tokens if token.type == "inline"), None)
    inside = False
    for child in inline.children or [] if inline else []:
        if child.type == "strong_open":
            inside = True
        elif child.type == "strong_close":
            return None
        elif inside and child.type == "link_open":
            href = str(child.attrGet("href") or "")
            return linked_reference_id(href) or reference_id_in_path(href)
    return None


def _signals(item: Block, names: list[str], found: Collector) -> dict[str, Any]:
    """The `- Lines:`, `- Phases:` and `- When:` entries of a candidate's nested list."""
    signals: dict[str, Any] = {}
    for token in item.tokens:
        if token.type != "inline" or token.level < 3:
            continue  # only the paragraphs of a nested list's items
        label, colon, rest = token.content.partition(":")
        if not colon or label.strip() not in SIGNAL_LABELS:
            continue
        line = (
            item.first_line + (token.map[0] if token.map else 0) - (item.tokens[0].map or (0, 0))[0]
        )
        key = label.strip().lower()
        if key in signals:
            found.add(line, CANDIDATE_CAUSES, f"'{label.strip()}:' is given twice")
        elif key == "lines":
            signals[key] = _snippets(_code_spans([token]), line, found)
        elif key == "phases":
            signals[key] = _phases(rest, line, found)
        else:
            spans = _code_spans([token])
            if not spans:
                found.add(line, CANDIDATE_CAUSES, "'When:' needs a condition in `backticks`")
            signals[key] = _rules(spans, names, line, CANDIDATE_CAUSES, found)
    return signals


def _token_line(item: Block, token: Token) -> int:
    """The file line of a token inside a list item."""
    start = (item.tokens[0].map or (0, 0))[0]
    return item.first_line + (token.map[0] if token.map else start) - start


def _snippets(spans: list[str], line: int, found: Collector) -> tuple[str, ...]:
    if not spans:
        found.add(line, CANDIDATE_CAUSES, "'Lines:' needs snippets in `backticks`")
    for span in spans:
        if not MIN_SNIPPET_CHARS <= len(span.strip()) <= MAX_SNIPPET_CHARS:
            found.add(
                line,
                CANDIDATE_CAUSES,
                f"a line snippet must be {MIN_SNIPPET_CHARS}-{MAX_SNIPPET_CHARS} characters",
            )
    return tuple(span.strip().lower() for span in spans if span.strip())


def _phases(text: str, line: int, found: Collector) -> tuple[str, ...]:
    phases = tuple(phase.strip().rstrip(".") for phase in text.split(",") if phase.strip())
    unknown = [phase for phase in phases if phase not in PHASES]
    if unknown or not phases:
        found.add(line, CANDIDATE_CAUSES, f"'Phases:' takes {', '.join(PHASES)}")
        return ()
    return phases


def _bold_lead(tokens: list[Token]) -> str | None:
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


def _checks(section: Section, listed: int, symptom: bool, found: Collector) -> tuple[Check, ...]:
    checks = []
    what = "candidate" if symptom else "cause"
    for item in _single_list(section, ordered=False, found=found):
        if not CHECK_VERDICT.search(item.source):
            found.add(
                item.first_line, "Evidence checks", "say which cause it confirms or rules out"
            )
        confirms, rules_out = _check_targets(item.source)
        named = sorted(set(confirms) | set(rules_out))
        if any(not 1 <= number <= listed for number in named):
            found.add(
                item.first_line,
                "Evidence checks",
                f"names {what} {max(named)}, but {listed} are listed",
            )
        elif symptom and not named:
            found.add(
                item.first_line,
                "Evidence checks",
                "say which candidate it confirms or rules out by number ('confirms candidate 2')",
            )
        commands = tuple(t.content.strip("\n") for t in item.tokens if t.type == "fence")
        checks.append(
            Check(
                markdown=item.source,
                html=render_markdown(item.source),
                commands=commands,
                line=item.first_line,
                confirms=confirms,
                rules_out=rules_out,
            )
        )
    return tuple(checks)


def _check_targets(source: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Causes a check confirms and rules out, by number, as its text names them."""
    confirms: list[int] = []
    rules_out: list[int] = []
    for found in CHECK_TARGETS.finditer(source):
        numbers = [int(number) for number in re.findall(r"\d+", found.group(2))]
        target = confirms if found.group(1).lower().startswith("confirm") else rules_out
        target.extend(number for number in numbers if number not in target)
    return tuple(confirms), tuple(rules_out)


def _sources(section: Section, found: Collector) -> tuple[Source, ...]:
    sources = []
    for item in _single_list(section, ordered=False, found=found):
        source = _source(item, found)
        if source is not None:
            sources.append(source)
    return tuple(sources)


def _source(item: Block, found: Collector) -> Source | None:
    links = _links(item.tokens)
    if not links:
        found.add(item.first_line, "Sources", "item has no [title](url) link")
        return None
    href, title = links[0]
    if not href.strip():
        found.add(item.first_line, "Sources", "link has no URL")
        return None
    _check_source_url(href, item.first_line, "Sources", found)
    supports = _after_link(item.source, href).lstrip(SOURCE_SEPARATORS)
    if not supports.strip():
        found.add(item.first_line, "Sources", "say what the source supports after the link")
    return Source(
        title=title,
        url=href,
        supports_markdown=supports,
        supports_html=render_markdown(supports),
        line=item.first_line,
    )


def _after_link(source: str, href: str) -> str:
    """What follows `[title](href)` in an item: found by its URL, since a title may itself
    hold brackets or parentheses. The parser hands over the URL normalised (`Ü` as `%C3%9C`),
    so each destination written in the source is normalised the same way to recognise it."""
    normalize = markdown_parser().normalizeLink
    for found in DESTINATION_RE.finditer(source):
        written = found.group(1)
        if written == href or normalize(written) == href:
            end = source.find(")", found.end())
            return source[end + 1 :] if end >= 0 else ""
    return ""


def _check_source_url(href: str, line: int, rule: str, found: Collector) -> None:
    if not href.lower().startswith(("http://", "https://")) or not is_safe_url(href):
        found.add(line, rule, f"link must be a public http(s) URL, not '{href[:80]}'")


def _links(tokens: list[Token]) -> list[tuple[str, str]]:
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


def _related(sections: Any) -> tuple[str, ...]:
    related: list[str] = []
    for section in sections:
        for block in section.blocks:
            for href, _ in _links(block.tokens):
                reference_id = linked_reference_id(href) or reference_id_in_path(href)
                if reference_id and reference_id not in related:
                    related.append(reference_id)
    return tuple(related)
