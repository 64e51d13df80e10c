"""``hdl/blocks.yaml``, the receiver's block registry: a design the agent host runs, validated
by the host's one design schema (``host.design``) and read here for the hdl tools."""

from __future__ import annotations

import json
from pathlib import Path

from host.design import Block, BlockStatus, Design, Plusarg, Port, Vectors
from host.yaml_file import read_yaml

HDL_DIR = Path(__file__).resolve().parent
REPO = HDL_DIR.parent
BLOCKS_YAML = HDL_DIR / "blocks.yaml"
PACKAGE_SV = "hdl/pkg/lte_baseband_pkg.sv"

Registry = Design

__all__ = [
    "BLOCKS_YAML",
    "Block",
    "BlockStatus",
    "PACKAGE_SV",
    "Plusarg",
    "Port",
    "REPO",
    "Registry",
    "Vectors",
    "load_registry",
    "load_sidecar",
]


def load_registry(path: Path = BLOCKS_YAML) -> Registry:
    """Parse and validate ``blocks.yaml``."""
    return Registry.model_validate(read_yaml(path))


def load_sidecar(case_dir: Path, block: str) -> dict:
    """The JSON sidecar refmodels writes next to a case's hex files."""
    return json.loads((case_dir / f"{block}.json").read_text())
