"""A design file loaded for a run: the schema (`suite/design.py`) validated, each block's
spec file read into its spec, and a planned design's approval checked (the host's rule, so it
stays here)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from silicon_agent.suite.design import Design
from silicon_agent.suite.yaml_file import read_yaml

from .planning.approval import check_approved


class LoadedDesign(BaseModel):
    design: Design
    path: Path
    workspace: Path


def load_design(path: str | Path) -> LoadedDesign:
    file = Path(path).resolve()
    design = Design.model_validate(read_yaml(file))
    workspace = (file.parent / design.workspace).resolve()
    for block in design.blocks:
        if block.spec_file:
            block.spec = (block.spec + "\n" + (workspace / block.spec_file).read_text()).strip()
    if design.plan is not None:
        check_approved(file.parent)
    return LoadedDesign(design=design, path=file, workspace=workspace)
