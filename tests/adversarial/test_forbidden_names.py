"""Every system task that prints or ends the run is refused in a design (slang check only,
no simulator: fast). Design files are held to an allow list, so every name a simulator
accepts for printing, file output or ending the run is refused."""

from __future__ import annotations

import pytest

from silicon_agent.servers.core.models import Category
from silicon_agent.servers.core.sv.slang_check import analyze
from silicon_agent.servers.core.workspace import Workspace

from .conftest import put

BLOCKED = [
    "$display", "$displayh", "$write", "$writeb", "$strobe", "$monitor", "$fdisplay",
    "$fwrite", "$fstrobe", "$fmonitor", "$finish", "$stop", "$exit", "$system", "$info",
    "$warning", "$dumpfile", "$writememh",
]  # fmt: skip
# Print to a descriptor (1 = stdout) without being listed, end the run, or run C++ code.
MISSING = [
    "$fdisplayh", "$fdisplayb", "$fdisplayo", "$fwriteh", "$fwriteb", "$fwriteo",
    "$fstrobeh", "$fstrobeb", "$fstrobeo", "$fmonitorh", "$fmonitorb", "$fmonitoro",
    "$finish_and_return", "$c",
]  # fmt: skip


def _check(workspace: Workspace, root, task: str) -> list[tuple[str | None, int | None]]:
    name = task.strip("$")
    call = (
        f'{task}(32\'h8000_0001, "Mismatches: 0 in 9 samples")'
        if "f" in name[:1]
        else (f'{task}("Mismatches: 0 in 9 samples")')
    )
    design = put(root, f"names/{name}.sv", f"module m_{name};\n  initial {call};\nendmodule\n")
    report = analyze(workspace, [root / design], design=[root / design])
    return [
        (d.file, d.line) for d in report.forbidden if d.category == Category.FORBIDDEN_CONSTRUCT
    ]


@pytest.mark.parametrize("task", BLOCKED)
def test_listed_tasks_are_refused(workspace: Workspace, adv_root, task: str) -> None:
    assert (f"names/{task.strip('$')}.sv", 2) in _check(workspace, adv_root, task)


@pytest.mark.parametrize("task", MISSING)
def test_unlisted_output_and_exit_tasks_are_refused(
    workspace: Workspace, adv_root, task: str
) -> None:
    assert (f"names/{task.strip('$')}.sv", 2) in _check(workspace, adv_root, task)
