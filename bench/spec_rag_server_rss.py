"""Memory of the real `mcp-spec-rag` server with embedding on: ingest, queries, re-ingest.

Starts the console module over stdio once per embedder (side by side in one run), ingests the
.docx specs of `--docx DIR` as ingest jobs (default: three large generated specs), runs
`--queries` searches, then re-ingests the first spec with new bytes (one extra zip member, the
same document) and `replace=true`. The server's RSS (VmRSS) and peak (VmHWM) are read from
/proc after each step; ingest time is the server's own `seconds`, per MB of the file.

    PYTHONPATH=. .venv/bin/python bench/spec_rag_server_rss.py --docx DIR \
        [--embedders local,onnx-int8] [--queries 60]

No 3GPP document is part of the repository: point `--docx` at your own copies.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]

QUERIES = (
    "CRC attachment generator polynomial gCRC24A",
    "code block segmentation filler bits",
    "turbo code internal interleaver f1 f2 parameters",
    "sub-block interleaver inter-column permutation pattern",
    "rate matching circular buffer redundancy version",
    "tail biting convolutional coding",
    "channel quality information wideband CQI",
    "HARQ retransmission in the MAC entity",
    "random access procedure initialization preamble",
    "buffer status report triggered",
    "DRX inactivity timer",
    "power headroom report",
    "timing advance command",
    "UE category maximum number of DL-SCH transport block bits",
    "total number of soft channel bits",
    "supported band combinations",
    "LDPC base graph selection",
    "polar code rate matching",
    "downlink control information format 1_0",
    "logical channel prioritization",
)


def _status(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def _server_pid() -> int:
    """The server is this process's one child running the spec_rag module."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if ppid == me and b"silicon_agent.servers.spec_rag.server" in cmdline:
            return int(entry.name)
    raise RuntimeError("the spec_rag server process was not found")


def _memory(pid: int, label: str) -> dict[str, float]:
    now = _status(pid)
    print(f"    {label:<40} RSS {now['VmRSS']:7.0f} MB   peak {now['VmHWM']:7.0f} MB", flush=True)
    return now


def _new_bytes(path: Path) -> None:
    """The same document under another digest: one more (unread) member in the zip."""
    with zipfile.ZipFile(path, "a") as package:
        package.writestr(f"customXml/bench-{time.time_ns()}.txt", "re-ingest")


async def _ingest(client: Client, name: str, replace: bool = False) -> dict:
    arguments = {"path": name, "replace": replace}
    started = await client.call_tool("job_start", {"operation": "ingest", "arguments": arguments})
    job = started.structured_content["job_id"]
    while True:
        done = await client.call_tool("job_result", {"job_id": job, "wait_s": 50})
        info = done.structured_content
        if info["state"] not in ("pending", "running"):
            if info["state"] != "done":
                raise RuntimeError(f"ingest {name}: {info}")
            return info["result"]


async def measure(embedder: str, files: list[Path], queries: int, root: Path) -> None:
    ws = root / embedder.replace(":", "-")
    ws.mkdir()
    for f in files:
        shutil.copy(f, ws / f.name)
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "silicon_agent.servers.spec_rag.server",
            "--workspace",
            str(ws),
            "--embedder",
            embedder,
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    print(f"== server with --embedder {embedder} ==", flush=True)
    async with Client(params) as client:
        pid = _server_pid()
        await client.call_tool("list_specs", {})
        _memory(pid, "started")
        for f in files:
            result = await _ingest(client, f.name)
            mb = f.stat().st_size / 1e6
            print(
                f"  ingest {f.name} ({mb:.2f} MB): {result['status']} {result['spec']}, "
                f"{result['clauses']} clauses, {result['chunks']} chunks, vectors "
                f"{result['vectors']}, {result['seconds']:.1f} s = "
                f"{result['seconds'] / mb:.1f} s/MB",
                flush=True,
            )
            _memory(pid, f"after ingest of {f.name}")
        search_ms, embed_ms, wall_ms, vectors = [], [], [], 0
        for n in range(queries):
            t0 = time.perf_counter()
            hit = await client.call_tool("search", {"query": QUERIES[n % len(QUERIES)]})
            wall_ms.append((time.perf_counter() - t0) * 1000)
            found = hit.structured_content
            search_ms.append(found.get("search_ms") or 0.0)
            embed_ms.append(found.get("embed_ms") or 0.0)
            vectors += "vector" in found["retrievers"]
        print(
            f"  {queries} searches: query embedding p50 {statistics.median(embed_ms):.1f} ms, "
            f"retrieval p50 {statistics.median(search_ms):.1f} ms, round trip p50 "
            f"{statistics.median(wall_ms):.1f} ms; {vectors} used vectors",
            flush=True,
        )
        _memory(pid, f"after {queries} searches")
        _new_bytes(ws / files[0].name)
        result = await _ingest(client, files[0].name, replace=True)
        print(f"  re-ingest {files[0].name}: {result['status']} in {result['seconds']:.1f} s")
        _memory(pid, "after re-ingest")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docx", type=Path, help="a folder of .docx specs (default: generated)")
    parser.add_argument("--embedders", default="local,onnx-int8")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--filler", type=int, default=1500, help="clauses per generated spec")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="spec-rag-rss-"))
    try:
        if args.docx:
            files = sorted(args.docx.glob("*.docx"))
        else:
            sys.path.insert(0, str(REPO))
            from tests.spec_rag.docx_writer import write_real_docx

            files = [
                write_real_docx(root / f"big{n}.docx", spec=spec, filler=args.filler)
                for n, spec in enumerate(("36.901", "36.902", "36.903"))
            ]
        for embedder in args.embedders.split(","):
            anyio.run(measure, embedder, files, args.queries, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
