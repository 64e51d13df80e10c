"""What synthesize hands Yosys and reads back: the script, stat -json, the clock, diagnostics."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from silicon_agent.servers.core.models import Category, Diagnostic, Severity
from silicon_agent.servers.core.sv.categories import HINTS, category_for_message, category_for_slang
from silicon_agent.servers.core.sv.enrich import add_snippets
from silicon_agent.servers.core.workspace import Workspace

from .models import InferredMemory
from .yosys_tool import YosysTool

MEMORIES_JSON = "memories.json"

_CLOCK_NAMES = ("clk", "clock", "clk_i", "i_clk", "clock_i", "clk_in", "aclk", "hclk", "pclk")
_YOSYS_ERROR = re.compile(r"^(?:(?P<file>[^:\s]+):(?P<line>\d+):\s*)?ERROR:\s*(?P<msg>.*)$")
_NOISE = re.compile(r"Design elaboration failed|see full log")
_INPUT_DECL = re.compile(r"^\s*input\s+(?:wire\s+)?(?:\[[^\]]+\]\s*)?(\\?\S+?)\s*;", re.M)


def yosys_script(
    yosys: YosysTool,
    files: list[str],
    top: str,
    period_ns: float,
    liberty: str,
    defines: Mapping[str, str],
    params: Mapping[str, str],
    include_dirs: list[str],
    out: str,
    constraints: str | None = None,
    memories_only: bool = False,
) -> str:
    """`constraints`: ABC's drive/load file; with it ABC buffers and sizes after mapping.
    `memories_only`: stop once the memories are inferred (no mapping, no netlist)."""
    lines: list[str] = []
    if yosys.has_slang:
        # -j 1: the WebAssembly build has no threads; SVA is not synthesizable anyway.
        front = ["read_slang", "-j", "1", "--ignore-assertions", "--diag-json", f"{out}/diag.json"]
        front += [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in defines.items()]
        front += [f"-I{d}" for d in include_dirs]
        front += [f"-G{k}={v}" for k, v in params.items()]
        front += ["--top", top, *files]
        lines.append(" ".join(front))
    else:
        front = ["read_verilog", "-sv"]
        front += [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in defines.items()]
        front += [f"-I{d}" for d in include_dirs]
        lines.append(" ".join([*front, *files]))
        for name, value in params.items():
            lines.append(f"chparam -set {name} {value} {top}")
    lines += [
        f"hierarchy -check -top {top}",
        # The memories as the RTL infers them, read from a copy of the design before synth maps
        # them to flip-flops; the mapping itself then starts from the untouched design.
        "design -save elaborated",
        "proc",
        "flatten",
        "opt_clean",
        "memory -nomap",
        "select t:$mem_v2",
        f"write_json -selected {out}/{MEMORIES_JSON}",
        "select -clear",
    ]
    if memories_only:
        return "\n".join(lines) + "\n"
    lines += [
        "design -load elaborated",
        f"synth -flatten -top {top}",
        f"dfflibmap -liberty {liberty}",
        # abc's delay target (ps) makes a tighter clock buy speed with area; with -constr it
        # also buffers high-fanout nets and up/down-sizes gates against that target.
        f"abc -liberty {liberty}"
        + (f" -constr {constraints}" if constraints else "")
        + f" -D {max(1, round(period_ns * 1000))}",
        # Flip-flops named after their registers (d_r_DFFPOSX1_Q_3, not _61806_): a critical
        # path then says which RTL register starts and ends it.
        "autoname",
        "opt_clean -purge",
        "setundef -zero",
        f"tee -q -o {out}/stat.json stat -json -liberty {liberty}",
        f"write_verilog -noattr -noexpr -nohex -nodec -simple-lhs {out}/netlist.v",
    ]
    return "\n".join(lines) + "\n"


def read_memories(path: Path) -> list[InferredMemory]:
    """The $mem_v2 cells of a `write_json -selected` dump, largest first."""
    data = json.loads(path.read_text())
    found: list[InferredMemory] = []
    for module in data.get("modules", {}).values():
        for name, cell in module.get("cells", {}).items():
            if cell.get("type") != "$mem_v2":
                continue
            params = cell.get("parameters", {})
            depth, width = int(params["SIZE"], 2), int(params["WIDTH"], 2)
            found.append(
                InferredMemory(
                    name=str(cell.get("attributes", {}).get("hdlname") or name).replace(" ", "."),
                    depth=depth,
                    width=width,
                    bits=depth * width,
                )
            )
    return sorted(found, key=lambda m: (-m.bits, m.name))


def read_stat(path: Path, top: str) -> dict:
    data = json.loads(path.read_text())
    design = data.get("design") or data.get("modules", {}).get(f"\\{top}") or {}
    figures: dict = {
        "cells": design.get("num_cells"),
        "cell_types": {str(k): int(v) for k, v in (design.get("num_cells_by_type") or {}).items()},
    }
    for key in ("area", "sequential_area"):
        if isinstance(design.get(key), int | float):
            figures[key] = round(float(design[key]), 3)
    return figures


def input_ports(netlist: Path) -> list[str]:
    try:
        text = netlist.read_text()
    except OSError:
        return []
    return [n.lstrip("\\") for n in _INPUT_DECL.findall(text)]


def guess_clock(names: list[str]) -> str | None:
    """The input named like a clock, if any; otherwise a virtual clock times the design."""
    for wanted in _CLOCK_NAMES:
        if wanted in names:
            return wanted
    return next((n for n in names if re.search(r"(^|_)clk($|_)", n)), None)


def slang_diagnostics(workspace: Workspace, diag_json: Path, text: str) -> list[Diagnostic]:
    """yosys-slang's --diag-json records first, then located `ERROR:` lines it did not give."""
    found: list[Diagnostic] = []
    try:
        records = json.loads(diag_json.read_text()) if diag_json.is_file() else []
    except (OSError, json.JSONDecodeError):
        records = []
    for record in records if isinstance(records, list) else []:
        if not isinstance(record, dict):
            continue
        severity = str(record.get("severity", "error"))
        if severity not in ("error", "warning", "fatal"):
            continue
        code = str(record.get("code") or "")
        category = category_for_slang(code)
        message = str(record.get("message", ""))
        hint = None
        if "valid top-level module" in message or "no top-level modules" in message:
            category = Category.MISSING_MODULE
            hint = "`top` must name a module defined in `sources`."
        elif category == Category.OTHER:
            category = category_for_message(message)
        file = line = column = None
        location = str(record.get("location") or "")
        match = re.match(r"^(.*):(\d+):(\d+)$", location)
        if match:
            file = workspace.relative(workspace.root / match.group(1))
            line, column = int(match.group(2)), int(match.group(3))
        found.append(
            Diagnostic(
                severity=Severity.WARNING if severity == "warning" else Severity.ERROR,
                category=category,
                code=code or None,
                file=file,
                line=line,
                column=column,
                message=message,
                hint=hint or HINTS.get(category),
                source="yosys-slang",
            )
        )
    located = {(d.file, d.line) for d in found}
    messages = {d.message for d in found}
    for raw in text.splitlines():
        match = _YOSYS_ERROR.match(raw.strip())
        if not match or _NOISE.search(match["msg"]):
            continue
        file = workspace.relative(workspace.root / match["file"]) if match["file"] else None
        line = int(match["line"]) if match["line"] else None
        if (file, line) in located and file is not None or match["msg"] in messages:
            continue
        messages.add(match["msg"])
        category = category_for_message(match["msg"])
        found.append(
            Diagnostic(
                severity=Severity.ERROR,
                category=category,
                file=file,
                line=line,
                message=match["msg"],
                hint=HINTS.get(category),
                source="yosys",
            )
        )
    return add_snippets(workspace, found)
