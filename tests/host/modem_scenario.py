"""The receiver's registry run by the host with a scripted team: reference or mutant RTL as
the RTL Engineer's answers, the configuration, and the markers of what must stay hidden."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import yaml
from mcp.client.stdio import StdioServerParameters

from silicon_agent.hdl.registry import REPO, load_registry

BLOCKS_YAML = REPO / "hdl" / "blocks.yaml"
ALT_CRC = Path(__file__).parent / "modem_rtl" / "crc_checker_alt.sv"
# One wrong generator tap (bit 0 of the polynomial flipped).
MUTANT = ALT_CRC.read_text().replace(
    "(use_b_w ? CRC24B_POLY : CRC24A_POLY)", "((use_b_w ? CRC24B_POLY : CRC24A_POLY) ^ 24'h1)"
)


def reference(block: str) -> str:
    return (REPO / load_registry().block(block).rtl_file).read_text()


def code_reply(code: str) -> dict[str, Any]:
    return {"structured": {"code": code, "notes": "scripted"}}


def write_rules(blocks: list[str]) -> list[dict[str, Any]]:
    """Every named block's first write answered with its reference RTL."""
    return [
        {"match": [f"Block: {b}\n", "Step: write"], "reply": code_reply(reference(b))}
        for b in blocks
    ]


REFLECTION = {
    "structured": {
        "hypotheses": [
            {
                "cause": "a generator tap is wrong",
                "evidence": "the syndrome differs from the first mismatch's expected value",
                "suspect_signal": "the CRC register",
            }
        ],
        "fix_plan": "use the polynomial of the package for the selected CRC",
    }
}


def mutant_then_fix_rules(
    block: str = "crc_checker",
    first: str = MUTANT,
    fixed: str | None = None,
    reflection: dict[str, Any] = REFLECTION,
) -> list[dict[str, Any]]:
    """A block's mutant first, a reflection, then the fixed code (crc_checker: the correct
    non-reference code)."""
    fixed = ALT_CRC.read_text() if fixed is None else fixed
    return [
        {"match": [f"Block: {block}\n", "Step: write"], "reply": code_reply(first)},
        {"match": [f"Block: {block}\n", "Step: reflect"], "reply": reflection},
        {"match": [f"Block: {block}\n", "Step: debug"], "reply": code_reply(fixed)},
    ]


def write_config(root: Path, rules: list[dict[str, Any]], parallel: int = 2) -> Path:
    script = root / "script.yaml"
    script.write_text(yaml.safe_dump({"rules": rules}, sort_keys=False))
    config = {
        "providers": {"scripted": {"kind": "scripted", "script": str(script)}},
        # Room for the largest block (the turbo decoder) in one answer.
        "roles": {
            "default": {
                "model": {"provider": "scripted", "model": "scripted-large"},
                "max_tokens": 64000,
            }
        },
        "pricing": {"scripted-large": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}},
        "limits": {
            "smoke_testbench": False,
            "parallel_blocks": parallel,
            "tool_timeout_s": 900,
        },
        "retry": {"attempts": 1, "base_delay_s": 0.01, "max_delay_s": 0.05},
    }
    path = root / "host.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def hidden_markers(designed: list[str], rtl: bool = True) -> dict[str, str]:
    """Text that only the hidden assets hold: each designed block's testbench comment lines,
    its vector file names and (with `rtl`) its reference RTL's lines (long enough to be its
    own)."""
    registry = load_registry()
    markers: dict[str, str] = {}
    for name in designed:
        block = registry.block(name)
        assert block.testbench is not None
        tb = (REPO / block.testbench).read_text()
        for line in tb.splitlines():
            text = line.strip()
            if text.startswith("//") and len(text) > 30:
                markers[text] = f"testbench {block.testbench}"
        for file in re.findall(r'"/(\w+\.hex)"', tb):
            markers[file] = f"vector file of {name}"
        for line in (REPO / block.rtl_file).read_text().splitlines() if rtl else []:
            text = line.strip()
            if len(text) > 40 and "endmodule" not in text:
                markers[text] = f"reference RTL {block.rtl_file}"
    return markers


def leaks(run: Path, markers: dict[str, str]) -> list[tuple[str, str]]:
    """(file, what) for each marker found anywhere in the run folder outside its hidden area."""
    found = []
    for path in run.rglob("*"):
        if not path.is_file() or "hidden" in path.relative_to(run).parts[:1]:
            continue
        if path.suffix == ".sqlite" or path.name.endswith(("-wal", "-shm")):
            text = path.read_bytes().decode("utf-8", "replace")
        else:
            text = path.read_text(errors="replace")
        found += [(str(path.relative_to(run)), what) for m, what in markers.items() if m in text]
    return found


def serve_params(state: Path, *args: str) -> StdioServerParameters:
    """`agent-host serve` over stdio with the given arguments, its own state (runs under
    `state/runs`) in `state`."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.host.cli", "serve", "--state-dir", str(state), *args],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        cwd=str(REPO),
    )
