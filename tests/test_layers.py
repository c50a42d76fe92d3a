"""The layers: domain code loads no web or database library, the store loads no web library,
and nothing below the front ends imports one of them (in the spirit of click's
tests/test_imports.py: each module is imported in a fresh interpreter and `sys.modules` is
read). If a domain module imported FastAPI, its test here would fail and name it. Inside
the matcher, the rooms keep their order: a module imports no later room."""

from __future__ import annotations

import ast
import functools
import graphlib
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


def path_of(module: str) -> Path:
    """The folder (a package) or file of a module of the app, by dotted name."""
    path = APP.joinpath(*module.split(".")[1:])
    return path if path.is_dir() else path.with_suffix(".py")


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
    """The modules a source file imports, relative imports resolved (`absolute_imports`)."""
    path = ROOT.joinpath(*path_parts)
    source = path.read_text(encoding="utf-8")
    return absolute_imports(source, module_name(path), path.name == "__init__.py")


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


# The matcher's rooms, in the order a paste goes through them: a module in a room imports
# from the rooms before it, its own room and the shared leaves, never from a later room.
MATCHING = "failref.domain.matching"
ROOMS = ("reading", "index", "search", "scoring", "judging", "messages", "logs", "authoring")
SHARED = ("results",)


def matching_modules() -> list[str]:
    """Dotted names of every module under app/domain/matching, packages' `__init__` included."""
    return modules_under("domain/matching")


def source_of(module: str) -> str:
    """The source of a module of the app, by dotted name."""
    path = path_of(module)
    return (path / "__init__.py" if path.is_dir() else path).read_text(encoding="utf-8")


def absolute_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """The modules `source` (of `module`) imports, relative imports resolved, and for
    `from package import name` the name under the package as well (it may be a module)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            parent = ".".join([*base, *([node.module] if node.module else [])])
            names.append(parent)
            names.extend(f"{parent}.{alias.name}" for alias in node.names)
    return names


def room_of(module: str) -> str | None:
    """The room (or shared leaf) a dotted module name is in; None outside the matcher or for
    the matcher's own package."""
    if not module.startswith(MATCHING + "."):
        return None
    return module[len(MATCHING) + 1 :].split(".")[0]


def later_rooms_imported(source: str, module: str, is_package: bool = False) -> list[str]:
    """What a module of a room imports from a later room, or from a part of the matcher that
    is neither a room nor a shared leaf."""
    room = room_of(module)
    assert room in ROOMS, f"{module} is in no room"
    wrong = []
    for name in absolute_imports(source, module, is_package):
        other = room_of(name)
        if other is None or other in SHARED:
            continue
        if other not in ROOMS or ROOMS.index(other) > ROOMS.index(room):
            wrong.append(name)
    return sorted(set(wrong))


def test_every_matching_module_is_in_a_room_or_shared() -> None:
    loose = [
        module
        for module in matching_modules()
        if module != MATCHING and room_of(module) not in (*ROOMS, *SHARED)
    ]
    assert loose == []
    assert sorted({room_of(m) for m in matching_modules()} - {None}) == sorted((*ROOMS, *SHARED))


@pytest.mark.parametrize(
    "module",
    [m for m in matching_modules() if room_of(m) in ROOMS],
)
def test_a_room_imports_no_later_room(module: str) -> None:
    is_package = path_of(module).is_dir()
    wrong = later_rooms_imported(source_of(module), module, is_package)
    assert wrong == [], f"{module} ({room_of(module)}) imports {wrong}"


@pytest.mark.parametrize("module", [f"{MATCHING}.{leaf}" for leaf in SHARED])
def test_a_shared_leaf_imports_no_room(module: str) -> None:
    rooms = [n for n in absolute_imports(source_of(module), module) if room_of(n) in ROOMS]
    assert rooms == []


def test_the_matchers_modules_import_one_another_without_a_cycle() -> None:
    modules = set(matching_modules())
    graph = {
        module: {
            name
            for name in absolute_imports(source_of(module), module, path_of(module).is_dir())
            if name in modules and name != module and name != MATCHING
        }
        for module in modules
    }
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError on a cycle


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("from failref.domain.matching.scoring.scorer import Scorer\n", id="absolute"),
        pytest.param("from ..scoring.scorer import Scorer\n", id="relative"),
        pytest.param("from .. import scoring\n", id="relative-package"),
        pytest.param("import failref.domain.matching.scoring.scorer\n", id="plain"),
        pytest.param("from failref.domain.matching import judging\n", id="room-by-name"),
        pytest.param("from failref.domain.matching.rank import score_line\n", id="no-room"),
    ],
)
def test_the_check_would_catch_a_search_module_importing_a_later_room(source: str) -> None:
    """The guard itself: a planted search module importing scoring (or a module in no room,
    as the flat folder had) is seen to, however the import is spelled."""
    assert later_rooms_imported(source, f"{MATCHING}.search.planted") != []


def test_the_check_lets_a_room_import_earlier_rooms_its_own_and_the_shared_leaves() -> None:
    source = (
        "from failref.domain.matching.index.match_index import MatchIndex\n"
        "from ..reading import tokens\n"
        "from .compare import LineScores\n"
        "from failref.domain.matching.results import Match\n"
        "import failref.domain.references.document\n"
    )
    assert later_rooms_imported(source, f"{MATCHING}.search.planted") == []
