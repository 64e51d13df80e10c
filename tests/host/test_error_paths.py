"""The errors a user meets first: a YAML syntax error in a design or configuration file, and a
model endpoint nothing answers at; each exits non-zero with a message that names the cause."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml

from silicon_agent.host.cli import main
from silicon_agent.host.state import BlockStatus, StateStore

from .scenario import make_workspace, write_config, write_mcp_json


def test_yaml_syntax_error_in_a_design_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "design.yaml"
    design.write_text("name: broken\nblocks:\n  - name: a\n    spec: [unclosed\n")
    assert main(["--runs-dir", str(tmp_path / "runs"), "run", str(design)]) == 2
    err = capsys.readouterr().err
    assert f"{design}:5:1: YAML syntax error" in err, err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_yaml_syntax_error_in_a_config_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = make_workspace(tmp_path, ["counter"])
    config = tmp_path / "host.yaml"
    config.write_text("roles:\n  default:\n    model: {provider: x\n")
    code = main(["--runs-dir", str(tmp_path / "runs"), "run", str(design), "--config", str(config)])
    err = capsys.readouterr().err
    assert code == 2 and f"{config}:4:1: YAML syntax error" in err, err
    assert "Traceback" not in err


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_model_endpoint_stops_the_run_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = make_workspace(tmp_path, ["counter"])
    config = write_config(tmp_path, ["counter"])
    data = yaml.safe_load(config.read_text())
    url = f"http://127.0.0.1:{closed_port()}/v1"
    data["providers"] = {"lab-llm": {"kind": "openai_compat", "base_url": url}}
    for role in data["roles"].values():
        role["model"] = {"provider": "lab-llm", "model": "m"}
    config.write_text(yaml.safe_dump(data))
    mcp = write_mcp_json(tmp_path, ["iverilog"])
    argv = ["--runs-dir", str(tmp_path / "runs"), "run", str(design), "--config", str(config)]
    code = main([*argv, "--mcp-config", str(mcp), "--run-id", "down"])
    out, err = capsys.readouterr()
    assert code != 0, err
    assert "model provider 'lab-llm' unreachable at" in err and url in err, err
    assert "Traceback" not in err
    # Not recorded as a design failure: no block was escalated for it.
    state = StateStore(tmp_path / "runs" / "down" / "state.sqlite")
    try:
        assert all(s.status != BlockStatus.ESCALATED for s in state.blocks().values())
    finally:
        state.close()
