"""The package as an engineer installs it: a wheel built from the checkout, installed into a
fresh virtual environment, run from a folder outside the checkout. Its data (references,
migrations, static files) must travel inside it, its database land in the user's data
folder, and `pyproject.toml` must list every package of `app/`."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tomllib
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import ROOT
from servers import LOOPBACK, answers, free_port, wait_for

# What a wheel is built from: the files pyproject.toml reads, nothing else of the checkout.
BUILT_FROM = ("pyproject.toml", "README.md", "app", "references", "migrations", "static")
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.20 GiB is free."
)
PIP = (sys.executable, "-m", "pip")
COMMAND_TIMEOUT_S = 300


@dataclass(frozen=True)
class Installed:
    """A virtual environment holding the wheel, and a home outside the checkout."""

    bin: Path
    home: Path

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "failref"), *args],
            cwd=self.home,
            env=self.environment(),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )

    def environment(self) -> dict[str, str]:
        """No FAILREF_ setting and no path into the checkout: only what the wheel gives."""
        kept = {k: v for k, v in os.environ.items() if not k.startswith(("FAILREF_", "PYTHON"))}
        kept.pop("XDG_DATA_HOME", None)
        return {**kept, "HOME": str(self.home)}


def app_packages() -> list[str]:
    """Every folder under app/ (code or templates) as the wheel names it."""
    folders = [ROOT / "app", *(ROOT / "app").rglob("*")]
    return sorted(
        ".".join(("failref", *folder.relative_to(ROOT / "app").parts))
        for folder in folders
        if folder.is_dir() and folder.name != "__pycache__"
    )


def test_pyproject_lists_every_package_of_app() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = config["tool"]["setuptools"]["packages"]
    code = sorted(name for name in listed if not name.startswith("failref.shipped"))
    assert code == app_packages(), "add the new package to [tool.setuptools] packages"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel in a fresh venv whose other packages come from the test environment's
    site-packages (path entries, so none of their .pth files, the editable install's
    among them, is read)."""
    work = tmp_path_factory.mktemp("package")
    source = work / "source"
    source.mkdir()
    for name in BUILT_FROM:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name)
    wheels = work / "wheels"
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(source)],
        check=True,
        capture_output=True,
        timeout=COMMAND_TIMEOUT_S,
    )
    [wheel] = wheels.glob("failref-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    libraries = [entry for entry in sys.path if Path(entry).name.endswith("-packages")]
    Path(site, "test-dependencies.pth").write_text("\n".join(libraries) + "\n")
    subprocess.run(
        [*PIP, "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=COMMAND_TIMEOUT_S,
    )
    home = work / "home"
    home.mkdir()
    return Installed(venv / "bin", home)


def test_the_wheel_carries_its_data_and_not_the_checkout(installed: Installed) -> None:
    where = installed.run("--version")
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip() == f"failref {project_version()}"
    probe = subprocess.run(
        [str(installed.bin / "python"), "-c", "import failref; print(failref.__file__)"],
        cwd=installed.home,
        env=installed.environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    package = Path(probe.stdout.strip()).parent
    assert ROOT not in package.parents
    for folder, pattern in [("references", "*.md"), ("static", "*.css"), ("migrations", "*.py")]:
        assert list((package / "shipped" / folder).rglob(pattern)), folder


def test_check_reads_the_shipped_references(installed: Installed) -> None:
    checked = installed.run("check")
    shipped = len(list((ROOT / "references").glob("*.md"))) - 1  # less README.md
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().endswith(f"{shipped} references, no problems.")


def test_match_migrates_its_own_database_and_answers(installed: Installed) -> None:
    matched = installed.run("match", OOM)
    assert matched.returncode == 0, matched.stderr
    assert "1. cuda-out-of-memory" in matched.stdout
    assert (installed.home / ".local" / "share" / "failref" / "failref.db").is_file()


def test_scan_reads_a_log_from_outside_the_checkout(installed: Installed) -> None:
    log = installed.home / "train.log"
    log.write_text(f"step 10 loss 2.31\n[rank3]: {OOM}\n", encoding="utf-8")
    scanned = installed.run("scan", str(log), "--json")
    assert scanned.returncode == 0, scanned.stderr
    assert '"cuda-out-of-memory"' in scanned.stdout


def test_serve_answers_pages_and_static_files(installed: Installed) -> None:
    port = free_port()
    log = installed.home / "serve.log"
    with (
        log.open("w") as stderr,
        subprocess.Popen(  # the child keeps its own copy
            [str(installed.bin / "failref"), "serve", "--port", str(port), "--no-access-log"],
            cwd=installed.home,
            env=installed.environment(),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        ) as server,
    ):
        try:
            wait_for(lambda: server.poll() is not None or answers(port, "/readyz"), "serve")
            assert server.poll() is None, f"failref serve exited: {log.read_text()[-2000:]}"
            for path in ("/static/style.css", "/r/cuda-out-of-memory", "/api/v1/references"):
                with urllib.request.urlopen(f"http://{LOOPBACK}:{port}{path}", timeout=10) as got:
                    assert got.status == 200, path
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)


def project_version() -> str:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    version: str = config["project"]["version"]
    return version
