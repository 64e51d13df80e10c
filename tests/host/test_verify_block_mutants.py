"""The default `verify_block` catches every mutant of crc_checker, descrambler, qam_demodulator,
channel_estimator, resource_demapper, equalizer, rate_dematcher, ofdm_demodulator and
dl_sch_processor (`hdl/mutations.py`), as a client calls it: `agent-host serve` over MCP stdio,
the registry's judge on Icarus, each mutant a candidate file in the client's workspace and the
call given only the block and the file (one server per block). The reference passes, and a
verdict's seed given back replays it: the same status and first mismatch."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.hdl.mutations import judged_by_verify_block
from silicon_agent.hdl.registry import REPO, load_coverage, load_registry

from .scenario import write_mcp_json

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
# The blocks whose judge hdl/coverage.yaml maps to the brief.
BLOCKS = list(load_coverage())
OWN = judged_by_verify_block()


def icarus_design(root: Path) -> Path:
    """The registry as shipped, every judge on Icarus (the default call's simulators)."""
    data = yaml.safe_load((REPO / "hdl" / "blocks.yaml").read_text())
    data["workspace"] = str(REPO)
    for block in data["blocks"]:
        if block.get("judge"):
            block["judge"]["simulators"] = ["iverilog"]
    path = root / "blocks.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def serve_on_icarus(tmp_path: Path, workspace: Path, cwd: Path) -> StdioServerParameters:
    """`agent-host serve` over stdio on `workspace`, the registry's judges on Icarus."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.host.cli", "serve", "--state-dir", str(tmp_path / "state")]
        + ["--workspace", str(workspace), "--design", str(icarus_design(tmp_path))]
        + ["--mcp-config", str(write_mcp_json(tmp_path, ["iverilog", "vcd"]))],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        cwd=str(cwd),
    )


async def verify(client: Client, arguments: dict[str, Any]) -> dict[str, Any]:
    reply = await client.call_tool("verify_block", arguments, read_timeout_seconds=900)
    body = reply.structured_content
    assert body is not None, reply.content
    return body.get("result", body) if set(body) == {"result"} else body


@pytest.mark.parametrize("block", BLOCKS)
async def test_default_verify_block_catches_every_mutant(tmp_path: Path, block: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    registry = load_registry()
    own = Path(registry.block(block).rtl_file)
    (workspace / own.name).write_text((REPO / own).read_text())
    mutants: list[tuple[str, str, str]] = []
    for index, (name, label, path, original, mutant) in enumerate(OWN):
        if name != block:
            continue
        text = (REPO / path).read_text()
        assert text.count(original) == 1, f"{label}: mutation site not found once in {path}"
        folder = workspace / f"mutant{index}"
        folder.mkdir()
        (folder / Path(path).name).write_text(text.replace(original, mutant))
        mutants.append((name, label, f"mutant{index}/{Path(path).name}"))
    assert mutants, f"{block}: no mutant of its own file"
    params = serve_on_icarus(tmp_path, workspace, REPO)
    missed: list[str] = []
    async with Client(params) as client:
        good = await verify(client, {"block": block, "rtl_files": [own.name]})
        assert good["status"] == "PASS", (block, good)
        failed: dict[str, Any] = {}
        for name, label, rel in mutants:
            got = await verify(client, {"block": name, "rtl_files": [rel]})
            if got["status"] != "SIM_FAIL":
                missed.append(f"{name}: {label} ({got['status']}: {got['summary'][:200]})")
            else:
                failed = {"block": name, "rtl_files": [rel], "seed": got["seed"], "got": got}
        # Replay: the seed a verdict returned gives the same verdict and first mismatch.
        assert failed, "no mutant failed"
        again = await verify(client, {k: failed[k] for k in ("block", "rtl_files", "seed")})
        first = failed["got"]
        assert again["seed"] == first["seed"] and again["status"] == first["status"]
        assert again["first_mismatch"] == first["first_mismatch"], json.dumps([again, first])
        assert again["mismatch_count"] == first["mismatch_count"]
        bad_seed = await client.call_tool(
            "verify_block", {"block": block, "rtl_files": [own.name], "seed": 0}
        )
        assert bad_seed.is_error
    assert not missed, "the default verify_block passed mutants:\n" + "\n".join(missed)
