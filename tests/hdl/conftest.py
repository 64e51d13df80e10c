"""Fixtures of the hdl tests: the repository as the workspace and one vector set per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from silicon_agent.hdl.registry import Registry, load_registry
from silicon_agent.hdl.sim import VectorCase, VectorSet, repo_workspace
from silicon_agent.servers.core.workspace import Workspace


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load_registry()


@pytest.fixture(scope="session")
def workspace() -> Workspace:
    return repo_workspace()


@pytest.fixture(scope="session")
def vector_cases(workspace: Workspace, registry: Registry) -> Iterator[dict[str, list[VectorCase]]]:
    """Every verified block's default refmodels cases, generated once per test session."""
    vs = VectorSet(workspace, "tests")
    try:
        yield {b.name: vs.generate(b) for b in registry.verified()}
    finally:
        vs.close()


@pytest.fixture(scope="session")
def scratch_set(workspace: Workspace) -> Iterator[VectorSet]:
    """A directory inside the workspace for mutated copies of design files."""
    vs = VectorSet(workspace, "mutants")
    try:
        yield vs
    finally:
        vs.close()
