"""Reading a calculator's inputs out of a pasted log: the rules are data beside each
calculator (`Calculator.extract`), checked when the calculator is built, so a rule whose
input, pattern, unit or example is wrong fails at import, never on a reader's paste.

A rule reads one number printed in a log (`total capacity of 79.15 GiB`) into one input,
converted to the input's unit, or the ratio of two numbers one line prints (Megatron's
straggler report gives the slowest and the fastest rank's time). Only what the paste prints
is read: a value out of the input's bounds, or a unit the rule does not know, is left out,
never guessed. A rule also names the inputs the paste cannot give that its value needs
(nccl-tests measures the degraded link, never the healthy one): the panel asks the reader
for those instead of judging the worked example's number against the paste's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ...errors import CalculatorInputError
from .coerce import coerce_input
from .spec import InputSpec

# Digits kept of a converted value (64.73 GiB is 69.503308 GB), as a person would type it.
CONVERTED_DECIMALS = 6
VALUE_GROUP = "value"
UNIT_GROUP = "unit"
# The group a ratio rule divides `value` by.
PER_GROUP = "per"
# Lines longer than this are read only this far: the numbers a rule reads come early.
MAX_READ_CHARS = 2000
# PyTorch's CUDA out-of-memory message, as every version since 2.0 prints it.
CUDA_TOTAL_CAPACITY = (
    rf"total capacity of (?P<{VALUE_GROUP}>[0-9][0-9.,]*) (?P<{UNIT_GROUP}>GiB|MiB)"
)
# Factors from the units PyTorch and vLLM print to GiB and to 10^9 bytes.
TO_GIB = {"GiB": 1.0, "MiB": 1 / 1024}
TO_GB = {"GiB": 1.073741824, "MiB": 0.001048576}


@dataclass(frozen=True, slots=True)
class ExtractionRule:
    """One number a log prints that an input takes.

        `pattern` has a `value` group (digits, `,` thousands separators allowed) and, when
        `units` is given, a `unit` group whose text `units` maps to the factor that converts
        to the input's unit; with a `per` group the value is `value / per` (a ratio: `units`
        then convert `value`, as vLLM's GiB of KV cache for a sequence's tokens gives bytes
        per token). `sets` names choice inputs the number's source decides (nccl-tests prints bus
        bandwidth, so the convention is `ring`), or number inputs it states in words (vLLM's "to
    serve at least one request" is one sequence). `asks` names inputs the paste cannot give that
        this value is compared with, each with what the reader should enter. `example` is a
        real line the rule reads, from the labelled set or a reference: the check at build
        time runs it."""

    input: str
    pattern: str
    example: str
    units: Mapping[str, float] = field(default_factory=dict)
    sets: tuple[tuple[str, str], ...] = ()
    asks: tuple[tuple[str, str], ...] = ()

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)  # `re` caches compiled patterns


@dataclass(frozen=True, slots=True)
class Found:
    """An input value read from a paste, and the 1-based line it was read from."""

    value: float | int | str
    line: int


def read_value(rule: ExtractionRule, spec: InputSpec, text: str) -> float | int | None:
    """The value `rule` reads in one line, in the input's unit and bounds, else None."""
    found = rule.compiled().search(text[:MAX_READ_CHARS])
    if found is None:
        return None
    factor = rule.units.get(found.group(UNIT_GROUP), 0.0) if rule.units else 1.0
    number = _number(found.group(VALUE_GROUP))
    if PER_GROUP in found.re.groupindex:
        divisor = _number(found.group(PER_GROUP))
        number = number / divisor if number is not None and divisor else None
    if number is None or factor == 0.0:
        return None
    number *= factor
    value: float | int = round(number, CONVERTED_DECIMALS)
    if spec.kind == "integer":
        if not number.is_integer():
            return None
        value = int(number)
    try:
        coerce_input(spec, value)
    except CalculatorInputError:
        return None
    return value


def _number(digits: str) -> float | None:
    try:
        return float(digits.replace(",", ""))
    except ValueError:
        return None


def extract_inputs(
    inputs: tuple[InputSpec, ...], rules: tuple[ExtractionRule, ...], text: str
) -> dict[str, Found]:
    """The inputs `rules` read in `text`, each from the first line that prints it."""
    specs = {spec.name: spec for spec in inputs}
    found: dict[str, Found] = {}
    lines = text.splitlines()
    for rule in rules:
        if rule.input in found:
            continue
        for number, line in enumerate(lines, start=1):
            value = read_value(rule, specs[rule.input], line)
            if value is not None:
                found[rule.input] = Found(value, number)
                for name, choice in rule.sets:
                    found.setdefault(name, Found(choice, number))
                break
    return found


def _settable(spec: InputSpec, value: str) -> bool:
    """Whether a rule may set `spec` to `value`: a choice it offers, or a number it takes."""
    if spec.choices:
        return value in spec.choices
    try:
        coerce_input(spec, value)
    except CalculatorInputError:
        return False
    return True


def asked_inputs(rules: tuple[ExtractionRule, ...], found: Mapping[str, Found]) -> dict[str, str]:
    """What to enter in each input the paste cannot give but a value read from it needs."""
    asks: dict[str, str] = {}
    for rule in rules:
        if rule.input in found:
            for name, prompt in rule.asks:
                if name not in found:
                    asks.setdefault(name, prompt)
    return asks


def check_rules(
    name: str, inputs: tuple[InputSpec, ...], rules: tuple[ExtractionRule, ...]
) -> None:
    """Raise ValueError naming the calculator and the rule when a rule cannot work: an
    unknown input, a pattern that does not compile or lacks its groups, a unit mapping on a
    pattern without a unit group, an example it does not read within the
    input's bounds, a choice it sets that the input does not offer, or an input it asks
    for that the calculator does not have."""
    specs = {spec.name: spec for spec in inputs}
    for rule in rules:
        where = f"{name}: extraction rule for {rule.input!r}"
        spec = specs.get(rule.input)
        if spec is None or spec.kind not in ("number", "integer"):
            raise ValueError(f"{where}: not a number input of the calculator")
        try:
            groups = rule.compiled().groupindex
        except re.error as error:
            raise ValueError(f"{where}: the pattern does not compile: {error}") from None
        if VALUE_GROUP not in groups:
            raise ValueError(f"{where}: the pattern has no (?P<{VALUE_GROUP}>...) group")
        if bool(rule.units) != (UNIT_GROUP in groups):
            raise ValueError(f"{where}: a (?P<{UNIT_GROUP}>...) group and `units` go together")
        if read_value(rule, spec, rule.example) is None:
            raise ValueError(f"{where}: its example is not read within the input's bounds")
        for choice_name, choice in rule.sets:
            target = specs.get(choice_name)
            if target is None or not _settable(target, choice):
                raise ValueError(f"{where}: sets {choice_name}={choice!r}, not a value it takes")
        for asked, prompt in rule.asks:
            if asked not in specs or asked == rule.input or not prompt:
                raise ValueError(f"{where}: asks for {asked!r}, not another input of it")
