"""Reading the host's YAML files (designs, configurations, scripts): a syntax error names the
file, line, column and the parser's problem, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class YamlFileError(ValueError):
    """A YAML file that does not parse: file, line, column and the parser's problem."""

    def __init__(self, path: Path, exc: yaml.YAMLError) -> None:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        super().__init__(f"{where}: YAML syntax error: {problem}")


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise YamlFileError(path, exc) from None
