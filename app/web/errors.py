"""The one error contract, rendered: a JSON body (`services.schemas.ErrorBody`) on API,
health and MCP paths, an error page everywhere else. Every handler, the body limit and the
MCP endpoint answer through `error_response`."""

from __future__ import annotations

import functools
import logging
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import iter_route_contexts
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from ..errors import FailrefError
from ..services.schemas import error_body
from ..store.db import OperationalError
from ..urls import answers_json
from .templating import page
from .views.paste import PasteLimits

logger = logging.getLogger(__name__)

# Starlette's form parser answers 400 to a form over its field count or a field over its
# size: the form is too large, not malformed, so it gets the 413 of a body over the limit.
TOO_LARGE = 413
FORM_LIMIT_MESSAGES = ("Too many fields", "Too many files", "Field exceeded", "Part exceeded")


def wants_json(request: Request) -> bool:
    """API, health and MCP paths always answer JSON; pages answer HTML."""
    return answers_json(request.url.path)


def error_response(
    request: Request,
    status: int,
    message: str,
    field: str | None = None,
    problems: list[str] | None = None,
    diff: str | None = None,
) -> Response:
    """The error answer for `request`: JSON in the fixed shape, or the error page."""
    if wants_json(request):
        body = error_body(status, message, field, problems, diff)
        return JSONResponse(body, status_code=status)
    limits = PasteLimits.of(request.app.state.settings) if status == TOO_LARGE else None
    return page(
        request,
        "error.html",
        status=status,
        status_code=status,
        message=message,
        paste_limits=limits,
    )


def failure_response(request: Request, error: FailrefError) -> Response:
    """`error_response` for one of our errors, with everything it carries (a 429 or a busy
    503 says when to come back)."""
    response = error_response(
        request, error.status, str(error), error.field, error.problems, error.diff
    )
    if error.retry_after_s is not None:
        response.headers["retry-after"] = str(error.retry_after_s)
    return response


def install_error_handlers(app: FastAPI) -> None:
    """Route every error through `error_response`."""

    @app.exception_handler(FailrefError)
    async def domain_error(request: Request, error: FailrefError) -> Response:
        return failure_response(request, error)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        field, message = _first_validation_problem(error)
        return error_response(request, 422, message, field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        status, message = error.status_code, str(error.detail)
        if status == 400 and message.startswith(FORM_LIMIT_MESSAGES):
            status = 413
        response = error_response(request, status, message)
        for name, value in (error.headers or {}).items():
            response.headers[name] = value
        if status == 405:
            response.headers["allow"] = ", ".join(allowed_methods(request))
        return response

    @app.exception_handler(OperationalError)
    async def database_busy(request: Request, error: OperationalError) -> Response:
        # "database is locked" past the busy timeout, a full disk, a vanished file: the
        # request can be retried; the details stay in the log, never in the response.
        logger.error("database error on %s %s: %s", request.method, request.url.path, error.orig)
        return error_response(
            request, 503, "The database is busy or unavailable; try again shortly."
        )

    # Unexpected exceptions are answered by web.middleware.unexpected, inside the headers.


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's,
    and a path such as /api/v1/references/{id} has a GET route and a PUT route)."""
    methods: set[str] = set()
    for context in iter_route_contexts(request.app.routes):
        if context.path and context.methods and _pattern(context.path).match(request.url.path):
            methods.update(context.methods)
    if "GET" in methods:
        methods.add("HEAD")  # Starlette answers HEAD wherever it answers GET
    return sorted(methods)


@functools.cache
def _pattern(path: str) -> re.Pattern[str]:
    return compile_path(path)[0]


def _first_validation_problem(error: RequestValidationError) -> tuple[str | None, str]:
    problems = error.errors()
    if not problems:
        return None, "invalid input"
    first = problems[0]
    if first.get("type") == "json_invalid":
        # Its location is the character the parser stopped at, which is no field.
        position = first.get("loc", ("body", 0))[-1]
        return "body", f"body: {first.get('msg', 'invalid JSON')} at character {position}"
    location = [str(part) for part in first.get("loc", ()) if part not in ("body", "query")]
    field = ".".join(location) or None
    message = f"{field}: {first.get('msg', 'invalid')}" if field else str(first.get("msg"))
    return field, message
