"""Turn one raw input (JSON value or HTML form string) into a checked, typed value."""

from __future__ import annotations

import math
import re

from ...errors import CalculatorInputError
from .spec import InputSpec, InputValue

# A form field longer than this cannot be a list of at most MAX_LIST_ITEMS numbers.
MAX_TEXT_CHARS = 100_000
# Shown values of a bad input are cut to this length so errors stay one line.
MAX_SHOWN_CHARS = 40
# Lists typed into a form may separate their numbers by commas, semicolons or spaces.
LIST_SEPARATORS = re.compile(r"[\s,;]+")
# An optional input's problem says that leaving it empty is the other way out.
OPTIONAL_HINT = ", or be left empty"


class _InvalidValueError(Exception):
    """A problem with one value, before the field name is attached."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def coerce_input(spec: InputSpec, raw: object) -> InputValue:
    """Return `raw` as the type of `spec`, or raise CalculatorInputError naming the input."""
    try:
        return _coerce(spec, raw)
    except _InvalidValueError as problem:
        left_empty = OPTIONAL_HINT if spec.optional else ""
        raise CalculatorInputError(spec.name, problem.message + left_empty) from None


def format_bound(value: float) -> str:
    """A bound as people write it: 1000000 rather than 1e+06, 0.001 rather than 1e-03."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _coerce(spec: InputSpec, raw: object) -> InputValue:
    if spec.optional and (raw is None or (isinstance(raw, str) and not raw.strip())):
        return None
    if spec.kind == "number":
        return float(_checked_number(spec, raw))
    if spec.kind == "integer":
        return _integer(spec, raw)
    if spec.kind == "choice":
        return _choice(spec, raw)
    return _number_list(spec, raw)


def _describe(raw: object) -> str:
    if raw is None:
        return "null"
    if isinstance(raw, bool):
        return "a boolean"
    if isinstance(raw, list | tuple):
        return "a list"
    if isinstance(raw, dict):
        return "an object"
    if isinstance(raw, str):
        return repr(raw[:MAX_SHOWN_CHARS])
    return type(raw).__name__


def _parse_number(raw: object) -> float | int:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise _InvalidValueError(f"must be a number, not {_describe(raw)}")
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if not text:
        raise _InvalidValueError("must be a number, not an empty string")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise _InvalidValueError(f"must be a number, not {_describe(text)}") from None


def _check_bounds(spec: InputSpec, value: float | int) -> None:
    # Python compares int with float exactly, so huge integers are rejected here
    # before any conversion to float could overflow.
    low, high = spec.minimum, spec.maximum
    if low is not None and spec.exclusive_minimum and value <= low:
        raise _InvalidValueError(f"must be greater than {format_bound(low)}")
    if low is not None and value < low:
        raise _InvalidValueError(f"must be at least {format_bound(low)}")
    if high is not None and value > high:
        raise _InvalidValueError(f"must be at most {format_bound(high)}")


def _checked_number(spec: InputSpec, raw: object) -> float | int:
    value = _parse_number(raw)
    if isinstance(value, float) and not math.isfinite(value):
        raise _InvalidValueError("must be a finite number")
    _check_bounds(spec, value)
    return value


def _integer(spec: InputSpec, raw: object) -> int:
    value = _parse_number(raw)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _InvalidValueError("must be a finite number")
        if not value.is_integer():
            raise _InvalidValueError("must be a whole number")
    _check_bounds(spec, value)
    return int(value)


def _choice(spec: InputSpec, raw: object) -> str:
    text = raw.strip() if isinstance(raw, str) else None
    if text not in spec.choices:
        raise _InvalidValueError(
            f"must be one of: {', '.join(spec.choices)} (got {_describe(raw)})"
        )
    return text


def _list_items(raw: object) -> list[object]:
    if isinstance(raw, str):
        if len(raw) > MAX_TEXT_CHARS:
            raise _InvalidValueError(f"must be at most {MAX_TEXT_CHARS} characters long")
        return [part for part in LIST_SEPARATORS.split(raw.strip()) if part]
    if isinstance(raw, list | tuple):
        return list(raw)
    raise _InvalidValueError(f"must be a list of numbers, not {_describe(raw)}")


def _number_list(spec: InputSpec, raw: object) -> list[float]:
    items = _list_items(raw)
    if not items:
        raise _InvalidValueError("must not be empty")
    if len(items) > spec.max_items:
        raise _InvalidValueError(f"must have at most {spec.max_items} items (got {len(items)})")
    values: list[float] = []
    for position, item in enumerate(items, start=1):
        try:
            values.append(float(_checked_number(spec, item)))
        except _InvalidValueError as problem:
            raise _InvalidValueError(f"item {position}: {problem.message}") from None
    return values
