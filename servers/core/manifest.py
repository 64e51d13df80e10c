"""Each server's tool manifest (names, input and output schemas) as a committed golden file.

`python -m servers.core.manifest NAME --write` regenerates servers/NAME/manifest.json on
purpose; `--check` (and the test suite) fails when the live manifest drifts from it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from .workspace import Workspace

SERVERS_DIR = Path(__file__).resolve().parent.parent


def manifest_path(name: str) -> Path:
    return SERVERS_DIR / name / "manifest.json"


async def live_manifest(name: str) -> dict[str, Any]:
    module = importlib.import_module(f"servers.{name}.server")
    with tempfile.TemporaryDirectory() as root:
        server = module.build(Workspace.open(root))
        async with Client(server) as client:
            listed = await client.list_tools()
            prompts = await client.list_prompts()
    tools = {
        tool.name: {
            "input_schema": tool.input_schema,
            "output_schema": tool.output_schema,
        }
        for tool in sorted(listed.tools, key=lambda t: t.name)
    }
    names = sorted(p.name for p in prompts.prompts)
    return {"server": name, "tools": tools, "prompts": names}


def render(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m servers.core.manifest")
    parser.add_argument("name")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    live = render(anyio.run(live_manifest, args.name))
    path = manifest_path(args.name)
    if args.write:
        path.write_text(live)
        print(f"wrote {path}")
        return 0
    if not path.exists() or path.read_text() != live:
        print(f"{path} differs from the live manifest", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
