"""How the terminal shows a match or a scan: the likeliest few of everything, and the
reminder that a matching message confirms no cause (`--json` prints the API's shape)."""

from __future__ import annotations

import click

from ..domain.matching.logs.ranks import number_ranges
from ..domain.matching.results import Diagnosis, Match, MatchResult, Root, ScanHit, ScanResult

NOT_A_DIAGNOSIS = (
    "A matching message does not confirm a cause: open the reference and run its evidence checks."
)
SHOWN_CANDIDATES = 3  # a terminal answer names the likeliest few; --json has them all
SHOWN_UNRECOGNISED = 5
# What a log with no root is, as the page's heading says it (`Diagnosis.verdict`).
LOG_VERDICT_LINES = {
    "leads": "No confident match in this log; the closest are marked weak.",
    "unrecognised": "No reference covers the errors in this log.",
    "quiet": "Nothing in this log looks like a failure.",
}


def echo_match(result: MatchResult) -> None:
    """The references ranked for one message, with what was read of the context."""
    if result.context_read:
        read = ", ".join(f"{k}={v}" for k, v in result.context_read.items())
        click.echo(f"read from your context: {read}")
    for ignored in result.context_ignored:
        click.echo(f"not understood: {ignored}")
    if result.inferred_context:
        inferred = ", ".join(f"{k}={v}" for k, v in result.inferred_context.items())
        click.echo(f"inferred from the text: {inferred}")
    for line in result.healthy_lines:
        click.echo(f"normal output ({line.id}): {line.text[:160]}")
    if result.matches and not any(m.confident for m in result.matches):
        click.echo("No confident match. Closest references (not confident):")
    for number, found in enumerate(result.matches, start=1):
        label = "confident" if found.confident else "weak"
        click.echo(f"{number}. {found.id}  {found.score:.2f} {label}  {found.title}")
        for reason in found.reasons:
            click.echo(f"     - {reason}")
        _echo_diagnosis(found)
    click.echo(NOT_A_DIAGNOSIS)


def echo_scan(result: ScanResult) -> None:
    """A whole log's story, then every match."""
    capped = " (fuzzy stage capped)" if result.capped else ""
    click.echo(f"{result.lines} lines, {result.templates} distinct templates{capped}")
    _echo_story(result.diagnosis)
    if result.diagnosis.verdict in LOG_VERDICT_LINES:
        click.echo(LOG_VERDICT_LINES[result.diagnosis.verdict])
    if result.hits and result.diagnosis.roots:
        click.echo("Every match:")
    for hit in result.hits:
        label = "confident" if hit.confident else "weak"
        lines = ", ".join(str(n) for n in hit.line_numbers)
        more = "" if hit.count <= len(hit.line_numbers) else f", ... (last {hit.last_line})"
        click.echo(f"{hit.id}  {hit.score:.2f} {label}  {hit.count} line(s): {lines}{more}")
        click.echo(f"     e.g. {hit.example[:200]}")
        _echo_diagnosis(hit)
    if result.healthy_lines:
        click.echo(f"{result.healthy_lines} line(s) are normal output (start-up, INFO, metrics).")
    click.echo(NOT_A_DIAGNOSIS)


def _echo_diagnosis(found: Match | ScanHit) -> None:
    """A symptom's top candidates and a diagnostic's reading, under its result line."""
    if found.verdict is not None:
        click.echo(f"     check output, read as {found.verdict.state}")
    _echo_candidates(found)


def _echo_candidates(found: Match | ScanHit | Root) -> None:
    """A symptom's likeliest candidate causes."""
    if found.kind == "symptom":
        click.echo("     a symptom; candidate causes for this text:")
        for candidate in found.candidates[:SHOWN_CANDIDATES]:
            click.echo(f"       * {candidate.id or '(no page yet)'}: {candidate.title}")


def _echo_story(diagnosis: Diagnosis) -> None:
    """Roots first, each with what followed from it; then the lines nothing matched."""
    for note in diagnosis.notes:
        click.echo(f"note: {note}")
    for number, root in enumerate(diagnosis.roots, 1):
        where = f" on ranks {number_ranges(root.ranks)}" if root.ranks else ""
        if root.id is None:
            click.echo(f"root {number}: no reference covers line {root.line}{where} yet")
            click.echo(f"     {root.text or ''}")
        else:
            click.echo(f"root {number}: {root.id} at line {root.line}{where} ({root.kind})")
        click.echo(f"     {'; '.join(root.reasons)}")
        for lead in root.leads:
            click.echo(f"     closest: {lead.id} ({lead.score or 0:.2f}), not a match")
        for consequence in root.consequences:
            span = f"lines {consequence.first_line}-{consequence.last_line}"
            name = consequence.id or consequence.title.lower()
            click.echo(f"     then {name}: {consequence.count} line(s), {span}")
        _echo_candidates(root)
    if diagnosis.unrecognised:
        click.echo(f"{diagnosis.unrecognised_lines} error-looking line(s) matched nothing:")
        for line in diagnosis.unrecognised[:SHOWN_UNRECOGNISED]:
            click.echo(f"     line {line.line}: {line.text[:200]}")
