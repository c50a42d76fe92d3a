"""The command line: the `failref` commands, serving under uvicorn, and log formatting."""

from .commands import main

__all__ = ["main"]
