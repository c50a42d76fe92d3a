"""Named values and the rules over them: read from text, judged without eval."""

from __future__ import annotations

import pytest
from paths import LABELLED, REFERENCES

from failref.domain.matching.authoring.labelled import read_labelled
from failref.domain.references import values
from failref.domain.references.folder import read_folder
from failref.domain.references.values import (
    RuleError,
    Slot,
    Value,
    failing_names,
    parse_rule,
    plain_template,
    read_placed,
    read_values,
    rule_text,
    template_slots,
    verdict,
)

CONCURRENCY = "Maximum concurrency for <n> tokens per request: <n:concurrency>x"


def test_names_are_dropped_for_matching() -> None:
    assert plain_template(CONCURRENCY) == "Maximum concurrency for <n> tokens per request: <n>x"
    assert plain_template("free <size:free> of <size:total>") == "free <n> <word> of <n> <word>"


def test_a_value_is_found_after_the_literal_words_before_it() -> None:
    slots = template_slots(CONCURRENCY)
    assert [(s.name, s.kind, s.prefix) for s in slots] == [
        ("concurrency", "n", ("tokens", "per", "request:"))
    ]
    line = "INFO 06-10 [kv_cache_utils.py:640] Maximum concurrency for 131,072 tokens per request: 7.85x"
    assert read_values(line, slots) == {"concurrency": 7.85}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param("GPU KV cache size: 1,028,832 tokens", 1_028_832, id="grouped"),
        pytest.param("GPU KV cache size: 76640 tokens", 76_640, id="plain"),
        pytest.param("GPU KV cache size: 1,5 tokens", 1, id="a-list-is-not-a-number"),
        pytest.param("GPU KV cache size: 12,3456 tokens", 12, id="four-digits-after-a-comma"),
    ],
)
def test_numbers_grouped_in_thousands_are_read_whole(line: str, expected: float) -> None:
    slots = template_slots("GPU KV cache size: <n:kv_tokens> tokens")
    assert read_values(line, slots) == {"kv_tokens": expected}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("2.00 GiB", 2 * 2**30, id="binary"),
        pytest.param("512.00 MiB", 512 * 2**20, id="mebibytes"),
        pytest.param("3 GB", 3e9, id="decimal"),
        pytest.param("100 bytes", 100, id="bytes"),
    ],
)
def test_a_size_is_read_in_bytes(text: str, expected: float) -> None:
    slots = template_slots("Tried to allocate <size:requested>.")
    assert read_values(f"Tried to allocate {text}. GPU 0", slots) == {"requested": expected}


def test_words_are_read_whatever_the_alignment() -> None:
    slots = template_slots("        HW Slowdown                       : <word:hw_slowdown>")
    assert read_values("HW Slowdown   :   Active", slots) == {"hw_slowdown": "Active"}
    assert read_values("HW Slowdown : Not Active", slots) == {"hw_slowdown": "Not"}


def test_each_value_says_where_it_was_read() -> None:
    slots = template_slots("Pending : <word:pending>\nUncorrectable Error : <n:bad>")
    text = "ECC\n  Uncorrectable Error : 4\n  Pending : Yes\n  Pending : No"
    placed = read_placed(text, slots)
    assert placed == {"pending": ("Yes", text.index("Yes")), "bad": (4.0, text.index("4"))}
    assert read_values(text, slots) == {"pending": "Yes", "bad": 4.0}


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("MAXIMUM CONCURRENCY FOR 8 TOKENS PER REQUEST: 7.85x", id="upper-case"),
        pytest.param("Maximum concurrency for 8 Tokens per request: 7.85x", id="mixed-case"),
        pytest.param("Maximum concurrency — 8 tokens per request: 7.85x", id="not-ascii"),
    ],
)
def test_a_value_is_read_whatever_the_case_of_the_words_before_it(line: str) -> None:
    assert read_values(line, template_slots(CONCURRENCY)) == {"concurrency": 7.85}


def test_a_word_keeps_its_case_and_a_unit_any_case_is_read() -> None:
    slots = [
        *template_slots("Throttle: <word:reason>"),
        *template_slots("Tried to allocate <size:requested>"),
    ]
    found = read_values("THROTTLE: HwSlowdown. tried TO allocate 2.5 gIb", slots)
    assert found == {"reason": "HwSlowdown.", "requested": 2.5 * 2**30}


def _read_any_case(text: str, slots: list[Slot]) -> dict[str, Value]:
    """What `read_values` reads, with the case-insensitive patterns alone."""
    found: dict[str, Value] = {}
    for slot in slots:
        match = values._slot_regexes(slot)[0].search(text[: values.MAX_VALUE_TEXT_CHARS])
        if match is not None and (value := values._value(slot.kind, match, text)) is not None:
            found[slot.name] = value
    return found


def test_lower_case_patterns_read_what_the_case_insensitive_ones_read() -> None:
    folder = read_folder(REFERENCES)
    slots = [slot for ref in folder.references for m in ref.messages for slot in m.slots]
    texts = [line.text for line in read_labelled(LABELLED)]
    texts += [m.text for ref in folder.references for m in ref.messages]
    read = 0
    for text in texts:
        for variant in (text, text.upper(), text.swapcase()):
            found = read_values(variant, slots)
            assert found == _read_any_case(variant, slots), variant
            read += len(found)
    assert read > 300  # values of every kind are read, not only nothing equal to nothing


def test_a_value_missing_from_the_text_is_not_invented() -> None:
    assert read_values("nothing here", template_slots(CONCURRENCY)) == {}


@pytest.mark.parametrize(
    ("template", "message"),
    [
        pytest.param("<n:x> tokens", "value 'x' needs literal text just before it", id="no-prefix"),
        pytest.param("a <n:x> b <n:x>", "value 'x' is named twice", id="twice"),
        pytest.param("a <n> <n:x>", "value 'x' needs literal text just before it", id="adjacent"),
    ],
)
def test_a_template_that_cannot_be_read_is_refused(template: str, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        template_slots(template)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        pytest.param("speed < 1", "unknown value 'speed'", id="unknown-name"),
        pytest.param("concurrency", "has no comparison", id="no-operator"),
        pytest.param("1 < 2", "compares no named value", id="constants"),
        pytest.param("concurrency < ", "a side of the comparison is empty", id="empty-side"),
        pytest.param("x * concurrency < 1", "only NUMBER \\* name", id="bad-product"),
        pytest.param("concurrency < (1)", "is not a value name", id="not-a-value"),
    ],
)
def test_a_bad_rule_names_what_is_wrong(rule: str, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        parse_rule(rule, ["concurrency"])


def test_rule_text_is_never_evaluated_as_code() -> None:
    with pytest.raises(RuleError):
        parse_rule("__import__('os').system('true') < 1", ["concurrency"])


NAMES = ["used", "total", "util"]
FAILING = (parse_rule("util < 20 and used > 0.5 * total", NAMES),)
HEALTHY = (parse_rule("util >= 80", NAMES), parse_rule("used < 0.1 * total", NAMES))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        pytest.param(
            {"util": 0.0, "used": 9584.0, "total": 11170.0}, "failing", id="idle-but-full"
        ),
        pytest.param({"util": 0.0, "used": 7.0, "total": 12196.0}, "healthy", id="idle-empty"),
        pytest.param({"util": 95.0, "used": 9584.0, "total": 11170.0}, "healthy", id="busy"),
        pytest.param({"util": 50.0, "used": 9584.0, "total": 11170.0}, "unknown", id="between"),
        pytest.param({"util": 0.0}, "unknown", id="missing-value"),
    ],
)
def test_a_verdict_is_failing_healthy_or_unknown(values: dict[str, float], expected: str) -> None:
    assert verdict(FAILING, HEALTHY, values) == expected


def test_without_healthy_rules_a_read_value_that_fails_no_rule_is_healthy() -> None:
    rules = (parse_rule("concurrency < 1", ["concurrency"]),)
    assert verdict(rules, (), {"concurrency": 7.85}) == "healthy"
    assert verdict(rules, (), {"concurrency": 0.5}) == "failing"
    assert verdict(rules, (), {}) == "unknown"


def test_a_failing_reading_names_only_the_values_of_the_rules_that_hold() -> None:
    names = ["pending", "failure", "bad"]
    rules = (parse_rule("pending == Yes", names), parse_rule("failure == Yes and bad > 0", names))
    assert failing_names(rules, {"pending": "Yes", "failure": "No", "bad": 4.0}) == {"pending"}
    both = failing_names(rules, {"pending": "Yes", "failure": "Yes", "bad": 4.0})
    assert both == {"pending", "failure", "bad"}
    assert failing_names(rules, {"pending": "No"}) == frozenset()


def test_words_compare_without_case_and_quoted_words_are_allowed() -> None:
    rule = parse_rule('backend == "native_torch"', ["backend"])
    assert verdict((rule,), (), {"backend": "NATIVE_TORCH"}) == "failing"
    assert verdict((parse_rule("state == Down", ["state"]),), (), {"state": "DOWN"}) == "failing"


def test_a_rule_is_shown_with_the_values_it_read() -> None:
    rule = parse_rule("free < requested", ["free", "requested"])
    shown = rule_text(
        rule, {"free": 1.2 * 2**30, "requested": 2 * 2**30}, {"free": "size", "requested": "size"}
    )
    assert shown == "free (1.20 GiB) < requested (2.00 GiB)"
