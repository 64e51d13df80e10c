"""Write OpenLane 2's own variable metadata as JSON: the table generate_config checks against.

Runs inside the OpenLane 2 venv (it imports `openlane`, nothing of this project):

    .venv-openlane/bin/python servers/openlane/ol2_variables_gen.py --write

(without --write it prints the table).

Every variable a flow or a step declares is listed once, with its type as a small JSON tree,
its default, units, deprecated names and who declares it (`common` for the PDK, standard-cell
and option variables every flow reads; otherwise the steps and flows that own it).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import typing
from decimal import Decimal
from pathlib import Path
from typing import Any

DESCRIPTION_CHARS = 240


def describe(t: Any) -> dict[str, Any]:
    """A type as {"t": kind, ...}: str, int, number, bool, path, list, tuple, dict, choice,
    enum, union, object (a dataclass) or optional (wrapping one of these)."""
    from openlane.common.types import Path

    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Union:
        rest = [a for a in args if a is not type(None)]
        inner = (
            describe(rest[0])
            if len(rest) == 1
            else {"t": "union", "of": [describe(a) for a in rest]}
        )
        return {"t": "optional", "of": inner} if len(rest) < len(args) else inner
    if origin is typing.Literal:
        return {"t": "choice", "values": list(args)}
    if origin in (list, tuple) and origin is list:
        return {"t": "list", "of": describe(args[0])}
    if origin is tuple:
        return {"t": "tuple", "of": [describe(a) for a in args]}
    if origin is dict:
        return {"t": "dict", "key": describe(args[0]), "value": describe(args[1])}
    if t is bool:
        return {"t": "bool"}
    if t is int:
        return {"t": "int"}
    if t in (Decimal, float):
        return {"t": "number"}
    if isinstance(t, type) and issubclass(t, Path):
        return {"t": "path"}
    if t is str:
        return {"t": "str"}
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return {"t": "enum", "values": [e.name for e in t]}
    if dataclasses.is_dataclass(t):
        hints = typing.get_type_hints(t)
        return {
            "t": "object",
            "name": t.__name__,
            "fields": {f.name: describe(hints[f.name]) for f in dataclasses.fields(t)},
        }
    raise SystemExit(f"unsupported variable type {t!r}")


def plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(dataclasses.asdict(value))
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def package_relative(value: Any) -> Any:
    """A default inside OpenLane's own package (e.g. its base.sdc) as `openlane/...`: the
    install's absolute path differs from one venv to the next, the file within it does not."""
    import openlane

    here = Path(openlane.__file__).parent.parent
    # As imported and as resolved: a venv reached through a link names either.
    for site in (f"{here}/", f"{here.resolve()}/"):
        if isinstance(value, str) and value.startswith(site):
            return value[len(site) :]
    return value


def table() -> dict[str, Any]:
    from openlane import __version__
    from openlane.config.flow import option_variables, pdk_variables, scl_variables
    from openlane.flows import Flow
    from openlane.steps import Step

    found: dict[str, dict[str, Any]] = {}

    def add(variable: Any, owner: str) -> None:
        entry = found.get(variable.name)
        if entry is None:
            text = " ".join(variable.description.split())
            entry = found[variable.name] = {
                "type": describe(variable.type),
                "default": package_relative(plain(variable.default)),
                "units": variable.units,
                "description": text[:DESCRIPTION_CHARS],
                "deprecated_names": sorted(
                    d if isinstance(d, str) else d[0] for d in variable.deprecated_names
                ),
                "owners": [],
            }
        if owner not in entry["owners"]:
            entry["owners"].append(owner)

    for group, variables in (("pdk", pdk_variables), ("scl", scl_variables)):
        for variable in variables:
            add(variable, f"common:{group}")
    for variable in option_variables:
        add(variable, "common:option")
    for flow_id in Flow.factory.list():
        for variable in Flow.factory.get(flow_id).config_vars:
            add(variable, f"flow:{flow_id}")
    for step_id in Step.factory.list():
        for variable in Step.factory.get(step_id).config_vars:
            add(variable, f"step:{step_id}")
    for entry in found.values():
        entry["owners"].sort()
    return {"openlane_version": __version__, "variables": dict(sorted(found.items()))}


def render() -> str:
    return json.dumps(table(), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    text = render()
    if "--write" in sys.argv[1:]:
        target = Path(__file__).with_name("ol2_variables.json")
        target.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
