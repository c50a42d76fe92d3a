"""Calculators pre-filled from the paste, in Chromium: the numbers a matched reference's
calculator takes are filled and marked with their line, every other input keeps the
reference's worked example, the reader can change any of them, and nothing is invented."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from playwright.sync_api import Page, expect
from prefill_pastes import KV_DOES_NOT_FIT, OOM, WATCHDOG

from failref.config import PROJECT_ROOT
from failref.domain.calculators import get_calculator
from failref.domain.references.parser import parse_reference
from failref.web.views.calculator_panel import format_output, preset_inputs, show_input

pytestmark = pytest.mark.browser

VLLM_START = "\n".join(
    [
        "INFO 01-29 05:21:42 [gpu_worker.py:356] Available KV cache memory: 64.73 GiB",
        "INFO 06-10 06:16:44 [kv_cache_utils.py:640] Maximum concurrency for 131,072 tokens "
        "per request: 7.85x",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.",
    ]
)


# tests/data/wholelogs/healthy_vllm_server_startup.log, lines 13-14.
VLLM_TOKENS = "\n".join(
    [
        "INFO 06-10 06:16:44 [kv_cache_utils.py:637] GPU KV cache size: 1,028,832 tokens",
        "INFO 06-10 06:16:44 [kv_cache_utils.py:640] Maximum concurrency for 131,072 tokens "
        "per request: 7.85x",
    ]
)
# tests/data/labelled/thermal-throttling-straggler.yaml: Megatron's StragglerDetector report.
STRAGGLER_REPORT = (
    "2024-10-23 01:29:30] [INFO] | MnRtt/Rnk: 1446.49ms/13 | MxRtt/Rnk: 1570.32ms/30 | "
    "MnPwr/Rnk: 617923.00W/0 | MxPwr/Rnk: 669787.00W/20 | MnTmp/Rnk: 50.00C/0 | MxTmp/Rnk: "
    "61.00C/19 | MnUtl/Rnk: 45.00%/20 | MxUtl/Rnk: 100.00%/3 | MnClk/Rnk: 1920.00MHz/14 | "
    "MxClk/Rnk: 1965.00MHz/0 | MnDRtt/Rnk: 1.22ms/15 | MxDRtt/Rnk: 130.33ms/23 | MnEtpt/Rnk: "
    "560.82TF/30 | MxEtpt/Rnk: 608.83TF/13"
)
# The nccl-tests summary line of tests/data (an mpirun-prefixed run).
NCCL_TESTS = "[1,0]<stdout>:# Avg bus bandwidth    : 92.3405"
# A message that holds no number any calculator takes.
NO_NUMBERS = "RuntimeError: CUDA error: an illegal memory access was encountered"


def paste(page: Page, text: str) -> None:
    page.goto("/")
    page.fill("#log", text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()


def worked_example(reference_id: str) -> dict[str, object]:
    path = PROJECT_ROOT / "references" / f"{reference_id}.md"
    reference, _ = parse_reference(path.name, path.read_bytes())
    assert reference is not None
    assert reference.calculator is not None
    calculator = get_calculator(reference.calculator.name)
    return preset_inputs(calculator, reference.calculator.inputs)


def test_vllm_s_kv_cache_error_fills_its_calculator(
    page: Page, console_errors: list[str], screenshots: Path
) -> None:
    """Issue 34, item 5: the error prints every number the KV-cache calculator needs and
    got no calculator."""
    paste(page, KV_DOES_NOT_FIT)
    section = page.locator("section.prefilled")
    expect(section).to_contain_text("KV cache")
    expect(page.locator("#calc-tokens_per_sequence")).to_have_value("131072")
    expect(page.locator("#calc-bytes_per_token")).to_have_value("131072")
    expect(page.locator("#calc-capacity_gb")).to_have_value("0.762357")
    expect(page.locator("#calc-sequences")).to_have_value("1")  # "at least one request"
    for name in ("tokens_per_sequence", "bytes_per_token", "capacity_gb", "sequences"):
        expect(page.locator(f"#calc-{name}-from")).to_have_text("from line 1")
    expect(section.locator("[data-from-line]")).to_have_count(4)
    expect(section.locator("output[data-output=fits]")).to_have_text("no")
    section.scroll_into_view_if_needed()
    page.screenshot(path=screenshots / "results-prefilled-calculator.png")
    assert_no_axe_violations(page)
    address = page.url
    page.fill("#calc-tokens_per_sequence", "4096")  # the reader's own number, live
    expect(section.locator("output[data-output=fits]")).to_have_text("yes")
    assert page.url == address  # the results page's address is left alone
    assert console_errors == []


def test_one_number_of_an_oom_line_opens_no_calculator(page: Page) -> None:
    paste(page, OOM)
    expect(page.locator("#results-title")).to_be_visible()
    expect(page.locator("section.prefilled")).to_have_count(0)


def test_a_vllm_start_up_fills_two_inputs_each_from_its_line(page: Page) -> None:
    paste(page, VLLM_START)
    expect(page.locator("#calc-capacity_gb")).to_have_value("69.503308")  # 64.73 GiB in GB
    expect(page.locator("#calc-capacity_gb-from")).to_have_text("from line 1")
    expect(page.locator("#calc-tokens_per_sequence")).to_have_value("131072")
    expect(page.locator("#calc-tokens_per_sequence-from")).to_have_text("from line 2")


def test_a_paste_without_the_numbers_fills_nothing(page: Page) -> None:
    paste(page, NO_NUMBERS)
    expect(page.locator("#results-title")).to_be_visible()
    expect(page.locator("section.prefilled")).to_have_count(0)


def test_vllm_s_token_count_decides_what_fits(
    page: Page, console_errors: list[str], screenshots: Path
) -> None:
    paste(page, VLLM_TOKENS)
    section = page.locator("section.prefilled")
    expect(page.locator("#calc-cache_tokens")).to_have_value("1028832")
    expect(page.locator("#calc-cache_tokens-from")).to_have_text("from line 1")
    expect(page.locator("#calc-tokens_per_sequence-from")).to_have_text("from line 2")
    expect(section.locator("[data-from-line]")).to_have_count(2)
    # The server's count, not memory / bytes per token: floor(1,028,832 / 131,072) = 7,
    # as vLLM's own 7.85x says.
    expect(section.locator("output[data-output=capacity_tokens]")).to_have_text("1,028,832")
    expect(section.locator("output[data-output=max_sequences]")).to_have_text("7")
    href = section.locator("p a").first.get_attribute("href") or ""
    preset = worked_example(href.rsplit("/", 1)[-1])
    expect(page.locator("#calc-capacity_gb")).to_have_value(show_input(preset["capacity_gb"]))
    section.scroll_into_view_if_needed()
    page.screenshot(path=screenshots / "results-prefilled-kv-tokens.png")
    assert_no_axe_violations(page)
    page.fill("#calc-cache_tokens", "")  # empty: worked out from the memory again
    from_memory = get_calculator("kv-cache").run({**preset, "tokens_per_sequence": 131072})
    expect(section.locator("output[data-output=capacity_tokens]")).to_have_text(
        format_output(from_memory.outputs["capacity_tokens"])
    )
    assert console_errors == []


def test_megatron_s_straggler_report_gives_the_slowdown_and_nothing_else(page: Page) -> None:
    paste(page, STRAGGLER_REPORT)
    section = page.locator("section.prefilled")
    expect(page.locator("#calc-slow_factor")).to_have_value("1.085607")  # 1570.32 / 1446.49
    expect(page.locator("#calc-slow_factor-from")).to_have_text("from line 1")
    expect(section.locator("[data-from-line]")).to_have_count(1)
    preset = worked_example("thermal-throttling-straggler")
    for name in ("ranks", "compute_ms", "comm_ms", "steps"):  # not in the report: kept
        expect(page.locator(f"#calc-{name}")).to_have_value(show_input(preset[name]))
    assert_no_axe_violations(page)


def test_a_watchdog_timeout_opens_no_calculator_of_an_unlikely_candidate(page: Page) -> None:
    """Issue 34, item 5: the timeout alone opened candidate 3's checkpoint-stall
    calculator, every other input its worked example's."""
    paste(page, WATCHDOG)
    expect(page.locator("#results-title")).to_be_visible()
    expect(page.locator("section.prefilled")).to_have_count(0)


def test_nccl_tests_asks_for_the_healthy_bandwidth_instead_of_an_error(
    open_page: Callable[..., Page], console_errors: list[str], screenshots: Path
) -> None:
    for viewport, name in (
        ({"width": 1280, "height": 900}, "desktop"),
        ({"width": 390, "height": 844}, "phone"),
    ):
        page = open_page(viewport=viewport)
        paste(page, NCCL_TESTS)
        section = page.locator("section.prefilled")
        expect(page.locator("#calc-slow_gbps")).to_have_value("92.3405")
        expect(page.locator("#calc-slow_gbps-from")).to_have_text("from line 1")
        expect(page.locator("#calc-baseline_gbps-ask")).to_contain_text(
            "Not in your paste: enter the bus bandwidth nccl-tests reaches on healthy nodes"
        )
        healthy_error = page.locator("#calc-baseline_gbps-error")
        expect(healthy_error).to_contain_text("Degraded bandwidth from line 1 (92.3405 GB/s)")
        expect(healthy_error).to_contain_text("The 50 here is the worked example’s")
        expect(page.locator("#calc-slow_gbps-error")).to_be_hidden()
        expect(section.locator("[aria-invalid]")).to_have_count(0)  # nothing the reader did
        expect(section.locator("[data-outputs-caption]")).to_have_text(
            "Outputs: enter your Healthy bandwidth above"
        )
        page.locator("#calc-baseline_gbps").scroll_into_view_if_needed()
        page.screenshot(path=screenshots / f"{name}-nccl-tests-asks-healthy.png")
        assert_no_axe_violations(page)
    page.fill("#calc-baseline_gbps", "180")  # the reader's healthy busbw: outputs, live
    expect(page.locator("#calc-baseline_gbps-ask")).to_have_count(0)
    expect(healthy_error).to_be_hidden()
    expect(section.locator("[data-outputs-caption]")).to_have_text("Outputs")
    expect(section.locator("output[data-output=slowdown]")).to_have_text("1.949")  # 180 / 92.34
    assert console_errors == []


def test_without_javascript_the_asked_panel_reads_the_same(
    open_page: Callable[..., Page],
) -> None:
    page = open_page(javascript=False)
    paste(page, NCCL_TESTS)
    expect(page.locator("#calc-baseline_gbps-ask")).to_be_visible()
    expect(page.locator("section.prefilled [data-outputs-caption]")).to_have_text(
        "Outputs: enter your Healthy bandwidth above"
    )
    page.fill("#calc-baseline_gbps", "180")
    with page.expect_navigation():
        page.locator("section.prefilled").get_by_role("button", name="Calculate").click()
    assert "/r/allreduce-slow-link" in page.url
    expect(page.locator("output[data-output=slowdown]")).to_have_text("1.949")


def test_the_filled_panel_submits_to_its_reference_without_javascript(
    open_page: Callable[..., Page], screenshots: Path
) -> None:
    page = open_page(javascript=False, viewport={"width": 390, "height": 844})
    paste(page, KV_DOES_NOT_FIT)
    expect(page.locator("#calc-capacity_gb-from")).to_have_text("from line 1")
    page.locator("section.prefilled").scroll_into_view_if_needed()
    page.screenshot(path=screenshots / "phone-results-prefilled-calculator.png")
    with page.expect_navigation():
        page.locator("section.prefilled").get_by_role("button", name="Calculate").click()
    assert "/r/kv-cache-exhaustion" in page.url
    expect(page.locator("#calc-capacity_gb")).to_have_value("0.762357")
    expect(page.locator("output[data-output=fits]")).to_have_text("no")
