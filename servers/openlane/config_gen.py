"""generate_config: an OpenLane 2 config.json with dir:: paths, checked before it is written."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from servers.core.models import Status
from servers.core.sv import inputs
from servers.core.workspace import InvalidInput, Workspace, atomic_write

from .config_vars import SYNTH_STRATEGIES, VARIABLES, Var
from .models import ConfigResult, InputProblem

CONFIG_NAME = "config.json"


def check_value(name: str, value: Any) -> str | None:
    """Why `value` does not fit variable `name`, or None when it does."""
    var = VARIABLES.get(name)
    if var is None:
        close = difflib.get_close_matches(name, list(VARIABLES), n=1)
        return f"unknown variable {name}" + (f" (did you mean {close[0]}?)" if close else "")
    return _type_problem(var, value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_problem(var: Var, value: Any) -> str | None:
    kind = var.kind
    if kind in ("str", "path"):
        ok = isinstance(value, str) and value.strip() != ""
        return None if ok else f"expected a non-empty string, got {value!r}"
    if kind == "bool":
        return None if isinstance(value, bool) else f"expected true or false, got {value!r}"
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            return f"expected an integer, got {value!r}"
        return _range(var, value)
    if kind == "number":
        if not _is_number(value):
            return f"expected a number, got {value!r}"
        return _range(var, float(value))
    if kind == "choice":
        return None if value in var.choices else f"expected one of {', '.join(var.choices)}"
    if kind in ("paths", "strs"):
        ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
        return None if ok else f"expected a list of strings, got {value!r}"
    if kind == "str_or_strs":
        if isinstance(value, str) and value:
            return None
        ok = isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)
        return None if ok else f"expected a name or a list of names, got {value!r}"
    if kind == "box":
        ok = isinstance(value, list) and len(value) == 4 and all(_is_number(v) for v in value)
        return None if ok else f"expected [x0, y0, x1, y1] in um, got {value!r}"
    return f"unsupported kind {kind}"


def _range(var: Var, value: float) -> str | None:
    if var.low is not None and value < var.low or var.high is not None and value > var.high:
        return f"{value} is outside [{var.low}, {var.high}]"
    return None


def dir_path(design_dir: Path, path: Path) -> str:
    """OpenLane 2's `dir::` form: relative to the design directory."""
    return "dir::" + Path(os.path.relpath(path, design_dir)).as_posix()


class ConfigWriter:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def generate(
        self,
        design_name: str,
        verilog_files: Sequence[str],
        clock_port: str | None,
        clock_period_ns: float = 10.0,
        core_util: float = 40.0,
        target_density: float = 0.55,
        synth_strategy: str = "DELAY 3",
        pdk: str = "sky130A",
        std_cell_library: str = "sky130_fd_sc_hd",
        design_dir: str | None = None,
        extra: Mapping[str, Any] | None = None,
        write: bool = True,
    ) -> ConfigResult:
        problems: list[InputProblem] = []
        try:
            files = inputs.source_files(self.workspace, verilog_files, "verilog_files")
            if design_dir:
                where = self.workspace.resolve(design_dir, argument="design_dir", kind="dir")
            else:
                where = Path(os.path.commonpath([f.parent for f in files]))
        except InvalidInput as exc:
            return _refused([InputProblem(message=str(exc), argument=exc.argument, hint=exc.hint)])
        if not isinstance(design_name, str) or not inputs.IDENTIFIER.match(design_name):
            problems.append(
                InputProblem(
                    message=f"'{design_name}' is not a module name", argument="design_name"
                )
            )
        if not isinstance(target_density, int | float) or not 0 < float(target_density) <= 1:
            problems.append(
                InputProblem(
                    message=f"target_density {target_density!r} is not in (0, 1]",
                    argument="target_density",
                    hint="A fraction: 0.55 means 55 % placement density.",
                )
            )
        if synth_strategy not in SYNTH_STRATEGIES:
            problems.append(
                InputProblem(
                    message=f"synth_strategy '{synth_strategy}' is not one of "
                    + ", ".join(SYNTH_STRATEGIES),
                    argument="synth_strategy",
                )
            )
        config: dict[str, Any] = {
            "DESIGN_NAME": design_name,
            "VERILOG_FILES": [dir_path(where, f) for f in files],
            "CLOCK_PERIOD": clock_period_ns,
            "FP_CORE_UTIL": core_util,
            "SYNTH_STRATEGY": synth_strategy,
            "PDK": pdk,
            "STD_CELL_LIBRARY": std_cell_library,
        }
        if clock_port:
            config["CLOCK_PORT"] = clock_port
        if isinstance(target_density, int | float) and not isinstance(target_density, bool):
            config["PL_TARGET_DENSITY_PCT"] = round(float(target_density) * 100, 3)
        if extra is not None and not isinstance(extra, Mapping):
            problems.append(InputProblem(message="extra: expected an object", argument="extra"))
        for name, value in dict(extra or {}).items():
            if name in ("DESIGN_NAME", "VERILOG_FILES"):
                problems.append(
                    InputProblem(message=f"{name} comes from its own argument", argument="extra")
                )
                continue
            config[name] = value
        for name, value in config.items():
            if name == "CLOCK_PERIOD" and _is_number(value) and value <= 0:
                problem: str | None = "must be greater than 0"
            else:
                problem = check_value(name, value)
            if problem and not any(p.argument == _argument(name) for p in problems):
                problems.append(
                    InputProblem(
                        message=f"{name}: {problem}",
                        argument=_argument(name),
                        hint=VARIABLES[name].description if name in VARIABLES else None,
                    )
                )
        if problems:
            return _refused(problems)
        path = where / CONFIG_NAME
        if write:
            atomic_write(path, json.dumps(config, indent=2) + "\n")
        return ConfigResult(
            status=Status.PASS,
            summary=f"config for {design_name}: {len(config)} variables"
            + (f", written to {self.workspace.relative(path)}" if write else ""),
            config=config,
            path=self.workspace.relative(path) if write else None,
        )


_ARGUMENTS = {
    "DESIGN_NAME": "design_name",
    "CLOCK_PORT": "clock_port",
    "CLOCK_PERIOD": "clock_period_ns",
    "FP_CORE_UTIL": "core_util",
    "PL_TARGET_DENSITY_PCT": "target_density",
    "SYNTH_STRATEGY": "synth_strategy",
    "PDK": "pdk",
    "STD_CELL_LIBRARY": "std_cell_library",
}


def _argument(name: str) -> str:
    return _ARGUMENTS.get(name, f"extra.{name}")


def _refused(problems: list[InputProblem]) -> ConfigResult:
    return ConfigResult(
        status=Status.INVALID_INPUT,
        summary="; ".join(p.message for p in problems),
        problems=problems,
    )
