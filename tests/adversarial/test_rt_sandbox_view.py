"""Red team, class 5 of issue 16: what a sandboxed run sees of the host. The design rules keep
designs from running code, so here the testbench (the way to run code in a simulation) probes:
host files, /tmp, /run, /dev/shm, the main checkout, host sockets, network, new user
namespaces, and writes outside its scratch."""

from __future__ import annotations

import asyncio
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sandbox import plan_sandbox
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.verilator.api import Verilator

from .conftest import put

needs_bwrap = pytest.mark.skipif(
    "bwrap" not in plan_sandbox([Path("/tmp")], []).description,
    reason="bubblewrap is not usable here",
)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def host_secret() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="sa-rt-host-"))
    folder.chmod(0o755)
    (folder / "secret.txt").write_text("host secret\n")
    (folder / "secret.txt").chmod(0o644)
    yield folder / "secret.txt"
    for item in folder.iterdir():
        item.unlink()
    folder.rmdir()


def probe_tb(reads: list[str], writes: list[str]) -> str:
    lines = [
        f'    fd = $fopen("{p}", "r"); $display("READ {p} %0d", fd != 0); if (fd) $fclose(fd);'
        for p in reads
    ] + [
        f'    fd = $fopen("{p}", "w"); $display("WRITE {p} %0d", fd != 0); if (fd) $fclose(fd);'
        for p in writes
    ]
    return (
        "module tb_probe;\n  integer fd;\n  initial begin\n"
        + "\n".join(lines)
        + '\n    $display("Mismatches: 0 in 1 samples");\n    $finish;\n  end\nendmodule\n'
    )


@needs_bwrap
def test_a_run_sees_no_host_files_and_writes_nowhere_else(
    workspace: Workspace, adv_root: Path, host_secret: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    reads = [
        str(host_secret),  # the host's /tmp
        "/run",
        "/var/run",
        str(REPO / "README.md"),  # the server's own checkout
        "/root/.bashrc",
        "/etc/shadow",
        "/sys/kernel/notes",
        "/var/tmp",
    ]
    writes = [f"/dev/shm/sa_rt_{tag}", f"/tmp/sa_rt_{tag}", f"/var/tmp/sa_rt_{tag}"]
    tb = put(adv_root, f"c5/tb_probe_{tag}.sv", probe_tb(reads, writes))
    design = put(adv_root, "c5/empty.sv", "module c5_empty;\nendmodule\n")
    result = asyncio.run(Icarus(workspace).run_testbench([design], [tb], timeout_s=60))
    assert result.status == Status.PASS, result.summary
    log = (adv_root / result.artifacts["log"]).read_text()
    for path in reads:
        assert f"READ {path} 0" in log, (path, log)
    for path in writes:
        assert not Path(path).exists(), path  # a private /tmp and /dev/shm may accept it
    assert "private /tmp" in (result.sandbox or "") and "no new user namespaces" in (
        result.sandbox or ""
    )


# Shell commands run by the verilated testbench ($system is Verilator's, built into the model):
# a new user namespace, a host Unix socket, a TCP port on the host's loopback.
UNIX_PY = "import socket; s = socket.socket(socket.AF_UNIX); s.connect('SOCKET'); print('UNIX_OK')"
TCP_PY = "import socket; socket.create_connection(('127.0.0.1', PORT), 3); print('TCP_OK')"
COMMANDS = [
    "unshare -U true && echo UNSHARE_OK",
    f'python3 -c \\"{UNIX_PY}\\"',
    f'python3 -c \\"{TCP_PY}\\"',
    "echo SYSTEM_RAN",
    "python3 -c \\\"print('PYTHON_RAN')\\\"",
    "command -v unshare > /dev/null && echo UNSHARE_FOUND",
]
SYSTEM_TB = (
    "module tb_cpp;\n  initial begin\n"
    + "".join(f'    void\'($system("{c}"));\n' for c in COMMANDS)
    + '    $display("Mismatches: 0 in 1 samples");\n    $finish;\n  end\nendmodule\n'
)


@needs_bwrap
@pytest.mark.slow
def test_verilated_code_gets_no_namespace_socket_or_network(
    workspace: Workspace, adv_root: Path
) -> None:
    tool = Verilator(workspace)
    if not tool.tool.available:
        pytest.skip("verilator is not installed")
    folder = Path(tempfile.mkdtemp(prefix="sa-rt-sock-"))
    folder.chmod(0o755)
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(folder / "s"))
    (folder / "s").chmod(0o777)
    unix.listen(1)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(1)
    try:
        text = SYSTEM_TB.replace("SOCKET", str(folder / "s")).replace(
            "PORT", str(tcp.getsockname()[1])
        )
        tb = put(adv_root, "c5/tb_cpp.sv", text)
        design = put(adv_root, "c5/empty_vl.sv", "module c5_empty_vl;\nendmodule\n")
        result = asyncio.run(tool.run_testbench([design], [tb], top="tb_cpp", timeout_s=300))
        assert result.status == Status.PASS, [d.message for d in result.diagnostics][:6]
        log = (adv_root / result.artifacts["log"]).read_text()
        # The probes did run: the shell, python3 and unshare are there to be tried.
        assert "SYSTEM_RAN" in log and "PYTHON_RAN" in log and "UNSHARE_FOUND" in log, log
        for probe in ("UNSHARE_OK", "UNIX_OK", "TCP_OK"):
            assert probe not in log, log
    finally:
        unix.close()
        tcp.close()
        (folder / "s").unlink(missing_ok=True)
        folder.rmdir()
