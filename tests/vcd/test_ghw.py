"""GHW, the dump GHDL writes, reads through the same API as VCD and gives the same answers."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.vcd.api import Waves

VHDL = """\
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity tb is
end entity;

architecture sim of tb is
  signal clk : std_logic := '0';
  signal count : unsigned(7 downto 0) := (others => '0');
  signal flag : std_logic := 'U';
begin
  clk <= not clk after 5 ns when now < 200 ns else clk;
  process (clk)
  begin
    if rising_edge(clk) then
      count <= count + 3;
      if count > 20 then
        flag <= '1';
      else
        flag <= '0';
      end if;
    end if;
  end process;
end architecture;
"""


def _ghdl_dumps(folder: Path) -> None:
    ghdl = shutil.which("ghdl")
    assert ghdl, "ghdl is missing: `make setup` installs it"
    (folder / "tb.vhd").write_text(VHDL)
    for step in (["-a", "--std=08", "tb.vhd"], ["-e", "--std=08", "tb"]):
        subprocess.run([ghdl, *step], cwd=folder, check=True, capture_output=True, timeout=120)
    run = ["-r", "--std=08", "tb", "--wave=tb.ghw", "--vcd=tb.vcd", "--stop-time=220ns"]
    subprocess.run([ghdl, *run], cwd=folder, check=True, capture_output=True, timeout=120)


def test_ghw_matches_vcd_of_the_same_run(ws: Workspace) -> None:
    _ghdl_dumps(ws.root)
    waves = Waves(ws)
    answers = {}
    for name in ("tb.ghw", "tb.vcd"):
        listing = asyncio.run(waves.list_signals(name))
        assert listing.ok, listing.error
        table = asyncio.run(
            waves.values_at(name, ["tb.count", "flag"], cycles=[0, 3, 9], clock="tb.clk")
        )
        assert table.ok, table.error
        answers[name] = ([(s.name, s.width) for s in listing.signals], table.rows)
    signals, rows = answers["tb.ghw"]
    assert signals == [("tb.clk", 1), ("tb.count", 8), ("tb.flag", 1)]
    # Cycle n samples just before the n-th rising edge: count = 3 n; flag follows count - 3.
    assert [r.values["tb.count"] for r in rows] == ["8'h00", "8'h09", "8'h1b"]
    assert [r.values["tb.flag"] for r in rows][1:] == ["1'b0", "1'b1"]
    assert answers["tb.ghw"] == answers["tb.vcd"]
