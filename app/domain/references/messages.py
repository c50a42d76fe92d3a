"""The `## Message` section: fenced blocks with their kind, named values and rules, each
followed by its `Seen in` paragraph."""

from __future__ import annotations

from .blocks import check_source_url, code_spans, find_links, parse_rules
from .document import MESSAGE_KINDS, Message, MessageKind
from .fields import Collector
from .sections import Block, Section
from .values import Rule, RuleError, Slot, template_slots

SEEN_IN = "Seen in"
FAILING_WHEN = "Failing when"
HEALTHY_WHEN = "Healthy when"
# In place of a rule, for a diagnostic one line cannot judge, or after a warning that names
# a risk the run may not have: what to compare, in words.
JUDGED_ACROSS = "Judged only across lines:"
DIAGNOSTIC: frozenset[MessageKind] = frozenset({"diagnostic"})
JUDGED_KINDS: frozenset[MessageKind] = frozenset({"diagnostic", "warning"})


def parse_messages(section: Section, found: Collector) -> tuple[Message, ...]:
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
            if not _follows(blocks, index, DIAGNOSTIC):
                found.add(
                    block.first_line,
                    "Message",
                    f"'{FAILING_WHEN}' belongs after the 'Seen in' line of a diagnostic block",
                )
        elif _is_rule(block, JUDGED_ACROSS):
            if not _follows(blocks, index, JUDGED_KINDS):
                found.add(
                    block.first_line,
                    "Message",
                    f"'{JUDGED_ACROSS}' belongs after the 'Seen in' line of a diagnostic or "
                    "warning block",
                )
        elif not _is_seen_in(block):
            found.add(block.first_line, "Message", "only code blocks and 'Seen in' lines go here")
    if not messages and section.blocks:
        found.add(section.line, "Message", "at least one fenced code block is required")
    return tuple(messages)


def _follows(blocks: list[Block], index: int, kinds: frozenset[MessageKind]) -> bool:
    """Whether the block at `index` comes right after the `Seen in` of a block of `kinds`."""
    return (
        index >= 2
        and _is_seen_in(blocks[index - 1])
        and blocks[index - 2].kind == "fence"
        and _fence_kind(blocks[index - 2]) in kinds
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
            f"unknown block kind in '{info[:40]}'; use text, text warning, text diagnostic "
            "or text healthy",
        )
        kind = "failure"
    slots = _slots(text, block.first_line, found)
    seen_in = following[0] if following and _is_seen_in(following[0]) else None
    after = following[1:3] if seen_in is not None else []
    rule = after[0] if after and _is_failing_when(after[0]) else None
    across = after[0] if after and _is_rule(after[0], JUDGED_ACROSS) else None
    healthy = after[1] if rule and len(after) > 1 and _is_rule(after[1], HEALTHY_WHEN) else None
    failing_when = (
        _failing_when(rule, kind, slots, block.first_line, found) if across is None else ()
    )
    judged_across = "" if across is None else _across_text(across)
    names = [slot.name for slot in slots]
    healthy_when = (
        parse_rules(code_spans(healthy.tokens), names, healthy.first_line, "Message", found)
        if healthy is not None
        else ()
    )
    if seen_in is None:
        found.add(block.first_line, "Message", f"the block needs a '{SEEN_IN} [where](url)' line")
        return Message(text=text, line=block.first_line, seen_in_markdown="", seen_in_url=None)
    links = [href for href, _ in find_links(seen_in.tokens)]
    if not links:
        found.add(seen_in.first_line, "Message", f"'{SEEN_IN}' line has no link")
    for href in links:
        check_source_url(href, seen_in.first_line, "Message", found)
    return Message(
        text=text,
        line=block.first_line,
        seen_in_markdown=seen_in.source,
        seen_in_url=links[0] if links else None,
        kind=kind,
        slots=slots,
        failing_when=failing_when,
        healthy_when=healthy_when,
        judged_across=judged_across,
    )


def _across_text(block: Block) -> str:
    """What a `Judged only across lines:` paragraph says to compare, as plain text."""
    text = block.tokens[1].content[len(JUDGED_ACROSS) :]
    return " ".join(text.replace("`", "").split())


def _fence_kind(block: Block) -> MessageKind | None:
    """The kind a fence's info string gives (`text`, `text warning`, `text diagnostic`,
    `text healthy`)."""
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
    spans = code_spans(rule.tokens)
    if not spans:
        found.add(rule.first_line, "Message", f"'{FAILING_WHEN}' needs a rule in `backticks`")
    return parse_rules(spans, [slot.name for slot in slots], rule.first_line, "Message", found)


def _is_failing_when(block: Block) -> bool:
    return _is_rule(block, FAILING_WHEN)


def _is_rule(block: Block, lead: str) -> bool:
    return block.kind == "paragraph_open" and block.tokens[1].content.startswith(lead)


def _is_seen_in(block: Block) -> bool:
    return block.kind == "paragraph_open" and block.tokens[1].content.startswith(SEEN_IN)
