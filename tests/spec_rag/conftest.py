"""Shared fixtures: the generated corpus (PDF and DOCX) and a library with it ingested."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.embedders import LocalMiniLM
from tests.spec_rag.corpus import SPEC_36211, SPEC_36212, write_docx, write_pdf


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The generated specs, written once per session."""
    root = tmp_path_factory.mktemp("spec_corpus")
    return {
        "36212.pdf": write_pdf(SPEC_36212, root / "36212.pdf"),
        "36211.pdf": write_pdf(SPEC_36211, root / "36211.pdf"),
        "36212.docx": write_docx(SPEC_36212, root / "36212.docx"),
        "36211.docx": write_docx(SPEC_36211, root / "36211.docx"),
        "36212-nobookmarks.pdf": write_pdf(
            SPEC_36212, root / "36212-nobookmarks.pdf", bookmarks=False
        ),
    }


def copy_in(corpus: dict[str, Path], root: Path, *names: str) -> None:
    for name in names:
        shutil.copy(corpus[name], root / name)


@pytest.fixture(scope="session")
def minilm() -> LocalMiniLM:
    return LocalMiniLM()


@pytest.fixture(scope="session")
def library(
    corpus: dict[str, Path], minilm: LocalMiniLM, tmp_path_factory: pytest.TempPathFactory
) -> SpecLibrary:
    """Both generated PDFs ingested with the local embedder (shared, read-only use)."""
    root = tmp_path_factory.mktemp("ws_library")
    copy_in(corpus, root, "36212.pdf", "36211.pdf")
    lib = SpecLibrary(Workspace.open(root), embedder=minilm)

    async def ingest_all() -> None:
        for name in ("36212.pdf", "36211.pdf"):
            result = await lib.ingest(name)
            assert result.status == "ingested", result
            assert result.vectors

    asyncio.run(ingest_all())
    return lib


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace.open(tmp_path)
