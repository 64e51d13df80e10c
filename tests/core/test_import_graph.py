"""The arrows between the top-level packages point one way: no server imports the host or the
designs, the reference models import no other part, the neutral `suite` imports none, and the
host reaches the tool servers only over MCP (its own MCP server, `agent-host serve`, is built
on the server kit `servers/core`, and nothing else of `servers`). Read statically (ast) from
every module, so an import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.core import import_graph

PACKAGES = ("servers", "host", "hdl", "refmodels", "suite", "campaigns")
FORBIDDEN: dict[str, set[str]] = {
    "servers": {"host", "hdl"},
    "refmodels": {"servers", "host", "hdl"},
    "suite": {"servers", "host", "hdl", "refmodels"},
    "host": {"servers"},  # the server kit, servers/core, is "servers.core" here
    "campaigns": {"servers", "host", "hdl", "refmodels"},
    "hdl": {"host"},
}
# host/demo.py drives servers/demo.py, the suite's own stdio demo client, which in turn
# reaches every server over MCP.
ALLOWED = {("host/demo.py", "servers")}
KIT = "servers.core"


def top_package(module: str, kit: bool = False) -> str:
    """The top-level package of a module; with `kit`, the server kit apart from `servers`."""
    parts = module.split(".")
    if parts[0] == "silicon_agent" and len(parts) > 1:
        parts = parts[1:]
    if kit and parts[:2] == ["servers", "core"]:
        return KIT
    return parts[0]


def imported_packages(path: Path, kit: bool = False) -> set[str]:
    """Top-level packages a module imports (absolute imports; relative ones stay inside)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(top_package(alias.name, kit) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(top_package(node.module, kit))
    return found


def violations(root: Path) -> list[str]:
    found = []
    for package, forbidden in FORBIDDEN.items():
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for target in sorted(imported_packages(path, kit=package == "host") & forbidden):
                if (rel, target) not in ALLOWED:
                    found.append(f"{rel} imports {target}")
    return found


def test_no_forbidden_imports() -> None:
    assert violations(REPO) == []


def test_every_import_goes_through_the_one_package_name() -> None:
    bare = []
    for path in sorted(REPO.glob("*/**/*.py")):
        rel = path.relative_to(REPO)
        if rel.parts[0].startswith(".") or rel.parts[0] in ("build", "silicon_agent"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            bare += [f"{rel}: {n}" for n in names if n.split(".")[0] in PACKAGES]
    assert bare == [], "import these as silicon_agent.<name>"


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("servers/x/server.py", "from host.roles.prompts import register_role_prompts\n", True),
        ("servers/x/server.py", "def f():\n    import hdl.registry\n", True),
        ("refmodels/x.py", "from servers.core import models\n", True),
        ("host/planning/x.py", "from servers.iverilog.api import Icarus\n", True),
        ("host/x.py", "from silicon_agent.servers import demo\n", True),
        ("host/x.py", "from silicon_agent.servers.core.http import serve_http\n", False),
        ("suite/x.py", "import refmodels\n", True),
        ("servers/x/server.py", "from suite.roles import ROLE_PROMPTS\n", False),
        ("host/x.py", "from .mcp_client import ServerPool\n", False),
    ],
)
def test_the_check_sees_each_kind_of_import(
    tmp_path: Path, module: str, source: str, expected: bool
) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    target = tmp_path / module
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source)
    assert bool(violations(tmp_path)) is expected


def test_every_relative_import_names_a_module_of_the_suite() -> None:
    assert import_graph.unresolved(REPO) == []


def test_no_module_circles(capsys: pytest.CaptureFixture[str]) -> None:
    found = import_graph.circles(import_graph.graph(REPO))
    with capsys.disabled():
        print(f"\nimport circles: {len(found)}")
        for group in found:
            print("  " + " <-> ".join(group))
    assert found == []


# Imports through which the host still reaches server code in process. Only shrinks, like
# the circles.
KNOWN_LEAKS: list[tuple[str, str]] = []


def test_no_forbidden_import_reached_through_another_module() -> None:
    """Transitively: a module may not reach a forbidden package through a permitted one."""
    edges = import_graph.graph(REPO)
    for source, target in KNOWN_LEAKS:
        assert target in edges[source], f"drop the mended {source} -> {target} here"
        edges[source].discard(target)
    found = []
    modules = import_graph.modules(REPO)
    for name in sorted(edges):
        package = name.split(".")[0]
        rel = modules[name].relative_to(REPO).as_posix()
        forbidden = FORBIDDEN.get(package, set())
        for target in sorted(import_graph.reachable(edges, name)):
            top = top_package(target, kit=package == "host")
            if top in forbidden and (rel, top) not in ALLOWED:
                found.append(f"{rel} reaches {target}")
                break
    assert found == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"host/a.py": "from . import b\n", "host/b.py": "from .a import x\n"}, 1),
        ({"host/a.py": "from . import b\n", "host/b.py": "import json\n"}, 0),
        (
            {
                "servers/p/__init__.py": "",
                "servers/p/a.py": "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .b import B\n",
                "servers/p/b.py": "def f():\n    from silicon_agent.servers.p import a\n",
            },
            1,
        ),
    ],
)
def test_the_circle_finder_sees_each_kind_of_import(
    tmp_path: Path, files: dict[str, str], expected: int
) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert len(import_graph.circles(import_graph.graph(tmp_path))) == expected
