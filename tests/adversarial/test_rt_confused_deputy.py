"""Red team, class 6 of issue 16: links held in run folders, waveform paths and spec files,
read by servers that run outside the sandbox. No byte from outside the workspace may come
back, and the refusal names the argument."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane.api import OpenLaneApi
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.vcd.api import Waves

MARK = "sa_redteam_outside_7319"
VCD = (
    "$timescale 1ns $end\n$scope module top $end\n$var wire 8 ! "
    + MARK
    + " $end\n$upscope $end\n$enddefinitions $end\n#0\nb101 !\n#10\nb111 !\n"
)


@pytest.fixture
def outside() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="sa-rt-outside-"))
    (folder / "secret.vcd").write_text(VCD)
    (folder / "metrics.json").write_text(json.dumps({"design__instance__area": 31337.0, MARK: 1}))
    (folder / "spec.docx").write_bytes(b"PK\x03\x04" + MARK.encode())
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "waves").mkdir()
    (tmp_path / "waves" / "mine.vcd").write_text(VCD.replace(MARK, "mine"))
    return tmp_path


def link_cases(root: Path, outside: Path) -> dict[str, str]:
    """Each way a path argument could lead out: name -> the path argument."""
    (root / "waves" / "direct.vcd").symlink_to(outside / "secret.vcd")
    (root / "waves" / "hop1.vcd").symlink_to("hop2.vcd")  # a chain: in, in, out
    (root / "waves" / "hop2.vcd").symlink_to(
        os.path.relpath(outside / "secret.vcd", root / "waves")
    )
    (root / "elsewhere").symlink_to(outside)
    return {
        "link_to_outside_file": "waves/direct.vcd",
        "chain_of_links": "waves/hop1.vcd",
        "folder_link": "elsewhere/secret.vcd",
        "proc_self_root": f"/proc/self/root{outside}/secret.vcd",
        "dotdot_walk": f"waves/../../{outside.name}/secret.vcd",
    }


@pytest.mark.parametrize(
    "case",
    ["link_to_outside_file", "chain_of_links", "folder_link", "proc_self_root", "dotdot_walk"],
)
def test_waveform_server_never_reads_out(case: str, root: Path, outside: Path) -> None:
    path = link_cases(root, outside)[case]
    waves = Waves(Workspace.open(root))
    listed = asyncio.run(waves.list_signals(path))
    assert listed.ok is False and listed.error is not None, listed
    assert listed.error.argument == "file"
    assert MARK not in listed.model_dump_json()
    # As the reference of a comparison, with a good dump first.
    compared = asyncio.run(waves.compare("waves/mine.vcd", path))
    assert compared.ok is False and MARK not in compared.model_dump_json()
    assert compared.error is not None and compared.error.argument == "reference"


def test_read_reports_of_a_run_folder_that_is_a_link(root: Path, outside: Path) -> None:
    (root / "runs").mkdir()
    (root / "runs" / "RUN_X").symlink_to(outside)
    (root / "runs2").symlink_to(outside)
    api = OpenLaneApi(Workspace.open(root))
    for run_dir in ("runs/RUN_X", "runs2", f"/proc/self/root{outside}"):
        summary = api.read_reports(run_dir)
        dumped = summary.model_dump_json()
        assert MARK not in dumped and "31337" not in dumped, (run_dir, dumped[:300])


def test_read_reports_never_reads_host_process_files(root: Path) -> None:
    run = root / "runs" / "RUN_ENV"
    (run / "final").mkdir(parents=True)
    (run / "final" / "metrics.json").symlink_to("/proc/self/environ")
    (run / "resolved.json").symlink_to("/proc/self/cmdline")
    os.environ["SA_RT_ENV_MARK"] = MARK
    try:
        dumped = OpenLaneApi(Workspace.open(root)).read_reports("runs/RUN_ENV").model_dump_json()
    finally:
        del os.environ["SA_RT_ENV_MARK"]
    assert MARK not in dumped and "PATH=" not in dumped, dumped[:300]


def test_spec_ingest_refuses_links_and_special_files(root: Path, outside: Path) -> None:
    (root / "specs").mkdir()
    (root / "specs" / "36211.docx").symlink_to(outside / "spec.docx")
    os.mkfifo(root / "specs" / "36212.docx")
    library = SpecLibrary(Workspace.open(root), embedder=None)
    for path in ("specs/36211.docx", "specs/36212.docx", str(outside / "spec.docx")):
        result = asyncio.run(library.ingest(path))
        assert result.status == "invalid_input", (path, result)
        assert MARK not in result.model_dump_json()
