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

from ..errors import FailrefError, InvalidInput
from ..services.input_errors import FieldProblem, field_problems, problems_message
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
    fields: list[FieldProblem] | None = None,
) -> Response:
    """The error answer for `request`: JSON in the fixed shape, or the error page."""
    if wants_json(request):
        body = error_body(status, message, field, problems, diff, fields)
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
    fields = error_fields(error)
    response = error_response(
        request, error.status, str(error), error.field, error.problems, error.diff, fields
    )
    if error.retry_after_s is not None:
        response.headers["retry-after"] = str(error.retry_after_s)
    return response


def error_fields(error: FailrefError) -> list[FieldProblem] | None:
    """The fields an error names, each with its problem: those it lists, else on invalid
    input its one field (with its message less the field's name in front)."""
    if error.fields is not None:
        return [FieldProblem(field=field, message=problem) for field, problem in error.fields]
    if error.status != InvalidInput.status or error.field is None:
        return None
    problem = str(error).removeprefix(f"{error.field}: ")
    return [FieldProblem(field=error.field, message=problem)]


def install_error_handlers(app: FastAPI) -> None:
    """Route every error through `error_response`."""

    @app.exception_handler(FailrefError)
    async def domain_error(request: Request, error: FailrefError) -> Response:
        return failure_response(request, error)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = validation_problems(error)
        message = problems_message(problems)
        status = InvalidInput.status
        return error_response(request, status, message, problems[0].field, fields=problems)

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


def validation_problems(error: RequestValidationError) -> list[FieldProblem]:
    """Every field the request got wrong, each once; a body that is no JSON is one problem."""
    errors = error.errors()
    for problem in errors:
        if problem.get("type") == "json_invalid":
            # Its location is the character the parser stopped at, which is no field.
            position = problem.get("loc", ("body", 0))[-1]
            message = f"{problem.get('msg', 'invalid JSON')} at character {position}"
            return [FieldProblem(field="body", message=message)]
    return field_problems(errors, sourced=True) or [
        FieldProblem(field="body", message="is invalid")
    ]
