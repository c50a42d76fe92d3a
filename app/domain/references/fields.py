"""The front matter of a reference file, key by key: each value checked and normalised, every
problem collected with the line of its key."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import CalculatorInputError, UnknownCalculator
from ..calculators import get_calculator
from .document import (
    CATEGORIES,
    PHASES,
    REFERENCE_KINDS,
    SLUG_RULE,
    CalculatorSpec,
    is_slug,
)
from .problems import Problem

MAX_TITLE_LENGTH = 160
MAX_SUMMARY_LENGTH = 400
REQUIRED_KEYS = ("id", "title", "summary", "category", "tags", "frameworks", "phases", "updated")
OPTIONAL_KEYS = (
    "kind",
    "engine_specific",
    "hardware",
    "calculator",
    "aliases",
    "code_paths",
    "symptoms",
)
# A code path is whole path segments: `torch/_dynamo/`, `fused_moe.py`,
# `deepspeed/runtime/zero/stage3.py`. No wildcards: it is looked up, never compiled.
CODE_PATH_RE = re.compile(r"[\w.-]+(?:/[\w.-]+)*/?")
MAX_CODE_PATHS = 16
MAX_CODE_PATH_CHARS = 120


@dataclass
class Collector:
    """Collects the problems of one file."""

    path: str
    problems: list[Problem] = field(default_factory=list)

    def add(self, line: int, rule: str, message: str) -> None:
        self.problems.append(Problem(self.path, line, rule, message))


def check_front_matter(
    values: dict[str, Any], lines: dict[str, int], stem: str, found: Collector
) -> dict[str, Any]:
    def line(key: str) -> int:
        return lines.get(key, 1)

    for key in values:
        if key not in REQUIRED_KEYS and key not in OPTIONAL_KEYS:
            found.add(line(str(key)), "front matter", f"unknown key '{key}'")
    for key in REQUIRED_KEYS:
        if key not in values:
            found.add(1, "front matter", f"missing required key '{key}'")
    meta: dict[str, Any] = {}
    for key, check in _FIELD_CHECKS.items():
        if key in values:
            checked = check(values[key], line(key), found)
            if checked is not None:
                meta[key] = checked
    if "id" in meta and meta["id"] != stem:
        found.add(line("id"), "front matter", f"id '{meta['id']}' differs from file name '{stem}'")
    if "aliases" in meta and meta.get("id") in meta["aliases"]:
        found.add(line("aliases"), "front matter", "aliases: a reference cannot alias itself")
    if meta.get("kind") == "symptom" and meta.get("symptoms"):
        found.add(line("symptoms"), "front matter", "symptoms: only a cause lists symptoms")
    if meta.get("id") in meta.get("symptoms", ()):
        found.add(line("symptoms"), "front matter", "symptoms: a reference cannot list itself")
    return meta


def _check_id(value: Any, line: int, found: Collector) -> str | None:
    if not isinstance(value, str) or not is_slug(value):
        found.add(line, "front matter", f"id must be {SLUG_RULE}")
        return None
    return value


def _check_text(limit: int) -> Callable[[Any, int, Collector], str | None]:
    def check(value: Any, line: int, found: Collector) -> str | None:
        if not isinstance(value, str) or not value.strip():
            found.add(line, "front matter", "must be non-empty text")
            return None
        if "\n" in value.strip() or len(value) > limit:
            found.add(line, "front matter", f"must be one line of at most {limit} characters")
            return None
        return value.strip()

    return check


def _check_summary(value: Any, line: int, found: Collector) -> str | None:
    summary = _check_text(MAX_SUMMARY_LENGTH)(value, line, found)
    if summary is not None and not summary.endswith((".", "?", "!")):
        found.add(line, "front matter", "summary must be one sentence ending with a full stop")
        return None
    return summary


def _check_category(value: Any, line: int, found: Collector) -> str | None:
    if value not in CATEGORIES:
        found.add(line, "front matter", f"category must be one of {', '.join(CATEGORIES)}")
        return None
    return str(value)


def _check_list(
    *, required: bool, allowed: tuple[str, ...] = ()
) -> Callable[[Any, int, Collector], tuple[str, ...] | None]:
    def check(value: Any, line: int, found: Collector) -> tuple[str, ...] | None:
        if value is None and not required:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            found.add(line, "front matter", "must be a list of non-empty strings")
            return None
        if required and not value:
            found.add(line, "front matter", "must list at least one entry")
            return None
        unknown = [v for v in value if allowed and v not in allowed]
        if unknown:
            found.add(line, "front matter", f"unknown {unknown[0]!r}; use {', '.join(allowed)}")
            return None
        return tuple(value)

    return check


def _check_tags(value: Any, line: int, found: Collector) -> tuple[str, ...] | None:
    tags = _check_list(required=True)(value, line, found)
    if tags is not None and any(tag != tag.lower() for tag in tags):
        found.add(line, "front matter", "tags must be lowercase")
        return None
    return tags


def _check_aliases(value: Any, line: int, found: Collector) -> tuple[str, ...] | None:
    aliases = _check_list(required=False)(value, line, found)
    if aliases is not None and not all(is_slug(alias) for alias in aliases):
        found.add(line, "front matter", "every alias must be a slug like an id")
        return None
    return aliases


def _check_kind(value: Any, line: int, found: Collector) -> str | None:
    if value not in REFERENCE_KINDS:
        found.add(line, "front matter", f"kind must be one of {', '.join(REFERENCE_KINDS)}")
        return None
    return str(value)


def _check_engine_specific(value: Any, line: int, found: Collector) -> bool | None:
    if not isinstance(value, bool):
        found.add(line, "front matter", "engine_specific must be true or false")
        return None
    return value


def _check_code_paths(value: Any, line: int, found: Collector) -> tuple[str, ...] | None:
    paths = _check_list(required=False)(value, line, found)
    if paths is None:
        return None
    bad = [p for p in paths if len(p) > MAX_CODE_PATH_CHARS or not CODE_PATH_RE.fullmatch(p)]
    if bad:
        found.add(
            line,
            "front matter",
            f"code_paths: {bad[0][:60]!r} is not a path of whole segments like torch/_dynamo/",
        )
        return None
    if len(paths) > MAX_CODE_PATHS:
        found.add(line, "front matter", f"code_paths: at most {MAX_CODE_PATHS} entries")
        return None
    return tuple(path.lower() for path in paths)


def _check_symptoms(value: Any, line: int, found: Collector) -> tuple[str, ...] | None:
    symptoms = _check_list(required=False)(value, line, found)
    if symptoms is not None and not all(is_slug(symptom) for symptom in symptoms):
        found.add(line, "front matter", "symptoms: every entry must be a reference id")
        return None
    return symptoms


def _check_updated(value: Any, line: int, found: Collector) -> dt.date | None:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        found.add(line, "front matter", "updated must be an ISO date like 2026-11-29")
        return None


def _check_calculator(value: Any, line: int, found: Collector) -> CalculatorSpec | None:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        found.add(line, "calculator", "must be a mapping with a 'name' and optional 'inputs'")
        return None
    inputs = value.get("inputs") or {}
    extra = set(value) - {"name", "inputs"}
    if extra or not isinstance(inputs, dict):
        found.add(line, "calculator", "only 'name' and an 'inputs' mapping are allowed")
        return None
    try:
        get_calculator(value["name"]).run(inputs)
    except UnknownCalculator:
        found.add(line, "calculator", f"unknown calculator '{value['name']}'")
        return None
    except CalculatorInputError as error:
        found.add(line, "calculator", f"input {error}")
        return None
    return CalculatorSpec(name=value["name"], inputs=inputs)


_FIELD_CHECKS: dict[str, Callable[[Any, int, Collector], Any]] = {
    "id": _check_id,
    "title": _check_text(MAX_TITLE_LENGTH),
    "summary": _check_summary,
    "kind": _check_kind,
    "engine_specific": _check_engine_specific,
    "category": _check_category,
    "tags": _check_tags,
    "frameworks": _check_list(required=True),
    "phases": _check_list(required=True, allowed=PHASES),
    "hardware": _check_list(required=False),
    "calculator": _check_calculator,
    "updated": _check_updated,
    "aliases": _check_aliases,
    "code_paths": _check_code_paths,
    "symptoms": _check_symptoms,
}
