"""The calculator panel: preset or submitted values, errors per field, formatted outputs."""

from __future__ import annotations

import pytest

from failref.domain.calculators import get_calculator
from failref.web.views.calculator_panel import (
    NO_VALUE,
    build_panel,
    format_number,
    format_output,
    preset_inputs,
    show_input,
)

PIPELINE = get_calculator("pipeline-bubble")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        pytest.param(14200.0, "14,200", id="thousands"),
        pytest.param(3348439.809, "3,348,440", id="millions"),
        pytest.param(0.507042, "0.507", id="fraction"),
        pytest.param(46.666667, "46.67", id="tens"),
        pytest.param(0.0000123456, "0.000012", id="tiny"),
        pytest.param(0.0, "0", id="zero"),
        pytest.param(8, "8", id="int"),
        pytest.param(1234567, "1,234,567", id="big-int"),
        pytest.param(-2.5, "-2.5", id="negative"),
    ],
)
def test_format_number(value: float, shown: str) -> None:
    assert format_number(value) == shown


def test_format_output_reads_booleans_and_cuts_long_lists() -> None:
    assert format_output(True) == "yes"
    assert format_output(False) == "no"
    assert format_output([1.0, 2.5]) == "1, 2.5"
    assert format_output([1.0] * 20) == ", ".join(["1"] * 16) + ", … (20 values)"


@pytest.mark.parametrize(
    ("value", "shown"),
    [(16, "16"), (1.5, "1.5"), (1000.0, "1000"), ((200.0, 400.0), "200, 400"), ("ring", "ring")],
)
def test_show_input_as_typed(value: object, shown: str) -> None:
    assert show_input(value) == shown


def test_preset_is_the_worked_example_over_the_defaults() -> None:
    preset = preset_inputs(PIPELINE, {"microbatches": 8})
    assert preset["microbatches"] == 8
    assert preset["stage_ms"] == list(PIPELINE.inputs[0].default)  # type: ignore[arg-type]


def test_panel_from_the_preset_when_nothing_is_submitted() -> None:
    panel = build_panel(PIPELINE, {"stage_ms": [100, 100], "microbatches": 4}, {"other": "1"})
    assert [f.value for f in panel.fields] == ["100, 100", "4"]
    outputs = {o.spec.name: (o.value, o.unit) for o in panel.outputs}
    assert outputs["step_ms"] == ("500", "ms")
    assert outputs["efficiency"] == ("80", "%")
    assert not panel.has_errors


def test_panel_from_a_submitted_form_reports_every_bad_field() -> None:
    panel = build_panel(PIPELINE, PIPELINE.defaults(), {"stage_ms": "", "microbatches": "x"})
    errors = {f.spec.name: f.error for f in panel.fields}
    assert errors == {
        "stage_ms": "must not be empty",
        "microbatches": "must be a number, not 'x'",
    }
    assert panel.has_errors
    assert {o.value for o in panel.outputs} == {NO_VALUE}


def test_a_field_missing_from_the_query_keeps_its_preset() -> None:
    panel = build_panel(PIPELINE, {"stage_ms": [100, 300]}, {"microbatches": "4"})
    assert [(f.value, f.error) for f in panel.fields] == [("100, 300", None), ("4", None)]


def test_inputs_that_clash_put_the_error_on_the_field_named() -> None:
    moe = get_calculator("moe-load")
    panel = build_panel(moe, moe.defaults(), {"experts": "4", "top_k": "8"})
    errors = {f.spec.name: f.error for f in panel.fields if f.error}
    assert errors == {"top_k": "must not exceed Experts (4)"}
    assert panel.has_errors


def test_a_value_the_paste_cannot_give_is_asked_for_not_reported_as_the_reader_s_error() -> None:
    allreduce = get_calculator("allreduce-slow-link")
    found = allreduce.read_inputs("[1,0]<stdout>:# Avg bus bandwidth    : 92.3405")
    preset = {**allreduce.defaults(), **{name: item.value for name, item in found.items()}}
    lines = {name: item.line for name, item in found.items()}
    panel = build_panel(allreduce, preset, {}, lines, allreduce.asked_inputs(found))
    fields = {field.spec.name: field for field in panel.fields}
    healthy, degraded = fields["baseline_gbps"], fields["slow_gbps"]
    assert healthy.asking
    assert healthy.ask is not None
    assert "healthy nodes" in healthy.ask
    assert healthy.error is not None
    assert healthy.error == (
        "The 50 here is the worked example’s, and Degraded bandwidth from line 1 (92.3405 "
        "GB/s) must not exceed Healthy bandwidth (50 GB/s): the slow link is the slower one."
    )
    assert degraded.error is None  # the number read from the paste is not the problem
    assert degraded.from_line == 1
    assert panel.waits_for_reader
    assert panel.invalid_labels == ("Healthy bandwidth",)
    assert {output.value for output in panel.outputs} == {"—"}


def test_the_reader_s_healthy_value_computes_and_a_real_clash_stays_an_error() -> None:
    allreduce = get_calculator("allreduce-slow-link")
    found = allreduce.read_inputs("# Avg bus bandwidth    : 92.3405")
    preset = {**allreduce.defaults(), **{name: item.value for name, item in found.items()}}
    lines = {name: item.line for name, item in found.items()}
    asks = allreduce.asked_inputs(found)
    entered = build_panel(allreduce, preset, {"baseline_gbps": "180"}, lines, asks)
    assert not entered.has_errors
    assert not entered.waits_for_reader
    # Without a paste the same clash is the reader's own and sits on the field it names.
    typed = build_panel(allreduce, allreduce.defaults(), {"slow_gbps": "92"})
    errors = {f.spec.name: f.error for f in typed.fields if f.error}
    assert list(errors) == ["slow_gbps"]
    assert not typed.waits_for_reader
