"""The command line: the `failref` commands, serving under uvicorn, and log formatting."""

from app.cli.commands import main

__all__ = ["main"]
