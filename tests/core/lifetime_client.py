"""A stand-alone MCP client for the lifetime tests: starts one server over stdio as a
`.mcp.json` entry says, lists its tools, then makes one call and prints `calling` before it
(the test kills this process while the call runs). Usage: python lifetime_client.py
ENTRY_JSON WORKSPACE TOOL ARGUMENTS_JSON"""

from __future__ import annotations

import json
import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(entry: dict, workspace: str, tool: str, arguments: dict) -> None:
    params = StdioServerParameters(
        command=entry["command"],
        args=entry.get("args", []),
        env={**os.environ, **entry.get("env", {})},
        cwd=workspace,
    )
    async with Client(params) as client:
        await client.list_tools()
        print("calling", flush=True)
        result = await client.call_tool(tool, arguments)
        print(json.dumps(result.structured_content), flush=True)


if __name__ == "__main__":
    entry, workspace, tool, arguments = sys.argv[1:5]
    anyio.run(main, json.loads(entry), workspace, tool, json.loads(arguments))
