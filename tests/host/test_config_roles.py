"""Configuration presets, the design file's checks, role prompts served over MCP, the MCP
client's discovery, and the CLI's status command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import ValidationError

from silicon_agent.host.cli import main
from silicon_agent.host.config import ROLE_NAMES, load_config
from silicon_agent.host.design_file import load_design
from silicon_agent.host.mcp_client import ServerPool, load_mcp_config
from silicon_agent.host.roles.planning_prompts import PLANNING_PROMPTS
from silicon_agent.host.roles.prompts import ROLE_PROMPTS
from silicon_agent.host.roles.schemas import (
    LibrarianAnswer,
    Reflection,
    SmokeTestbench,
    rtl_submission_model,
)
from silicon_agent.host.run_setup import create_run
from silicon_agent.suite.design import Design
from silicon_agent.suite.roles import register_role_prompts

from .scenario import make_workspace, write_config, write_mcp_json

BOUNDS = {"maxLength", "enum", "const"}  # a string with one of these cannot run away


@pytest.mark.parametrize("preset", ["cloud", "local", "local-exl2"])
def test_presets_cover_every_role(preset: str) -> None:
    config = load_config(preset)
    for role in ROLE_NAMES:
        spec = config.role(role)
        assert spec.model.provider in config.providers
        for ref in (spec.fallback, spec.cheap):
            assert ref is None or ref.provider in config.providers
    if preset == "cloud":
        # Every cloud model is priced, so every token is costed.
        models = {r.model.model for r in config.roles.values()}
        assert models <= set(config.pricing)
        assert config.role("rtl_engineer").model.model != config.role("orchestrator").model.model
    else:
        kinds = {p.kind for p in config.providers.values()}
        assert kinds <= {"ollama", "openai_compat", "llamacpp_inproc", "exllamav2_inproc"}
        assert all(
            "127.0.0.1" in getattr(p, "base_url", getattr(p, "host", ""))
            for p in config.providers.values()
            if not p.kind.endswith("_inproc")  # in process: no address at all
        )


def test_config_rejects_unknown_fields(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"providers": {}, "roles": {}, "budjet": {}}))
    with pytest.raises(ValidationError):
        load_config(path)


def test_design_checks_the_dag(tmp_path: Path) -> None:
    design = load_design(make_workspace(tmp_path, ["counter", "gray"]))
    assert [b.name for b in design.design.dependencies("gray")] == ["counter"]
    data = yaml.safe_load((tmp_path / "design.yaml").read_text())
    data["blocks"][0]["depends_on"] = ["gray"]
    with pytest.raises(ValidationError, match="cycle"):
        Design.model_validate(data)
    data["blocks"][0]["depends_on"] = ["nowhere"]
    with pytest.raises(ValidationError, match="unknown"):
        Design.model_validate(data)


def test_role_schemas_enforce_their_rules() -> None:
    with pytest.raises(ValidationError, match="no citation, no answer"):
        LibrarianAnswer(found=True, answer="CRC24A is used", citations=[])
    LibrarianAnswer(found=False)
    with pytest.raises(ValidationError):
        Reflection(hypotheses=[], fix_plan="x")
    schema = rtl_submission_model(400).model_json_schema()
    assert schema["properties"]["code"]["maxLength"] == 400

    # Every string in a role schema is bounded, so small models cannot run away in one.
    def unbounded(node: object) -> list[object]:
        if isinstance(node, dict):
            here = [node] if node.get("type") == "string" and not node.keys() & BOUNDS else []
            return here + [n for v in node.values() for n in unbounded(v)]
        if isinstance(node, list):
            return [n for v in node for n in unbounded(v)]
        return []

    for model in (Reflection, LibrarianAnswer, SmokeTestbench):
        assert unbounded(model.model_json_schema()) == []


@pytest.mark.anyio
async def test_role_prompts_served_over_mcp() -> None:
    server = MCPServer("prompts-test")
    register_role_prompts(server)
    async with Client(server) as client:
        listed = await client.list_prompts()
        names = sorted(p.name for p in listed.prompts)
        assert names == sorted(f"role_{r}" for r in {**ROLE_PROMPTS, **PLANNING_PROMPTS})
        got = await client.get_prompt("role_rtl_engineer", {"task": "write a CRC24A block"})
    text = got.messages[0].content.text  # type: ignore[union-attr]
    assert "always_ff @(posedge clk)" in text and "never `always @(*)`" in text
    assert text.endswith("write a CRC24A block")
    assert "Fix ONLY the identified errors" in ROLE_PROMPTS["reflection_debug"]
    assert "No citation, no answer" in ROLE_PROMPTS["spec_librarian"]


@pytest.mark.anyio
async def test_mcp_client_starts_servers_from_mcp_json(tmp_path: Path) -> None:
    path = write_mcp_json(tmp_path, ["verilator"])
    config = load_mcp_config(path)
    # The console script by its bare name, as the lead's mcp.json lists it.
    config.mcpServers["verilator"] = config.mcpServers["verilator"].model_copy(
        update={"command": "mcp-verilator", "args": []}
    )
    config.mcpServers["missing"] = config.mcpServers["verilator"].model_copy(
        update={"command": "/nonexistent/mcp-missing"}
    )
    (tmp_path / "a.sv").write_text("module a(output logic y_o); assign y_o = 1'b0; endmodule\n")
    async with ServerPool(config, workspace=tmp_path) as pool:
        assert set(pool.clients) == {"verilator"}
        assert "missing" in pool.failed
        assert pool.has("verilator", "lint") and pool.has("verilator", "run_testbench")
        result = await pool.call("verilator", "lint", {"sources": ["a.sv"], "top": "a"})
    assert result["status"] == "PASS" and result["tool"] == "verilator"


def test_cli_status_lists_blocks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = make_workspace(tmp_path, ["counter", "gray"])
    config = write_config(tmp_path, ["counter", "gray"])
    create_run(design, tmp_path / "runs", str(config), None, run_id="st")
    assert main(["--runs-dir", str(tmp_path / "runs"), "status"]) == 0
    out = capsys.readouterr().out
    assert "run st: phase=created" in out
    assert "counter" in out and "NOT_STARTED" in out
    assert main(["--runs-dir", str(tmp_path / "runs"), "resume", "nope"]) == 2


def test_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "agent-host"
    done = subprocess.run(
        [str(script), "--runs-dir", str(tmp_path), "status"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"no runs in {tmp_path}"
    bad = subprocess.run(
        [str(script), "run", str(tmp_path / "missing.yaml")], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "missing.yaml" in bad.stderr
