"""Second red team, path arguments: the suite's own private state (the trace judge's secret,
hidden expected beats) asked for through every server that reads files for a caller, and path
spellings that try to leave the workspace (a sibling folder sharing the root's name as a
prefix, NUL bytes, URLs, option-like names). No byte of a private or outside file may come
back, and an escape is refused naming its argument."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sv import trace as trace_judge
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.openlane.api import OpenLaneApi
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.vcd.api import Waves

from .conftest import TB_COUNTER, put, wrong_counter

BEAT_MARK = "RT2BEAT0000deadbeef"


def dumped(value: object) -> str:
    if hasattr(value, "model_dump_json"):
        return value.model_dump_json()  # type: ignore[no-any-return]
    return json.dumps(value, default=str)


@pytest.fixture(scope="module")
def private_files(workspace: Workspace) -> dict[str, tuple[str, str]]:
    """Workspace-relative private files -> the text that must never come back."""
    secret = trace_judge._secret(workspace).decode()
    folder = workspace.keep_dir("hidden") / "rt2-paths"
    folder.mkdir(mode=0o700, exist_ok=True)
    beats = folder / "beats.json"
    beats.write_text(json.dumps({"streams": {"count": {"data": [BEAT_MARK]}}}))
    root = workspace.root
    return {
        "trace_secret": (str((workspace.keep_dir("trace") / "secret").relative_to(root)), secret),
        "hidden_beats": (str(beats.relative_to(root)), BEAT_MARK),
    }


READERS: dict[str, Callable[[Workspace, str], object]] = {
    "vcd_list_signals": lambda ws, p: asyncio.run(Waves(ws).list_signals(p)),
    "vcd_summary": lambda ws, p: asyncio.run(Waves(ws).summary(p)),
    "openlane_read_reports": lambda ws, p: OpenLaneApi(ws).read_reports(str(Path(p).parent)),
    "spec_ingest": lambda ws, p: asyncio.run(SpecLibrary(ws, embedder=None).ingest(p)),
    "sim_design_file": lambda ws, p: asyncio.run(
        Icarus(ws).run_testbench([p], [TB_COUNTER], timeout_s=60)
    ),
    "sim_testbench_file": lambda ws, p: asyncio.run(
        Icarus(ws).run_testbench(["examples/counter/counter.sv"], [p], timeout_s=60)
    ),
}


@pytest.mark.parametrize("which", ["trace_secret", "hidden_beats"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_private_state_never_comes_back(
    reader: str, which: str, workspace: Workspace, private_files: dict[str, tuple[str, str]]
) -> None:
    path, mark = private_files[which]
    answer = READERS[reader](workspace, path)
    text = dumped(answer)
    assert mark not in text, (reader, which, text[:400])
    status = getattr(answer, "status", None) or getattr(answer, "ok", None)
    assert status not in (Status.PASS, "ingested", True), (reader, which, text[:300])


@pytest.fixture(scope="module")
def sibling(adv_root: Path) -> Iterator[Path]:
    """A folder next to the workspace whose name starts with the workspace's own name."""
    folder = adv_root.with_name(adv_root.name + "-evil")
    folder.mkdir()
    folder.chmod(0o755)
    (folder / "x.sv").write_text(wrong_counter(""))
    (folder / "x.sv").chmod(0o644)
    (folder / "w.vcd").write_text("$enddefinitions $end\n#0\n")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def escapes(root: Path, sibling: Path) -> dict[str, str]:
    return {
        "sibling_prefix_absolute": str(sibling / "x.sv"),
        "sibling_prefix_dotdot": f"../{sibling.name}/x.sv",
        "nul_byte": "examples/counter/counter.sv\x00../../etc/passwd",
        "file_url": f"file://{root}/examples/counter/counter.sv",
        "newline_option": "examples/counter/counter.sv\n-o/tmp/rt2.vvp",
        "home_tilde": "~/../../etc/passwd",
        "proc_cwd": "/proc/self/cwd/examples/counter/counter.sv",
        "backslash_walk": "examples\\..\\..\\..\\etc\\passwd",
    }


@pytest.mark.parametrize("name", sorted(escapes(Path("/"), Path("/x"))))
def test_design_path_escape_is_refused(
    name: str, workspace: Workspace, adv_root: Path, sibling: Path
) -> None:
    path = escapes(adv_root, sibling)[name]
    result = asyncio.run(Icarus(workspace).run_testbench([path], [TB_COUNTER], timeout_s=60))
    assert result.status == Status.INVALID_INPUT, (name, result.summary)
    assert result.diagnostics and "design" in result.diagnostics[0].message


@pytest.mark.parametrize("name", ["sibling_prefix_absolute", "sibling_prefix_dotdot"])
def test_waveform_path_into_a_prefix_sibling_is_refused(
    name: str, workspace: Workspace, adv_root: Path, sibling: Path
) -> None:
    path = escapes(adv_root, sibling)[name].replace("x.sv", "w.vcd")
    answer = asyncio.run(Waves(workspace).list_signals(path))
    assert answer.ok is False and answer.error is not None and answer.error.argument == "file"


def test_option_like_file_name_is_a_file(workspace: Workspace, adv_root: Path) -> None:
    # A design file named like a compiler option is refused or compiled as a file, never
    # read as an option.
    name = put(adv_root, "-o", wrong_counter(""))
    result = asyncio.run(Icarus(workspace).run_testbench([name], [TB_COUNTER], timeout_s=60))
    assert result.status in (Status.SIM_FAIL, Status.INVALID_INPUT), result.summary
    if result.status == Status.INVALID_INPUT:
        assert "design" in result.summary
    assert not Path("/tmp/rt2.vvp").exists()
