"""Calculators pre-filled from the paste, in Chromium: the numbers a matched reference's
calculator takes are filled and marked with their line, every other input keeps the
reference's worked example, the reader can change any of them, and nothing is invented."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from browser.axe import assert_no_axe_violations
from playwright.sync_api import Page, expect

from app.config import PROJECT_ROOT
from app.domain.calculators import get_calculator
from app.domain.references.parser import parse_reference
from app.web.views.calculator_panel import preset_inputs, show_input

pytestmark = pytest.mark.browser

# As in test_pages.py: set to a folder (docs/screenshots) to keep the screenshots.
SCREENSHOTS_ENV = "FAILREF_SCREENSHOTS_DIR"
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.00 GiB is free."
)
VLLM_START = "\n".join(
    [
        "INFO 01-29 05:21:42 [gpu_worker.py:356] Available KV cache memory: 64.73 GiB",
        "INFO 06-10 06:16:44 [kv_cache_utils.py:640] Maximum concurrency for 131,072 tokens "
        "per request: 7.85x",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.",
    ]
)
WATCHDOG = (
    "[rank2]:[E112 15:47:18.728729935 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=1085, OpType=ALLREDUCE, NumelIn=4096, "
    "NumelOut=4096, Timeout(ms)=600000) ran for 600045 milliseconds before timing out."
)


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


def shots_folder(tmp_path: Path) -> Path:
    folder = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_an_oom_line_fills_the_gpu_memory_and_keeps_the_rest(
    page: Page, console_errors: list[str], tmp_path: Path
) -> None:
    paste(page, OOM)
    section = page.locator("section.prefilled")
    expect(section).to_contain_text("activation")
    capacity = page.locator("#calc-capacity_gib")
    expect(capacity).to_have_value("79.15")
    expect(page.locator("#calc-capacity_gib-from")).to_have_text("from line 1")
    expect(section.locator("[data-from-line]")).to_have_count(1)
    preset = worked_example("activation-memory-oom")
    for name, value in preset.items():
        if name != "capacity_gib":
            expect(page.locator(f"#calc-{name}")).to_have_value(show_input(value))
    section.scroll_into_view_if_needed()
    page.screenshot(path=shots_folder(tmp_path) / "results-prefilled-calculator.png")
    assert_no_axe_violations(page)
    share = page.locator("output[data-output='share_of_capacity']")
    before = share.text_content()
    page.fill("#calc-capacity_gib", "40")  # the reader's own number wins, live
    expect(page.locator("#calc-capacity_gib-from")).to_have_count(0)
    expect(share).not_to_have_text(before or "")
    assert page.url.endswith("/")  # the results page's address is left alone
    assert console_errors == []


def test_a_vllm_start_up_fills_two_inputs_each_from_its_line(page: Page) -> None:
    paste(page, VLLM_START)
    expect(page.locator("#calc-capacity_gb")).to_have_value("69.503308")  # 64.73 GiB in GB
    expect(page.locator("#calc-capacity_gb-from")).to_have_text("from line 1")
    expect(page.locator("#calc-tokens_per_sequence")).to_have_value("131072")
    expect(page.locator("#calc-tokens_per_sequence-from")).to_have_text("from line 2")


def test_a_paste_without_the_numbers_fills_nothing(page: Page) -> None:
    paste(page, WATCHDOG)  # a timeout no shipped calculator takes
    expect(page.locator("#results-title")).to_be_visible()
    expect(page.locator("section.prefilled")).to_have_count(0)


def test_the_filled_panel_submits_to_its_reference_without_javascript(
    open_page: Callable[..., Page], tmp_path: Path
) -> None:
    page = open_page(javascript=False, viewport={"width": 390, "height": 844})
    paste(page, OOM)
    expect(page.locator("#calc-capacity_gib-from")).to_have_text("from line 1")
    page.locator("section.prefilled").scroll_into_view_if_needed()
    page.screenshot(path=shots_folder(tmp_path) / "phone-results-prefilled-calculator.png")
    with page.expect_navigation():
        page.locator("section.prefilled").get_by_role("button", name="Calculate").click()
    assert "/r/activation-memory-oom" in page.url
    expect(page.locator("#calc-capacity_gib")).to_have_value("79.15")
