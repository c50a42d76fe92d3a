"""Structured logs: one JSON object a line, so a pasted newline, ANSI escape or bidi
override in a log message is escaped and can never forge or hide a log line."""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

# Attributes every LogRecord has; anything else was passed in `extra=` and is kept.
# uvicorn adds `color_message`, the same text with ANSI colours: not for a log file.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}
# The logger every module's `getLogger(__name__)` sits under: the package's import name.
PACKAGE = __name__.partition(".")[0]


class JsonFormatter(logging.Formatter):
    """Format a record as JSON with ASCII escapes for every control or non-ASCII character."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": _without_query(record).getMessage(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=True, default=str)


def _without_query(record: logging.LogRecord) -> logging.LogRecord:
    """Access lines lose their query string: a shared `/?q=` can carry a pasted secret."""
    args = record.args
    if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
        path = str(args[2]).split("?", 1)[0]
        record = logging.makeLogRecord({**vars(record), "args": (*args[:2], path, *args[3:])})
    return record


def logging_config(level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the app and uvicorn (its access log included)."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"default": handler},
        "root": {"handlers": ["default"], "level": level},
        "loggers": {
            name: {"handlers": ["default"], "level": level, "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", PACKAGE)
        },
    }
