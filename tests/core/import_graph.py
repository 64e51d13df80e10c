"""The suite's module import graph, read statically (ast) from every module of the top-level
packages, imports inside functions and under `TYPE_CHECKING` included: a circle that only a
type annotation closes still ties the modules together for a reader."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

PACKAGES = ("servers", "host", "hdl", "refmodels", "suite", "campaigns")


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(root, path)] = path
    return found


def _absolute(name: str) -> str:
    return name.split(".", 1)[1] if name.startswith("silicon_agent.") else name


def _targets(importer: str, is_package: bool, node: ast.AST) -> Iterable[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield _absolute(alias.name)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = importer.split(".")
            # a package's own module is its __init__: `.` is the package itself
            base = base if is_package else base[:-1]
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = _absolute(node.module or "")
        yield stem
        for alias in node.names:
            yield f"{stem}.{alias.name}"  # `from pkg import submodule`


def graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules of the suite it imports."""
    known = modules(root)
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            for target in _targets(name, is_package, node):
                if target in known and target != name:
                    edges[name].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def strong(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))

    for name in sorted(edges):
        if name not in index:
            strong(name)
    return sorted(found)


def package_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Top-level package -> the other top-level packages its modules import."""
    out: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for source, targets in edges.items():
        top = source.split(".")[0]
        out[top].update(t.split(".")[0] for t in targets if t.split(".")[0] != top)
    return out


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in edges[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen
