"""Waveform files (VCD, FST, GHW) through pywellen: the parsed index is kept per file version,
signals are decoded one at a time, and names resolve the way engineers type them."""

from __future__ import annotations

import copy
import difflib
import mmap
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pywellen

from silicon_agent.servers.core.cache import file_digest
from silicon_agent.servers.core.workspace import InvalidInput

from . import limits, vcd_scan
from .values import Raw

CACHE_FILES = 4
CACHE_TRACES = 64
# The VCD fast path (vcd_scan) reads a few signals per pass over the file; past this many per
# call, or this many passes on one file, pywellen parses the whole body once instead.
FAST_BATCH = 8
FAST_PASSES = 6
# Prefixes simulators put above the user's top module (Verilator's TOP, the suite's dump helper).
WRAPPER_SCOPES = ("TOP.",)
HELPER_SCOPE = "sa_wave_dump"
_RANGE = re.compile(r"\s*\[[^\]]*\]$")
_FATAL = (KeyboardInterrupt, SystemExit, GeneratorExit)
_UNIT_FS = {"fs": 1, "ps": 10**3, "ns": 10**6, "us": 10**9, "ms": 10**12, "s": 10**15}


class WaveError(InvalidInput):
    """A waveform the reader cannot use: the message says what is wrong with the file."""


@dataclass(frozen=True)
class SignalInfo:
    name: str
    width: int
    kind: str
    direction: str
    is_real: bool
    ref: str


@dataclass
class Trace:
    """All changes of one signal: sorted times and the value from each time on."""

    times: np.ndarray
    values: list[Raw]

    def index_at(self, t: int) -> int:
        return int(np.searchsorted(self.times, t, side="right")) - 1

    def value_at(self, t: int) -> Raw:
        i = self.index_at(t)
        return self.values[i] if i >= 0 else None

    def sample(self, times: np.ndarray) -> list[Raw]:
        idx = np.searchsorted(self.times, times, side="right") - 1
        vals = self.values
        return [vals[i] if i >= 0 else None for i in idx.tolist()]


def normalise(name: str) -> str:
    """The form two simulators agree on: no TOP wrapper, no range suffix, no spaces."""
    text = name.strip().replace(" ", "")
    for prefix in WRAPPER_SCOPES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return _RANGE.sub("", text)


def sniff(
    path: Path, name: str | None = None, header_end: int | None = None
) -> tuple[str, list[str]]:
    """Refuse what pywellen would misread or choke on, or what would exceed the reader's
    limits, before it parses; returns the format and warnings (a VCD that ends mid-line was
    cut short). `name` is how messages call the file (path may be a /proc/self/fd link);
    `header_end` is where pywellen's VCD header ends, when known (limits.check_vcd)."""
    name = name or path.name
    size = path.stat().st_size
    if size == 0:
        raise WaveError(f"file: '{name}' is empty", argument="file")
    warnings: list[str] = []
    with path.open("rb") as handle:
        head = handle.read(64)
        if head.startswith(b"GHDLwave"):
            limits.check_size(name, size)
            return "GHW", warnings
        if head[:1] == b"\x00":
            limits.check_fst(name, handle, size)
            return "FST", warnings
        stripped = head.lstrip()
        if not stripped.startswith(b"$"):
            raise WaveError(
                f"file: '{name}' is not a VCD, FST or GHW waveform",
                argument="file",
                hint="Pass the dump a simulator wrote (run_testbench with waves='vcd' or 'fst').",
            )
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            end_defs = view.find(b"$enddefinitions")
            if end_defs < 0:
                raise WaveError(
                    f"file: '{name}' has no $enddefinitions: the VCD header never ends "
                    "(truncated, or not a VCD)",
                    argument="file",
                )
            if view.find(b"#", end_defs) < 0:
                raise WaveError(
                    f"file: '{name}' is a VCD header with no value changes (no #time in the body)",
                    argument="file",
                    hint="The simulation probably ended before dumping; rerun it with waves on.",
                )
            if view[size - 1 : size] not in (b"\n", b"\r"):
                warnings.append(
                    "the VCD ends mid-line: it looks truncated (simulation killed?); the last "
                    "partial change was dropped"
                )
        limits.check_vcd(name, handle, size, header_end)
    return "VCD", warnings


def _vcd_end_time(path: Path) -> int | None:
    """Last `#time` in the file, read from its tail instead of the whole body."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        for span in (1 << 16, 1 << 22):
            handle.seek(max(0, size - span))
            tail = handle.read()
            hits = re.findall(rb"(?m)^#(\d+)\s*$", tail)
            if hits:
                return int(hits[-1])
            if span >= size:
                break
    return None


class _FastPath:
    """The VCD fast path of one parsed dump, shared by its views (seen_at): the open file and
    its map, the id code and width of each bit-vector signal, signals asked for together."""

    def __init__(self, handle: Any, body: vcd_scan.Body, codes: dict[str, vcd_scan.Wanted]):
        self.handle = handle
        self.stat = os.fstat(handle.fileno())
        self.body: vcd_scan.Body | None = body
        self.codes = codes
        self.pending: list[str] = []
        self.passes = 0

    def changed(self) -> bool:
        now = os.fstat(self.handle.fileno())
        then = self.stat
        return (now.st_size, now.st_mtime_ns, now.st_ctime_ns) != (
            then.st_size,
            then.st_mtime_ns,
            then.st_ctime_ns,
        )

    def off(self) -> None:
        self.body = None
        self.pending.clear()

    def reopen(self, source: Path) -> None:
        """The kept file changed since: read on from `source`, whose bytes the caller just
        found by digest to be this parse's."""
        if self.body is None or not self.changed():
            return
        try:
            handle = source.open("rb")
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            self.off()
            return
        self.body = self.body.over(data)
        self.handle, self.stat = handle, os.fstat(handle.fileno())


_SIGNAL_ID = re.compile(r"\D*(\d+)\D*")


def _fast_path(handle: Any, header: vcd_scan.Header | None, all_vars: list) -> _FastPath | None:
    """The fast path when the walked header is pywellen's, variable by variable."""
    if header is None:
        return None
    refs = []
    for var in all_vars:
        match = _SIGNAL_ID.fullmatch(str(var.signal_ref))
        if match is None:
            return None
        refs.append(int(match.group(1)))
    if not vcd_scan.match_codes(header.vars, refs):
        return None
    codes: dict[str, vcd_scan.Wanted] = {}
    longest = 2
    for var, declared in zip(all_vars, header.vars, strict=True):
        if var.is_real or var.is_string or not declared.size.isdigit():
            continue
        width = int(declared.size)
        if width != int(var.length or 0) or width < 1:
            continue
        codes[str(var.signal_ref)] = vcd_scan.Wanted(declared.code, width)
        longest = max(longest, width + 2)
    if not codes:
        return None
    data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    body = vcd_scan.Body(data, header.body, [d.code for d in header.vars], longest)
    return _FastPath(handle, body, codes)


class WaveFile:
    """One parsed dump. Safe to share between threads for reads once constructed."""

    def seen_at(self, path: Path) -> WaveFile:
        """This parse under the name a caller asked for: the same bytes found by content may
        sit at another path, and results must name the caller's file."""
        if path == self.path:
            return self
        view = copy.copy(self)
        view.path = path
        return view

    def seen_from(self, path: Path, source: Path) -> WaveFile:
        """seen_at, for a caller whose `source` holds this parse's bytes (by digest): the
        fast path reads on from it if the file it kept has changed since."""
        if self._fast is not None:
            self._fast.reopen(source)
        return self.seen_at(path)

    def __init__(self, path: Path, source: Path | None = None):
        """`path` names the file; `source` (default: path) is where its bytes are read."""
        self.path = path
        source = source or path
        stat = source.stat()
        self.size = stat.st_size
        self.mtime_ns = stat.st_mtime_ns
        handle = source.open("rb")
        header = _walk_header(handle)
        self.format, self.warnings = sniff(source, path.name, header and header.end)
        try:
            self._wave = pywellen.Waveform(str(source), multi_threaded=True)
            all_vars = list(self._wave.all_vars())
        except _FATAL:
            raise
        except BaseException as exc:  # pywellen turns Rust panics into BaseException
            raise WaveError(
                f"file: '{path.name}' could not be read as {self.format}: {_first_line(str(exc))}",
                argument="file",
                hint="The dump is malformed or cut short; rerun the simulation to rewrite it.",
            ) from None
        scale = self._wave.timescale
        if scale is None:
            self.timescale = "1s"
            self.fs_per_tick = 10**15
        else:
            unit = str(scale.unit).split(".")[-1].lower()
            unit = {"femtoseconds": "fs", "picoseconds": "ps", "nanoseconds": "ns"}.get(unit, unit)
            self.timescale = f"{scale.factor}{unit}"
            self.fs_per_tick = int(scale.factor) * _UNIT_FS.get(unit, 1)
        self.version = str(self._wave.version or "")
        self._vars: dict[str, Any] = {}
        self.infos: dict[str, SignalInfo] = {}
        for var in all_vars:
            name = var.full_name
            if name in self._vars or name.startswith(HELPER_SCOPE + "."):
                continue
            self._vars[name] = var
            self.infos[name] = SignalInfo(
                name=name,
                width=int(var.bitwidth or var.length or 1) if not var.is_real else 64,
                kind=str(var.var_type),
                direction=str(var.direction),
                is_real=bool(var.is_real),
                ref=str(var.signal_ref),
            )
        if not self.infos:
            raise WaveError(f"file: '{path.name}' declares no signals", argument="file")
        self._by_norm: dict[str, list[str]] = {}
        for name in self.infos:
            self._by_norm.setdefault(normalise(name), []).append(name)
        self._lock = threading.Lock()
        self._signals: dict[str, Any] = {}
        self._traces: OrderedDict[str, Trace] = OrderedDict()
        self._edges: dict[tuple[str, str], np.ndarray] = {}
        self._end: int | None = None
        self.digest: str | None = None
        self._fast = _fast_path(handle, header, all_vars) if self.format == "VCD" else None
        if self._fast is None:
            handle.close()

    def _cut_note(self) -> str:
        return " (" + self.warnings[0] + ")" if self.warnings else ""

    # --- names -------------------------------------------------------------------------
    def resolve(self, name: str, argument: str = "signals") -> SignalInfo:
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput(f"{argument}: empty signal name", argument=argument)
        if name in self.infos:
            return self.infos[name]
        key = normalise(name)
        if key in self._by_norm:
            return self.infos[self._by_norm[key][0]]
        suffix = "." + key
        hits = [
            full for norm, fulls in self._by_norm.items() if norm.endswith(suffix) for full in fulls
        ]
        if hits:
            refs = {self.infos[h].ref for h in hits}
            if len(refs) == 1:  # one net seen from several scopes: take the outermost
                return self.infos[min(hits, key=lambda h: (h.count("."), h))]
            shown = ", ".join(sorted(hits, key=lambda h: (h.count("."), h))[:8])
            raise InvalidInput(
                f"{argument}: '{name}' is ambiguous in {self.path.name}: {shown}",
                argument=argument,
                hint="Give more of the hierarchical name, e.g. 'dut." + key.split(".")[-1] + "'.",
            )
        close = difflib.get_close_matches(key, list(self._by_norm), n=5, cutoff=0.6)
        leaf = key.split(".")[-1]
        close += [n for n in self._by_norm if n.split(".")[-1] == leaf and n not in close][:3]
        raise InvalidInput(
            f"{argument}: no signal '{name}' in {self.path.name}",
            argument=argument,
            hint=("Close names: " + ", ".join(close[:6]))
            if close
            else "Use list_signals to see the names in this dump.",
        )

    def scope_of(self, info: SignalInfo) -> str:
        return info.name.rsplit(".", 1)[0] if "." in info.name else ""

    def in_scope(self, scope: str, leaf: str) -> SignalInfo | None:
        """`scope.leaf` if the dump has it (exact scope, names as dumped)."""
        full = f"{scope}.{leaf}" if scope else leaf
        if full in self.infos:
            return self.infos[full]
        for name in self._by_norm.get(normalise(full), []):
            return self.infos[name]
        return None

    # --- data --------------------------------------------------------------------------
    def prefetch(self, infos: list[SignalInfo], every: bool = False) -> None:
        """Signals a call is about to read: the VCD fast path reads them in one pass, and
        more than FAST_BATCH of them, or `every` signal, go to pywellen's parse of the whole
        body (which also checks every change in it)."""
        fast = self._fast
        if fast is None or fast.body is None:
            return
        wanted = [i.ref for i in infos if i.ref not in self._signals]
        if every or len(set(wanted)) > FAST_BATCH:
            fast.off()
        else:
            fast.pending.extend(r for r in wanted if r not in fast.pending)

    def _read_fast(self, info: SignalInfo) -> Any:
        """The signal from the VCD fast path, with the others pending; None to use pywellen."""
        fast = self._fast
        if fast is None or fast.body is None or info.ref not in fast.codes:
            return None
        if fast.passes >= FAST_PASSES:
            fast.off()
            return None
        refs = [info.ref] + [r for r in fast.pending if r != info.ref and r in fast.codes]
        refs = [r for r in dict.fromkeys(refs) if r not in self._signals][:FAST_BATCH]
        fast.pending.clear()
        if fast.changed():
            with _cache_lock:
                if self.digest is not None:
                    _cache.pop(self.digest, None)
            raise WaveError(
                f"file: '{self.path.name}' changed on disk since it was opened",
                argument="file",
                hint="Call again: the new contents are read afresh.",
            )
        fast.passes += 1
        got = fast.body.scan([fast.codes[r] for r in refs])
        if got is None:
            fast.off()
            return None
        for ref in refs[1:]:
            self._signals[ref] = got[fast.codes[ref].code]
        return got[fast.codes[info.ref].code]

    def signal(self, info: SignalInfo) -> Any:
        sig = self._signals.get(info.ref)
        if sig is None:
            sig = self._read_fast(info)
            if sig is not None:
                self._signals[info.ref] = sig
                return sig
            if self._fast is not None:
                self._fast.off()  # pywellen now holds the whole body: it serves the rest
            try:
                sig = self._vars[info.name].signal
            except _FATAL:
                raise
            except BaseException as exc:
                raise WaveError(
                    f"file: '{self.path.name}' could not be read as {self.format} (while "
                    f"decoding '{info.name}'): {_first_line(str(exc))}{self._cut_note()}",
                    argument="file",
                    hint="The dump is malformed or cut short; rerun the simulation to rewrite it.",
                ) from None
            self._signals[info.ref] = sig
        return sig

    def value_at(self, info: SignalInfo, t: int) -> Raw:
        if t < 0:
            return None
        return self.signal(info).value_at(int(t))

    def change_count(self, info: SignalInfo) -> int:
        return len(self.signal(info))

    def trace(self, info: SignalInfo) -> Trace:
        with self._lock:
            hit = self._traces.get(info.ref)
            if hit is not None:
                self._traces.move_to_end(info.ref)
                return hit
        sig = self.signal(info)
        if isinstance(sig, vcd_scan.Changes):
            trace = Trace(sig.times, sig.values)
        else:
            pairs = list(sig)
            times = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
            trace = Trace(times, [p[1] for p in pairs])
        with self._lock:
            self._traces[info.ref] = trace
            while len(self._traces) > CACHE_TRACES:
                self._traces.popitem(last=False)
        return trace

    def edges(self, clock: SignalInfo, edge: str = "rising") -> np.ndarray:
        """Times of the clock's rising (0->1) or falling (1->0) edges."""
        key = (clock.ref, edge)
        if key in self._edges:
            return self._edges[key]
        if clock.width != 1:
            raise InvalidInput(
                f"clock: '{clock.name}' is {clock.width} bits wide, a clock is 1 bit",
                argument="clock",
            )
        trace = self.trace(clock)
        level = np.array([1 if v == 1 or v == "1" else 0 for v in trace.values], dtype=np.int8)
        prev = np.concatenate(([0 if edge == "rising" else 1], level[:-1]))
        if edge == "rising":
            mask = (level == 1) & (prev == 0)
        else:
            mask = (level == 0) & (prev == 1)
        # A clock that starts high at t=0 has not had an edge yet.
        if edge == "rising" and len(trace.times) and trace.times[0] == 0:
            mask[0] = False
        result = trace.times[mask]
        self._edges[key] = result
        return result

    def start_time(self) -> int:
        return 0

    def end_time(self) -> int:
        if self._end is None:
            end = _vcd_end_time(self.path) if self.format == "VCD" else None
            if end is None:
                end = 0
                for info in list(self.unique_signals())[:4000]:
                    sig = self.signal(info)
                    if len(sig):
                        end = max(end, int(sig[len(sig) - 1][0]))
            self._end = end
        return self._end

    def unique_signals(self) -> list[SignalInfo]:
        seen: set[str] = set()
        out = []
        for info in self.infos.values():
            if info.ref not in seen:
                seen.add(info.ref)
                out.append(info)
        return out

    def describe_time(self, ticks: int) -> str:
        """A tick count in the dump's own unit, e.g. '850ps'."""
        fs = ticks * self.fs_per_tick
        for unit in ("s", "ms", "us", "ns", "ps", "fs"):
            if fs % _UNIT_FS[unit] == 0:
                return f"{fs // _UNIT_FS[unit]}{unit}"
        return f"{fs}fs"

    def parse_time(self, value: int | str, argument: str) -> int:
        """Ticks from an int, or from a string with a unit ('120ns') converted to ticks."""
        if isinstance(value, bool):
            raise InvalidInput(f"{argument}: expected a time, got a boolean", argument=argument)
        if isinstance(value, int):
            if value < 0:
                raise InvalidInput(f"{argument}: time {value} is negative", argument=argument)
            return value
        match = re.fullmatch(r"\s*(\d+)\s*(fs|ps|ns|us|ms|s)?\s*", str(value))
        if not match:
            raise InvalidInput(
                f"{argument}: '{value}' is not a time",
                argument=argument,
                hint="Give ticks of the dump's timescale (an integer) or e.g. '120ns'.",
            )
        number = int(match.group(1))
        if match.group(2) is None:
            return number
        fs = number * _UNIT_FS[match.group(2)]
        if fs % self.fs_per_tick:
            raise InvalidInput(
                f"{argument}: '{value}' is not a whole number of ticks ({self.timescale})",
                argument=argument,
            )
        return fs // self.fs_per_tick


def _walk_header(handle: Any) -> vcd_scan.Header | None:
    """pywellen's VCD header end and declarations, or None (not a VCD, or unsure)."""
    try:
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if view[:1] in (b"\x00", b"G"):
                return None
            return vcd_scan.parse_header(view, min(len(view), limits.MAX_HEADER_BYTES + 32))
    except (ValueError, OSError):
        return None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:2])[:300] if lines else "unknown error"


# Parsed dumps by content digest; a stat memo (path, size, mtime, ctime, inode) -> digest spares
# warm queries the hashing, while a copy, a rename or a touched file with the same bytes still
# hits. ctime is in the memo key because a writer can reset mtime but never ctime.
_cache: OrderedDict[str, WaveFile] = OrderedDict()
_digests: OrderedDict[tuple[str, int, int, int, int], str] = OrderedDict()
_cache_lock = threading.Lock()
_loading: dict[str, threading.Lock] = {}
_DIGEST_MEMO = 64


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0


stats = CacheStats()


def _stat_key(path: Path) -> tuple[str, int, int, int, int]:
    st = path.stat()
    return (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def content_digest(path: Path) -> tuple[str, tuple[str, int, int, int, int]]:
    """The file's content digest, hashed once per stat key, and that key."""
    key = _stat_key(path)
    with _cache_lock:
        known = _digests.get(key)
        if known is not None:
            _digests.move_to_end(key)
            return known, key
    digest = file_digest(path)
    if _stat_key(path) != key:  # rewritten while hashed: the digest names no stable content
        return digest, key
    with _cache_lock:
        _digests[key] = digest
        while len(_digests) > _DIGEST_MEMO:
            _digests.popitem(last=False)
    return digest, key


def open_wave(path: Path, source: Path | None = None) -> tuple[WaveFile, bool]:
    """The parsed file, shared while its content is unchanged; returns (file, cached).
    `source` is where the bytes are read when it is not `path` (an already opened file)."""
    source = source or path
    limits.check_size(path.name, source.stat().st_size)  # before hashing it
    key, seen = content_digest(source)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            stats.hits += 1
        else:
            gate = _loading.setdefault(key, threading.Lock())
    if hit is not None:
        return hit.seen_from(path, source), True
    with gate:  # two callers asking for the same cold file parse it once
        with _cache_lock:
            hit = _cache.get(key)
            if hit is not None:
                stats.hits += 1
        if hit is not None:
            return hit.seen_from(path, source), True
        wave = WaveFile(path, source)
        wave.digest = key
        with _cache_lock:
            stats.misses += 1
            _loading.pop(key, None)
            # A file rewritten since it was hashed may not match the digest: not shared.
            if _stat_key(source) == seen:
                _cache[key] = wave
                while len(_cache) > CACHE_FILES:
                    _cache.popitem(last=False)
    return wave, False


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()
        _digests.clear()
