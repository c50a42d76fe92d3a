"""The list sections: causes, a symptom's candidate causes with their signals, evidence
checks with the causes they name by number, and sources."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it.token import Token

from ...urls import reference_id_in_path
from .blocks import (
    bold_lead,
    check_source_url,
    code_spans,
    find_links,
    parse_rules,
    single_list,
)
from .document import (
    PHASES,
    Candidate,
    Cause,
    Check,
    CheckOutcome,
    CheckVerdict,
    Source,
)
from .fields import Collector
from .markdown import linked_reference_id, markdown_parser
from .sections import Block, Section

CANDIDATE_CAUSES = "Candidate causes"
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


def parse_causes(section: Section, found: Collector) -> tuple[Cause, ...]:
    causes = []
    for item in single_list(section, ordered=True, found=found):
        title = bold_lead(item.tokens)
        if title is None:
            found.add(item.first_line, "Causes", "start the item with the cause in **bold**")
        causes.append(
            Cause(
                title=title or "",
                markdown=item.source,
                line=item.first_line,
            )
        )
    return tuple(causes)


def parse_candidates(section: Section, names: list[str], found: Collector) -> tuple[Candidate, ...]:
    candidates = []
    for item in single_list(section, ordered=True, found=found):
        title = bold_lead(item.tokens)
        if title is None:
            found.add(
                item.first_line, CANDIDATE_CAUSES, "start the item with the cause in **bold**"
            )
        signals = _signals(item, names, found)
        candidates.append(
            Candidate(
                title=title or "",
                markdown=item.source,
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
            signals[key] = _snippets(code_spans([token]), line, found)
        elif key == "phases":
            signals[key] = _phases(rest, line, found)
        else:
            spans = code_spans([token])
            if not spans:
                found.add(line, CANDIDATE_CAUSES, "'When:' needs a condition in `backticks`")
            signals[key] = parse_rules(spans, names, line, CANDIDATE_CAUSES, found)
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


def parse_checks(
    section: Section, listed: int, symptom: bool, found: Collector
) -> tuple[Check, ...]:
    checks = []
    what = "candidate" if symptom else "cause"
    for item in single_list(section, ordered=False, found=found):
        if not CHECK_VERDICT.search(item.source):
            found.add(
                item.first_line, "Evidence checks", "say which cause it confirms or rules out"
            )
        outcomes = _check_outcomes(item.source)
        confirms, rules_out = _targets(outcomes, "confirms"), _targets(outcomes, "rules_out")
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
                commands=commands,
                line=item.first_line,
                confirms=confirms,
                rules_out=rules_out,
                outcomes=outcomes,
            )
        )
    return tuple(checks)


def _check_outcomes(source: str) -> tuple[CheckOutcome, ...]:
    """The results a check can show, as its text names them (`confirms candidates 1 or 2`),
    each once, in the order written."""
    outcomes: list[CheckOutcome] = []
    for found in CHECK_TARGETS.finditer(source):
        numbers = tuple(dict.fromkeys(int(n) for n in re.findall(r"\d+", found.group(2))))
        verdict: CheckVerdict = (
            "confirms" if found.group(1).lower().startswith("confirm") else "rules_out"
        )
        outcome = CheckOutcome(verdict=verdict, causes=numbers)
        if outcome not in outcomes:
            outcomes.append(outcome)
    return tuple(outcomes)


def _targets(outcomes: Sequence[CheckOutcome], verdict: CheckVerdict) -> tuple[int, ...]:
    """Every cause the outcomes of one verdict name, each once, in the order written."""
    named = (n for outcome in outcomes if outcome.verdict == verdict for n in outcome.causes)
    return tuple(dict.fromkeys(named))


def parse_sources(section: Section, found: Collector) -> tuple[Source, ...]:
    sources = []
    for item in single_list(section, ordered=False, found=found):
        source = _source(item, found)
        if source is not None:
            sources.append(source)
    return tuple(sources)


def _source(item: Block, found: Collector) -> Source | None:
    links = find_links(item.tokens)
    if not links:
        found.add(item.first_line, "Sources", "item has no [title](url) link")
        return None
    href, title = links[0]
    if not href.strip():
        found.add(item.first_line, "Sources", "link has no URL")
        return None
    check_source_url(href, item.first_line, "Sources", found)
    supports = _after_link(item.source, href).lstrip(SOURCE_SEPARATORS)
    if not supports.strip():
        found.add(item.first_line, "Sources", "say what the source supports after the link")
    return Source(
        title=title,
        url=href,
        supports_markdown=supports,
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
