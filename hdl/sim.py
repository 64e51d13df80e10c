"""Run a block's testbench on its refmodels vectors through the suite's own simulators.

The workspace is the repository root, so ``hdl/`` is referenced in place; vectors are written
under ``.silicon-agent/vectors/<uuid>/`` (gitignored, world-readable for the sandboxed tools).
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Literal

from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field

from silicon_agent.hdl.registry import PACKAGE_SV, REPO, Block, block_trace, load_sidecar
from silicon_agent.hdl.trace_expect import expected_beats
from silicon_agent.servers.core.models import ToolResult
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog import server as iverilog_server
from silicon_agent.servers.verilator import server as verilator_server
from silicon_agent.suite.design import testbench_side

SimulatorName = Literal["iverilog", "verilator"]


class VectorCase(BaseModel):
    """One generated case: where its files are and the testbench's plusargs."""

    model_config = ConfigDict(extra="forbid")

    block: str
    case: str
    directory: str
    plusargs: list[str]
    expected: str | None = Field(
        None, description="the trace judge's expected beats, in a folder the run cannot read"
    )


class VectorSet:
    """A fresh directory of generated vectors inside the workspace, removed by ``close``."""

    def __init__(self, workspace: Workspace, label: str = "vectors") -> None:
        self.workspace = workspace
        self.root = workspace.keep_dir("vectors") / f"{label}-{uuid.uuid4().hex[:12]}"
        self.root.mkdir(parents=True)
        self.root.chmod(0o755)
        # The trace judge's expected beats: readable by the server alone (the tools run as
        # another uid), so neither the design nor the testbench can read or change them.
        self.hidden = workspace.keep_dir("hidden") / self.root.name
        self.hidden.mkdir(mode=0o700, parents=True)

    def generate(
        self,
        block: Block,
        seed: int = 0,
        params: dict[str, object] | None = None,
        only: Collection[str] | None = None,
    ) -> list[VectorCase]:
        """Write ``block``'s default cases (those named in ``only``, when given; or one custom
        case) and describe each."""
        from silicon_agent.refmodels.vectors import generate

        out = self.root / block.name
        if params is not None:
            # Every custom case gets its own directory: they are all named "custom".
            out = out / f"custom-{uuid.uuid4().hex[:8]}"
        sidecars = generate(block.name, out, seed=seed, params=params, only=only)
        if params is None:
            for name, extra in block.vectors.extra_cases.items():
                if only is not None and name not in only:
                    continue
                for path in generate(block.name, out / "extra", seed=seed, params=dict(extra)):
                    renamed = out / name
                    path.parent.rename(renamed)
                    sidecars.append(renamed / path.name)
                (out / "extra").rmdir()
        cases = []
        for path in sidecars:
            case_dir = path.parent
            for p in (self.root / block.name, out, case_dir):
                p.chmod(0o755)
            meta = load_sidecar(case_dir, block.name)
            # Absolute: the simulators run in a scratch cwd that does not link .silicon-agent/.
            where = str(case_dir.resolve())
            expected = None
            trace = block_trace(block)
            if trace is not None:
                stream = trace.streams[0].name
                beats = expected_beats(block.name, stream, case_dir, meta)
                hidden = self.hidden / f"{block.name}-{case_dir.name}-{uuid.uuid4().hex[:8]}.json"
                hidden.write_text(beats.model_dump_json())
                expected = str(hidden)
            cases.append(
                VectorCase(
                    block=block.name,
                    case=case_dir.name,
                    directory=where,
                    plusargs=[f"VECTORS={where}", *block.plusargs(meta)],
                    expected=expected,
                )
            )
        return cases

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.hidden, ignore_errors=True)


def repo_workspace() -> Workspace:
    return Workspace.open(REPO)


class McpSimulator:
    """A simulator server driven over MCP (an in-process client per call), so every verdict
    of the reference design comes through the same tools an MCP client calls."""

    def __init__(self, workspace: Workspace, name: SimulatorName):
        self.name = name
        builder = iverilog_server.build if name == "iverilog" else verilator_server.build
        self._server: MCPServer = builder(workspace)

    async def call(self, tool: str, arguments: dict[str, object]) -> ToolResult:
        async with Client(self._server) as client:
            reply = await client.call_tool(tool, arguments)
        if reply.structured_content is None:
            raise RuntimeError(f"{self.name} {tool}: no structured result ({reply.content})")
        return ToolResult.model_validate(reply.structured_content)

    async def run_testbench(self, **arguments: object) -> ToolResult:
        return await self.call("run_testbench", arguments)

    async def lint(self, sources: Sequence[str], top: str | None = None) -> ToolResult:
        return await self.call("lint", {"sources": list(sources), "top": top})


def simulator(workspace: Workspace, name: SimulatorName) -> McpSimulator:
    return McpSimulator(workspace, name)


async def run_case(
    sim: McpSimulator,
    block: Block,
    case: VectorCase,
    design: Sequence[str] | None = None,
    seed: int = 1,
    timeout_s: float = 300.0,
    package: str = PACKAGE_SV,
) -> ToolResult:
    """Compile (or reuse) the block with its testbench and run one vector case. `package` is
    the shared package's file as `design` names it: a mutant of the package (hdl/mutations.py)
    is a copy, and like the original it is the testbench's (its constants size the checks)."""
    if block.testbench is None:
        raise ValueError(f"{block.name} has no testbench yet")
    files, package_side = testbench_side(design or block.rtl, package)
    return await sim.run_testbench(
        design=files,
        testbench=[*package_side, block.testbench],
        # The testbench's own folder, for the harness it includes (tb_harness.svh).
        include_dirs=[str(Path(block.testbench).parent)],
        top=block.tb_top,
        plusargs=[*case.plusargs, f"SEED={seed}"],
        timeout_s=timeout_s,
        trace=(
            traced.spec(case.expected).model_dump()
            if (traced := block_trace(block)) is not None and case.expected is not None
            else None
        ),
    )


def relative_to_repo(path: Path) -> str:
    return str(path.resolve().relative_to(REPO))
