"""Invalid input in one set of words for every front end: each field a request got wrong,
named with its problem, all of them at once. The JSON API answers them in its error body
(`fields`), the MCP tools in the text of a tool error; neither shows pydantic's own
rendering (its "N validation errors for ..." header, the value sent, a link to its docs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field
from pydantic_core import PydanticCustomError

# Where FastAPI says a request's value came from: the first part of its location, and no
# part of the field's name.
SOURCES = frozenset({"body", "query", "path", "header", "cookie"})
# A location with nothing left once its source is dropped is the whole body.
WHOLE_BODY = "body"
# JSON Schema's "holds a character that is not white space" (`pattern` is unanchored).
NOT_BLANK = r"\S"
NOT_BLANK_RE = re.compile(NOT_BLANK)
BLANK_LOG = "is empty or only white space; send a log line, a traceback or a whole log"
# Our words for the problems requests commonly have, the same whichever way a value was
# validated (pydantic words a wrong object differently for JSON and for Python values);
# any other problem keeps pydantic's message.
WORDS = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this request",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dict_type": "must be an object",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
}


class FieldProblem(BaseModel):
    """One input field at fault, and what is wrong with it."""

    field: str = Field(description="The field, dotted when nested: `limit`, `context.gpus`.")
    message: str = Field(description="Its problem, for a person.")


def field_problems(errors: Iterable[Mapping[str, Any]], *, sourced: bool) -> list[FieldProblem]:
    """One problem per field at fault, in the order pydantic found them, from its `errors()`;
    `sourced` when each location starts with where the value came from (FastAPI's)."""
    problems: dict[str, str] = {}
    for error in errors:
        location = list(error.get("loc", ()))
        if sourced and location and location[0] in SOURCES:
            location = location[1:]
        field = ".".join(str(part) for part in location) or WHOLE_BODY
        problems.setdefault(field, _words(error))
    return [FieldProblem(field=field, message=message) for field, message in problems.items()]


def _words(error: Mapping[str, Any]) -> str:
    template = WORDS.get(str(error.get("type")))
    if template is None:
        return str(error.get("msg", "is invalid"))
    return template.format(**error.get("ctx", {}))


def problems_message(problems: Iterable[FieldProblem]) -> str:
    """Every problem as `field: problem`, for the error's one-line `message`."""
    return "; ".join(f"{problem.field}: {problem.message}" for problem in problems)


def _not_blank(text: str) -> str:
    if NOT_BLANK_RE.search(text) is None:
        raise PydanticCustomError("blank", BLANK_LOG)
    return text


# A pasted log, a line or more: empty or white space alone is invalid input, refused with
# the other wrong fields of the request rather than answered with nothing.
LogText = Annotated[
    str, AfterValidator(_not_blank), Field(json_schema_extra={"pattern": NOT_BLANK})
]
