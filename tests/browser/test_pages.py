"""End to end in Chromium: paste, scan, calculators, remembered checks, phone width, no script."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from paths import LABELLED
from playwright.sync_api import FloatRect, Page, ViewportSize, expect

from failref.domain.calculators import get_calculator
from failref.domain.matching.authoring.labelled import read_labelled
from failref.web.views.calculator_panel import format_number

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 375, "height": 800}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
MAX_SCREENSHOT_BYTES = 600_000
MAX_SCREENSHOT_HEIGHT = 2500
KV_CACHE_LINE_NUMBER = 97
WATCHDOG_LINE_NUMBER = 251
LOG_LINES = 320


def labelled_line(reference_id: str, containing: str) -> str:
    """The first labelled real line of `reference_id` that holds `containing`."""
    return next(
        line.text
        for line in read_labelled(LABELLED)
        if line.expected == reference_id and containing in line.text
    )


WATCHDOG = labelled_line("nccl-collective-timeout", "[Rank 2] Watchdog caught collective")
KV_CACHE = labelled_line("kv-cache-exhaustion", "No available memory for the cache blocks")
XID_79 = labelled_line("xid-79-fallen-off-bus", "79, GPU has fallen off the bus")
XID_LINE_NUMBER = 200


def training_log(failures: dict[int, str] | None = None) -> str:
    """Ordinary training progress with failure lines at known positions (by default, the
    KV-cache and watchdog lines)."""
    rng = random.Random(6)
    lines = []
    placed = failures or {KV_CACHE_LINE_NUMBER: KV_CACHE, WATCHDOG_LINE_NUMBER: WATCHDOG}
    for number in range(1, LOG_LINES + 1):
        if number in placed:
            lines.append(placed[number])
        else:
            lines.append(
                f"[2025-03-{1 + number // 100:02d} 10:{number % 60:02d}:{rng.randrange(60):02d}] "
                f"step {number * 10}/20000 | loss {rng.uniform(1.5, 3.0):.4f} "
                f"| lr {rng.uniform(1e-5, 3e-4):.2e} | grad_norm {rng.uniform(0.2, 1.5):.3f} "
                f"| tokens/s {rng.randrange(90_000, 120_000)}"
            )
    return "\n".join(lines)


def assert_clean(page: Page, console_errors: list[str]) -> None:
    """No CSP violation on the page and no console error on any page of the test."""
    assert page.evaluate("window.__cspViolations") == []
    assert console_errors == []


def paste(page: Page, text: str) -> None:
    page.goto("/")
    page.fill("#log", text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()


def test_a_bare_watchdog_line_is_a_symptom_with_ranked_candidates(
    page: Page, console_errors: list[str]
) -> None:
    paste(page, WATCHDOG)
    first = page.locator("ol.ranked > li").first
    expect(first).to_have_attribute("data-reference-id", "nccl-collective-timeout")
    expect(first.locator(".score .label")).to_have_text("confident")
    expect(first.locator(".kind.symptom")).to_contain_text("printed for many different causes")
    candidates = first.locator(".candidates > ol > li")
    assert candidates.count() >= 5
    expect(first.locator(".candidates h4").last).to_have_text("What tells the top two apart")
    expect(first.locator("mark")).to_contain_text("Watchdog caught collective operation timeout")
    expect(page.locator(".caution")).to_contain_text("does not confirm a cause")
    expect(page.locator("#log")).to_have_value(WATCHDOG)
    expect(page.locator(".share a")).to_have_attribute("href", re.compile(r"^/\?q=%5Brank2%5D"))
    assert_clean(page, console_errors)


def test_a_log_shows_both_failures_with_their_line_numbers(
    page: Page, console_errors: list[str]
) -> None:
    paste(page, training_log())
    expect(page.locator(".read-stats")).to_contain_text(f"Read {LOG_LINES} lines")
    kv_cache = page.locator("li[data-reference-id='kv-cache-exhaustion'] .lines")
    watchdog = page.locator("li[data-reference-id='nccl-collective-timeout'] .lines")
    expect(kv_cache).to_have_attribute("data-lines", str(KV_CACHE_LINE_NUMBER))
    expect(watchdog).to_have_attribute("data-lines", str(WATCHDOG_LINE_NUMBER))
    expect(page.locator("ol.ranked > li")).to_have_count(2)
    assert_clean(page, console_errors)


def hardware_then_timeout_log() -> str:
    return training_log({XID_LINE_NUMBER: XID_79, WATCHDOG_LINE_NUMBER: WATCHDOG})


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_log_names_its_root_first_and_links_into_the_numbered_log(
    open_page: Callable[..., Page], console_errors: list[str], viewport: ViewportSize
) -> None:
    page = open_page(viewport=viewport)
    paste(page, hardware_then_timeout_log())
    root = page.locator("li.root").first
    expect(root).to_have_attribute("data-reference-id", "xid-79-fallen-off-bus")
    expect(page.locator("h1")).to_contain_text(f"Line {XID_LINE_NUMBER}:")
    followed = root.locator("details.consequences")
    expect(followed.locator("li")).to_be_hidden()
    followed.locator("summary").click()
    expect(followed.locator("li")).to_contain_text(f"line {WATCHDOG_LINE_NUMBER}")
    root.get_by_role("link", name=f"Line {XID_LINE_NUMBER}", exact=True).click()
    assert page.url.endswith(f"#L{XID_LINE_NUMBER}")
    expect(page.locator(f"#L{XID_LINE_NUMBER}")).to_be_in_viewport()
    assert_fits(page)
    assert_clean(page, console_errors)


def test_the_story_reads_without_javascript(open_page: Callable[..., Page]) -> None:
    page = open_page(javascript=False)
    page.goto("/")
    page.fill("#log", hardware_then_timeout_log())
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()
    root = page.locator("li.root").first
    expect(root).to_have_attribute("data-reference-id", "xid-79-fallen-off-bus")
    root.locator("details.consequences summary").click()
    expect(root.locator("details.consequences li")).to_be_visible()
    expect(page.locator(f"#L{WATCHDOG_LINE_NUMBER}")).to_contain_text("Watchdog caught")


def test_a_healthy_line_raises_no_alarm(page: Page, console_errors: list[str]) -> None:
    line = next(line.text for line in read_labelled(LABELLED) if "NET/IB : Using" in line.text)
    paste(page, line)
    expect(page.locator(".healthy-lines")).to_contain_text("Normal output in your text")
    expect(page.locator(".healthy-lines pre")).to_have_text(line.strip())
    assert page.locator(".score .label.confident").count() == 0
    assert_clean(page, console_errors)


def test_a_training_oom_names_the_symptom_and_reads_its_numbers(
    page: Page, console_errors: list[str]
) -> None:
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
        "total capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, "
        "this process has 77.90 GiB memory in use. Of the allocated memory 70.10 GiB is "
        "allocated by PyTorch, and 6.30 GiB is reserved by PyTorch but unallocated."
    )
    page.goto("/")
    page.fill("#log", oom)
    page.fill("#ctx-phase", "training")
    with page.expect_navigation():
        page.get_by_role("button", name="Find references").click()
    first = page.locator("ol.ranked > li").first
    expect(first).to_have_attribute("data-reference-id", "cuda-out-of-memory")
    top = first.locator(".candidates > ol > li").first
    expect(top).to_contain_text("fragmentation")
    expect(top).to_contain_text("reserved_unallocated (6.30 GiB) > requested (2.00 GiB)")
    serving = page.locator("li[data-reference-id='kv-cache-exhaustion']")
    if serving.count():
        expect(serving.locator(".kind.disagrees")).to_contain_text("context disagrees")
    assert_clean(page, console_errors)


@pytest.mark.parametrize(
    ("reference_id", "containing"),
    [
        pytest.param("xid-79-fallen-off-bus", "fallen off the bus", id="xid-79"),
        pytest.param("cuda-device-side-assert", "Assertion `t >= 0", id="device-assert"),
        pytest.param("dataloader-worker-killed", "is killed by signal: Killed", id="worker-killed"),
        pytest.param("shared-memory-exhausted", "bus error encountered in worker", id="shm-bus"),
    ],
)
def test_a_failure_line_finds_its_reference(
    page: Page, console_errors: list[str], reference_id: str, containing: str
) -> None:
    paste(page, labelled_line(reference_id, containing))
    first = page.locator("ol.ranked > li").first
    expect(first).to_have_attribute("data-reference-id", reference_id)
    expect(first.locator(".score .label")).to_have_text("confident")
    assert_clean(page, console_errors)


def test_an_engine_death_after_an_illegal_access_names_the_access(
    page: Page, console_errors: list[str]
) -> None:
    access = labelled_line(
        "cuda-illegal-memory-access", "watchdog thread terminated with exception"
    )
    dead = labelled_line("inference-engine-dead", "EngineDeadError: EngineCore encountered")
    paste(page, f"{access}\n{dead}")
    first = page.locator("ol.ranked > li").first
    expect(first).to_have_attribute("data-reference-id", "cuda-illegal-memory-access")
    dead = page.locator("li[data-reference-id='inference-engine-dead']")
    expect(dead.locator(".kind.symptom")).to_be_visible()
    top = dead.locator(".candidates > ol > li").first
    expect(top.get_by_role("link")).to_have_attribute("href", "/r/cuda-illegal-memory-access")
    assert_clean(page, console_errors)


def test_a_low_acceptance_metrics_line_reads_as_failing(
    page: Page, console_errors: list[str]
) -> None:
    paste(page, labelled_line("speculative-decoding-low-acceptance", "acceptance rate: 0.067"))
    first = page.locator("ol.ranked > li").first
    expect(first).to_have_attribute("data-reference-id", "speculative-decoding-low-acceptance")
    expect(first.locator(".verdict-reading")).to_contain_text("Failing")
    expect(first.locator(".verdict-reading")).to_contain_text("0.067")
    assert_clean(page, console_errors)


def test_the_bare_device_side_assert_line_finds_its_reference(
    page: Page, console_errors: list[str]
) -> None:
    paste(page, "RuntimeError: CUDA error: device-side assert triggered")
    first = page.locator("ol.ranked > li").first
    expect(first).to_have_attribute("data-reference-id", "cuda-device-side-assert")
    expect(first.locator(".score .label")).to_have_text("confident")
    assert_clean(page, console_errors)


def test_calculator_outputs_follow_the_inputs_live(page: Page, console_errors: list[str]) -> None:
    page.goto("/r/pipeline-stage-imbalance")
    step = page.locator("output[data-output='step_ms']")
    expect(step).to_have_text("14,200")
    page.evaluate("window.__samePage = true")
    page.fill("#calc-microbatches", "64")
    stages = [200, 200, 200, 400, 200, 200, 200, 200]
    expected = get_calculator("pipeline-bubble").run({"stage_ms": stages, "microbatches": 64})
    expect(step).to_have_text(format_number(float(expected.outputs["step_ms"])))  # type: ignore[arg-type]
    efficiency = float(expected.outputs["efficiency"]) * 100  # type: ignore[arg-type]
    expect(page.locator("output[data-output='efficiency']")).to_have_text(format_number(efficiency))
    page.fill("#calc-microbatches", "0")
    expect(page.locator("#calc-microbatches-error")).to_have_text("must be at least 1")
    expect(page.locator("#calc-microbatches")).to_have_attribute("aria-invalid", "true")
    # Chromium logs every 4xx answer to fetch; the 422 is the API's verdict on microbatches=0.
    console_errors[:] = [e for e in console_errors if "status of 422" not in e]
    assert page.evaluate("window.__samePage") is True  # updated in place, no navigation
    assert "microbatches=0" in page.url  # the URL follows, so a reload keeps the inputs
    assert_clean(page, console_errors)


def test_calculator_works_without_javascript(open_page: Callable[..., Page]) -> None:
    page = open_page(javascript=False)
    page.goto("/calculators/pipeline-bubble")
    page.fill("#calc-microbatches", "8")
    with page.expect_navigation():
        page.get_by_role("button", name="Calculate").click()
    assert "microbatches=8" in page.url
    expected = get_calculator("pipeline-bubble").run({"microbatches": 8}).outputs["step_ms"]
    expect(page.locator("output[data-output='step_ms']")).to_have_text(format_number(expected))  # type: ignore[arg-type]


def test_ctrl_enter_submits_and_examples_fill_the_box(
    page: Page, console_errors: list[str]
) -> None:
    page.goto("/")
    example = page.locator("a[data-example]").first
    example.click()
    line = example.get_attribute("data-example")
    expect(page.locator("#log")).to_have_value(line or "")
    assert page.url.endswith("/")  # filled in place, not followed
    with page.expect_navigation():
        page.locator("#log").press("Control+Enter")
    expect(page.locator("#results-title")).to_be_visible()
    expect(page.locator("ol.ranked > li").first).to_have_attribute(
        "data-reference-id", "nccl-collective-timeout"
    )
    assert_clean(page, console_errors)


def test_rendered_markdown_runs_no_script(
    open_page: Callable[..., Page], probe_url: str, console_errors: list[str]
) -> None:
    page = open_page(base_url=probe_url)
    page.goto("/r/script-injection-probe")
    expect(page.locator("h1")).to_contain_text("<script>")
    expect(page.locator("#s-context + .prose")).to_contain_text("<script>")
    assert page.locator(".prose img, .prose b, .prose script, .prose iframe").count() == 0
    assert page.evaluate("window.__injected") is None
    assert page.locator("a[href^='javascript']").count() == 0
    assert_clean(page, console_errors)


PAGES = [
    pytest.param("/", id="home"),
    pytest.param("/?q=ValueError%3A+No+available+memory+for+the+cache+blocks", id="results"),
    pytest.param("/r/length-variance-hol-blocking", id="reference"),
    pytest.param("/references", id="browse"),
    pytest.param("/references/format", id="format-guide"),
    pytest.param("/calculators", id="calculators"),
    pytest.param("/calculators/static-batch-latency", id="calculator"),
    pytest.param("/r/no-such-reference", id="not-found"),
]


@pytest.mark.parametrize("path", PAGES)
def test_phone_width_has_no_horizontal_scroll(
    open_page: Callable[..., Page], console_errors: list[str], path: str
) -> None:
    page = open_page(viewport=PHONE)
    page.goto(path)
    assert_fits(page)
    assert page.evaluate("window.__cspViolations") == []
    # The 404 page's own status is logged by Chromium as a failed resource load.
    assert [error for error in console_errors if "404" not in error] == []


def test_log_results_fit_a_phone(open_page: Callable[..., Page], console_errors: list[str]) -> None:
    page = open_page(viewport=PHONE)
    paste(page, training_log())
    assert_fits(page)
    assert_clean(page, console_errors)


def assert_fits(page: Page) -> None:
    """The page does not scroll sideways."""
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{page.url} scrolls sideways: {widths}"


def shoot(page: Page, folder: Path, name: str, height: int | None = None) -> Path:
    """A PNG of the viewport, or of the top `height` pixels of the whole page."""
    path = folder / f"{name}.png"
    if height is None:
        page.screenshot(path=path)
        return path
    height = min(height, MAX_SCREENSHOT_HEIGHT, page.evaluate("document.body.scrollHeight"))
    clip: FloatRect = {
        "x": 0,
        "y": 0,
        "width": page.evaluate("window.innerWidth"),
        "height": height,
    }
    page.screenshot(path=path, full_page=True, clip=clip)
    return path


def test_screenshots_of_the_main_pages(open_page: Callable[..., Page], screenshots: Path) -> None:
    page = open_page()
    shots = []
    page.goto("/")
    shots.append(shoot(page, screenshots, "home"))
    paste(page, WATCHDOG)
    shots.append(shoot(page, screenshots, "results-message", height=1450))
    paste(page, hardware_then_timeout_log())
    shots.append(shoot(page, screenshots, "results-log", height=1600))
    page.goto("/r/pipeline-stage-imbalance")
    shots.append(shoot(page, screenshots, "reference"))
    page.evaluate("document.getElementById('calculator').scrollIntoView()")
    shots.append(shoot(page, screenshots, "reference-calculator"))
    page.goto("/references")
    shots.append(shoot(page, screenshots, "browse"))
    page.goto("/calculators")
    shots.append(shoot(page, screenshots, "calculators"))
    page = open_page(viewport=PHONE, scale=2)
    paste(page, WATCHDOG)
    shots.append(shoot(page, screenshots, "phone-results"))
    paste(page, hardware_then_timeout_log())
    shots.append(shoot(page, screenshots, "phone-results-log", height=1800))
    for shot in shots:
        assert 0 < shot.stat().st_size <= MAX_SCREENSHOT_BYTES, shot
