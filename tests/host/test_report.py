"""`agent-host report` renders an HTML page; headless Chromium loads it and its tables hold
the run's blocks, steps and costs."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from silicon_agent.host.cli import main
from silicon_agent.host.run_setup import create_run
from silicon_agent.host.runs import execute_run
from silicon_agent.host.state import StateStore
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.server import build as build_iverilog
from silicon_agent.servers.vcd.server import build as build_vcd
from silicon_agent.servers.verilator.server import build as build_verilator

from .scenario import make_workspace, write_config, write_mcp_json

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Tables(HTMLParser):
    """Rows of every table with an id, as text cells; plus image sources and links."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.images: list[str] = []
        self.links: list[str] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "table" and attr.get("id"):
            self._table = str(attr["id"])
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "img":
            self.images.append(str(attr.get("src")))
        elif tag == "a":
            self.links.append(str(attr.get("href")))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def chromium_args(profile: Path) -> list[str]:
    return [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ]


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="apt-get install chromium")
def test_report_in_headless_chromium(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = ["counter", "counter_fix"]
    design = make_workspace(tmp_path, blocks)
    config = write_config(tmp_path, blocks)
    mcp = write_mcp_json(tmp_path, [])
    run = create_run(design, tmp_path / "runs", str(config), str(mcp), run_id="rep")
    workspace = Workspace.open(tmp_path)
    servers = {
        "iverilog": build_iverilog(workspace),
        "verilator": build_verilator(workspace),
        "vcd": build_vcd(workspace),
    }
    asyncio.run(execute_run(run, in_process=servers))

    assert main(["--runs-dir", str(tmp_path / "runs"), "report", "rep"]) == 0
    page = Path(capsys.readouterr().out.strip())
    assert page == run / "report.html"
    dom = subprocess.run(
        [*chromium_args(tmp_path / "profile"), "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-1000:]
    parsed = Tables()
    parsed.feed(dom.stdout)

    header, *rows = parsed.tables["blocks"]
    assert header[:3] == ["block", "status", "iterations"]
    table = {row[0]: row for row in rows}
    assert table["counter"][1:3] == ["PASSED", "1"]
    assert table["counter_fix"][1:3] == ["PASSED", "2"]
    store = StateStore(run / "state.sqlite")
    steps = store.steps()
    events = store.events()
    store.close()
    assert len(parsed.tables["timeline"]) - 1 == len(steps)
    cost_rows = parsed.tables["cost"][1:]
    assert {row[0] for row in cost_rows} == {"rtl_engineer", "reflection_debug"}
    assert sum(int(row[2]) for row in cost_rows) == len(events)
    total = sum(float(row[5]) for row in cost_rows)
    assert total == pytest.approx(sum(e.cost_usd for _, e in events), abs=1e-3) and total > 0
    # Each attempt's code and diagnostics are linked, the failing one has its waveform.
    assert "attempts/counter_fix/iter01/counter_fix.sv" in parsed.links
    assert "attempts/counter_fix/iter01/simulate.json" in parsed.links
    assert parsed.images == ["attempts/counter_fix/iter01/mismatch.png"]
    assert all((run / link).exists() for link in parsed.links if link.startswith("attempts/"))

    # The pictures: the DAG coloured by status, one Gantt bar per step split tool/model.
    assert 'id="dag"' in dom.stdout and 'data-block="counter" data-status="PASSED"' in dom.stdout
    assert dom.stdout.count('class="step"') == len(steps)
    model_time = sum(float(r.detail.get("llm_s") or 0) for _, r in steps)
    assert model_time > 0 and 'data-kind="simulate"' in dom.stdout
    # The failing attempt's first mismatch inline, beside its waveform.
    assert "simulate: first mismatch count_o" in dom.stdout
    header, *block_costs = parsed.tables["cost-blocks"]
    assert header[0] == "block" and header[-1] == "total"
    assert sum(float(row[-1]) for row in block_costs) == pytest.approx(total, abs=1e-3)

    shot = tmp_path / "report.png"
    subprocess.run(
        [
            *chromium_args(tmp_path / "profile2"),
            f"--screenshot={shot}",
            "--window-size=1200,1400",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 10_000
