"""Reading outside the sandbox: the server process (not the confined tool) must not read files
outside the workspace on a design's behalf and hand their text back in diagnostics."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from silicon_agent.servers.iverilog.api import Icarus

from .conftest import put

TB = """module tb_leak;
  leak_dut d ();
  initial begin
    $display("Mismatches: 0 in 1 samples");
    $finish;
  end
endmodule
"""


@pytest.fixture(scope="module")
def secret() -> Iterator[Path]:
    """A file only the server's own uid can read (the tool uid cannot)."""
    folder = Path(tempfile.mkdtemp(prefix="sa-adv-secret-"))
    path = folder / "credentials.txt"
    path.write_text("api_token = s3cr3t_SA_ADV ;\nsecond line of the secret\n")
    path.chmod(0o600)
    yield path
    shutil.rmtree(folder, ignore_errors=True)


def leaked(icarus: Icarus, root: Path, name: str, body: str) -> bool:
    tb = put(root, "leak/tb_leak.sv", TB)
    design = put(root, f"leak/{name}.sv", f"module leak_dut;\n{body}\nendmodule\n")
    result = asyncio.run(icarus.run_testbench([design], [tb], timeout_s=30))
    return "s3cr3t_SA_ADV" in result.model_dump_json()


def test_control_no_secret_without_a_reference(icarus: Icarus, adv_root: Path, secret) -> None:
    assert not leaked(icarus, adv_root, "plain", "  wire w = ;")


def test_line_directive_cannot_read_a_file_into_a_snippet(
    icarus: Icarus, adv_root: Path, secret: Path
) -> None:
    assert not leaked(icarus, adv_root, "line_dir", f'`line 1 "{secret}" 0\n  wire w = ;')


def test_absolute_include_cannot_read_a_file(icarus: Icarus, adv_root: Path, secret) -> None:
    assert not leaked(icarus, adv_root, "abs_include", f'`include "{secret}"')
