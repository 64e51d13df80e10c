"""Print mcp.json with absolute paths, for clients (Claude Desktop) that start servers from an
unknown directory: `python -m silicon_agent.servers.core.mcp_config [--workspace DIR]`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def absolute_config(workspace: Path) -> dict[str, object]:
    config = json.loads((REPO / "mcp.json").read_text())
    for entry in config["mcpServers"].values():
        entry["command"] = str((REPO / entry["command"]).resolve())
        entry.setdefault("env", {})["SILICON_AGENT_WORKSPACE"] = str(workspace.resolve())
    return config


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m silicon_agent.servers.core.mcp_config")
    parser.add_argument("--workspace", default=str(REPO), help="workspace root for every server")
    args = parser.parse_args()
    print(json.dumps(absolute_config(Path(args.workspace)), indent=2))


if __name__ == "__main__":
    main()
