"""The `failref` command: serve, check and load references, match and scan, manage editors
and the database. Every command calls the same services as the web app."""

from __future__ import annotations

import errno
import json
import logging
import logging.config
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import click

from ..config import DEFAULT_MATCH_LIMIT, DISTRIBUTION, MAX_MATCH_LIMIT, Settings
from ..domain.calculators import CALCULATORS
from ..domain.catalog import get_reference
from ..domain.matching.reading.context import RunContext
from ..errors import FailrefError
from ..services import editors, folder_sync, readers
from ..services.analysis import match_message, scan_read_log
from ..services.check import check_folder
from ..services.library import Library, migrate, open_library
from ..services.scan_schemas import ScanResponse
from ..services.schemas import MatchResponse
from ..services.side_storage import fault_detail, storage_reason
from ..store.db import DBAPIError
from ..urls import reference_path
from .answers import echo_match, echo_scan
from .logs import logging_config
from .streaming import read_in_chunks


class FailrefGroup(click.Group):
    """A command group that shows any of our errors, and a storage fault (a full disk, a
    database that does not answer), as a one-line message (exit 1), never as a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except FailrefError as error:
            raise click.ClickException(str(error)) from None
        except DBAPIError as error:
            raise click.ClickException(storage_message(error)) from None
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
            raise click.ClickException(storage_message(error)) from None


def storage_message(error: BaseException) -> str:
    """A storage fault in one line: what it is, then the driver's or the system's words."""
    return f"{storage_reason(error)} ({fault_detail(error)})"


def settings_of(ctx: click.Context) -> Settings:
    """The settings read once, when the command started."""
    settings: Settings = ctx.find_root().obj
    return settings


@contextmanager
def opened_library(ctx: click.Context, *, roll_back: bool = False) -> Iterator[Library]:
    """The library (migrated and loaded) for one command, closed when it ends."""
    library = open_library(settings_of(ctx), roll_back=roll_back)
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
@click.option(
    "--roll-back",
    is_flag=True,
    help="Take this folder's files even when it is an older release (database mode).",
)
@click.pass_context
def load(ctx: click.Context, roll_back: bool) -> None:
    """Migrate the database and load the references folder into it (only what changed);
    exit 1 on a broken file, on a reference changed in both the folder and the database, or
    on a folder that is an older release than the newest one loaded (nothing is loaded)."""
    with opened_library(ctx, roll_back=roll_back) as library:
        catalog = library.catalog
        found = folder_sync.conflicts(library)
        older = library.last_report is not None and library.last_report.release == "older"
    if older:
        click.echo(
            "the references folder is an older release than the newest one loaded: nothing "
            "was loaded and the database's texts serve (--roll-back takes this folder's files)",
            err=True,
        )
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
    if older or found or any(problem.severity == "error" for problem in catalog.problems):
        sys.exit(1)


@cli.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def export(ctx: click.Context, folder: Path) -> None:
    """Write every current text from the database to FOLDER byte for byte, for a commit."""
    report = folder_sync.export_references(settings_of(ctx), folder)
    total = len(report.written) + report.unchanged
    click.echo(f"{total} references exported to {folder}: {len(report.written)} written.")
    if report.removed:
        click.echo(f"Files of retired references removed: {', '.join(report.removed)}.")


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
    echo_match(result)


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
    echo_scan(result)


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
