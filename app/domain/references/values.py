"""Values a message names and the conditions authors write over them, as data.

A message template may name the value a placeholder stands for: `<n:concurrency>` (a
number), `<size:free>` (a number and a unit, read as bytes) or `<word:hw_slowdown>`. A
diagnostic block's "Failing when `concurrency < 1`." and a candidate cause's "When:
`reserved_unallocated > requested`" are conditions over those names. Everything here is
checked when a reference loads (a bad rule is a `file:line` problem) and evaluated without
`eval` or compiling anything a user wrote: the only patterns built are escaped author
literals followed by a fixed value pattern, so reading values is linear in the text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

ValueType = Literal["n", "size", "word"]
Operator = Literal["<", "<=", ">", ">=", "==", "!="]
Value = float | str

NAMED_PLACEHOLDER_RE = re.compile(r"<(n|size|word):([a-z][a-z0-9_]{0,39})>")
NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")
ANY_PLACEHOLDER_RE = re.compile(r"<[a-z][a-z0-9_-]*(?::[a-z][a-z0-9_]*)?>")
CONJUNCTION = " and "
NUMBER_TEXT_RE = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# `<n:x>` or `<size:x>` stand for any placeholder of the same kind in comparisons.
PLAIN_FORM: dict[str, str] = {"n": "<n>", "size": "<n> <word>", "word": "<word>"}
OPERATORS: tuple[Operator, ...] = ("<=", ">=", "==", "!=", "<", ">")
# Units a `<size:...>` value may carry, in bytes (binary and decimal as PyTorch, vLLM and
# nvidia-smi print them).
UNITS: dict[str, float] = {
    "b": 1,
    "bytes": 1,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
# A number as logs print it: vLLM groups thousands (`GPU KV cache size: 1,028,832 tokens`),
# so `,` followed by exactly three digits continues a number and `1,2,3` is a list.
_DIGITS = r"\d{1,3}(?:,\d{3})+(?!\d)|\d+"
VALUE_PATTERNS: dict[str, str] = {
    "n": rf"(-?(?:{_DIGITS})(?:\.\d+)?(?:[eE][-+]?\d+)?)",
    "size": rf"((?:{_DIGITS})(?:\.\d+)?)\s*([KMGT]i?B|bytes|B)\b",
    "word": r"([\w.+-]+)",
}
# The same for lower-cased ASCII text (`read_values`): case-sensitive, `re` skips to a
# pattern's literal first word at C speed, which it does not do under IGNORECASE.
_LOWER_VALUE_PATTERNS: dict[str, str] = {
    **VALUE_PATTERNS,
    "size": rf"((?:{_DIGITS})(?:\.\d+)?)\s*([kmgt]i?b|bytes|b)\b",
}
# Text searched for values: a single message's lines, or the lines around a scan hit.
MAX_VALUE_TEXT_CHARS = 64 * 1024
# Literal words before a named value that are enough to find it (the rest of the line
# before it may vary).
PREFIX_WORDS = 4
# Compiled slot patterns kept, the least recently read going first: the shipped
# references hold about a hundred slots.
SLOT_PATTERNS_KEPT = 4096


@dataclass(frozen=True, slots=True)
class Slot:
    """A named value of a template: its kind and the literal words just before it."""

    name: str
    kind: ValueType
    prefix: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Operand:
    """One side of a condition: a named value (times a factor), a number or a word."""

    name: str | None = None
    number: float | None = None
    word: str | None = None
    factor: float = 1.0

    def text(self) -> str:
        if self.name is not None:
            return self.name if self.factor == 1.0 else f"{_number_text(self.factor)} * {self.name}"
        return _number_text(self.number) if self.number is not None else str(self.word)


@dataclass(frozen=True, slots=True)
class Condition:
    """`left OP right`, as an author wrote it."""

    left: Operand
    operator: Operator
    right: Operand

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(side.name for side in (self.left, self.right) if side.name is not None)

    def text(self) -> str:
        return f"{self.left.text()} {self.operator} {self.right.text()}"


@dataclass(frozen=True, slots=True)
class Rule:
    """Conditions that must all hold (`a < 1 and b > 0`)."""

    conditions: tuple[Condition, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for condition in self.conditions for name in condition.names)


class RuleError(ValueError):
    """A condition or a named placeholder that cannot be used, with what is wrong."""


def plain_template(text: str) -> str:
    """The template with names dropped (`<n:x>` is `<n>`): what matching compares."""
    return NAMED_PLACEHOLDER_RE.sub(lambda found: PLAIN_FORM[found.group(1)], text)


def template_slots(text: str) -> list[Slot]:
    """The named values of a template, each with the literal words before it.

    Raises RuleError for a name used twice or a value with no literal text before it on
    its line (nothing would tell where to read it)."""
    slots: list[Slot] = []
    for line in text.split("\n"):
        for found in NAMED_PLACEHOLDER_RE.finditer(line):
            # Only the literal text since the last placeholder of any kind is fixed.
            before = ANY_PLACEHOLDER_RE.split(line[: found.start()])[-1]
            prefix = tuple(before.split())[-PREFIX_WORDS:]
            kind, name = found.group(1), found.group(2)
            if not prefix:
                raise RuleError(f"value '{name}' needs literal text just before it on its line")
            if any(slot.name == name for slot in slots):
                raise RuleError(f"value '{name}' is named twice")
            slots.append(Slot(name, _value_type(kind), prefix))
    return slots


def _value_type(kind: str) -> ValueType:
    if kind == "size":
        return "size"
    return "word" if kind == "word" else "n"


def parse_rule(text: str, names: Sequence[str]) -> Rule:
    """Conditions joined by `and`; RuleError names what is wrong."""
    return Rule(tuple(parse_condition(part, names) for part in text.split(CONJUNCTION)))


def parse_condition(text: str, names: Sequence[str]) -> Condition:
    """A condition `a OP b`; RuleError names what is wrong. `names` are the values known."""
    for operator in OPERATORS:
        if operator in text:
            left, _, right = text.partition(operator)
            condition = Condition(_operand(left, names), operator, _operand(right, names))
            if not condition.names:
                raise RuleError(f"'{text}' compares no named value")
            return condition
    raise RuleError(f"'{text}' has no comparison ({', '.join(OPERATORS)})")


def _operand(text: str, names: Sequence[str]) -> Operand:
    text = text.strip()
    if not text:
        raise RuleError("a side of the comparison is empty")
    factor_text, star, name = (part.strip() for part in text.partition("*"))
    if star:
        if not NUMBER_TEXT_RE.fullmatch(factor_text):
            raise RuleError(f"'{text}': only NUMBER * name is allowed")
        return Operand(name=_known(name, names), factor=float(factor_text))
    if NUMBER_TEXT_RE.fullmatch(text):
        return Operand(number=float(text))
    if len(text) > 2 and text[0] == text[-1] and text[0] in "'\"":
        return Operand(word=text[1:-1])
    if text in names:
        return Operand(name=text)
    if re.fullmatch(r"[A-Za-z][\w.+-]{0,39}", text) and not NAME_RE.fullmatch(text):
        return Operand(word=text)  # a capitalised word such as Active is a word value
    if NAME_RE.fullmatch(text):
        raise RuleError(f"unknown value '{text}'; the message names {', '.join(names) or 'none'}")
    raise RuleError(f"'{text}' is not a value name, a number or a word")


def _known(name: str, names: Sequence[str]) -> str:
    if name not in names:
        raise RuleError(f"unknown value '{name}'; the message names {', '.join(names) or 'none'}")
    return name


def read_values(text: str, slots: Sequence[Slot]) -> dict[str, Value]:
    """The named values found in `text` (the first occurrence of each), by name."""
    return {name: value for name, (value, _) in read_placed(text, slots).items()}


def read_placed(text: str, slots: Sequence[Slot]) -> dict[str, tuple[Value, int]]:
    """`read_values` with where each value starts in `text` (a character offset)."""
    text = text[:MAX_VALUE_TEXT_CHARS]
    # A slot's first word, any case, is in every match: on ASCII text an `in` over the
    # text lowered once rules out most slots at C speed, and the others are searched for
    # lower case in it (lowering ASCII moves no character).
    lowered = text.lower() if text.isascii() else None
    found: dict[str, tuple[Value, int]] = {}
    for slot in slots:
        first = slot.prefix[0] if slot.prefix else ""
        if lowered is not None and first.isascii() and first.lower() not in lowered:
            continue
        any_case, lower = _slot_regexes(slot)
        if lowered is not None and lower is not None:
            match = lower.search(lowered)
        else:
            match = any_case.search(text)
        if match is not None:
            value = _value(slot.kind, match, text)
            if value is not None:
                found[slot.name] = (value, match.start(1))
    return found


@lru_cache(maxsize=SLOT_PATTERNS_KEPT)
def _slot_regexes(slot: Slot) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """The slot's pattern, compiled once (every match of a message with values reads
    them): ignoring case, and for lower-cased ASCII text when its words are ASCII."""
    lower = None
    if all(word.isascii() for word in slot.prefix):
        lower = re.compile(_slot_pattern(slot, lowered=True))
    return re.compile(_slot_pattern(slot), re.IGNORECASE), lower


def compile_slots(slots: Collection[Slot]) -> bool:
    """Compile these slots' patterns now (the first paste holding each would otherwise wait
    for it, about 0.2 ms a slot), when they all fit among the SLOT_PATTERNS_KEPT; whether
    they did."""
    if len(slots) > SLOT_PATTERNS_KEPT:
        return False
    for slot in slots:
        _slot_regexes(slot)
    return True


def _slot_pattern(slot: Slot, lowered: bool = False) -> str:
    """Escaped literal words joined by whitespace, then the value: linear to search. Its
    words and units lower case when `lowered`, for a lower-cased text."""
    parts: list[str] = []
    for word in slot.prefix:
        if parts:
            parts.append(
                r"\s*" if not word[0].isalnum() or not parts[-1][-1:].isalnum() else r"\s+"
            )
        parts.append(re.escape(word.lower() if lowered else word))
    values = _LOWER_VALUE_PATTERNS if lowered else VALUE_PATTERNS
    return "".join(parts) + r"\s*" + values[slot.kind]


def _value(kind: ValueType, match: re.Match[str], text: str) -> Value | None:
    """The value a match of a slot's pattern holds, read from `text` (the match may be of
    it lowered: a word keeps its case)."""
    start, end = match.span(1)
    if kind == "word":
        return text[start:end]
    number = float(text[start:end].replace(",", ""))
    if not math.isfinite(number):
        return None
    if kind == "size":
        return number * UNITS.get(match.group(2).lower(), 1)
    return number


Verdict = Literal["failing", "healthy", "unknown"]


def evaluate(condition: Condition, values: Mapping[str, Value]) -> bool | None:
    """True or False, or None when a value it needs was not read (or types differ)."""
    left, right = _resolve(condition.left, values), _resolve(condition.right, values)
    if left is None or right is None:
        return None
    if isinstance(left, str) or isinstance(right, str):
        if condition.operator not in ("==", "!="):
            return None
        same = str(left).lower() == str(right).lower()
        return same if condition.operator == "==" else not same
    return _compare(left, condition.operator, right)


def _resolve(operand: Operand, values: Mapping[str, Value]) -> Value | None:
    if operand.name is not None:
        value = values.get(operand.name)
        if isinstance(value, float) and operand.factor != 1.0:
            return value * operand.factor
        return value
    return operand.number if operand.number is not None else operand.word


def _compare(left: float, operator: Operator, right: float) -> bool:
    return {
        "<": left < right,
        "<=": left <= right,
        ">": left > right,
        ">=": left >= right,
        "==": left == right,
        "!=": left != right,
    }[operator]


def holds(rule: Rule, values: Mapping[str, Value]) -> bool | None:
    """True when every condition holds, False when one does not, None when unread."""
    results = [evaluate(condition, values) for condition in rule.conditions]
    if any(result is False for result in results):
        return False
    return True if all(result is True for result in results) else None


def failing_names(failing: Sequence[Rule], values: Mapping[str, Value]) -> frozenset[str]:
    """The names of the values that make a failing rule hold: what a failing reading is
    about (`pending`, not the counts beside it)."""
    return frozenset(name for rule in failing if holds(rule, values) is True for name in rule.names)


def verdict(
    failing: Sequence[Rule], healthy: Sequence[Rule], values: Mapping[str, Value]
) -> Verdict:
    """Failing when a failing rule holds. Healthy when a healthy rule holds or, with no
    healthy rule written, when every failing rule was read and none holds. Otherwise the
    values do not say (unknown): between the two, or not found in the text."""
    results = [holds(rule, values) for rule in failing]
    if any(result is True for result in results):
        return "failing"
    if healthy:
        return "healthy" if any(holds(rule, values) is True for rule in healthy) else "unknown"
    if results and all(result is False for result in results):
        return "healthy"
    return "unknown"


def value_text(value: Value, kind: ValueType = "n") -> str:
    """A value as a reason quotes it: sizes in the largest binary unit under them."""
    if isinstance(value, str):
        return value
    if kind == "size":
        for unit in ("TiB", "GiB", "MiB", "KiB"):
            if abs(value) >= UNITS[unit.lower()]:
                return f"{value / UNITS[unit.lower()]:.2f} {unit}"
        return f"{_number_text(value)} B"
    return _number_text(value)


def slot_kinds(slots: Sequence[Slot]) -> dict[str, ValueType]:
    """The kind of each named value."""
    return {slot.name: slot.kind for slot in slots}


def rule_text(rule: Rule, values: Mapping[str, Value], kinds: Mapping[str, ValueType]) -> str:
    """A rule with the values it was read with."""
    return " and ".join(condition_text(c, values, kinds) for c in rule.conditions)


def condition_text(
    condition: Condition, values: Mapping[str, Value], kinds: Mapping[str, ValueType]
) -> str:
    """A condition with the values it was read with: `free (1.20 GiB) < requested (2.00 GiB)`."""

    def side(operand: Operand) -> str:
        if operand.name is None or operand.name not in values:
            return operand.text()
        read = value_text(values[operand.name], kinds.get(operand.name, "n"))
        return f"{operand.text()} ({read})"

    return f"{side(condition.left)} {condition.operator} {side(condition.right)}"


def _number_text(number: float | None) -> str:
    if number is None:
        return ""
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else f"{number:g}"
