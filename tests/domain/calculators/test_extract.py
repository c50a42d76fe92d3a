"""Extraction rules: every shipped rule is checked at build time and reads its real example;
a paste is read only for what it prints, with the line each value came from."""

from __future__ import annotations

import pytest
from paths import DATA, REFERENCES

from failref.domain.calculators import CALCULATORS, Calculator, InputSpec, get_calculator
from failref.domain.calculators.extract import ExtractionRule, Found

RULES = [
    pytest.param(calculator, rule, id=f"{calculator.name}.{rule.input}")
    for calculator in CALCULATORS.values()
    for rule in calculator.extract
]
# Where real log wording lives: the labelled set, the whole logs, the references.
REAL_TEXT = "\n".join(
    path.read_text(encoding="utf-8")
    for folder, pattern in ((DATA, "**/*.yaml"), (DATA, "**/*.log"), (REFERENCES, "*.md"))
    for path in sorted(folder.glob(pattern))
)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.00 GiB is free."
)
SPEC = InputSpec("memory_gib", "Memory", "GiB", "number", 80.0, minimum=1.0, maximum=1000.0)
GOOD_RULE = ExtractionRule(
    "memory_gib",
    r"capacity of (?P<value>[0-9.]+) (?P<unit>GiB|MiB)",
    example="capacity of 79.15 GiB",
    units={"GiB": 1.0, "MiB": 1 / 1024},
)


def calculator_with(rule: ExtractionRule) -> Calculator:
    base = get_calculator("straggler")
    return Calculator(
        "probe", "Probe", "", "", "", "", (SPEC,), base.outputs, base.compute, extract=(rule,)
    )


def test_the_issue_s_examples_are_read() -> None:
    assert get_calculator("activation-memory").read_inputs(OOM) == {"capacity_gib": Found(79.15, 1)}
    assert get_calculator("attention-memory").read_inputs(OOM) == {
        "gpu_memory_gib": Found(79.15, 1)
    }


@pytest.mark.parametrize(("calculator", "rule"), RULES)
def test_every_rule_reads_a_real_line_into_its_input_within_bounds(
    calculator: Calculator, rule: ExtractionRule
) -> None:
    assert rule.example in REAL_TEXT, "the example must be real log wording from tests/data"
    found = calculator.read_inputs(rule.example)
    assert found[rule.input].line == 1
    spec = next(spec for spec in calculator.inputs if spec.name == rule.input)
    assert spec.minimum is not None
    assert spec.maximum is not None
    value = found[rule.input].value
    assert isinstance(value, float | int)
    assert spec.minimum <= value <= spec.maximum


def test_a_log_gives_each_value_with_its_line_and_converts_units() -> None:
    log = "\n".join(
        [
            "INFO 01-29 05:21:42 [gpu_worker.py:356] Available KV cache memory: 64.73 GiB",
            "INFO 06-10 06:16:44 [kv_cache_utils.py:640] Maximum concurrency for 131,072 "
            "tokens per request: 7.85x",
            "INFO 01-29 05:21:43 Available KV cache memory: 10.00 GiB",  # the first one wins
        ]
    )
    assert get_calculator("kv-cache").read_inputs(log) == {
        "capacity_gb": Found(69.503308, 1),  # 64.73 GiB in 10^9 bytes
        "tokens_per_sequence": Found(131072, 2),
    }


def test_a_vllm_start_up_gives_the_token_count_it_prints() -> None:
    log = (DATA / "wholelogs" / "healthy_vllm_server_startup.log").read_text(encoding="utf-8")
    found = get_calculator("kv-cache").read_inputs(log)
    assert found["cache_tokens"] == Found(1028832, 16)  # `GPU KV cache size: 1,028,832 tokens`
    assert found["tokens_per_sequence"] == Found(131072, 17)


def test_nccl_tests_bus_bandwidth_is_the_slow_link_in_the_ring_convention() -> None:
    calculator = get_calculator("allreduce-slow-link")
    found = calculator.read_inputs("# Avg bus bandwidth    : 84.8558")
    assert found == {"slow_gbps": Found(84.8558, 1), "algorithm": Found("ring", 1)}
    # The healthy figure is not in an nccl-tests paste: the panel asks the reader for it.
    assert list(calculator.asked_inputs(found)) == ["baseline_gbps"]
    assert calculator.asked_inputs({}) == {}


def test_a_ratio_rule_divides_two_numbers_of_one_line() -> None:
    rule = ExtractionRule(
        "memory_gib",
        r"max (?P<value>[0-9.]+) min (?P<per>[0-9.]+)",
        example="max 30 min 10",
    )
    calculator = calculator_with(rule)
    assert calculator.read_inputs("max 30 min 10") == {"memory_gib": Found(3.0, 1)}
    assert calculator.read_inputs("max 30 min 0") == {}  # no division by zero, no value


def test_a_ratio_rule_converts_its_value_before_dividing() -> None:
    rule = ExtractionRule(
        "memory_gib",
        r"(?P<value>[0-9.]+) (?P<unit>GiB|MiB) for (?P<per>[0-9]+) blocks",
        units={"GiB": 1.0, "MiB": 1 / 1024},
        example="8 GiB for 4 blocks",
    )
    calculator = calculator_with(rule)
    assert calculator.read_inputs("16384 MiB for 2 blocks") == {"memory_gib": Found(8.0, 1)}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("NCCL watchdog: Timeout(ms)=600000", id="nothing-it-takes"),
        pytest.param("GPU 0 has a total capacity of 99999999 GiB", id="out-of-bounds"),
        pytest.param("GPU 0 has a total capacity of 79.15 TiB", id="unknown-unit"),
        pytest.param("GPU 0 has a total capacity of 1.2.3 GiB", id="not-a-number"),
        pytest.param("", id="empty"),
    ],
)
def test_nothing_is_invented(text: str) -> None:
    assert get_calculator("activation-memory").read_inputs(text) == {}


def test_a_good_rule_builds() -> None:
    assert calculator_with(GOOD_RULE).read_inputs("x\ncapacity of 2048 MiB") == {
        "memory_gib": Found(2.0, 2)
    }


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        pytest.param({"input": "nope"}, "not a number input", id="unknown-input"),
        pytest.param({"pattern": "capacity of ("}, "does not compile", id="bad-regex"),
        pytest.param(
            {"pattern": r"capacity of [0-9.]+ (?P<unit>GiB)"}, "no (?P<value>", id="no-group"
        ),
        pytest.param({"units": {}}, "go together", id="unit-group-without-units"),
        pytest.param({"example": "capacity of 0.5 GiB"}, "not read within", id="out-of-bounds"),
        pytest.param({"example": "a line it does not read"}, "not read within", id="no-read"),
        pytest.param({"sets": (("memory_gib", "x"),)}, "not a value it takes", id="bad-value"),
        pytest.param({"asks": (("nope", "enter it"),)}, "asks for 'nope'", id="asks-unknown"),
        pytest.param(
            {"asks": (("memory_gib", "enter it"),)}, "asks for 'memory_gib'", id="asks-itself"
        ),
    ],
)
def test_a_broken_rule_fails_when_the_calculator_is_built(
    changes: dict[str, object], problem: str
) -> None:
    fields = {
        "input": GOOD_RULE.input,
        "pattern": GOOD_RULE.pattern,
        "example": GOOD_RULE.example,
        "units": GOOD_RULE.units,
        "sets": GOOD_RULE.sets,
        "asks": GOOD_RULE.asks,
    }
    fields.update(changes)
    rule = ExtractionRule(**fields)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="probe: extraction rule for") as caught:
        calculator_with(rule)
    assert problem in str(caught.value)
