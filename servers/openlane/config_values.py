"""Typed configuration values: each value checked against OpenLane 2's declared type, and every
string against the rules that keep it inert where the flow reads it (Tcl, shell, JSON).

A refusal names the variable, the place inside the value (`MACROS.ram.gds[0]`) and the rule.
Path values are resolved inside the workspace after links and rewritten in OpenLane's `dir::`
form relative to the design directory.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.workspace import InvalidInput, Workspace

from .config_vars import VARIABLES, name_rule

# Letters, digits and the punctuation values need (paths, defines, "AREA 0", "5e-3"); no
# newline, Tcl bracket or brace, '$', quote, backslash, glob or shell separator.
SAFE_TEXT = re.compile(r"^[A-Za-z0-9_.,:/=+\-@% ]*$")
SAFE_RULE = "no newlines, Tcl brackets or braces, '$', quotes, globs or shell metacharacters"
PDK_DIR = "pdk_dir::"
DESIGN_DIR = "dir::"


class ValueProblem(ValueError):
    def __init__(self, where: str, rule: str, detail: str):
        super().__init__(f"{where}: {detail} (rule: {rule})")
        self.where = where
        self.rule = rule


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def safe_text(where: str, text: str) -> str:
    if not SAFE_TEXT.fullmatch(text):
        bad = next(c for c in text if not SAFE_TEXT.fullmatch(c))
        raise ValueProblem(where, SAFE_RULE, f"{text[:40]!r} contains {bad!r}")
    return text


class ValueChecker:
    """Checks one variable's value; `path` turns a workspace path into its `dir::` form."""

    def __init__(self, workspace: Workspace, design_dir: Path):
        self.workspace = workspace
        self.design_dir = design_dir

    def check(self, name: str, value: Any) -> Any:
        var = VARIABLES[name]
        checked = self._check(var.type, value, name, self._string_rule(name))
        self._range(name, checked)
        return checked

    @staticmethod
    def _string_rule(name: str) -> Callable[[str, str], str]:
        rule = name_rule(name)
        if rule is None:
            return safe_text
        pattern, text = rule

        def named(where: str, value: str) -> str:
            if not pattern.fullmatch(value):
                raise ValueProblem(where, text, f"{value[:40]!r} is not a name")
            return value

        return named

    def _range(self, name: str, value: Any) -> None:
        var = VARIABLES[name]
        if not _is_number(value) or (var.low is None and var.high is None):
            return
        if var.low == 0 and value <= 0:
            raise ValueProblem(name, "range", f"{value} must be greater than 0")
        if var.low is not None and value < var.low or var.high is not None and value > var.high:
            unit = f" {var.units}" if var.units else ""
            raise ValueProblem(name, "range", f"{value} is outside [{var.low}, {var.high}]{unit}")

    def _check(self, t: dict[str, Any], value: Any, where: str, text: Any) -> Any:
        kind = t["t"]
        if kind == "optional":
            return None if value is None else self._check(t["of"], value, where, text)
        if kind == "union":
            return self._union(t, value, where, text)
        if kind == "str":
            if not isinstance(value, str) or not value.strip():
                raise ValueProblem(where, "type", f"expected a non-empty string, got {value!r}")
            return text(where, value)
        if kind == "path":
            if not isinstance(value, str) or not value.strip():
                raise ValueProblem(where, "type", f"expected a path, got {value!r}")
            return self.path(where, value)
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueProblem(where, "type", f"expected true or false, got {value!r}")
            return value
        if kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueProblem(where, "type", f"expected an integer, got {value!r}")
            return value
        if kind == "number":
            if not _is_number(value) or not math.isfinite(value):
                raise ValueProblem(where, "type", f"expected a number, got {value!r}")
            return value
        if kind in ("choice", "enum"):
            if value not in t["values"]:
                choices = ", ".join(str(v) for v in t["values"])
                raise ValueProblem(where, "choice", f"{value!r} is not one of {choices}")
            return value
        if kind == "list":
            if not isinstance(value, list):
                raise ValueProblem(where, "type", f"expected a list, got {value!r}")
            return [self._check(t["of"], v, f"{where}[{i}]", text) for i, v in enumerate(value)]
        if kind == "tuple":
            if not isinstance(value, list) or len(value) != len(t["of"]):
                shape = "[x0, y0, x1, y1]" if len(t["of"]) == 4 else f"{len(t['of'])} values"
                raise ValueProblem(where, "type", f"expected {shape}, got {value!r}")
            return [
                self._check(s, v, f"{where}[{i}]", text)
                for i, (s, v) in enumerate(zip(t["of"], value, strict=True))
            ]
        if kind == "dict":
            if not isinstance(value, dict):
                raise ValueProblem(where, "type", f"expected an object, got {value!r}")
            return {
                self._check(t["key"], k, f"{where} key", safe_text): self._check(
                    t["value"], v, f"{where}.{k}", text
                )
                for k, v in value.items()
            }
        if kind == "object":
            if not isinstance(value, dict):
                raise ValueProblem(where, "type", f"expected an object, got {value!r}")
            unknown = sorted(set(value) - set(t["fields"]))
            if unknown:
                raise ValueProblem(
                    where, "fields", f"unknown fields {unknown}; known: {sorted(t['fields'])}"
                )
            return {
                k: self._check(t["fields"][k], v, f"{where}.{k}", text) for k, v in value.items()
            }
        raise ValueProblem(where, "type", f"unsupported type {kind}")

    def _union(self, t: dict[str, Any], value: Any, where: str, text: Any) -> Any:
        members = t["of"]
        looks_like_path = isinstance(value, str) and ("/" in value or "::" in value)
        if looks_like_path and any(m["t"] == "path" for m in members):
            return self.path(where, value)  # a path never slips through as a plain string
        problems = []
        for member in members:
            try:
                return self._check(member, value, where, text)
            except ValueProblem as exc:
                if exc.rule != "type":
                    raise
                problems.append(str(exc))
        raise ValueProblem(where, "type", f"{value!r} fits none of: " + "; ".join(problems))

    def path(self, where: str, value: str) -> str:
        """A workspace path (or `dir::` relative to the design directory) as `dir::...`; the
        safe-text rule holds for the value given and for the path it resolves to (a link's
        target name reaches the flow as well)."""
        safe_text(where, value)
        if value.startswith(PDK_DIR):
            rest = value[len(PDK_DIR) :]
            if not rest or rest.startswith("/") or ".." in Path(rest).parts:
                raise ValueProblem(where, "paths inside the PDK", f"{value!r} leaves the PDK")
            return value
        if value.startswith(DESIGN_DIR):
            candidate = self.design_dir / value[len(DESIGN_DIR) :]
        elif "::" in value:
            raise ValueProblem(
                where, "paths inside the workspace", f"{value!r}: only dir:: and pdk_dir:: forms"
            )
        else:
            candidate = Path(value) if Path(value).is_absolute() else self.workspace.root / value
        try:
            resolved = self.workspace.resolve(str(candidate), argument=where, kind="any")
        except InvalidInput as exc:
            raise ValueProblem(where, "paths inside the workspace", str(exc)) from None
        return safe_text(where, dir_path(self.design_dir, resolved))


def dir_path(design_dir: Path, path: Path) -> str:
    """OpenLane 2's `dir::` form: relative to the design directory."""
    return "dir::" + Path(os.path.relpath(path, design_dir)).as_posix()
