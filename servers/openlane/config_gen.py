"""generate_config: an OpenLane 2 config.json with dir:: paths, checked before it is written.

Names are checked against OpenLane 2's own variable table (config_vars), values against its
declared types and this server's rules (config_values); nothing is written unless all pass.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.models import Status
from silicon_agent.servers.core.sv import inputs
from silicon_agent.servers.core.workspace import InvalidInput, Workspace, atomic_write

from .config_values import ValueChecker, ValueProblem, dir_path
from .config_vars import DEPRECATED, IDENTIFIER, PDK_LIBRARIES, SYNTH_STRATEGIES, VARIABLES
from .models import ConfigResult, InputProblem

CONFIG_NAME = "config.json"


def unknown_variable(name: str) -> str | None:
    """Why `name` is not an OpenLane 2 variable (with the nearest names), or None."""
    if name in VARIABLES:
        return None
    if name in DEPRECATED:
        return f"{name} is the deprecated name of {DEPRECATED[name]}: use {DEPRECATED[name]}"
    close = difflib.get_close_matches(name, list(VARIABLES), n=3, cutoff=0.6)
    nearest = f" (did you mean {', '.join(close)}?)" if close else ""
    return f"unknown variable {name}{nearest}"


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
        if not isinstance(design_name, str) or not IDENTIFIER.fullmatch(design_name):
            problems.append(
                InputProblem(
                    message=f"'{design_name}' is not a module name (rule: an identifier)",
                    argument="design_name",
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
        problems += _pdk_problems(pdk, std_cell_library)
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
            if name in _ARGUMENTS:
                problems.append(
                    InputProblem(
                        message=f"{name} comes from its own argument {_ARGUMENTS[name]}",
                        argument=f"extra.{name}",
                    )
                )
                continue
            unknown = unknown_variable(str(name))
            if unknown is not None:
                problems.append(
                    InputProblem(
                        message=unknown,
                        argument=f"extra.{name}",
                        hint="Names are OpenLane 2's own variables (its documentation's "
                        "'Configuration variables' list).",
                    )
                )
                continue
            config[name] = value
        checker = ValueChecker(self.workspace, where)
        for name, value in config.items():
            # Source files too: a file's name reaches the flow's Tcl like any other value.
            if any(p.argument == _argument(name) for p in problems):
                continue
            try:
                config[name] = checker.check(name, value)
            except ValueProblem as exc:
                problems.append(
                    InputProblem(
                        message=str(exc),
                        argument=_argument(name),
                        hint=_hint(name),
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
    "VERILOG_FILES": "verilog_files",
    "CLOCK_PORT": "clock_port",
    "CLOCK_PERIOD": "clock_period_ns",
    "FP_CORE_UTIL": "core_util",
    "PL_TARGET_DENSITY_PCT": "target_density",
    "SYNTH_STRATEGY": "synth_strategy",
    "PDK": "pdk",
    "STD_CELL_LIBRARY": "std_cell_library",
}


def _hint(name: str) -> str:
    var = VARIABLES[name]
    unit = f" ({var.units})" if var.units else ""
    return f"{name}{unit}: {var.description}"


def _pdk_problems(pdk: Any, library: Any) -> list[InputProblem]:
    if pdk not in PDK_LIBRARIES:
        return [
            InputProblem(
                message=f"pdk {pdk!r} is not one of {', '.join(PDK_LIBRARIES)} (rule: known PDKs)",
                argument="pdk",
            )
        ]
    if library not in PDK_LIBRARIES[pdk]:
        return [
            InputProblem(
                message=f"std_cell_library {library!r} is not a library of {pdk}: "
                f"{', '.join(PDK_LIBRARIES[pdk])} (rule: known standard-cell libraries)",
                argument="std_cell_library",
            )
        ]
    return []


def _argument(name: str) -> str:
    return _ARGUMENTS.get(name, f"extra.{name}")


def _refused(problems: list[InputProblem]) -> ConfigResult:
    return ConfigResult(
        status=Status.INVALID_INPUT,
        summary="; ".join(p.message for p in problems),
        problems=problems,
    )
