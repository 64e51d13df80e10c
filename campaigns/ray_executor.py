"""Ray as an executor: the same tasks on a cluster (``ray start`` on every node after
``make setup``). Ray schedules, places tasks on nodes that offer their custom resources
(``ray start --resources '{"verilator": 2}'``) and re-runs a task whose worker died
(``max_retries``); a task that raised is never re-run, so a refusal or a bug is reported once."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Sequence
from concurrent.futures import Future, InvalidStateError
from typing import Any

from silicon_agent.campaigns.executors import OnResult
from silicon_agent.campaigns.task import Task, TaskResult, execute
from silicon_agent.campaigns.tools import CampaignRefused, ToolCheck, ToolMismatch

ADDRESS_ENV = "RAY_ADDRESS"
NODE_ID_CHARS = 12


def on_node(task: Task, check: ToolCheck) -> TaskResult:
    """The body of every Ray task: ``execute`` tagged with the Ray node it ran on."""
    import ray

    node = ray.get_runtime_context().get_node_id()[:NODE_ID_CHARS]
    return execute(task, check, node)


class RayExecutor:
    """Connects to ``address`` (``auto``, ``host:port``, ``ray://host:10001``; default
    ``$RAY_ADDRESS``), or starts a private local instance with ``workers`` CPUs when neither is
    given."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        workers: int | None = None,
        max_retries: int = 3,
        resources: dict[str, float] | None = None,
    ) -> None:
        self.address = address or os.environ.get(ADDRESS_ENV) or None
        self.workers = workers
        self.max_retries = max_retries
        # Asked of every task besides its own: keeps a campaign to the nodes that offer them.
        self.resources = dict(resources or {})
        self._remote: Any = None
        self._owns_connection = False

    def connect(self, resources: set[str]) -> None:
        """Join the cluster (or start the local instance, offering ``resources``) once."""
        import ray

        if ray.is_initialized():  # a connection this process already holds is used as it is
            pass
        elif self.address:
            # Ray's own start-up chatter stays out of a command's output.
            os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise CampaignRefused(
                    f"cannot join the Ray cluster at {self.address}: {first}"
                ) from None
            self._owns_connection = True
        else:
            cpus = max(1, self.workers or os.cpu_count() or 1)
            ray.init(
                num_cpus=cpus,
                resources={r: float(cpus) for r in resources},
                include_dashboard=False,
                log_to_driver=False,
            )
            self._owns_connection = True
        self._remote = ray.remote(on_node)

    @property
    def parallelism(self) -> int:
        import ray

        if not ray.is_initialized():
            return max(1, self.workers or os.cpu_count() or 1)
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def _check_feasible(self, tasks: Sequence[Task]) -> None:
        """A task asking for a resource no node offers would wait forever: refuse instead."""
        import ray

        offered = ray.cluster_resources()
        for task in tasks:
            for resource, amount in task.resources.items():
                if offered.get(resource, 0.0) < amount:
                    raise CampaignRefused(
                        f"task {task.id} needs resource {resource!r} x{amount}, but the Ray "
                        f"cluster offers {offered.get(resource, 0.0)}: start the nodes that have "
                        f"the tool with `ray start ... --resources '{{\"{resource}\": N}}'`"
                    )

    def _prepare(self, tasks: Sequence[Task]) -> list[Task]:
        """Connected, every task asking for the executor's resources too, all feasible."""
        self.connect({r for t in tasks for r in t.resources} | set(self.resources))
        tasks = [
            t.model_copy(update={"resources": {**t.resources, **self.resources}}) for t in tasks
        ]
        self._check_feasible(tasks)
        return tasks

    def _launch(self, task: Task, check: ToolCheck) -> Any:
        return self._remote.options(
            num_cpus=1,
            resources=dict(task.resources),
            max_retries=self.max_retries,
            retry_exceptions=False,
            name=f"campaign:{task.id}",
        ).remote(task, check)

    @staticmethod
    def _failure(task: Task, exc: BaseException) -> BaseException:
        """What a failed Ray task raises here: a refusal as itself, anything else named."""
        from ray.exceptions import RayError, RayTaskError

        if isinstance(exc, RayTaskError):
            cause = getattr(exc, "cause", None)
            if isinstance(cause, ToolMismatch):
                return cause
            return RuntimeError(f"task {task.id} failed: {cause or exc}")
        if isinstance(exc, RayError):  # lost more often than max_retries allows
            return RuntimeError(f"task {task.id} failed on Ray: {exc}")
        return exc

    def run(self, tasks: Sequence[Task], check: ToolCheck, on_result: OnResult) -> None:
        import ray

        pending = {self._launch(task, check): task for task in self._prepare(tasks)}
        try:
            while pending:
                ray.wait(list(pending), num_returns=1)
                # Then everything finished by now, in one call.
                ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
                for ref in ready:
                    task = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except Exception as exc:
                        raise self._failure(task, exc) from None
                    on_result(result)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def submit(self, task: Task, check: ToolCheck) -> Future[TaskResult]:
        """One task on the cluster; cancelling the future cancels the Ray task (its worker is
        killed if it already runs)."""
        import ray

        (task,) = self._prepare([task])
        ref = self._launch(task, check)
        done: Future[TaskResult] = Future()

        def settle(landed: Future[TaskResult]) -> None:
            failed = landed.exception()
            with contextlib.suppress(InvalidStateError):  # cancelled meanwhile
                if failed is None:
                    done.set_result(landed.result())
                else:
                    done.set_exception(self._failure(task, failed))

        def cancel(future: Future[TaskResult]) -> None:
            if future.cancelled():
                ray.cancel(ref, force=True)

        done.add_done_callback(cancel)
        ref.future().add_done_callback(settle)
        return done

    def describe(self) -> dict[str, object]:
        import ray

        alive = [n for n in ray.nodes() if n.get("Alive")] if ray.is_initialized() else []
        return {
            "executor": self.name,
            "address": self.address or "local",
            "cluster_nodes": len(alive),
            "max_retries": self.max_retries,
        }

    def close(self) -> None:
        """Disconnect, if this executor made the connection."""
        import ray

        if self._owns_connection and ray.is_initialized():
            ray.shutdown()
        self._owns_connection = False
