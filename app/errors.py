"""The one exception family: every error failref shows a person carries its HTTP status, a
stable code and the input field at fault. Standard library only, so raising one loads
nothing; `app.web.errors` renders them as JSON or a page, the CLI as a message."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
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


def code_for(status: int) -> str:
    """The stable machine-readable code of an HTTP status."""
    return HTTP_CODES.get(status, "error")


class FailrefError(Exception):
    """An error shown to the user as it is: `str(error)` is the text they read."""

    status = 400
    # Seconds after which the same request may succeed (sent as Retry-After), when known.
    retry_after_s: int | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.problems: list[str] | None = None
        self.diff: str | None = None
        # Every input field at fault with its problem, when several are (`field` is the first).
        self.fields: list[tuple[str, str]] | None = None

    @property
    def code(self) -> str:
        return code_for(self.status)


class NotFound(FailrefError):
    status = 404


class InvalidInput(FailrefError):
    status = 422


class PayloadTooLarge(FailrefError):
    status = 413


class UnsupportedMediaType(FailrefError):
    status = 415


class Unauthorized(FailrefError):
    status = 401


class Forbidden(FailrefError):
    status = 403


class MethodNotAllowed(FailrefError):
    status = 405


class Conflict(FailrefError):
    status = 409


class Gone(FailrefError):
    """A reference that was retired: it answered here once and never will again."""

    status = 410


class PreconditionFailed(FailrefError):
    status = 412


class PreconditionRequired(FailrefError):
    status = 428


class TooManyRequests(FailrefError):
    """A client past its budget; `retry_after_s` is when its next request is allowed."""

    status = 429

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Unavailable(FailrefError):
    status = 503


class Busy(Unavailable):
    """The server is at a capacity it keeps for everyone; the request may succeed later."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class InsufficientStorage(FailrefError):
    status = 507


class LogTooLarge(InvalidInput):
    """A paste over the line or size limit."""

    def __init__(self, details: str) -> None:
        super().__init__(f"log: {details}", field="log")


class CalculatorInputError(InvalidInput):
    """An input value a calculator cannot use; `message` is the problem alone, since pages
    show it beside the input `field`, and `str(error)` names the field too."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", field=field)
        self.message = message


class CalculatorInputErrors(CalculatorInputError):
    """Several inputs a calculator cannot use: `field` and `message` are the first's, as a
    form shows one beside its input; `str(error)` and `fields` name every one."""

    def __init__(self, errors: Sequence[CalculatorInputError]) -> None:
        super().__init__(str(errors[0].field), errors[0].message)
        self.fields = [(str(error.field), error.message) for error in errors]
        self.args = ("; ".join(str(error) for error in errors),)


class UnknownCalculator(NotFound):
    """No calculator is registered under `name`."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        super().__init__(f"no calculator '{name[:80]}'; known: {', '.join(known)}", field="name")
        self.name = name


class FrontMatterError(InvalidInput):
    """The front matter cannot be read; `line` is 1-based in the whole file."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message, field="text")
        self.line = line


class AuthError(Unauthorized):
    """A token, editor name or session that does not hold up."""


class SessionExpired(AuthError):
    """A browser session past its lifetime; its row is deleted when this is seen."""


class StaleBase(Conflict):
    """The reference changed since the editor's base version; nothing was written."""

    def __init__(self, message: str, current_text: str | None) -> None:
        super().__init__(message, field="base")
        self.current_text = current_text


class MissingBase(Conflict):
    """A save of an existing file that does not say which version it started from."""
