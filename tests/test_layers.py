"""The layers: domain code loads no web or database library, the store loads no web library,
and nothing below the front ends imports one of them (in the spirit of click's
tests/test_imports.py: each module is imported in a fresh interpreter and `sys.modules` is
read). If a domain module imported FastAPI, its test here would fail and name it."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

APP = ROOT / "app"
# The import name of the folder app/ (pyproject.toml maps it): inside it, modules import
# each other relatively, and the checks below read those imports as `failref.` names.
PACKAGE = "failref"
WEB_LIBRARIES = ("fastapi", "starlette", "jinja2")
DATABASE_LIBRARIES = ("sqlalchemy", "sqlmodel")
FRONT_ENDS = ("failref.web", "failref.mcp", "failref.cli")
BELOW_FRONT_ENDS = ("domain", "store", "services")
LEAVES = ("config", "errors", "urls")
# What only `failref serve` and `failref mcp` use: loaded by every command, they would add
# ~1.5 s of start-up and ~30 MB to a `failref scan` of a million lines.
SERVING_LIBRARIES = ("mcp", "uvicorn", "fastapi", "starlette")


def modules_under(folder: str) -> list[str]:
    """Dotted names of every module in `app/<folder>`."""
    found = []
    for path in sorted((APP / folder).rglob("*.py")):
        found.append(module_name(path))
    return found


def module_name(path: Path) -> str:
    """The dotted name of a module of `app/` (a package by its `__init__.py`)."""
    parts = (PACKAGE, *path.relative_to(APP).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# One interpreter forks a child per module: each child imports one module and reports what
# it loaded, as a fresh interpreter would, for the cost of a fork rather than a start. The
# parent first loads the libraries every layer may use (never a forbidden one), so that
# each child only pays for its own imports.
ALLOWED_EVERYWHERE = ("pydantic", "pydantic_settings", "yaml", "rapidfuzz", "numpy", "markdown_it")
PROBE = """
import importlib, json, os, sys
for library in ALLOWED:
    importlib.import_module(library)
found = {}
for module in sys.argv[1:]:
    read, write = os.pipe()
    if os.fork() == 0:
        importlib.import_module(module)
        loaded = sorted({name.split(".")[0] for name in sys.modules})
        os.write(write, json.dumps(loaded).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found[module] = json.loads(pipe.read() or "null")
    os.wait()
print(json.dumps(found))
"""


@functools.cache
def loaded_by_all() -> dict[str, list[str] | None]:
    """For the leaves, the domain, the store, one web module and the command line: the top-level packages
    importing each alone loads."""
    modules = [*(f"{PACKAGE}.{leaf}" for leaf in LEAVES), *modules_under("domain")]
    modules += [*modules_under("store"), "failref.web.errors", "failref.cli"]
    probe = PROBE.replace("ALLOWED", repr(ALLOWED_EVERYWHERE))
    run = subprocess.run(
        [sys.executable, "-c", probe, *modules],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    found: dict[str, list[str] | None] = json.loads(run.stdout)
    return found


def loaded_by(module: str) -> set[str]:
    """The top-level packages importing `module` loads, as in a fresh interpreter."""
    loaded = loaded_by_all()[module]
    assert loaded is not None, f"importing {module} failed"
    return set(loaded)


def imports(path_parts: tuple[str, ...]) -> list[str]:
    """The modules a source file imports, relative imports resolved to absolute names (for
    `from . import x`, both the package and `package.x`, since x may be a module)."""
    path = ROOT.joinpath(*path_parts)
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.append(module)
            if node.module is None:
                names.extend(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def app_imports(path_parts: tuple[str, ...]) -> list[str]:
    """The modules of the package a source file imports."""
    return [n for n in imports(path_parts) if n == PACKAGE or n.startswith(f"{PACKAGE}.")]


@pytest.mark.parametrize("module", [*modules_under("domain"), *(f"{PACKAGE}.{m}" for m in LEAVES)])
def test_domain_and_leaf_modules_load_no_web_or_database_library(module: str) -> None:
    loaded = loaded_by(module) & {*WEB_LIBRARIES, *DATABASE_LIBRARIES}
    assert loaded == set(), f"{module} loads {sorted(loaded)}"


@pytest.mark.parametrize("module", modules_under("store"))
def test_store_modules_load_no_web_library(module: str) -> None:
    loaded = loaded_by(module) & set(WEB_LIBRARIES)
    assert loaded == set(), f"{module} loads {sorted(loaded)}"


@pytest.mark.parametrize(
    "path",
    [
        path.relative_to(ROOT).parts
        for folder in BELOW_FRONT_ENDS
        for path in sorted((APP / folder).rglob("*.py"))
    ],
    ids=lambda parts: "/".join(parts),
)
def test_nothing_below_the_front_ends_imports_one(path: tuple[str, ...]) -> None:
    wrong = [name for name in app_imports(path) if name.startswith(FRONT_ENDS)]
    assert wrong == [], f"{'/'.join(path)} imports {wrong}"


@pytest.mark.parametrize(
    "path",
    [path.relative_to(ROOT).parts for path in sorted((APP / "domain").rglob("*.py"))],
    ids=lambda parts: "/".join(parts),
)
def test_the_domain_imports_no_store_or_service(path: tuple[str, ...]) -> None:
    wrong = [n for n in app_imports(path) if n.startswith(("failref.store", "failref.services"))]
    assert wrong == [], f"{'/'.join(path)} imports {wrong}"


@pytest.mark.parametrize(
    "path",
    [
        path.relative_to(ROOT).parts
        for path in sorted(APP.rglob("*.py"))
        if path.relative_to(APP).parts[0] != "store"
    ],
    ids=lambda parts: "/".join(parts),
)
def test_only_the_store_imports_the_database_libraries(path: tuple[str, ...]) -> None:
    wrong = [name for name in imports(path) if name.split(".")[0] in DATABASE_LIBRARIES]
    assert wrong == [], f"{'/'.join(path)} imports {wrong}"


def test_the_store_imports_no_service() -> None:
    wrong = {
        "/".join(path.relative_to(ROOT).parts): names
        for path in sorted((APP / "store").rglob("*.py"))
        if (names := [n for n in app_imports(path.relative_to(ROOT).parts) if "services" in n])
    }
    assert wrong == {}


def test_the_command_line_loads_no_server_until_a_command_serves() -> None:
    loaded = loaded_by("failref.cli") & set(SERVING_LIBRARIES)
    assert loaded == set(), f"failref.cli loads {sorted(loaded)}"


def test_the_check_would_catch_a_domain_module_importing_fastapi() -> None:
    """The guard itself: a module that imports FastAPI is seen to load it."""
    assert "fastapi" in loaded_by("failref.web.errors")
    assert "sqlalchemy" in loaded_by("failref.store.db")
