"""Invalid input in one set of words: every field at fault, each once, without pydantic's
own rendering; a log must hold some text."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from failref.services.input_errors import (
    BLANK_LOG,
    FieldProblem,
    LogText,
    field_problems,
    problems_message,
)


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    log: LogText
    limit: int = Field(default=5, ge=1)


def problems_of(body: dict[str, object]) -> list[FieldProblem]:
    with pytest.raises(ValidationError) as refused:
        Request.model_validate(body)
    return field_problems(refused.value.errors(), sourced=False)


@pytest.mark.parametrize(
    "log", ["", " ", "\n\t\r\n", "\u2003"], ids=["empty", "space", "newlines", "em-space"]
)
def test_a_log_without_a_visible_character_is_refused(log: str) -> None:
    assert problems_of({"log": log}) == [FieldProblem(field="log", message=BLANK_LOG)]


def test_a_log_with_text_passes_as_it_is() -> None:
    assert Request.model_validate({"log": "  x \n"}).log == "  x \n"


def test_every_wrong_field_is_named_once_in_the_models_order() -> None:
    problems = problems_of({"limit": "many", "log": 3, "extra": 1})
    assert [problem.field for problem in problems] == ["log", "limit", "extra"]
    message = problems_message(problems)
    assert message.startswith("log: ")
    assert "; limit: " in message
    assert "; extra: " in message
    assert "validation error" not in message
    assert "pydantic.dev" not in message
    assert "many" not in message  # never the value sent


@pytest.mark.parametrize(
    ("location", "field"),
    [
        pytest.param(("body", "log"), "log", id="body-field"),
        pytest.param(("query", "limit"), "limit", id="query"),
        pytest.param(("body", "context", "gpus"), "context.gpus", id="nested"),
        pytest.param(("body",), "body", id="whole-body"),
        pytest.param(("body", "inputs", 0), "inputs.0", id="list-item"),
    ],
)
def test_a_request_location_names_the_field_without_its_source(
    location: tuple[str | int, ...], field: str
) -> None:
    [problem] = field_problems([{"loc": location, "msg": "is wrong"}], sourced=True)
    assert problem == FieldProblem(field=field, message="is wrong")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        pytest.param({}, "log: is required", id="missing"),
        pytest.param({"log": "x", "extra": 1}, "extra: is not a field of this request", id="extra"),
        pytest.param({"log": "x", "limit": 0}, "limit: must be at least 1", id="too-small"),
        pytest.param({"log": "x", "limit": 2.5}, "limit: must be an integer", id="not-integer"),
        pytest.param({"log": ["x"]}, "log: must be a string", id="not-string"),
    ],
)
def test_common_problems_are_in_our_words(body: dict[str, object], words: str) -> None:
    assert problems_message(problems_of(body)) == words
