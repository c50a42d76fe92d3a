"""The `failref` command: serve, check and load references, inspect them, migrate the database."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click
import uvicorn

from app.config import Settings
from app.db import make_engine, upgrade_database
from app.errors import NotFound
from app.library import open_library
from app.loader import read_folder
from app.queries import get_reference


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
@click.option("--workers", default=1, show_default=True, type=int, help="Worker processes.")
def serve(host: str, port: int, reload: bool, workers: int) -> None:
    """Run the web app and the JSON API."""
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        reload=reload,
        workers=None if reload else workers,
        proxy_headers=True,
    )


@cli.command()
@click.argument(
    "folder", required=False, type=click.Path(file_okay=False, path_type=Path), default=None
)
def check(folder: Path | None) -> None:
    """Validate a references folder; list every problem and exit 1 if there is any."""
    folder = folder or Settings().references_dir
    contents = read_folder(folder)
    for problem in contents.problems:
        click.echo(f"{problem.severity}: {problem}", err=True)
    count = len(contents.problems)
    if count:
        files = len({problem.path for problem in contents.problems})
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
