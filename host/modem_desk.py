"""The modem design loop as a plain async API for any client: the blocks of a generated
design (the receiver's registry), a block's brief, and a candidate judged on the block's
hidden testbench with fresh vectors. Simulators, waveforms and synthesis are reached over MCP
(the host's `ServerPool`) in a private workspace the client never sees."""

from __future__ import annotations

import asyncio
import json
import shutil
import uuid
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, Field

from silicon_agent.host.design_file import LoadedDesign, load_design
from silicon_agent.servers.core.sv.includes import foreign_includes
from silicon_agent.servers.core.workspace import InvalidInput, open_beneath
from silicon_agent.suite.design import Block, Port, SimulatorName

from .distill import (
    MODEM_HINT,
    Dut,
    digest,
    explain_first_mismatch,
    is_watchdog,
    no_output_message,
    port_stalls,
)
from .feedback import HIDDEN, compact_diagnostics, scrub
from .mcp_client import McpConfig, ServerPool
from .modem import new_seed, settled, stage, testbench_arguments
from .state import StateStore

SERVERS = ["iverilog", "verilator", "vcd", "openlane"]
MAX_FILE_BYTES = 1_000_000
MAX_FILES = 16
RTL_SUFFIXES = (".sv", ".v", ".svh")
SYNTH_CALL_TIMEOUT_S = 420.0
SEED_MAX = 2**31 - 1  # the seeds new_seed draws: 1..SEED_MAX
STAGING_SLOTS = 2  # candidates staged at once, each in a thread of its own

Verdict = Literal[
    "PASS", "SIM_FAIL", "COMPILE_FAIL", "TIMEOUT", "INVALID_INPUT", "TOOL_ERROR", "NOT_FOUND"
]


class BlockSummary(BaseModel):
    name: str
    depends_on: list[str]
    clauses: list[str]
    reference: str = Field(description="verified: the repository holds a verified reference")
    run_status: str | None = Field(None, description="Its state in the latest run, if any")


class BlockBrief(BaseModel):
    """Everything a designer may see of a block; nothing of its verification assets."""

    name: str
    spec: str
    interface: str = Field(description="The module header to implement")
    ports: list[Port]
    clauses: list[str]
    depends_on: list[str]
    package: str | None = Field(None, description="The shared package (visible), its path")
    package_text: str = ""
    judge_cases: list[str] = Field(description="Names of the hidden cases (contents hidden)")
    simulators: list[str]
    clock_period_ns: float | None
    reference: str
    run_status: str | None = None


class Problem(BaseModel):
    argument: str
    message: str
    hint: str = ""


class Failure(BaseModel):
    """What went wrong, in words, and what to do about it with this server's tools."""

    kind: Literal["mismatch", "no_output", "timeout", "crash", "compile"]
    message: str
    hint: str
    handshakes: list[str] = Field(
        default_factory=list,
        description="no_output: each of the design's streams, its beats and which of "
        "tvalid/tready stayed low for how long",
    )


class VerifyResult(BaseModel):
    """A hidden run's verdict: never the testbench, its vectors or the reference RTL; of the
    expected values only the first mismatch's."""

    block: str
    status: Verdict
    summary: str
    seed: int | None = None
    runs: list[dict[str, Any]] = Field(default_factory=list, description="case@simulator")
    failure: Failure | None = Field(None, description="Why it failed, in words, with a hint")
    first_mismatch: dict[str, Any] | None = Field(
        None, description="The first wrong output value (never set for no_output)"
    )
    mismatch_count: int | None = Field(
        None, description="Wrong output values the testbench counted (None for no_output)"
    )
    samples: int | None = None
    diagnostics: list[dict[str, Any]] = Field(default_factory=list)
    hidden_diagnostics: int = Field(
        0,
        description="Diagnostics the hidden harness reported in files the run hides (the "
        "testbench, vectors, trace monitor, other blocks): counted, never shown",
    )
    explanation: dict[str, Any] | None = Field(
        None, description="explain_mismatch digest of the candidate's own signals"
    )
    trace: dict[str, Any] | None = Field(
        None,
        description="The server's own verdict from its trace of the block's output beats "
        "(passed, agrees: on pass or fail, beats, beats_wrong_or_missing: output beats that "
        "differ from the expected ones or never came, which counts missing beats where "
        "mismatch_count does not, summary); when it disagrees with the testbench the verdict "
        "is withheld (INVALID_INPUT)",
    )
    error: Problem | None = None


class CriticalPath(BaseModel):
    startpoint: str
    endpoint: str
    logic_depth: int = Field(0, description="cells on the path")
    arrival_ns: float | None = None
    slack_ns: float | None = None


class SynthesisResult(BaseModel):
    block: str
    status: str = Field(
        description="PASS (synthesized, clock met), TIMING_FAIL (synthesized, the clock is "
        "missed: see critical_path and recommendations), COMPILE_FAIL, TIMEOUT (stopped inside "
        "the call's time: see hint), INVALID_INPUT or TOOL_ERROR"
    )
    summary: str
    clock_period_ns: float | None = None
    worst_setup_slack_ns: float | None = None
    critical_path: CriticalPath | None = Field(
        None, description="the worst setup path of the candidate's netlist"
    )
    area_um2: float | None = None
    cells: int | None = None
    recommendations: list[str] = Field(default_factory=list)
    hint: str | None = Field(None, description="what to change, when it failed or missed")
    error: Problem | None = None


def clean(text: str, hidden: set[str], folder: str) -> str:
    """Hidden paths out, the private folder's name off the candidate's paths."""
    return scrub(text, hidden).replace(f"{folder}/", "")


Candidate = tuple[str, bytes]  # the workspace-relative name, and the bytes read once


class Shown(NamedTuple):
    diagnostics: list[dict[str, Any]]
    withheld: int  # diagnostics in hidden files, counted only
    errors: int  # errors among the shown ones
    hidden_errors: dict[str, int]  # errors in hidden files, by category (never their text)


def shown_diagnostics(
    result: dict[str, Any], visible: dict[str, str], hidden: set[str], folder: str
) -> Shown:
    """The diagnostics a designer may see, and how many the hidden harness reported: one
    located in a file the run hides (anything but the candidate's own files and the shared
    package), or naming one, is counted (errors by category) and never shown, not even its
    message."""
    shown: list[dict[str, Any]] = []
    withheld = 0
    hidden_errors: dict[str, int] = {}
    for diag in result.get("diagnostics") or []:
        if diag.get("category") == "SIM_MISMATCH":
            continue  # mismatch lines carry expected values: only the first mismatch leaves
        file = diag.get("file")
        text = json.dumps(diag)
        named = any(h in text for h in hidden) or HIDDEN in text
        if (file is not None and file not in visible) or named:
            withheld += 1
            if diag.get("severity") == "error":
                category = str(diag.get("category") or "OTHER")
                hidden_errors[category] = hidden_errors.get(category, 0) + 1
            continue
        shown.append({**diag, "file": visible[file]} if file is not None else diag)
    errors = sum(1 for d in shown if d.get("severity") == "error")
    compact = compact_diagnostics({"diagnostics": shown}, hidden)
    return Shown(
        json.loads(clean(json.dumps(compact), hidden, folder)), withheld, errors, hidden_errors
    )


def compile_summary(seen: Shown) -> str:
    """A failed build in counts that agree with the reply: errors shown, errors in hidden
    files by category."""
    hidden = sum(seen.hidden_errors.values())
    text = f"{seen.errors + hidden} errors: {seen.errors} in the candidate's files"
    if hidden:
        kinds = ", ".join(f"{k} x{n}" for k, n in sorted(seen.hidden_errors.items()))
        text += f"; the hidden harness reported {hidden} ({kinds}), not shown"
    if hidden and "PORT_MISMATCH" in seen.hidden_errors:
        text += (
            "; the testbench could not connect to the candidate: compare its module header "
            "with block_brief's interface"
        )
    return text


def failure_of(status: str, diagnostics: list[dict[str, Any]]) -> Failure | None:
    """The failure kinds other than a simulation's wrong or missing output."""
    first = next((d for d in diagnostics if d.get("severity") == "error"), None)
    said = f": {first.get('message')}" if first else ""
    if status == "TIMEOUT":
        return Failure(
            kind="timeout",
            message="the simulation did not finish in its time" + said,
            hint=MODEM_HINT["timeout"],
        )
    if status == "COMPILE_FAIL":
        return Failure(kind="compile", message="the candidate did not build" + said,
                       hint=MODEM_HINT["compile"])  # fmt: skip
    if status == "SIM_FAIL":  # a mismatch or no output replaces it (first_mismatch)
        return Failure(kind="crash", message="the simulation stopped" + (said or " without "
                       "a report"), hint=MODEM_HINT["crash"])  # fmt: skip
    return None


def tool_error(where: str, result: dict[str, Any]) -> Problem:
    """Why a tool gave no verdict: its own message, else what it returned."""
    error = result.get("error") if isinstance(result.get("error"), dict) else {}
    reason = str((error or {}).get("message") or result.get("summary") or "").strip()
    return Problem(
        argument=where,
        message=reason or f"{where} returned no verdict: {json.dumps(result)[:300]}",
        hint="A tool server failed, not the candidate: see server_info, or try the other "
        "simulator.",
    )


class ModemDesk:
    def __init__(
        self,
        design_path: Path,
        workspace: Path,
        runs_dir: Path,
        mcp: McpConfig,
        in_process: dict[str, Any] | None = None,
        private: Path | None = None,
        calls: str = "calls",
    ) -> None:
        """`private`: the server's own folder for staged candidates (outside the workspace,
        0700); the tool servers it starts take it as their workspace."""
        self.loaded: LoadedDesign = load_design(design_path)
        self.design = self.loaded.design
        self.workspace = workspace.resolve()
        self.runs_dir = runs_dir
        if private is None:
            raise ValueError("the desk needs the server's private folder")
        self.private = private
        self.calls = calls  # this server's own folder of staged calls, below `private`
        self.private.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.pool = ServerPool(mcp, workspace=self.private, in_process=in_process, only=SERVERS)
        self.staging_slots = asyncio.Semaphore(STAGING_SLOTS)

    async def __aenter__(self) -> ModemDesk:
        # The tool servers come up in a task of their own (it owns their connections): the
        # desk answers list_blocks and block_brief at once, a verdict waits for them.
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._holder = asyncio.create_task(self._hold_pool())
        return self

    async def _hold_pool(self) -> None:
        try:
            async with self.pool:
                self._ready.set()
                await self._stop.wait()
        finally:
            self._ready.set()

    async def servers(self) -> ServerPool:
        await self._ready.wait()
        if self._holder.done() and self._holder.exception() is not None:
            raise RuntimeError(f"the tool servers did not start: {self._holder.exception()}")
        return self.pool

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        await asyncio.gather(self._holder, return_exceptions=True)

    # --- what a designer may read -----------------------------------------------------------
    def latest_run(self) -> Path | None:
        if not self.runs_dir.is_dir():
            return None
        runs = sorted(p for p in self.runs_dir.iterdir() if (p / "state.sqlite").exists())
        return runs[-1] if runs else None

    def run_states(self) -> dict[str, str]:
        run = self.latest_run()
        if run is None:
            return {}
        store = StateStore(run / "state.sqlite")
        try:
            return {n: str(s.status) for n, s in store.blocks().items()}
        finally:
            store.close()

    def list_blocks(self) -> list[BlockSummary]:
        states = self.run_states()
        return [
            BlockSummary(
                name=b.name,
                depends_on=b.depends_on,
                clauses=b.refs_3gpp,
                reference=b.status.value,
                run_status=states.get(b.name),
            )
            for b in self.design.blocks
        ]

    def block(self, name: str) -> Block | None:
        try:
            return self.design.block(name)
        except KeyError:
            return None

    def block_brief(self, name: str) -> BlockBrief | None:
        block = self.block(name)
        if block is None:
            return None
        package = self.design.package
        return BlockBrief(
            name=block.name,
            spec=block.spec,
            interface=block.interface,
            ports=block.ports,
            clauses=block.refs_3gpp,
            depends_on=block.depends_on,
            package=package,
            package_text=(self.loaded.workspace / package).read_text() if package else "",
            judge_cases=block.judge.cases if block.judge else [],
            simulators=list(block.judge.simulators) if block.judge else [],
            clock_period_ns=block.synth.clock_period_ns if block.synth else None,
            reference=block.status.value,
            run_status=self.run_states().get(block.name),
        )

    # --- candidates -------------------------------------------------------------------------
    def read_candidate(self, rtl_files: list[str]) -> list[Candidate] | Problem:
        """Each candidate file opened once beneath the workspace, no link followed, and
        checked and read from that one handle; what is staged is what was checked."""
        if not rtl_files or len(rtl_files) > MAX_FILES:
            return Problem(
                argument="rtl_files",
                message=f"give 1 to {MAX_FILES} design files, got {len(rtl_files)}",
            )
        names = [Path(rel).name for rel in rtl_files]
        if len(set(names)) != len(names):
            return Problem(argument="rtl_files", message="two candidate files share a name")
        read: list[Candidate] = []
        for rel in rtl_files:
            if not rel.endswith(RTL_SUFFIXES):
                return Problem(argument="rtl_files", message=f"{rel}: not a .sv/.v/.svh file")
            try:
                _, data = open_beneath(
                    self.workspace, rel, argument="rtl_files", max_bytes=MAX_FILE_BYTES
                )
            except InvalidInput as exc:
                return Problem(argument="rtl_files", message=str(exc), hint=exc.hint or "")
            read.append((rel, data))
        # Staged side by side under their names, beside hidden files: an include may name
        # only another candidate file (refused here, before a tool reads a token of any other).
        by_name = {Path(rel).name: rel for rel, _ in read}
        texts = {Path(rel).name: data.decode(errors="replace") for rel, data in read}
        foreign = foreign_includes(texts)
        if foreign:
            name, line, arg = foreign[0]
            return Problem(
                argument="rtl_files",
                message=f"{by_name[name]}:{line}: `include {arg[:80]} names no candidate file: a "
                "candidate may include only its own files",
                hint="List the header among rtl_files and include it by its bare name; the "
                "block's package is imported (import its_pkg::*;), never included.",
            )
        return read

    async def staged(
        self, block: Block, candidate: list[Candidate], seed: int
    ) -> tuple[str, list[str], Any, dict[str, str]]:
        """stage_candidate off the event loop (copying files and generating vectors takes a
        second or more), a few at a time: other calls are answered meanwhile."""
        async with self.staging_slots:
            return await asyncio.to_thread(self.stage_candidate, block, candidate, seed)

    def stage_candidate(
        self, block: Block, candidate: list[Candidate], seed: int
    ) -> tuple[str, list[str], Any, dict[str, str]]:
        """A private folder: the design's files except this block's reference, the hidden
        assets with fresh vectors, and the candidate in place of the reference. Returns the
        folder, the sources, the staging and the files a designer may see (staged name to
        the name the designer knows)."""
        folder = f"{self.calls}/call-{uuid.uuid4().hex[:10]}"
        staging = stage(
            self.design, self.loaded.workspace, self.private / folder, [block.name], seed
        )
        target = self.private / folder / "candidate"
        target.mkdir(parents=True)
        target.chmod(0o755)
        files = []
        visible: dict[str, str] = {}
        for rel, data in candidate:
            dest = target / Path(rel).name
            dest.write_bytes(data)
            dest.chmod(0o644)
            files.append(f"{folder}/candidate/{dest.name}")
            visible[files[-1]] = rel
        if self.design.package:
            visible[f"{folder}/{self.design.package}"] = self.design.package
        sources: list[str] = []
        for path in self.design.sources(block.name):
            sources += files if path == block.rtl_file else [f"{folder}/{path}"]
        return folder, sources, staging, visible

    async def verify_block(
        self,
        name: str,
        rtl_files: list[str],
        simulator: SimulatorName | None = None,
        seed: int | None = None,
    ) -> VerifyResult:
        """The candidate on the block's judge cases, their parameters and vectors drawn from
        `seed` (a fresh one when None): a seed a verdict returned gives that verdict again, and a
        PASS on it is confirmed on a fresh draw."""
        block = self.block(name)
        if block is None or block.judge is None or block.vectors is None:
            known = [b.name for b in self.design.blocks if b.judge is not None]
            problem = Problem(
                argument="block", message=f"no block '{name}'", hint=f"one of {known}"
            )
            return VerifyResult(
                block=name, status="INVALID_INPUT", summary=problem.message, error=problem
            )
        if seed is not None and (isinstance(seed, bool) or not 1 <= seed <= SEED_MAX):
            problem = Problem(
                argument="seed",
                message=f"seed must be an integer from 1 to {SEED_MAX}, got {seed!r}",
                hint="give the seed a verdict returned, or none for a fresh one",
            )
            return VerifyResult(
                block=name, status="INVALID_INPUT", summary=problem.message, error=problem
            )
        candidate = self.read_candidate(rtl_files)
        if isinstance(candidate, Problem):
            return VerifyResult(
                block=name, status="INVALID_INPUT", summary=candidate.message, error=candidate
            )
        if seed is None:
            return await self.attempt(block, candidate, new_seed(), simulator)
        verdict = await self.attempt(block, candidate, seed, simulator)
        if verdict.status != "PASS":
            return verdict
        # A replayed seed's vectors are ones the caller has seen: its earlier replies showed
        # expected values, enough in time to build a table that passes that seed alone. A PASS
        # is never given on them alone: a fresh draw confirms it, or its failure is the verdict.
        fresh = await self.attempt(block, candidate, new_seed(), simulator)
        if fresh.status != "PASS":
            fresh.summary = (
                f"seed {seed} (replayed) passed, a fresh draw (seed {fresh.seed}) did not: "
                + fresh.summary
            )[:700]
            return fresh
        verdict.runs += fresh.runs
        verdict.summary = f"{verdict.summary} (confirmed on a fresh seed {fresh.seed})"
        return verdict

    async def attempt(
        self,
        block: Block,
        candidate: list[Candidate],
        seed: int,
        simulator: SimulatorName | None,
    ) -> VerifyResult:
        """One judging of the candidate on the cases `seed` draws, staged and swept."""
        folder, sources, staging, visible = await self.staged(block, candidate, seed)
        hidden = {*staging.hidden, *(f"{folder}/{h}" for h in staging.hidden)}
        try:
            return await self.judge(
                block, sources, staging, seed, (folder, visible), hidden, simulator
            )
        finally:
            shutil.rmtree(self.private / folder, ignore_errors=True)

    async def judge(
        self,
        block: Block,
        sources: list[str],
        staging: Any,
        seed: int,
        where: tuple[str, dict[str, str]],
        hidden: set[str],
        simulator: SimulatorName | None,
    ) -> VerifyResult:
        folder, visible = where
        runs = [r for r in staging.runs[block.name] if simulator in (None, r.simulator)]
        if simulator is not None and not runs:
            # A simulator the registry does not list for the block: its cases, on that one.
            runs = [r.model_copy(update={"simulator": simulator}) for r in staging.runs[block.name]]
            runs = list({r.case: r for r in runs}.values())
        done: list[dict[str, Any]] = []
        result: dict[str, Any] = {}
        tool = "run_testbench"
        for run in runs:
            tool = f"{run.simulator}.run_testbench"
            args = testbench_arguments(
                block, run, seed, sources, prefix=f"{folder}/", package=self.design.package
            )
            limit = float(args["timeout_s"]) + 600
            result = settled(await self.call(run.simulator, "run_testbench", args, limit))
            if result.get("status") == "SIM_FAIL":
                result = settled(
                    await self.call(run.simulator, "run_testbench", {**args, "waves": "vcd"}, limit)
                )
            done.append({"run": f"{run.case}@{run.simulator}", "status": result.get("status")})
            if result.get("status") != "PASS":
                break
        status = str(result.get("status", "TOOL_ERROR"))
        if status not in Verdict.__args__:  # type: ignore[attr-defined]
            status = "TOOL_ERROR"
        seen = shown_diagnostics(result, visible, hidden, folder)
        diagnostics, withheld = seen.diagnostics, seen.withheld
        summary = clean(str(result.get("summary", "")), hidden, folder)[:500]
        if status == "COMPILE_FAIL":
            summary = compile_summary(seen)
        elif withheld:
            summary += f" (the hidden harness reported {withheld} diagnostic(s), not shown)"
        verdict = VerifyResult(
            block=block.name,
            status=status,  # type: ignore[arg-type]
            summary=summary,
            seed=seed,
            runs=done,
            mismatch_count=result.get("mismatch_count"),
            samples=result.get("samples"),
            diagnostics=diagnostics,
            hidden_diagnostics=withheld,
        )
        if status == "TOOL_ERROR":
            problem = tool_error(tool, result)
            problem.message = clean(problem.message, hidden, folder)[:500]
            verdict.error = problem
        trace = result.get("trace")
        if isinstance(trace, dict):
            keys = ("passed", "agrees", "beats", "summary")
            verdict.trace = {k: trace.get(k) for k in keys}
            verdict.trace["beats_wrong_or_missing"] = trace.get("mismatch_count")
        dut = Dut.of(block)
        # The harness's watchdog line (no output) is read as such; any other first mismatch is
        # named or explained only as a port of the DUT, whatever the printed line says.
        printed = result.get("first_mismatch")
        mismatch = dut.mismatch(printed) if dut and not is_watchdog(printed) else printed
        verdict.failure = failure_of(status, diagnostics)
        if verdict.failure is not None and status == "COMPILE_FAIL":
            verdict.failure.message = summary
            if not seen.errors and seen.hidden_errors:
                verdict.failure.hint = MODEM_HINT["harness"]
        if status == "SIM_FAIL" and is_watchdog(mismatch):
            assert isinstance(mismatch, dict)
            verdict.mismatch_count = None
            verdict.summary = no_output_message(mismatch)
            verdict.failure = Failure(
                kind="no_output", message=verdict.summary, hint=MODEM_HINT["no_output"]
            )
            waves = (result.get("artifacts") or {}).get("waves")
            if waves and (await self.servers()).has("vcd", "handshake_stats"):
                stats = await self.call("vcd", "handshake_stats", {"file": waves}, 300)
                ports = {p.name for p in block.ports}
                end = int(stats.get("end_cycle") or mismatch.get("cycle") or 0)
                verdict.failure.handshakes = port_stalls(stats.get("interfaces") or [], ports, end)
        elif status == "SIM_FAIL" and isinstance(mismatch, dict):
            verdict.failure = Failure(
                kind="mismatch",
                message=f"{mismatch.get('signal')} was {mismatch.get('actual')} where "
                f"{mismatch.get('expected')} was expected at cycle {mismatch.get('cycle')} "
                f"({verdict.mismatch_count} wrong values in {verdict.samples} samples)",
                hint=MODEM_HINT["mismatch"],
            )
            verdict.first_mismatch = {
                k: mismatch.get(k) for k in ("signal", "time", "cycle", "expected", "actual")
            }
            waves = (result.get("artifacts") or {}).get("waves")
            if waves and (await self.servers()).has("vcd", "explain_mismatch"):

                async def explain(args: dict[str, Any]) -> dict[str, Any]:
                    return await self.call("vcd", "explain_mismatch", args, 300)

                explained = await explain_first_mismatch(explain, waves, mismatch, sources, dut)
                text = clean(json.dumps(digest(explained)), hidden, folder)
                verdict.explanation = json.loads(text)
        return verdict

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], timeout_s: float
    ) -> dict[str, Any]:
        try:
            pool = await self.servers()
            return await pool.call(server, tool, arguments, timeout_s=timeout_s)
        except Exception as exc:  # a transport or tool failure is a verdict of its own
            return {"status": "TOOL_ERROR", "summary": f"{server}.{tool}: {exc}"[:500]}

    async def synthesize_block(
        self, name: str, rtl_files: list[str], clock_period_ns: float | None = None
    ) -> SynthesisResult:
        block = self.block(name)
        candidate = (
            Problem(argument="block", message=f"no block '{name}'")
            if block is None
            else self.read_candidate(rtl_files)
        )
        if block is None or isinstance(candidate, Problem):
            assert isinstance(candidate, Problem)
            return SynthesisResult(
                block=name, status="INVALID_INPUT", summary=candidate.message, error=candidate
            )
        clock = clock_period_ns or (block.synth.clock_period_ns if block.synth else 10.0)
        folder, sources, _, _ = await self.staged(block, candidate, new_seed())
        try:
            # The synthesis server answers inside its own default time (progress meanwhile);
            # the call's limit only guards against a server that stopped answering.
            result = await self.call(
                "openlane",
                "synthesize",
                {"sources": sources, "top": block.top, "clock_period_ns": clock},
                SYNTH_CALL_TIMEOUT_S,
            )
            slack = result.get("worst_setup_slack_ns")
            recommendations: list[str] = []
            missed = result.get("timing_met") is False
            if missed:
                rules = await self.call("openlane", "advise", {"summary": result}, 120)
                recommendations = [
                    f"{r.get('rule')}: {r.get('message')}"
                    for r in rules.get("recommendations") or []
                ]
            status = str(result.get("status") or "TOOL_ERROR")
            if status == "PASS" and missed:
                status = "TIMING_FAIL"
            failing = [d for d in result.get("diagnostics") or [] if d.get("severity") == "error"]
            path = result.get("critical_path") or None
            return SynthesisResult(
                block=name,
                status=status,
                error=tool_error("openlane.synthesize", result) if status == "TOOL_ERROR" else None,
                summary=str(result.get("summary", ""))[:500].replace(f"{folder}/", ""),
                clock_period_ns=clock,
                worst_setup_slack_ns=slack,
                critical_path=CriticalPath.model_validate(path) if path else None,
                area_um2=result.get("area_um2"),
                cells=result.get("cells"),
                recommendations=recommendations,
                hint=(failing[0].get("hint") if failing and status != "PASS" else None),
            )
        finally:
            shutil.rmtree(self.private / folder, ignore_errors=True)
