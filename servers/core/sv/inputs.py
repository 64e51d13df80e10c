"""Argument checks shared by the simulator tools: every refusal is an InvalidInput."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from ..config import tool_config
from ..workspace import InvalidInput, Workspace

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
PLUSARG = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(=[^\x00\n\r]*)?$")
WAVE_FORMATS = ("none", "vcd", "fst")
Waves = Literal["none", "vcd", "fst"]


def source_files(workspace: Workspace, paths: Sequence[str], argument: str) -> list[Path]:
    """Existing text files inside the workspace; binary or huge files are refused."""
    if isinstance(paths, str) or not isinstance(paths, Sequence):
        raise InvalidInput(f"{argument}: expected a list of file paths", argument=argument)
    if not paths:
        raise InvalidInput(f"{argument}: at least one source file is needed", argument=argument)
    resolved = workspace.resolve_all(paths, argument=argument)
    for path, given in zip(resolved, paths, strict=True):
        limit = tool_config().max_source_bytes
        if path.stat().st_size > limit:
            raise InvalidInput(
                f"{argument}: '{given}' is larger than {limit / (1 << 20):g} MiB",
                argument=argument,
            )
        head = path.read_bytes()[:65536]
        if b"\x00" in head:
            raise InvalidInput(
                f"{argument}: '{given}' is a binary file, not SystemVerilog source",
                argument=argument,
                hint="Pass .sv/.v text files.",
            )
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 4:  # a multi-byte char cut at the boundary is fine
                raise InvalidInput(
                    f"{argument}: '{given}' is not UTF-8 text", argument=argument
                ) from None
    return resolved


def include_dirs(workspace: Workspace, dirs: Sequence[str] | None) -> list[Path]:
    if not dirs:
        return []
    if isinstance(dirs, str):
        raise InvalidInput("include_dirs: expected a list of directories", argument="include_dirs")
    return workspace.resolve_all(dirs, argument="include_dirs", kind="dir")


def defines(values: Mapping[str, str] | None) -> dict[str, str]:
    if not values:
        return {}
    if not isinstance(values, Mapping):
        raise InvalidInput("defines: expected an object of NAME: value", argument="defines")
    checked: dict[str, str] = {}
    for name, value in values.items():
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise InvalidInput(f"defines: '{name}' is not a macro name", argument="defines")
        text = "" if value is None else str(value)
        if any(c in text for c in "\x00\n\r"):
            raise InvalidInput(f"defines: value of {name} has a line break", argument="defines")
        checked[name] = text
    return checked


def top_module(top: str | None) -> str | None:
    if top is None or top == "":
        return None
    if not isinstance(top, str) or not IDENTIFIER.match(top):
        raise InvalidInput(f"top: '{top}' is not a module name", argument="top")
    return top


def plusargs(values: Sequence[str] | None) -> list[str]:
    """Plusargs without their '+': a leading '-' could be read as a simulator option."""
    if not values:
        return []
    if isinstance(values, str):
        raise InvalidInput("plusargs: expected a list of strings", argument="plusargs")
    checked = []
    for value in values:
        bare = value[1:] if isinstance(value, str) and value.startswith("+") else value
        if not isinstance(bare, str) or not PLUSARG.match(bare):
            raise InvalidInput(
                f"plusargs: '{value}' is not of the form NAME or NAME=value",
                argument="plusargs",
            )
        if bare.startswith("sa_"):
            raise InvalidInput(
                "plusargs: names starting with sa_ are reserved", argument="plusargs"
            )
        checked.append(bare)
    return checked


def timeout(value: float) -> float:
    limit = tool_config().max_timeout_s
    if not isinstance(value, int | float) or not 0 < float(value) <= limit:
        raise InvalidInput(
            f"timeout_s: {value} is not in (0, {limit:.0f}]",
            argument="timeout_s",
            hint="Runs longer than a client's request limit belong in job_start.",
        )
    return float(value)


def waves(value: str) -> str:
    if value not in WAVE_FORMATS:
        raise InvalidInput(f"waves: '{value}' is not one of none, vcd, fst", argument="waves")
    return value
