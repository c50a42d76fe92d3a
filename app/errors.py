"""Domain exceptions and the one error shape: a JSON body under /api/, an error page elsewhere."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
HEALTH_PATHS = frozenset({"/healthz", "/readyz"})
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    428: "precondition_required",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
    507: "insufficient_storage",
}
# Starlette's form parser answers 400 to a form over its field count or a field over its
# size: the form is too large, not malformed, so it gets the 413 of a body over the limit.
FORM_LIMIT_MESSAGES = ("Too many fields", "Too many files", "Field exceeded", "Part exceeded")


class ErrorDetail(BaseModel):
    """What went wrong, in a shape that never changes."""

    code: str = Field(description="Stable machine-readable code, e.g. `not_found`.")
    message: str = Field(description="What went wrong, for a person.")
    field: str | None = Field(default=None, description="The input field at fault, if any.")
    problems: list[str] | None = Field(
        default=None, description="Every problem of an invalid reference file, with its line."
    )
    diff: str | None = Field(
        default=None, description="On a conflict: the file on disk now versus the text sent."
    )


class ErrorBody(BaseModel):
    """Every API error: `{"error": {"code", "message", "field"}}`."""

    error: ErrorDetail


class FailrefError(Exception):
    """An error with an HTTP status, shown to the user as it is."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.problems: list[str] | None = None
        self.diff: str | None = None

    @property
    def code(self) -> str:
        return HTTP_CODES.get(self.status, "error")


class NotFound(FailrefError):
    status = 404


class InvalidInput(FailrefError):
    status = 422


class PayloadTooLarge(FailrefError):
    status = 413


class UnsupportedMediaType(FailrefError):
    status = 415


class Unavailable(FailrefError):
    status = 503


class Unauthorized(FailrefError):
    status = 401


class Forbidden(FailrefError):
    status = 403


class Conflict(FailrefError):
    status = 409


class PreconditionFailed(FailrefError):
    status = 412


class PreconditionRequired(FailrefError):
    status = 428


class InsufficientStorage(FailrefError):
    status = 507


def wants_json(request: Request) -> bool:
    """API and health paths always answer JSON; pages answer HTML."""
    path = request.url.path
    return path.startswith(API_PREFIX) or path in HEALTH_PATHS


def error_body(
    status: int,
    message: str,
    field: str | None = None,
    problems: list[str] | None = None,
    diff: str | None = None,
) -> dict[str, Any]:
    """The JSON error body for `status`: always code, message and field; problems and diff
    only on the errors that carry them."""
    detail = ErrorDetail(
        code=HTTP_CODES.get(status, "error"),
        message=message,
        field=field,
        problems=problems,
        diff=diff,
    )
    return ErrorBody(error=detail).model_dump(exclude={"error": _absent(problems, diff)})


def _absent(problems: list[str] | None, diff: str | None) -> set[str]:
    return {name for name, value in (("problems", problems), ("diff", diff)) if value is None}


def install_error_handlers(app: FastAPI, render_page: Any) -> None:
    """Route every error through one place; `render_page(request, status, message)` draws HTML."""

    def respond(
        request: Request, status: int, message: str, field: str | None = None, **extra: Any
    ) -> Response:
        if wants_json(request):
            return JSONResponse(error_body(status, message, field, **extra), status_code=status)
        response: Response = render_page(request, status, message)
        return response

    @app.exception_handler(FailrefError)
    async def domain_error(request: Request, error: FailrefError) -> Response:
        return respond(
            request,
            error.status,
            error.message,
            error.field,
            problems=error.problems,
            diff=error.diff,
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        field, message = _first_validation_problem(error)
        return respond(request, 422, message, field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        status, message = error.status_code, str(error.detail)
        if status == 400 and message.startswith(FORM_LIMIT_MESSAGES):
            status = 413
        response = respond(request, status, message)
        for name, value in (error.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(OperationalError)
    async def database_busy(request: Request, error: OperationalError) -> Response:
        # "database is locked" past the busy timeout, a full disk, a vanished file: the
        # request can be retried; the details stay in the log, never in the response.
        logger.error("database error on %s %s: %s", request.method, request.url.path, error.orig)
        return respond(request, 503, "The database is busy or unavailable; try again shortly.")

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, error: Exception) -> Response:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return respond(request, 500, "Something went wrong on our side; it has been logged.")


def _first_validation_problem(error: RequestValidationError) -> tuple[str | None, str]:
    problems = error.errors()
    if not problems:
        return None, "invalid input"
    first = problems[0]
    location = [str(part) for part in first.get("loc", ()) if part not in ("body", "query")]
    field = ".".join(location) or None
    message = f"{field}: {first.get('msg', 'invalid')}" if field else str(first.get("msg"))
    return field, message
