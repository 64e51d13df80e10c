"""Red team, class 7 of issue 16: inputs built to exhaust memory or time. Each limit's refusal
names the limit, and the server answers a good call afterwards."""

from __future__ import annotations

import asyncio
import struct
import zipfile
from pathlib import Path

import pytest

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.iverilog.api import Icarus
from silicon_agent.servers.vcd.api import Waves

from .conftest import TB_COUNTER, put, wrong_counter

HEAD = b"$timescale 1ns $end\n$scope module top $end\n"
TAIL = b"$upscope $end\n$enddefinitions $end\n#0\n0!\n#10\n1!\n"
GOOD = HEAD + b"$var wire 1 ! a $end\n" + TAIL


def vcd_bombs() -> dict[str, tuple[bytes, str]]:
    """name -> (file, the limit its refusal must name)."""
    deep = b"".join(b"$scope module s%d $end\n" % i for i in range(300))
    wide_changes = b"".join(b'#%d\nb1 "\n' % t for t in range(1, 70_001))
    return {
        "c7_reg_wider_than_limit.vcd": (
            HEAD + b"$var reg 70000 \" r $end\n$var wire 1 ! a $end\n" + TAIL,
            "max_signal_width",
        ),
        "c7_twenty_digit_width.vcd": (
            HEAD + b"$var wire 18446744073709551617 \" r $end\n$var wire 1 ! a $end\n" + TAIL,
            "max_signal_width",
        ),
        "c7_scopes_300_deep.vcd": (
            b"$timescale 1ns $end\n" + deep + b"$var wire 1 ! a $end\n"
            + b"$upscope $end\n" * 300 + b"$enddefinitions $end\n#0\n0!\n",
            "max_scope_depth",
        ),
        "c7_wide_changes_decode_to_gigabytes.vcd": (
            HEAD + b"$var wire 65536 \" w $end\n$var wire 1 ! a $end\n$upscope $end\n"
            + b"$enddefinitions $end\n#0\n0!\n" + wide_changes,
            "max_decoded_bytes",
        ),
        # The limit scanner skips a $comment up to a separate "$end" token; the VCD parser
        # ends it at the glued "x$end", so the declaration between is read by one only.
        "c7_declaration_hidden_in_comment.vcd": (
            HEAD + b'$comment x$end $var wire 4294967295 " huge $end $comment y $end\n'
            + b"$var wire 1 ! a $end\n" + TAIL,
            "max_signal_width",
        ),
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(vcd_bombs()))
def test_vcd_bomb_refused_naming_its_limit(name: str, adv_root: Path) -> None:
    data, limit = vcd_bombs()[name]
    put(adv_root, f"c7/{name}", data)
    put(adv_root, "c7/good.vcd", GOOD)
    waves = Waves(Workspace.open(adv_root))
    refused = asyncio.run(waves.list_signals(f"c7/{name}"))
    assert refused.ok is False and refused.error is not None, refused
    assert limit in refused.error.message, refused.error
    assert refused.error.argument == "file"
    after = asyncio.run(waves.list_signals("c7/good.vcd"))
    assert after.ok and [s.name for s in after.signals] == ["top.a"]


# 90 000 always blocks: under slang's generate step limit, minutes of iverilog elaboration.
GENERATE_BOMB = """  for (genvar i = 0; i < 300; i++) begin : a
    for (genvar j = 0; j < 300; j++) begin : b
      logic r;
      always_ff @(posedge clk) r <= en_i ^ r;
    end
  end"""


@pytest.mark.slow
def test_compile_obeys_the_calls_timeout(workspace: Workspace, adv_root: Path) -> None:
    design = put(adv_root, "c7/generate_bomb.sv", wrong_counter(GENERATE_BOMB))
    icarus = Icarus(workspace)

    async def call() -> None:
        # The call's own timeout plus a generous margin for a loaded machine.
        result = await asyncio.wait_for(
            icarus.run_testbench([design], [TB_COUNTER], timeout_s=10), timeout=90
        )
        assert result.status in (Status.TIMEOUT, Status.INVALID_INPUT), result.summary
        assert "timeout" in result.summary.lower() or "timed out" in result.summary

    asyncio.run(call())


def test_source_over_the_size_limit_is_refused(workspace: Workspace, adv_root: Path) -> None:
    # One 17 MiB line: refused by size before any parse, naming the limit.
    put(adv_root, "c7/long_line.sv", "module long_line; // " + "x" * (17 << 20) + "\nendmodule\n")
    result = asyncio.run(
        Icarus(workspace).run_testbench(["c7/long_line.sv"], [TB_COUNTER], timeout_s=30)
    )
    assert result.status == Status.INVALID_INPUT, result.summary
    assert "16 MiB" in result.summary
    put(adv_root, "c7/ok.sv", wrong_counter())
    again = asyncio.run(Icarus(workspace).run_testbench(["c7/ok.sv"], [TB_COUNTER], timeout_s=60))
    assert again.status == Status.SIM_FAIL, again.summary


def _zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _state_size(path: Path, member: bytes, size: int) -> None:
    """Rewrite the uncompressed size a zip's directory states for one member."""
    raw = bytearray(path.read_bytes())
    central = raw.rfind(b"PK\x01\x02")
    while central >= 0:
        name_len = struct.unpack_from("<H", raw, central + 28)[0]
        if bytes(raw[central + 46 : central + 46 + name_len]) == member:
            struct.pack_into("<I", raw, central + 24, size)
        central = raw.rfind(b"PK\x01\x02", 0, central)
    path.write_bytes(bytes(raw))


def docx_bombs(folder: Path) -> dict[str, str | None]:
    """name -> the limit its refusal must name (None: refused as unreadable, CRC or size)."""
    base = {"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"}
    _zip(folder / "states_4gib.docx", base)
    _state_size(folder / "states_4gib.docx", b"word/document.xml", 0xFFFFFFFF)
    # States 20 bytes, inflates to 8 MiB: the reader must stop at the stated size.
    _zip(folder / "understates.docx", {**base, "word/document.xml": b"<w:t>" + b"a" * (8 << 20)})
    _state_size(folder / "understates.docx", b"word/document.xml", 20)
    _zip(folder / "many_members.docx", {**base, **{f"m/{i}.xml": b"" for i in range(20_001)}})
    # A 3GPP-style zip holding a .docx that states a huge size.
    _zip(folder / "inner.docx", base)
    (folder / "outer.zip").write_bytes(b"")
    _zip(folder / "outer.zip", {"36999-g00.docx": (folder / "inner.docx").read_bytes()})
    _state_size(folder / "outer.zip", b"36999-g00.docx", 0xFFFFFFF0)
    return {
        "states_4gib.docx": "max_member_bytes",
        "understates.docx": None,
        "many_members.docx": "max_members",
        "outer.zip": "max_member_bytes",
    }


def test_docx_bombs_refused_naming_the_limit(tmp_path: Path) -> None:
    from silicon_agent.servers.spec_rag.api import SpecLibrary

    expected = docx_bombs(tmp_path)
    library = SpecLibrary(Workspace.open(tmp_path), embedder=None)
    for name, limit in expected.items():
        result = asyncio.run(library.ingest(name))
        assert result.error is not None, (name, result)
        if limit is None:
            assert result.status in ("invalid_input", "unreadable"), (name, result)
        else:
            assert result.status == "invalid_input", (name, result)
            assert limit in result.error.message, (name, result.error)
        # The library still answers.
        assert asyncio.run(library.list_specs()).specs == []
