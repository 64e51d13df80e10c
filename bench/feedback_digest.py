"""How often `verify_block`'s digest names the line a mutant changed.

Every single-line mutant of hdl/mutations.py goes through `agent-host serve`'s verify_block over
MCP stdio; of the failing replies, the share whose explanation names the changed line
('file.sv:N' in the cone, or a function's line range that holds it). A mutant of the block's own
file is the call's candidate; a mutant of the shared package is the design's (a server whose
design folder holds the mutated package, the block's reference file the candidate), and its
digest must name the package's line; so is a mutant of another file the block instantiates
(a divider stage, the top's configuration block). Blocks run on Icarus, those of
`VERILATOR_MUTANTS` on Verilator; verify_block takes no case, so a mutant whose `CASE_FOR` case
the block's judge does not list runs on a design whose judge lists that case after its own (a
case only its own testbench runs, `SEQUENCE_CASE`, cannot be judged and is reported as such).
Each mutant's line is printed as it is judged (`--log` appends it to a file too), so a partial
run still gives figures; `--summarize LOG` prints the per-block table of such a log, with the
median number of the changed file's lines a failing reply names and the median rank of the
changed line among the cone's lines in its order (how far a reader goes to reach it).
`--replies DIR` keeps each reply; `--verilator B ..` runs those blocks on Verilator too.
`--checkout DIR` runs another checkout's code (its host and servers) with the same mutants, for
a before/after comparison; `--mutants I ..` only those indices of MUTATIONS.

    python bench/feedback_digest.py [--blocks B ..] [--checkout DIR] [--log FILE]
    python bench/feedback_digest.py --summarize FILE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent


def lines_named(explanation: dict[str, Any] | None, file: str) -> int:
    """How many distinct lines of `file` the digest names (a statement's or a function's
    range counts whole; a parameter by its declaration line)."""
    text = json.dumps(explanation or {})
    lines = {int(n) for n in re.findall(rf"{re.escape(file)}:(\d+)(?:\"| \(parameter)", text)}
    for lo, hi in re.findall(rf"{re.escape(file)}:(\d+)-(\d+)[\" ]", text):
        lines |= set(range(int(lo), int(hi) + 1))
    return len(lines)


def named(explanation: dict[str, Any] | None, file: str, line: int) -> bool:
    """Whether the digest names `file:line`, itself (a parameter's declaration too) or
    inside the line range of a statement over several lines or of a function."""
    text = json.dumps(explanation or {})
    if re.search(rf"{re.escape(file)}:{line}(?:\"| \(parameter)", text):
        return True
    for lo, hi in re.findall(rf"{re.escape(file)}:(\d+)-(\d+)[\" ]", text):
        if int(lo) <= line <= int(hi):
            return True
    return False


def rank_of(explanation: dict[str, Any] | None, file: str, line: int) -> int | None:
    """Where the changed line comes among the distinct lines the cone names, in the cone's
    order (1 = first): how far a reader goes before reaching the cause."""
    order: list[str] = []
    for entry in (explanation or {}).get("cone") or []:
        for text in entry.get("lines") or [] if isinstance(entry, dict) else []:
            if text not in order:
                order.append(text)
    for position, text in enumerate(order, 1):
        if named({"cone": [{"lines": [text]}]}, file, line):
            return position
    return None


BENCH_ORDER = [
    "crc_checker", "descrambler", "qam_demodulator", "resource_demapper", "rate_dematcher",
    "dl_sch_processor", "equalizer", "channel_estimator", "ofdm_demodulator", "turbo_decoder",
    "pdsch_rx_backend", "lte_baseband_top",
]  # fmt: skip
EXTRA = re.compile(r"\((?P<span>\d+) lines of \S+ named\)(?: rank=(?P<rank>\S+))?")
LINE = re.compile(
    r"^\s*\d+ (?P<block>\S+) .* (?P<status>[A-Z_]+) +(?P<kind>\S+) +line +\d+ named=(?P<named>\w+)"
)


def design_file(
    checkout: Path, root: Path, workspace: Path, cases: dict[str, list[str]], verilator: set[str]
) -> Path:
    """The registry with its workspace at `workspace`, each block's judge on the bench's
    simulator (Verilator for the blocks of `verilator`), and `cases` appended to the named
    blocks' judge cases."""
    data = yaml.safe_load((checkout / "hdl" / "blocks.yaml").read_text())
    data["workspace"] = str(workspace)
    for block in data["blocks"]:
        if block.get("judge"):
            sim = "verilator" if block["name"] in verilator else "iverilog"
            block["judge"]["simulators"] = [sim]
            extra = [c for c in cases.get(block["name"], []) if c not in block["judge"]["cases"]]
            block["judge"]["cases"] += extra
    root.mkdir(parents=True, exist_ok=True)
    path = root / "blocks.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def server(checkout: Path, root: Path, design: Path, workspace: Path) -> StdioServerParameters:
    env = {"PYTHONPATH": str(checkout)}
    servers = {
        name: {
            "command": sys.executable,
            "args": ["-m", f"silicon_agent.servers.{name}.server"],
            "env": env,
        }
        for name in ("iverilog", "verilator", "vcd")
    }
    (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "silicon_agent.host.cli", "serve", "--state-dir", str(root / "state"),
              "--workspace", str(workspace), "--design", str(design),
              "--mcp-config", str(root / "mcp.json")],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
        cwd=str(checkout),
    )  # fmt: skip


async def judge(
    params: StdioServerParameters,
    calls: list[tuple[int, str, str, str, int, str]],
    log: Any,
    verilator: set[str],
    replies: Path | None = None,
) -> None:
    """Each call (index, block, label, candidate, changed line, changed file's name) on one
    server; one line per mutant (each reply kept in `replies` when given)."""
    async with Client(params) as client:
        for index, block, label, candidate, line, name in calls:
            sim = "verilator" if block in verilator else "iverilog"
            try:
                reply = await client.call_tool(
                    "verify_block",
                    {"block": block, "rtl_files": [candidate], "simulator": sim},
                    read_timeout_seconds=3600,
                )
            except Exception as exc:
                print(f"{index:3d} {block:18s} {label[:48]:48s} ERROR {exc!r:.200}", flush=True)
                continue
            body = reply.structured_content or {}
            body = body.get("result", body) if set(body) == {"result"} else body
            if replies is not None:
                replies.mkdir(parents=True, exist_ok=True)
                (replies / f"{index}.json").write_text(json.dumps(body, indent=1))
            status = body.get("status")
            kind = (body.get("failure") or {}).get("kind")
            found = status != "PASS" and named(body.get("explanation"), name, line)
            span = lines_named(body.get("explanation"), name)
            rank = rank_of(body.get("explanation"), name, line) if found else None
            text = (
                f"{index:3d} {block:18s} {label[:48]:48s} {status:12s} {kind or '-':10s} "
                f"line {line:4d} named={found} ({span} lines of {name} named) "
                f"rank={rank or '-'} sim={sim}"
            )
            print(text, flush=True)
            if log is not None:
                log.write(text + "\n")
                log.flush()


async def run(
    blocks: list[str],
    checkout: Path,
    log_path: Path | None,
    only: set[int] | None = None,
    verilator: set[str] | None = None,
    replies: Path | None = None,
) -> None:
    sys.path.insert(0, str(checkout))
    from silicon_agent.hdl.campaign import case_names
    from silicon_agent.hdl.mutations import CASE_FOR, MUTATIONS, VERILATOR_MUTANTS
    from silicon_agent.hdl.registry import load_registry

    verilator = VERILATOR_MUTANTS | (verilator or set())

    registry = load_registry()
    order = [b for b in BENCH_ORDER if b in blocks] + [b for b in blocks if b not in BENCH_ORDER]
    log = log_path.open("a") if log_path else None
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        workspace.mkdir()
        extra: dict[str, list[str]] = {}
        own: list[tuple[int, str, str, str, int, str]] = []
        design_side: list[tuple[int, str, str, str, str, str, int]] = []
        for index, (block, label, file, original, mutated) in enumerate(MUTATIONS):
            if block not in blocks or (only is not None and index not in only):
                continue
            text = (checkout / file).read_text()
            assert text.count(original) == 1, (block, label)
            line = text[: text.index(original)].count("\n") + 1
            name = Path(file).name
            case = CASE_FOR.get(label)
            if case and case not in case_names(registry.block(block)):
                note = f"case {case} is its own testbench's: judged on the block's cases"
                print(f"{index:3d} {block:18s} {label[:48]:48s} {note}", flush=True)
            elif case:
                extra.setdefault(block, []).append(case)
            if file != registry.block(block).rtl_file:
                design_side.append((index, block, label, file, original, mutated, line))
                continue
            (workspace / f"m{index}").mkdir()
            (workspace / f"m{index}" / name).write_text(text.replace(original, mutated))
            own.append((index, block, label, f"m{index}/{name}", line, name))
        for block in order:
            rel = registry.block(block).rtl_file
            (workspace / Path(rel).name).write_text((checkout / rel).read_text())
        design = design_file(checkout, root / "server", checkout, extra, verilator)
        params = server(checkout, root / "server", design, workspace)
        calls = sorted(own, key=lambda c: (order.index(c[1]), c[0]))
        await judge(params, calls, log, verilator, replies)
        # The package's and the helper files' mutants: a design folder holding the mutant.
        for index, block, label, file, original, mutated, line in design_side:
            folder = root / f"design{index}"
            shutil.copytree(checkout / "hdl", folder / "hdl")
            text = (checkout / file).read_text()
            (folder / file).write_text(text.replace(original, mutated))
            design = design_file(checkout, root / f"server{index}", folder, extra, verilator)
            params = server(checkout, root / f"server{index}", design, workspace)
            rel = Path(registry.block(block).rtl_file).name
            call = (index, block, label, rel, line, Path(file).name)
            await judge(params, [call], log, verilator, replies)
    if log is not None:
        log.close()
        summarize(log_path)


def summarize(path: Path | None) -> None:
    """Per block: mutants judged, failing replies, replies naming the changed line, share,
    and the medians of the lines a failing reply names and of the changed line's rank."""
    rows: dict[str, list[int]] = {}
    spans: dict[str, list[int]] = {}
    ranks: dict[str, list[int]] = {}
    for text in path.read_text().splitlines() if path else []:
        match = LINE.match(text)
        if not match:
            continue
        row = rows.setdefault(match["block"], [0, 0, 0])
        row[0] += 1
        if match["status"] != "PASS":
            row[1] += 1
            row[2] += match["named"] == "True"
            extra = EXTRA.search(text)
            if extra:
                spans.setdefault(match["block"], []).append(int(extra["span"]))
                if extra["rank"] and extra["rank"] != "-":
                    ranks.setdefault(match["block"], []).append(int(extra["rank"]))
    total = [sum(r[i] for r in rows.values()) for i in range(3)]
    spans["all"] = [n for v in spans.values() for n in v]
    ranks["all"] = [n for v in ranks.values() for n in v]
    print(f"{'block':18s} {'mutants':>7s} {'failing':>7s} {'named':>5s} share  lines  rank")
    for block, (n, failing, hit) in [*rows.items(), ("all", total)]:
        share = f"{hit / failing:.0%}" if failing else "-"
        span = f"{statistics.median(spans[block]):g}" if spans.get(block) else "-"
        rank = f"{statistics.median(ranks[block]):g}" if ranks.get(block) else "-"
        print(f"{block:18s} {n:7d} {failing:7d} {hit:5d} {share:5s} {span:>6s} {rank:>5s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", nargs="+", default=BENCH_ORDER)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--log", type=Path, help="append each mutant's line to this file")
    parser.add_argument("--mutants", nargs="+", type=int, help="only these MUTATIONS indices")
    parser.add_argument("--summarize", type=Path, help="print the table of such a log, run none")
    parser.add_argument(
        "--verilator", nargs="+", default=[], help="these blocks on Verilator too (faster)"
    )
    parser.add_argument("--replies", type=Path, help="keep each reply as DIR/<index>.json")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    only = set(args.mutants) if args.mutants else None
    checkout = args.checkout.resolve()
    asyncio.run(run(args.blocks, checkout, args.log, only, set(args.verilator), args.replies))


if __name__ == "__main__":
    main()
