"""The `failref` command: serve, check and load references, match and scan, manage editors
and the database. Every command calls the same services as the web app."""

from __future__ import annotations

import json
import logging
import logging.config
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import click

from ..config import DEFAULT_MATCH_LIMIT, MAX_MATCH_LIMIT, Settings
from ..domain.calculators import CALCULATORS
from ..domain.catalog import get_reference
from ..domain.matching.logs.ranks import number_ranges
from ..domain.matching.reading.context import RunContext
from ..domain.matching.results import Diagnosis, Match, Root, ScanHit
from ..errors import FailrefError
from ..services import editors, folder_sync, readers
from ..services.analysis import match_message, scan_read_log
from ..services.check import check_folder
from ..services.library import Library, migrate, open_library
from ..services.scan_schemas import ScanResponse
from ..services.schemas import MatchResponse
from ..urls import reference_path
from .logs import logging_config
from .streaming import read_in_chunks

NOT_A_DIAGNOSIS = (
    "A matching message does not confirm a cause: open the reference and run its evidence checks."
)
# The distribution `failref --version` reads its version from (pyproject.toml's name).
DISTRIBUTION = "failref"
SHOWN_CANDIDATES = 3  # a terminal answer names the likeliest few; --json has them all
SHOWN_UNRECOGNISED = 5
# What a log with no root is, as the page's heading says it (`Diagnosis.verdict`).
LOG_VERDICT_LINES = {
    "leads": "No confident match in this log; the closest are marked weak.",
    "unrecognised": "No reference covers the errors in this log.",
    "quiet": "Nothing in this log looks like a failure.",
}


class FailrefGroup(click.Group):
    """A command group that shows any of our errors as a one-line message (exit 1), never
    as a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except FailrefError as error:
            raise click.ClickException(str(error)) from None


def settings_of(ctx: click.Context) -> Settings:
    """The settings read once, when the command started."""
    settings: Settings = ctx.find_root().obj
    return settings


@contextmanager
def opened_library(ctx: click.Context) -> Iterator[Library]:
    """The library (migrated and loaded) for one command, closed when it ends."""
    library = open_library(settings_of(ctx))
    try:
        yield library
    finally:
        library.close()


@click.group(cls=FailrefGroup)
@click.version_option(package_name=DISTRIBUTION, message="%(prog)s %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="Log what happens at INFO level.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """failref: performance-failure references for GPU training and inference."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = Settings()


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option("--reload", is_flag=True, help="Restart when the code changes (development).")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Worker processes, each on its own SO_REUSEPORT socket.",
)
@click.option("--access-log/--no-access-log", default=True, help="Log every request.")
@click.pass_context
def serve(
    ctx: click.Context, host: str, port: int, reload: bool, workers: int, access_log: bool
) -> None:
    """Run the web app, the JSON API and the MCP endpoint."""
    from .serving import serve as run_server  # see mcp_command

    # The loader's start-up warnings below are logged as JSON too, like the workers' logs.
    logging.config.dictConfig(logging_config())
    if workers > 1:
        # Migrate and load once, before the workers race to do it.
        open_library(settings_of(ctx)).close()
    run_server(host, port, workers, reload, access_log=access_log)


@cli.command()
@click.argument(
    "folder", required=False, type=click.Path(file_okay=False, path_type=Path), default=None
)
@click.pass_context
def check(ctx: click.Context, folder: Path | None) -> None:
    """Validate a references folder; list every problem and exit 1 if there is any."""
    report = check_folder(folder or settings_of(ctx).references_dir)
    for problem in report.problems:
        click.echo(f"{problem.severity}: {problem}", err=True)
    if report.problems:
        count = len(report.problems)
        click.echo(f"{count} problem(s) in {report.files} file(s); {report.valid} valid.")
        sys.exit(1)
    click.echo(f"{report.valid} references, no problems.")


@cli.command()
@click.pass_context
def load(ctx: click.Context) -> None:
    """Migrate the database and load the references folder into it (only what changed);
    exit 1 on a broken file or on a reference changed in both the folder and the database."""
    with opened_library(ctx) as library:
        catalog = library.catalog
        found = folder_sync.conflicts(library)
    for problem in catalog.problems:
        click.echo(f"{problem.severity}: {problem}", err=True)
    for conflict in found:
        change = "deleted from" if conflict.folder_text is None else "changed in"
        click.echo(
            f"conflict: {conflict.reference_id} was {change} the folder and changed in the "
            "database since its last import; the database's text serves (/admin/conflicts)",
            err=True,
        )
    click.echo(f"{len(catalog.references)} references in the index.")
    if found or any(problem.severity == "error" for problem in catalog.problems):
        sys.exit(1)


@cli.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def export(ctx: click.Context, folder: Path) -> None:
    """Write every current text from the database to FOLDER byte for byte, for a commit."""
    report = folder_sync.export_references(settings_of(ctx), folder)
    total = len(report.written) + report.unchanged
    click.echo(f"{total} references exported to {folder}: {len(report.written)} written.")


@cli.command()
@click.argument("reference_id")
@click.option("--json", "as_json", is_flag=True, help="Print the structured reference as JSON.")
@click.pass_context
def show(ctx: click.Context, reference_id: str, as_json: bool) -> None:
    """Print one reference from the index."""
    with opened_library(ctx) as library:
        reference = get_reference(library.catalog, reference_id)
    if as_json:
        click.echo(json.dumps(reference.model_dump(mode="json"), indent=2))
        return
    click.echo(f"{reference.title}\n{reference.summary}\n")
    click.echo("Messages:")
    for message in reference.messages:
        click.echo(f"  {message.text}")
    click.echo("Causes:")
    for number, cause in enumerate(reference.causes, start=1):
        click.echo(f"  {number}. {cause.title}")
    click.echo(f"Evidence checks: {len(reference.checks)}; sources: {len(reference.sources)}")


@cli.command("mcp")
@click.pass_context
def mcp_command(ctx: click.Context) -> None:
    """Serve the MCP tools over stdio for a chatbot or agent (stdout carries the protocol)."""
    # Imported here, as `serve` imports uvicorn: at the top they would cost every other
    # command (a `failref scan` of a million lines too) ~1.5 s of start-up and ~30 MB.
    from ..mcp.stdio import draining_stdio
    from ..mcp.tools import build_mcp_server

    with opened_library(ctx) as library:
        catalog = library.catalog
        click.echo(
            f"failref MCP on stdio: {len(catalog.references)} references, "
            f"{len(catalog.problems)} problem(s)",
            err=True,
        )
        with draining_stdio():
            build_mcp_server(lambda: library).run("stdio")


def _read_text(text: str | None) -> str:
    if text is not None and text != "-":
        return text
    if sys.stdin.isatty():
        raise click.UsageError("give the text as an argument or pipe it on standard input")
    return sys.stdin.read()


@cli.command()
@click.argument("text", required=False)
@click.option("--framework", help="Framework of the run, e.g. pytorch, vllm.")
@click.option("--phase", help="training, inference, ...")
@click.option("--gpu", help="GPU model, e.g. H100.")
@click.option("--gpus", help="How many GPUs, as you would write it: 8, '8x H100', '2 x 8'.")
@click.option("--model", help="The model, e.g. llama-3-70b.")
@click.option(
    "--limit",
    default=DEFAULT_MATCH_LIMIT,
    show_default=True,
    type=click.IntRange(1, MAX_MATCH_LIMIT),
)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON shape.")
@click.pass_context
def match(
    ctx: click.Context,
    text: str | None,
    framework: str | None,
    phase: str | None,
    gpu: str | None,
    gpus: str | None,
    model: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Rank the references for one message (TEXT, or standard input)."""
    context = RunContext(framework=framework, phase=phase, gpu=gpu, gpus=gpus, model=model)
    with opened_library(ctx) as library:
        result = match_message(library, _read_text(text), context, limit, remember=False)
    if as_json:
        click.echo(MatchResponse.of(result, reference_path).model_dump_json(indent=2))
        return
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


@cli.command()
@click.argument("file", type=click.File("r", encoding="utf-8", errors="replace"))
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON shape.")
@click.pass_context
def scan(ctx: click.Context, file: TextIO, as_json: bool) -> None:
    """Find every reference a whole log shows (FILE, or - for standard input), read a chunk
    at a time: no line limit, memory grows with the log's distinct lines."""
    with read_in_chunks(file) as read, opened_library(ctx) as library:
        result = scan_read_log(library, read)
    if as_json:
        click.echo(ScanResponse.of(result, reference_path).model_dump_json(indent=2))
        return
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


@cli.command()
def calculators() -> None:
    """List the calculators and their inputs."""
    for calculator in CALCULATORS.values():
        click.echo(f"{calculator.name}: {calculator.title}")
        for spec in calculator.inputs:
            unit = f" [{spec.unit}]" if spec.unit else ""
            default = "(empty: worked out)" if spec.default is None else spec.default
            click.echo(f"    {spec.name}{unit} = {default}")


@cli.group()
def editor() -> None:
    """Manage the people who may edit references in the web app and API."""


@editor.command("add")
@click.argument("name")
@click.pass_context
def editor_add(ctx: click.Context, name: str) -> None:
    """Create editor NAME and print its token (shown once, as the last word)."""
    with opened_library(ctx) as library:
        token = editors.add_editor(library, name)
    click.echo(f"Editor '{name}' created. Keep this token secret; it is shown only once:")
    click.echo(token)


@editor.command("remove")
@click.argument("name")
@click.pass_context
def editor_remove(ctx: click.Context, name: str) -> None:
    """Revoke editor NAME: its token and sessions stop working at once."""
    with opened_library(ctx) as library:
        editors.remove_editor(library, name)
    click.echo(f"Editor '{name}' removed.")


@cli.group()
def gaps() -> None:
    """The unanswered queries kept for /admin/gaps."""


@gaps.command("prune")
@click.pass_context
def gaps_prune(ctx: click.Context) -> None:
    """Delete unanswered queries older than FAILREF_GAP_RETENTION_DAYS, from the file too."""
    removed = readers.prune_gaps(settings_of(ctx))
    click.echo(f"{removed} unanswered quer{'y' if removed == 1 else 'ies'} deleted.")


@cli.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
@click.pass_context
def db_upgrade(ctx: click.Context) -> None:
    """Apply every pending migration."""
    migrate(settings_of(ctx))
    click.echo("database is at the latest migration")


def main() -> None:
    """Entry point of the `failref` console script."""
    cli(prog_name="failref")
