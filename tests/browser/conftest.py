"""A live server on the shipped references and a Chromium driven by Playwright.

The server runs uvicorn in a thread on 127.0.0.1 with a temporary SQLite file and the
shipped references; a second one serves a single probe whose Markdown tries to run script.
Chromium is Debian's (`scripts/test` installs it): when it is missing the tests fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    ViewportSize,
    sync_playwright,
)

from failref.config import PROJECT_ROOT, Settings
from failref.web.factory import create_app

# Set to a folder (docs/screenshots) to keep the screenshots; otherwise they go to tmp.
SCREENSHOTS_ENV = "FAILREF_SCREENSHOTS_DIR"

PROBE = Path(__file__).parent / "fixtures" / "script-injection-probe.md"
# Loading the shipped references takes a second or two; a loaded CI machine, far more.
SERVER_START_TIMEOUT_S = 90.0
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Every page records CSP violations here, before any page script runs.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


@dataclass
class LiveServer:
    """A uvicorn server in a background thread."""

    url: str
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_server(settings: Settings) -> LiveServer:
    """Serve `create_app(settings)` on a free port of 127.0.0.1 until `stop()`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(settings), log_level="warning", ws="none", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the live server stopped while starting (see its log above)")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the live server did not start in {SERVER_START_TIMEOUT_S} s")
        time.sleep(0.02)
    return LiveServer(f"http://127.0.0.1:{port}", server, thread)


def serve(folder: Path, references: list[Path]) -> LiveServer:
    """A server on a fresh database and a references folder holding `references`."""
    (folder / "references").mkdir(parents=True)
    for reference in references:
        shutil.copy(reference, folder / "references" / reference.name)
    settings = Settings(
        database_url=f"sqlite:///{folder / 'failref.db'}", references_dir=folder / "references"
    )
    return start_server(settings)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app on the shipped references and a fresh database."""
    shipped = sorted((PROJECT_ROOT / "references").glob("*.md"))
    server = serve(tmp_path_factory.mktemp("live"), shipped)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def probe_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second server whose only reference tries to run script from every field."""
    server = serve(tmp_path_factory.mktemp("probe"), [PROBE])
    yield server.url
    server.stop()


def chromium_path() -> str:
    """Debian's Chromium; a clear failure, never a skip, when it is not installed."""
    path = shutil.which("chromium")
    if path is None:
        pytest.fail(
            "Chromium is not installed: the browser tests need Debian's `chromium` on PATH "
            "(`apt-get install chromium`, which `bash scripts/test` does for you).",
            pytrace=False,
        )
    return path


# Module scope, not session: Playwright's sync API keeps an asyncio loop running in the
# main thread while it is open, and later tests (anyio, asyncio.run) must find none.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """One headless Chromium per test module."""
    args = list(CHROMIUM_ARGS)
    if os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to sandbox as root
    chromium = playwright.chromium.launch(executable_path=chromium_path(), args=args)
    yield chromium
    chromium.close()


def record_console(errors: list[str], message: ConsoleMessage) -> None:
    if message.type == "error":
        errors.append(f"console: {message.text} at {message.location.get('url')}")


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where a test saves its screenshots: the folder $FAILREF_SCREENSHOTS_DIR names
    (docs/screenshots, when regenerating them), else the test's own temporary folder."""
    folder = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def console_errors() -> list[str]:
    """Console errors and uncaught exceptions of every page a test opens."""
    return []


@pytest.fixture
def open_page(
    browser: Browser, live_server: LiveServer, console_errors: list[str]
) -> Iterator[Callable[..., Page]]:
    """Opens pages, each in a fresh context (own storage), recording errors and CSP violations."""
    contexts: list[BrowserContext] = []

    def open_one(
        viewport: ViewportSize = DESKTOP,
        javascript: bool = True,
        scale: float = 1,
        base_url: str | None = None,
    ) -> Page:
        context = browser.new_context(
            base_url=base_url or live_server.url,
            viewport=viewport,
            java_script_enabled=javascript,
            device_scale_factor=scale,
        )
        contexts.append(context)
        context.add_init_script(RECORD_VIOLATIONS)
        tab = context.new_page()
        tab.on("console", lambda message: record_console(console_errors, message))
        tab.on("pageerror", lambda error: console_errors.append(f"page error: {error}"))
        return tab

    yield open_one
    for context in contexts:
        context.close()


@pytest.fixture
def page(open_page: Callable[..., Page]) -> Page:
    """A desktop-sized page."""
    return open_page()


@pytest.fixture(scope="module")
def start_live_server() -> Iterator[Callable[[Settings], str]]:
    """Starts servers with settings of a test module's own (small limits, say) and gives
    their URLs; each is stopped after the module."""
    started: list[LiveServer] = []

    def start(settings: Settings) -> str:
        started.append(start_server(settings))
        return started[-1].url

    yield start
    for server in started:
        server.stop()
