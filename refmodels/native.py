"""C++ kernels of the reference models, compiled on first use with the system C++ compiler (the
one Verilator needs anyway) and loaded with ctypes.

The shared object is cached per user under ``$XDG_CACHE_HOME/silicon-agent/kernels`` (default
``~/.cache``), named by a hash of the source, the flags, the compiler's version and the CPU's
feature flags (``-march=native``), and written beside a SHA-256 of its bytes: a cached object
whose bytes no longer match (a torn write, a corrupt file) is rebuilt.  Both files are moved in
place with an atomic rename, so concurrent first uses at worst compile twice.  The flags keep
IEEE semantics (no fast-math, no floating-point contraction), so float results do not depend on
the machine's vector width or FMA support.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = (
    "-std=c++17",
    "-O3",
    "-march=native",
    "-fno-fast-math",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fPIC",
    "-shared",
    "-Wno-psabi",
)


class NativeBuildError(RuntimeError):
    """No C++ compiler, or the kernel did not compile."""


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$XDG_CACHE_HOME/silicon-agent/kernels``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "silicon-agent" / "kernels"


def compiler() -> str:
    """The C++ compiler: ``$CXX``, else ``c++``, ``g++`` or ``clang++`` on PATH."""
    cxx = os.environ.get("CXX")
    if cxx:
        found = shutil.which(cxx)
        if found is None:
            raise NativeBuildError(f"CXX={cxx!r} is not an executable on PATH")
        return found
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return found
    raise NativeBuildError(
        "the reference models compile their C++ kernels on first use and found no C++ compiler "
        "(c++, g++ or clang++ on PATH, or set CXX); install g++ (Verilator needs it too)"
    )


def _cpu_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return line
    except OSError:
        pass
    return platform.processor()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _build(cxx: str, source: Path, target: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=".so", dir=target.parent)
    except OSError as exc:
        raise NativeBuildError(
            f"cannot write the compiled kernel into {target.parent} ({exc.strerror}); "
            "set XDG_CACHE_HOME to a writable folder"
        ) from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        proc = subprocess.run(
            [cxx, *FLAGS, "-o", str(tmp), str(source)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise NativeBuildError(
                f"{cxx} failed to compile {source.name} (exit {proc.returncode}): "
                f"{proc.stderr.strip()[-2000:]}"
            )
        sig = tmp.with_suffix(".sha256")
        sig.write_text(_digest(tmp) + "\n")
        os.replace(sig, target.with_suffix(".sha256"))
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
        tmp.with_suffix(".sha256").unlink(missing_ok=True)


def cached_path(source: Path, cxx: str) -> Path:
    """The cache file the kernel of ``source`` compiles to on this machine with ``cxx``."""
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    h = hashlib.sha256()
    for part in (source.read_bytes(), " ".join(FLAGS).encode(), cxx.encode(), version.encode()):
        h.update(part)
        h.update(b"\0")
    h.update(f"{platform.machine()}\0{_cpu_flags()}".encode())
    return cache_dir() / f"{source.stem}-{h.hexdigest()[:24]}.so"


def _intact(path: Path) -> bool:
    sig = path.with_suffix(".sha256")
    try:
        return path.is_file() and sig.read_text().strip() == _digest(path)
    except OSError:
        return False


def load(source: Path) -> ctypes.CDLL:
    """The compiled kernel of ``source``: from the cache when intact, else compiled now."""
    cxx = compiler()
    target = cached_path(source, cxx)
    if not _intact(target):
        _build(cxx, source, target)
    try:
        return ctypes.CDLL(str(target))
    except OSError as exc:
        raise NativeBuildError(f"cannot load the compiled kernel {target}: {exc}") from exc
