"""The design-level scheduler: a DAG of blocks, ready blocks stepped in parallel with a
bounded pool, failing blocks before new ones, a checkpoint after every step, a dependency
sent back for an interface change when a dependent's failure is traced to it, and regression
of passing dependents when an interface they use changes."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import TextIO

from silicon_agent.campaigns.executors import Executor
from silicon_agent.suite.design import topological_order

from .llm.gateway import Ledger, now_iso
from .loop import BlockLoop, StepOutput
from .phases import Phase, check
from .runfolder import RunFolder
from .state import DONE, FINISHED, BlockState, BlockStatus, Feedback, StateStore, StepRecord
from .step_tasks import StepTasks
from .team import Team

PRIORITY = {BlockStatus.FAILING: 0, BlockStatus.IN_PROGRESS: 1, BlockStatus.NOT_STARTED: 2}

log = logging.getLogger(__name__)


class Orchestrator:
    def __init__(
        self,
        team: Team,
        store: StateStore,
        folder: RunFolder,
        executor: Executor | None = None,
        progress: TextIO | None = sys.stderr,
    ) -> None:
        self.team = team
        self.store = store
        self.folder = folder
        self.order = topological_order(team.design)
        self.loops = {b.name: BlockLoop(team, b) for b in team.design.blocks}
        # With an executor each step is its task there; without, it runs here on the team.
        self.tasks = StepTasks(team, store.meta(), executor, progress) if executor else None

    async def step(self, name: str, state: BlockState) -> StepOutput:
        if self.tasks is not None:
            return await self.tasks.step(name, state)
        return await self.loops[name].step(state)

    def selected(self, only: list[str] | None) -> set[str]:
        if not only:
            return set(self.order)
        chosen: set[str] = set()
        for name in only:
            chosen.add(name)
            chosen.update(d.name for d in self.team.design.dependencies(name))
        return chosen

    def ready(self, states: dict[str, BlockState], chosen: set[str], busy: set[str]) -> list[str]:
        names = []
        for name in self.order:
            state = states[name]
            if name not in chosen or name in busy or state.status in FINISHED:
                continue
            if state.status == BlockStatus.PAUSED:  # waits for `agent-host answer`
                continue
            deps = self.team.design.block(name).depends_on
            if all(states[d].status in DONE for d in deps):
                names.append(name)
        return sorted(names, key=lambda n: (PRIORITY.get(states[n].status, 3), self.order.index(n)))

    def blocked(self, states: dict[str, BlockState], chosen: set[str]) -> list[str]:
        return [
            n
            for n in self.order
            if n in chosen
            and states[n].status not in FINISHED
            and any(
                states[d].status == BlockStatus.ESCALATED
                for d in self.team.design.block(n).depends_on
            )
        ]

    def commit(self, output: StepOutput, states: dict[str, BlockState]) -> None:
        extra, records = self.send_back(output, states)
        extra += self.regression(output.state, states)
        seq = self.store.commit_step(
            output.record,
            output.state,
            output.ledger,
            (self.team.gateway.tokens_spent, self.team.gateway.cost_spent),
            output.errors,
            extra,
            records,
        )
        states[output.state.name] = output.state
        for other in extra:
            states[other.name] = other
        self.folder.export(self.store, since_seq=seq - 1)

    def send_back(
        self, output: StepOutput, states: dict[str, BlockState]
    ) -> tuple[list[BlockState], list[StepRecord]]:
        """A dependent's failure traced to a dependency's interface (Reflection's `blame`):
        the dependency is rewritten with the request, at most `dependency_reworks` times; the
        dependent waits and is released when it passes again. Committed with the step that
        asked, so a crash neither loses nor repeats it."""
        state = output.state
        request = state.rework
        if not request or request.get("status") != "requested":
            return [], []
        name = str(request["block"])
        dependency = states[name].model_copy(deep=True)
        limit = self.team.config.limits.dependency_reworks
        reason = ""
        if dependency.status not in DONE:
            reason = f"{name} is {dependency.status.value}, not passing"
        elif dependency.reworks >= limit:
            reason = f"{name} was already sent back {dependency.reworks} time(s) (limit {limit})"
        if reason:
            request["status"] = "refused"
            request["reason"] = reason
            output.record.detail["rework"] = f"refused: {reason}"
            return [], []
        change = str(request.get("change", ""))
        dependency.status = BlockStatus.IN_PROGRESS
        dependency.phase = check(
            dependency.phase, Phase.WRITE, f"rework of {name}", ("orchestrator",)
        )
        dependency.reworks += 1
        dependency.recheck = False
        dependency.frozen_sha256 = None
        dependency.feedback = Feedback(
            kind="dependency",
            summary=f"Block {state.name} needs a change to this block's interface: {change}",
        )
        record = StepRecord(
            block=name,
            step_no=dependency.step_no,
            kind="rework",
            iteration=dependency.iteration,
            outcome="requested",
            started_at=now_iso(),
            finished_at=now_iso(),
            detail={"by": state.name, "change": change},
        )
        dependency.step_no += 1
        request["status"] = "waiting"
        output.record.detail["rework"] = f"sent {name} back"
        return [dependency], [record]

    def regression(self, state: BlockState, states: dict[str, BlockState]) -> list[BlockState]:
        """A block that passes again releases the dependents waiting for its rework (they fix
        their own code next, told its new header) and, when its interface changed, sends its
        passing dependents back to verification (their code is kept; they re-enter at the
        check step)."""
        previous = states[state.name]
        if state.status not in DONE:
            return []
        changed = (
            previous.interface_sig is not None and state.interface_sig != previous.interface_sig
        )
        again = []
        for name in self.team.design.dependents(state.name):
            other = states[name]
            request = other.rework or {}
            if request.get("block") == state.name and request.get("status") == "waiting":
                other = other.model_copy(deep=True)
                assert other.rework is not None
                header = f"module {self.team.design.block(state.name).top} {state.interface_sig}"
                other.rework["status"] = "done"
                other.rework["interface"] = header
                other.phase = check(
                    other.phase, Phase.DEBUG, f"release of {name}", ("orchestrator",)
                )
                if other.feedback is not None:
                    other.feedback.summary += (
                        f"\n{state.name} was reworked at this block's request; its interface is "
                        f"now: {header}"
                    )
                again.append(other)
            elif changed and other.status in DONE:
                other = other.model_copy(deep=True)
                other.status = BlockStatus.IN_PROGRESS
                other.phase = check(
                    other.phase, Phase.CHECK, f"regression of {name}", ("orchestrator",)
                )
                other.recheck = True
                again.append(other)
        return again

    def escalate_blocked(self, states: dict[str, BlockState], chosen: set[str]) -> None:
        for name in self.blocked(states, chosen):
            state = states[name].model_copy(deep=True)
            deps = [
                d
                for d in self.team.design.block(name).depends_on
                if states[d].status == BlockStatus.ESCALATED
            ]
            state.status = BlockStatus.ESCALATED
            state.escalation = {"reason": f"blocked: dependency {', '.join(deps)} escalated"}
            record = StepRecord(
                block=name,
                step_no=state.step_no,
                kind="blocked",
                iteration=state.iteration,
                outcome="escalated",
                started_at=now_iso(),
                finished_at=now_iso(),
                detail={"dependencies": deps},
            )
            state.step_no += 1
            state.phase = check(state.phase, Phase.DONE, f"block {name} blocked", ("orchestrator",))
            self.commit(StepOutput(state=state, record=record, ledger=Ledger()), states)

    async def run(self, only: list[str] | None = None) -> dict[str, BlockState]:
        states = self.store.blocks()
        chosen = self.selected(only)
        limit = max(1, self.team.config.limits.parallel_blocks)
        self.store.set_meta(phase="running", only=only)
        running: dict[asyncio.Task[StepOutput], str] = {}
        try:
            while True:
                for name in self.ready(states, chosen, set(running.values())):
                    if len(running) >= limit:
                        break
                    task = asyncio.create_task(self.step(name, states[name]))
                    running[task] = name
                if not running:
                    self.escalate_blocked(states, chosen)
                    if not self.ready(states, chosen, set()):
                        break
                    continue
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    running.pop(task)
                    self.commit(task.result(), states)
        finally:
            for task in running:
                task.cancel()
            if self.tasks is not None:
                # A cancelled step is cancelled where it runs (Ray kills its worker).
                await asyncio.gather(*running, return_exceptions=True)
                self.tasks.finish()
        finished = all(states[n].status in FINISHED for n in chosen)
        paused = any(states[n].status == BlockStatus.PAUSED for n in chosen)
        self.store.set_meta(phase="done" if finished else "paused" if paused else "stopped")
        return states
