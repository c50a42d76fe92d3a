"""The `failref` command: serve, check and load references, inspect them, migrate the database."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
from pathlib import Path
from typing import TextIO

import click

from app.analysis import MAX_LIMIT, match_message, scan_text
from app.auth import AuthError, add_editor, remove_editor
from app.calculators import CALCULATORS
from app.collisions import message_problems
from app.config import Settings
from app.db import make_engine, upgrade_database, writing
from app.errors import FailrefError, NotFound
from app.gaps import prune_gaps
from app.library import open_library
from app.loader import read_folder
from app.matcher import RunContext, build_index
from app.mcp_server import build_mcp_server
from app.queries import get_reference
from app.render import reference_path
from app.schemas import MatchResponse, ScanResponse
from app.serving import serve as run_server

NOT_A_DIAGNOSIS = (
    "A matching message does not confirm a cause: open the reference and run its evidence checks."
)
PROGRESS_MIN_BYTES = 8 * 1024 * 1024  # below this, reading is instant and a bar only flickers


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Log what happens at INFO level.")
def cli(verbose: bool) -> None:
    """failref: performance-failure references for GPU training and inference."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


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
def serve(host: str, port: int, reload: bool, workers: int, access_log: bool) -> None:
    """Run the web app, the JSON API and the MCP endpoint."""
    if workers > 1:
        # Migrate and load once, before the workers race to do it.
        open_library(Settings()).close()
    run_server(host, port, workers, reload, access_log=access_log)


@cli.command()
@click.argument(
    "folder", required=False, type=click.Path(file_okay=False, path_type=Path), default=None
)
def check(folder: Path | None) -> None:
    """Validate a references folder; list every problem and exit 1 if there is any."""
    folder = folder or Settings().references_dir
    contents = read_folder(folder)
    index = build_index(contents.references)
    problems = sorted([*contents.problems, *message_problems(index, contents.references)])
    for problem in problems:
        click.echo(f"{problem.severity}: {problem}", err=True)
    count = len(problems)
    if count:
        files = len({problem.path for problem in problems})
        click.echo(f"{count} problem(s) in {files} file(s); {len(contents.references)} valid.")
        sys.exit(1)
    click.echo(f"{len(contents.references)} references, no problems.")


@cli.command()
def load() -> None:
    """Migrate the database and load the references folder into it (only what changed)."""
    library = open_library(Settings())
    catalog = library.catalog
    for problem in catalog.problems:
        click.echo(f"{problem.severity}: {problem}", err=True)
    click.echo(f"{len(catalog.references)} references in the index.")
    library.close()
    if any(problem.severity == "error" for problem in catalog.problems):
        sys.exit(1)


@cli.command()
@click.argument("reference_id")
@click.option("--json", "as_json", is_flag=True, help="Print the structured reference as JSON.")
def show(reference_id: str, as_json: bool) -> None:
    """Print one reference from the index."""
    library = open_library(Settings())
    try:
        reference = get_reference(library.catalog, reference_id)
    except NotFound as error:
        raise click.ClickException(error.message) from None
    finally:
        library.close()
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
def mcp_command() -> None:
    """Serve the MCP tools over stdio for a chatbot or agent (stdout carries the protocol)."""
    library = open_library(Settings())
    catalog = library.catalog
    click.echo(
        f"failref MCP on stdio: {len(catalog.references)} references, "
        f"{len(catalog.problems)} problem(s)",
        err=True,
    )
    try:
        build_mcp_server(lambda: library).run("stdio")
    finally:
        library.close()


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
@click.option("--gpus", type=click.IntRange(min=1), help="How many GPUs the run uses.")
@click.option("--model", help="The model, e.g. llama-3-70b.")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, MAX_LIMIT))
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON shape.")
def match(
    text: str | None,
    framework: str | None,
    phase: str | None,
    gpu: str | None,
    gpus: int | None,
    model: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Rank the references for one message (TEXT, or standard input)."""
    context = RunContext(framework=framework, phase=phase, gpu=gpu, gpus=gpus, model=model)
    library = open_library(Settings())
    try:
        result = match_message(library.catalog, _read_text(text), context, limit)
    except FailrefError as error:
        raise click.ClickException(error.message) from None
    finally:
        library.close()
    if as_json:
        click.echo(MatchResponse.of(result, reference_path).model_dump_json(indent=2))
        return
    if result.inferred_context:
        inferred = ", ".join(f"{k}={v}" for k, v in result.inferred_context.items())
        click.echo(f"inferred from the text: {inferred}")
    if not any(m.confident for m in result.matches):
        click.echo("No confident match. Closest references (not confident):")
    for number, found in enumerate(result.matches, start=1):
        label = "confident" if found.confident else "weak"
        click.echo(f"{number}. {found.id}  {found.score:.2f} {label}  {found.title}")
        for reason in found.reasons:
            click.echo(f"     - {reason}")
    click.echo(NOT_A_DIAGNOSIS)


@cli.command()
@click.argument("file", type=click.File("r", encoding="utf-8", errors="replace"))
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON shape.")
def scan(file: TextIO, as_json: bool) -> None:
    """Find every reference a whole log shows (FILE, or - for standard input)."""
    settings = Settings()
    log = _read_with_progress(file)
    library = open_library(settings)
    try:
        result = scan_text(library.catalog, log, None, settings.max_log_lines)
    except FailrefError as error:
        raise click.ClickException(error.message) from None
    finally:
        library.close()
    if as_json:
        click.echo(ScanResponse.of(result, reference_path).model_dump_json(indent=2))
        return
    capped = " (fuzzy stage capped)" if result.capped else ""
    click.echo(f"{result.lines} lines, {result.templates} distinct templates{capped}")
    if not result.hits:
        click.echo("No reference found in this log.")
    for hit in result.hits:
        label = "confident" if hit.confident else "weak"
        lines = ", ".join(str(n) for n in hit.line_numbers)
        more = "" if hit.count <= len(hit.line_numbers) else f", ... (last {hit.last_line})"
        click.echo(f"{hit.id}  {hit.score:.2f} {label}  {hit.count} line(s): {lines}{more}")
        click.echo(f"     e.g. {hit.example[:200]}")
    click.echo(NOT_A_DIAGNOSIS)


def _read_with_progress(file: TextIO) -> str:
    """Read the whole file; on a terminal, show a progress bar for large files."""
    size = _size_of(file)
    if size is None or size < PROGRESS_MIN_BYTES or not sys.stderr.isatty():
        return file.read()
    chunks = []
    with click.progressbar(length=size, label="reading", file=sys.stderr) as bar:
        for line in file:
            chunks.append(line)
            bar.update(len(line.encode("utf-8", errors="replace")))
    return "".join(chunks)


def _size_of(file: TextIO) -> int | None:
    try:
        return os.fstat(file.fileno()).st_size or None
    except (OSError, ValueError):
        return None


@cli.command()
def calculators() -> None:
    """List the calculators and their inputs."""
    for calculator in CALCULATORS.values():
        click.echo(f"{calculator.name}: {calculator.title}")
        for spec in calculator.inputs:
            unit = f" [{spec.unit}]" if spec.unit else ""
            click.echo(f"    {spec.name}{unit} = {spec.default}")


@cli.group()
def editor() -> None:
    """Manage the people who may edit references in the web app and API."""


@editor.command("add")
@click.argument("name")
def editor_add(name: str) -> None:
    """Create editor NAME and print its token (shown once, as the last word)."""
    library = open_library(Settings())
    try:
        with writing(library.engine) as session:
            token = add_editor(session, name)
    except AuthError as error:
        raise click.ClickException(str(error)) from None
    finally:
        library.close()
    click.echo(f"Editor '{name}' created. Keep this token secret; it is shown only once:")
    click.echo(token)


@editor.command("remove")
@click.argument("name")
def editor_remove(name: str) -> None:
    """Revoke editor NAME: its token and sessions stop working at once."""
    library = open_library(Settings())
    try:
        with writing(library.engine) as session:
            remove_editor(session, name)
    except AuthError as error:
        raise click.ClickException(str(error)) from None
    finally:
        library.close()
    click.echo(f"Editor '{name}' removed.")


@cli.group()
def gaps() -> None:
    """The unanswered queries kept for /admin/gaps."""


@gaps.command("prune")
def gaps_prune() -> None:
    """Delete unanswered queries older than FAILREF_GAP_RETENTION_DAYS, from the file too."""
    settings = Settings()
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    try:
        with writing(engine) as session:
            removed = prune_gaps(session, dt.timedelta(days=settings.gap_retention_days))
    finally:
        engine.dispose()
    click.echo(f"{removed} unanswered quer{'y' if removed == 1 else 'ies'} deleted.")


@cli.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration."""
    settings = Settings()
    engine = make_engine(settings)
    upgrade_database(engine, settings)
    engine.dispose()
    click.echo("database is at the latest migration")


def main() -> None:
    """Entry point of the `failref` console script."""
    cli(prog_name="failref")
