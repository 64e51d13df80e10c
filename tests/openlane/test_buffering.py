"""ABC's buffering and sizing: the driving cell comes from the Liberty, a high-fanout enable gets
buffers and a real slack (real Yosys + OpenSTA, the unbuffered figure computed alongside)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.openlane import sta
from silicon_agent.servers.openlane.environment import osu018_liberty
from silicon_agent.servers.openlane.liberty_cells import FANOUT_LOAD, choose_drive, drive_for
from silicon_agent.servers.openlane.synth import Synthesizer

FLOPS = 500

# One register enable drives FLOPS flip-flops: unbuffered, the one gate on that net sees
# hundreds of pin loads and its transition runs off the end of the Liberty tables.
FANOUT = f"""module fanout #(parameter int N = {FLOPS}) (
    input  logic         clk,
    input  logic         go_i,
    input  logic [N-1:0] d_i,
    output logic [N-1:0] q_o
);
  logic en_q;
  always_ff @(posedge clk) begin
    en_q <= go_i;
    if (en_q) q_o <= d_i;
  end
endmodule
"""

SKY130_LIKE = """library ("sky130_fd_sc_hd__tt_025C_1v80") {
    capacitive_load_unit(1.0000000000, "pf");
    cell ("sky130_fd_sc_hd__clkinv_2") {
        pg_pin ("VGND") { pg_type : "primary_ground"; }
        pin ("A") { capacitance : 0.0040000000; direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A)"; }
    }
    cell ("sky130_fd_sc_hd__inv_1") {
        pin ("A") { capacitance : 0.0023000000; direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A)"; }
    }
    cell ("sky130_fd_sc_hd__inv_2") {
        pg_pin ("VPWR") { pg_type : "primary_power"; }
        pin ("A") {
            internal_power () { related_pin : "A"; }
            capacitance : 0.0045000000;
            direction : "input";
        }
        pin ("Y") {
            direction : "output";
            function : "(!A)";
            timing () { related_pin : "A"; timing_sense : "negative_unate"; }
        }
    }
    cell ("sky130_fd_sc_hd__inv_4") {
        pin ("A") { capacitance : 0.0090000000; direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A)"; }
    }
    cell ("sky130_fd_sc_hd__buf_2") {
        pin ("A") { capacitance : 0.0017000000; direction : "input"; }
        pin ("X") { direction : "output"; function : "A"; }
    }
    cell ("sky130_fd_sc_hd__nand2_2") {
        pin ("A") { capacitance : 0.0044000000; direction : "input"; }
        pin ("B") { capacitance : 0.0044000000; direction : "input"; }
        pin ("Y") { direction : "output"; function : "(!A) | (!B)"; }
    }
}
"""


def test_osu018_drive_is_its_x2_inverter() -> None:
    lib = osu018_liberty()
    if lib is None:
        pytest.skip("needs the OSU 0.18 um liberty (.deps/osu018)")
    drive = drive_for(Path(lib.path))
    assert drive is not None
    assert (drive.cell, drive.input_pin, drive.output_pin, drive.inverter) == (
        "INVX2",
        "A",
        "Y",
        True,
    )
    # OSU 0.18 um caps are in pF; ABC takes fF.
    assert drive.unit_ff == 1000.0
    assert drive.load == pytest.approx(FANOUT_LOAD * drive.input_cap)
    assert 20.0 < drive.load_ff < 200.0
    constraints = drive.abc_constraints().splitlines()
    assert constraints[0] == "set_driving_cell INVX2"
    assert float(constraints[1].split()[1]) == pytest.approx(drive.load_ff, abs=1e-3)


def test_sky130_style_library_picks_inv_2() -> None:
    drive = choose_drive(SKY130_LIKE)
    assert drive is not None
    # Not the clock inverter, not the x1 nor the x4; capacitance read past the nested groups.
    assert drive.cell == "sky130_fd_sc_hd__inv_2"
    assert drive.input_cap == pytest.approx(0.0045)
    assert drive.load_ff == pytest.approx(FANOUT_LOAD * 4.5)


def test_library_units_buffers_and_no_driver() -> None:
    femto = SKY130_LIKE.replace('(1.0000000000, "pf")', "(1, ff)")
    assert choose_drive(femto) is not None and choose_drive(femto).unit_ff == 1.0  # type: ignore[union-attr]
    only_buffers = re.sub(r'cell \("sky130_fd_sc_hd__(clk)?inv_\d"\)', 'cell ("gone")', SKY130_LIKE)
    only_buffers = only_buffers.replace('function : "(!A)"', 'function : "A & A"')
    drive = choose_drive(only_buffers)
    assert drive is not None and drive.cell == "sky130_fd_sc_hd__buf_2" and not drive.inverter
    dont_use = SKY130_LIKE.replace('pin ("Y") {', 'dont_use : true;\n pin ("Y") {').replace(
        'pin ("X") {', 'dont_use : true;\n pin ("X") {'
    )
    assert choose_drive(dont_use) is None


def test_sta_script_prices_ports_like_abc(tmp_path: Path) -> None:
    drive = choose_drive(SKY130_LIKE)
    assert drive is not None
    text = sta.script(tmp_path / "a.lib", tmp_path / "n.v", "top", 10.0, "clk", drive)
    assert "set_driving_cell -lib_cell sky130_fd_sc_hd__inv_2 -pin Y $sa_inputs" in text
    assert "set_load 0.018 [all_outputs]" in text  # library units (pF), 4 x 4.5 fF
    plain = sta.script(tmp_path / "a.lib", tmp_path / "n.v", "top", 10.0, "clk")
    assert "set_driving_cell" not in plain and "set_load" not in plain


@pytest.mark.anyio
@pytest.mark.usefixtures("yosys_warm")
async def test_high_fanout_enable_is_buffered(ws: Workspace) -> None:
    if osu018_liberty() is None or shutil.which("sta") is None:
        pytest.skip("needs the OSU 0.18 um liberty (.deps/osu018) and OpenSTA")
    (ws.root / "hdl" / "fanout.sv").write_text(FANOUT)
    plain = await Synthesizer(ws, buffering=False).synthesize(["hdl/fanout.sv"], "fanout", 10.0)
    buffered = await Synthesizer(ws).synthesize(["hdl/fanout.sv"], "fanout", 10.0)
    for result in (plain, buffered):
        assert result.status == Status.PASS, result.summary
        assert result.cell_types.get("DFFPOSX1") == FLOPS + 1
    assert plain.worst_setup_slack_ns is not None and buffered.worst_setup_slack_ns is not None
    # The figures, measured here side by side: unbuffered the enable's transition alone eats
    # the 10 ns cycle; buffered the design meets it with room to spare.
    assert plain.worst_setup_slack_ns < 0 < buffered.worst_setup_slack_ns
    assert buffered.worst_setup_slack_ns - plain.worst_setup_slack_ns > 5.0
    assert buffered.setup_violations == 0 and (plain.setup_violations or 0) > 0

    def buffers(result: object) -> int:
        types = result.cell_types  # type: ignore[attr-defined]
        return sum(n for cell, n in types.items() if cell.startswith("BUFX"))

    assert buffers(plain) == 0
    assert buffers(buffered) >= FLOPS // 16  # a tree, not one buffer
    netlist = (ws.root / buffered.artifacts["netlist"]).read_text()
    assert re.search(r"^\s*BUFX\d \S+ \(", netlist, re.M)
    # Flip-flops named after their registers: the path says which RTL signals it joins.
    path = plain.critical_path
    assert path is not None and path.startpoint.startswith("en_q")
    assert path.endpoint.startswith("q_o")
    # What ran is said, and the constraint files are kept for a reader.
    assert "ABC buffered" in buffered.estimate_note and "INVX2" in buffered.estimate_note
    assert "Not buffered" in plain.estimate_note
    assert "INVX2" in buffered.provenance["buffering"]
    assert "buffering" not in plain.provenance
    constr = (ws.root / buffered.artifacts["abc_constraints"]).read_text()
    assert constr.startswith("set_driving_cell INVX2\nset_load ")
    script = (ws.root / buffered.artifacts["yosys_script"]).read_text()
    assert f"-constr {buffered.artifacts['abc_constraints']} -D 10000" in script
    assert "-constr" not in (ws.root / plain.artifacts["yosys_script"]).read_text()
    report = (ws.root / buffered.artifacts["sta_report"]).read_text()
    assert "Error" not in report
    # The two flows never answer for each other from the cache.
    again = await Synthesizer(ws).synthesize(["hdl/fanout.sv"], "fanout", 10.0)
    assert again.cache_hit and again.worst_setup_slack_ns == buffered.worst_setup_slack_ns
    plain_again = await Synthesizer(ws, buffering=False).synthesize(
        ["hdl/fanout.sv"], "fanout", 10.0
    )
    assert plain_again.cache_hit
    assert plain_again.worst_setup_slack_ns == plain.worst_setup_slack_ns


@pytest.mark.anyio
@pytest.mark.usefixtures("yosys_warm")
async def test_input_port_fanout_is_priced_with_the_driving_cell(ws: Workspace) -> None:
    """A port straight into many flop enables: STA drives it with the cell ABC assumed."""
    if osu018_liberty() is None or shutil.which("sta") is None:
        pytest.skip("needs the OSU 0.18 um liberty (.deps/osu018) and OpenSTA")
    (ws.root / "hdl" / "port_en.sv").write_text(
        "module port_en #(parameter int N = 200) (input logic clk, en_i,\n"
        "    input logic [N-1:0] d_i, output logic [N-1:0] q_o);\n"
        "  always_ff @(posedge clk) if (en_i) q_o <= d_i;\nendmodule\n"
    )
    result = await Synthesizer(ws).synthesize(["hdl/port_en.sv"], "port_en", 10.0)
    assert result.status == Status.PASS, result.summary
    report = (ws.root / result.artifacts["sta_report"]).read_text()
    assert result.worst_setup_slack_ns is not None and result.worst_setup_slack_ns > 0
    tcl = (ws.root / result.artifacts["sta_report"]).with_name("sta.tcl").read_text()
    assert "set_driving_cell -lib_cell INVX2 -pin Y $sa_inputs" in tcl
    assert "Error" not in report
    # en_i reaches the enables through ABC's buffer tree, not straight from the port.
    assert result.cell_types.get("BUFX2", 0) + result.cell_types.get("BUFX4", 0) >= 200 // 16


def test_flow_digest_covers_the_cell_choice() -> None:
    """A change to how the driving cell is chosen must miss the synthesis cache."""
    from silicon_agent.servers.core.cache import file_digest
    from silicon_agent.servers.openlane import liberty_cells, synth, yosys_script

    parts = synth._FLOW_DIGEST.split("/")
    for module in (yosys_script, sta, liberty_cells):
        assert file_digest(Path(module.__file__)) in parts
